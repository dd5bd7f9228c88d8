#include "core/ec/msm.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/ec/ec_par.h"

#define MSM_SCALAR_BITS 256 /* raw scalars are any 256-bit integers */
#define MSM_NAIVE_BELOW 8   /* below this, n wNAF multiplications beat the bucket setup */
#define MSM_MIN_CHUNK 1024  /* fewest points per (window, range) task */
#define MSM_MAX_WINDOW 16
#define MSM_BATCH_MIN_WINDOW 10 /* from here on buckets are affine and filled in batches */
#define MSM_BATCH_MAX 1024      /* points per shared inversion */

static atomic_uint msm_forced_chunks;

static atomic_uint msm_forced_window;

void cuzk__msm_force_chunks(unsigned chunks) {
  atomic_store(&msm_forced_chunks, chunks);
}

void cuzk__msm_force_window(unsigned c) {
  assert(c == 0 || (c >= 2 && c <= MSM_MAX_WINDOW));
  atomic_store(&msm_forced_window, c);
}

unsigned cuzk_msm_window_bits(size_t n) {
  /* Cost in mixed-addition units for window c: (256/c + 1) windows, each adding n points
   * (an affine batch addition costs about 0.55 of a Jacobian mixed one, measured) and reducing
   * 2^(c-1) buckets with two full additions (about 2.3 units). */
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= MSM_MAX_WINDOW; c++) {
    double per_point = c >= MSM_BATCH_MIN_WINDOW ? 0.55 : 1.0;
    double cost = (double)(MSM_SCALAR_BITS / c + 1) *
                  ((double)n * per_point + 2.3 * (double)((size_t)1 << (c - 1)));
    if (c == 2 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

/* The signed digit of window `win`: from bits [win·c - 1, win·c + c - 1] of s (bit -1 is 0),
 * d = sum_{i<c-1} 2^i b_{wc+i} + b_{wc-1} - 2^(c-1) b_{wc+c-1}, in [-2^(c-1), 2^(c-1)].
 * sum_w d_w 2^(wc) == s when c·nwin > 256. */
static inline uint64_t msm_bits(const uint64_t s[4], int pos, unsigned len) {
  /* bits [pos, pos + len) with pos >= -1 and len <= 17; out-of-range bits read as 0 */
  uint64_t v = 0;
  unsigned shift = 0;
  if (pos < 0) {
    pos = 0;
    shift = 1;
    len -= 1;
  }
  unsigned limb = (unsigned)pos / 64, off = (unsigned)pos % 64;
  if (limb < 4) {
    v = s[limb] >> off;
    if (off + len > 64 && limb + 1 < 4) v |= s[limb + 1] << (64 - off);
  }
  v &= ((uint64_t)1 << len) - 1;
  return v << shift;
}

static inline int msm_booth_digit(const uint64_t s[4], unsigned win, unsigned c) {
  uint64_t v = msm_bits(s, (int)(win * c) - 1, c + 1);
  int d = (int)((v + 1) >> 1);
  if ((v >> c) & 1) d -= 1 << c;
  return d;
}

#define PT cuzk_g1_t
#define AT cuzk_g1_affine_t
#define PFX(name) cuzk_g1_##name
#define MSM(name) cuzk_g1_##name
#define MSMS(name) g1_msm_##name
#define F cuzk_fp_t
#define F_SUB cuzk_fp_sub
#define F_MUL cuzk_fp_mul
#define F_SQR cuzk_fp_sqr
#define F_INV cuzk_fp_inv_vartime
#define F_EQ cuzk_fp_eq
#include "core/ec/msm.inc"
#undef PT
#undef AT
#undef PFX
#undef MSM
#undef MSMS
#undef F
#undef F_SUB
#undef F_MUL
#undef F_SQR
#undef F_INV
#undef F_EQ

#define PT cuzk_g2_t
#define AT cuzk_g2_affine_t
#define PFX(name) cuzk_g2_##name
#define MSM(name) cuzk_g2_##name
#define MSMS(name) g2_msm_##name
#define F cuzk_fp2_t
#define F_SUB cuzk_fp2_sub
#define F_MUL cuzk_fp2_mul
#define F_SQR cuzk_fp2_sqr
#define F_INV cuzk_fp2_inv
#define F_EQ cuzk_fp2_eq
#include "core/ec/msm.inc"
