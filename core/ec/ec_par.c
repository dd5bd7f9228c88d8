#include "core/ec/ec_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  size_t n;
  atomic_size_t next;
  void (*fn)(void *, size_t);
  void *ctx;
} par_job_t;

static void *par_worker(void *arg) {
  par_job_t *job = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&job->next, 1);
    if (i >= job->n) break;
    job->fn(job->ctx, i);
  }
  return NULL;
}

unsigned cuzk__ec_threads(void) {
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c < 1 ? 1u : (unsigned)c;
}

void cuzk__ec_parallel_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx) {
  par_job_t job = {.n = n, .fn = fn, .ctx = ctx};
  atomic_init(&job.next, 0);
  size_t nt = cuzk__ec_threads();
  if (nt > n) nt = n;
  pthread_t *th = nt > 1 ? malloc((nt - 1) * sizeof *th) : NULL;
  size_t started = 0;
  for (size_t t = 0; th && t + 1 < nt; t++) {
    if (pthread_create(&th[t], NULL, par_worker, &job) != 0) break;
    started++;
  }
  par_worker(&job);
  for (size_t t = 0; t < started; t++) pthread_join(th[t], NULL);
  free(th);
}
