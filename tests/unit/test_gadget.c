/* Gadgets (core/gadgets): constraint counts equal to rust-fil-proofs / neptune / bellperson
 * (Poseidon 311/377/505/598 per neptune's circuit test, insert 2/8/22, to_bits_le 256), and in
 * RECORD|WITNESS mode every constraint satisfied with outputs equal to independent native
 * computations (cuzk_poseidon_hash, which the published vectors of DESIGN §5 pin; plain
 * array insertion; integer bits). A wrong claimed output must make the check fail. */
#include "tests/support/testlib.h"

#include <string.h>

#include "core/gadgets/gadgets.h"
#include "core/hash/poseidon.h"

static cuzk_cs_t *new_cs(unsigned mode) {
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(mode, err, sizeof err);
  assert_non_null(cs);
  return cs;
}

static void check_ok(cuzk_cs_t *cs) {
  char err[256];
  uint64_t bad = 0;
  assert_int_equal(cuzk_cs_error(cs, err, sizeof err), CUZK_OK);
  if (cuzk_cs_check(cs, &bad, err, sizeof err) != CUZK_OK) fail_msg("row %llu: %s",
                                                                   (unsigned long long)bad, err);
}

static void rand_fr(cuzk_test_rng_t *r, cuzk_fr_t *out) {
  uint8_t b[64];
  cuzk_test_rng_bytes(r, b, sizeof b);
  cuzk_fr_from_le_wide(out, b);
}

static void test_poseidon_counts(void **state) {
  (void)state;
  unsigned ar[] = {2, 4, 8, 11};
  uint64_t want[] = {311, 377, 505, 598};
  for (int k = 0; k < 4; k++) {
    cuzk_cs_t *cs = new_cs(CUZK_CS_COUNT);
    cuzk_num_t in[11];
    for (unsigned i = 0; i < ar[k]; i++) in[i] = cuzk_num_alloc(cs, NULL);
    uint64_t m0 = cuzk_cs_num_constraints(cs);
    cuzk_poseidon_gadget(cs, ar[k], in);
    assert_int_equal(cuzk_cs_num_constraints(cs) - m0, want[k]);
    cuzk_cs_free(cs);
  }
}

static void test_poseidon_witness(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  unsigned ar[] = {2, 4, 8, 11};
  uint64_t want[] = {311, 377, 505, 598};
  for (int k = 0; k < 4; k++)
    for (int rep = 0; rep < 2; rep++) {
      cuzk_cs_t *cs = new_cs(CUZK_CS_RECORD | CUZK_CS_WITNESS);
      cuzk_fr_t x[11], h;
      cuzk_num_t in[11];
      for (unsigned i = 0; i < ar[k]; i++) {
        if (rep == 0)
          cuzk_fr_from_u64(&x[i], i); /* the DESIGN §5 vector input [0, 1, ..] */
        else
          rand_fr(&r, &x[i]);
        in[i] = cuzk_num_alloc(cs, &x[i]);
      }
      cuzk_num_t out = cuzk_poseidon_gadget(cs, ar[k], in);
      assert_int_equal(cuzk_cs_num_constraints(cs), want[k]);
      cuzk_poseidon_hash(&h, ar[k], x);
      assert_true(cuzk_fr_eq(&out.val, &h));
      cuzk_fr_t got;
      assert_true(cuzk_cs_value(cs, out.var, &got));
      assert_true(cuzk_fr_eq(&got, &h));
      check_ok(cs);
      /* a wrong claimed hash is caught */
      cuzk_fr_t one, bad;
      cuzk_fr_from_u64(&one, 1);
      cuzk_fr_add(&bad, &h, &one);
      cuzk_num_t claim = cuzk_num_alloc(cs, &bad);
      cuzk_num_equal(cs, &out, &claim);
      char err[256];
      uint64_t row = 0;
      assert_int_equal(cuzk_cs_check(cs, &row, err, sizeof err), CUZK_ERR_UNSATISFIED);
      assert_int_equal(row, want[k]);
      cuzk_cs_free(cs);
    }
}

