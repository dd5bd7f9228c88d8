#include "core/filecoin/post_gen.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/fr.h"
#include "core/hash/poseidon.h"

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void rand_fr(cuzk_fr_t *out, uint64_t *s) {
  uint8_t b[64];
  for (int i = 0; i < 8; i++) {
    uint64_t x = splitmix(s);
    memcpy(b + 8 * i, &x, 8);
  }
  cuzk_fr_from_le_wide(out, b);
}

typedef struct {
  uint8_t *p;
  size_t n, cap;
  bool oom;
} wr_t;

static void put(wr_t *w, const void *d, size_t n) {
  if (w->oom) return;
  if (w->n + n > w->cap) {
    size_t c = w->cap ? w->cap * 2 : 4096;
    while (c < w->n + n) c *= 2;
    uint8_t *q = realloc(w->p, c);
    if (!q) {
      w->oom = true;
      return;
    }
    w->p = q;
    w->cap = c;
  }
  memcpy(w->p + w->n, d, n);
  w->n += n;
}

static void put_u64(wr_t *w, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
  put(w, b, 8);
}

static void put_u32(wr_t *w, uint32_t v) {
  uint8_t b[4];
  for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
  put(w, b, 4);
}

static void put_fr(wr_t *w, const cuzk_fr_t *x) {
  uint8_t b[32];
  cuzk_fr_to_le(b, x);
  put(w, b, 32);
}

cuzk_err_t cuzk_filecoin_post_gen(uint8_t **out, size_t *out_len,
                                  const cuzk_post_proof_info_t *info,
                                  const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t sector_index, uint64_t seed, char *errstr,
                                  size_t errstr_size) {
  *out = NULL;
  *out_len = 0;
  const cuzk_tree_shape_t *sh = &info->shape;
  unsigned ar = sh->base_arity, h = sh->base_height;
  uint64_t leaves = cuzk_filecoin_sector_leaves(info->sector_size);
  if (sh->sub_arity || sh->top_arity || ar != 8 || leaves > (1u << 24))
    return cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size,
                     "post_gen: only single 8-ary trees up to 2^24 leaves");
  /* all levels, leaves first: leaves + leaves/8 + ... + 1 */
  uint64_t total = 0;
  for (uint64_t n = leaves;; n /= ar) {
    total += n;
    if (n == 1) break;
  }
  cuzk_fr_t *t = malloc(total * sizeof *t);
  uint64_t *ch = malloc(info->challenges_per_sector * sizeof *ch);
  if (!t || !ch) {
    free(t);
    free(ch);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "post_gen: out of memory");
  }
  uint64_t s = seed;
  for (uint64_t i = 0; i < leaves; i++) rand_fr(&t[i], &s);
  uint64_t off = 0;
  for (uint64_t n = leaves; n > 1; off += n, n /= ar)
    cuzk_poseidon_hash_many(&t[off + n], ar, &t[off], n / ar);
  const cuzk_fr_t *root = &t[total - 1];
  cuzk_fr_t comm_c, comm_r, pair[2];
  rand_fr(&comm_c, &s);
  pair[0] = comm_c;
  pair[1] = *root;
  cuzk_poseidon_hash(&comm_r, 2, pair);
  cuzk_filecoin_sector_challenges(ch, info, randomness, sector_id, sector_index);

  wr_t w = {0};
  put_u64(&w, sector_id);
  put_fr(&w, &comm_r);
  put_u64(&w, 1);
  put_u64(&w, info->challenges_per_sector);
  for (unsigned c = 0; c < info->challenges_per_sector; c++) {
    put_u32(&w, 0); /* single tree */
    put_fr(&w, root);
    put_fr(&w, &t[ch[c]]);
    put_u64(&w, h);
    uint64_t pos = ch[c];
    off = 0;
    for (uint64_t n = leaves; n > 1; off += n, n /= ar) {
      uint64_t grp = pos / ar * ar;
      put_u64(&w, ar - 1);
      for (unsigned k = 0; k < ar; k++)
        if (grp + k != pos) put_fr(&w, &t[off + grp + k]);
      put_u64(&w, pos % ar);
      pos /= ar;
    }
  }
  put_fr(&w, &comm_c);
  put_fr(&w, root);
  free(t);
  free(ch);
  if (w.oom) {
    free(w.p);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "post_gen: out of memory");
  }
  *out = w.p;
  *out_len = w.n;
  return CUZK_OK;
}
