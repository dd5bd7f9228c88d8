#include "core/hash/poseidon.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Grain LFSR of the Poseidon paper (appendix F): an 80-bit register b_0..b_79 updated by
 * b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i, first 160 outputs
 * discarded, then read in self-shrinking pairs. */
typedef struct {
  uint8_t bits[80];
  unsigned head;
} grain_t;

static unsigned grain_step(grain_t *g) {
  const uint8_t *b = g->bits;
  unsigned h = g->head;
#define B(i) b[(h + (i)) % 80]
  unsigned nb = B(62) ^ B(51) ^ B(38) ^ B(23) ^ B(13) ^ B(0);
#undef B
  g->bits[h] = (uint8_t)nb;
  g->head = (h + 1) % 80;
  return nb;
}

static void grain_push(grain_t *g, unsigned *pos, unsigned nbits, uint64_t v) {
  for (unsigned i = nbits; i-- > 0;) g->bits[(*pos)++] = (uint8_t)((v >> i) & 1);
}

static void grain_init(grain_t *g, unsigned t, unsigned rf, unsigned rp) {
  unsigned pos = 0;
  g->head = 0;
  grain_push(g, &pos, 2, 1);   /* field: prime field */
  grain_push(g, &pos, 4, 1);   /* S-box id as neptune passes it */
  grain_push(g, &pos, 12, 255); /* n = bits of r */
  grain_push(g, &pos, 12, t);
  grain_push(g, &pos, 10, rf);
  grain_push(g, &pos, 10, rp);
  grain_push(g, &pos, 30, (1u << 30) - 1);
  assert(pos == 80);
  for (int i = 0; i < 160; i++) grain_step(g);
}

static unsigned grain_next(grain_t *g) {
  while (!grain_step(g)) grain_step(g);
  return grain_step(g);
}

/* Next round constant: 255 output bits as a big-endian integer, rejected while >= r. */
static void grain_constant(grain_t *g, cuzk_fr_t *out) {
  for (;;) {
    uint8_t be[32];
    memset(be, 0, sizeof be);
    for (unsigned i = 0; i < 255; i++) {
      unsigned bitpos = 255 - 1 - i; /* MSB first */
      if (grain_next(g)) be[31 - bitpos / 8] |= (uint8_t)(1u << (bitpos % 8));
    }
    if (cuzk_fr_from_be(out, be) == CUZK_OK) return;
  }
}

typedef struct {
  unsigned arity, partial_rounds;
  pthread_once_t once;
  cuzk_poseidon_params_t p;
  int ok;
} slot_t;

static void gen_2(void);
static void gen_4(void);
static void gen_8(void);
static void gen_11(void);

/* R_P for t = 3, 5, 9, 12 at 128-bit security (neptune parameters/round_numbers.txt). */
static slot_t slots[4] = {
    {2, 55, PTHREAD_ONCE_INIT, {0}, 0},
    {4, 56, PTHREAD_ONCE_INIT, {0}, 0},
    {8, 57, PTHREAD_ONCE_INIT, {0}, 0},
    {11, 57, PTHREAD_ONCE_INIT, {0}, 0},
};

static void generate(slot_t *s) {
  cuzk_poseidon_params_t *p = &s->p;
  p->arity = s->arity;
  p->width = s->arity + 1;
  p->full_rounds = CUZK_POSEIDON_FULL_ROUNDS;
  p->partial_rounds = s->partial_rounds;
  unsigned t = p->width;
  size_t n = (size_t)(p->full_rounds + p->partial_rounds) * t;
  cuzk_fr_t *rc = malloc(n * sizeof *rc);
  if (!rc) return;
  grain_t g;
  grain_init(&g, t, p->full_rounds, p->partial_rounds);
  for (size_t i = 0; i < n; i++) grain_constant(&g, &rc[i]);
  p->rc = rc;
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) {
      cuzk_fr_t d;
      cuzk_fr_from_u64(&d, (uint64_t)i + t + j);
      cuzk_fr_inv_vartime(&p->mds[i][j], &d);
    }
  cuzk_fr_from_u64(&p->merkle_tag, (UINT64_C(1) << p->arity) - 1);
  s->ok = 1;
}

