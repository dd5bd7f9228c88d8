#include "tests/support/testlib.h"
#include "core/util/queue.h"
#include "core/util/clock.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ITEM(x) ((void *)(uintptr_t)(x))
#define VAL(p) ((uintptr_t)(p))

static void test_new_and_capacity(void **state) {
  (void)state;
  assert_null(cuzk_queue_new(0));
  assert_null(cuzk_queue_new(SIZE_MAX));
  cuzk_queue_t *q = cuzk_queue_new(5);
  assert_non_null(q);
  assert_int_equal(cuzk_queue_capacity(q), 5);
  assert_int_equal(cuzk_queue_len(q), 0);
  assert_false(cuzk_queue_is_closed(q));
  cuzk_queue_free(q);
  cuzk_queue_free(NULL);
}

static void test_fifo_full_empty(void **state) {
  (void)state;
  cuzk_queue_t *q = cuzk_queue_new(3);
  assert_non_null(q);
  void *it = ITEM(99);
  assert_int_equal(cuzk_queue_try_pop(q, &it), CUZK_ERR_BUSY);
  assert_ptr_equal(it, ITEM(99));
  /* wrap around the ring many times */
  uintptr_t next_in = 0, next_out = 0;
  for (int round = 0; round < 50; round++) {
    size_t k = 1 + (size_t)round % 3;
    for (size_t i = 0; i < k; i++) assert_int_equal(cuzk_queue_try_push(q, ITEM(next_in++)), 0);
    assert_int_equal(cuzk_queue_len(q), k);
    for (size_t i = 0; i < k; i++) {
      assert_int_equal(cuzk_queue_pop(q, &it), CUZK_OK);
      assert_int_equal(VAL(it), next_out++);
    }
  }
  assert_int_equal(cuzk_queue_push(q, NULL), CUZK_OK); /* NULL is an item */
  assert_int_equal(cuzk_queue_push(q, ITEM(1)), CUZK_OK);
  assert_int_equal(cuzk_queue_push(q, ITEM(2)), CUZK_OK);
  assert_int_equal(cuzk_queue_try_push(q, ITEM(3)), CUZK_ERR_BUSY);
  assert_int_equal(cuzk_queue_len(q), 3);
  assert_int_equal(cuzk_queue_try_pop(q, &it), CUZK_OK);
  assert_null(it);
  assert_int_equal(cuzk_queue_try_pop(q, &it), CUZK_OK);
  assert_ptr_equal(it, ITEM(1));
  cuzk_queue_free(q); /* item 2 still inside: not ours to free */
}

static void test_timeouts(void **state) {
  (void)state;
  cuzk_queue_t *q = cuzk_queue_new(1);
  assert_non_null(q);
  void *it;
  uint64_t t0 = cuzk_now_ns();
  assert_int_equal(cuzk_queue_pop_timeout(q, &it, 60), CUZK_ERR_TIMEOUT);
  uint64_t dt = cuzk_now_ns() - t0;
  assert_true(dt >= 59000000ULL && dt < 2000000000ULL);
  t0 = cuzk_now_ns();
  assert_int_equal(cuzk_queue_pop_timeout(q, &it, 0), CUZK_ERR_TIMEOUT);
  assert_true(cuzk_now_ns() - t0 < 50000000ULL);

  assert_int_equal(cuzk_queue_push_timeout(q, ITEM(7), 10), CUZK_OK);
  t0 = cuzk_now_ns();
  assert_int_equal(cuzk_queue_push_timeout(q, ITEM(8), 60), CUZK_ERR_TIMEOUT);
  dt = cuzk_now_ns() - t0;
  assert_true(dt >= 59000000ULL && dt < 2000000000ULL);
  assert_int_equal(cuzk_queue_push_timeout(q, ITEM(8), 0), CUZK_ERR_TIMEOUT);
  assert_int_equal(cuzk_queue_len(q), 1); /* the timed-out items were not queued */
  assert_int_equal(cuzk_queue_pop_timeout(q, &it, 1000), CUZK_OK);
  assert_ptr_equal(it, ITEM(7));
  cuzk_queue_free(q);
}

