#include "core/groth16/groth16.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/clock.h"
#include "core/util/file.h"
#include "core/util/log.h"
#include "core/util/pool.h"

#define G1U CUZK_G1_UNCOMPRESSED_BYTES
#define G2U CUZK_G2_UNCOMPRESSED_BYTES
#define G1C CUZK_G1_COMPRESSED_BYTES
#define G2C CUZK_G2_COMPRESSED_BYTES
#define POINTS_PER_TASK 512

void cuzk_groth16_vk_clear(cuzk_groth16_vk_t *vk) {
  if (!vk) return;
  free(vk->ic);
  memset(vk, 0, sizeof *vk);
}

void cuzk_groth16_params_free(cuzk_groth16_params_t *p) {
  if (!p) return;
  cuzk_groth16_vk_clear(&p->vk);
  free(p->h);
  free(p->l);
  free(p->a);
  free(p->b_g1);
  free(p->b_g2);
  free(p);
}

size_t cuzk_groth16_vk_size(const cuzk_groth16_vk_t *vk) {
  return CUZK_GROTH16_VK_FIXED_BYTES + G1U * vk->n_ic;
}

size_t cuzk_groth16_params_size(const cuzk_groth16_params_t *p) {
  return cuzk_groth16_vk_size(&p->vk) + 5 * 4 + G1U * (p->n_h + p->n_l + p->n_a + p->n_b_g1) +
         G2U * p->n_b_g2;
}

static void put_u32(uint8_t *o, size_t v) {
  assert(v <= UINT32_MAX);
  o[0] = (uint8_t)(v >> 24);
  o[1] = (uint8_t)(v >> 16);
  o[2] = (uint8_t)(v >> 8);
  o[3] = (uint8_t)v;
}

static uint32_t get_u32(const uint8_t *i) {
  return ((uint32_t)i[0] << 24) | ((uint32_t)i[1] << 16) | ((uint32_t)i[2] << 8) | i[3];
}

/* ---- bulk point coding, parallel ------------------------------------------------------- */

typedef struct {
  int g2;
  void *pts;      /* affine points */
  uint8_t *bytes; /* encoded, uncompressed */
  size_t n;
  unsigned flags;
  _Atomic int err;   /* first error seen (any task) */
  atomic_size_t bad; /* index of a failing point (for the message) */
} bulk_t;

static void bulk_encode_task(void *vctx, size_t t) {
  bulk_t *b = vctx;
  size_t lo = t * POINTS_PER_TASK, hi = lo + POINTS_PER_TASK;
  if (hi > b->n) hi = b->n;
  for (size_t i = lo; i < hi; i++) {
    if (b->g2)
      cuzk_g2_to_uncompressed(b->bytes + i * G2U, (cuzk_g2_affine_t *)b->pts + i);
    else
      cuzk_g1_to_uncompressed(b->bytes + i * G1U, (cuzk_g1_affine_t *)b->pts + i);
  }
}

static void bulk_decode_task(void *vctx, size_t t) {
  bulk_t *b = vctx;
  size_t lo = t * POINTS_PER_TASK, hi = lo + POINTS_PER_TASK;
  if (hi > b->n) hi = b->n;
  bool trusted = (b->flags & CUZK_GROTH16_TRUSTED) != 0;
  for (size_t i = lo; i < hi; i++) {
    if (atomic_load_explicit(&b->err, memory_order_relaxed)) return;
    cuzk_err_t e;
    bool inf;
    if (b->g2) {
      cuzk_g2_affine_t *p = (cuzk_g2_affine_t *)b->pts + i;
      const uint8_t *in = (const uint8_t *)b->bytes + i * G2U;
      e = trusted ? cuzk_g2_from_uncompressed_unchecked(p, in) : cuzk_g2_from_uncompressed(p, in);
      inf = e == CUZK_OK && cuzk_g2_affine_is_infinity(p);
    } else {
      cuzk_g1_affine_t *p = (cuzk_g1_affine_t *)b->pts + i;
      const uint8_t *in = (const uint8_t *)b->bytes + i * G1U;
      e = trusted ? cuzk_g1_from_uncompressed_unchecked(p, in) : cuzk_g1_from_uncompressed(p, in);
      inf = e == CUZK_OK && cuzk_g1_affine_is_infinity(p);
    }
    if (e == CUZK_OK && inf) e = CUZK_ERR_BAD_PARAMS;
    if (e != CUZK_OK) {
      int expect = 0;
      if (atomic_compare_exchange_strong(&b->err, &expect, (int)e)) atomic_store(&b->bad, i);
      return;
    }
  }
}

static void bulk_encode(uint8_t *out, const void *pts, size_t n, int g2) {
  bulk_t b = {.g2 = g2, .pts = (void *)pts, .bytes = out, .n = n};
  cuzk_pool_parallel_for(cuzk_pool_global(), (n + POINTS_PER_TASK - 1) / POINTS_PER_TASK,
                         bulk_encode_task, &b);
}

/* Decodes n points; on error returns it and sets *bad to a failing index. */
static cuzk_err_t bulk_decode(void *pts, const uint8_t *in, size_t n, int g2, unsigned flags,
                              size_t *bad) {
  bulk_t b = {.g2 = g2, .pts = pts, .bytes = (uint8_t *)in, .n = n, .flags = flags};
  atomic_init(&b.err, 0);
  atomic_init(&b.bad, 0);
  cuzk_pool_parallel_for(cuzk_pool_global(), (n + POINTS_PER_TASK - 1) / POINTS_PER_TASK,
                         bulk_decode_task, &b);
  *bad = atomic_load(&b.bad);
  return (cuzk_err_t)atomic_load(&b.err);
}

