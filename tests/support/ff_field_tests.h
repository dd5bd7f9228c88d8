/* Header-only GMP-oracle tests shared by tests/unit/test_fp.c and test_fr.c.
 *
 * The including file defines, before including this header:
 *   FT_T          the element type (cuzk_fp_t)
 *   FT_(name)     the function name for an operation (cuzk_fp_##name)
 *   FT_LIMBS, FT_BYTES, FT_BITS (bit length of the modulus), FT_MOD_HEX (modulus in hex)
 *   FT_N_RANDOM   random inputs per cheap operation (add ... sqr, encodings)
 *   FT_N_EXP      random inputs per exponentiation-based operation (inv, pow, sqrt, legendre)
 */
#ifndef CUZK_TESTS_FF_FIELD_TESTS_H
#define CUZK_TESTS_FF_FIELD_TESTS_H

#include <stdio.h>
#include <stdlib.h>

#include "core/ff/fp.h"
#include "tests/support/gmp_oracle.h"

static mpz_t ft_m;          /* the modulus */
static mpz_t ft_R;          /* 2^(64·FT_LIMBS) */
static cuzk_test_rng_t ft_rng;

static void ft_setup_globals(void) {
  mpz_init_set_str(ft_m, FT_MOD_HEX, 16);
  mpz_init(ft_R);
  mpz_setbit(ft_R, 64 * FT_LIMBS);
  cuzk_test_rng_init(&ft_rng, cuzk_test_seed());
}

/* mpz (< m) -> element through the canonical LE decoder, which must accept it. */
static void ft_from_mpz(FT_T *out, const mpz_t x) {
  uint8_t b[FT_BYTES];
  gmpo_to_le_bytes(b, FT_BYTES, x);
  assert_int_equal(FT_(from_le)(out, b), CUZK_OK);
}

static void ft_to_mpz(mpz_t out, const FT_T *a) {
  uint8_t b[FT_BYTES];
  FT_(to_le)(b, a);
  gmpo_from_le_bytes(out, b, FT_BYTES);
}

/* Element equals x mod m. Prints both on mismatch. */
static void ft_assert_eq_mpz(const FT_T *a, const mpz_t x, const char *what) {
  mpz_t got;
  mpz_init(got);
  ft_to_mpz(got, a);
  if (mpz_cmp(got, x) != 0) {
    gmp_fprintf(stderr, "%s mismatch:\n  got      %Zx\n  expected %Zx\n", what, got, x);
    fail();
  }
  mpz_clear(got);
}

/* Edge values, then random values. */
#define FT_NEDGE_MAX (8 + 4 * FT_BITS)
static mpz_t ft_edges[FT_NEDGE_MAX];
static size_t ft_nedge;

static void ft_init_edges(void) {
  for (size_t i = 0; i < FT_NEDGE_MAX; i++) mpz_init(ft_edges[i]);
  ft_nedge = gmpo_edge_values(ft_edges, FT_NEDGE_MAX, ft_m);
}

/* The i-th test input: edge values first, then random (mixing in an edge 1 time in 16). */
static void ft_input(mpz_t out, size_t i) {
  if (i < ft_nedge) {
    mpz_set(out, ft_edges[i]);
  } else if ((cuzk_test_rng_next(&ft_rng) & 15) == 0) {
    mpz_set(out, ft_edges[cuzk_test_rng_next(&ft_rng) % ft_nedge]);
  } else {
    gmpo_random_mod(out, &ft_rng, ft_m);
  }
}

static void ft_check_constants(void) {
  mpz_t x, y;
  mpz_inits(x, y, NULL);
  gmpo_from_limbs(x, FT_(MODULUS), FT_LIMBS);
  assert_int_equal(mpz_cmp(x, ft_m), 0);
  /* ONE is R mod m */
  gmpo_from_limbs(x, FT_(ONE).l, FT_LIMBS);
  mpz_mod(y, ft_R, ft_m);
  assert_int_equal(mpz_cmp(x, y), 0);
  gmpo_from_limbs(x, FT_(ZERO).l, FT_LIMBS);
  assert_int_equal(mpz_sgn(x), 0);
  mpz_clears(x, y, NULL);
}

