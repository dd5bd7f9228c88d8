#include "core/util/clock.h"

#include <assert.h>
#include <errno.h>

#define CUZK__NS_PER_S 1000000000ULL
#define CUZK__NS_PER_MS 1000000ULL

uint64_t cuzk_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * CUZK__NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t cuzk_now_us(void) {
  return cuzk_now_ns() / 1000;
}

uint64_t cuzk_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / CUZK__NS_PER_MS;
}

void cuzk_sleep_ms(uint64_t ms) {
  struct timespec req = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (nanosleep(&req, &req) != 0 && errno == EINTR) {
  }
}

struct timespec cuzk_ts_from_ns(uint64_t ns) {
  struct timespec ts = {.tv_sec = (time_t)(ns / CUZK__NS_PER_S),
                        .tv_nsec = (long)(ns % CUZK__NS_PER_S)};
  return ts;
}

struct timespec cuzk_deadline_ts(uint64_t ms) {
  uint64_t now = cuzk_now_ns();
  /* Cap the offset at ~292 years: far enough to mean "never", small enough not to wrap. */
  const uint64_t max_ms = (UINT64_MAX / 2) / CUZK__NS_PER_MS;
  if (ms > max_ms) ms = max_ms;
  uint64_t off = ms * CUZK__NS_PER_MS;
  uint64_t at = now > UINT64_MAX - off ? UINT64_MAX : now + off;
  return cuzk_ts_from_ns(at);
}

int cuzk_cond_init_monotonic(pthread_cond_t *cond) {
  assert(cond);
  pthread_condattr_t attr;
  int r = pthread_condattr_init(&attr);
  if (r) return r;
  r = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  if (!r) r = pthread_cond_init(cond, &attr);
  pthread_condattr_destroy(&attr);
  return r;
}