/* ---- vk ------------------------------------------------------------------------------- */

void cuzk_groth16_vk_encode(uint8_t *out, const cuzk_groth16_vk_t *vk) {
  uint8_t *o = out;
  cuzk_g1_to_uncompressed(o, &vk->alpha_g1), o += G1U;
  cuzk_g1_to_uncompressed(o, &vk->beta_g1), o += G1U;
  cuzk_g2_to_uncompressed(o, &vk->beta_g2), o += G2U;
  cuzk_g2_to_uncompressed(o, &vk->gamma_g2), o += G2U;
  cuzk_g1_to_uncompressed(o, &vk->delta_g1), o += G1U;
  cuzk_g2_to_uncompressed(o, &vk->delta_g2), o += G2U;
  put_u32(o, vk->n_ic), o += 4;
  for (size_t i = 0; i < vk->n_ic; i++) cuzk_g1_to_uncompressed(o, &vk->ic[i]), o += G1U;
}

static cuzk_err_t dec_g1(cuzk_g1_affine_t *p, const uint8_t *in, unsigned flags) {
  return (flags & CUZK_GROTH16_TRUSTED) ? cuzk_g1_from_uncompressed_unchecked(p, in)
                                        : cuzk_g1_from_uncompressed(p, in);
}
static cuzk_err_t dec_g2(cuzk_g2_affine_t *p, const uint8_t *in, unsigned flags) {
  return (flags & CUZK_GROTH16_TRUSTED) ? cuzk_g2_from_uncompressed_unchecked(p, in)
                                        : cuzk_g2_from_uncompressed(p, in);
}

cuzk_err_t cuzk_groth16_vk_decode(cuzk_groth16_vk_t *vk, const uint8_t *buf, size_t len,
                                  size_t *used, unsigned flags, char *errstr, size_t errstr_size) {
  assert(vk && (buf || len == 0));
  memset(vk, 0, sizeof *vk);
  if (len < CUZK_GROTH16_VK_FIXED_BYTES)
    return cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                     "verifying key: %zu bytes, need at least %d", len,
                     CUZK_GROTH16_VK_FIXED_BYTES);
  static const char *const names[6] = {"alpha_g1", "beta_g1",  "beta_g2",
                                       "gamma_g2", "delta_g1", "delta_g2"};
  const uint8_t *p = buf;
  cuzk_err_t e;
  for (int k = 0; k < 6; k++) {
    switch (k) {
      case 0:
        e = dec_g1(&vk->alpha_g1, p, flags), p += G1U;
        break;
      case 1:
        e = dec_g1(&vk->beta_g1, p, flags), p += G1U;
        break;
      case 2:
        e = dec_g2(&vk->beta_g2, p, flags), p += G2U;
        break;
      case 3:
        e = dec_g2(&vk->gamma_g2, p, flags), p += G2U;
        break;
      case 4:
        e = dec_g1(&vk->delta_g1, p, flags), p += G1U;
        break;
      default:
        e = dec_g2(&vk->delta_g2, p, flags), p += G2U;
        break;
    }
    if (e != CUZK_OK) {
      memset(vk, 0, sizeof *vk);
      return cuzk_errf(e, errstr, errstr_size, "verifying key: %s: %s", names[k], cuzk_err_str(e));
    }
  }
  size_t n = get_u32(p);
  p += 4;
  size_t rem = len - (size_t)(p - buf);
  if (n > rem / G1U) {
    memset(vk, 0, sizeof *vk);
    return cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                     "verifying key: ic has %zu points but only %zu bytes follow", n, rem);
  }
  if (!used && rem != n * G1U) {
    memset(vk, 0, sizeof *vk);
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "verifying key: %zu trailing bytes",
                     rem - n * G1U);
  }
  if (n == 0) {
    memset(vk, 0, sizeof *vk);
    return cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size, "verifying key: empty ic");
  }
  vk->ic = malloc(n * sizeof *vk->ic);
  if (!vk->ic) {
    memset(vk, 0, sizeof *vk);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "verifying key: no memory");
  }
  vk->n_ic = n;
  size_t bad;
  e = bulk_decode(vk->ic, p, n, 0, flags, &bad);
  if (e != CUZK_OK) {
    cuzk_groth16_vk_clear(vk);
    return cuzk_errf(e, errstr, errstr_size, "verifying key: ic[%zu]: %s", bad,
                     e == CUZK_ERR_BAD_PARAMS ? "point at infinity" : cuzk_err_str(e));
  }
  if (used) *used = (size_t)(p - buf) + n * G1U;
  return CUZK_OK;
}

/* ---- params --------------------------------------------------------------------------- */

