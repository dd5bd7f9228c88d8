#include "core/circuits/post.h"

#include <string.h>

#include "core/gadgets/gadgets.h"

#define MAX_LEVELS 16
#define MAX_SIBS (MAX_LEVELS * 7)

size_t cuzk_post_tree_levels(unsigned arities[MAX_LEVELS], const cuzk_tree_shape_t *shape) {
  size_t n = 0;
  for (unsigned i = 0; i < shape->base_height && n < MAX_LEVELS; i++) arities[n++] = shape->base_arity;
  if (shape->sub_arity && n < MAX_LEVELS) arities[n++] = shape->sub_arity;
  if (shape->top_arity && n < MAX_LEVELS) arities[n++] = shape->top_arity;
  return n;
}

static cuzk_err_t fr_le(cuzk_fr_t *out, const uint8_t b[32], char *errstr, size_t errstr_size,
                        const char *what) {
  if (cuzk_fr_from_le(out, b) != CUZK_OK)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size, "%s is not a canonical Fr", what);
  return CUZK_OK;
}

/* Flattens one inclusion proof into indices / siblings per level (leaf level first). */
static cuzk_err_t flatten(const cuzk_merkle_proof_t *p, const cuzk_tree_shape_t *shape,
                          const unsigned *ar, size_t levels, cuzk_fr_t *leaf, uint32_t *idx,
                          cuzk_fr_t *sibs, char *errstr, size_t errstr_size) {
  const cuzk_vanilla_path_t *parts[3] = {&p->base, &p->sub, &p->top};
  cuzk_merkle_kind_t want = shape->top_arity   ? CUZK_MERKLE_TOP
                            : shape->sub_arity ? CUZK_MERKLE_SUB
                                               : CUZK_MERKLE_SINGLE;
  if (p->kind != want || p->base.len != shape->base_height ||
      p->sub.len != (shape->sub_arity ? 1u : 0u) || p->top.len != (shape->top_arity ? 1u : 0u))
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "inclusion proof (variant %d, paths %zu/%zu/%zu) does not fit tree %u-%u-%u",
                     (int)p->kind, p->base.len, p->sub.len, p->top.len, shape->base_arity,
                     shape->sub_arity, shape->top_arity);
  size_t l = 0, s = 0;
  for (int k = 0; k < 3; k++)
    for (size_t e = 0; e < parts[k]->len; e++, l++) {
      const cuzk_vanilla_path_elem_t *el = &parts[k]->elems[e];
      if (l >= levels || el->n_hashes + 1 != ar[l] || el->index >= ar[l])
        return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                         "inclusion path does not match the tree shape at level %zu", l);
      idx[l] = (uint32_t)el->index;
      for (size_t h = 0; h < el->n_hashes; h++) {
        cuzk_err_t e2 = fr_le(&sibs[s++], el->hashes[h], errstr, errstr_size, "a path sibling");
        if (e2 != CUZK_OK) return e2;
      }
    }
  if (l != levels)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "inclusion path has %zu levels, the tree %zu", l, levels);
  return fr_le(leaf, p->leaf, errstr, errstr_size, "a leaf");
}