static void test_close_semantics(void **state) {
  (void)state;
  cuzk_queue_t *q = cuzk_queue_new(4);
  assert_non_null(q);
  for (uintptr_t i = 1; i <= 3; i++) assert_int_equal(cuzk_queue_push(q, ITEM(i)), CUZK_OK);
  cuzk_queue_close(q);
  cuzk_queue_close(q); /* idempotent */
  assert_true(cuzk_queue_is_closed(q));
  assert_int_equal(cuzk_queue_push(q, ITEM(9)), CUZK_ERR_CLOSED);
  assert_int_equal(cuzk_queue_try_push(q, ITEM(9)), CUZK_ERR_CLOSED);
  assert_int_equal(cuzk_queue_push_timeout(q, ITEM(9), 100), CUZK_ERR_CLOSED);
  assert_int_equal(cuzk_queue_len(q), 3);
  void *it;
  /* items queued before the close are still delivered, in order, by every pop flavour */
  assert_int_equal(cuzk_queue_pop(q, &it), CUZK_OK);
  assert_ptr_equal(it, ITEM(1));
  assert_int_equal(cuzk_queue_try_pop(q, &it), CUZK_OK);
  assert_ptr_equal(it, ITEM(2));
  assert_int_equal(cuzk_queue_pop_timeout(q, &it, 100), CUZK_OK);
  assert_ptr_equal(it, ITEM(3));
  it = ITEM(42);
  uint64_t t0 = cuzk_now_ns();
  assert_int_equal(cuzk_queue_pop(q, &it), CUZK_ERR_CLOSED);
  assert_int_equal(cuzk_queue_try_pop(q, &it), CUZK_ERR_CLOSED);
  assert_int_equal(cuzk_queue_pop_timeout(q, &it, 5000), CUZK_ERR_CLOSED);
  assert_true(cuzk_now_ns() - t0 < 1000000000ULL); /* at once, not after the timeout */
  assert_ptr_equal(it, ITEM(42));
  cuzk_queue_free(q);
}

/* ---- blocking and wake-ups ------------------------------------------------------------------- */

typedef struct {
  cuzk_queue_t *q;
  int mode; /* 0 pop, 1 pop_timeout(10 s), 2 push, 3 push_timeout(10 s) */
  cuzk_err_t result;
  void *item;
  atomic_int done;
} waiter_t;

static void *waiter(void *arg) {
  waiter_t *w = arg;
  switch (w->mode) {
    case 0:
      w->result = cuzk_queue_pop(w->q, &w->item);
      break;
    case 1:
      w->result = cuzk_queue_pop_timeout(w->q, &w->item, 10000);
      break;
    case 2:
      w->result = cuzk_queue_push(w->q, w->item);
      break;
    default:
      w->result = cuzk_queue_push_timeout(w->q, w->item, 10000);
      break;
  }
  atomic_store(&w->done, 1);
  return NULL;
}

static void wait_done(waiter_t *w, int n) {
  uint64_t t0 = cuzk_now_ns();
  for (int i = 0; i < n; i++)
    while (!atomic_load(&w[i].done)) {
      if (cuzk_now_ns() - t0 > 3000000000ULL) fail_msg("waiter %d never woke up", i);
      cuzk_sleep_ms(1);
    }
}

static void test_close_wakes_consumers(void **state) {
  (void)state;
  cuzk_queue_t *q = cuzk_queue_new(2);
  assert_non_null(q);
  waiter_t w[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (waiter_t){q, i % 2, CUZK_OK, ITEM(77), 0};
    assert_int_equal(pthread_create(&th[i], NULL, waiter, &w[i]), 0);
  }
  cuzk_sleep_ms(50);
  for (int i = 0; i < 4; i++) assert_false(atomic_load(&w[i].done)); /* really blocked */
  cuzk_queue_close(q);
  wait_done(w, 4);
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].result, CUZK_ERR_CLOSED);
    assert_ptr_equal(w[i].item, ITEM(77));
  }
  cuzk_queue_free(q);
}