void cuzk_groth16_params_encode(uint8_t *out, const cuzk_groth16_params_t *p) {
  uint8_t *o = out;
  cuzk_groth16_vk_encode(o, &p->vk);
  o += cuzk_groth16_vk_size(&p->vk);
  const void *vecs[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
  size_t lens[5] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
  for (int k = 0; k < 5; k++) {
    put_u32(o, lens[k]);
    o += 4;
    bulk_encode(o, vecs[k], lens[k], k == 4);
    o += lens[k] * (k == 4 ? G2U : G1U);
  }
}

cuzk_err_t cuzk_groth16_params_decode(cuzk_groth16_params_t **out, const uint8_t *buf, size_t len,
                                      unsigned flags, char *errstr, size_t errstr_size) {
  assert(out);
  *out = NULL;
  cuzk_groth16_params_t *p = calloc(1, sizeof *p);
  if (!p) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "params: no memory");
  size_t off = 0;
  cuzk_err_t e = cuzk_groth16_vk_decode(&p->vk, buf, len, &off, flags, errstr, errstr_size);
  if (e != CUZK_OK) {
    free(p);
    return e;
  }
  static const char *const names[5] = {"h", "l", "a", "b_g1", "b_g2"};
  void **vecs[5] = {(void **)&p->h, (void **)&p->l, (void **)&p->a, (void **)&p->b_g1,
                    (void **)&p->b_g2};
  size_t *lens[5] = {&p->n_h, &p->n_l, &p->n_a, &p->n_b_g1, &p->n_b_g2};
  for (int k = 0; k < 5; k++) {
    size_t psz = k == 4 ? G2U : G1U;
    if (len - off < 4) {
      e = cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size, "params: missing length of %s",
                    names[k]);
      goto fail;
    }
    size_t n = get_u32(buf + off);
    off += 4;
    if (n > (len - off) / psz) {
      e = cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                    "params: %s has %zu points but only %zu bytes follow", names[k], n, len - off);
      goto fail;
    }
    void *v = malloc(n ? n * (k == 4 ? sizeof(cuzk_g2_affine_t) : sizeof(cuzk_g1_affine_t)) : 1);
    if (!v) {
      e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "params: no memory for %s", names[k]);
      goto fail;
    }
    *vecs[k] = v;
    *lens[k] = n;
    size_t bad;
    uint64_t t0 = cuzk_now_us();
    e = bulk_decode(v, buf + off, n, k == 4, flags, &bad);
    CUZK_DEBUG("groth16", "params_decode", "vector=%s points=%zu ms=%.1f", names[k], n,
               (double)(cuzk_now_us() - t0) / 1e3);
    if (e != CUZK_OK) {
      e = cuzk_errf(e, errstr, errstr_size, "params: %s[%zu]: %s", names[k], bad,
                    e == CUZK_ERR_BAD_PARAMS ? "point at infinity" : cuzk_err_str(e));
      goto fail;
    }
    off += n * psz;
  }
  if (off != len) {
    e = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "params: %zu trailing bytes", len - off);
    goto fail;
  }
  *out = p;
  return CUZK_OK;
fail:
  cuzk_groth16_params_free(p);
  return e;
}

static bool sidecar_path(char *buf, size_t size, const char *path) {
  int n = snprintf(buf, size, "%s.insecure", path);
  return n > 0 && (size_t)n < size;
}

cuzk_err_t cuzk_groth16_params_load(cuzk_groth16_params_t **out, const char *path, unsigned flags,
                                    char *errstr, size_t errstr_size) {
  assert(out && path);
  *out = NULL;
  cuzk_file_map_t map;
  cuzk_err_t e = cuzk_file_map(path, &map, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  char tmp[256];
  e = cuzk_groth16_params_decode(out, map.data, map.len, flags, tmp, sizeof tmp);
  cuzk_file_unmap(&map);
  if (e != CUZK_OK) return cuzk_errf(e, errstr, errstr_size, "%s: %s", path, tmp);
  char side[4096];
  struct stat st;
  if (sidecar_path(side, sizeof side, path) && stat(side, &st) == 0) (*out)->insecure = true;
  return CUZK_OK;
}

cuzk_err_t cuzk_groth16_vk_load(cuzk_groth16_vk_t *vk, const char *path, unsigned flags,
                                char *errstr, size_t errstr_size) {
  uint8_t *buf;
  size_t len;
  memset(vk, 0, sizeof *vk);
  cuzk_err_t e = cuzk_file_read(path, (size_t)1 << 30, &buf, &len, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  char tmp[256];
  e = cuzk_groth16_vk_decode(vk, buf, len, NULL, flags, tmp, sizeof tmp);
  free(buf);
  if (e != CUZK_OK) return cuzk_errf(e, errstr, errstr_size, "%s: %s", path, tmp);
  return CUZK_OK;
}

/* ---- streaming save ------------------------------------------------------------------ */

/* The image is produced in pieces: the caller's thread encodes a piece on the pool while a
 * writer thread writes the previous one and, when a digest is wanted, a hasher thread hashes it
 * at the same time; a buffer is reused once both are done with it. So encoding, hashing and
 * writing overlap, and the extra memory is two pieces. */
typedef struct {
  pthread_t th[2]; /* writer, hasher */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint8_t *buf[2];
  size_t len[2], piece, used;
  bool full[2], done[2][2]; /* full: handed over, not yet released; done[role][buffer] */
  bool closing;
  int slot, fd;
  const char *path;
  EVP_MD_CTX *md; /* NULL: no digest */
  cuzk_err_t err; /* first error of a consumer (read under mu) */
  char why[256];
} sw_t;

typedef struct {
  sw_t *w;
  int role; /* 0 write, 1 hash */
} sw_role_t;

static cuzk_err_t write_all(int fd, const uint8_t *p, size_t n, const char *path, char *errstr,
                            size_t errstr_size) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "write %s: %s", path,
                       w < 0 ? strerror(errno) : "no progress");
    p += w;
    n -= (size_t)w;
  }
  return CUZK_OK;
}

