#include "core/engine/budget.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CUZK__MAX_EVICTORS 8

typedef struct {
  const char *name;
  cuzk_evictor_fn fn;
  void *ctx;
} cuzk__evictor_t;

struct cuzk_budget {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* signalled on every release */
  uint64_t total, used, peak;
  uint64_t live, waits, timeouts, evicted;
  cuzk__evictor_t ev[CUZK__MAX_EVICTORS];
  int nev;
};

struct cuzk_reservation {
  cuzk_budget_t *b;
  uint64_t held;
};

cuzk_budget_t *cuzk_budget_new(uint64_t total) {
  assert(total > 0);
  cuzk_budget_t *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv, &ca);
  pthread_condattr_destroy(&ca);
  b->total = total;
  return b;
}

void cuzk_budget_free(cuzk_budget_t *b) {
  if (!b) return;
  assert(b->live == 0 && "reservations outlive their budget");
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->cv);
  free(b);
}

cuzk_err_t cuzk_budget_add_evictor(cuzk_budget_t *b, const char *name, cuzk_evictor_fn fn,
                                   void *ctx) {
  assert(b && fn);
  pthread_mutex_lock(&b->mu);
  cuzk_err_t e = CUZK_ERR_TOO_LARGE;
  if (b->nev < CUZK__MAX_EVICTORS) {
    b->ev[b->nev++] = (cuzk__evictor_t){name, fn, ctx};
    e = CUZK_OK;
  }
  pthread_mutex_unlock(&b->mu);
  return e;
}

/* Caller holds mu. */
static void cuzk__take(cuzk_budget_t *b, uint64_t bytes) {
  b->used += bytes;
  assert(b->used <= b->total);
  if (b->used > b->peak) b->peak = b->used;
}

/* Runs the evictor chain until `need` bytes were released or the chain is exhausted. Caller holds
 * mu; it is dropped around the callbacks. Returns bytes released. */
static uint64_t cuzk__evict(cuzk_budget_t *b, uint64_t need) {
  cuzk__evictor_t ev[CUZK__MAX_EVICTORS];
  int n = b->nev;
  memcpy(ev, b->ev, sizeof ev);
  uint64_t freed = 0;
  pthread_mutex_unlock(&b->mu);
  for (int i = 0; i < n && freed < need; i++) freed += ev[i].fn(ev[i].ctx, need - freed);
  pthread_mutex_lock(&b->mu);
  b->evicted += freed;
  return freed;
}

cuzk_err_t cuzk_budget_reserve(cuzk_budget_t *b, uint64_t bytes, int timeout_ms, const char *reason,
                               cuzk_reservation_t **out, char *errstr, size_t errstr_size) {
  assert(b && out);
  *out = NULL;
  if (bytes > b->total)
    return cuzk_errf(
        CUZK_ERR_TOO_LARGE, errstr, errstr_size, "%s needs %llu bytes but the whole budget is %llu",
        reason ? reason : "reservation", (unsigned long long)bytes, (unsigned long long)b->total);
  cuzk_reservation_t *r = calloc(1, sizeof *r);
  if (!r) return CUZK_ERR_NOMEM;
  r->b = b;

  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  if (timeout_ms > 0) {
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }
  }

  pthread_mutex_lock(&b->mu);
  int waited = 0, timed_out = 0;
  while (b->total - b->used < bytes) {
    uint64_t short_by = bytes - (b->total - b->used);
    if (b->nev > 0 && cuzk__evict(b, short_by) > 0) continue;
    if (timeout_ms == 0) {
      timed_out = 1;
      break;
    }
    if (!waited) {
      waited = 1;
      b->waits++;
    }
    int rc = timeout_ms < 0 ? pthread_cond_wait(&b->cv, &b->mu)
                            : pthread_cond_timedwait(&b->cv, &b->mu, &deadline);
    if (rc == ETIMEDOUT && b->total - b->used < bytes) {
      timed_out = 1;
      break;
    }
  }
  if (timed_out) {
    b->timeouts++;
    uint64_t used = b->used, live = b->live;
    pthread_mutex_unlock(&b->mu);
    free(r);
    return cuzk_errf(
        CUZK_ERR_TIMEOUT, errstr, errstr_size,
        "%s: %llu bytes did not fit within %d ms (used %llu of %llu by %llu reservations)",
        reason ? reason : "reservation", (unsigned long long)bytes, timeout_ms,
        (unsigned long long)used, (unsigned long long)b->total, (unsigned long long)live);
  }
  cuzk__take(b, bytes);
  r->held = bytes;
  b->live++;
  pthread_mutex_unlock(&b->mu);
  *out = r;
  return CUZK_OK;
}

cuzk_err_t cuzk_budget_try_reserve(cuzk_budget_t *b, uint64_t bytes, cuzk_reservation_t **out) {
  assert(b && out);
  *out = NULL;
  cuzk_reservation_t *r = calloc(1, sizeof *r);
  if (!r) return CUZK_ERR_NOMEM;
  r->b = b;
  pthread_mutex_lock(&b->mu);
  if (b->total - b->used < bytes) {
    pthread_mutex_unlock(&b->mu);
    free(r);
    return CUZK_ERR_BUDGET;
  }
  cuzk__take(b, bytes);
  r->held = bytes;
  b->live++;
  pthread_mutex_unlock(&b->mu);
  *out = r;
  return CUZK_OK;
}

cuzk_err_t cuzk_reservation_try_grow(cuzk_reservation_t *r, uint64_t bytes) {
  assert(r);
  cuzk_budget_t *b = r->b;
  pthread_mutex_lock(&b->mu);
  cuzk_err_t e = CUZK_ERR_BUDGET;
  if (b->total - b->used >= bytes) {
    cuzk__take(b, bytes);
    r->held += bytes;
    e = CUZK_OK;
  }
  pthread_mutex_unlock(&b->mu);
  return e;
}

void cuzk_reservation_release_part(cuzk_reservation_t *r, uint64_t bytes) {
  assert(r);
  cuzk_budget_t *b = r->b;
  pthread_mutex_lock(&b->mu);
  assert(bytes <= r->held && "releasing more than the reservation holds");
  r->held -= bytes;
  b->used -= bytes;
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

void cuzk_reservation_transfer(cuzk_reservation_t *from, cuzk_reservation_t *to, uint64_t bytes) {
  assert(from && to && from->b == to->b);
  pthread_mutex_lock(&from->b->mu);
  assert(bytes <= from->held);
  from->held -= bytes;
  to->held += bytes;
  pthread_mutex_unlock(&from->b->mu);
}

void cuzk_reservation_release(cuzk_reservation_t *r) {
  if (!r) return;
  cuzk_budget_t *b = r->b;
  pthread_mutex_lock(&b->mu);
  b->used -= r->held;
  b->live--;
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
  free(r);
}

uint64_t cuzk_reservation_held(const cuzk_reservation_t *r) {
  cuzk_budget_t *b = r->b;
  pthread_mutex_lock(&b->mu);
  uint64_t h = r->held;
  pthread_mutex_unlock(&b->mu);
  return h;
}

void cuzk_budget_stats(cuzk_budget_t *b, cuzk_budget_stats_t *out) {
  pthread_mutex_lock(&b->mu);
  out->total = b->total;
  out->used = b->used;
  out->peak = b->peak;
  out->reservations = b->live;
  out->waits = b->waits;
  out->timeouts = b->timeouts;
  out->evicted_bytes = b->evicted;
  pthread_mutex_unlock(&b->mu);
}

uint64_t cuzk_budget_total(const cuzk_budget_t *b) {
  return b->total;
}
