/* PCE files (core/r1cs/pce.c): round trip, the digest recomputed here from the format
 * description with OpenSSL, and corrupted / truncated / re-hashed-but-invalid files, which must
 * give typed errors and never crash. */
#include "tests/support/testlib.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/r1cs/cs.h"
#include "core/r1cs/r1cs.h"

static char g_dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/cuzk-test-pce-XXXXXX");
  return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void rand_fr(cuzk_test_rng_t *g, cuzk_fr_t *x) {
  uint8_t b[64];
  cuzk_test_rng_bytes(g, b, sizeof b);
  cuzk_fr_from_le_wide(x, b);
}

/* A random system with a handful of distinct coefficients; also returns a witness. */
static cuzk_r1cs_t *random_system(cuzk_test_rng_t *g, uint32_t m, cuzk_cs_t **wcs) {
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, NULL, 0);
  const uint32_t ni = 4, na = m / 2 + 1;
  cuzk_fr_t v, coeffs[5];
  for (int i = 0; i < 5; i++) rand_fr(g, &coeffs[i]);
  for (uint32_t i = 1; i < ni; i++) rand_fr(g, &v), cuzk_cs_alloc_input(cs, &v);
  for (uint32_t j = 0; j < na; j++) {
    if (cuzk_test_rng_next(g) & 1)
      v = CUZK_FR_ONE;
    else
      rand_fr(g, &v);
    cuzk_cs_alloc_aux(cs, &v);
  }
  for (uint32_t row = 0; row < m; row++) {
    cuzk_lc_t lc[3];
    for (int k = 0; k < 3; k++) {
      cuzk_lc_init(&lc[k]);
      uint64_t n = cuzk_test_rng_next(g) % 5;
      for (uint64_t t = 0; t < n; t++) {
        uint64_t u = cuzk_test_rng_next(g);
        cuzk_var_t x = (u & 15) == 0 ? cuzk_var_input((uint32_t)((u >> 4) % ni))
                                     : cuzk_var_aux((uint32_t)((u >> 4) % na));
        if ((u >> 32) % 3 == 0)
          cuzk_lc_add_fr(&lc[k], &coeffs[(u >> 40) % 5], x);
        else if ((u >> 32) % 3 == 1)
          cuzk_lc_sub(&lc[k], x);
        else
          cuzk_lc_add(&lc[k], x);
      }
    }
    cuzk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
    for (int k = 0; k < 3; k++) cuzk_lc_free(&lc[k]);
  }
  cuzk_r1cs_t *r;
  assert_int_equal(cuzk_cs_finish(cs, &r, NULL, 0), CUZK_OK);
  *wcs = cs;
  return r;
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)n + 1);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void write_file(const char *path, const uint8_t *b, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, len, f), len);
  fclose(f);
}

static void sha256(uint8_t out[32], const void *p, size_t n) {
  unsigned int l = 32;
  assert_int_equal(EVP_Digest(p, n, out, &l, EVP_sha256(), NULL), 1);
}

/* The digest as the format comment in r1cs.h defines it (64 MiB body chunks). */
static void spec_digest(uint8_t out[32], const uint8_t *file, size_t len) {
  const size_t chunk = (size_t)64 << 20, body = len - 128;
  size_t nch = (body + chunk - 1) / chunk;
  uint8_t *buf = malloc(88 + 32 * nch);
  memcpy(buf, file, 88);
  for (size_t i = 0; i < nch; i++) {
    size_t lo = i * chunk, hi = lo + chunk < body ? lo + chunk : body;
    sha256(buf + 88 + 32 * i, file + 128 + lo, hi - lo);
  }
  sha256(out, buf, 88 + 32 * nch);
  free(buf);
}

static void rehash(uint8_t *file, size_t len) {
  spec_digest(file + 88, file, len);
}

static cuzk_err_t load_bytes(const uint8_t *b, size_t len, char *err, size_t errn) {
  char path[300];
  snprintf(path, sizeof path, "%s/t.pce", g_dir);
  write_file(path, b, len);
  cuzk_r1cs_t *r = NULL;
  cuzk_err_t e = cuzk_r1cs_load(&r, path, err, errn);
  if (e == CUZK_OK) {
    assert_non_null(r);
    /* a system that validated must be usable: run a full SpMV on it (fuzzed counts can
     * describe a legal but huge variable space; skip those) */
    uint64_t ni = cuzk_r1cs_num_inputs(r), na = cuzk_r1cs_num_aux(r), n = cuzk_r1cs_domain_size(r);
    if (ni + na > (1u << 20) || n > (1u << 20)) {
      cuzk_r1cs_free(r);
      return e;
    }
    cuzk_fr_t *w = calloc(ni + na, sizeof(cuzk_fr_t)), *o = calloc(3 * n, sizeof(cuzk_fr_t));
    assert_non_null(w);
    assert_non_null(o);
    w[0] = CUZK_FR_ONE;
    assert_int_equal(cuzk_r1cs_spmv(r, w, ni, w + ni, na, o, o + n, o + 2 * n, n), CUZK_OK);
    free(w);
    free(o);
    cuzk_r1cs_free(r);
  } else {
    assert_null(r);
  }
  return e;
}