static void *sw_main(void *arg) {
  sw_t *w = ((sw_role_t *)arg)->w;
  int role = ((sw_role_t *)arg)->role, cur = 0;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!(w->full[cur] && !w->done[role][cur]) && !w->closing) pthread_cond_wait(&w->cv, &w->mu);
    if (!(w->full[cur] && !w->done[role][cur])) break;
    bool failed = w->err != CUZK_OK;
    pthread_mutex_unlock(&w->mu);
    cuzk_err_t e = CUZK_OK;
    char why[256] = "";
    if (!failed && role == 1 && EVP_DigestUpdate(w->md, w->buf[cur], w->len[cur]) != 1)
      e = cuzk_errf(CUZK_ERR_INTERNAL, why, sizeof why, "BLAKE2B-512 update failed");
    if (!failed && role == 0)
      e = write_all(w->fd, w->buf[cur], w->len[cur], w->path, why, sizeof why);
    pthread_mutex_lock(&w->mu);
    if (e != CUZK_OK && w->err == CUZK_OK) {
      w->err = e;
      memcpy(w->why, why, sizeof why);
    }
    w->done[role][cur] = true;
    if (w->done[0][cur] && w->done[1][cur]) w->full[cur] = false;
    pthread_cond_broadcast(&w->cv);
    cur ^= 1;
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* Hands the current piece to the consumers and waits until the other buffer is free. */
static cuzk_err_t sw_flush(sw_t *w) {
  pthread_mutex_lock(&w->mu);
  if (w->used) {
    w->len[w->slot] = w->used;
    w->full[w->slot] = true;
    w->done[0][w->slot] = false;
    w->done[1][w->slot] = w->md == NULL;
    pthread_cond_broadcast(&w->cv);
    w->slot ^= 1;
    w->used = 0;
  }
  while (w->full[w->slot]) pthread_cond_wait(&w->cv, &w->mu);
  cuzk_err_t e = w->err;
  pthread_mutex_unlock(&w->mu);
  return e;
}

static cuzk_err_t sw_bytes(sw_t *w, const uint8_t *p, size_t n) {
  while (n > 0) {
    if (w->used == w->piece) {
      cuzk_err_t e = sw_flush(w);
      if (e != CUZK_OK) return e;
    }
    size_t c = w->piece - w->used < n ? w->piece - w->used : n;
    memcpy(w->buf[w->slot] + w->used, p, c);
    w->used += c;
    p += c;
    n -= c;
  }
  return CUZK_OK;
}

static cuzk_err_t sw_points(sw_t *w, const void *pts, size_t n, int g2) {
  size_t psz = g2 ? G2U : G1U, asz = g2 ? sizeof(cuzk_g2_affine_t) : sizeof(cuzk_g1_affine_t);
  const uint8_t *p = pts;
  while (n > 0) {
    size_t m = (w->piece - w->used) / psz;
    if (m == 0) {
      cuzk_err_t e = sw_flush(w);
      if (e != CUZK_OK) return e;
      continue;
    }
    if (m > n) m = n;
    bulk_encode(w->buf[w->slot] + w->used, p, m, g2);
    w->used += m * psz;
    p += m * asz;
    n -= m;
  }
  return CUZK_OK;
}

/* Creates "<dir>/.<base>.tmp-<pid>-<seq>" for path; *tmp is malloc'd. */
static int open_tmp(const char *path, char **tmp) {
  static atomic_uint seq;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t cap = strlen(path) + 64;
  *tmp = malloc(cap);
  if (!*tmp) return -1;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
    snprintf(*tmp, cap, "%.*s.%s.tmp-%ld-%u", (int)(base - path), path, base, (long)getpid(),
             atomic_fetch_add(&seq, 1));
    fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  return fd;
}

static cuzk_err_t fsync_dir_of(const char *path, char *errstr, size_t errstr_size) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "open directory of %s: %s", path,
                     strerror(errno));
  cuzk_err_t e = CUZK_OK;
  if (fsync(dfd) != 0 && errno != EINVAL)
    e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "fsync directory of %s: %s", path,
                  strerror(errno));
  close(dfd);
  return e;
}

static void hex32(char out[33], const uint8_t md[16]) {
  static const char hx[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) out[2 * i] = hx[md[i] >> 4], out[2 * i + 1] = hx[md[i] & 15];
  out[32] = 0;
}

/* Writes the image of p to path atomically (temporary file, fsync, rename, fsync of the
 * directory); digest (may be NULL) receives the parameters.json digest of the bytes. */
