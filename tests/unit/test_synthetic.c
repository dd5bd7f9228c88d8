/* The synthetic circuit (core/circuits/synthetic.c): satisfiable for several seeds and sizes,
 * profile within tolerance, deterministic, identical shape in every builder mode; and the
 * end-to-end QAP check: SpMV → H, then A(x)B(x) - C(x) = h(x)(x^n - 1) at a random x with
 * A, B, C interpolated independently by Horner from inverse NTTs. */
#include "tests/support/testlib.h"

#include <stdlib.h>
#include <string.h>

#include "core/circuits/synthetic.h"
#include "core/poly/ntt.h"
#include "core/r1cs/cs.h"
#include "core/r1cs/r1cs.h"

static cuzk_cs_t *build(unsigned mode, unsigned log_n, uint32_t pub, uint64_t seed) {
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(mode, err, sizeof err);
  assert_non_null(cs);
  cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(log_n, pub), pub, seed};
  cuzk_err_t e = cuzk_synthetic_build(cs, &p, err, sizeof err);
  if (e != CUZK_OK) fail_msg("synthetic: %s", err);
  return cs;
}

static void test_satisfied_and_profile(void **state) {
  (void)state;
  uint64_t seeds[] = {1, 2, cuzk_test_seed()};
  unsigned logs[] = {10, 12, 14};
  uint32_t pubs[] = {4, 1, 22};
  for (size_t si = 0; si < 3; si++)
    for (size_t li = 0; li < 3; li++) {
      unsigned k = logs[li];
      uint32_t pub = pubs[(si + li) % 3];
      cuzk_cs_t *cs = build(CUZK_CS_RECORD | CUZK_CS_WITNESS, k, pub, seeds[si]);
      char err[256];
      uint64_t bad = 0;
      if (cuzk_cs_check(cs, &bad, err, sizeof err) != CUZK_OK) fail_msg("%s", err);
      cuzk_r1cs_t *r;
      assert_int_equal(cuzk_cs_finish(cs, &r, err, sizeof err), CUZK_OK);
      uint64_t m = cuzk_r1cs_num_constraints(r), ni = cuzk_r1cs_num_inputs(r),
               na = cuzk_r1cs_num_aux(r);
      assert_int_equal(ni, pub + 1);
      assert_int_equal(m + ni, 1ULL << k);
      assert_int_equal(cuzk_r1cs_domain_size(r), 1ULL << k);
      assert_int_equal(na, m); /* one aux per constraint */
      uint64_t nin, nax;
      const cuzk_fr_t *in = cuzk_cs_inputs(cs, &nin), *aux = cuzk_cs_aux(cs, &nax);
      assert_int_equal(cuzk_r1cs_check(r, in, nin, aux, nax, NULL, err, sizeof err), CUZK_OK);

      uint64_t da, dbi, dba, bits = 0, arows = 0, brows = 0;
      cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_A_AUX, &da);
      const uint64_t *bin = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_INPUT, &dbi);
      cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_AUX, &dba);
      for (uint64_t j = 0; j < na; j++) bits += cuzk_fr_is_zero(&aux[j]) || cuzk_fr_is_one(&aux[j]);
      const cuzk_r1cs_matrix_t *A = cuzk_r1cs_matrix(r, CUZK_R1CS_A),
                               *B = cuzk_r1cs_matrix(r, CUZK_R1CS_B);
      for (uint64_t row = 0; row < m; row++) {
        arows += A->row_ptr[row + 1] > A->row_ptr[row];
        brows += B->row_ptr[row + 1] > B->row_ptr[row];
      }
      double fa = (double)da / (double)na, fb = (double)dba / (double)na,
             fbit = (double)bits / (double)na;
      print_message("2^%u seed %llu: A %.3f B %.3f bits %.3f rows-with-A %.4f\n", k,
                    (unsigned long long)seeds[si], fa, fb, fbit, (double)arows / (double)m);
      assert_true(fa >= 0.96 && fa <= 1.0);
      assert_true(fb >= 0.21 && fb <= 0.29);
      assert_true(fbit >= 0.75 && fbit <= 0.92);
      assert_int_equal(arows, m);
      assert_int_equal(brows, m);
      assert_true(dbi >= 1 && cuzk_bitmap_get(bin, 0));
      uint64_t nc;
      cuzk_r1cs_coeffs(r, &nc);
      assert_true(nc <= 2 + 8); /* ±1 and 2^1..2^7 */
      cuzk_r1cs_free(r);
      cuzk_cs_free(cs);
    }
}

