/* The scheduler's work queue: a binary min-heap of partition work items keyed
 * (priority descending, job_seq ascending, partition ascending).
 *
 * Strict order matters (DESIGN §4.2): the dispatcher grants memory only to the heap's top, so the
 * oldest job of the most urgent class always goes first, and a CRITICAL item pushed while NORMAL
 * work is queued is next at the following partition boundary. Keys are unique: pushing a key that
 * is already queued is refused (a second concurrent job must never overwrite the first), so job_seq
 * must be unique per job.
 *
 * Not thread-safe: the engine's dispatcher lock protects it. Items are caller-owned `void *`.
 */
#ifndef CUZK_ENGINE_SCHED_H
#define CUZK_ENGINE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine/types.h"
#include "core/util/err.h"

typedef struct {
  cuzk_priority_t priority;
  uint64_t job_seq;
  uint32_t partition;
} cuzk_sched_key_t;

typedef struct cuzk_sched cuzk_sched_t;

/* A new empty queue; NULL when out of memory. Free with cuzk_sched_free (items are not freed). */
cuzk_sched_t *cuzk_sched_new(void);
void cuzk_sched_free(cuzk_sched_t *s);

/* Queues `item` under `key`. CUZK_ERR_BUSY if the key is already queued, CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_sched_push(cuzk_sched_t *s, cuzk_sched_key_t key, void *item);
/* The most urgent item (and its key when `key` is non-NULL) without removing it; NULL when empty.
 */
void *cuzk_sched_peek(const cuzk_sched_t *s, cuzk_sched_key_t *key);
/* Removes and returns the most urgent item; NULL when empty. */
void *cuzk_sched_pop(cuzk_sched_t *s, cuzk_sched_key_t *key);
/* Removes every queued item of job `job_seq`, calling `fn(item, ctx)` for each; returns the count.
 */
size_t cuzk_sched_remove_job(cuzk_sched_t *s, uint64_t job_seq, void (*fn)(void *item, void *ctx),
                             void *ctx);
size_t cuzk_sched_len(const cuzk_sched_t *s);
/* Number of queued items per priority (array of CUZK_PRIO__COUNT). */
void cuzk_sched_depths(const cuzk_sched_t *s, size_t depths[CUZK_PRIO__COUNT]);
/* -1, 0, 1 as a is more urgent than, equal to, less urgent than b. */
int cuzk_sched_key_cmp(const cuzk_sched_key_t *a, const cuzk_sched_key_t *b);

#endif
