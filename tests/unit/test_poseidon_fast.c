/* The optimized Poseidon permutation (sparse partial rounds, round constants folded into the
 * preceding linear layer) against the textbook permutation cuzk_poseidon_permute, which uses the
 * ff module's multiplication and is itself pinned to the published vectors in test_poseidon.c:
 * 10,000 random states per arity, extreme states (elements 0, 1, r - 1), the batch API against
 * the single hash, and a mutation check showing the comparison detects a wrong permutation. */
#include "tests/support/testlib.h"

#include <string.h>

#include "core/hash/poseidon.h"

#define RANDOM_STATES 10000

static const unsigned arities[] = {2, 4, 8, 11};

typedef void (*permute_fn)(const cuzk_poseidon_params_t *p, cuzk_fr_t *state);

/* A deliberately wrong permutation: the fast one with one output element off by one. */
static void permute_mutant(const cuzk_poseidon_params_t *p, cuzk_fr_t *state) {
  cuzk_poseidon_permute_fast(p, state);
  cuzk_fr_add(&state[1], &state[1], &CUZK_FR_ONE);
}

static void random_fr(cuzk_fr_t *out, cuzk_test_rng_t *rng) {
  uint8_t w[64];
  cuzk_test_rng_bytes(rng, w, sizeof w);
  cuzk_fr_from_le_wide(out, w);
}

/* Element i of an extreme state chosen by `pick`: 0, 1 or r - 1. */
static void extreme_fr(cuzk_fr_t *out, unsigned pick) {
  switch (pick % 3) {
    case 0:
      *out = CUZK_FR_ZERO;
      break;
    case 1:
      *out = CUZK_FR_ONE;
      break;
    default:
      cuzk_fr_neg(out, &CUZK_FR_ONE);
  }
}

/* Number of the n states (random, or extreme when `extreme`) on which `fast` disagrees with
 * the reference permutation. */
static unsigned mismatches(unsigned arity, permute_fn fast, unsigned n, cuzk_test_rng_t *rng,
                           int extreme) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert_non_null(p);
  unsigned bad = 0;
  for (unsigned it = 0; it < n; it++) {
    cuzk_fr_t x[CUZK_POSEIDON_MAX_WIDTH], y[CUZK_POSEIDON_MAX_WIDTH];
    unsigned code = it;
    for (unsigned i = 0; i < p->width; i++) {
      if (extreme) {
        extreme_fr(&x[i], code);
        code /= 3;
      } else {
        random_fr(&x[i], rng);
      }
      y[i] = x[i];
    }
    cuzk_poseidon_permute(p, x);
    fast(p, y);
    if (memcmp(x, y, p->width * sizeof *x) != 0) bad++;
  }
  return bad;
}

static void test_fast_matches_reference_random(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  for (int a = 0; a < 4; a++) {
    unsigned bad = mismatches(arities[a], cuzk_poseidon_permute_fast, RANDOM_STATES, &rng, 0);
    if (bad) fail_msg("arity %u: %u of %d random states differ", arities[a], bad, RANDOM_STATES);
  }
}

static void test_fast_matches_reference_extreme(void **state) {
  (void)state;
  /* every combination of {0, 1, r - 1} over the first elements (3^7 states), rest cycling */
  for (int a = 0; a < 4; a++) {
    unsigned bad = mismatches(arities[a], cuzk_poseidon_permute_fast, 2187, NULL, 1);
    if (bad) fail_msg("arity %u: %u extreme states differ", arities[a], bad);
  }
}

static void test_mutation_is_detected(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  for (int a = 0; a < 4; a++) {
    assert_int_equal(mismatches(arities[a], permute_mutant, 50, &rng, 0), 50);
    assert_int_equal(mismatches(arities[a], permute_mutant, 50, NULL, 1), 50);
  }
}

static void test_hash_many_matches_hash(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  for (int a = 0; a < 4; a++) {
    unsigned ar = arities[a];
    for (size_t n = 0; n <= 17; n++) {
      cuzk_fr_t in[17 * 11], out[17], want;
      for (size_t i = 0; i < n * ar; i++) random_fr(&in[i], &rng);
      cuzk_poseidon_hash_many(out, ar, in, n);
      for (size_t i = 0; i < n; i++) {
        cuzk_poseidon_hash(&want, ar, &in[i * ar]);
        assert_true(cuzk_fr_eq(&out[i], &want));
      }
    }
  }
}

static void test_mul_count(void **state) {
  (void)state;
  /* t = 9, R_F = 8, R_P = 57: textbook 8·27 + 57·3 + 65·81; sparse 8·(27 + 81) + 56·20 + 3 + 81 */
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(8);
  assert_non_null(p);
  assert_int_equal(cuzk_poseidon_mul_count(p, 1), 8 * 27 + 57 * 3 + 65 * 81);
  assert_int_equal(cuzk_poseidon_mul_count(p, 0), 8 * (27 + 81) + 56 * 20 + 3 + 81);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fast_matches_reference_random),
      cmocka_unit_test(test_fast_matches_reference_extreme),
      cmocka_unit_test(test_mutation_is_detected),
      cmocka_unit_test(test_hash_many_matches_hash),
      cmocka_unit_test(test_mul_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