static void gen_2(void) { generate(&slots[0]); }
static void gen_4(void) { generate(&slots[1]); }
static void gen_8(void) { generate(&slots[2]); }
static void gen_11(void) { generate(&slots[3]); }

int cuzk_poseidon_arity_supported(unsigned arity) {
  return arity == 2 || arity == 4 || arity == 8 || arity == 11;
}

const cuzk_poseidon_params_t *cuzk_poseidon_params(unsigned arity) {
  slot_t *s;
  switch (arity) {
    case 2: s = &slots[0]; pthread_once(&s->once, gen_2); break;
    case 4: s = &slots[1]; pthread_once(&s->once, gen_4); break;
    case 8: s = &slots[2]; pthread_once(&s->once, gen_8); break;
    case 11: s = &slots[3]; pthread_once(&s->once, gen_11); break;
    default: return NULL;
  }
  return s->ok ? &s->p : NULL;
}

static inline void sbox(cuzk_fr_t *x) {
  cuzk_fr_t x2, x4;
  cuzk_fr_sqr(&x2, x);
  cuzk_fr_sqr(&x4, &x2);
  cuzk_fr_mul(x, x, &x4);
}

static void mix(const cuzk_poseidon_params_t *p, cuzk_fr_t *state) {
  unsigned t = p->width;
  cuzk_fr_t out[CUZK_POSEIDON_MAX_WIDTH];
  for (unsigned j = 0; j < t; j++) {
    cuzk_fr_t acc = CUZK_FR_ZERO, tmp;
    for (unsigned i = 0; i < t; i++) {
      cuzk_fr_mul(&tmp, &state[i], &p->mds[i][j]);
      cuzk_fr_add(&acc, &acc, &tmp);
    }
    out[j] = acc;
  }
  memcpy(state, out, t * sizeof *state);
}

void cuzk_poseidon_permute(const cuzk_poseidon_params_t *p, cuzk_fr_t *state) {
  assert(p && state);
  unsigned t = p->width, half = p->full_rounds / 2;
  unsigned rounds = p->full_rounds + p->partial_rounds;
  const cuzk_fr_t *rc = p->rc;
  for (unsigned r = 0; r < rounds; r++, rc += t) {
    for (unsigned i = 0; i < t; i++) cuzk_fr_add(&state[i], &state[i], &rc[i]);
    if (r < half || r >= half + p->partial_rounds)
      for (unsigned i = 0; i < t; i++) sbox(&state[i]);
    else
      sbox(&state[0]);
    mix(p, state);
  }
}

void cuzk_poseidon_hash_tagged(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *tag,
                               const cuzk_fr_t *in) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p && out && tag && in);
  cuzk_fr_t st[CUZK_POSEIDON_MAX_WIDTH];
  st[0] = *tag;
  memcpy(&st[1], in, arity * sizeof *in);
  cuzk_poseidon_permute(p, st);
  *out = st[1];
}

void cuzk_poseidon_hash(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *in) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p);
  cuzk_poseidon_hash_tagged(out, arity, &p->merkle_tag, in);
}

void cuzk_poseidon_custom_tag(cuzk_fr_t *out, uint64_t id) {
  uint64_t raw[CUZK_FR_LIMBS] = {id << 40, id >> 24, 0, 0}; /* id * 2^40 < 2^104 < r */
  cuzk_fr_from_raw(out, raw);
}

cuzk_err_t cuzk_poseidon_hash_le(uint8_t out[32], unsigned arity, const uint8_t *in) {
  if (!out || !in || !cuzk_poseidon_arity_supported(arity)) return CUZK_ERR_INVALID_ARG;
  if (!cuzk_poseidon_params(arity)) return CUZK_ERR_NOMEM;
  cuzk_fr_t x[CUZK_POSEIDON_MAX_WIDTH], h;
  for (unsigned i = 0; i < arity; i++) {
    cuzk_err_t e = cuzk_fr_from_le(&x[i], in + 32 * i);
    if (e != CUZK_OK) return e;
  }
  cuzk_poseidon_hash(&h, arity, x);
  cuzk_fr_to_le(out, &h);
  return CUZK_OK;
}