static void test_modes_and_determinism(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed() ^ 7;
  cuzk_cs_t *rec = build(CUZK_CS_RECORD, 11, 5, seed);
  cuzk_cs_t *both = build(CUZK_CS_RECORD | CUZK_CS_WITNESS, 11, 5, seed);
  cuzk_cs_t *wit = build(CUZK_CS_WITNESS, 11, 5, seed);
  cuzk_cs_t *cnt = build(CUZK_CS_COUNT, 11, 5, seed);
  cuzk_cs_t *wit2 = build(CUZK_CS_WITNESS, 11, 5, seed);
  cuzk_cs_t *other = build(CUZK_CS_RECORD, 11, 5, seed + 1);
  cuzk_cs_t *all[] = {rec, both, wit, cnt};
  for (int i = 1; i < 4; i++) {
    assert_int_equal(cuzk_cs_num_constraints(all[i]), cuzk_cs_num_constraints(rec));
    assert_int_equal(cuzk_cs_num_inputs(all[i]), cuzk_cs_num_inputs(rec));
    assert_int_equal(cuzk_cs_num_aux(all[i]), cuzk_cs_num_aux(rec));
  }
  uint64_t n1, n2;
  const cuzk_fr_t *a1 = cuzk_cs_aux(wit, &n1), *a2 = cuzk_cs_aux(both, &n2);
  assert_int_equal(n1, n2);
  assert_memory_equal(a1, a2, n1 * sizeof(cuzk_fr_t));
  a2 = cuzk_cs_aux(wit2, &n2);
  assert_memory_equal(a1, a2, n1 * sizeof(cuzk_fr_t));
  cuzk_r1cs_t *r1, *r2, *r3;
  assert_int_equal(cuzk_cs_finish(rec, &r1, NULL, 0), CUZK_OK);
  assert_int_equal(cuzk_cs_finish(both, &r2, NULL, 0), CUZK_OK);
  assert_int_equal(cuzk_cs_finish(other, &r3, NULL, 0), CUZK_OK);
  uint64_t m = cuzk_r1cs_num_constraints(r1);
  bool differs = false;
  for (int k = 0; k < 3; k++) {
    const cuzk_r1cs_matrix_t *x = cuzk_r1cs_matrix(r1, (cuzk_r1cs_which_t)k),
                             *y = cuzk_r1cs_matrix(r2, (cuzk_r1cs_which_t)k),
                             *z = cuzk_r1cs_matrix(r3, (cuzk_r1cs_which_t)k);
    assert_int_equal(x->nnz, y->nnz);
    assert_memory_equal(x->row_ptr, y->row_ptr, (m + 1) * 8);
    assert_memory_equal(x->entries, y->entries, x->nnz * 8);
    differs |= x->nnz != z->nnz || memcmp(x->entries, z->entries, x->nnz * 8) != 0;
  }
  assert_true(differs);
  cuzk_r1cs_free(r1);
  cuzk_r1cs_free(r2);
  cuzk_r1cs_free(r3);
  for (int i = 0; i < 4; i++) cuzk_cs_free(all[i]);
  cuzk_cs_free(wit2);
  cuzk_cs_free(other);

  char err[128];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD, NULL, 0);
  cuzk_synthetic_params_t p = {3, 3, 1};
  assert_int_equal(cuzk_synthetic_build(cs, &p, err, sizeof err), CUZK_ERR_INVALID_ARG);
  cuzk_cs_free(cs);
}

static void rand_fr(cuzk_test_rng_t *g, cuzk_fr_t *x) {
  uint8_t b[64];
  cuzk_test_rng_bytes(g, b, sizeof b);
  cuzk_fr_from_le_wide(x, b);
}

static void horner(cuzk_fr_t *out, const cuzk_fr_t *p, uint64_t n, const cuzk_fr_t *x) {
  cuzk_fr_t acc = CUZK_FR_ZERO;
  for (uint64_t i = n; i-- > 0;) {
    cuzk_fr_mul(&acc, &acc, x);
    cuzk_fr_add(&acc, &acc, &p[i]);
  }
  *out = acc;
}