/* Checks a named constant given as limbs against a GMP value. */
static void ft_check_limbs(const uint64_t *l, const mpz_t expect, const char *name) {
  mpz_t x;
  mpz_init(x);
  gmpo_from_limbs(x, l, FT_LIMBS);
  if (mpz_cmp(x, expect) != 0) {
    gmp_fprintf(stderr, "constant %s is %Zx, expected %Zx\n", name, x, expect);
    fail();
  }
  mpz_clear(x);
}

static void ft_check_ninv(uint64_t ninv) {
  /* -m^-1 mod 2^64 */
  mpz_t t, x;
  mpz_inits(t, x, NULL);
  mpz_set_ui(t, 0);
  mpz_setbit(t, 64);
  mpz_invert(x, ft_m, t);
  mpz_sub(x, t, x);
  mpz_mod(x, x, t);
  assert_true(mpz_get_ui(x) == ninv);
  mpz_clears(t, x, NULL);
}

static void test_arith(void **state) {
  (void)state;
  mpz_t a, b, e;
  mpz_inits(a, b, e, NULL);
  size_t total = ft_nedge * 40 + FT_N_RANDOM;
  for (size_t i = 0; i < total; i++) {
    if (i < ft_nedge * 40) {
      mpz_set(a, ft_edges[i % ft_nedge]);
      mpz_set(b, ft_edges[(i / ft_nedge * 7919 + i * 31) % ft_nedge]);
    } else {
      ft_input(a, i - ft_nedge * 40);
      ft_input(b, ft_nedge + i);
    }
    FT_T x, y, z, z2;
    ft_from_mpz(&x, a);
    ft_from_mpz(&y, b);

    FT_(add)(&z, &x, &y);
    mpz_add(e, a, b);
    mpz_mod(e, e, ft_m);
    ft_assert_eq_mpz(&z, e, "add");

    FT_(sub)(&z, &x, &y);
    mpz_sub(e, a, b);
    mpz_mod(e, e, ft_m);
    ft_assert_eq_mpz(&z, e, "sub");

    FT_(neg)(&z, &x);
    mpz_neg(e, a);
    mpz_mod(e, e, ft_m);
    ft_assert_eq_mpz(&z, e, "neg");

    FT_(dbl)(&z, &x);
    mpz_mul_2exp(e, a, 1);
    mpz_mod(e, e, ft_m);
    ft_assert_eq_mpz(&z, e, "dbl");

    mpz_mul(e, a, b);
    mpz_mod(e, e, ft_m);
    FT_(mul)(&z, &x, &y);
    ft_assert_eq_mpz(&z, e, "mul");
    FT_(mul_portable)(&z2, &x, &y);
    ft_assert_eq_mpz(&z2, e, "mul_portable");
    z = x; /* aliasing: out == a */
    FT_(mul)(&z, &z, &y);
    ft_assert_eq_mpz(&z, e, "mul aliased");

    mpz_mul(e, a, a);
    mpz_mod(e, e, ft_m);
    FT_(sqr)(&z, &x);
    ft_assert_eq_mpz(&z, e, "sqr");
    FT_(sqr_portable)(&z2, &x);
    ft_assert_eq_mpz(&z2, e, "sqr_portable");

    /* Encodings: ours against GMP's bytes, both directions. */
    uint8_t be[FT_BYTES], le[FT_BYTES], ebe[FT_BYTES], ele[FT_BYTES];
    FT_(to_be)(be, &x);
    FT_(to_le)(le, &x);
    gmpo_to_be_bytes(ebe, FT_BYTES, a);
    gmpo_to_le_bytes(ele, FT_BYTES, a);
    assert_memory_equal(be, ebe, FT_BYTES);
    assert_memory_equal(le, ele, FT_BYTES);
    assert_int_equal(FT_(from_be)(&z, ebe), CUZK_OK);
    assert_true(FT_(eq)(&z, &x));
    uint64_t raw[FT_LIMBS];
    FT_(to_raw)(raw, &x);
    ft_check_limbs(raw, a, "to_raw");
    FT_(from_raw)(&z, raw);
    assert_true(FT_(eq)(&z, &x));
    assert_int_equal(FT_(is_zero)(&x), mpz_sgn(a) == 0);
    assert_int_equal(FT_(is_one)(&x), mpz_cmp_ui(a, 1) == 0);
    assert_int_equal(FT_(eq)(&x, &y), mpz_cmp(a, b) == 0);
  }
  mpz_clears(a, b, e, NULL);
}