static cuzk_err_t params_write(const cuzk_groth16_params_t *p, const char *path, char digest[33],
                               char *errstr, size_t errstr_size) {
  size_t total = cuzk_groth16_params_size(p);
  sw_t w = {
      .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .path = path, .fd = -1};
  /* 1/16 of the file per piece (so small files take the multi-piece path too), 4 KiB..64 MiB */
  w.piece = total / 16;
  if (w.piece < 4096) w.piece = 4096;
  if (w.piece > ((size_t)64 << 20)) w.piece = (size_t)64 << 20;
  char *tmp = NULL;
  cuzk_err_t e = CUZK_OK;
  uint8_t *vkbuf = NULL;
  int started = 0;
  w.buf[0] = malloc(w.piece);
  w.buf[1] = malloc(w.piece);
  vkbuf = malloc(cuzk_groth16_vk_size(&p->vk));
  if (!w.buf[0] || !w.buf[1] || !vkbuf) {
    e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "params: no memory");
    goto out;
  }
  if (digest) {
    const EVP_MD *md = EVP_get_digestbyname("BLAKE2B-512");
    w.md = EVP_MD_CTX_new();
    if (!md || !w.md || EVP_DigestInit_ex(w.md, md, NULL) != 1) {
      e = cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "OpenSSL has no BLAKE2B-512");
      goto out;
    }
  }
  w.fd = open_tmp(path, &tmp);
  if (w.fd < 0) {
    e = cuzk_errf(tmp ? CUZK_ERR_IO : CUZK_ERR_NOMEM, errstr, errstr_size,
                  "create temporary file for %s: %s", path, strerror(errno));
    goto out;
  }
  struct stat old;
  if (stat(path, &old) == 0 && S_ISREG(old.st_mode) && fchmod(w.fd, old.st_mode & 07777) != 0) {
    e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "chmod temporary file for %s: %s", path,
                  strerror(errno));
    goto out;
  }
  sw_role_t roles[2] = {{&w, 0}, {&w, 1}};
  for (int r = 0; r < (w.md ? 2 : 1); r++) {
    if (pthread_create(&w.th[r], NULL, sw_main, &roles[r]) != 0) {
      e = cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "params: cannot start a writer thread");
      goto out;
    }
    started++;
  }
  cuzk_groth16_vk_encode(vkbuf, &p->vk);
  e = sw_bytes(&w, vkbuf, cuzk_groth16_vk_size(&p->vk));
  const void *vecs[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
  size_t lens[5] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
  for (int k = 0; k < 5 && e == CUZK_OK; k++) {
    uint8_t len4[4];
    put_u32(len4, lens[k]);
    e = sw_bytes(&w, len4, 4);
    if (e == CUZK_OK) e = sw_points(&w, vecs[k], lens[k], k == 4);
  }
  if (e == CUZK_OK) e = sw_flush(&w);
  if (e != CUZK_OK) cuzk_errf(e, errstr, errstr_size, "%s", w.why);
out:
  if (started) {
    pthread_mutex_lock(&w.mu);
    w.closing = true;
    pthread_cond_broadcast(&w.cv);
    pthread_mutex_unlock(&w.mu);
    for (int r = 0; r < started; r++) pthread_join(w.th[r], NULL);
    if (e == CUZK_OK && w.err != CUZK_OK) e = cuzk_errf(w.err, errstr, errstr_size, "%s", w.why);
  }
  bool created = w.fd >= 0;
  uint64_t t_sync = cuzk_now_us();
  if (e == CUZK_OK && fsync(w.fd) != 0)
    e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "fsync %s: %s", path, strerror(errno));
  if (created && close(w.fd) != 0 && e == CUZK_OK)
    e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "close %s: %s", path, strerror(errno));
  if (e == CUZK_OK && rename(tmp, path) != 0)
    e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "rename onto %s: %s", path, strerror(errno));
  if (e == CUZK_OK)
    e = fsync_dir_of(path, errstr, errstr_size);
  else if (created)
    unlink(tmp);
  CUZK_DEBUG("groth16", "params_write", "pieces_of=%zu sync_ms=%.1f", w.piece,
             (double)(cuzk_now_us() - t_sync) / 1e3);
  if (e == CUZK_OK && digest) {
    uint8_t md_out[64];
    unsigned mlen = 0;
    EVP_DigestFinal_ex(w.md, md_out, &mlen);
    hex32(digest, md_out);
  }
  EVP_MD_CTX_free(w.md);
  free(w.buf[0]);
  free(w.buf[1]);
  free(vkbuf);
  free(tmp);
  return e;
}

cuzk_err_t cuzk_groth16_params_save_digest(const cuzk_groth16_params_t *p, const char *path,
                                           char digest[33], char *errstr, size_t errstr_size) {
  assert(p && path);
  char side[4096];
  if (!sidecar_path(side, sizeof side, path))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "path too long");
  uint64_t t0 = cuzk_now_us();
  cuzk_err_t e = CUZK_OK;
  /* The marker goes first so that a crash between the two writes never leaves an unmarked
   * insecure file. */
  if (p->insecure) {
    static const char msg[] =
        "INSECURE: these Groth16 parameters come from a test setup with known toxic waste "
        "(cuzk setup). Never use them for real proofs.\n";
    e = cuzk_file_write_atomic(side, msg, sizeof msg - 1, errstr, errstr_size);
  }
  if (e == CUZK_OK) e = params_write(p, path, digest, errstr, errstr_size);
  if (e == CUZK_OK && !p->insecure && unlink(side) != 0 && errno != ENOENT)
    e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "%s: cannot remove: %s", side, strerror(errno));
  CUZK_DEBUG("groth16", "params_saved", "bytes=%zu digest=%d ms=%.1f", cuzk_groth16_params_size(p),
             digest != NULL, (double)(cuzk_now_us() - t0) / 1e3);
  return e;
}

cuzk_err_t cuzk_groth16_params_save(const cuzk_groth16_params_t *p, const char *path, char *errstr,
                                    size_t errstr_size) {
  return cuzk_groth16_params_save_digest(p, path, NULL, errstr, errstr_size);
}

cuzk_err_t cuzk_groth16_vk_save(const cuzk_groth16_vk_t *vk, const char *path, char *errstr,
                                size_t errstr_size) {
  size_t n = cuzk_groth16_vk_size(vk);
  uint8_t *buf = malloc(n);
  if (!buf) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "vk: no memory");
  cuzk_groth16_vk_encode(buf, vk);
  cuzk_err_t e = cuzk_file_write_atomic(path, buf, n, errstr, errstr_size);
  free(buf);
  return e;
}

