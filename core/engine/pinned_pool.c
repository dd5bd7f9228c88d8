#include "core/engine/pinned_pool.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CUZK__HEAP_SLOT UINT32_MAX

typedef struct {
  void *ptr;
  size_t bytes;
  bool used; /* slot holds a buffer */
  bool idle; /* buffer is in the pool, not lent */
} cuzk__slot_t;

typedef struct cuzk__warm {
  size_t bytes;
  unsigned count, pace_ms;
  struct cuzk__warm *next;
} cuzk__warm_t;

struct cuzk_pinned_pool {
  cuzk_host_allocator_t a;
  cuzk_budget_t *budget;
  cuzk_reservation_t *res; /* covers every pinned buffer held, idle or lent */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  cuzk__slot_t *slots;
  uint32_t nslots, cap;
  cuzk_pool_stats_t st;
  /* pre-warm */
  pthread_t warm_thread;
  bool warm_started, stopping, warm_busy;
  cuzk__warm_t *warm_head, *warm_tail;
};

static uint64_t cuzk__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static size_t cuzk__round(size_t bytes) {
  return (bytes + 4095) & ~(size_t)4095;
}

static uint64_t cuzk__evict(void *ctx, uint64_t need) {
  return cuzk_pinned_pool_shrink(ctx, need);
}

cuzk_pinned_pool_t *cuzk_pinned_pool_new(const cuzk_host_allocator_t *alloc, cuzk_budget_t *budget,
                                         char *errstr, size_t errstr_size) {
  assert(alloc && alloc->alloc && alloc->free && budget);
  cuzk_pinned_pool_t *p = calloc(1, sizeof *p);
  if (!p) {
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "pinned pool: out of memory");
    return NULL;
  }
  p->a = *alloc;
  p->budget = budget;
  if (cuzk_budget_reserve(budget, 0, 0, "pinned pool", &p->res, errstr, errstr_size) != CUZK_OK) {
    free(p);
    return NULL;
  }
  if (cuzk_budget_add_evictor(budget, "pinned_pool", cuzk__evict, p) != CUZK_OK) {
    cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size,
              "pinned pool: budget has no room for another evictor");
    cuzk_reservation_release(p->res);
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  return p;
}

/* Caller holds mu. Returns a free slot index, growing the table; UINT32_MAX on OOM. */
static uint32_t cuzk__slot_new(cuzk_pinned_pool_t *p) {
  for (uint32_t i = 0; i < p->nslots; i++)
    if (!p->slots[i].used) return i;
  if (p->nslots == p->cap) {
    uint32_t cap = p->cap ? p->cap * 2 : 16;
    cuzk__slot_t *s = realloc(p->slots, cap * sizeof *s);
    if (!s) return CUZK__HEAP_SLOT;
    p->slots = s;
    p->cap = cap;
  }
  memset(&p->slots[p->nslots], 0, sizeof p->slots[0]);
  return p->nslots++;
}

/* Allocates one pinned buffer (outside the lock) and records it in a slot. */
static bool cuzk__alloc_pinned(cuzk_pinned_pool_t *p, size_t bytes, bool idle, cuzk_buf_t *out,
                               char *why, size_t why_size) {
  uint64_t t0 = cuzk__now_ns();
  void *ptr = p->a.alloc(p->a.ctx, bytes, why, why_size);
  uint64_t dt = cuzk__now_ns() - t0;
  pthread_mutex_lock(&p->mu);
  p->st.alloc_ns += dt;
  if (!ptr) {
    pthread_mutex_unlock(&p->mu);
    return false;
  }
  uint32_t i = cuzk__slot_new(p);
  if (i == CUZK__HEAP_SLOT) {
    pthread_mutex_unlock(&p->mu);
    p->a.free(p->a.ctx, ptr, bytes);
    if (why) snprintf(why, why_size, "out of memory for the pool's slot table");
    return false;
  }
  p->slots[i] = (cuzk__slot_t){ptr, bytes, true, idle};
  p->st.allocations++;
  p->st.buffers++;
  p->st.bytes += bytes;
  if (idle) {
    p->st.idle_buffers++;
    p->st.idle_bytes += bytes;
  }
  pthread_mutex_unlock(&p->mu);
  if (out) *out = (cuzk_buf_t){ptr, bytes, true, i};
  return true;
}