cuzk_err_t cuzk_post_circuit_sector(cuzk_cs_t *cs, const cuzk_tree_shape_t *shape,
                                    const cuzk_post_sector_proof_t *sp, size_t first, size_t count,
                                    char *errstr, size_t errstr_size) {
  unsigned ar[MAX_LEVELS];
  size_t levels = cuzk_post_tree_levels(ar, shape);
  cuzk_fr_t comm_r = {{0}}, comm_c = {{0}}, comm_r_last = {{0}};
  const cuzk_sector_proof_t *sec = NULL;
  cuzk_err_t e;
  if (sp) {
    if (sp->n_sectors != 1)
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                       "sector %llu: %zu sector proofs, expected 1",
                       (unsigned long long)sp->sector_id, sp->n_sectors);
    sec = &sp->sectors[0];
    if (first + count > sec->n_proofs)
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                       "sector %llu: %zu inclusion proofs, the circuit needs %zu",
                       (unsigned long long)sp->sector_id, sec->n_proofs, first + count);
    if ((e = fr_le(&comm_r, sp->comm_r, errstr, errstr_size, "comm_r")) != CUZK_OK ||
        (e = fr_le(&comm_c, sec->comm_c, errstr, errstr_size, "comm_c")) != CUZK_OK ||
        (e = fr_le(&comm_r_last, sec->comm_r_last, errstr, errstr_size, "comm_r_last")) != CUZK_OK)
      return e;
  }
  cuzk_num_t n_last = cuzk_num_alloc(cs, &comm_r_last);
  cuzk_num_t n_c = cuzk_num_alloc(cs, &comm_c);
  cuzk_num_t n_r = cuzk_num_alloc(cs, &comm_r);
  cuzk_num_inputize(cs, &n_r);
  cuzk_num_t pre[2] = {n_c, n_last};
  cuzk_num_t h = cuzk_poseidon_gadget(cs, 2, pre);
  cuzk_num_equal(cs, &n_r, &h);

  cuzk_fr_t leaf = {{0}}, sibs[MAX_SIBS];
  uint32_t idx[MAX_LEVELS] = {0};
  memset(sibs, 0, sizeof sibs);
  for (size_t c = 0; c < count; c++) {
    if (sec) {
      e = flatten(&sec->proofs[first + c], shape, ar, levels, &leaf, idx, sibs, errstr, errstr_size);
      if (e != CUZK_OK) return e;
    }
    cuzk_por_gadget(cs, &leaf, ar, levels, idx, sibs, &n_last);
  }
  return cuzk_cs_error(cs, errstr, errstr_size);
}

cuzk_err_t cuzk_post_circuit_build(cuzk_cs_t *cs, const cuzk_post_proof_info_t *info,
                                   const cuzk_vanilla_post_t *v, char *errstr, size_t errstr_size) {
  if (info->kind == CUZK_POST_WINNING) {
    if (v && v->n_items != 1)
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                       "WinningPoSt proves one sector, the input has %zu", v->n_items);
    for (unsigned s = 0; s < info->challenges_per_sector; s++) {
      cuzk_err_t e = cuzk_post_circuit_sector(cs, &info->shape, v ? &v->items[0] : NULL, s, 1,
                                              errstr, errstr_size);
      if (e != CUZK_OK) return e;
    }
    return CUZK_OK;
  }
  if (v && (v->n_items == 0 || v->n_items > info->sectors_per_partition))
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "a WindowPoSt partition holds 1..%u sectors, the input has %zu",
                     info->sectors_per_partition, v->n_items);
  for (unsigned s = 0; s < info->sectors_per_partition; s++) {
    const cuzk_post_sector_proof_t *sp = NULL;
    if (v) sp = &v->items[s < v->n_items ? s : v->n_items - 1];
    cuzk_err_t e = cuzk_post_circuit_sector(cs, &info->shape, sp, 0, info->challenges_per_sector,
                                            errstr, errstr_size);
    if (e != CUZK_OK) return e;
  }
  return CUZK_OK;
}

void cuzk_post_circuit_expected(uint64_t *constraints, uint64_t *public_inputs,
                                const cuzk_post_proof_info_t *info) {
  unsigned ar[MAX_LEVELS];
  size_t levels = cuzk_post_tree_levels(ar, &info->shape);
  uint64_t per_challenge = 2; /* packing, root equality */
  for (size_t l = 0; l < levels; l++) {
    unsigned lg = ar[l] == 2 ? 1 : ar[l] == 4 ? 2 : 3;
    uint64_t ins = ar[l] == 2 ? 2 : ar[l] == 4 ? 8 : 22;
    uint64_t pos = ar[l] == 2 ? 311 : ar[l] == 4 ? 377 : 505;
    per_challenge += lg + ins + pos;
  }
  uint64_t per_sector_fixed = 1 + 311 + 1; /* inputize, Poseidon2, equality */
  uint64_t sectors, chal;
  if (info->kind == CUZK_POST_WINNING) {
    sectors = info->challenges_per_sector;
    chal = 1;
  } else {
    sectors = info->sectors_per_partition;
    chal = info->challenges_per_sector;
  }
  *constraints = sectors * (per_sector_fixed + chal * per_challenge);
  *public_inputs = sectors * (1 + chal);
}