static void test_round_trip(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed());
  cuzk_cs_t *cs;
  cuzk_r1cs_t *r = random_system(&g, 3000, &cs);
  char path[300], err[256];
  snprintf(path, sizeof path, "%s/rt.pce", g_dir);
  assert_int_equal(cuzk_r1cs_save(r, path, err, sizeof err), CUZK_OK);
  cuzk_r1cs_t *l;
  assert_int_equal(cuzk_r1cs_load(&l, path, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_r1cs_num_constraints(l), cuzk_r1cs_num_constraints(r));
  assert_int_equal(cuzk_r1cs_num_inputs(l), cuzk_r1cs_num_inputs(r));
  assert_int_equal(cuzk_r1cs_num_aux(l), cuzk_r1cs_num_aux(r));
  uint64_t m = cuzk_r1cs_num_constraints(r);
  for (int k = 0; k < 3; k++) {
    const cuzk_r1cs_matrix_t *a = cuzk_r1cs_matrix(r, (cuzk_r1cs_which_t)k),
                             *b = cuzk_r1cs_matrix(l, (cuzk_r1cs_which_t)k);
    assert_int_equal(a->nnz, b->nnz);
    assert_memory_equal(a->row_ptr, b->row_ptr, (m + 1) * 8);
    assert_memory_equal(a->entries, b->entries, a->nnz * 8);
    uint64_t pa, pb;
    const uint64_t *da = cuzk_r1cs_density(r, (cuzk_r1cs_density_t)k, &pa),
                   *db = cuzk_r1cs_density(l, (cuzk_r1cs_density_t)k, &pb);
    assert_int_equal(pa, pb);
    uint64_t bits = k == 1 ? cuzk_r1cs_num_inputs(r) : cuzk_r1cs_num_aux(r);
    for (uint64_t i = 0; i < bits; i++)
      assert_int_equal(cuzk_bitmap_get(da, i), cuzk_bitmap_get(db, i));
  }
  uint64_t nc, nl;
  const cuzk_fr_t *ca = cuzk_r1cs_coeffs(r, &nc), *cb = cuzk_r1cs_coeffs(l, &nl);
  assert_int_equal(nc, nl);
  assert_memory_equal(ca, cb, nc * sizeof(cuzk_fr_t));

  /* identical SpMV */
  uint64_t n = cuzk_r1cs_domain_size(r), ni, na;
  const cuzk_fr_t *in = cuzk_cs_inputs(cs, &ni), *aux = cuzk_cs_aux(cs, &na);
  cuzk_fr_t *o1 = malloc(3 * n * sizeof(cuzk_fr_t)), *o2 = malloc(3 * n * sizeof(cuzk_fr_t));
  assert_int_equal(cuzk_r1cs_spmv(r, in, ni, aux, na, o1, o1 + n, o1 + 2 * n, n), CUZK_OK);
  assert_int_equal(cuzk_r1cs_spmv(l, in, ni, aux, na, o2, o2 + n, o2 + 2 * n, n), CUZK_OK);
  assert_memory_equal(o1, o2, 3 * n * sizeof(cuzk_fr_t));
  free(o1);
  free(o2);

  /* the stored digest is the one the format defines; the header fields are as documented */
  size_t len;
  uint8_t *f = read_file(path, &len);
  uint8_t d[32];
  spec_digest(d, f, len);
  assert_memory_equal(d, f + 88, 32);
  assert_memory_equal(f, "CUZKPCE\0", 8);
  uint64_t v;
  memcpy(&v, f + 24, 8);
  assert_int_equal(v, m);
  memcpy(&v, f + 80, 8);
  assert_int_equal(v, len);
  /* no temporary left behind */
  char cmd[400];
  snprintf(cmd, sizeof cmd, "ls %s | grep -q tmp", g_dir);
  assert_int_not_equal(system(cmd), 0);
  free(f);
  cuzk_r1cs_free(l);
  cuzk_r1cs_free(r);
  cuzk_cs_free(cs);
}