static void test_insert(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  unsigned ar[] = {2, 4, 8};
  uint64_t want[] = {2, 8, 22};
  for (int k = 0; k < 3; k++) {
    unsigned n = ar[k], lg = n == 2 ? 1 : n == 4 ? 2 : 3;
    for (unsigned pos = 0; pos < n; pos++) {
      cuzk_cs_t *cs = new_cs(CUZK_CS_RECORD | CUZK_CS_WITNESS);
      cuzk_fr_t a, e[7];
      rand_fr(&r, &a);
      cuzk_num_t na = cuzk_num_alloc(cs, &a), ne[7], out[8];
      for (unsigned i = 0; i + 1 < n; i++) {
        rand_fr(&r, &e[i]);
        ne[i] = cuzk_num_alloc(cs, &e[i]);
      }
      cuzk_bit_t bits[3];
      for (unsigned i = 0; i < lg; i++) bits[i] = cuzk_bit_alloc(cs, (pos >> i) & 1);
      uint64_t m0 = cuzk_cs_num_constraints(cs);
      cuzk_insert(cs, out, n, &na, bits, ne);
      assert_int_equal(cuzk_cs_num_constraints(cs) - m0, want[k]);
      for (unsigned i = 0, j = 0; i < n; i++) {
        const cuzk_fr_t *w = i == pos ? &a : &e[j++];
        cuzk_fr_t got;
        assert_true(cuzk_cs_value(cs, out[i].var, &got));
        assert_true(cuzk_fr_eq(&got, w));
      }
      check_ok(cs);
      cuzk_cs_free(cs);
    }
  }
}

static void test_bits(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  cuzk_cs_t *cs = new_cs(CUZK_CS_RECORD | CUZK_CS_WITNESS);
  cuzk_fr_t x;
  rand_fr(&r, &x);
  cuzk_num_t nx = cuzk_num_alloc(cs, &x);
  cuzk_bit_t bits[CUZK_FR_NUM_BITS];
  cuzk_num_to_bits_le(cs, bits, &nx);
  assert_int_equal(cuzk_cs_num_constraints(cs), 256);
  uint64_t raw[4];
  cuzk_fr_to_raw(raw, &x);
  for (unsigned i = 0; i < CUZK_FR_NUM_BITS; i++)
    assert_int_equal(bits[i].val, (raw[i / 64] >> (i % 64)) & 1);
  /* and / nor truth tables, packing into an input */
  for (unsigned v = 0; v < 4; v++) {
    cuzk_bit_t a = cuzk_bit_alloc(cs, v & 1), b = cuzk_bit_alloc(cs, v >> 1);
    cuzk_bit_t an = cuzk_bit_and(cs, &a, &b), no = cuzk_bit_nor(cs, &a, &b);
    assert_int_equal(an.val, v == 3);
    assert_int_equal(no.val, v == 0);
  }
  cuzk_var_t in = cuzk_pack_into_input(cs, bits, 30);
  cuzk_fr_t got, want;
  assert_true(cuzk_cs_value(cs, in, &got));
  cuzk_fr_from_u64(&want, raw[0] & ((1u << 30) - 1));
  assert_true(cuzk_fr_eq(&got, &want));
  check_ok(cs);
  cuzk_cs_free(cs);

  /* the packing row binds the bits to x: claiming them for x + 1 fails at that row */
  cs = new_cs(CUZK_CS_RECORD | CUZK_CS_WITNESS);
  cuzk_fr_t one, x1;
  cuzk_fr_from_u64(&one, 1);
  cuzk_fr_add(&x1, &x, &one);
  cuzk_num_t nx1 = cuzk_num_alloc(cs, &x1);
  cuzk_num_t nx0 = cuzk_num_alloc(cs, &x);
  cuzk_bit_t b0[CUZK_FR_NUM_BITS];
  cuzk_num_to_bits_le(cs, b0, &nx0); /* values of x */
  cuzk_lc_t pa, pb, pc;
  cuzk_lc_init(&pa);
  cuzk_lc_init(&pb);
  cuzk_lc_init(&pc);
  {
    cuzk_fr_t co;
    cuzk_fr_from_u64(&co, 1);
    for (unsigned i = 0; i < CUZK_FR_NUM_BITS; i++) {
      cuzk_lc_add_fr(&pc, &co, b0[i].var);
      cuzk_fr_dbl(&co, &co);
    }
    cuzk_lc_sub(&pc, nx1.var);
  }
  cuzk_cs_enforce(cs, &pa, &pb, &pc);
  cuzk_lc_free(&pc);
  {
    char e2[256];
    uint64_t row2;
    assert_int_equal(cuzk_cs_check(cs, &row2, e2, sizeof e2), CUZK_ERR_UNSATISFIED);
    assert_int_equal(row2, 256);
  }
  cuzk_cs_free(cs);

  /* a non-boolean bit is caught */
  cs = new_cs(CUZK_CS_RECORD | CUZK_CS_WITNESS);
  cuzk_fr_t two;
  cuzk_fr_from_u64(&two, 2);
  cuzk_num_t t = cuzk_num_alloc(cs, &two);
  cuzk_bit_t fake = {t.var, true};
  cuzk_lc_t a, b, c;
  cuzk_lc_init(&a);
  cuzk_lc_init(&b);
  cuzk_lc_init(&c);
  cuzk_lc_add(&a, CUZK_VAR_ONE);
  cuzk_lc_sub(&a, fake.var);
  cuzk_lc_add(&b, fake.var);
  cuzk_cs_enforce(cs, &a, &b, &c);
  char err[256];
  uint64_t row;
  assert_int_equal(cuzk_cs_check(cs, &row, err, sizeof err), CUZK_ERR_UNSATISFIED);
  cuzk_cs_free(cs);
}

