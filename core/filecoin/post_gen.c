#include "core/filecoin/post_gen.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/fr.h"
#include "core/circuits/post.h"
#include "core/hash/poseidon.h"
#include "core/util/pool.h"

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

void cuzk_filecoin_post_gen_leaf(cuzk_fr_t *out, uint64_t seed, uint64_t i) {
  uint64_t s = seed + 8 * i * 0x9e3779b97f4a7c15ull;
  rand_fr(out, &s);
}

#define leaf_at cuzk_filecoin_post_gen_leaf

cuzk_err_t cuzk_filecoin_post_gen_roots_cpu(void *ctx, cuzk_fr_t *roots, uint64_t seed,
                                            uint64_t first, uint64_t count,
                                            uint64_t chunk_leaves, const unsigned *level_arity,
                                            unsigned levels, char *errstr, size_t errstr_size) {
  (void)ctx;
  uint64_t prod = 1;
  for (unsigned l = 0; l < levels; l++) {
    if (!cuzk_poseidon_arity_supported(level_arity[l]) || prod > (UINT64_C(1) << 40))
      return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "roots_cpu: bad level %u", l);
    prod *= level_arity[l];
  }
  if (prod != chunk_leaves)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "roots_cpu: arities do not multiply to %llu", (unsigned long long)chunk_leaves);
  cuzk_fr_t *t = malloc(2 * chunk_leaves * sizeof *t);
  if (!t) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "roots_cpu: out of memory");
  for (uint64_t k = 0; k < count; k++) {
    uint64_t base = (first + k) * chunk_leaves, n = chunk_leaves;
    for (uint64_t j = 0; j < n; j++) leaf_at(&t[j], seed, base + j);
    cuzk_fr_t *cur = t;
    for (unsigned l = 0; l < levels; l++) {
      cuzk_poseidon_hash_many(cur + n, level_arity[l], cur, n / level_arity[l]);
      cur += n;
      n /= level_arity[l];
    }
    roots[k] = *cur;
  }
  free(t);
  return CUZK_OK;
}

typedef struct {
  uint64_t seed;
  const unsigned *arity; /* per level, leaf level first */
  unsigned chunk_levels;
  uint64_t chunk; /* leaves per chunk: product of the first chunk_levels arities */
  size_t scratch; /* Fr per chunk: all its levels */
  const uint64_t *ch;
  unsigned n_ch;
  cuzk_fr_t *leaf;  /* [n_ch] */
  cuzk_fr_t *sib;   /* [n_ch][levels][7] */
  cuzk_fr_t *roots; /* [chunks] */
  const uint64_t *todo; /* when set: task i hashes chunk todo[i] into mine[i] */
  cuzk_fr_t *mine;
  _Atomic int oom;
} gen_t;

#define SIB(g, c, l, k) (&(g)->sib[((size_t)(c)*16 + (l)) * 7 + (k)])

/* Hashes `n` nodes at `lv` up `levels` levels (t holds them, the levels above follow), recording
 * the siblings of every challenge whose node index at `lv` lies in [base, base + n). Returns the
 * top node. */
static const cuzk_fr_t *hash_up(gen_t *g, cuzk_fr_t *t, uint64_t n, unsigned lv, unsigned levels,
                                uint64_t base) {
  for (unsigned l = lv; l < lv + levels; l++) {
    unsigned ar = g->arity[l];
    for (unsigned c = 0; c < g->n_ch; c++) {
      uint64_t pos = g->ch[c];
      for (unsigned k = 0; k < l; k++) pos /= g->arity[k];
      uint64_t lb = base;
      for (unsigned k = lv; k < l; k++) lb /= g->arity[k];
      if (pos < lb || pos >= lb + n) continue;
      uint64_t rel = pos - lb, grp = rel / ar * ar;
      unsigned w = 0;
      for (unsigned k = 0; k < ar; k++)
        if (grp + k != rel) *SIB(g, c, l, w++) = t[grp + k];
    }
    cuzk_poseidon_hash_many(&t[n], ar, t, n / ar);
    t += n;
    n /= ar;
  }
  return t;
}

