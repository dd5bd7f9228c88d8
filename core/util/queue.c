#include "core/util/queue.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/util/clock.h"

struct cuzk_queue {
  pthread_mutex_t mu;
  pthread_cond_t not_full, not_empty; /* CLOCK_MONOTONIC */
  void **ring;
  size_t cap, head, count;
  bool closed;
};

cuzk_queue_t *cuzk_queue_new(size_t capacity) {
  if (capacity == 0 || capacity > SIZE_MAX / sizeof(void *)) return NULL;
  cuzk_queue_t *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->ring = malloc(capacity * sizeof *q->ring);
  if (!q->ring) {
    free(q);
    return NULL;
  }
  q->cap = capacity;
  if (pthread_mutex_init(&q->mu, NULL) != 0) goto fail_mu;
  if (cuzk_cond_init_monotonic(&q->not_full) != 0) goto fail_nf;
  if (cuzk_cond_init_monotonic(&q->not_empty) != 0) goto fail_ne;
  return q;

fail_ne:
  pthread_cond_destroy(&q->not_full);
fail_nf:
  pthread_mutex_destroy(&q->mu);
fail_mu:
  free(q->ring);
  free(q);
  return NULL;
}

void cuzk_queue_free(cuzk_queue_t *q) {
  if (!q) return;
  pthread_cond_destroy(&q->not_full);
  pthread_cond_destroy(&q->not_empty);
  pthread_mutex_destroy(&q->mu);
  free(q->ring);
  free(q);
}

/* wait: 0 = never, 1 = until deadline, 2 = forever. Called and returns with mu held. */
static cuzk_err_t cuzk__queue_push_locked(cuzk_queue_t *q, void *item, int wait,
                                          const struct timespec *deadline) {
  while (!q->closed && q->count == q->cap) {
    if (wait == 0) return CUZK_ERR_BUSY;
    if (wait == 1) {
      if (pthread_cond_timedwait(&q->not_full, &q->mu, deadline) == ETIMEDOUT && !q->closed &&
          q->count == q->cap)
        return CUZK_ERR_TIMEOUT;
    } else {
      pthread_cond_wait(&q->not_full, &q->mu);
    }
  }
  if (q->closed) return CUZK_ERR_CLOSED;
  q->ring[(q->head + q->count) % q->cap] = item;
  q->count++;
  pthread_cond_signal(&q->not_empty);
  return CUZK_OK;
}

static cuzk_err_t cuzk__queue_pop_locked(cuzk_queue_t *q, void **item, int wait,
                                         const struct timespec *deadline) {
  while (q->count == 0) {
    if (q->closed) return CUZK_ERR_CLOSED;
    if (wait == 0) return CUZK_ERR_BUSY;
    if (wait == 1) {
      if (pthread_cond_timedwait(&q->not_empty, &q->mu, deadline) == ETIMEDOUT && q->count == 0)
        return q->closed ? CUZK_ERR_CLOSED : CUZK_ERR_TIMEOUT;
    } else {
      pthread_cond_wait(&q->not_empty, &q->mu);
    }
  }
  *item = q->ring[q->head];
  q->head = (q->head + 1) % q->cap;
  q->count--;
  pthread_cond_signal(&q->not_full);
  return CUZK_OK;
}

static cuzk_err_t cuzk__queue_push(cuzk_queue_t *q, void *item, int wait, uint64_t ms) {
  assert(q);
  struct timespec deadline;
  if (wait == 1) deadline = cuzk_deadline_ts(ms);
  pthread_mutex_lock(&q->mu);
  cuzk_err_t e = cuzk__queue_push_locked(q, item, wait, &deadline);
  pthread_mutex_unlock(&q->mu);
  return e;
}

static cuzk_err_t cuzk__queue_pop(cuzk_queue_t *q, void **item, int wait, uint64_t ms) {
  assert(q && item);
  struct timespec deadline;
  if (wait == 1) deadline = cuzk_deadline_ts(ms);
  pthread_mutex_lock(&q->mu);
  cuzk_err_t e = cuzk__queue_pop_locked(q, item, wait, &deadline);
  pthread_mutex_unlock(&q->mu);
  return e;
}

cuzk_err_t cuzk_queue_push(cuzk_queue_t *q, void *item) {
  return cuzk__queue_push(q, item, 2, 0);
}

cuzk_err_t cuzk_queue_push_timeout(cuzk_queue_t *q, void *item, uint64_t ms) {
  cuzk_err_t e = cuzk__queue_push(q, item, ms ? 1 : 0, ms);
  return e == CUZK_ERR_BUSY ? CUZK_ERR_TIMEOUT : e;
}

cuzk_err_t cuzk_queue_try_push(cuzk_queue_t *q, void *item) {
  return cuzk__queue_push(q, item, 0, 0);
}

cuzk_err_t cuzk_queue_pop(cuzk_queue_t *q, void **item) {
  return cuzk__queue_pop(q, item, 2, 0);
}

cuzk_err_t cuzk_queue_pop_timeout(cuzk_queue_t *q, void **item, uint64_t ms) {
  cuzk_err_t e = cuzk__queue_pop(q, item, ms ? 1 : 0, ms);
  return e == CUZK_ERR_BUSY ? CUZK_ERR_TIMEOUT : e;
}

cuzk_err_t cuzk_queue_try_pop(cuzk_queue_t *q, void **item) {
  return cuzk__queue_pop(q, item, 0, 0);
}

void cuzk_queue_close(cuzk_queue_t *q) {
  assert(q);
  pthread_mutex_lock(&q->mu);
  q->closed = true;
  pthread_cond_broadcast(&q->not_full);
  pthread_cond_broadcast(&q->not_empty);
  pthread_mutex_unlock(&q->mu);
}

int cuzk_queue_is_closed(cuzk_queue_t *q) {
  assert(q);
  pthread_mutex_lock(&q->mu);
  int c = q->closed;
  pthread_mutex_unlock(&q->mu);
  return c;
}

size_t cuzk_queue_len(cuzk_queue_t *q) {
  assert(q);
  pthread_mutex_lock(&q->mu);
  size_t n = q->count;
  pthread_mutex_unlock(&q->mu);
  return n;
}

size_t cuzk_queue_capacity(const cuzk_queue_t *q) {
  assert(q);
  return q->cap;
}
