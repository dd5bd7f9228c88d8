#include "core/ec/g1.h"

#define F cuzk_fp_t
#define PT cuzk_g1_t
#define AT cuzk_g1_affine_t
#define PFX(name) cuzk_g1_##name
#define FBYTES CUZK_FP_BYTES
#define F_ADD cuzk_fp_add
#define F_SUB cuzk_fp_sub
#define F_NEG cuzk_fp_neg
#define F_DBL cuzk_fp_dbl
#define F_MUL cuzk_fp_mul
#define F_SQR cuzk_fp_sqr
#define F_INV cuzk_fp_inv
#define F_EQ cuzk_fp_eq
#define F_SQRT cuzk_fp_sqrt
#define F_LEXI cuzk_fp_is_lexi_largest
#define F_FROM_BE cuzk_fp_from_be
#define F_TO_BE cuzk_fp_to_be
#define F_ONE CUZK_FP_ONE
#define F_ZERO CUZK_FP_ZERO

/* b = 4, Montgomery form (4·2^384 mod p). */
static const cuzk_fp_t curve_b = {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                                   0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}};

/* The generator x = 0x17f1d3a7...db22c6bb, y = 0x08b3f481...46c5e7e1, Montgomery form. */
static const cuzk_g1_affine_t gen_affine = {
    {{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL, 0xf0ae6acdf3d0e747ULL,
      0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
    {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL, 0x51ac582950405194ULL,
      0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}}};

#include "core/ec/ec_curve.inc"