static void test_close_wakes_producers(void **state) {
  (void)state;
  cuzk_queue_t *q = cuzk_queue_new(2);
  assert_non_null(q);
  assert_int_equal(cuzk_queue_push(q, ITEM(1)), 0);
  assert_int_equal(cuzk_queue_push(q, ITEM(2)), 0);
  waiter_t w[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (waiter_t){q, 2 + i % 2, CUZK_OK, ITEM(100 + i), 0};
    assert_int_equal(pthread_create(&th[i], NULL, waiter, &w[i]), 0);
  }
  cuzk_sleep_ms(50);
  for (int i = 0; i < 4; i++) assert_false(atomic_load(&w[i].done));
  cuzk_queue_close(q);
  wait_done(w, 4);
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].result, CUZK_ERR_CLOSED);
  }
  /* none of the refused items got in; the old ones drain */
  assert_int_equal(cuzk_queue_len(q), 2);
  void *it;
  assert_int_equal(cuzk_queue_pop(q, &it), 0);
  assert_ptr_equal(it, ITEM(1));
  assert_int_equal(cuzk_queue_pop(q, &it), 0);
  assert_ptr_equal(it, ITEM(2));
  assert_int_equal(cuzk_queue_pop(q, &it), CUZK_ERR_CLOSED);
  cuzk_queue_free(q);
}

static void test_blocked_push_resumes_after_pop(void **state) {
  (void)state;
  cuzk_queue_t *q = cuzk_queue_new(1);
  assert_non_null(q);
  assert_int_equal(cuzk_queue_push(q, ITEM(1)), 0);
  waiter_t w[2] = {{q, 2, CUZK_OK, ITEM(2), 0}, {q, 3, CUZK_OK, ITEM(3), 0}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, waiter, &w[i]), 0);
  cuzk_sleep_ms(30);
  assert_false(atomic_load(&w[0].done) || atomic_load(&w[1].done));
  void *got[3];
  for (int i = 0; i < 3; i++) assert_int_equal(cuzk_queue_pop_timeout(q, &got[i], 3000), CUZK_OK);
  wait_done(w, 2);
  for (int i = 0; i < 2; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].result, CUZK_OK);
  }
  assert_ptr_equal(got[0], ITEM(1));
  assert_true((got[1] == ITEM(2) && got[2] == ITEM(3)) || (got[1] == ITEM(3) && got[2] == ITEM(2)));
  /* and a blocked pop resumes after a push */
  waiter_t c = {q, 0, CUZK_OK, NULL, 0};
  pthread_t ct;
  assert_int_equal(pthread_create(&ct, NULL, waiter, &c), 0);
  cuzk_sleep_ms(30);
  assert_false(atomic_load(&c.done));
  assert_int_equal(cuzk_queue_push(q, ITEM(5)), 0);
  wait_done(&c, 1);
  pthread_join(ct, NULL);
  assert_int_equal(c.result, CUZK_OK);
  assert_ptr_equal(c.item, ITEM(5));
  cuzk_queue_free(q);
}

/* ---- many producers and consumers ------------------------------------------------------------ */

#define PRODUCERS 4
#define CONSUMERS 4
#define PER_PRODUCER 20000

typedef struct {
  cuzk_queue_t *q;
  int id;
  uint64_t seed;
  long retries;
} producer_t;

typedef struct {
  cuzk_queue_t *q;
  int id;
  uint64_t seed;
  uintptr_t *got;
  size_t n;
  int order_ok;
} consumer_t;

static void *produce(void *arg) {
  producer_t *p = arg;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, p->seed);
  for (uintptr_t s = 0; s < PER_PRODUCER; s++) {
    void *item = ITEM(((uintptr_t)p->id << 32) | s);
    cuzk_err_t e;
    switch (cuzk_test_rng_next(&rng) % 3) {
      case 0:
        e = cuzk_queue_push(p->q, item);
        break;
      case 1:
        while ((e = cuzk_queue_try_push(p->q, item)) == CUZK_ERR_BUSY) {
          p->retries++;
          sched_yield();
        }
        break;
      default:
        while ((e = cuzk_queue_push_timeout(p->q, item, 1)) == CUZK_ERR_TIMEOUT) p->retries++;
        break;
    }
    if (e != CUZK_OK) abort(); /* cmocka asserts belong to the main thread */
  }
  return NULL;
}

