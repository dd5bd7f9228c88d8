#include "core/r1cs/lc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void cuzk_lc_free(cuzk_lc_t *lc) {
  free(lc->heap);
  cuzk_lc_init(lc);
}

static bool cuzk__lc_reserve(cuzk_lc_t *lc, uint32_t need) {
  uint32_t cap = lc->heap ? lc->cap : CUZK_LC_INLINE;
  if (need <= cap) return true;
  uint32_t ncap = cap * 2;
  while (ncap < need) ncap *= 2;
  cuzk_lc_term_t *p = realloc(lc->heap, (size_t)ncap * sizeof *p);
  if (!p) {
    lc->oom = true;
    return false;
  }
  if (!lc->heap) memcpy(p, lc->buf, (size_t)lc->n * sizeof *p);
  lc->heap = p;
  lc->cap = ncap;
  return true;
}

void cuzk_lc_copy(cuzk_lc_t *dst, const cuzk_lc_t *src) {
  assert(dst != src);
  dst->n = 0;
  dst->oom = src->oom;
  if (!cuzk__lc_reserve(dst, src->n)) return;
  memcpy(cuzk_lc_terms(dst), cuzk_lc_terms_const(src), (size_t)src->n * sizeof(cuzk_lc_term_t));
  dst->n = src->n;
}

void cuzk__lc_push(cuzk_lc_t *lc, cuzk_var_t var, cuzk_lc_coeff_kind_t kind, const cuzk_fr_t *c) {
  assert(kind != CUZK_LC_COEFF_FR || c != NULL);
  if (lc->n == UINT32_MAX || !cuzk__lc_reserve(lc, lc->n + 1)) {
    lc->oom = true;
    return;
  }
  cuzk_lc_term_t *t = &cuzk_lc_terms(lc)[lc->n++];
  t->var = var;
  t->kind = (uint32_t)kind;
  if (kind == CUZK_LC_COEFF_FR)
    t->c = *c;
  else
    memset(&t->c, 0, sizeof t->c);
}

static cuzk_lc_coeff_kind_t cuzk__classify(const cuzk_fr_t *c) {
  if (cuzk_fr_is_one(c)) return CUZK_LC_COEFF_ONE;
  cuzk_fr_t neg;
  cuzk_fr_neg(&neg, c);
  if (cuzk_fr_is_one(&neg)) return CUZK_LC_COEFF_NEG_ONE;
  return CUZK_LC_COEFF_FR;
}

void cuzk_lc_add_fr(cuzk_lc_t *lc, const cuzk_fr_t *coeff, cuzk_var_t var) {
  if (cuzk_fr_is_zero(coeff)) return;
  cuzk__lc_push(lc, var, cuzk__classify(coeff), coeff);
}

void cuzk_lc_add_i64(cuzk_lc_t *lc, int64_t coeff, cuzk_var_t var) {
  if (coeff == 0) return;
  if (coeff == 1) return cuzk_lc_add(lc, var);
  if (coeff == -1) return cuzk_lc_sub(lc, var);
  cuzk_fr_t c;
  /* |INT64_MIN| = 2^63 still fits in u64 */
  uint64_t mag = coeff < 0 ? (uint64_t)0 - (uint64_t)coeff : (uint64_t)coeff;
  cuzk_fr_from_u64(&c, mag);
  if (coeff < 0) cuzk_fr_neg(&c, &c);
  cuzk__lc_push(lc, var, CUZK_LC_COEFF_FR, &c);
}

void cuzk_lc_term_coeff(cuzk_fr_t *out, const cuzk_lc_term_t *t) {
  switch ((cuzk_lc_coeff_kind_t)t->kind) {
    case CUZK_LC_COEFF_ONE:
      *out = CUZK_FR_ONE;
      break;
    case CUZK_LC_COEFF_NEG_ONE:
      cuzk_fr_neg(out, &CUZK_FR_ONE);
      break;
    default:
      *out = t->c;
      break;
  }
}

void cuzk_lc_add_lc(cuzk_lc_t *lc, const cuzk_fr_t *coeff, const cuzk_lc_t *other) {
  assert(lc != other);
  const cuzk_lc_term_t *t = cuzk_lc_terms_const(other);
  if (other->oom) lc->oom = true;
  if (!coeff || cuzk_fr_is_one(coeff)) {
    if (!cuzk__lc_reserve(lc, lc->n + other->n)) return;
    memcpy(cuzk_lc_terms(lc) + lc->n, t, (size_t)other->n * sizeof *t);
    lc->n += other->n;
    return;
  }
  if (cuzk_fr_is_zero(coeff)) return;
  for (uint32_t i = 0; i < other->n; i++) {
    cuzk_fr_t c;
    cuzk_lc_term_coeff(&c, &t[i]);
    cuzk_fr_mul(&c, &c, coeff);
    cuzk_lc_add_fr(lc, &c, t[i].var);
  }
}

void cuzk_lc_sub_lc(cuzk_lc_t *lc, const cuzk_lc_t *other) {
  assert(lc != other);
  const cuzk_lc_term_t *t = cuzk_lc_terms_const(other);
  if (other->oom) lc->oom = true;
  if (!cuzk__lc_reserve(lc, lc->n + other->n)) return;
  cuzk_lc_term_t *d = cuzk_lc_terms(lc) + lc->n;
  for (uint32_t i = 0; i < other->n; i++) {
    d[i] = t[i];
    switch ((cuzk_lc_coeff_kind_t)t[i].kind) {
      case CUZK_LC_COEFF_ONE:
        d[i].kind = CUZK_LC_COEFF_NEG_ONE;
        break;
      case CUZK_LC_COEFF_NEG_ONE:
        d[i].kind = CUZK_LC_COEFF_ONE;
        break;
      default:
        cuzk_fr_neg(&d[i].c, &t[i].c);
        break;
    }
  }
  lc->n += other->n;
}

static int cuzk__term_cmp(const void *x, const void *y) {
  uint32_t a = ((const cuzk_lc_term_t *)x)->var.v, b = ((const cuzk_lc_term_t *)y)->var.v;
  return a < b ? -1 : a > b;
}

void cuzk_lc_normalize(cuzk_lc_t *lc) {
  cuzk_lc_term_t *t = cuzk_lc_terms(lc);
  uint32_t n = lc->n;
  if (n <= 16) {
    for (uint32_t i = 1; i < n; i++) {
      cuzk_lc_term_t x = t[i];
      uint32_t j = i;
      while (j > 0 && t[j - 1].var.v > x.var.v) {
        t[j] = t[j - 1];
        j--;
      }
      t[j] = x;
    }
  } else {
    qsort(t, n, sizeof *t, cuzk__term_cmp);
  }
  uint32_t out = 0;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && t[j].var.v == t[i].var.v) j++;
    if (j == i + 1) {
      if (t[i].kind != CUZK_LC_COEFF_FR || !cuzk_fr_is_zero(&t[i].c)) t[out++] = t[i];
    } else {
      cuzk_fr_t acc, c;
      cuzk_lc_term_coeff(&acc, &t[i]);
      for (uint32_t k = i + 1; k < j; k++) {
        cuzk_lc_term_coeff(&c, &t[k]);
        cuzk_fr_add(&acc, &acc, &c);
      }
      if (!cuzk_fr_is_zero(&acc)) {
        t[out].var = t[i].var;
        t[out].kind = (uint32_t)cuzk__classify(&acc);
        t[out].c = acc;
        if (t[out].kind != CUZK_LC_COEFF_FR) memset(&t[out].c, 0, sizeof acc);
        out++;
      }
    }
    i = j;
  }
  lc->n = out;
}