static void test_qap_h(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed() ^ 9);
  unsigned logs[] = {10, 13};
  for (size_t li = 0; li < 2; li++) {
    /* shape from a record-only builder, values from a witness-only one, same seed */
    uint64_t seed = cuzk_test_rng_next(&g);
    cuzk_cs_t *wcs = build(CUZK_CS_WITNESS, logs[li], 3, seed);
    cuzk_cs_t *rcs = cuzk_cs_new(CUZK_CS_RECORD, NULL, 0);
    cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(logs[li], 3), 3, seed};
    assert_int_equal(cuzk_synthetic_build(rcs, &p, NULL, 0), CUZK_OK);
    cuzk_r1cs_t *r;
    assert_int_equal(cuzk_cs_finish(rcs, &r, NULL, 0), CUZK_OK);
    uint64_t n = cuzk_r1cs_domain_size(r), ni, na;
    const cuzk_fr_t *in = cuzk_cs_inputs(wcs, &ni), *aux = cuzk_cs_aux(wcs, &na);
    cuzk_fr_t *v = malloc(6 * n * sizeof(cuzk_fr_t));
    cuzk_fr_t *a = v, *b = v + n, *c = v + 2 * n, *pa = v + 3 * n, *pb = v + 4 * n, *pc = v + 5 * n;
    assert_int_equal(cuzk_r1cs_spmv(r, in, ni, aux, na, a, b, c, n), CUZK_OK);
    cuzk_domain_t *d;
    assert_int_equal(cuzk_domain_new(&d, n, NULL, 0), CUZK_OK);
    memcpy(pa, a, 3 * n * sizeof(cuzk_fr_t));
    cuzk_ntt_inverse(d, pa);
    cuzk_ntt_inverse(d, pb);
    cuzk_ntt_inverse(d, pc);
    assert_int_equal(cuzk_poly_groth16_h(d, a, b, c), CUZK_OK);
    assert_true(cuzk_fr_is_zero(&a[n - 1]));
    for (int t = 0; t < 2; t++) {
      cuzk_fr_t x, va, vb, vc, vh, z = CUZK_FR_ONE;
      rand_fr(&g, &x);
      horner(&va, pa, n, &x);
      horner(&vb, pb, n, &x);
      horner(&vc, pc, n, &x);
      horner(&vh, a, n, &x);
      for (uint64_t i = 0; i < n; i++) cuzk_fr_mul(&z, &z, &x);
      cuzk_fr_sub(&z, &z, &CUZK_FR_ONE);
      cuzk_fr_mul(&va, &va, &vb);
      cuzk_fr_sub(&va, &va, &vc);
      cuzk_fr_mul(&vh, &vh, &z);
      assert_true(cuzk_fr_eq(&va, &vh));
    }
    /* a wrong witness value breaks divisibility. +2, not +1: flipping an unused free bit
     * (z·z = z) from 0 to 1 would still satisfy the system; z + 2 breaks the variable's own
     * defining constraint whatever its kind. */
    cuzk_fr_t *bad = malloc(na * sizeof(cuzk_fr_t)), two;
    memcpy(bad, aux, na * sizeof(cuzk_fr_t));
    cuzk_fr_from_u64(&two, 2);
    cuzk_fr_add(&bad[na / 2], &bad[na / 2], &two);
    uint64_t row;
    assert_int_equal(cuzk_r1cs_check(r, in, ni, bad, na, &row, NULL, 0), CUZK_ERR_UNSATISFIED);
    assert_int_equal(cuzk_r1cs_spmv(r, in, ni, bad, na, a, b, c, n), CUZK_OK);
    assert_int_equal(cuzk_poly_groth16_h(d, a, b, c), CUZK_ERR_UNSATISFIED);
    free(bad);
    free(v);
    cuzk_domain_free(d);
    cuzk_r1cs_free(r);
    cuzk_cs_free(rcs);
    cuzk_cs_free(wcs);
  }
}