bool cuzk_pinned_pool_try_checkout(cuzk_pinned_pool_t *p, size_t bytes, cuzk_buf_t out[3]) {
  assert(p && out);
  bytes = cuzk__round(bytes);
  pthread_mutex_lock(&p->mu);
  uint32_t pick[3];
  int n = 0;
  /* best fit: the three smallest idle buffers that are large enough */
  for (int k = 0; k < 3; k++) {
    uint32_t best = CUZK__HEAP_SLOT;
    for (uint32_t i = 0; i < p->nslots; i++) {
      const cuzk__slot_t *s = &p->slots[i];
      if (!s->used || !s->idle || s->bytes < bytes) continue;
      bool taken = false;
      for (int j = 0; j < n; j++) taken |= pick[j] == i;
      if (taken) continue;
      if (best == CUZK__HEAP_SLOT || s->bytes < p->slots[best].bytes) best = i;
    }
    if (best == CUZK__HEAP_SLOT) break;
    pick[n++] = best;
  }
  if (n < 3) {
    pthread_mutex_unlock(&p->mu);
    return false;
  }
  for (int k = 0; k < 3; k++) {
    cuzk__slot_t *s = &p->slots[pick[k]];
    s->idle = false;
    p->st.idle_buffers--;
    p->st.idle_bytes -= s->bytes;
    out[k] = (cuzk_buf_t){s->ptr, s->bytes, true, pick[k]};
  }
  p->st.hits++;
  pthread_mutex_unlock(&p->mu);
  return true;
}

cuzk_err_t cuzk_pinned_pool_checkout_alloc(cuzk_pinned_pool_t *p, size_t bytes,
                                           cuzk_reservation_t *res, cuzk_buf_t out[3], char *why,
                                           size_t why_size) {
  assert(p && res && out);
  bytes = cuzk__round(bytes);
  assert(cuzk_reservation_held(res) >= 3 * (uint64_t)bytes && "reservation must cover a, b and c");
  char reason[256] = "";
  bool fell_back = false;
  for (int k = 0; k < 3; k++) {
    if (!fell_back && cuzk__alloc_pinned(p, bytes, false, &out[k], reason, sizeof reason)) {
      cuzk_reservation_transfer(res, p->res, bytes); /* the pool now counts these bytes */
      continue;
    }
    fell_back = true;
    void *h = malloc(bytes);
    if (!h) {
      for (int j = k; j < 3; j++) memset(&out[j], 0, sizeof out[j]);
      cuzk_pinned_pool_checkin(p, out, res); /* undo the buffers already taken */
      return CUZK_ERR_NOMEM;
    }
    out[k] = (cuzk_buf_t){h, bytes, false, CUZK__HEAP_SLOT};
  }
  pthread_mutex_lock(&p->mu);
  p->st.misses++;
  if (fell_back) p->st.fallbacks++;
  pthread_mutex_unlock(&p->mu);
  if (fell_back && why)
    snprintf(why, why_size, "pinned allocation of %zu bytes failed: %s", bytes,
             reason[0] ? reason : "allocator returned NULL");
  return CUZK_OK;
}

void cuzk_pinned_pool_checkin(cuzk_pinned_pool_t *p, cuzk_buf_t bufs[3], cuzk_reservation_t *res) {
  assert(p && bufs);
  for (int k = 0; k < 3; k++) {
    cuzk_buf_t *b = &bufs[k];
    if (!b->ptr) continue;
    if (!b->pinned) {
      free(b->ptr);
      assert(res && "heap buffers are paid by the partition's reservation");
      cuzk_reservation_release_part(res, b->bytes);
    } else {
      pthread_mutex_lock(&p->mu);
      cuzk__slot_t *s = &p->slots[b->slot];
      assert(s->used && !s->idle && s->ptr == b->ptr);
      s->idle = true;
      p->st.idle_buffers++;
      p->st.idle_bytes += s->bytes;
      pthread_mutex_unlock(&p->mu);
    }
    memset(b, 0, sizeof *b);
  }
}

