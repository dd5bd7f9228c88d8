#include "tests/support/testlib.h"
#include "core/util/pool.h"
#include "core/util/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_new_size_and_errors(void **state) {
  (void)state;
  char err[128] = "";
  cuzk_pool_t *p = cuzk_pool_new(3, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(cuzk_pool_size(p), 3);
  cuzk_pool_free(p);
  p = cuzk_pool_new(0, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(cuzk_pool_size(p), (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
  cuzk_pool_free(p);
  assert_null(cuzk_pool_new(100000, err, sizeof err));
  assert_non_null(strstr(err, "100000"));
  cuzk_pool_free(NULL);
}

/* ---- submit ---------------------------------------------------------------------------------- */

static atomic_long counter;
static void inc(void *arg) {
  (void)arg;
  atomic_fetch_add(&counter, 1);
}

static void test_many_small_tasks(void **state) {
  (void)state;
  cuzk_pool_t *p = cuzk_pool_new(4, NULL, 0);
  assert_non_null(p);
  atomic_store(&counter, 0);
  for (int i = 0; i < 200000; i++) assert_int_equal(cuzk_pool_submit(p, inc, NULL), CUZK_OK);
  cuzk_pool_free(p); /* waits for all of them */
  assert_int_equal(atomic_load(&counter), 200000);
}

typedef struct {
  int order[1000];
  int n;
} order_t;
static order_t ord;
static void record(void *arg) {
  ord.order[ord.n++] = (int)(intptr_t)arg;
}

static atomic_int gate_started, gate_open;
static void gate(void *arg) {
  (void)arg;
  atomic_store(&gate_started, 1);
  while (!atomic_load(&gate_open)) cuzk_sleep_ms(1);
}

/* FIFO order, also when the queue grows while its ring has wrapped around. */
static void test_fifo_single_worker(void **state) {
  (void)state;
  cuzk_pool_t *p = cuzk_pool_new(1, NULL, 0);
  assert_non_null(p);
  memset(&ord, 0, sizeof ord);
  atomic_store(&gate_started, 0);
  atomic_store(&gate_open, 0);
  assert_int_equal(cuzk_pool_submit(p, gate, NULL), 0);
  while (!atomic_load(&gate_started)) cuzk_sleep_ms(1); /* the queue's head has moved on */
  for (int i = 0; i < 1000; i++) {
    if (i == 900) atomic_store(&gate_open, 1);
    assert_int_equal(cuzk_pool_submit(p, record, (void *)(intptr_t)i), 0);
  }
  cuzk_pool_free(p);
  assert_int_equal(ord.n, 1000);
  for (int i = 0; i < 1000; i++) assert_int_equal(ord.order[i], i);
}

/* A task keeps submitting until the pool refuses; free() runs everything that was accepted. */
typedef struct {
  cuzk_pool_t *pool;
  long accepted;
  cuzk_err_t last;
} prober_t;

static void slow(void *arg) {
  (void)arg;
  cuzk_sleep_ms(2);
  atomic_fetch_add(&counter, 1);
}

static void prober(void *arg) {
  prober_t *pr = arg;
  uint64_t t0 = cuzk_now_ns();
  for (;;) {
    cuzk_err_t e = cuzk_pool_submit(pr->pool, inc, NULL);
    if (e != CUZK_OK) {
      pr->last = e;
      return;
    }
    pr->accepted++;
    if (cuzk_now_ns() - t0 > 5000000000ULL) return; /* free() never began: the test fails */
    if (pr->accepted % 64 == 0) cuzk_sleep_ms(1);
  }
}

static void test_free_with_pending_tasks(void **state) {
  (void)state;
  cuzk_pool_t *p = cuzk_pool_new(2, NULL, 0);
  assert_non_null(p);
  atomic_store(&counter, 0);
  prober_t pr = {p, 0, CUZK_OK};
  assert_int_equal(cuzk_pool_submit(p, prober, &pr), CUZK_OK);
  for (int i = 0; i < 300; i++) assert_int_equal(cuzk_pool_submit(p, slow, NULL), CUZK_OK);
  cuzk_pool_free(p);
  assert_int_equal(pr.last, CUZK_ERR_CLOSED);
  assert_int_equal(atomic_load(&counter), 300 + pr.accepted);
}

/* ---- parallel_for ---------------------------------------------------------------------------- */

typedef struct {
  atomic_int *hits;
  size_t n;
} hits_t;

static void hit(void *ctx, size_t i) {
  hits_t *h = ctx;
  if (i >= h->n) abort(); /* cmocka asserts must stay on the main thread */
  atomic_fetch_add(&h->hits[i], 1);
}

static void check_once(cuzk_pool_t *p, size_t n) {
  hits_t h = {calloc(n ? n : 1, sizeof(atomic_int)), n};
  assert_non_null(h.hits);
  cuzk_pool_parallel_for(p, n, hit, &h);
  for (size_t i = 0; i < n; i++)
    if (atomic_load(&h.hits[i]) != 1)
      fail_msg("n=%zu index %zu ran %d times", n, i, atomic_load(&h.hits[i]));
  free(h.hits);
}

static void test_parallel_for_each_index_once(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1000, 100003};
  cuzk_pool_t *pools[3] = {NULL, cuzk_pool_new(1, NULL, 0), cuzk_pool_new(3, NULL, 0)};
  assert_non_null(pools[1]);
  assert_non_null(pools[2]);
  for (int k = 0; k < 3; k++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) check_once(pools[k], sizes[s]);
  cuzk_pool_free(pools[1]);
  cuzk_pool_free(pools[2]);
}

/* Plain (non-atomic) writes from workers must be visible to the caller on return. */
static void square(void *ctx, size_t i) {
  ((uint64_t *)ctx)[i] = (uint64_t)i * i;
}

static void test_parallel_for_visibility(void **state) {
  (void)state;
  cuzk_pool_t *p = cuzk_pool_new(3, NULL, 0);
  assert_non_null(p);
  size_t n = 1 << 16;
  uint64_t *v = malloc(n * sizeof *v);
  assert_non_null(v);
  for (int round = 0; round < 20; round++) {
    memset(v, 0xff, n * sizeof *v);
    cuzk_pool_parallel_for(p, n, square, v);
    for (size_t i = 0; i < n; i++) assert_true(v[i] == (uint64_t)i * i);
  }
  free(v);
  cuzk_pool_free(p);
}

/* The work really spreads over several threads. */
typedef struct {
  pthread_t who[200];
} who_t;
static void whoami(void *ctx, size_t i) {
  ((who_t *)ctx)->who[i] = pthread_self();
  usleep(200);
}

static void test_parallel_for_uses_workers(void **state) {
  (void)state;
  cuzk_pool_t *p = cuzk_pool_new(2, NULL, 0);
  assert_non_null(p);
  who_t w;
  cuzk_pool_parallel_for(p, 200, whoami, &w);
  int distinct = 0;
  for (int i = 0; i < 200; i++) {
    int seen = 0;
    for (int k = 0; k < i && !seen; k++) seen = pthread_equal(w.who[i], w.who[k]);
    distinct += !seen;
  }
  assert_true(distinct >= 2);
  cuzk_pool_free(p);
}

/* Nesting: every worker is busy in the outer loop, yet inner loops complete. */
#define OUTER 12
#define MID 5
#define INNER 300
static atomic_int nest_hits[OUTER][MID][INNER];
typedef struct {
  cuzk_pool_t *pool;
  size_t o, m;
} nest_ctx_t;

static void nest_inner(void *ctx, size_t i) {
  nest_ctx_t *c = ctx;
  atomic_fetch_add(&nest_hits[c->o][c->m][i], 1);
}
static void nest_mid(void *ctx, size_t m) {
  nest_ctx_t *c = ctx;
  nest_ctx_t in = {c->pool, c->o, m};
  cuzk_pool_parallel_for(c->pool, INNER, nest_inner, &in);
}
static void nest_outer(void *ctx, size_t o) {
  cuzk_pool_t *pool = ctx;
  nest_ctx_t c = {pool, o, 0};
  cuzk_pool_parallel_for(pool, MID, nest_mid, &c);
}

static void test_nested_parallel_for(void **state) {
  (void)state;
  for (unsigned threads = 1; threads <= 3; threads++) {
    cuzk_pool_t *p = cuzk_pool_new(threads, NULL, 0);
    assert_non_null(p);
    memset(nest_hits, 0, sizeof nest_hits);
    alarm(20); /* a deadlock fails the test instead of hanging ctest */
    cuzk_pool_parallel_for(p, OUTER, nest_outer, p);
    alarm(0);
    for (int o = 0; o < OUTER; o++)
      for (int m = 0; m < MID; m++)
        for (int i = 0; i < INNER; i++) assert_int_equal(atomic_load(&nest_hits[o][m][i]), 1);
    cuzk_pool_free(p);
  }
}

/* parallel_for from submitted tasks, more tasks than workers, while free() drains. */
static cuzk_pool_t *task_pool;
static atomic_long task_sum;
static void add_index(void *ctx, size_t i) {
  (void)ctx;
  atomic_fetch_add(&task_sum, (long)i);
}
static void pfor_task(void *arg) {
  (void)arg;
  cuzk_pool_parallel_for(task_pool, 1000, add_index, NULL);
}

static void test_parallel_for_inside_tasks(void **state) {
  (void)state;
  task_pool = cuzk_pool_new(2, NULL, 0);
  assert_non_null(task_pool);
  atomic_store(&task_sum, 0);
  alarm(20);
  for (int t = 0; t < 50; t++) assert_int_equal(cuzk_pool_submit(task_pool, pfor_task, NULL), 0);
  cuzk_pool_free(task_pool); /* tasks run while closing: their helpers are refused, still done */
  alarm(0);
  assert_int_equal(atomic_load(&task_sum), 50L * (999L * 1000 / 2));
}

/* Random shapes and pool sizes, checked against a serial sum. */
typedef struct {
  uint64_t seed;
  atomic_uint_fast64_t acc;
} stress_t;
static uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  return x;
}
static void stress_fn(void *ctx, size_t i) {
  stress_t *s = ctx;
  atomic_fetch_add(&s->acc, mix(s->seed ^ i));
}

static void test_stress_seeded(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  uint64_t t0 = cuzk_now_ns();
  for (int round = 0; round < 40; round++) {
    unsigned threads = 1 + (unsigned)(cuzk_test_rng_next(&rng) % 4);
    cuzk_pool_t *p = cuzk_pool_new(threads, NULL, 0);
    assert_non_null(p);
    for (int k = 0; k < 10; k++) {
      size_t n = (size_t)(cuzk_test_rng_next(&rng) % 20000);
      stress_t s = {cuzk_test_rng_next(&rng), 0};
      uint64_t want = 0;
      for (size_t i = 0; i < n; i++) want += mix(s.seed ^ i);
      cuzk_pool_parallel_for(p, n, stress_fn, &s);
      if (atomic_load(&s.acc) != want) fail_msg("round %d threads %u n %zu", round, threads, n);
    }
    cuzk_pool_free(p);
  }
  fprintf(stderr, "stress: %.1f ms\n", (double)(cuzk_now_ns() - t0) / 1e6);
}

/* ---- global ---------------------------------------------------------------------------------- */

static void *get_global(void *arg) {
  (void)arg;
  return cuzk_pool_global();
}

static void test_global(void **state) {
  (void)state;
  setenv("CUZK_THREADS", "3", 1);
  pthread_t th[8];
  void *got[8];
  for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&th[i], NULL, get_global, NULL), 0);
  for (int i = 0; i < 8; i++) pthread_join(th[i], &got[i]);
  cuzk_pool_t *g = cuzk_pool_global();
  assert_non_null(g);
  for (int i = 0; i < 8; i++) assert_ptr_equal(got[i], g);
  assert_int_equal(cuzk_pool_size(g), 3);
  check_once(g, 5000);
  /* left for the atexit handler to free */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_global), /* first: the global pool is created once per process */
      cmocka_unit_test(test_new_size_and_errors),
      cmocka_unit_test(test_many_small_tasks),
      cmocka_unit_test(test_fifo_single_worker),
      cmocka_unit_test(test_free_with_pending_tasks),
      cmocka_unit_test(test_parallel_for_each_index_once),
      cmocka_unit_test(test_parallel_for_visibility),
      cmocka_unit_test(test_parallel_for_uses_workers),
      cmocka_unit_test(test_nested_parallel_for),
      cmocka_unit_test(test_parallel_for_inside_tasks),
      cmocka_unit_test(test_stress_seeded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
