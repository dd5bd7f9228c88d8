#include "tests/support/testlib.h"
#include "core/engine/budget.h"

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void test_basic(void **state) {
  (void)state;
  cuzk_budget_t *b = cuzk_budget_new(1000);
  cuzk_reservation_t *r1, *r2, *r3;
  char err[256];
  assert_int_equal(cuzk_budget_reserve(b, 600, 0, "p1", &r1, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_budget_reserve(b, 400, 0, "p2", &r2, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_budget_reserve(b, 1, 0, "p3", &r3, err, sizeof err), CUZK_ERR_TIMEOUT);
  assert_null(r3);
  assert_non_null(strstr(err, "p3"));
  assert_int_equal(cuzk_budget_reserve(b, 1001, -1, "huge", &r3, err, sizeof err),
                   CUZK_ERR_TOO_LARGE);
  cuzk_reservation_release_part(r1, 100); /* a/b/c bytes back after prove_start */
  assert_int_equal(cuzk_reservation_held(r1), 500);
  assert_int_equal(cuzk_budget_reserve(b, 100, 0, "p3", &r3, err, sizeof err), CUZK_OK);
  cuzk_budget_stats_t st;
  cuzk_budget_stats(b, &st);
  assert_int_equal(st.used, 1000);
  assert_int_equal(st.peak, 1000);
  assert_int_equal(st.reservations, 3);
  assert_int_equal(st.timeouts, 2 - 1); /* TOO_LARGE is not a timeout */
  assert_int_equal(cuzk_reservation_try_grow(r3, 1), CUZK_ERR_BUDGET);
  cuzk_reservation_transfer(r1, r3, 500);
  assert_int_equal(cuzk_reservation_held(r1), 0);
  assert_int_equal(cuzk_reservation_held(r3), 600);
  cuzk_budget_stats(b, &st);
  assert_int_equal(st.used, 1000); /* transfer moves owners, never bytes */
  cuzk_reservation_release(r1);
  cuzk_reservation_release(r2);
  cuzk_reservation_release(r3);
  cuzk_reservation_release(NULL);
  cuzk_budget_stats(b, &st);
  assert_int_equal(st.used, 0);
  assert_int_equal(st.reservations, 0);
  cuzk_budget_free(b);
}

typedef struct {
  cuzk_reservation_t *victim;
  int calls;
} evict_ctx_t;

static uint64_t evict_victim(void *ctx, uint64_t need) {
  evict_ctx_t *e = ctx;
  e->calls++;
  if (!e->victim) return 0;
  uint64_t h = cuzk_reservation_held(e->victim);
  uint64_t give = h < need ? h : need;
  cuzk_reservation_release_part(e->victim, give);
  return give;
}

static uint64_t evict_nothing(void *ctx, uint64_t need) {
  (void)need;
  (*(int *)ctx)++;
  return 0;
}

static uint64_t never_called(void *ctx, uint64_t need) {
  (void)ctx, (void)need;
  fail_msg("try_reserve must not evict");
  return 0;
}

static void test_try_reserve_no_evict(void **state) {
  (void)state;
  cuzk_budget_t *b = cuzk_budget_new(100);
  assert_int_equal(cuzk_budget_add_evictor(b, "never", never_called, NULL), CUZK_OK);
  cuzk_reservation_t *r1, *r2;
  assert_int_equal(cuzk_budget_try_reserve(b, 60, &r1), CUZK_OK);
  assert_int_equal(cuzk_budget_try_reserve(b, 41, &r2), CUZK_ERR_BUDGET);
  assert_null(r2);
  assert_int_equal(cuzk_budget_try_reserve(b, 40, &r2), CUZK_OK);
  cuzk_budget_stats_t st;
  cuzk_budget_stats(b, &st);
  assert_int_equal(st.used, 100);
  assert_int_equal(st.reservations, 2);
  cuzk_reservation_release(r1);
  cuzk_reservation_release(r2);
  cuzk_budget_free(b);
}

static void test_evictor_chain(void **state) {
  (void)state;
  cuzk_budget_t *b = cuzk_budget_new(100);
  cuzk_reservation_t *idle, *r;
  int first = 0;
  evict_ctx_t ev = {0};
  assert_int_equal(cuzk_budget_reserve(b, 90, 0, "idle cache", &idle, NULL, 0), CUZK_OK);
  ev.victim = idle;
  assert_int_equal(cuzk_budget_add_evictor(b, "nothing", evict_nothing, &first), CUZK_OK);
  assert_int_equal(cuzk_budget_add_evictor(b, "victim", evict_victim, &ev), CUZK_OK);
  assert_int_equal(cuzk_budget_reserve(b, 50, 0, "partition", &r, NULL, 0), CUZK_OK);
  assert_true(first >= 1); /* chain order: the first evictor was asked first */
  assert_true(ev.calls >= 1);
  assert_int_equal(cuzk_reservation_held(idle), 50); /* only what was missing (40) was taken */
  cuzk_budget_stats_t st;
  cuzk_budget_stats(b, &st);
  assert_int_equal(st.evicted_bytes, 40);
  assert_true(st.used <= st.total);
  cuzk_reservation_release(r);
  cuzk_reservation_release(idle);
  cuzk_budget_free(b);
}

typedef struct {
  cuzk_reservation_t *r;
  int delay_ms;
} releaser_t;

static void *release_later(void *arg) {
  releaser_t *x = arg;
  usleep((useconds_t)x->delay_ms * 1000);
  cuzk_reservation_release_part(x->r, 30);
  return NULL;
}

static void test_wait_and_timeout(void **state) {
  (void)state;
  cuzk_budget_t *b = cuzk_budget_new(100);
  cuzk_reservation_t *hold, *r;
  char err[256];
  assert_int_equal(cuzk_budget_reserve(b, 100, 0, "hold", &hold, NULL, 0), CUZK_OK);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(cuzk_budget_reserve(b, 10, 50, "waiter", &r, err, sizeof err), CUZK_ERR_TIMEOUT);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  assert_true(ms >= 45);
  assert_non_null(strstr(err, "waiter"));
  pthread_t th;
  releaser_t x = {hold, 30};
  pthread_create(&th, NULL, release_later, &x);
  assert_int_equal(cuzk_budget_reserve(b, 30, 5000, "waiter2", &r, err, sizeof err), CUZK_OK);
  pthread_join(th, NULL);
  cuzk_budget_stats_t st;
  cuzk_budget_stats(b, &st);
  assert_true(st.waits >= 1);
  assert_int_equal(st.timeouts, 1);
  cuzk_reservation_release(r);
  cuzk_reservation_release(hold);
  cuzk_budget_free(b);
}

/* Many threads reserving random amounts with partial releases: used never exceeds total and
 * everything comes back. */
typedef struct {
  cuzk_budget_t *b;
  uint64_t seed;
} stress_arg_t;

static void *stress_main(void *arg) {
  stress_arg_t *a = arg;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, a->seed);
  for (int i = 0; i < 2000; i++) {
    uint64_t want = 1 + cuzk_test_rng_next(&rng) % 400;
    cuzk_reservation_t *r;
    if (cuzk_budget_reserve(a->b, want, 1000, "stress", &r, NULL, 0) != CUZK_OK) continue;
    cuzk_budget_stats_t st;
    cuzk_budget_stats(a->b, &st);
    assert_true(st.used <= st.total);
    cuzk_reservation_release_part(r, want / 2);
    cuzk_reservation_release(r);
  }
  return NULL;
}

static void test_stress(void **state) {
  (void)state;
  cuzk_budget_t *b = cuzk_budget_new(1000);
  pthread_t th[6];
  stress_arg_t args[6];
  uint64_t seed = cuzk_test_seed();
  for (int i = 0; i < 6; i++) {
    args[i] = (stress_arg_t){b, seed + (uint64_t)i};
    pthread_create(&th[i], NULL, stress_main, &args[i]);
  }
  for (int i = 0; i < 6; i++) pthread_join(th[i], NULL);
  cuzk_budget_stats_t st;
  cuzk_budget_stats(b, &st);
  assert_int_equal(st.used, 0);
  assert_true(st.peak <= 1000);
  assert_true(st.peak > 0);
  cuzk_budget_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basic),
      cmocka_unit_test(test_evictor_chain),
      cmocka_unit_test(test_try_reserve_no_evict),
      cmocka_unit_test(test_wait_and_timeout),
      cmocka_unit_test(test_stress),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
