#include "core/groth16/snarkjs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *s;
  size_t len, cap;
  int oom;
} sbuf_t;

static void sb_put(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_put(sbuf_t *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = 1;
      return;
    }
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
}

static char *sb_done(sbuf_t *b) {
  if (b->oom) {
    free(b->s);
    return NULL;
  }
  return b->s;
}

static void put_fp(sbuf_t *b, const cuzk_fp_t *x) {
  uint64_t raw[CUZK_FP_LIMBS];
  char dec[128];
  cuzk_fp_to_raw(raw, x);
  cuzk_groth16_limbs_to_decimal(dec, sizeof dec, raw, CUZK_FP_LIMBS);
  sb_put(b, "\"%s\"", dec);
}

static void put_g1(sbuf_t *b, const cuzk_g1_affine_t *p) {
  if (cuzk_g1_affine_is_infinity(p)) {
    sb_put(b, "[\"0\",\"1\",\"0\"]");
    return;
  }
  sb_put(b, "[");
  put_fp(b, &p->x);
  sb_put(b, ",");
  put_fp(b, &p->y);
  sb_put(b, ",\"1\"]");
}

static void put_g2(sbuf_t *b, const cuzk_g2_affine_t *p) {
  if (cuzk_g2_affine_is_infinity(p)) {
    sb_put(b, "[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]");
    return;
  }
  sb_put(b, "[[");
  put_fp(b, &p->x.c0);
  sb_put(b, ",");
  put_fp(b, &p->x.c1);
  sb_put(b, "],[");
  put_fp(b, &p->y.c0);
  sb_put(b, ",");
  put_fp(b, &p->y.c1);
  sb_put(b, "],[\"1\",\"0\"]]");
}

char *cuzk_snarkjs_vk_json(const cuzk_groth16_vk_t *vk) {
  sbuf_t b = {0};
  sb_put(&b, "{\"protocol\":\"groth16\",\"curve\":\"bls12381\",\"nPublic\":%zu,\"vk_alpha_1\":",
         vk->n_ic ? vk->n_ic - 1 : 0);
  put_g1(&b, &vk->alpha_g1);
  sb_put(&b, ",\"vk_beta_2\":");
  put_g2(&b, &vk->beta_g2);
  sb_put(&b, ",\"vk_gamma_2\":");
  put_g2(&b, &vk->gamma_g2);
  sb_put(&b, ",\"vk_delta_2\":");
  put_g2(&b, &vk->delta_g2);
  sb_put(&b, ",\"IC\":[");
  for (size_t i = 0; i < vk->n_ic; i++) {
    if (i) sb_put(&b, ",");
    put_g1(&b, &vk->ic[i]);
  }
  sb_put(&b, "]}");
  return sb_done(&b);
}

char *cuzk_snarkjs_proof_json(const cuzk_groth16_proof_t *proof) {
  sbuf_t b = {0};
  sb_put(&b, "{\"pi_a\":");
  put_g1(&b, &proof->a);
  sb_put(&b, ",\"pi_b\":");
  put_g2(&b, &proof->b);
  sb_put(&b, ",\"pi_c\":");
  put_g1(&b, &proof->c);
  sb_put(&b, ",\"protocol\":\"groth16\",\"curve\":\"bls12381\"}");
  return sb_done(&b);
}

char *cuzk_snarkjs_public_json(const cuzk_fr_t *pub, size_t n) {
  sbuf_t b = {0};
  sb_put(&b, "[");
  for (size_t i = 0; i < n; i++) {
    uint64_t raw[4];
    char dec[96];
    cuzk_fr_to_raw(raw, &pub[i]);
    cuzk_groth16_limbs_to_decimal(dec, sizeof dec, raw, 4);
    sb_put(&b, "%s\"%s\"", i ? "," : "", dec);
  }
  sb_put(&b, "]");
  return sb_done(&b);
}

cuzk_err_t cuzk_snarkjs_public_parse(cuzk_fr_t **out, size_t *n, const char *json) {
  *out = NULL;
  *n = 0;
  const char *p = json;
  while (isspace((unsigned char)*p)) p++;
  if (*p++ != '[') return CUZK_ERR_PARSE;
  size_t cap = 0, cnt = 0;
  cuzk_fr_t *v = NULL;
  cuzk_err_t e = CUZK_OK;
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (*p == ']' && cnt == 0) {
      p++;
      break;
    }
    if (*p++ != '"') goto parse;
    const char *end = strchr(p, '"');
    if (!end || end == p || end - p > 100) goto parse;
    char dec[104];
    memcpy(dec, p, (size_t)(end - p));
    dec[end - p] = 0;
    p = end + 1;
    if (cnt == cap) {
      cap = cap ? cap * 2 : 16;
      cuzk_fr_t *nv = realloc(v, cap * sizeof *v);
      if (!nv) {
        e = CUZK_ERR_NOMEM;
        goto fail;
      }
      v = nv;
    }
    e = cuzk_groth16_public_from_decimal(&v[cnt], dec);
    if (e != CUZK_OK) goto fail;
    cnt++;
    while (isspace((unsigned char)*p)) p++;
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p == ']') {
      p++;
      break;
    }
    goto parse;
  }
  while (isspace((unsigned char)*p)) p++;
  if (*p) goto parse;
  *out = v ? v : malloc(1);
  if (!*out) return CUZK_ERR_NOMEM;
  *n = cnt;
  return CUZK_OK;
parse:
  e = CUZK_ERR_PARSE;
fail:
  free(v);
  return e;
}