static void test_corrupt(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed() ^ 1);
  cuzk_cs_t *cs;
  cuzk_r1cs_t *r = random_system(&g, 500, &cs);
  char path[300], err[256];
  snprintf(path, sizeof path, "%s/c.pce", g_dir);
  assert_int_equal(cuzk_r1cs_save(r, path, err, sizeof err), CUZK_OK);
  size_t len;
  uint8_t *orig = read_file(path, &len), *b = malloc(len + 8);
  uint64_t m = cuzk_r1cs_num_constraints(r), ni = cuzk_r1cs_num_inputs(r),
           na = cuzk_r1cs_num_aux(r), nc;
  cuzk_r1cs_coeffs(r, &nc);
  const size_t coeff_off = 128, rpA = coeff_off + nc * 32, entA = rpA + (m + 1) * 8;
  const uint64_t nnzA = cuzk_r1cs_matrix(r, CUZK_R1CS_A)->nnz;
  assert_true(nnzA > 4);

  assert_int_equal(load_bytes(orig, len, err, sizeof err), CUZK_OK);

  size_t cuts[] = {0, 7, 100, 127, 128, 129, len / 2, len - 8, len - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
    assert_int_equal(load_bytes(orig, cuts[i], err, sizeof err), CUZK_ERR_TRUNCATED);

  memcpy(b, orig, len);
  b[len] = 0;
  assert_int_equal(load_bytes(b, len + 1, err, sizeof err), CUZK_ERR_PARSE);

  memcpy(b, orig, len);
  b[3] ^= 1;
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);
  memcpy(b, orig, len);
  b[8] = 2;
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_VERSION);
  memcpy(b, orig, len);
  b[24] ^= 4; /* num_constraints: header no longer matches the size */
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);
  memcpy(b, orig, len);
  b[90] ^= 0x80; /* digest */
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_CHECKSUM);

  /* every single-byte flip of the body is caught by the digest */
  for (int it = 0; it < 64; it++) {
    memcpy(b, orig, len);
    size_t pos = 128 + cuzk_test_rng_next(&g) % (len - 128);
    b[pos] ^= (uint8_t)(1u << (cuzk_test_rng_next(&g) % 8));
    assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_CHECKSUM);
  }

  /* structurally invalid files with a correct digest */
  uint32_t bad32;
  memcpy(b, orig, len);
  bad32 = (uint32_t)(ni + na);
  memcpy(b + entA + 8 * (nnzA / 2), &bad32, 4);
  rehash(b, len);
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);
  assert_non_null(strstr(err, "column"));

  memcpy(b, orig, len);
  bad32 = (uint32_t)nc;
  memcpy(b + entA + 8 * (nnzA / 2) + 4, &bad32, 4);
  rehash(b, len);
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);
  assert_non_null(strstr(err, "coefficient"));

  memcpy(b, orig, len);
  memset(b + coeff_off + 2 * 32, 0xff, 32); /* coefficient 2 >= r */
  rehash(b, len);
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);

  memcpy(b, orig, len);
  memset(b + coeff_off + 32, 0, 32); /* coefficient 1 must be -1 */
  rehash(b, len);
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);

  memcpy(b, orig, len);
  uint64_t big = nnzA + 5; /* row pointer beyond the entries */
  memcpy(b + rpA + 8 * (m / 2), &big, 8);
  rehash(b, len);
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);

  memcpy(b, orig, len);
  uint64_t zero = 0;
  memcpy(b + rpA + 8 * m, &zero, 8); /* last row pointer != nnz */
  rehash(b, len);
  assert_int_equal(load_bytes(b, len, err, sizeof err), CUZK_ERR_PARSE);

  /* fuzz: random multi-byte damage then a valid digest: typed error or a usable system */
  for (int it = 0; it < 300; it++) {
    memcpy(b, orig, len);
    int flips = 1 + (int)(cuzk_test_rng_next(&g) % 4);
    for (int f = 0; f < flips; f++) {
      size_t pos = cuzk_test_rng_next(&g) % len;
      if (pos >= 88 && pos < 120) continue;
      b[pos] = (uint8_t)cuzk_test_rng_next(&g);
    }
    rehash(b, len);
    cuzk_err_t e = load_bytes(b, len, err, sizeof err);
    assert_true(e == CUZK_OK || e == CUZK_ERR_PARSE || e == CUZK_ERR_TRUNCATED ||
                e == CUZK_ERR_VERSION);
  }

  cuzk_r1cs_t *l = NULL;
  snprintf(path, sizeof path, "%s/missing.pce", g_dir);
  assert_int_equal(cuzk_r1cs_load(&l, path, err, sizeof err), CUZK_ERR_NOT_FOUND);
  snprintf(path, sizeof path, "%s/no/such/dir/x.pce", g_dir);
  assert_int_equal(cuzk_r1cs_save(r, path, err, sizeof err), CUZK_ERR_IO);
  free(orig);
  free(b);
  cuzk_r1cs_free(r);
  cuzk_cs_free(cs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_corrupt),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
