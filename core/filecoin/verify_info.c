#include "core/filecoin/verify_info.h"

#include <stdlib.h>
#include <string.h>

#include "core/filecoin/cid.h"

/* A small strict JSON reader: recursive descent over the text, no tree. */
typedef struct {
  const char *s;
  size_t len, pos;
  int depth;
  char *errstr;
  size_t errstr_size;
} js_t;

#define JS_MAX_DEPTH 32

static cuzk_err_t js_err(js_t *j, const char *what) {
  return cuzk_errf(CUZK_ERR_PARSE, j->errstr, j->errstr_size, "JSON: %s at offset %zu", what,
                   j->pos);
}

static void js_ws(js_t *j) {
  while (j->pos < j->len && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' || j->s[j->pos] == '\n' ||
                             j->s[j->pos] == '\r'))
    j->pos++;
}

static int js_peek(js_t *j) {
  js_ws(j);
  return j->pos < j->len ? (unsigned char)j->s[j->pos] : -1;
}

static int js_eat(js_t *j, char c) {
  if (js_peek(j) == c) {
    j->pos++;
    return 1;
  }
  return 0;
}

/* Reads a string into buf (NUL-terminated; escapes limited to ASCII). */
static cuzk_err_t js_string(js_t *j, char *buf, size_t cap) {
  if (!js_eat(j, '"')) return js_err(j, "expected a string");
  size_t n = 0;
  while (j->pos < j->len) {
    char c = j->s[j->pos++];
    if (c == '"') {
      if (buf) buf[n] = 0;
      return CUZK_OK;
    }
    if ((unsigned char)c < 0x20) return js_err(j, "control character in string");
    if (c == '\\') {
      if (j->pos >= j->len) break;
      char e = j->s[j->pos++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          c = e;
          break;
        case 'b':
          c = '\b';
          break;
        case 'f':
          c = '\f';
          break;
        case 'n':
          c = '\n';
          break;
        case 'r':
          c = '\r';
          break;
        case 't':
          c = '\t';
          break;
        case 'u': {
          if (j->len - j->pos < 4) return js_err(j, "short \\u escape");
          unsigned v = 0;
          for (int k = 0; k < 4; k++) {
            char h = j->s[j->pos++];
            v <<= 4;
            if (h >= '0' && h <= '9')
              v |= (unsigned)(h - '0');
            else if (h >= 'a' && h <= 'f')
              v |= (unsigned)(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
              v |= (unsigned)(h - 'A' + 10);
            else
              return js_err(j, "bad \\u escape");
          }
          c = v < 0x80 ? (char)v : '?';
          break;
        }
        default:
          return js_err(j, "bad escape");
      }
    }
    if (buf) {
      if (n + 1 >= cap) return js_err(j, "string too long");
      buf[n++] = c;
    }
  }
  return js_err(j, "unterminated string");
}

static cuzk_err_t js_skip(js_t *j);

static cuzk_err_t js_number(js_t *j, int64_t *sv, uint64_t *uv) {
  js_ws(j);
  int neg = 0;
  if (j->pos < j->len && j->s[j->pos] == '-') {
    neg = 1;
    j->pos++;
  }
  size_t start = j->pos;
  uint64_t v = 0;
  while (j->pos < j->len && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
    unsigned d = (unsigned)(j->s[j->pos++] - '0');
    if (v > (UINT64_MAX - d) / 10) return js_err(j, "integer overflow");
    v = v * 10 + d;
  }
  if (j->pos == start) return js_err(j, "expected a number");
  if (j->pos < j->len && (j->s[j->pos] == '.' || j->s[j->pos] == 'e' || j->s[j->pos] == 'E'))
    return js_err(j, "expected an integer");
  if (uv) {
    if (neg) return js_err(j, "expected a non-negative integer");
    *uv = v;
  }
  if (sv) {
    if (v > (uint64_t)INT64_MAX) return js_err(j, "integer out of range");
    *sv = neg ? -(int64_t)v : (int64_t)v;
  }
  return CUZK_OK;
}

static cuzk_err_t js_literal(js_t *j, const char *lit) {
  size_t n = strlen(lit);
  js_ws(j);
  if (j->len - j->pos < n || memcmp(j->s + j->pos, lit, n) != 0) return js_err(j, "bad literal");
  j->pos += n;
  return CUZK_OK;
}

/* Iterates an object: calls on_key for each key with the reader positioned at the value;
 * on_key must consume the value. */
typedef cuzk_err_t (*js_key_fn)(js_t *j, const char *key, void *ctx);

static cuzk_err_t js_object(js_t *j, js_key_fn fn, void *ctx) {
  if (!js_eat(j, '{')) return js_err(j, "expected an object");
  if (++j->depth > JS_MAX_DEPTH) return js_err(j, "nesting too deep");
  cuzk_err_t e;
  if (!js_eat(j, '}')) {
    do {
      char key[64];
      if ((e = js_string(j, key, sizeof key)) != CUZK_OK) return e;
      if (!js_eat(j, ':')) return js_err(j, "expected ':'");
      if ((e = fn(j, key, ctx)) != CUZK_OK) return e;
    } while (js_eat(j, ','));
    if (!js_eat(j, '}')) return js_err(j, "expected ',' or '}'");
  }
  j->depth--;
  return CUZK_OK;
}

typedef cuzk_err_t (*js_elem_fn)(js_t *j, size_t i, void *ctx);

static cuzk_err_t js_array(js_t *j, js_elem_fn fn, void *ctx) {
  if (!js_eat(j, '[')) return js_err(j, "expected an array");
  if (++j->depth > JS_MAX_DEPTH) return js_err(j, "nesting too deep");
  cuzk_err_t e;
  size_t i = 0;
  if (!js_eat(j, ']')) {
    do {
      if ((e = fn(j, i++, ctx)) != CUZK_OK) return e;
    } while (js_eat(j, ','));
    if (!js_eat(j, ']')) return js_err(j, "expected ',' or ']'");
  }
  j->depth--;
  return CUZK_OK;
}

static cuzk_err_t skip_key(js_t *j, const char *key, void *ctx) {
  (void)key, (void)ctx;
  return js_skip(j);
}

static cuzk_err_t skip_elem(js_t *j, size_t i, void *ctx) {
  (void)i, (void)ctx;
  return js_skip(j);
}

static cuzk_err_t js_skip(js_t *j) {
  int c = js_peek(j);
  switch (c) {
    case '{':
      return js_object(j, skip_key, NULL);
    case '[':
      return js_array(j, skip_elem, NULL);
    case '"':
      return js_string(j, NULL, 0);
    case 't':
      return js_literal(j, "true");
    case 'f':
      return js_literal(j, "false");
    case 'n':
      return js_literal(j, "null");
    default:
      return js_number(j, NULL, NULL);
  }
}

/* ---- base64 (RFC 4648, standard alphabet, padding required) --------------------------------- */

static int b64v(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

static int b64_decode(uint8_t *out, size_t cap, size_t *outlen, const char *s) {
  size_t n = strlen(s), o = 0;
  if (n % 4) return -1;
  for (size_t i = 0; i < n; i += 4) {
    int v[4], pad = 0;
    for (int k = 0; k < 4; k++) {
      if (s[i + k] == '=' && i + 4 == n && k >= 2) {
        v[k] = 0;
        pad++;
      } else {
        if (pad) return -1;
        if ((v[k] = b64v(s[i + k])) < 0) return -1;
      }
    }
    uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    uint8_t b[3] = {(uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w};
    for (int k = 0; k < 3 - pad; k++) {
      if (o >= cap) return -1;
      out[o++] = b[k];
    }
  }
  *outlen = o;
  return 0;
}

/* ---- WindowPoStVerifyInfo ------------------------------------------------------------------ */

typedef struct {
  cuzk_post_verify_info_t *info;
  int have_randomness;
  cuzk_post_challenged_sector_t *cur;
  int have_cid, have_number;
} ctx_t;

static cuzk_err_t cid_key(js_t *j, const char *key, void *vctx) {
  ctx_t *c = vctx;
  if (strcmp(key, "/") != 0) return js_skip(j);
  char cid[256];
  cuzk_err_t e = js_string(j, cid, sizeof cid);
  if (e != CUZK_OK) return e;
  if ((e = cuzk_filecoin_commr_from_cid(c->cur->comm_r, cid, j->errstr, j->errstr_size)) != CUZK_OK)
    return e;
  c->have_cid = 1;
  return CUZK_OK;
}

static cuzk_err_t sector_key(js_t *j, const char *key, void *vctx) {
  ctx_t *c = vctx;
  if (strcmp(key, "SealProof") == 0) return js_number(j, &c->cur->seal_proof, NULL);
  if (strcmp(key, "SectorNumber") == 0) {
    c->have_number = 1;
    return js_number(j, NULL, &c->cur->sector_number);
  }
  if (strcmp(key, "SealedCID") == 0) return js_object(j, cid_key, c);
  return js_skip(j);
}

static cuzk_err_t sector_elem(js_t *j, size_t i, void *vctx) {
  ctx_t *c = vctx;
  cuzk_post_verify_info_t *info = c->info;
  (void)i;
  cuzk_post_challenged_sector_t *n =
      realloc(info->sectors, (info->n_sectors + 1) * sizeof *info->sectors);
  if (!n) return cuzk_errf(CUZK_ERR_NOMEM, j->errstr, j->errstr_size, "out of memory");
  info->sectors = n;
  c->cur = &info->sectors[info->n_sectors++];
  memset(c->cur, 0, sizeof *c->cur);
  c->cur->seal_proof = -1;
  c->have_cid = c->have_number = 0;
  cuzk_err_t e = js_object(j, sector_key, c);
  if (e != CUZK_OK) return e;
  if (!c->have_cid || !c->have_number)
    return js_err(j, "challenged sector lacks SectorNumber or SealedCID");
  return CUZK_OK;
}

static cuzk_err_t proof_key(js_t *j, const char *key, void *vctx) {
  ctx_t *c = vctx;
  if (strcmp(key, "PoStProof") == 0) {
    int64_t v;
    cuzk_err_t e = js_number(j, &v, NULL);
    if (e == CUZK_OK && c->info->post_proof < 0) c->info->post_proof = v;
    return e;
  }
  return js_skip(j);
}

static cuzk_err_t proof_elem(js_t *j, size_t i, void *vctx) {
  (void)i;
  return js_object(j, proof_key, vctx);
}

static cuzk_err_t top_key(js_t *j, const char *key, void *vctx) {
  ctx_t *c = vctx;
  if (strcmp(key, "Randomness") == 0) {
    char b64[128];
    cuzk_err_t e = js_string(j, b64, sizeof b64);
    if (e != CUZK_OK) return e;
    size_t n = 0;
    uint8_t tmp[96];
    if (b64_decode(tmp, sizeof tmp, &n, b64) != 0 || n != 32)
      return js_err(j, "Randomness is not 32 bytes of base64");
    memcpy(c->info->randomness, tmp, 32);
    c->have_randomness = 1;
    return CUZK_OK;
  }
  if (strcmp(key, "Prover") == 0) return js_number(j, NULL, &c->info->prover);
  if (strcmp(key, "Proofs") == 0) {
    if (js_peek(j) == 'n') return js_literal(j, "null");
    return js_array(j, proof_elem, c);
  }
  if (strcmp(key, "ChallengedSectors") == 0) return js_array(j, sector_elem, c);
  return js_skip(j);
}

void cuzk_post_verify_info_clear(cuzk_post_verify_info_t *info) {
  if (!info) return;
  free(info->sectors);
  memset(info, 0, sizeof *info);
  info->post_proof = -1;
}

cuzk_err_t cuzk_post_verify_info_parse(cuzk_post_verify_info_t *out, const char *json, size_t len,
                                       char *errstr, size_t errstr_size) {
  if (!out || (!json && len))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "NULL argument");
  memset(out, 0, sizeof *out);
  out->post_proof = -1;
  js_t j = {json, len, 0, 0, errstr, errstr_size};
  ctx_t c = {out, 0, NULL, 0, 0};
  cuzk_err_t e = js_object(&j, top_key, &c);
  if (e == CUZK_OK && js_peek(&j) != -1) e = js_err(&j, "trailing characters");
  if (e == CUZK_OK && !c.have_randomness) e = js_err(&j, "missing Randomness");
  if (e != CUZK_OK) cuzk_post_verify_info_clear(out);
  return e;
}
