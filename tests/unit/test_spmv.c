/* SpMV over many row blocks (core/r1cs/r1cs.c): a random system of ~20k rows whose LCs mix ±1,
 * powers of two and random coefficients over inputs and aux with 0 / 1 / random values, so every
 * fast path and the general multiply run, in blocks spread over several threads. Oracle: GMP sums
 * of the recorded CSR entries times the witness, row by row, and guard elements past n. */
#include "tests/support/testlib.h"

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "core/r1cs/cs.h"
#include "core/r1cs/r1cs.h"
#include "core/util/pool.h"
#include "tests/support/gmp_oracle.h"

static void rand_fr(cuzk_test_rng_t *g, cuzk_fr_t *x) {
  uint8_t b[64];
  cuzk_test_rng_bytes(g, b, sizeof b);
  cuzk_fr_from_le_wide(x, b);
}

static void fr_to_mpz(mpz_t out, const cuzk_fr_t *x) {
  uint8_t b[32];
  cuzk_fr_to_le(b, x);
  gmpo_from_le_bytes(out, b, 32);
}

static void rand_value(cuzk_test_rng_t *g, cuzk_fr_t *v) {
  uint64_t u = cuzk_test_rng_next(g) % 4;
  if (u == 0)
    *v = CUZK_FR_ZERO;
  else if (u == 1)
    *v = CUZK_FR_ONE;
  else
    rand_fr(g, v);
}

static void rand_lc(cuzk_test_rng_t *g, cuzk_lc_t *lc, uint32_t ni, uint32_t na) {
  unsigned terms = (unsigned)(cuzk_test_rng_next(g) % 5);
  for (unsigned t = 0; t < terms; t++) {
    uint64_t pick = cuzk_test_rng_next(g);
    cuzk_var_t v = (pick & 7) == 0 ? cuzk_var_input((uint32_t)((pick >> 3) % ni))
                                   : cuzk_var_aux((uint32_t)((pick >> 3) % na));
    switch (cuzk_test_rng_next(g) % 4) {
      case 0:
        cuzk_lc_add(lc, v);
        break;
      case 1:
        cuzk_lc_sub(lc, v);
        break;
      case 2:
        cuzk_lc_add_i64(lc, (int64_t)1 << (cuzk_test_rng_next(g) % 40), v);
        break;
      default: {
        cuzk_fr_t c;
        rand_fr(g, &c);
        cuzk_lc_add_fr(lc, &c, v);
      }
    }
  }
}

static void check_system(const cuzk_r1cs_t *rs, const cuzk_fr_t *in, uint64_t nin,
                         const cuzk_fr_t *aux, uint64_t nax, uint64_t n) {
  const uint64_t guard = 64;
  uint64_t m = cuzk_r1cs_num_constraints(rs);
  cuzk_fr_t *out[3];
  cuzk_fr_t canary;
  memset(&canary, 0xab, sizeof canary);
  for (int k = 0; k < 3; k++) {
    out[k] = malloc((n + guard) * sizeof(cuzk_fr_t));
    assert_non_null(out[k]);
    for (uint64_t i = 0; i < n + guard; i++) out[k][i] = canary;
  }
  assert_int_equal(cuzk_r1cs_spmv(rs, in, nin, aux, nax, out[0], out[1], out[2], n), CUZK_OK);
  mpz_t r, acc, t, got;
  mpz_inits(r, acc, t, got, NULL);
  mpz_set_str(r, CUZK_ORACLE_R_HEX, 16);
  uint64_t ncf;
  const cuzk_fr_t *cf = cuzk_r1cs_coeffs(rs, &ncf);
  for (int k = 0; k < 3; k++) {
    const cuzk_r1cs_matrix_t *mat = cuzk_r1cs_matrix(rs, (cuzk_r1cs_which_t)k);
    for (uint64_t row = 0; row < m; row++) {
      mpz_set_ui(acc, 0);
      for (uint64_t x = mat->row_ptr[row]; x < mat->row_ptr[row + 1]; x++) {
        uint32_t col = mat->entries[x].col;
        mpz_t c;
        mpz_init(c);
        fr_to_mpz(c, &cf[mat->entries[x].coeff]);
        fr_to_mpz(t, col < nin ? &in[col] : &aux[col - nin]);
        mpz_addmul(acc, c, t);
        mpz_clear(c);
      }
      mpz_mod(acc, acc, r);
      fr_to_mpz(got, &out[k][row]);
      if (mpz_cmp(acc, got) != 0) fail_msg("matrix %d row %llu differs", k, (unsigned long long)row);
    }
    for (uint64_t row = m; row < n; row++) {
      uint64_t i = row - m;
      if (k == 0 && i < nin)
        assert_true(cuzk_fr_eq(&out[k][row], &in[i]));
      else
        assert_true(cuzk_fr_is_zero(&out[k][row]));
    }
    for (uint64_t i = n; i < n + guard; i++)
      assert_memory_equal(&out[k][i], &canary, sizeof canary);
    free(out[k]);
  }
  mpz_clears(r, acc, t, got, NULL);
}

