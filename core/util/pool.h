/* A fixed-size thread pool with a FIFO task queue and a blocking parallel-for.
 *
 * Ownership: cuzk_pool_new returns a pool the caller frees with cuzk_pool_free; the global pool
 * belongs to the library and is freed at exit. Task arguments stay owned by the submitter.
 *
 * Threads: every function may be called from any thread, including from inside a pool task,
 * except cuzk_pool_free, which must not be called from one of the pool's own tasks (asserted) and
 * must not race with submissions from threads outside the pool. One internal mutex guards the
 * queue; tasks run without it. cuzk_pool_parallel_for makes the caller work on its own loop, so
 * nested calls (a task calling parallel_for on the same pool) complete even when every worker is
 * busy: there is no deadlock and no dependence on a free worker.
 */
#ifndef CUZK_UTIL_POOL_H
#define CUZK_UTIL_POOL_H

#include <stddef.h>

#include "core/util/err.h"

typedef struct cuzk_pool cuzk_pool_t;

/* Starts `nthreads` workers (0 = number of online CPUs). NULL (with a sentence in errstr) when
 * memory or threads cannot be had. */
cuzk_pool_t *cuzk_pool_new(unsigned nthreads, char *errstr, size_t errstr_size);

/* Stops accepting tasks (later submits get CUZK_ERR_CLOSED), runs every task already queued,
 * joins the workers and frees the pool. Tasks that submit while the pool drains get
 * CUZK_ERR_CLOSED; their parallel_for calls still complete, on the calling thread. NULL is a
 * no-op. */
void cuzk_pool_free(cuzk_pool_t *pool);

/* Number of worker threads. */
unsigned cuzk_pool_size(const cuzk_pool_t *pool);

/* Queues fn(arg) to run on a worker, in FIFO order with other submissions. CUZK_ERR_CLOSED once
 * cuzk_pool_free has started, CUZK_ERR_NOMEM if the queue cannot grow. Does not block. */
cuzk_err_t cuzk_pool_submit(cuzk_pool_t *pool, void (*fn)(void *arg), void *arg);

/* Runs fn(ctx, i) exactly once for every i in [0, n), spread over the pool's workers and the
 * calling thread, and returns when all have finished (their writes are then visible to the
 * caller). Indices are handed out in contiguous chunks in increasing order; no order between
 * threads is promised. pool == NULL runs the loop on the calling thread. Safe to nest. */
void cuzk_pool_parallel_for(cuzk_pool_t *pool, size_t n, void (*fn)(void *ctx, size_t i),
                            void *ctx);

/* The process-wide pool, created on first use (thread-safe) with $CUZK_THREADS workers (a number
 * in 1..1024) or one per online CPU, and freed by an atexit handler (which waits for its queued
 * tasks; do not leave threads using it past exit). NULL only if it could not be created; the
 * parallel_for above accepts that NULL. */
cuzk_pool_t *cuzk_pool_global(void);

#endif