/* PoR for the tree shapes 8-0-0 (2 levels), 8-8-0 (base 2 + sub) and 8-8-2 (base 2 + sub + top
 * arity 2): the root computed natively (plain insertion + cuzk_poseidon_hash per level) satisfies
 * the gadget, the packed public input is the leaf index, a wrong root does not. */
static void test_por_shapes(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  unsigned shapes[3][4] = {{8, 8, 0, 0}, {8, 8, 8, 0}, {8, 8, 8, 2}};
  size_t nlev[3] = {2, 3, 4};
  for (int k = 0; k < 3; k++) {
    for (int bad = 0; bad < 2; bad++) {
      cuzk_cs_t *cs = new_cs(CUZK_CS_RECORD | CUZK_CS_WITNESS);
      cuzk_fr_t leaf, cur, sib[4 * 7], root;
      uint32_t idx[4];
      uint64_t leaf_index = 0, mult = 1;
      rand_fr(&r, &leaf);
      cur = leaf;
      size_t s = 0;
      for (size_t l = 0; l < nlev[k]; l++) {
        unsigned a = shapes[k][l];
        idx[l] = (uint32_t)(cuzk_test_rng_next(&r) % a);
        leaf_index += idx[l] * mult;
        mult *= a;
        cuzk_fr_t node[8];
        for (unsigned i = 0, j = 0; i < a; i++) {
          if (i == idx[l]) {
            node[i] = cur;
          } else {
            rand_fr(&r, &sib[s + j]);
            node[i] = sib[s + j];
            j++;
          }
        }
        s += a - 1;
        cuzk_poseidon_hash(&cur, a, node);
      }
      root = cur;
      if (bad) {
        cuzk_fr_t one;
        cuzk_fr_from_u64(&one, 1);
        cuzk_fr_add(&root, &root, &one);
      }
      cuzk_num_t nroot = cuzk_num_alloc(cs, &root);
      cuzk_por_gadget(cs, &leaf, shapes[k], nlev[k], idx, sib, &nroot);
      uint64_t ni;
      const cuzk_fr_t *in = cuzk_cs_inputs(cs, &ni);
      assert_int_equal(ni, 2);
      cuzk_fr_t want;
      cuzk_fr_from_u64(&want, leaf_index);
      assert_true(cuzk_fr_eq(&in[1], &want));
      uint64_t per = 2;
      for (size_t l = 0; l < nlev[k]; l++)
        per += shapes[k][l] == 8 ? 3 + 22 + 505 : 1 + 2 + 311;
      assert_int_equal(cuzk_cs_num_constraints(cs), per);
      if (!bad) {
        check_ok(cs);
      } else {
        char err[256];
        uint64_t row;
        assert_int_equal(cuzk_cs_check(cs, &row, err, sizeof err), CUZK_ERR_UNSATISFIED);
        assert_int_equal(row, per - 1); /* the root equality */
      }
      cuzk_cs_free(cs);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_poseidon_counts),
      cmocka_unit_test(test_poseidon_witness),
      cmocka_unit_test(test_insert),
      cmocka_unit_test(test_bits),
      cmocka_unit_test(test_por_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
