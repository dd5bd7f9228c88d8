#include "core/poly/par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

unsigned cuzk__par_threads(void) {
  static atomic_uint cached;
  unsigned n = atomic_load(&cached);
  if (n) return n;
  const char *e = getenv("CUZK_THREADS");
  long v = e ? strtol(e, NULL, 10) : 0;
  if (v <= 0) v = sysconf(_SC_NPROCESSORS_ONLN);
  if (v <= 0) v = 1;
  if (v > 256) v = 256;
  atomic_store(&cached, (unsigned)v);
  return (unsigned)v;
}

typedef struct {
  void (*fn)(void *, size_t);
  void *ctx;
  size_t n;
  atomic_size_t next;
} cuzk__par_job_t;

static void *cuzk__par_worker(void *arg) {
  cuzk__par_job_t *j = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&j->next, 1);
    if (i >= j->n) break;
    j->fn(j->ctx, i);
  }
  return NULL;
}

void cuzk__par_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx) {
  unsigned t = cuzk__par_threads();
  if (n <= 1 || t <= 1) {
    for (size_t i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  if (t > n) t = (unsigned)n;
  cuzk__par_job_t job = {.fn = fn, .ctx = ctx, .n = n};
  atomic_init(&job.next, 0);
  pthread_t th[256];
  unsigned started = 0;
  for (unsigned k = 1; k < t; k++) {
    if (pthread_create(&th[started], NULL, cuzk__par_worker, &job) != 0) break;
    started++;
  }
  cuzk__par_worker(&job);
  for (unsigned k = 0; k < started; k++) pthread_join(th[k], NULL);
}

size_t cuzk__par_chunks(size_t work, size_t min_per_chunk) {
  if (min_per_chunk == 0) min_per_chunk = 1;
  size_t c = (size_t)cuzk__par_threads() * 4;
  if (work / min_per_chunk < c) c = work / min_per_chunk;
  return c ? c : 1;
}