cuzk_err_t cuzk_groth16_params_check_secure(const cuzk_groth16_params_t *params,
                                            bool allow_insecure) {
  assert(params);
  return params->insecure && !allow_insecure ? CUZK_ERR_INSECURE_PARAMS : CUZK_OK;
}

cuzk_err_t cuzk_groth16_params_match(const cuzk_groth16_params_t *p, const cuzk_r1cs_t *r,
                                     char *errstr, size_t errstr_size) {
  uint64_t ni = cuzk_r1cs_num_inputs(r), na = cuzk_r1cs_num_aux(r), n = cuzk_r1cs_domain_size(r);
  uint64_t da, dbi, dba;
  cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_A_AUX, &da);
  cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_INPUT, &dbi);
  cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_AUX, &dba);
  struct {
    const char *name;
    uint64_t have, want;
  } rows[] = {
      {"ic", p->vk.n_ic, ni}, {"h", p->n_h, n - 1},           {"l", p->n_l, na},
      {"a", p->n_a, ni + da}, {"b_g1", p->n_b_g1, dbi + dba}, {"b_g2", p->n_b_g2, dbi + dba}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].have != rows[i].want)
      return cuzk_errf(
          CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
          "parameters do not fit the circuit: %s has %llu points, the circuit needs %llu",
          rows[i].name, (unsigned long long)rows[i].have, (unsigned long long)rows[i].want);
  return CUZK_OK;
}

/* ---- proofs --------------------------------------------------------------------------- */

void cuzk_groth16_proof_encode(uint8_t out[CUZK_GROTH16_PROOF_BYTES],
                               const cuzk_groth16_proof_t *p) {
  cuzk_g1_to_compressed(out, &p->a);
  cuzk_g2_to_compressed(out + G1C, &p->b);
  cuzk_g1_to_compressed(out + G1C + G2C, &p->c);
}

cuzk_err_t cuzk_groth16_proof_decode(cuzk_groth16_proof_t *p,
                                     const uint8_t in[CUZK_GROTH16_PROOF_BYTES], unsigned flags) {
  bool t = (flags & CUZK_GROTH16_TRUSTED) != 0;
  cuzk_err_t e =
      t ? cuzk_g1_from_compressed_unchecked(&p->a, in) : cuzk_g1_from_compressed(&p->a, in);
  if (e == CUZK_OK)
    e = t ? cuzk_g2_from_compressed_unchecked(&p->b, in + G1C)
          : cuzk_g2_from_compressed(&p->b, in + G1C);
  if (e == CUZK_OK)
    e = t ? cuzk_g1_from_compressed_unchecked(&p->c, in + G1C + G2C)
          : cuzk_g1_from_compressed(&p->c, in + G1C + G2C);
  if (e == CUZK_OK && (cuzk_g1_affine_is_infinity(&p->a) || cuzk_g2_affine_is_infinity(&p->b) ||
                       cuzk_g1_affine_is_infinity(&p->c)))
    e = CUZK_ERR_BAD_PROOF;
  return e;
}

cuzk_err_t cuzk_groth16_proofs_decode(cuzk_groth16_proof_t **out, size_t *n, const uint8_t *buf,
                                      size_t len, unsigned flags) {
  *out = NULL;
  *n = 0;
  if (len == 0 || len % CUZK_GROTH16_PROOF_BYTES) return CUZK_ERR_BAD_PROOF;
  size_t k = len / CUZK_GROTH16_PROOF_BYTES;
  cuzk_groth16_proof_t *v = malloc(k * sizeof *v);
  if (!v) return CUZK_ERR_NOMEM;
  for (size_t i = 0; i < k; i++) {
    cuzk_err_t e = cuzk_groth16_proof_decode(&v[i], buf + i * CUZK_GROTH16_PROOF_BYTES, flags);
    if (e != CUZK_OK) {
      free(v);
      return e;
    }
  }
  *out = v;
  *n = k;
  return CUZK_OK;
}

/* ---- decimal -------------------------------------------------------------------------- */

void cuzk_groth16_limbs_to_decimal(char *buf, size_t size, const uint64_t *limbs, size_t n) {
  assert(n <= 8 && size >= 2);
  uint64_t t[8];
  memcpy(t, limbs, n * 8);
  char rev[160];
  size_t k = 0;
  for (;;) {
    bool zero = true;
    for (size_t i = 0; i < n; i++) zero &= t[i] == 0;
    if (zero) break;
    /* t /= 10^19, remainder printed as 19 digits */
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
      unsigned __int128 cur = (rem << 64) | t[i];
      t[i] = (uint64_t)(cur / 10000000000000000000ULL);
      rem = cur % 10000000000000000000ULL;
    }
    uint64_t r = (uint64_t)rem;
    for (int d = 0; d < 19; d++) rev[k++] = (char)('0' + r % 10), r /= 10;
  }
  while (k > 1 && rev[k - 1] == '0') k--;
  if (k == 0) rev[k++] = '0';
  size_t w = 0;
  while (k > 0 && w + 1 < size) buf[w++] = rev[--k];
  buf[w] = 0;
}