/* Both multiplication paths: run the arithmetic test again with the portable path forced. */
static void test_arith_portable(void **state) {
  bool had_adx = cuzk_ff_uses_adx();
  cuzk_ff_force_portable(true);
  assert_false(cuzk_ff_uses_adx());
  test_arith(state);
  cuzk_ff_force_portable(false);
  assert_int_equal(cuzk_ff_uses_adx(), had_adx);
  if (!had_adx) fprintf(stderr, "note: CPU without BMI2/ADX, only the portable path ran\n");
}

static void test_inv(void **state) {
  (void)state;
  mpz_t a, e;
  mpz_inits(a, e, NULL);
  for (size_t i = 0; i < ft_nedge + FT_N_EXP; i++) {
    ft_input(a, i);
    FT_T x, z;
    ft_from_mpz(&x, a);
    if (mpz_sgn(a) == 0)
      mpz_set_ui(e, 0);
    else
      assert_true(mpz_invert(e, a, ft_m));
    FT_(inv)(&z, &x);
    ft_assert_eq_mpz(&z, e, "inv");
    FT_(inv_vartime)(&z, &x);
    ft_assert_eq_mpz(&z, e, "inv_vartime");
    z = x;
    FT_(inv)(&z, &z);
    ft_assert_eq_mpz(&z, e, "inv aliased");
  }
  mpz_clears(a, e, NULL);
}

static void test_batch_inv(void **state) {
  (void)state;
  enum { n = 257 };
  FT_T v[n], orig[n], scratch[n];
  mpz_t a, e;
  mpz_inits(a, e, NULL);
  for (size_t i = 0; i < n; i++) {
    if (i % 17 == 3)
      mpz_set_ui(a, 0);
    else
      gmpo_random_mod(a, &ft_rng, ft_m);
    ft_from_mpz(&v[i], a);
    orig[i] = v[i];
  }
  FT_(batch_inv)(v, n, scratch);
  for (size_t i = 0; i < n; i++) {
    ft_to_mpz(a, &orig[i]);
    if (mpz_sgn(a) == 0)
      mpz_set_ui(e, 0);
    else
      mpz_invert(e, a, ft_m);
    ft_assert_eq_mpz(&v[i], e, "batch_inv");
  }
  FT_(batch_inv)(v, 0, scratch);
  mpz_clears(a, e, NULL);
}

static void test_pow(void **state) {
  (void)state;
  mpz_t a, k, e;
  mpz_inits(a, k, e, NULL);
  for (size_t i = 0; i < ft_nedge + FT_N_EXP; i++) {
    ft_input(a, i);
    uint64_t ex[FT_LIMBS + 2];
    size_t n = cuzk_test_rng_next(&ft_rng) % (FT_LIMBS + 3);
    cuzk_test_rng_bytes(&ft_rng, ex, sizeof ex);
    if (n > 0 && (i & 7) == 0) ex[n - 1] &= 0xff; /* short top limbs */
    if ((i & 31) == 1) memset(ex, 0, sizeof ex);  /* exponent 0 */
    mpz_set_ui(k, 0);
    if (n > 0) gmpo_from_limbs(k, ex, n);
    mpz_powm(e, a, k, ft_m);
    FT_T x, z;
    ft_from_mpz(&x, a);
    FT_(pow)(&z, &x, n ? ex : NULL, n);
    ft_assert_eq_mpz(&z, e, "pow");
  }
  mpz_clears(a, k, e, NULL);
}

static void test_sqrt_legendre(void **state) {
  (void)state;
  mpz_t a, e;
  mpz_inits(a, e, NULL);
  size_t squares = 0;
  for (size_t i = 0; i < ft_nedge + FT_N_EXP; i++) {
    ft_input(a, i);
    if (i & 1) { /* make half the inputs squares */
      mpz_mul(a, a, a);
      mpz_mod(a, a, ft_m);
    }
    FT_T x, s;
    ft_from_mpz(&x, a);
    int leg = mpz_legendre(a, ft_m);
    assert_int_equal(FT_(legendre)(&x), leg);
    bool ok = FT_(sqrt)(&s, &x);
    assert_int_equal(ok, leg >= 0);
    if (ok) {
      squares++;
      ft_to_mpz(e, &s);
      mpz_mul(e, e, e);
      mpz_mod(e, e, ft_m);
      assert_int_equal(mpz_cmp(e, a), 0);
    }
  }
  assert_true(squares > FT_N_EXP / 2);
  mpz_clears(a, e, NULL);
}

