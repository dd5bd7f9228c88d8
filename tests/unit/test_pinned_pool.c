#include "tests/support/testlib.h"
#include "core/engine/pinned_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A host allocator that counts, can be told to fail, and records when each allocation happened. */
typedef struct {
  pthread_mutex_t mu;
  int allocs, frees, fail_after; /* fail_after < 0: never fail */
  uint64_t live_bytes;
  uint64_t stamps_ns[64];
  int nstamps;
} fake_alloc_t;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *fake_alloc(void *ctx, size_t bytes, char *why, size_t why_size) {
  fake_alloc_t *f = ctx;
  pthread_mutex_lock(&f->mu);
  if (f->fail_after >= 0 && f->allocs >= f->fail_after) {
    pthread_mutex_unlock(&f->mu);
    if (why) snprintf(why, why_size, "fake allocator refused");
    return NULL;
  }
  f->allocs++;
  f->live_bytes += bytes;
  if (f->nstamps < 64) f->stamps_ns[f->nstamps++] = now_ns();
  pthread_mutex_unlock(&f->mu);
  void *p = malloc(bytes);
  memset(p, 0xA5, 64);
  return p;
}

static void fake_free(void *ctx, void *ptr, size_t bytes) {
  fake_alloc_t *f = ctx;
  pthread_mutex_lock(&f->mu);
  f->frees++;
  f->live_bytes -= bytes;
  pthread_mutex_unlock(&f->mu);
  free(ptr);
}

static fake_alloc_t *fake_new(int fail_after) {
  fake_alloc_t *f = calloc(1, sizeof *f);
  pthread_mutex_init(&f->mu, NULL);
  f->fail_after = fail_after;
  return f;
}

#define MIB (1024u * 1024u)

static void test_checkout_best_fit_all_or_nothing(void **state) {
  (void)state;
  fake_alloc_t *f = fake_new(-1);
  cuzk_host_allocator_t a = {fake_alloc, fake_free, f};
  cuzk_budget_t *b = cuzk_budget_new(100 * MIB);
  cuzk_pinned_pool_t *p = cuzk_pinned_pool_new(&a, b, NULL, 0);
  assert_non_null(p);
  assert_int_equal(cuzk_pinned_pool_prewarm(p, 2 * MIB, 2, 0), CUZK_OK);
  assert_int_equal(cuzk_pinned_pool_prewarm(p, 8 * MIB, 2, 0), CUZK_OK);
  cuzk_pinned_pool_prewarm_wait(p);
  cuzk_pool_stats_t st;
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.idle_buffers, 4);
  assert_int_equal(st.bytes, 20 * MIB);
  cuzk_buf_t bufs[3];
  /* three buffers of 3 MiB: only two idle buffers are large enough -> nothing claimed */
  assert_false(cuzk_pinned_pool_try_checkout(p, 9 * MIB, bufs));
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.idle_buffers, 4);
  /* 2 MiB x3: best fit takes both 2 MiB buffers and one 8 MiB */
  assert_true(cuzk_pinned_pool_try_checkout(p, 2 * MIB, bufs));
  size_t sum = bufs[0].bytes + bufs[1].bytes + bufs[2].bytes;
  assert_int_equal(sum, 12 * MIB);
  for (int i = 0; i < 3; i++) assert_true(bufs[i].pinned);
  cuzk_buf_t more[3];
  assert_false(cuzk_pinned_pool_try_checkout(p, 1 * MIB, more)); /* one idle buffer left */
  cuzk_budget_stats_t bs;
  cuzk_budget_stats(b, &bs);
  assert_int_equal(bs.used, 20 * MIB); /* checkout acquired nothing */
  cuzk_pinned_pool_checkin(p, bufs, NULL);
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.idle_buffers, 4);
  assert_int_equal(st.hits, 1);
  /* shrink frees the largest idle buffers first */
  assert_int_equal(cuzk_pinned_pool_shrink(p, 1), 8 * MIB);
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.bytes, 12 * MIB);
  assert_int_equal(st.frees, 1);
  cuzk_pinned_pool_free(p);
  assert_int_equal(f->live_bytes, 0);
  cuzk_budget_stats(b, &bs);
  assert_int_equal(bs.used, 0);
  cuzk_budget_free(b);
  free(f);
}

