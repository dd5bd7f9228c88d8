#include "tests/support/testlib.h"
#include "core/util/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static void test_monotonic_and_units(void **state) {
  (void)state;
  uint64_t prev = cuzk_now_ns();
  for (int i = 0; i < 100000; i++) {
    uint64_t t = cuzk_now_ns();
    assert_true(t >= prev);
    prev = t;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t ref = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
  uint64_t ns = cuzk_now_ns(), us = cuzk_now_us();
  assert_true(ns >= ref && ns - ref < 1000000000ULL);
  assert_true(us >= ns / 1000 && us - ns / 1000 < 1000000ULL);
}

static void test_wall_ms(void **state) {
  (void)state;
  uint64_t w = cuzk_wall_ms();
  uint64_t t = (uint64_t)time(NULL) * 1000;
  assert_true(w + 2000 > t && w < t + 2000);
  assert_true(w > 1700000000000ULL); /* after Nov 2023: really milliseconds since the epoch */
}

static void test_sleep(void **state) {
  (void)state;
  uint64_t t0 = cuzk_now_ns();
  cuzk_sleep_ms(50);
  uint64_t dt = cuzk_now_ns() - t0;
  assert_true(dt >= 50000000ULL);
  assert_true(dt < 2000000000ULL);
  t0 = cuzk_now_ns();
  cuzk_sleep_ms(0);
  assert_true(cuzk_now_ns() - t0 < 1000000000ULL);
  t0 = cuzk_now_ns();
  cuzk_sleep_ms(1200); /* crosses a whole second: tv_sec and tv_nsec both used */
  dt = cuzk_now_ns() - t0;
  assert_true(dt >= 1200000000ULL && dt < 3000000000ULL);
}

static void test_ts_from_ns(void **state) {
  (void)state;
  struct timespec ts = cuzk_ts_from_ns(3999999999ULL);
  assert_int_equal(ts.tv_sec, 3);
  assert_int_equal(ts.tv_nsec, 999999999);
  ts = cuzk_ts_from_ns(0);
  assert_int_equal(ts.tv_sec, 0);
  assert_int_equal(ts.tv_nsec, 0);
}

static void test_deadline_values(void **state) {
  (void)state;
  uint64_t before = cuzk_now_ns();
  struct timespec d = cuzk_deadline_ts(1500);
  uint64_t after = cuzk_now_ns();
  uint64_t at = (uint64_t)d.tv_sec * 1000000000ULL + (uint64_t)d.tv_nsec;
  assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
  assert_true(at >= before + 1500000000ULL && at <= after + 1500000000ULL);
  /* huge timeouts saturate far in the future instead of wrapping into the past */
  struct timespec far = cuzk_deadline_ts(UINT64_MAX);
  assert_true(far.tv_sec > d.tv_sec + 100LL * 365 * 86400);
  assert_true(far.tv_nsec >= 0 && far.tv_nsec < 1000000000L);
}

static void test_timed_wait_on_monotonic_cond(void **state) {
  (void)state;
  pthread_cond_t cv;
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  assert_int_equal(cuzk_cond_init_monotonic(&cv), 0);
  pthread_mutex_lock(&mu);
  uint64_t t0 = cuzk_now_ns();
  struct timespec d = cuzk_deadline_ts(40);
  int r;
  do {
    r = pthread_cond_timedwait(&cv, &mu, &d);
  } while (r == 0);
  uint64_t dt = cuzk_now_ns() - t0;
  pthread_mutex_unlock(&mu);
  assert_int_equal(r, ETIMEDOUT);
  /* with a realtime cond the monotonic deadline would lie decades in the past: it would return
   * at once, so a lower bound catches a missing setclock */
  assert_true(dt >= 39000000ULL);
  assert_true(dt < 2000000000ULL);
  pthread_cond_destroy(&cv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_monotonic_and_units),
      cmocka_unit_test(test_wall_ms),
      cmocka_unit_test(test_sleep),
      cmocka_unit_test(test_ts_from_ns),
      cmocka_unit_test(test_deadline_values),
      cmocka_unit_test(test_timed_wait_on_monotonic_cond),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
