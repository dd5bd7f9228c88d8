#include "core/filecoin/vanilla.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/fr.h"
#include "core/hash/poseidon.h"

/* ---- arena: a list of chunks freed together ------------------------------------------------ */

typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} chunk_t;

struct cuzk__arena {
  chunk_t *head;
};

#define ARENA_CHUNK (64 * 1024)

static void *arena_alloc(cuzk__arena_t *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  chunk_t *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
    c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  return p;
}

static void arena_free(cuzk__arena_t *a) {
  if (!a) return;
  for (chunk_t *c = a->head, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(a);
}

void cuzk_vanilla_post_free(cuzk_vanilla_post_t *v) {
  if (!v) return;
  arena_free(v->arena_);
  free(v);
}

/* ---- reader -------------------------------------------------------------------------------- */

typedef struct {
  const uint8_t *buf;
  size_t len, pos;
  cuzk__arena_t *arena;
  char *errstr;
  size_t errstr_size;
} rd_t;

/* Minimal encoded sizes, used to bound declared counts against the remaining bytes. */
#define MIN_PATH_ELEM 16u   /* u64 count + u64 index */
#define MIN_MERKLE 76u      /* u32 tag + u64 empty path + root + leaf */
#define MIN_SECTOR 72u      /* u64 empty Vec + comm_c + comm_r_last */
#define MIN_POST_SECTOR 48u /* sector_id + comm_r + u64 empty Vec */

static size_t remaining(const rd_t *r) {
  return r->len - r->pos;
}

static cuzk_err_t rd_bytes(rd_t *r, void *out, size_t n, const char *field) {
  if (remaining(r) < n)
    return cuzk_errf(CUZK_ERR_TRUNCATED, r->errstr, r->errstr_size,
                     "vanilla proof: %s at offset %zu needs %zu bytes, %zu remain", field, r->pos,
                     n, remaining(r));
  memcpy(out, r->buf + r->pos, n);
  r->pos += n;
  return CUZK_OK;
}

static cuzk_err_t rd_u64(rd_t *r, uint64_t *v, const char *field) {
  uint8_t b[8] = {0};
  cuzk_err_t e = rd_bytes(r, b, 8, field);
  if (e != CUZK_OK) return e;
  *v = 0;
  for (int i = 7; i >= 0; i--) *v = (*v << 8) | b[i];
  return CUZK_OK;
}

static cuzk_err_t rd_u32(rd_t *r, uint32_t *v, const char *field) {
  uint8_t b[4] = {0};
  cuzk_err_t e = rd_bytes(r, b, 4, field);
  if (e != CUZK_OK) return e;
  *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  return CUZK_OK;
}

static cuzk_err_t rd_domain(rd_t *r, uint8_t out[32], const char *field) {
  size_t at = r->pos;
  cuzk_err_t e = rd_bytes(r, out, 32, field);
  if (e != CUZK_OK) return e;
  cuzk_fr_t x;
  if (cuzk_fr_from_le(&x, out) != CUZK_OK)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, r->errstr, r->errstr_size,
                     "vanilla proof: %s at offset %zu is not a canonical field element", field, at);
  return CUZK_OK;
}

/* Reads a u64 count and checks that count items of at least min_size bytes fit. */
static cuzk_err_t rd_count(rd_t *r, uint64_t *n, size_t min_size, const char *field) {
  size_t at = r->pos;
  cuzk_err_t e = rd_u64(r, n, field);
  if (e != CUZK_OK) return e;
  if (*n > remaining(r) / min_size) {
    /* A count that no input within the size limit could hold is TOO_LARGE; one that merely
     * runs past this input's end is TRUNCATED. */
    cuzk_err_t code =
        *n > CUZK_VANILLA_MAX_BYTES / min_size ? CUZK_ERR_TOO_LARGE : CUZK_ERR_TRUNCATED;
    return cuzk_errf(code, r->errstr, r->errstr_size,
                     "vanilla proof: %s at offset %zu declares %llu items, only %zu bytes remain",
                     field, at, (unsigned long long)*n, remaining(r));
  }
  return CUZK_OK;
}

static cuzk_err_t nomem(rd_t *r) {
  return cuzk_errf(CUZK_ERR_NOMEM, r->errstr, r->errstr_size, "vanilla proof: out of memory");
}

static cuzk_err_t rd_path(rd_t *r, cuzk_vanilla_path_t *p, const char *field) {
  uint64_t n;
  cuzk_err_t e = rd_count(r, &n, MIN_PATH_ELEM, field);
  if (e != CUZK_OK) return e;
  p->len = (size_t)n;
  p->elems = n ? arena_alloc(r->arena, (size_t)n * sizeof *p->elems) : NULL;
  if (n && !p->elems) return nomem(r);
  for (size_t i = 0; i < p->len; i++) {
    cuzk_vanilla_path_elem_t *el = &p->elems[i];
    uint64_t k;
    if ((e = rd_count(r, &k, 32, "path element hash count")) != CUZK_OK) return e;
    el->n_hashes = (size_t)k;
    el->hashes = k ? arena_alloc(r->arena, (size_t)k * 32) : NULL;
    if (k && !el->hashes) return nomem(r);
    for (size_t j = 0; j < el->n_hashes; j++)
      if ((e = rd_domain(r, el->hashes[j], "path element hash")) != CUZK_OK) return e;
    if ((e = rd_u64(r, &el->index, "path element index")) != CUZK_OK) return e;
  }
  return CUZK_OK;
}