static void gen_chunk(void *ctx, size_t i) {
  gen_t *g = ctx;
  cuzk_fr_t *t = malloc(g->scratch * sizeof *t);
  if (!t) {
    g->oom = 1;
    return;
  }
  uint64_t chunk = g->todo ? g->todo[i] : (uint64_t)i, first = chunk * g->chunk;
  for (uint64_t k = 0; k < g->chunk; k++) leaf_at(&t[k], g->seed, first + k);
  for (unsigned c = 0; c < g->n_ch; c++)
    if (g->ch[c] >= first && g->ch[c] < first + g->chunk) g->leaf[c] = t[g->ch[c] - first];
  *(g->todo ? &g->mine[i] : &g->roots[chunk]) = *hash_up(g, t, g->chunk, 0, g->chunk_levels, first);
  free(t);
}

static void put_path(wr_t *w, gen_t *g, unsigned c, unsigned from, unsigned to) {
  put_u64(w, to - from);
  uint64_t pos = g->ch[c];
  for (unsigned l = 0; l < to; l++) {
    if (l >= from) {
      put_u64(w, g->arity[l] - 1);
      for (unsigned k = 0; k + 1 < g->arity[l]; k++) put_fr(w, SIB(g, c, l, k));
      put_u64(w, pos % g->arity[l]);
    }
    pos /= g->arity[l];
  }
}

typedef struct {
  const cuzk_post_gen_provider_t *pv;
  gen_t *g;
  uint64_t chunks;
  char *errstr;
  size_t errstr_size;
  cuzk_err_t e;
} prov_call_t;

static void *prov_main(void *arg) {
  prov_call_t *c = arg;
  c->e = c->pv->roots(c->pv->ctx, c->g->roots, c->g->seed, 0, c->chunks, c->g->chunk,
                      c->g->arity, c->g->chunk_levels, c->errstr, c->errstr_size);
  return NULL;
}

/* The chunk roots: all on the CPU, or the provider's (on its own thread, overlapping the CPU's
 * chunks), checked against the CPU's own for the chunks that hold challenges (which the CPU
 * hashes anyway for the paths). */
static cuzk_err_t chunk_roots(gen_t *g, uint64_t chunks, const cuzk_post_gen_provider_t *pv,
                              char *errstr, size_t errstr_size) {
  if (!pv || !pv->roots) {
    cuzk_pool_parallel_for(cuzk_pool_global(), (size_t)chunks, gen_chunk, g);
    return CUZK_OK;
  }
  prov_call_t call = {pv, g, chunks, errstr, errstr_size, CUZK_OK};
  pthread_t th;
  bool threaded = pthread_create(&th, NULL, prov_main, &call) == 0;
  if (!threaded) prov_main(&call);
  uint64_t todo[66];
  cuzk_fr_t mine[66];
  size_t n = 0;
  for (unsigned c = 0; c < g->n_ch; c++) {
    uint64_t k = g->ch[c] / g->chunk;
    size_t j = 0;
    while (j < n && todo[j] != k) j++;
    if (j == n) todo[n++] = k;
  }
  g->todo = todo;
  g->mine = mine;
  cuzk_pool_parallel_for(cuzk_pool_global(), n, gen_chunk, g);
  g->todo = NULL;
  g->mine = NULL;
  if (threaded) pthread_join(th, NULL);
  if (call.e != CUZK_OK) return call.e;
  if (g->oom) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "post_gen: out of memory");
  for (size_t j = 0; j < n; j++)
    if (!cuzk_fr_eq(&mine[j], &g->roots[todo[j]]))
      return cuzk_errf(CUZK_ERR_CHECKSUM, errstr, errstr_size,
                       "post_gen: chunk root mismatch at chunk %llu of %llu (provider vs CPU)",
                       (unsigned long long)todo[j], (unsigned long long)chunks);
  return CUZK_OK;
}

cuzk_err_t cuzk_filecoin_post_gen_chunked(uint8_t **out, size_t *out_len,
                                          const cuzk_post_proof_info_t *info,
                                          const uint8_t randomness[32], uint64_t sector_id,
                                          uint64_t sector_index, uint64_t seed,
                                          uint64_t max_chunk_leaves, char *errstr,
                                          size_t errstr_size) {
  return cuzk_filecoin_post_gen_ext(out, out_len, info, randomness, sector_id, sector_index, seed,
                                    max_chunk_leaves, NULL, errstr, errstr_size);
}

