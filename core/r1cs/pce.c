/* PCE files: see the format comment in r1cs.h. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/poly/par.h"
#include "core/r1cs/r1cs_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "PCE files are mapped in place: little-endian hosts only"
#endif

#define CUZK__PCE_MAGIC "CUZKPCE\0"
#define CUZK__PCE_DIGEST_OFF 88u
#define CUZK__PCE_CHUNK ((uint64_t)64 << 20)
/* sanity limits: columns fit u32; rows and entries well beyond any Filecoin circuit */
#define CUZK__PCE_MAX_ROWS ((uint64_t)1 << 36)
#define CUZK__PCE_MAX_NNZ ((uint64_t)1 << 38)

typedef struct {
  uint64_t m, ni, naux, nnz[3], ncoeffs, file_size;
} cuzk__pce_counts_t;

/* The body as a list of segments (coeffs, then row_ptr/entries of A, B, C). */
typedef struct {
  const uint8_t *p[7];
  uint64_t len[7];
} cuzk__pce_body_t;

static void cuzk__put64(uint8_t *p, uint64_t v) {
  memcpy(p, &v, 8);
}
static void cuzk__put32(uint8_t *p, uint32_t v) {
  memcpy(p, &v, 4);
}
static uint64_t cuzk__get64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static uint32_t cuzk__get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Body size for the counts; false on overflow. */
static bool cuzk__pce_body_size(const cuzk__pce_counts_t *c, uint64_t *out) {
  if (c->m > CUZK__PCE_MAX_ROWS || c->ncoeffs > UINT32_MAX) return false;
  uint64_t s = c->ncoeffs * 32;
  for (int k = 0; k < 3; k++) {
    if (c->nnz[k] > CUZK__PCE_MAX_NNZ) return false;
    s += (c->m + 1) * 8 + c->nnz[k] * 8;
  }
  *out = s;
  return true;
}

static void cuzk__pce_segments(cuzk__pce_body_t *b, const cuzk__pce_counts_t *c,
                               const uint8_t *coeffs, const uint8_t *rp[3], const uint8_t *ent[3]) {
  b->p[0] = coeffs;
  b->len[0] = c->ncoeffs * 32;
  for (int k = 0; k < 3; k++) {
    b->p[1 + 2 * k] = rp[k];
    b->len[1 + 2 * k] = (c->m + 1) * 8;
    b->p[2 + 2 * k] = ent[k];
    b->len[2 + 2 * k] = c->nnz[k] * 8;
  }
}

typedef struct {
  const cuzk__pce_body_t *body;
  uint64_t total;
  uint8_t (*digests)[32];
  int failed;
} cuzk__hash_job_t;

static void cuzk__hash_chunk(void *ctx, size_t i) {
  cuzk__hash_job_t *j = ctx;
  uint64_t lo = (uint64_t)i * CUZK__PCE_CHUNK;
  uint64_t hi = lo + CUZK__PCE_CHUNK < j->total ? lo + CUZK__PCE_CHUNK : j->total;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    EVP_MD_CTX_free(md);
    return;
  }
  uint64_t off = 0;
  for (int s = 0; s < 7; s++) {
    uint64_t s_lo = off, s_hi = off + j->body->len[s];
    off = s_hi;
    uint64_t a = lo > s_lo ? lo : s_lo, b = hi < s_hi ? hi : s_hi;
    if (a >= b) continue;
    if (EVP_DigestUpdate(md, j->body->p[s] + (a - s_lo), (size_t)(b - a)) != 1)
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
  }
  unsigned int dl = 32;
  if (EVP_DigestFinal_ex(md, j->digests[i], &dl) != 1)
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
  EVP_MD_CTX_free(md);
}

