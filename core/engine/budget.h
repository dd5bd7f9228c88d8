/* The engine's memory budget (DESIGN §4.3).
 *
 * One budget per engine counts every large host allocation the engine makes: partition working
 * memory (through reservations) and the pinned pool's buffers (through the pool's own reservation).
 * A byte is counted once: when a partition uses pooled buffers, only the pool's reservation counts
 * them; a partition that had to allocate fresh buffers hands those bytes to the pool's reservation
 * with cuzk_reservation_transfer() instead of releasing and re-acquiring them.
 *
 * Reservations are objects with partial release (a/b/c bytes go back when prove_start ends, the
 * rest when the finalizer is done). An acquire that does not fit first asks the evictor chain (e.g.
 * shrink the pool's idle buffers, then evict idle SRS entries), then waits for releases until its
 * timeout. `used` never exceeds `total`.
 *
 * Thread-safe: every function may be called from any thread. Evictors are called without the
 * budget's lock held, so they may release reservations.
 */
#ifndef CUZK_ENGINE_BUDGET_H
#define CUZK_ENGINE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

typedef struct cuzk_budget cuzk_budget_t;
typedef struct cuzk_reservation cuzk_reservation_t;

/* Tries to free about `need` bytes of budget (by releasing reservations it owns); returns the
 * number of bytes it released. Called from the thread that is acquiring. */
typedef uint64_t (*cuzk_evictor_fn)(void *ctx, uint64_t need);

typedef struct {
  uint64_t total, used, peak;
  uint64_t reservations;  /* live reservation objects */
  uint64_t waits;         /* acquires that had to wait */
  uint64_t timeouts;      /* acquires that gave up */
  uint64_t evicted_bytes; /* bytes the evictor chain released on request */
} cuzk_budget_stats_t;

/* A budget of `total` bytes (> 0); NULL when out of memory. */
cuzk_budget_t *cuzk_budget_new(uint64_t total);
/* Frees the budget. Asserts that no reservation is live. */
void cuzk_budget_free(cuzk_budget_t *b);

/* Appends an evictor to the chain (called in the order added). At most 8. */
cuzk_err_t cuzk_budget_add_evictor(cuzk_budget_t *b, const char *name, cuzk_evictor_fn fn,
                                   void *ctx);

/* Acquires `bytes` as a new reservation, waiting up to timeout_ms (< 0: forever; 0: no wait).
 * Errors: CUZK_ERR_TOO_LARGE (bytes > total: can never fit), CUZK_ERR_TIMEOUT (errstr says what
 * was asked, for `reason`, and what held the budget), CUZK_ERR_NOMEM. bytes may be 0. */
cuzk_err_t cuzk_budget_reserve(cuzk_budget_t *b, uint64_t bytes, int timeout_ms, const char *reason,
                               cuzk_reservation_t **out, char *errstr, size_t errstr_size);

/* Acquires `bytes` as a new reservation only if they fit now: no waiting and no eviction (the
 * engine's dispatcher uses it when idle pooled buffers must not be evicted to make room).
 * CUZK_ERR_BUDGET when it does not fit, CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_budget_try_reserve(cuzk_budget_t *b, uint64_t bytes, cuzk_reservation_t **out);

/* Grows a live reservation by `bytes` without waiting and without evicting (pool pre-warm).
 * CUZK_ERR_BUDGET when it does not fit. */
cuzk_err_t cuzk_reservation_try_grow(cuzk_reservation_t *r, uint64_t bytes);
/* Releases `bytes` (<= held) of the reservation; wakes waiters. */
void cuzk_reservation_release_part(cuzk_reservation_t *r, uint64_t bytes);
/* Moves `bytes` (<= from's held) from one reservation to another of the same budget; `used` is
 * unchanged (the same bytes change owner). */
void cuzk_reservation_transfer(cuzk_reservation_t *from, cuzk_reservation_t *to, uint64_t bytes);
/* Releases whatever is still held and frees the object. NULL is a no-op. */
void cuzk_reservation_release(cuzk_reservation_t *r);
uint64_t cuzk_reservation_held(const cuzk_reservation_t *r);

void cuzk_budget_stats(cuzk_budget_t *b, cuzk_budget_stats_t *out);
uint64_t cuzk_budget_total(const cuzk_budget_t *b);

#endif