static void *consume(void *arg) {
  consumer_t *c = arg;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, c->seed);
  uintptr_t last[PRODUCERS];
  memset(last, 0xff, sizeof last);
  c->order_ok = 1;
  for (;;) {
    void *it;
    cuzk_err_t e;
    switch (cuzk_test_rng_next(&rng) % 3) {
      case 0:
        e = cuzk_queue_pop(c->q, &it);
        break;
      case 1:
        while ((e = cuzk_queue_try_pop(c->q, &it)) == CUZK_ERR_BUSY) sched_yield();
        break;
      default:
        while ((e = cuzk_queue_pop_timeout(c->q, &it, 1)) == CUZK_ERR_TIMEOUT) {
        }
        break;
    }
    if (e == CUZK_ERR_CLOSED) return NULL;
    if (e != CUZK_OK) abort();
    uintptr_t v = VAL(it);
    uintptr_t pid = v >> 32, seq = v & 0xffffffffu;
    if (pid >= PRODUCERS || seq >= PER_PRODUCER) abort();
    /* FIFO: one consumer sees each producer's items in increasing order */
    if (last[pid] != (uintptr_t)-1 && seq <= last[pid]) c->order_ok = 0;
    last[pid] = seq;
    c->got[c->n++] = v;
  }
}

static void test_mpmc_exactly_once(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  cuzk_queue_t *q = cuzk_queue_new(16);
  assert_non_null(q);
  producer_t pr[PRODUCERS];
  consumer_t co[CONSUMERS];
  pthread_t pt[PRODUCERS], ct[CONSUMERS];
  uint64_t t0 = cuzk_now_ns();
  for (int i = 0; i < CONSUMERS; i++) {
    co[i] = (consumer_t){
        q, i, seed + 100 + (uint64_t)i, malloc(sizeof(uintptr_t) * PRODUCERS * PER_PRODUCER), 0, 0};
    assert_non_null(co[i].got);
    assert_int_equal(pthread_create(&ct[i], NULL, consume, &co[i]), 0);
  }
  for (int i = 0; i < PRODUCERS; i++) {
    pr[i] = (producer_t){q, i, seed + (uint64_t)i, 0};
    assert_int_equal(pthread_create(&pt[i], NULL, produce, &pr[i]), 0);
  }
  for (int i = 0; i < PRODUCERS; i++) pthread_join(pt[i], NULL);
  cuzk_queue_close(q); /* consumers drain what is left, then see CLOSED */
  for (int i = 0; i < CONSUMERS; i++) pthread_join(ct[i], NULL);

  unsigned char *seen = calloc(PRODUCERS * PER_PRODUCER, 1);
  assert_non_null(seen);
  size_t total = 0;
  for (int i = 0; i < CONSUMERS; i++) {
    assert_true(co[i].order_ok);
    for (size_t k = 0; k < co[i].n; k++) {
      uintptr_t v = co[i].got[k];
      size_t idx = (size_t)(v >> 32) * PER_PRODUCER + (size_t)(v & 0xffffffffu);
      if (seen[idx]) fail_msg("item %zu delivered twice", idx);
      seen[idx] = 1;
    }
    total += co[i].n;
    free(co[i].got);
  }
  assert_int_equal(total, PRODUCERS * PER_PRODUCER);
  assert_int_equal(cuzk_queue_len(q), 0);
  free(seen);
  cuzk_queue_free(q);
  fprintf(stderr, "mpmc: %d items in %.1f ms\n", PRODUCERS * PER_PRODUCER,
          (double)(cuzk_now_ns() - t0) / 1e6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_and_capacity),
      cmocka_unit_test(test_fifo_full_empty),
      cmocka_unit_test(test_timeouts),
      cmocka_unit_test(test_close_semantics),
      cmocka_unit_test(test_close_wakes_consumers),
      cmocka_unit_test(test_close_wakes_producers),
      cmocka_unit_test(test_blocked_push_resumes_after_pop),
      cmocka_unit_test(test_mpmc_exactly_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