/* digest = SHA-256(header[0..88) ‖ SHA-256(chunk_0) ‖ …). */
static cuzk_err_t cuzk__pce_digest(uint8_t out[32], const uint8_t *header,
                                   const cuzk__pce_body_t *body) {
  uint64_t total = 0;
  for (int s = 0; s < 7; s++) total += body->len[s];
  size_t nchunks = (size_t)((total + CUZK__PCE_CHUNK - 1) / CUZK__PCE_CHUNK);
  uint8_t(*d)[32] = calloc(nchunks ? nchunks : 1, 32);
  if (!d) return CUZK_ERR_NOMEM;
  cuzk__hash_job_t j = {.body = body, .total = total, .digests = d};
  cuzk__par_for(nchunks, cuzk__hash_chunk, &j);
  cuzk_err_t err = CUZK_OK;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  unsigned int dl = 32;
  if (j.failed || !md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
      EVP_DigestUpdate(md, header, CUZK__PCE_DIGEST_OFF) != 1 ||
      (nchunks && EVP_DigestUpdate(md, d, nchunks * 32) != 1) ||
      EVP_DigestFinal_ex(md, out, &dl) != 1)
    err = CUZK_ERR_INTERNAL;
  EVP_MD_CTX_free(md);
  free(d);
  return err;
}

static void cuzk__pce_header(uint8_t h[CUZK_PCE_HEADER_SIZE], const cuzk__pce_counts_t *c) {
  memset(h, 0, CUZK_PCE_HEADER_SIZE);
  memcpy(h, CUZK__PCE_MAGIC, 8);
  cuzk__put32(h + 8, CUZK_PCE_VERSION);
  cuzk__put32(h + 12, CUZK_PCE_HEADER_SIZE);
  cuzk__put64(h + 16, 0);
  cuzk__put64(h + 24, c->m);
  cuzk__put64(h + 32, c->ni);
  cuzk__put64(h + 40, c->naux);
  for (int k = 0; k < 3; k++) cuzk__put64(h + 48 + 8 * k, c->nnz[k]);
  cuzk__put64(h + 72, c->ncoeffs);
  cuzk__put64(h + 80, c->file_size);
}

static bool cuzk__write_all(int fd, const void *p, uint64_t len) {
  const uint8_t *b = p;
  while (len) {
    size_t n = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)len;
    ssize_t w = write(fd, b, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    b += w;
    len -= (uint64_t)w;
  }
  return true;
}

cuzk_err_t cuzk_r1cs_save(const cuzk_r1cs_t *r, const char *path, char *errstr,
                          size_t errstr_size) {
  assert(r && path);
  cuzk__pce_counts_t c = {.m = r->m, .ni = r->ni, .naux = r->naux, .ncoeffs = r->ncoeffs};
  for (int k = 0; k < 3; k++) c.nnz[k] = r->mat[k].nnz;
  uint64_t body_size;
  if (!cuzk__pce_body_size(&c, &body_size))
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size, "pce: system too large to save");
  c.file_size = CUZK_PCE_HEADER_SIZE + body_size;
  uint8_t h[CUZK_PCE_HEADER_SIZE];
  cuzk__pce_header(h, &c);
  cuzk__pce_body_t body;
  const uint8_t *rp[3], *ent[3];
  for (int k = 0; k < 3; k++) {
    rp[k] = (const uint8_t *)r->mat[k].row_ptr;
    ent[k] = (const uint8_t *)r->mat[k].entries;
  }
  cuzk__pce_segments(&body, &c, (const uint8_t *)r->coeffs, rp, ent);
  cuzk_err_t err = cuzk__pce_digest(h + CUZK__PCE_DIGEST_OFF, h, &body);
  if (err != CUZK_OK) return cuzk_errf(err, errstr, errstr_size, "pce: hashing failed");

  size_t pl = strlen(path);
  char *tmp = malloc(pl + 32);
  if (!tmp) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "pce: out of memory");
  static unsigned seq; /* distinct temporaries for concurrent saves within one process */
  snprintf(tmp, pl + 32, "%s.tmp.%ld.%u", path, (long)getpid(),
           __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    err = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "pce: create %s: %s", tmp, strerror(errno));
    free(tmp);
    return err;
  }
  bool ok = cuzk__write_all(fd, h, sizeof h);
  for (int s = 0; s < 7 && ok; s++) ok = cuzk__write_all(fd, body.p[s], body.len[s]);
  int saved = errno;
  if (ok && fsync(fd) != 0) ok = false, saved = errno;
  if (close(fd) != 0 && ok) ok = false, saved = errno;
  if (ok && rename(tmp, path) != 0) ok = false, saved = errno;
  if (!ok) {
    unlink(tmp);
    err = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "pce: write %s: %s", path, strerror(saved));
    free(tmp);
    return err;
  }
  free(tmp);
  /* make the rename durable */
  char *dir = strdup(path);
  if (dir) {
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
      if (slash == dir)
        slash[1] = 0;
      else
        *slash = 0;
      d = dir;
    }
    int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
    free(dir);
  }
  return CUZK_OK;
}