cuzk_err_t cuzk_groth16_public_from_decimal(cuzk_fr_t *out, const char *dec) {
  if (!dec || !*dec) return CUZK_ERR_PARSE;
  uint64_t t[5] = {0};
  for (const char *c = dec; *c; c++) {
    if (*c < '0' || *c > '9') return CUZK_ERR_PARSE;
    unsigned __int128 carry = (unsigned)(*c - '0');
    for (int i = 0; i < 5; i++) {
      unsigned __int128 cur = (unsigned __int128)t[i] * 10 + carry;
      t[i] = (uint64_t)cur;
      carry = cur >> 64;
    }
    if (carry || t[4]) return CUZK_ERR_NON_CANONICAL; /* >= 2^256 > r */
  }
  bool lt = false;
  for (int i = 3; i >= 0; i--) {
    if (t[i] != CUZK_FR_MODULUS[i]) {
      lt = t[i] < CUZK_FR_MODULUS[i];
      break;
    }
  }
  if (!lt) return CUZK_ERR_NON_CANONICAL;
  cuzk_fr_from_raw(out, t);
  return CUZK_OK;
}

/* ---- parameters.json digests ---------------------------------------------------------- */

/* The "digest" of the entry named `base` in the parameters.json at json_path into want (NUL
 * terminated). CUZK_ERR_NOT_FOUND when the file or the entry is missing, CUZK_ERR_PARSE for an
 * entry without a usable digest, file errors. */
static cuzk_err_t json_digest(char want[65], const char *json_path, const char *base, char *errstr,
                              size_t errstr_size) {
  uint8_t *json;
  size_t len;
  cuzk_err_t e = cuzk_file_read(json_path, (size_t)16 << 20, &json, &len, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  char key[512];
  snprintf(key, sizeof key, "\"%s\"", base);
  const char *k = strstr((const char *)json, key);
  if (!k) {
    free(json);
    return cuzk_errf(CUZK_ERR_NOT_FOUND, errstr, errstr_size, "%s: no entry for %s", json_path,
                     base);
  }
  const char *open = strchr(k + strlen(key), '{');
  const char *close = open ? strchr(open, '}') : NULL;
  const char *d = open ? strstr(open, "\"digest\"") : NULL;
  if (!close || !d || d > close) {
    free(json);
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "%s: entry %s has no digest", json_path,
                     base);
  }
  d = strchr(d + 8, '"');
  const char *end = d ? strchr(d + 1, '"') : NULL;
  if (!d || !end || end > close || (size_t)(end - d - 1) >= 65) {
    free(json);
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "%s: entry %s: bad digest", json_path,
                     base);
  }
  memcpy(want, d + 1, (size_t)(end - d - 1));
  want[end - d - 1] = 0;
  free(json);
  return CUZK_OK;
}

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

cuzk_err_t cuzk_groth16_file_digest(char out[33], const char *path, char *errstr,
                                    size_t errstr_size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return cuzk_errf(errno == ENOENT ? CUZK_ERR_NOT_FOUND : CUZK_ERR_IO, errstr, errstr_size,
                     "%s: %s", path, strerror(errno));
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  const EVP_MD *md = EVP_get_digestbyname("BLAKE2B-512");
  cuzk_err_t e = CUZK_OK;
  if (!ctx || !md || EVP_DigestInit_ex(ctx, md, NULL) != 1) {
    e = cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "OpenSSL has no BLAKE2B-512");
    goto done;
  }
  uint8_t *chunk = malloc(1 << 20);
  if (!chunk) {
    e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
    goto done;
  }
  size_t got;
  while ((got = fread(chunk, 1, 1 << 20, f)) > 0) EVP_DigestUpdate(ctx, chunk, got);
  if (ferror(f)) e = cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "%s: read error", path);
  free(chunk);
  if (e == CUZK_OK) {
    uint8_t md_out[64];
    unsigned mlen = 0;
    EVP_DigestFinal_ex(ctx, md_out, &mlen);
    hex32(out, md_out);
  }
done:
  EVP_MD_CTX_free(ctx);
  fclose(f);
  return e;
}

