#include "tests/support/testlib.h"
#include "core/engine/sched.h"

#include <stdlib.h>
#include <string.h>

static cuzk_sched_key_t key(cuzk_priority_t p, uint64_t seq, uint32_t part) {
  cuzk_sched_key_t k = {p, seq, part};
  return k;
}

static void test_order(void **state) {
  (void)state;
  cuzk_sched_t *s = cuzk_sched_new();
  /* a NORMAL job with 3 partitions, then a HIGH job, then a CRITICAL, then an older NORMAL seq. */
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_NORMAL, 5, 2), "n5p2"), CUZK_OK);
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_NORMAL, 5, 0), "n5p0"), CUZK_OK);
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_NORMAL, 5, 1), "n5p1"), CUZK_OK);
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_HIGH, 7, 0), "h7p0"), CUZK_OK);
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_NORMAL, 3, 0), "n3p0"), CUZK_OK);
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_CRITICAL, 9, 0), "c9p0"), CUZK_OK);
  const char *want[] = {"c9p0", "h7p0", "n3p0", "n5p0", "n5p1", "n5p2"};
  size_t d[CUZK_PRIO__COUNT];
  cuzk_sched_depths(s, d);
  assert_int_equal(d[CUZK_PRIO_NORMAL], 4);
  assert_int_equal(d[CUZK_PRIO_HIGH], 1);
  assert_int_equal(d[CUZK_PRIO_CRITICAL], 1);
  for (int i = 0; i < 6; i++) assert_string_equal(cuzk_sched_pop(s, NULL), want[i]);
  assert_null(cuzk_sched_pop(s, NULL));
  assert_null(cuzk_sched_peek(s, NULL));
  cuzk_sched_free(s);
}

static void test_unique_keys(void **state) {
  (void)state;
  cuzk_sched_t *s = cuzk_sched_new();
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_HIGH, 1, 0), "first"), CUZK_OK);
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_HIGH, 1, 0), "second"), CUZK_ERR_BUSY);
  /* a second concurrent PoSt job gets its own seq and both are kept */
  assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_HIGH, 2, 0), "other"), CUZK_OK);
  assert_string_equal(cuzk_sched_pop(s, NULL), "first");
  assert_string_equal(cuzk_sched_pop(s, NULL), "other");
  cuzk_sched_free(s);
}

static void count_cb(void *item, void *ctx) {
  (void)item;
  (*(int *)ctx)++;
}

static void test_remove_job(void **state) {
  (void)state;
  cuzk_sched_t *s = cuzk_sched_new();
  for (uint32_t p = 0; p < 16; p++) {
    assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_NORMAL, 1, p), (void *)(uintptr_t)(100 + p)),
                     CUZK_OK);
    assert_int_equal(cuzk_sched_push(s, key(CUZK_PRIO_NORMAL, 2, p), (void *)(uintptr_t)(200 + p)),
                     CUZK_OK);
  }
  int n = 0;
  assert_int_equal(cuzk_sched_remove_job(s, 1, count_cb, &n), 16);
  assert_int_equal(n, 16);
  assert_int_equal(cuzk_sched_len(s), 16);
  for (uint32_t p = 0; p < 16; p++) assert_int_equal((uintptr_t)cuzk_sched_pop(s, NULL), 200 + p);
  cuzk_sched_free(s);
}

static int ref_cmp(const void *a, const void *b) {
  return cuzk_sched_key_cmp((const cuzk_sched_key_t *)a, (const cuzk_sched_key_t *)b);
}

/* Random interleavings of push/pop/remove against a sorted-array model. */
static void test_model(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  for (int round = 0; round < 50; round++) {
    cuzk_sched_t *s = cuzk_sched_new();
    cuzk_sched_key_t model[512];
    size_t mlen = 0;
    for (int step = 0; step < 2000; step++) {
      uint64_t r = cuzk_test_rng_next(&rng) % 10;
      if (r < 6 && mlen < 512) {
        cuzk_sched_key_t k =
            key((cuzk_priority_t)(cuzk_test_rng_next(&rng) % 3), cuzk_test_rng_next(&rng) % 40,
                (uint32_t)(cuzk_test_rng_next(&rng) % 8));
        int dup = 0;
        for (size_t i = 0; i < mlen; i++) dup |= cuzk_sched_key_cmp(&model[i], &k) == 0;
        cuzk_err_t e = cuzk_sched_push(s, k, NULL);
        assert_int_equal(e, dup ? CUZK_ERR_BUSY : CUZK_OK);
        if (!dup) model[mlen++] = k;
      } else if (r < 9) {
        cuzk_sched_key_t got;
        qsort(model, mlen, sizeof model[0], ref_cmp);
        if (mlen == 0) {
          assert_null(cuzk_sched_pop(s, &got));
          continue;
        }
        cuzk_sched_pop(s, &got);
        assert_int_equal(cuzk_sched_key_cmp(&got, &model[0]), 0);
        memmove(model, model + 1, --mlen * sizeof model[0]);
      } else {
        uint64_t seq = cuzk_test_rng_next(&rng) % 40;
        size_t want = 0, j = 0;
        for (size_t i = 0; i < mlen; i++) {
          if (model[i].job_seq == seq)
            want++;
          else
            model[j++] = model[i];
        }
        mlen = j;
        assert_int_equal(cuzk_sched_remove_job(s, seq, NULL, NULL), want);
      }
      assert_int_equal(cuzk_sched_len(s), mlen);
    }
    cuzk_sched_free(s);
  }
}

static void test_type_names(void **state) {
  (void)state;
  cuzk_proof_type_t t;
  for (int i = 0; i < CUZK_PROOF__COUNT; i++) {
    assert_true(cuzk_proof_type_parse(cuzk_proof_type_name((cuzk_proof_type_t)i), &t));
    assert_int_equal(t, i);
  }
  assert_false(cuzk_proof_type_parse("winning_post", &t));
  assert_false(cuzk_proof_type_parse(NULL, &t));
  assert_null(cuzk_proof_type_name(CUZK_PROOF__COUNT));
  assert_int_equal(cuzk_proof_type_priority(CUZK_PROOF_WINNING_POST), CUZK_PRIO_CRITICAL);
  assert_int_equal(cuzk_proof_type_priority(CUZK_PROOF_WINDOW_POST), CUZK_PRIO_HIGH);
  assert_int_equal(cuzk_proof_type_priority(CUZK_PROOF_POREP_C2), CUZK_PRIO_NORMAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order),      cmocka_unit_test(test_unique_keys),
      cmocka_unit_test(test_remove_job), cmocka_unit_test(test_model),
      cmocka_unit_test(test_type_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
