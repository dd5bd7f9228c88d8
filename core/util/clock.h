/* Clocks and deadlines.
 *
 * Durations and timeouts use CLOCK_MONOTONIC (never jumps); wall time (CLOCK_REALTIME) is only for
 * records shown to people or other systems. Condition variables that wait with a deadline from
 * cuzk_deadline_ts() must be created with cuzk_cond_init_monotonic() (or a condattr set to
 * CLOCK_MONOTONIC), otherwise the deadline is read against the wrong clock.
 *
 * Threads: every function is safe from any thread; none allocates or takes locks.
 */
#ifndef CUZK_UTIL_CLOCK_H
#define CUZK_UTIL_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Monotonic time in nanoseconds since an arbitrary fixed origin (boot). */
uint64_t cuzk_now_ns(void);
/* Monotonic time in microseconds (cuzk_now_ns() / 1000). */
uint64_t cuzk_now_us(void);
/* Wall-clock milliseconds since the Unix epoch (UTC), for records. */
uint64_t cuzk_wall_ms(void);

/* Sleeps at least `ms` milliseconds, resuming after signal interruptions. */
void cuzk_sleep_ms(uint64_t ms);

/* The CLOCK_MONOTONIC instant `ms` milliseconds from now, as a timespec for
 * pthread_cond_timedwait on a monotonic condition variable. Saturates instead of overflowing. */
struct timespec cuzk_deadline_ts(uint64_t ms);

/* Converts a monotonic nanosecond instant (from cuzk_now_ns) to a timespec. */
struct timespec cuzk_ts_from_ns(uint64_t ns);

/* Initialises `cond` to measure timed waits against CLOCK_MONOTONIC. Returns 0 or an errno. */
int cuzk_cond_init_monotonic(pthread_cond_t *cond);

#endif
