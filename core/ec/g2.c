#include "core/ec/g2.h"

static cuzk_err_t fp2_from_be(cuzk_fp2_t *out, const uint8_t in[2 * CUZK_FP_BYTES]) {
  if (cuzk_fp_from_be(&out->c1, in) != CUZK_OK) return CUZK_ERR_NON_CANONICAL;
  if (cuzk_fp_from_be(&out->c0, in + CUZK_FP_BYTES) != CUZK_OK) return CUZK_ERR_NON_CANONICAL;
  return CUZK_OK;
}

static void fp2_to_be(uint8_t out[2 * CUZK_FP_BYTES], const cuzk_fp2_t *a) {
  cuzk_fp_to_be(out, &a->c1);
  cuzk_fp_to_be(out + CUZK_FP_BYTES, &a->c0);
}

#define F cuzk_fp2_t
#define PT cuzk_g2_t
#define AT cuzk_g2_affine_t
#define PFX(name) cuzk_g2_##name
#define FBYTES (2 * CUZK_FP_BYTES)
#define F_ADD cuzk_fp2_add
#define F_SUB cuzk_fp2_sub
#define F_NEG cuzk_fp2_neg
#define F_DBL cuzk_fp2_dbl
#define F_MUL cuzk_fp2_mul
#define F_SQR cuzk_fp2_sqr
#define F_INV cuzk_fp2_inv
#define F_EQ cuzk_fp2_eq
#define F_SQRT cuzk_fp2_sqrt
#define F_LEXI cuzk_fp2_is_lexi_largest
#define F_FROM_BE fp2_from_be
#define F_TO_BE fp2_to_be
#define F_ONE CUZK_FP2_ONE
#define F_ZERO CUZK_FP2_ZERO

/* b' = 4(u + 1) = 4 + 4u, Montgomery form. */
static const cuzk_fp2_t curve_b = {
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
      0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}},
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
      0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}}};

/* The generator: x = (0x024aa2b2...c121bdb8) + (0x13e02b60...5d042b7e)u,
 * y = (0x0ce5d527...08b82801) + (0x0606c4a0...f05f79be)u, Montgomery form. */
static const cuzk_g2_affine_t gen_affine = {
    {{{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL, 0x9894999d1a3caee9ULL,
       0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
     {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL, 0x1b1ab6cc8541b367ULL,
       0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
    {{{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL, 0xbbefb5e96e0d495fULL,
       0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
     {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL, 0x79495c4ec93da33aULL,
       0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}}};

static bool endo_subgroup_check(const cuzk_g2_t *p);

#include "core/ec/ec_curve.inc"

/* psi(x, y) = (conj(x)·cx, conj(y)·cy) with cx = (u + 1)^-((p-1)/3) = 0x1a0111ea...aaad·u and
 * cy = (u + 1)^-((p-1)/2) = 0x135203e6...121bdea2 + 0x06af0e04...ede3cc09·u (Montgomery form). */
static const cuzk_fp2_t psi_cx = {
    {{0, 0, 0, 0, 0, 0}},
    {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
      0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}}};
static const cuzk_fp2_t psi_cy = {
    {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
      0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
    {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
      0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}};

/* |x| = 0xd201000000010000; x is negative. */
static const uint64_t bls_x_abs[1] = {0xd201000000010000ULL};

static bool endo_subgroup_check(const cuzk_g2_t *p) {
  if (cuzk_g2_is_infinity(p)) return true;
  /* In Jacobian coordinates psi(X : Y : Z) = (conj(X)·cx : conj(Y)·cy : conj(Z)). */
  cuzk_g2_t psi, t;
  cuzk_fp2_conj(&psi.x, &p->x);
  cuzk_fp2_mul(&psi.x, &psi.x, &psi_cx);
  cuzk_fp2_conj(&psi.y, &p->y);
  cuzk_fp2_mul(&psi.y, &psi.y, &psi_cy);
  cuzk_fp2_conj(&psi.z, &p->z);
  cuzk_g2_mul_u64_vartime(&t, p, bls_x_abs, 1);
  cuzk_g2_neg(&t, &t); /* [x]P */
  return cuzk_g2_eq(&psi, &t);
}
