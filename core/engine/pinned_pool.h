/* The pinned host-buffer pool (DESIGN §4.4).
 *
 * Buffers come from the backend's host allocator (cudaHostAlloc on CUDA; page-locked memory lets
 * H2D copies run at PCIe line rate). Allocation is slow and serializes in the driver, so buffers
 * are pre-warmed at start at a configured pace, reused best-fit, and freed only when the budget's
 * evictor asks (largest idle first).
 *
 * Budget: the pool owns one reservation that covers every buffer it holds, idle or lent. A
 * partition served from idle buffers therefore reserves nothing for a/b/c (the bytes are already
 * counted); a partition whose reservation paid for fresh buffers hands those bytes to the pool
 * when they are allocated. Checkout never acquires budget (DESIGN §4.3: double counting made every
 * checkout fail under load). If pinned allocation fails, the partition falls back to heap memory
 * paid by its own reservation; the buffers say `pinned = false` and the fallback is counted.
 *
 * Thread-safe. The pool registers itself as an evictor of the budget; free the pool before the
 * budget.
 */
#ifndef CUZK_ENGINE_PINNED_POOL_H
#define CUZK_ENGINE_PINNED_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine/budget.h"
#include "core/util/err.h"

/* Host allocator of a backend. alloc returns NULL on failure (and may fill why/why_size);
 * free gets the same size. Called from any thread. */
typedef struct {
  void *(*alloc)(void *ctx, size_t bytes, char *why, size_t why_size);
  void (*free)(void *ctx, void *ptr, size_t bytes);
  void *ctx;
} cuzk_host_allocator_t;

typedef struct {
  void *ptr;
  size_t bytes;  /* capacity (>= what was asked) */
  bool pinned;   /* false: heap fallback */
  uint32_t slot; /* pool-internal */
} cuzk_buf_t;

typedef struct {
  uint64_t buffers, idle_buffers;
  uint64_t bytes, idle_bytes;
  uint64_t hits;        /* checkouts served from idle buffers */
  uint64_t misses;      /* checkouts that had to allocate */
  uint64_t fallbacks;   /* checkouts that ended in heap memory (is_pinned = false) */
  uint64_t allocations; /* pinned allocations made */
  uint64_t frees;       /* pinned buffers freed (shrink or pool free) */
  uint64_t alloc_ns;    /* time spent in the allocator */
} cuzk_pool_stats_t;

typedef struct cuzk_pinned_pool cuzk_pinned_pool_t;

/* A pool drawing on `budget` (the pool registers an evictor there). The allocator is copied. */
cuzk_pinned_pool_t *cuzk_pinned_pool_new(const cuzk_host_allocator_t *alloc, cuzk_budget_t *budget,
                                         char *errstr, size_t errstr_size);
/* Stops pre-warming, frees idle buffers. Asserts that every buffer was checked in. */
void cuzk_pinned_pool_free(cuzk_pinned_pool_t *p);

/* Claims three idle buffers of at least `bytes` each (best fit), all or nothing. Returns false
 * when the pool cannot serve all three from idle buffers (nothing is claimed then). */
bool cuzk_pinned_pool_try_checkout(cuzk_pinned_pool_t *p, size_t bytes, cuzk_buf_t out[3]);

/* For a partition whose reservation `res` holds at least 3·bytes for a/b/c: allocates three
 * pinned buffers and moves their bytes from `res` to the pool. If pinned allocation fails, falls
 * back to heap memory for the rest (the bytes stay in `res`), counts a fallback and writes the
 * reason to why (when non-NULL). Returns CUZK_ERR_NOMEM only when even the heap fails (nothing is
 * held then). */
cuzk_err_t cuzk_pinned_pool_checkout_alloc(cuzk_pinned_pool_t *p, size_t bytes,
                                           cuzk_reservation_t *res, cuzk_buf_t out[3], char *why,
                                           size_t why_size);

/* Gives back what a checkout returned: pinned buffers become idle, heap buffers are freed and
 * their bytes released from `res` (which may be NULL when all three are pinned). */
void cuzk_pinned_pool_checkin(cuzk_pinned_pool_t *p, cuzk_buf_t bufs[3], cuzk_reservation_t *res);

/* Frees idle buffers, largest first, until at least `need` bytes are released or none is idle.
 * Returns the bytes released. (This is the pool's budget evictor.) */
uint64_t cuzk_pinned_pool_shrink(cuzk_pinned_pool_t *p, uint64_t need);

/* Starts pre-warming in a background thread: `count` buffers of `bytes`, one allocation every
 * pace_ms (never a burst), each only while the budget has room (no waiting, no eviction).
 * A second call queues after the first. */
cuzk_err_t cuzk_pinned_pool_prewarm(cuzk_pinned_pool_t *p, size_t bytes, unsigned count,
                                    unsigned pace_ms);
/* Waits until queued pre-warming is done. */
void cuzk_pinned_pool_prewarm_wait(cuzk_pinned_pool_t *p);

void cuzk_pinned_pool_stats(cuzk_pinned_pool_t *p, cuzk_pool_stats_t *out);

#endif