static cuzk_err_t rd_merkle(rd_t *r, cuzk_merkle_proof_t *m) {
  size_t at = r->pos;
  uint32_t tag;
  cuzk_err_t e = rd_u32(r, &tag, "MerkleProof variant tag");
  if (e != CUZK_OK) return e;
  memset(m, 0, sizeof *m);
  switch (tag) {
    case CUZK_MERKLE_SINGLE:
      m->kind = CUZK_MERKLE_SINGLE;
      if ((e = rd_domain(r, m->root, "single proof root")) != CUZK_OK) return e;
      if ((e = rd_domain(r, m->leaf, "single proof leaf")) != CUZK_OK) return e;
      return rd_path(r, &m->base, "single proof path length");
    case CUZK_MERKLE_SUB:
    case CUZK_MERKLE_TOP:
      m->kind = (cuzk_merkle_kind_t)tag;
      if ((e = rd_path(r, &m->base, "base path length")) != CUZK_OK) return e;
      if ((e = rd_path(r, &m->sub, "sub path length")) != CUZK_OK) return e;
      if (tag == CUZK_MERKLE_TOP && (e = rd_path(r, &m->top, "top path length")) != CUZK_OK)
        return e;
      if ((e = rd_domain(r, m->root, "proof root")) != CUZK_OK) return e;
      return rd_domain(r, m->leaf, "proof leaf");
    default:
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, r->errstr, r->errstr_size,
                       "vanilla proof: MerkleProof variant tag %u at offset %zu is not 0, 1 or 2",
                       tag, at);
  }
}

static cuzk_err_t rd_sector(rd_t *r, cuzk_sector_proof_t *s) {
  uint64_t n;
  cuzk_err_t e = rd_count(r, &n, MIN_MERKLE, "inclusion_proofs length");
  if (e != CUZK_OK) return e;
  s->n_proofs = (size_t)n;
  s->proofs = n ? arena_alloc(r->arena, (size_t)n * sizeof *s->proofs) : NULL;
  if (n && !s->proofs) return nomem(r);
  for (size_t i = 0; i < s->n_proofs; i++)
    if ((e = rd_merkle(r, &s->proofs[i])) != CUZK_OK) return e;
  if ((e = rd_domain(r, s->comm_c, "comm_c")) != CUZK_OK) return e;
  return rd_domain(r, s->comm_r_last, "comm_r_last");
}

static cuzk_err_t rd_post_sector(rd_t *r, cuzk_post_sector_proof_t *p) {
  cuzk_err_t e = rd_u64(r, &p->sector_id, "sector_id");
  if (e != CUZK_OK) return e;
  if ((e = rd_domain(r, p->comm_r, "comm_r")) != CUZK_OK) return e;
  uint64_t n;
  if ((e = rd_count(r, &n, MIN_SECTOR, "sectors length")) != CUZK_OK) return e;
  p->n_sectors = (size_t)n;
  p->sectors = n ? arena_alloc(r->arena, (size_t)n * sizeof *p->sectors) : NULL;
  if (n && !p->sectors) return nomem(r);
  for (size_t i = 0; i < p->n_sectors; i++)
    if ((e = rd_sector(r, &p->sectors[i])) != CUZK_OK) return e;
  return CUZK_OK;
}

static cuzk_err_t decode(cuzk_vanilla_post_t **out, const uint8_t *buf, size_t len, int vec,
                         char *errstr, size_t errstr_size) {
  if (!out) return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "NULL output");
  *out = NULL;
  if (!buf && len) return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "NULL buffer");
  if ((uint64_t)len > CUZK_VANILLA_MAX_BYTES)
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size,
                     "vanilla proof: %zu bytes exceed the limit", len);
  cuzk_vanilla_post_t *v = calloc(1, sizeof *v);
  cuzk__arena_t *a = calloc(1, sizeof *a);
  if (!v || !a) {
    free(v);
    free(a);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "vanilla proof: out of memory");
  }
  v->arena_ = a;
  rd_t r = {buf, len, 0, a, errstr, errstr_size};
  cuzk_err_t e;
  uint64_t n = 1;
  if (vec)
    e = rd_count(&r, &n, MIN_POST_SECTOR, "Vec<FallbackPoStSectorProof> length");
  else
    e = CUZK_OK;
  if (e == CUZK_OK) {
    v->n_items = (size_t)n;
    v->items = n ? arena_alloc(a, (size_t)n * sizeof *v->items) : NULL;
    if (n && !v->items) e = nomem(&r);
  }
  for (size_t i = 0; e == CUZK_OK && i < v->n_items; i++) e = rd_post_sector(&r, &v->items[i]);
  if (e == CUZK_OK && r.pos != len)
    e = cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                  "vanilla proof: %zu trailing bytes at offset %zu", len - r.pos, r.pos);
  if (e != CUZK_OK) {
    cuzk_vanilla_post_free(v);
    return e;
  }
  *out = v;
  return CUZK_OK;
}

