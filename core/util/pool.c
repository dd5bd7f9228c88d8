#include "core/util/pool.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/log.h"

#define CUZK__POOL_MAX_THREADS 1024u
#define CUZK__POOL_INITIAL_QUEUE 64u
/* parallel_for hands out about this many chunks per participating thread, for balance. */
#define CUZK__PFOR_CHUNKS_PER_THREAD 8u

typedef struct {
  void (*fn)(void *arg);
  void *arg;
} cuzk__task_t;

struct cuzk_pool {
  pthread_mutex_t mu;
  pthread_cond_t work_cv;
  cuzk__task_t *ring; /* FIFO ring of queued tasks, guarded by mu */
  size_t cap, head, count;
  bool closing;
  unsigned nthreads;
  pthread_t *threads;
};

static _Thread_local cuzk_pool_t *cuzk__current_pool;

static void *cuzk__pool_worker(void *p) {
  cuzk_pool_t *pool = p;
  cuzk__current_pool = pool;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (pool->count == 0 && !pool->closing) pthread_cond_wait(&pool->work_cv, &pool->mu);
    if (pool->count == 0) break; /* closing and drained */
    cuzk__task_t t = pool->ring[pool->head];
    pool->head = (pool->head + 1) % pool->cap;
    pool->count--;
    pthread_mutex_unlock(&pool->mu);
    t.fn(t.arg);
    pthread_mutex_lock(&pool->mu);
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

static unsigned cuzk__online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : (unsigned)n;
}

/* Stops and joins the first `started` workers and frees everything. */
static void cuzk__pool_shutdown(cuzk_pool_t *pool, unsigned started) {
  pthread_mutex_lock(&pool->mu);
  pool->closing = true;
  pthread_cond_broadcast(&pool->work_cv);
  pthread_mutex_unlock(&pool->mu);
  for (unsigned i = 0; i < started; i++) pthread_join(pool->threads[i], NULL);
  pthread_cond_destroy(&pool->work_cv);
  pthread_mutex_destroy(&pool->mu);
  free(pool->threads);
  free(pool->ring);
  free(pool);
}

cuzk_pool_t *cuzk_pool_new(unsigned nthreads, char *errstr, size_t errstr_size) {
  if (nthreads == 0) nthreads = cuzk__online_cpus();
  if (nthreads > CUZK__POOL_MAX_THREADS) {
    cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "pool: %u threads, at most %u", nthreads,
              CUZK__POOL_MAX_THREADS);
    return NULL;
  }
  cuzk_pool_t *pool = calloc(1, sizeof *pool);
  if (!pool) goto nomem;
  pool->ring = malloc(CUZK__POOL_INITIAL_QUEUE * sizeof *pool->ring);
  pool->threads = calloc(nthreads, sizeof *pool->threads);
  if (!pool->ring || !pool->threads) {
    free(pool->ring);
    free(pool->threads);
    free(pool);
    goto nomem;
  }
  pool->cap = CUZK__POOL_INITIAL_QUEUE;
  pool->nthreads = nthreads;
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->work_cv, NULL);
  for (unsigned i = 0; i < nthreads; i++) {
    int r = pthread_create(&pool->threads[i], NULL, cuzk__pool_worker, pool);
    if (r != 0) {
      cuzk__pool_shutdown(pool, i);
      cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "pool: cannot start thread %u of %u: %s", i,
                nthreads, strerror(r));
      return NULL;
    }
  }
  return pool;

nomem:
  cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "pool: out of memory");
  return NULL;
}

void cuzk_pool_free(cuzk_pool_t *pool) {
  if (!pool) return;
  assert(cuzk__current_pool != pool && "cuzk_pool_free called from one of its own tasks");
  cuzk__pool_shutdown(pool, pool->nthreads);
}

unsigned cuzk_pool_size(const cuzk_pool_t *pool) {
  assert(pool);
  return pool->nthreads;
}

cuzk_err_t cuzk_pool_submit(cuzk_pool_t *pool, void (*fn)(void *arg), void *arg) {
  assert(pool && fn);
  pthread_mutex_lock(&pool->mu);
  if (pool->closing) {
    pthread_mutex_unlock(&pool->mu);
    return CUZK_ERR_CLOSED;
  }
  if (pool->count == pool->cap) {
    size_t ncap = pool->cap * 2;
    cuzk__task_t *nr = malloc(ncap * sizeof *nr);
    if (!nr) {
      pthread_mutex_unlock(&pool->mu);
      return CUZK_ERR_NOMEM;
    }
    for (size_t i = 0; i < pool->count; i++) nr[i] = pool->ring[(pool->head + i) % pool->cap];
    free(pool->ring);
    pool->ring = nr;
    pool->cap = ncap;
    pool->head = 0;
  }
  pool->ring[(pool->head + pool->count) % pool->cap] = (cuzk__task_t){fn, arg};
  pool->count++;
  pthread_cond_signal(&pool->work_cv);
  pthread_mutex_unlock(&pool->mu);
  return CUZK_OK;
}

