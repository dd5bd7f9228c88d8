/* A bounded multi-producer multi-consumer FIFO of `void *` that can be closed.
 *
 * Close semantics: after cuzk_queue_close, pushes fail with CUZK_ERR_CLOSED, items already queued
 * are still delivered in order, and pops return CUZK_ERR_CLOSED once the queue is closed AND
 * empty. Closing wakes every blocked producer and consumer.
 *
 * Ownership: the queue stores pointers, never the objects behind them; items left in the queue at
 * cuzk_queue_free are not freed (drain it first with cuzk_queue_try_pop if they own memory).
 * NULL is a valid item.
 *
 * Threads: every function except cuzk_queue_free may be called from any thread concurrently; one
 * internal mutex guards the ring. cuzk_queue_free must be called once, when no thread uses the
 * queue any more. Timeouts are measured on CLOCK_MONOTONIC.
 */
#ifndef CUZK_UTIL_QUEUE_H
#define CUZK_UTIL_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

typedef struct cuzk_queue cuzk_queue_t;

/* A queue holding at most `capacity` items (>= 1). NULL when capacity is 0 or memory is short. */
cuzk_queue_t *cuzk_queue_new(size_t capacity);

/* Frees the queue (not the items still in it). NULL is a no-op. */
void cuzk_queue_free(cuzk_queue_t *q);

/* Appends item, blocking while the queue is full. CUZK_ERR_CLOSED if closed before or while
 * waiting (the item is then not queued). */
cuzk_err_t cuzk_queue_push(cuzk_queue_t *q, void *item);

/* Like push, but gives up with CUZK_ERR_TIMEOUT after `ms` milliseconds (0 = do not wait). */
cuzk_err_t cuzk_queue_push_timeout(cuzk_queue_t *q, void *item, uint64_t ms);

/* Appends without waiting: CUZK_ERR_BUSY when full, CUZK_ERR_CLOSED when closed. */
cuzk_err_t cuzk_queue_try_push(cuzk_queue_t *q, void *item);

/* Removes the oldest item into *item, blocking while the queue is empty and open. CUZK_ERR_CLOSED
 * (and *item untouched) once the queue is closed and empty. */
cuzk_err_t cuzk_queue_pop(cuzk_queue_t *q, void **item);

/* Like pop, but gives up with CUZK_ERR_TIMEOUT after `ms` milliseconds (0 = do not wait). */
cuzk_err_t cuzk_queue_pop_timeout(cuzk_queue_t *q, void **item, uint64_t ms);

/* Removes without waiting: CUZK_ERR_BUSY when empty and open, CUZK_ERR_CLOSED when closed and
 * empty. */
cuzk_err_t cuzk_queue_try_pop(cuzk_queue_t *q, void **item);

/* Closes the queue; idempotent. */
void cuzk_queue_close(cuzk_queue_t *q);

/* True once cuzk_queue_close has been called. */
int cuzk_queue_is_closed(cuzk_queue_t *q);

/* Items currently queued (a snapshot). */
size_t cuzk_queue_len(cuzk_queue_t *q);

/* The capacity given to cuzk_queue_new. */
size_t cuzk_queue_capacity(const cuzk_queue_t *q);

#endif