cuzk_err_t cuzk_vanilla_post_decode(cuzk_vanilla_post_t **out, const uint8_t *buf, size_t len,
                                    char *errstr, size_t errstr_size) {
  return decode(out, buf, len, 0, errstr, errstr_size);
}

cuzk_err_t cuzk_vanilla_post_decode_vec(cuzk_vanilla_post_t **out, const uint8_t *buf, size_t len,
                                        char *errstr, size_t errstr_size) {
  return decode(out, buf, len, 1, errstr, errstr_size);
}

/* ---- verification -------------------------------------------------------------------------- */

/* Hashes `cur` up one path section; every element must have arity-1 siblings and an index below
 * the arity. Accumulates the index digits into *idx (times *scale). */
static cuzk_err_t climb(cuzk_fr_t *cur, const cuzk_vanilla_path_t *path, size_t want_len,
                        unsigned arity, const char *name, uint64_t *idx, uint64_t *scale,
                        char *errstr, size_t errstr_size) {
  if (path->len != want_len)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "%s path has %zu levels, the tree shape needs %zu", name, path->len, want_len);
  for (size_t l = 0; l < path->len; l++) {
    const cuzk_vanilla_path_elem_t *el = &path->elems[l];
    if (el->n_hashes != arity - 1 || el->index >= arity)
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                       "%s path level %zu: %zu siblings and index %llu, arity %u needs %u "
                       "siblings and index < %u",
                       name, l, el->n_hashes, (unsigned long long)el->index, arity, arity - 1,
                       arity);
    cuzk_fr_t in[CUZK_POSEIDON_MAX_WIDTH];
    size_t s = 0;
    for (unsigned k = 0; k < arity; k++) {
      if (k == el->index) {
        in[k] = *cur;
      } else if (cuzk_fr_from_le(&in[k], el->hashes[s++]) != CUZK_OK) {
        return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                         "%s path level %zu: non-canonical sibling", name, l);
      }
    }
    cuzk_poseidon_hash(cur, arity, in);
    *idx += el->index * *scale;
    *scale *= arity;
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_vanilla_merkle_verify(const cuzk_merkle_proof_t *p, const cuzk_tree_shape_t *shape,
                                      const uint8_t expected_root[32], uint64_t *leaf_index,
                                      char *errstr, size_t errstr_size) {
  assert(p && shape);
  cuzk_merkle_kind_t want = shape->top_arity   ? CUZK_MERKLE_TOP
                            : shape->sub_arity ? CUZK_MERKLE_SUB
                                               : CUZK_MERKLE_SINGLE;
  if (p->kind != want)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "Merkle proof variant %d, the tree shape %u-%u-%u needs %d", (int)p->kind,
                     shape->base_arity, shape->sub_arity, shape->top_arity, (int)want);
  if (!cuzk_poseidon_arity_supported(shape->base_arity) ||
      (shape->sub_arity && !cuzk_poseidon_arity_supported(shape->sub_arity)) ||
      (shape->top_arity && !cuzk_poseidon_arity_supported(shape->top_arity)))
    return cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size, "unsupported tree arity");
  cuzk_fr_t cur;
  if (cuzk_fr_from_le(&cur, p->leaf) != CUZK_OK)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size, "non-canonical leaf");
  uint64_t idx = 0, scale = 1;
  cuzk_err_t e = climb(&cur, &p->base, shape->base_height, shape->base_arity, "base", &idx, &scale,
                       errstr, errstr_size);
  if (e == CUZK_OK && shape->sub_arity)
    e = climb(&cur, &p->sub, 1, shape->sub_arity, "sub", &idx, &scale, errstr, errstr_size);
  if (e == CUZK_OK && shape->top_arity)
    e = climb(&cur, &p->top, 1, shape->top_arity, "top", &idx, &scale, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  if (leaf_index) *leaf_index = idx;
  uint8_t got[32];
  cuzk_fr_to_le(got, &cur);
  if (memcmp(got, p->root, 32) != 0)
    return cuzk_errf(CUZK_ERR_VERIFY_FAILED, errstr, errstr_size,
                     "path does not hash to the proof's root");
  if (expected_root && memcmp(got, expected_root, 32) != 0)
    return cuzk_errf(CUZK_ERR_VERIFY_FAILED, errstr, errstr_size,
                     "path root differs from comm_r_last");
  return CUZK_OK;
}

cuzk_err_t cuzk_vanilla_comm_r_check(const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                                     const uint8_t comm_r[32], uint8_t computed[32]) {
  uint8_t in[64], h[32];
  memcpy(in, comm_c, 32);
  memcpy(in + 32, comm_r_last, 32);
  cuzk_err_t e = cuzk_poseidon_hash_le(h, 2, in);
  if (e != CUZK_OK) return e;
  if (computed) memcpy(computed, h, 32);
  return memcmp(h, comm_r, 32) == 0 ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
}