/* ---- parallel_for ---------------------------------------------------------------------------- */

/* Shared by the caller and its helper tasks; freed by whoever drops the last reference, so a
 * helper that starts after the loop is over only touches live memory. */
typedef struct {
  atomic_size_t next; /* first index not yet handed out */
  atomic_size_t done; /* indices finished */
  atomic_uint refs;
  size_t n, chunk;
  void (*fn)(void *ctx, size_t i);
  void *ctx;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool finished; /* guarded by mu */
} cuzk__pfor_t;

static void cuzk__pfor_work(cuzk__pfor_t *j) {
  for (;;) {
    size_t i = atomic_fetch_add(&j->next, j->chunk);
    if (i >= j->n) return;
    size_t end = j->n - i < j->chunk ? j->n : i + j->chunk;
    for (size_t k = i; k < end; k++) j->fn(j->ctx, k);
    if (atomic_fetch_add(&j->done, end - i) + (end - i) == j->n) {
      pthread_mutex_lock(&j->mu);
      j->finished = true;
      pthread_cond_broadcast(&j->cv);
      pthread_mutex_unlock(&j->mu);
    }
  }
}

static void cuzk__pfor_release(cuzk__pfor_t *j) {
  if (atomic_fetch_sub(&j->refs, 1) == 1) {
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    free(j);
  }
}

static void cuzk__pfor_helper(void *arg) {
  cuzk__pfor_t *j = arg;
  cuzk__pfor_work(j);
  cuzk__pfor_release(j);
}

void cuzk_pool_parallel_for(cuzk_pool_t *pool, size_t n, void (*fn)(void *ctx, size_t i),
                            void *ctx) {
  assert(fn);
  assert(n <= SIZE_MAX / 2);
  if (n == 0) return;
  cuzk__pfor_t *j = (pool && n > 1) ? malloc(sizeof *j) : NULL;
  if (!j) {
    for (size_t i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  size_t threads = (size_t)pool->nthreads + 1;
  size_t chunk = n / (threads * CUZK__PFOR_CHUNKS_PER_THREAD);
  if (chunk == 0) chunk = 1;
  size_t chunks = (n + chunk - 1) / chunk;
  size_t helpers = chunks - 1 < pool->nthreads ? chunks - 1 : pool->nthreads;

  atomic_init(&j->next, 0);
  atomic_init(&j->done, 0);
  atomic_init(&j->refs, (unsigned)helpers + 1);
  j->n = n;
  j->chunk = chunk;
  j->fn = fn;
  j->ctx = ctx;
  j->finished = false;
  pthread_mutex_init(&j->mu, NULL);
  pthread_cond_init(&j->cv, NULL);
  for (size_t h = 0; h < helpers; h++) {
    if (cuzk_pool_submit(pool, cuzk__pfor_helper, j) != CUZK_OK) {
      /* closed or out of memory: the caller does the remaining share */
      atomic_fetch_sub(&j->refs, (unsigned)(helpers - h));
      break;
    }
  }
  cuzk__pfor_work(j);
  pthread_mutex_lock(&j->mu);
  while (!j->finished) pthread_cond_wait(&j->cv, &j->mu);
  pthread_mutex_unlock(&j->mu);
  cuzk__pfor_release(j);
}

/* ---- global pool ----------------------------------------------------------------------------- */

static pthread_once_t cuzk__global_once = PTHREAD_ONCE_INIT;
static cuzk_pool_t *cuzk__global;

static void cuzk__global_free(void) {
  cuzk_pool_t *p = cuzk__global;
  /* exit() from inside a global-pool task cannot join its own thread: leave it to the OS. */
  if (!p || cuzk__current_pool == p) return;
  cuzk__global = NULL;
  cuzk_pool_free(p);
}

static void cuzk__global_init(void) {
  unsigned n = 0;
  const char *e = getenv("CUZK_THREADS");
  if (e && *e) {
    char *end;
    unsigned long v = strtoul(e, &end, 10);
    if (*end == '\0' && e[0] != '-' && v >= 1 && v <= CUZK__POOL_MAX_THREADS)
      n = (unsigned)v;
    else
      CUZK_WARN("pool", "bad_env", "var=CUZK_THREADS value=%s expected=1..%u", e,
                CUZK__POOL_MAX_THREADS);
  }
  char err[128];
  cuzk__global = cuzk_pool_new(n, err, sizeof err);
  if (cuzk__global)
    atexit(cuzk__global_free);
  else
    CUZK_ERROR("pool", "global_pool_failed", "error=%s", err);
}

cuzk_pool_t *cuzk_pool_global(void) {
  pthread_once(&cuzk__global_once, cuzk__global_init);
  return cuzk__global;
}