static void test_spmv_blocks(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed());
  const uint32_t ni = 9, na = 3000, m = 20000;
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, NULL, 0);
  assert_non_null(cs);
  cuzk_fr_t v;
  for (uint32_t i = 1; i < ni; i++) {
    rand_value(&g, &v);
    cuzk_cs_alloc_input(cs, &v);
  }
  for (uint32_t j = 0; j < na; j++) {
    rand_value(&g, &v);
    cuzk_cs_alloc_aux(cs, &v);
  }
  cuzk_lc_t lc[3];
  for (int k = 0; k < 3; k++) cuzk_lc_init(&lc[k]);
  for (uint32_t row = 0; row < m; row++) {
    for (int k = 0; k < 3; k++) {
      cuzk_lc_clear(&lc[k]);
      rand_lc(&g, &lc[k], ni, na);
    }
    cuzk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
  }
  for (int k = 0; k < 3; k++) cuzk_lc_free(&lc[k]);
  char err[256];
  cuzk_r1cs_t *rs;
  assert_int_equal(cuzk_cs_finish(cs, &rs, err, sizeof err), CUZK_OK);
  uint64_t nin, nax;
  const cuzk_fr_t *in = cuzk_cs_inputs(cs, &nin), *aux = cuzk_cs_aux(cs, &nax);
  /* the exact QAP size (not a multiple of the block alignment), the domain, and a larger one */
  check_system(rs, in, nin, aux, nax, m + ni);
  check_system(rs, in, nin, aux, nax, cuzk_r1cs_domain_size(rs));
  check_system(rs, in, nin, aux, nax, 2 * cuzk_r1cs_domain_size(rs) + 5);
  /* a private pool and the calling thread alone give the same bytes as the global pool */
  uint64_t n = cuzk_r1cs_domain_size(rs);
  cuzk_pool_t *pool = cuzk_pool_new(3, err, sizeof err);
  assert_non_null(pool);
  cuzk_fr_t *ref[3], *got[3];
  for (int k = 0; k < 3; k++) {
    ref[k] = malloc(n * sizeof(cuzk_fr_t));
    got[k] = malloc(n * sizeof(cuzk_fr_t));
  }
  assert_int_equal(cuzk_r1cs_spmv(rs, in, nin, aux, nax, ref[0], ref[1], ref[2], n), CUZK_OK);
  cuzk_pool_t *pools[2] = {pool, NULL};
  for (int q = 0; q < 2; q++) {
    for (int k = 0; k < 3; k++) memset(got[k], 0xcd, n * sizeof(cuzk_fr_t));
    assert_int_equal(cuzk_r1cs_spmv_on(pools[q], rs, in, nin, aux, nax, got[0], got[1], got[2], n),
                     CUZK_OK);
    for (int k = 0; k < 3; k++) assert_memory_equal(got[k], ref[k], n * sizeof(cuzk_fr_t));
  }
  assert_int_equal(cuzk_r1cs_spmv_on(pool, rs, in, nin - 1, aux, nax, got[0], got[1], got[2], n),
                   CUZK_ERR_INVALID_ARG);
  for (int k = 0; k < 3; k++) free(ref[k]), free(got[k]);
  cuzk_pool_free(pool);
  cuzk_r1cs_free(rs);
  cuzk_cs_free(cs);
}

int main(void) {
  /* several pool threads even on a small machine, so the row blocks really run concurrently */
  setenv("CUZK_THREADS", "4", 0);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spmv_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