/* ---- load ------------------------------------------------------------------------------- */

typedef struct {
  cuzk_r1cs_t *r;
  size_t chunks;
  int bad; /* 1: column index, 2: coefficient index, 3: row pointers, 4: column order */
  uint64_t bad_at;
  int bad_mat;
} cuzk__validate_job_t;

static void cuzk__vbad(cuzk__validate_job_t *j, int why, uint64_t at, int k) {
  int zero = 0;
  if (__atomic_compare_exchange_n(&j->bad, &zero, why, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    j->bad_at = at;
    j->bad_mat = k;
  }
}

static void cuzk__validate_chunk(void *ctx, size_t i) {
  cuzk__validate_job_t *j = ctx;
  cuzk_r1cs_t *r = j->r;
  uint64_t r0 = r->m * i / j->chunks, r1 = r->m * (i + 1) / j->chunks;
  uint64_t ncols = r->ni + r->naux;
  for (int k = 0; k < 3; k++) {
    const cuzk_r1cs_matrix_t *mat = &r->mat[k];
    for (uint64_t row = r0; row < r1; row++) {
      uint64_t a = mat->row_ptr[row], b = mat->row_ptr[row + 1];
      if (a > b || b > mat->nnz) return cuzk__vbad(j, 3, row, k);
      for (uint64_t e = a; e < b; e++) {
        uint32_t col = mat->entries[e].col;
        if (col >= ncols) return cuzk__vbad(j, 1, e, k);
        if (mat->entries[e].coeff >= r->ncoeffs) return cuzk__vbad(j, 2, e, k);
        if (e > a && col <= mat->entries[e - 1].col) return cuzk__vbad(j, 4, e, k);
      }
    }
  }
  cuzk__r1cs_mark_density(r, r0, r1);
}

static bool cuzk__fr_canonical(const cuzk_fr_t *x) {
  for (int i = CUZK_FR_LIMBS - 1; i >= 0; i--) {
    if (x->l[i] < CUZK_FR_MODULUS[i]) return true;
    if (x->l[i] > CUZK_FR_MODULUS[i]) return false;
  }
  return false;
}

cuzk_err_t cuzk_r1cs_load(cuzk_r1cs_t **out, const char *path, char *errstr, size_t errstr_size) {
  assert(out && path);
  *out = NULL;
  cuzk_file_map_t fm;
  cuzk_err_t err = cuzk_file_map(path, &fm, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  uint64_t size = fm.len;
  cuzk_r1cs_t *r = NULL;
  if (size < CUZK_PCE_HEADER_SIZE) {
    err = cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                    "pce: %s has %llu bytes, less than a header", path, (unsigned long long)size);
    goto fail;
  }
  const uint8_t *h = fm.data;
  if (memcmp(h, CUZK__PCE_MAGIC, 8) != 0) {
    err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "pce: %s: bad magic", path);
    goto fail;
  }
  if (cuzk__get32(h + 8) != CUZK_PCE_VERSION) {
    err = cuzk_errf(CUZK_ERR_VERSION, errstr, errstr_size, "pce: %s: version %u, expected %u", path,
                    cuzk__get32(h + 8), CUZK_PCE_VERSION);
    goto fail;
  }
  cuzk__pce_counts_t c = {.m = cuzk__get64(h + 24),
                          .ni = cuzk__get64(h + 32),
                          .naux = cuzk__get64(h + 40),
                          .ncoeffs = cuzk__get64(h + 72),
                          .file_size = cuzk__get64(h + 80)};
  for (int k = 0; k < 3; k++) c.nnz[k] = cuzk__get64(h + 48 + 8 * k);
  uint64_t body_size;
  if (cuzk__get32(h + 12) != CUZK_PCE_HEADER_SIZE || cuzk__get64(h + 16) != 0 ||
      cuzk__get64(h + 120) != 0 || c.ni == 0 || c.ni > UINT32_MAX || c.naux > UINT32_MAX ||
      c.ni + c.naux > UINT32_MAX || c.ncoeffs < 2 || !cuzk__pce_body_size(&c, &body_size) ||
      c.file_size != CUZK_PCE_HEADER_SIZE + body_size) {
    err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "pce: %s: inconsistent header", path);
    goto fail;
  }
  if (size < c.file_size) {
    err = cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                    "pce: %s is truncated (%llu of %llu bytes)", path, (unsigned long long)size,
                    (unsigned long long)c.file_size);
    goto fail;
  }
  if (size > c.file_size) {
    err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "pce: %s has %llu trailing bytes", path,
                    (unsigned long long)(size - c.file_size));
    goto fail;
  }
  const uint8_t *p = h + CUZK_PCE_HEADER_SIZE;
  const uint8_t *coeffs = p, *rp[3], *ent[3];
  p += c.ncoeffs * 32;
  for (int k = 0; k < 3; k++) {
    rp[k] = p;
    p += (c.m + 1) * 8;
    ent[k] = p;
    p += c.nnz[k] * 8;
  }
  cuzk__pce_body_t body;
  cuzk__pce_segments(&body, &c, coeffs, rp, ent);
  uint8_t digest[32];
  if ((err = cuzk__pce_digest(digest, h, &body)) != CUZK_OK) {
    err = cuzk_errf(err, errstr, errstr_size, "pce: hashing failed");
    goto fail;
  }
  if (memcmp(digest, h + CUZK__PCE_DIGEST_OFF, 32) != 0) {
    err = cuzk_errf(CUZK_ERR_CHECKSUM, errstr, errstr_size, "pce: %s: digest mismatch", path);
    goto fail;
  }
  r = calloc(1, sizeof *r);
  if (!r) {
    err = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "pce: out of memory");
    goto fail;
  }
  r->m = c.m;
  r->ni = c.ni;
  r->naux = c.naux;
  r->coeffs = (const cuzk_fr_t *)coeffs;
  r->ncoeffs = c.ncoeffs;
  for (int k = 0; k < 3; k++) {
    r->mat[k].row_ptr = (const uint64_t *)rp[k];
    r->mat[k].entries = (const cuzk_r1cs_entry_t *)ent[k];
    r->mat[k].nnz = c.nnz[k];
  }
  r->map = fm;
  memset(&fm, 0, sizeof fm);
  for (uint64_t i = 0; i < c.ncoeffs; i++)
    if (!cuzk__fr_canonical(&r->coeffs[i])) {
      err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                      "pce: %s: coefficient %llu is not canonical", path, (unsigned long long)i);
      goto fail;
    }
  cuzk_fr_t neg_one;
  cuzk_fr_neg(&neg_one, &CUZK_FR_ONE);
  if (!cuzk_fr_is_one(&r->coeffs[CUZK_R1CS_COEFF_ONE]) ||
      !cuzk_fr_eq(&r->coeffs[CUZK_R1CS_COEFF_NEG_ONE], &neg_one)) {
    err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                    "pce: %s: coefficients 0 and 1 must be +1 and -1", path);
    goto fail;
  }
  for (int k = 0; k < 3; k++)
    if (r->mat[k].row_ptr[0] != 0 || r->mat[k].row_ptr[c.m] != c.nnz[k]) {
      err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                      "pce: %s: matrix %c row pointers do not span its entries", path, "ABC"[k]);
      goto fail;
    }
  if (cuzk__r1cs_alloc_density(r) != CUZK_OK) {
    err = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "pce: out of memory");
    goto fail;
  }
  cuzk__validate_job_t vj = {.r = r, .chunks = cuzk__par_chunks(c.m, 1u << 14)};
  cuzk__par_for(vj.chunks, cuzk__validate_chunk, &vj);
  if (vj.bad) {
    static const char *what[] = {"", "column index out of range", "coefficient index out of range",
                                 "row pointers not increasing",
                                 "columns not increasing within a row"};
    err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "pce: %s: matrix %c: %s (at %llu)", path,
                    "ABC"[vj.bad_mat], what[vj.bad], (unsigned long long)vj.bad_at);
    goto fail;
  }
  cuzk__r1cs_count_density(r);
  *out = r;
  return CUZK_OK;
fail:
  cuzk_file_unmap(&fm);
  cuzk_r1cs_free(r);
  return err;
}