cuzk_err_t cuzk_groth16_digest_check(const char *json_path, const char *path, char *errstr,
                                     size_t errstr_size) {
  char want[65];
  cuzk_err_t e = json_digest(want, json_path, base_name(path), errstr, errstr_size);
  if (e != CUZK_OK) return e;
  char have[33];
  e = cuzk_groth16_file_digest(have, path, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  if (strcmp(have, want) != 0)
    return cuzk_errf(CUZK_ERR_CHECKSUM, errstr, errstr_size,
                     "%s: digest %s, parameters.json says %s", path, have, want);
  return CUZK_OK;
}

cuzk_err_t cuzk_groth16_digest_record(const char *json_path, const char *params_path,
                                      const char digest[33], char *errstr, size_t errstr_size) {
  assert(json_path && params_path && digest);
  const char *base = base_name(params_path);
  for (const char *c = base; *c; c++)
    if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                       "%s: the name cannot go into JSON unescaped", base);
  for (int i = 0; i < 32; i++)
    if (!((digest[i] >= '0' && digest[i] <= '9') || (digest[i] >= 'a' && digest[i] <= 'f')))
      return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "digest is not 32 hex digits");
  if (digest[32] != 0)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "digest is not 32 hex digits");
  uint8_t *json = NULL;
  size_t len = 0;
  cuzk_err_t e = cuzk_file_read(json_path, (size_t)16 << 20, &json, &len, errstr, errstr_size);
  if (e == CUZK_ERR_NOT_FOUND) {
    free(json);
    json = (uint8_t *)strdup("{\n}\n");
    if (!json) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
    len = strlen((char *)json);
  } else if (e != CUZK_OK) {
    return e;
  }
  const char *doc = (const char *)json;
  size_t cap = len + strlen(base) + 256;
  char *outb = malloc(cap), key[512];
  if (!outb) {
    free(json);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
  }
  snprintf(key, sizeof key, "\"%s\"", base);
  const char *k = strstr(doc, key), *open = k ? strchr(k + strlen(key), '{') : NULL;
  const char *close = open ? strchr(open, '}') : NULL;
  const char *d = open ? strstr(open, "\"digest\"") : NULL;
  const char *q1 = d && close && d < close ? strchr(d + 8, '"') : NULL;
  const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
  int n;
  if (k && q2 && q2 < close) {
    /* replace the existing digest value */
    n = snprintf(outb, cap, "%.*s%s%s", (int)(q1 + 1 - doc), doc, digest, q2);
  } else if (k) {
    free(json), free(outb);
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "%s: entry %s has no digest to replace",
                     json_path, base);
  } else {
    const char *first = strchr(doc, '{'), *last = strrchr(doc, '}');
    if (!first || !last || last < first) {
      free(json), free(outb);
      return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "%s: not a JSON object", json_path);
    }
    bool empty = true;
    for (const char *c = first + 1; c < last; c++)
      empty &= *c == ' ' || *c == '\n' || *c == '\r' || *c == '\t';
    const char *cut = last; /* keep the text before the closing brace minus trailing blanks */
    while (cut > first + 1 &&
           (cut[-1] == ' ' || cut[-1] == '\n' || cut[-1] == '\r' || cut[-1] == '\t'))
      cut--;
    n = snprintf(outb, cap,
                 "%.*s%s\n  \"%s\": {\n    \"cid\": \"\",\n    \"digest\": \"%s\",\n"
                 "    \"sector_size\": 0\n  }\n%s",
                 (int)(cut - doc), doc, empty ? "" : ",", base, digest, last);
  }
  free(json);
  if (n < 0 || (size_t)n >= cap) {
    free(outb);
    return cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "parameters.json entry too long");
  }
  e = cuzk_file_write_atomic(json_path, outb, (size_t)n, errstr, errstr_size);
  free(outb);
  return e;
}

/* ---- loading by the trust rule -------------------------------------------------------- */

typedef struct {
  const uint8_t *data;
  size_t len;
  char hex[33];
  int ok;
} hash_job_t;

static void *hash_main(void *arg) {
  hash_job_t *h = arg;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  const EVP_MD *md = EVP_get_digestbyname("BLAKE2B-512");
  uint8_t out[64];
  unsigned mlen = 0;
  h->ok = ctx && md && EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
          EVP_DigestUpdate(ctx, h->data, h->len) == 1 && EVP_DigestFinal_ex(ctx, out, &mlen) == 1;
  if (h->ok) hex32(h->hex, out);
  EVP_MD_CTX_free(ctx);
  return NULL;
}

cuzk_err_t cuzk_groth16_params_load_known(cuzk_groth16_params_t **out, const char *path,
                                          const char *json_path, bool *trusted, char *errstr,
                                          size_t errstr_size) {
  assert(out && path);
  *out = NULL;
  if (trusted) *trusted = false;
  char want[65] = "";
  cuzk_err_t e = CUZK_ERR_NOT_FOUND;
  if (json_path) {
    char why[256];
    e = json_digest(want, json_path, base_name(path), why, sizeof why);
    if (e != CUZK_OK && e != CUZK_ERR_NOT_FOUND)
      return cuzk_errf(e, errstr, errstr_size, "%s", why);
  }
  bool listed = e == CUZK_OK;
  if (!listed) return cuzk_groth16_params_load(out, path, 0, errstr, errstr_size);

  /* Listed: hash the mapping on a thread of its own while the pool decodes the same bytes
   * without subgroup checks; a mismatch discards the result. */
  uint64_t t0 = cuzk_now_us();
  cuzk_file_map_t map;
  e = cuzk_file_map(path, &map, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  hash_job_t h = {.data = map.data, .len = map.len};
  pthread_t th;
  bool threaded = pthread_create(&th, NULL, hash_main, &h) == 0;
  if (!threaded) hash_main(&h);
  char tmp[256];
  e = cuzk_groth16_params_decode(out, map.data, map.len, CUZK_GROTH16_TRUSTED, tmp, sizeof tmp);
  if (threaded) pthread_join(th, NULL);
  cuzk_file_unmap(&map);
  if (!h.ok) {
    cuzk_groth16_params_free(*out);
    *out = NULL;
    return cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "OpenSSL has no BLAKE2B-512");
  }
  if (strcmp(h.hex, want) != 0) {
    cuzk_groth16_params_free(*out);
    *out = NULL;
    return cuzk_errf(CUZK_ERR_CHECKSUM, errstr, errstr_size,
                     "%s: digest %s, parameters.json says %s", path, h.hex, want);
  }
  if (e != CUZK_OK) return cuzk_errf(e, errstr, errstr_size, "%s: %s", path, tmp);
  char side[4096];
  struct stat st;
  if (sidecar_path(side, sizeof side, path) && stat(side, &st) == 0) (*out)->insecure = true;
  if (trusted) *trusted = true;
  CUZK_DEBUG("groth16", "params_loaded", "path=%s trusted=1 ms=%.1f", path,
             (double)(cuzk_now_us() - t0) / 1e3);
  return CUZK_OK;
}