uint64_t cuzk_pinned_pool_shrink(cuzk_pinned_pool_t *p, uint64_t need) {
  uint64_t freed = 0;
  while (freed < need) {
    pthread_mutex_lock(&p->mu);
    uint32_t big = CUZK__HEAP_SLOT;
    for (uint32_t i = 0; i < p->nslots; i++)
      if (p->slots[i].used && p->slots[i].idle &&
          (big == CUZK__HEAP_SLOT || p->slots[i].bytes > p->slots[big].bytes))
        big = i;
    if (big == CUZK__HEAP_SLOT) {
      pthread_mutex_unlock(&p->mu);
      break;
    }
    cuzk__slot_t s = p->slots[big];
    p->slots[big].used = false;
    p->st.buffers--;
    p->st.idle_buffers--;
    p->st.bytes -= s.bytes;
    p->st.idle_bytes -= s.bytes;
    p->st.frees++;
    pthread_mutex_unlock(&p->mu);
    p->a.free(p->a.ctx, s.ptr, s.bytes);
    cuzk_reservation_release_part(p->res, s.bytes);
    freed += s.bytes;
  }
  return freed;
}

static void *cuzk__warm_main(void *arg) {
  cuzk_pinned_pool_t *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->warm_head && !p->stopping) pthread_cond_wait(&p->cv, &p->mu);
    if (p->stopping) break;
    cuzk__warm_t *w = p->warm_head;
    p->warm_busy = true;
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < w->count; i++) {
      if (i > 0 && w->pace_ms) {
        struct timespec ts = {w->pace_ms / 1000, (long)(w->pace_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
      }
      pthread_mutex_lock(&p->mu);
      bool stop = p->stopping;
      pthread_mutex_unlock(&p->mu);
      if (stop) break;
      if (cuzk_reservation_try_grow(p->res, w->bytes) != CUZK_OK) break; /* budget full: stop */
      if (!cuzk__alloc_pinned(p, w->bytes, true, NULL, NULL, 0)) {
        cuzk_reservation_release_part(p->res, w->bytes);
        break;
      }
    }
    pthread_mutex_lock(&p->mu);
    p->warm_head = w->next;
    if (!p->warm_head) p->warm_tail = NULL;
    p->warm_busy = false;
    free(w);
    pthread_cond_broadcast(&p->cv);
  }
  p->warm_busy = false;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

cuzk_err_t cuzk_pinned_pool_prewarm(cuzk_pinned_pool_t *p, size_t bytes, unsigned count,
                                    unsigned pace_ms) {
  assert(p);
  cuzk__warm_t *w = calloc(1, sizeof *w);
  if (!w) return CUZK_ERR_NOMEM;
  *w = (cuzk__warm_t){cuzk__round(bytes), count, pace_ms, NULL};
  pthread_mutex_lock(&p->mu);
  if (!p->warm_started) {
    if (pthread_create(&p->warm_thread, NULL, cuzk__warm_main, p) != 0) {
      pthread_mutex_unlock(&p->mu);
      free(w);
      return CUZK_ERR_INTERNAL;
    }
    p->warm_started = true;
  }
  if (p->warm_tail)
    p->warm_tail->next = w;
  else
    p->warm_head = w;
  p->warm_tail = w;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return CUZK_OK;
}

void cuzk_pinned_pool_prewarm_wait(cuzk_pinned_pool_t *p) {
  pthread_mutex_lock(&p->mu);
  while (p->warm_head || p->warm_busy) pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void cuzk_pinned_pool_stats(cuzk_pinned_pool_t *p, cuzk_pool_stats_t *out) {
  pthread_mutex_lock(&p->mu);
  *out = p->st;
  pthread_mutex_unlock(&p->mu);
}

void cuzk_pinned_pool_free(cuzk_pinned_pool_t *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stopping = true;
  pthread_cond_broadcast(&p->cv);
  bool started = p->warm_started;
  pthread_mutex_unlock(&p->mu);
  if (started) pthread_join(p->warm_thread, NULL);
  while (p->warm_head) {
    cuzk__warm_t *n = p->warm_head->next;
    free(p->warm_head);
    p->warm_head = n;
  }
  for (uint32_t i = 0; i < p->nslots; i++) {
    if (!p->slots[i].used) continue;
    assert(p->slots[i].idle && "a pinned buffer was not checked in");
    p->a.free(p->a.ctx, p->slots[i].ptr, p->slots[i].bytes);
  }
  cuzk_reservation_release(p->res);
  free(p->slots);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p);
}