cuzk_err_t cuzk_filecoin_post_gen_ext(uint8_t **out, size_t *out_len,
                                      const cuzk_post_proof_info_t *info,
                                      const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t sector_index, uint64_t seed,
                                      uint64_t max_chunk_leaves,
                                      const cuzk_post_gen_provider_t *provider, char *errstr,
                                      size_t errstr_size) {
  *out = NULL;
  *out_len = 0;
  const cuzk_tree_shape_t *sh = &info->shape;
  unsigned arity[16];
  size_t levels = cuzk_post_tree_levels(arity, sh);
  uint64_t leaves = cuzk_filecoin_sector_leaves(info->sector_size), prod = 1;
  for (size_t l = 0; l < levels; l++) prod *= arity[l];
  if (prod != leaves || levels == 0 || info->challenges_per_sector > 66)
    return cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size,
                     "post_gen: tree %u-%u-%u of height %u does not hold %llu leaves",
                     sh->base_arity, sh->sub_arity, sh->top_arity, sh->base_height,
                     (unsigned long long)leaves);
  for (size_t l = 0; l < levels; l++)
    if (arity[l] > 8 || arity[l] < 2)
      return cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size, "post_gen: arity %u", arity[l]);
  gen_t g = {.seed = seed, .arity = arity, .n_ch = info->challenges_per_sector};
  g.chunk = 1;
  while (g.chunk_levels < levels && g.chunk * arity[g.chunk_levels] <= max_chunk_leaves)
    g.chunk *= arity[g.chunk_levels++];
  g.scratch = 0;
  for (uint64_t n = g.chunk, l = 0;; n /= arity[l++]) {
    g.scratch += n;
    if (l == g.chunk_levels) break;
  }
  uint64_t chunks = leaves / g.chunk, upper = 0;
  for (uint64_t n = chunks, l = g.chunk_levels;; n /= arity[l++]) {
    upper += n;
    if (l == levels) break;
  }
  uint64_t ch[66];
  cuzk_filecoin_sector_challenges(ch, info, randomness, sector_id, sector_index);
  g.ch = ch;
  g.leaf = malloc(66 * sizeof *g.leaf);
  g.sib = malloc((size_t)66 * 16 * 7 * sizeof *g.sib);
  g.roots = malloc(upper * sizeof *g.roots);
  if (!g.leaf || !g.sib || !g.roots) {
    free(g.leaf), free(g.sib), free(g.roots);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "post_gen: out of memory");
  }
  cuzk_err_t e = chunk_roots(&g, chunks, provider, errstr, errstr_size);
  if (e != CUZK_OK) {
    free(g.leaf), free(g.sib), free(g.roots);
    return e;
  }
  cuzk_fr_t root =
      *hash_up(&g, g.roots, chunks, g.chunk_levels, (unsigned)levels - g.chunk_levels, 0);
  cuzk_fr_t comm_c, comm_r, pair[2];
  uint64_t s = seed + 8 * leaves * 0x9e3779b97f4a7c15ull;
  rand_fr(&comm_c, &s);
  pair[0] = comm_c;
  pair[1] = root;
  cuzk_poseidon_hash(&comm_r, 2, pair);

  unsigned bh = sh->base_height, tag = sh->top_arity ? 2 : sh->sub_arity ? 1 : 0;
  wr_t w = {0};
  put_u64(&w, sector_id);
  put_fr(&w, &comm_r);
  put_u64(&w, 1);
  put_u64(&w, g.n_ch);
  for (unsigned c = 0; c < g.n_ch; c++) {
    put_u32(&w, tag);
    if (tag == 0) {
      put_fr(&w, &root);
      put_fr(&w, &g.leaf[c]);
      put_path(&w, &g, c, 0, (unsigned)levels);
      continue;
    }
    put_path(&w, &g, c, 0, bh);
    put_path(&w, &g, c, bh, bh + 1);
    if (tag == 2) put_path(&w, &g, c, bh + 1, bh + 2);
    put_fr(&w, &root);
    put_fr(&w, &g.leaf[c]);
  }
  put_fr(&w, &comm_c);
  put_fr(&w, &root);
  bool oom = g.oom || w.oom;
  free(g.leaf), free(g.sib), free(g.roots);
  if (oom) {
    free(w.p);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "post_gen: out of memory");
  }
  *out = w.p;
  *out_len = w.n;
  return CUZK_OK;
}

cuzk_err_t cuzk_filecoin_post_gen(uint8_t **out, size_t *out_len,
                                  const cuzk_post_proof_info_t *info, const uint8_t randomness[32],
                                  uint64_t sector_id, uint64_t sector_index, uint64_t seed,
                                  char *errstr, size_t errstr_size) {
  return cuzk_filecoin_post_gen_chunked(out, out_len, info, randomness, sector_id, sector_index,
                                        seed, UINT64_C(1) << 18, errstr, errstr_size);
}