/* The witness evaluated from the recorded matrices equals, element for element, the builder's
 * witness-mode values (the straightforward path), for several sizes, seeds and input counts; the
 * builder's values are themselves checked against the matrices by cuzk_r1cs_check. Matrices of
 * another size, or not of this family, are refused. */
static void test_witness_from_matrices(void **state) {
  (void)state;
  char err[256];
  uint64_t seed = cuzk_test_seed();
  struct {
    unsigned log_n;
    uint32_t pub;
    uint64_t seed;
  } cases[] = {{6, 1, 3}, {10, 4, seed}, {13, 0, seed ^ 1}, {14, 37, seed ^ 2}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(cases[t].log_n, cases[t].pub),
                                 cases[t].pub, cases[t].seed};
    cuzk_cs_t *rcs = build(CUZK_CS_RECORD, cases[t].log_n, cases[t].pub, cases[t].seed);
    cuzk_cs_t *wcs = build(CUZK_CS_WITNESS, cases[t].log_n, cases[t].pub, cases[t].seed);
    cuzk_r1cs_t *r;
    assert_int_equal(cuzk_cs_finish(rcs, &r, err, sizeof err), CUZK_OK);
    uint64_t ni, na;
    const cuzk_fr_t *win = cuzk_cs_inputs(wcs, &ni), *waux = cuzk_cs_aux(wcs, &na);
    assert_int_equal(ni, p.num_public + 1);
    assert_int_equal(na, p.num_constraints);
    assert_int_equal(cuzk_r1cs_check(r, win, ni, waux, na, NULL, err, sizeof err), CUZK_OK);
    cuzk_fr_t *in = malloc(ni * sizeof *in), *aux = malloc(na * sizeof *aux);
    memset(in, 0x5a, ni * sizeof *in);
    memset(aux, 0x5a, na * sizeof *aux);
    assert_int_equal(cuzk_synthetic_witness_r1cs(r, &p, in, aux, err, sizeof err), CUZK_OK);
    assert_memory_equal(in, win, ni * sizeof *in);
    for (uint64_t j = 0; j < na; j++)
      if (!cuzk_fr_eq(&aux[j], &waux[j])) fail_msg("case %zu: aux %llu differs", t, (unsigned long long)j);
    /* a different size is refused */
    cuzk_synthetic_params_t q = p;
    q.num_public++;
    assert_int_equal(cuzk_synthetic_witness_r1cs(r, &q, in, aux, err, sizeof err), CUZK_ERR_INVALID_ARG);
    free(in), free(aux);
    cuzk_r1cs_free(r);
    cuzk_cs_free(rcs);
    cuzk_cs_free(wcs);
  }
  /* the right sizes but another family's rows (C = 2·z): refused */
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD, err, sizeof err);
  cuzk_var_t in1 = cuzk_cs_alloc_input(cs, NULL);
  cuzk_lc_t a, b, c;
  cuzk_lc_init(&a), cuzk_lc_init(&b), cuzk_lc_init(&c);
  for (int row = 0; row < 3; row++) {
    cuzk_var_t z = cuzk_cs_alloc_aux(cs, NULL);
    cuzk_lc_clear(&a), cuzk_lc_clear(&b), cuzk_lc_clear(&c);
    cuzk_lc_add(&a, in1);
    cuzk_lc_add(&b, CUZK_VAR_ONE);
    cuzk_lc_add_i64(&c, row == 2 ? 2 : 1, z);
    cuzk_cs_enforce(cs, &a, &b, &c);
  }
  cuzk_lc_free(&a), cuzk_lc_free(&b), cuzk_lc_free(&c);
  cuzk_r1cs_t *r;
  assert_int_equal(cuzk_cs_finish(cs, &r, err, sizeof err), CUZK_OK);
  cuzk_synthetic_params_t p = {3, 1, 9};
  cuzk_fr_t in[2], aux[3];
  assert_int_equal(cuzk_synthetic_witness_r1cs(r, &p, in, aux, err, sizeof err), CUZK_ERR_INVALID_ARG);
  cuzk_r1cs_free(r);
  cuzk_cs_free(cs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_satisfied_and_profile),
      cmocka_unit_test(test_modes_and_determinism),
      cmocka_unit_test(test_qap_h),
      cmocka_unit_test(test_witness_from_matrices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