static void test_noncanonical(void **state) {
  (void)state;
  mpz_t v[8];
  int n = 0;
  for (int i = 0; i < 8; i++) mpz_init(v[i]);
  mpz_set(v[n++], ft_m);         /* m */
  mpz_add_ui(v[n++], ft_m, 1);   /* m + 1 */
  mpz_setbit(v[n], FT_BITS);     /* 2^bits - 1 */
  mpz_sub_ui(v[n], v[n], 1);
  n++;
  mpz_setbit(v[n], 8 * FT_BYTES); /* all ones */
  mpz_sub_ui(v[n], v[n], 1);
  n++;
  mpz_mul_2exp(v[n++], ft_m, 1); /* 2m */
  for (int i = 0; i < 200; i++) {
    mpz_t x;
    mpz_init(x);
    gmpo_random_bits(x, &ft_rng, 8 * FT_BYTES);
    if (mpz_cmp(x, ft_m) >= 0) {
      uint8_t be[FT_BYTES], le[FT_BYTES];
      FT_T z;
      gmpo_to_be_bytes(be, FT_BYTES, x);
      gmpo_to_le_bytes(le, FT_BYTES, x);
      assert_int_equal(FT_(from_be)(&z, be), CUZK_ERR_NON_CANONICAL);
      assert_int_equal(FT_(from_le)(&z, le), CUZK_ERR_NON_CANONICAL);
    }
    mpz_clear(x);
  }
  for (int i = 0; i < n; i++) {
    uint8_t be[FT_BYTES], le[FT_BYTES];
    FT_T z;
    gmpo_to_be_bytes(be, FT_BYTES, v[i]);
    gmpo_to_le_bytes(le, FT_BYTES, v[i]);
    assert_int_equal(FT_(from_be)(&z, be), CUZK_ERR_NON_CANONICAL);
    assert_int_equal(FT_(from_le)(&z, le), CUZK_ERR_NON_CANONICAL);
  }
  /* m - 1 is accepted */
  mpz_sub_ui(v[0], ft_m, 1);
  FT_T z;
  ft_from_mpz(&z, v[0]);
  uint8_t be[FT_BYTES];
  gmpo_to_be_bytes(be, FT_BYTES, v[0]);
  assert_int_equal(FT_(from_be)(&z, be), CUZK_OK);
  for (int i = 0; i < 8; i++) mpz_clear(v[i]);
}

static void test_random_elements(void **state) {
  (void)state;
  FT_T prev = FT_(ZERO);
  mpz_t x;
  mpz_init(x);
  int top_set = 0;
  for (int i = 0; i < 1000; i++) {
    FT_T z;
    assert_int_equal(FT_(random)(&z), CUZK_OK);
    ft_to_mpz(x, &z);
    assert_true(mpz_cmp(x, ft_m) < 0);
    assert_false(FT_(eq)(&z, &prev));
    if (mpz_tstbit(x, FT_BITS - 2)) top_set++;
    prev = z;
    /* The stored limbs are canonical Montgomery values too. */
    gmpo_from_limbs(x, z.l, FT_LIMBS);
    assert_true(mpz_cmp(x, ft_m) < 0);
  }
  assert_true(top_set > 150); /* bit bits-2 is set for a constant fraction of uniform values */
  mpz_clear(x);
}

static void test_from_u64(void **state) {
  (void)state;
  mpz_t e;
  mpz_init(e);
  for (int i = 0; i < 1000; i++) {
    uint64_t v = i < 3 ? (uint64_t)i : cuzk_test_rng_next(&ft_rng);
    if (i == 3) v = UINT64_MAX;
    FT_T z;
    FT_(from_u64)(&z, v);
    mpz_set_ui(e, 0);
    gmpo_from_limbs(e, &v, 1);
    ft_assert_eq_mpz(&z, e, "from_u64");
  }
  mpz_clear(e);
}

#define FT_COMMON_TESTS                                                                            \
  cmocka_unit_test(test_arith), cmocka_unit_test(test_arith_portable), cmocka_unit_test(test_inv), \
      cmocka_unit_test(test_batch_inv), cmocka_unit_test(test_pow),                                \
      cmocka_unit_test(test_sqrt_legendre), cmocka_unit_test(test_noncanonical),                   \
      cmocka_unit_test(test_random_elements), cmocka_unit_test(test_from_u64)

#endif