static void test_alloc_path_and_fallback(void **state) {
  (void)state;
  fake_alloc_t *f = fake_new(2); /* the third pinned allocation fails */
  cuzk_host_allocator_t a = {fake_alloc, fake_free, f};
  cuzk_budget_t *b = cuzk_budget_new(100 * MIB);
  cuzk_pinned_pool_t *p = cuzk_pinned_pool_new(&a, b, NULL, 0);
  cuzk_reservation_t *res;
  assert_int_equal(cuzk_budget_reserve(b, 3 * 4 * MIB + MIB, 0, "partition", &res, NULL, 0),
                   CUZK_OK);
  cuzk_buf_t bufs[3];
  char why[256] = "";
  assert_int_equal(cuzk_pinned_pool_checkout_alloc(p, 4 * MIB, res, bufs, why, sizeof why),
                   CUZK_OK);
  assert_true(bufs[0].pinned && bufs[1].pinned);
  assert_false(bufs[2].pinned); /* heap fallback, visible */
  assert_non_null(strstr(why, "fake allocator refused"));
  assert_int_equal(cuzk_reservation_held(res), 4 * MIB + MIB); /* two buffers moved to the pool */
  cuzk_budget_stats_t bs;
  cuzk_budget_stats(b, &bs);
  assert_int_equal(bs.used, 3 * 4 * MIB + MIB); /* counted once */
  cuzk_pinned_pool_checkin(p, bufs, res);       /* heap buffer freed and its bytes released */
  assert_int_equal(cuzk_reservation_held(res), MIB);
  cuzk_pool_stats_t st;
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.misses, 1);
  assert_int_equal(st.fallbacks, 1);
  assert_int_equal(st.idle_buffers, 2);
  cuzk_reservation_release(res);
  /* the budget's evictor chain shrinks the pool when a reservation needs the room */
  assert_int_equal(cuzk_budget_reserve(b, 100 * MIB, 0, "big", &res, NULL, 0), CUZK_OK);
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.buffers, 0);
  cuzk_reservation_release(res);
  cuzk_pinned_pool_free(p);
  assert_int_equal(f->live_bytes, 0);
  cuzk_budget_free(b);
  free(f);
}

static void test_prewarm_paced_and_bounded(void **state) {
  (void)state;
  fake_alloc_t *f = fake_new(-1);
  cuzk_host_allocator_t a = {fake_alloc, fake_free, f};
  cuzk_budget_t *b = cuzk_budget_new(5 * MIB); /* room for 5 of the 8 requested */
  cuzk_pinned_pool_t *p = cuzk_pinned_pool_new(&a, b, NULL, 0);
  assert_int_equal(cuzk_pinned_pool_prewarm(p, MIB, 8, 20), CUZK_OK);
  cuzk_pinned_pool_prewarm_wait(p);
  assert_int_equal(f->nstamps, 5);
  for (int i = 1; i < f->nstamps; i++) /* never a burst */
    assert_true(f->stamps_ns[i] - f->stamps_ns[i - 1] >= 19 * 1000000ULL);
  cuzk_budget_stats_t bs;
  cuzk_budget_stats(b, &bs);
  assert_int_equal(bs.used, 5 * MIB);
  assert_int_equal(bs.peak, 5 * MIB);
  cuzk_pinned_pool_free(p);
  cuzk_budget_free(b);
  free(f);
}

/* DESIGN §4.3 regression: 5 jobs x 16 partitions fill the budget; the dispatcher reserves only the
 * non-a/b/c bytes when the pool serves a/b/c; every checkout must be pinned. */
typedef struct {
  cuzk_pinned_pool_t *p;
  cuzk_buf_t bufs[3];
  cuzk_reservation_t *rest;
} item_t;

static void *worker(void *arg) {
  item_t *it = arg;
  usleep(500); /* "prove_start" */
  cuzk_pinned_pool_checkin(it->p, it->bufs, NULL);
  usleep(200); /* "finish" */
  cuzk_reservation_release(it->rest);
  return NULL;
}

static void test_double_count_regression(void **state) {
  (void)state;
  const size_t abc = 4 * MIB, rest = 2 * MIB;
  const unsigned inflight = 4;
  fake_alloc_t *f = fake_new(-1);
  cuzk_host_allocator_t a = {fake_alloc, fake_free, f};
  cuzk_budget_t *b = cuzk_budget_new(inflight * (3 * abc + rest)); /* exactly full at 4 in flight */
  cuzk_pinned_pool_t *p = cuzk_pinned_pool_new(&a, b, NULL, 0);
  assert_int_equal(cuzk_pinned_pool_prewarm(p, abc, 3 * inflight, 0), CUZK_OK);
  cuzk_pinned_pool_prewarm_wait(p);
  item_t items[80];
  pthread_t th[80];
  for (int i = 0; i < 80; i++) { /* 5 jobs x 16 partitions, dispatched in order */
    items[i].p = p;
    char err[256];
    assert_int_equal(
        cuzk_budget_reserve(b, rest, 10000, "partition rest", &items[i].rest, err, sizeof err),
        CUZK_OK);
    /* buffers come back when prove_start ends; wait for an idle set like the dispatcher would */
    int spins = 0;
    while (!cuzk_pinned_pool_try_checkout(p, abc, items[i].bufs)) {
      usleep(100);
      assert_true(++spins < 100000);
    }
    for (int k = 0; k < 3; k++) assert_true(items[i].bufs[k].pinned);
    pthread_create(&th[i], NULL, worker, &items[i]);
  }
  for (int i = 0; i < 80; i++) pthread_join(th[i], NULL);
  cuzk_pool_stats_t st;
  cuzk_pinned_pool_stats(p, &st);
  assert_int_equal(st.hits, 80);
  assert_int_equal(st.misses, 0);
  assert_int_equal(st.fallbacks, 0);
  assert_int_equal(st.allocations, 3 * inflight); /* no churn */
  cuzk_budget_stats_t bs;
  cuzk_budget_stats(b, &bs);
  assert_true(bs.peak <= bs.total);
  cuzk_pinned_pool_free(p);
  cuzk_budget_free(b);
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checkout_best_fit_all_or_nothing),
      cmocka_unit_test(test_alloc_path_and_fallback),
      cmocka_unit_test(test_prewarm_paced_and_bounded),
      cmocka_unit_test(test_double_count_regression),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
