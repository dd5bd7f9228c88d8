#include "core/ec/msm.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/ec/ec_par.h"

#define MSM_SCALAR_BITS 256 /* raw scalars are any 256-bit integers */
#define MSM_NAIVE_BELOW 8   /* below this, n wNAF multiplications beat the bucket setup */
#define MSM_MIN_CHUNK 1024  /* fewest points per (window, range) task */
#define MSM_MAX_WINDOW 16

static atomic_uint msm_forced_chunks;

void cuzk__msm_force_chunks(unsigned chunks) { atomic_store(&msm_forced_chunks, chunks); }

unsigned cuzk_msm_window_bits(size_t n) {
  /* Cost in group additions for window c: (256/c + 1) windows, each n bucket additions plus
   * 2·2^(c-1) to reduce the buckets. */
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= MSM_MAX_WINDOW; c++) {
    double cost = (double)(MSM_SCALAR_BITS / c + 1) * ((double)n + (double)((size_t)1 << c));
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
#include "core/ec/msm.inc"
#undef PT
#undef AT
#undef PFX
#undef MSM
#undef MSMS

#define PT cuzk_g2_t
#define AT cuzk_g2_affine_t
#define PFX(name) cuzk_g2_##name
#define MSM(name) cuzk_g2_##name
#define MSMS(name) g2_msm_##name
#include "core/ec/msm.inc"
