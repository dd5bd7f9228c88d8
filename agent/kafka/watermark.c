#include "agent/kafka/watermark.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t off;
  bool done;
} cuzk__wm_entry_t;

typedef struct {
  char *topic;
  int32_t partition;
  uint64_t gen;
  int64_t committed;
  int64_t last_taken; /* -1: nothing taken in this assignment */
  /* taken offsets not yet below the watermark, ascending; ring[head] is never done */
  cuzk__wm_entry_t *ring;
  size_t cap; /* power of two or 0 */
  size_t head;
  size_t len;
  /* completed ranges restored from commit metadata */
  cuzk_watermark_range_t *restored;
  size_t n_restored;
} cuzk__wm_part_t;

struct cuzk_watermark {
  cuzk__wm_part_t *parts;
  size_t n_parts;
  size_t cap_parts;
  uint64_t next_gen;
};

cuzk_watermark_t *cuzk_watermark_new(void) {
  cuzk_watermark_t *wm = calloc(1, sizeof *wm);
  if (wm) wm->next_gen = 1;
  return wm;
}

static void cuzk__wm_part_clear(cuzk__wm_part_t *p) {
  free(p->topic);
  free(p->ring);
  free(p->restored);
  memset(p, 0, sizeof *p);
}

void cuzk_watermark_free(cuzk_watermark_t *wm) {
  if (!wm) return;
  cuzk_watermark_revoke_all(wm);
  free(wm->parts);
  free(wm);
}

static cuzk__wm_part_t *cuzk__wm_find(const cuzk_watermark_t *wm, const char *topic,
                                      int32_t partition) {
  for (size_t i = 0; i < wm->n_parts; i++) {
    cuzk__wm_part_t *p = &wm->parts[i];
    if (p->partition == partition && strcmp(p->topic, topic) == 0) return p;
  }
  return NULL;
}

static inline cuzk__wm_entry_t *cuzk__wm_at(const cuzk__wm_part_t *p, size_t i) {
  return &p->ring[(p->head + i) & (p->cap - 1)];
}

cuzk_err_t cuzk_watermark_assign(cuzk_watermark_t *wm, const char *topic, int32_t partition,
                                 int64_t committed, const char *metadata, uint64_t *gen) {
  assert(wm && topic && gen);
  if (partition < 0 || committed < -1) return CUZK_ERR_INVALID_ARG;

  cuzk_watermark_range_t *restored = NULL;
  size_t n_restored = 0;
  if (metadata && strncmp(metadata, CUZK_WATERMARK_META_PREFIX,
                          sizeof CUZK_WATERMARK_META_PREFIX - 1) == 0) {
    /* every item takes at least two characters ("g,"), which bounds the count */
    size_t cap = strlen(metadata) / 2 + 1;
    restored = malloc(cap * sizeof *restored);
    if (!restored) return CUZK_ERR_NOMEM;
    cuzk_err_t err = cuzk_watermark_parse_metadata(metadata, committed, restored, cap, &n_restored);
    if (err != CUZK_OK) {
      free(restored);
      return err == CUZK_ERR_INVALID_ARG ? CUZK_ERR_PARSE : err;
    }
  }

  cuzk__wm_part_t *p = cuzk__wm_find(wm, topic, partition);
  if (p) {
    free(p->ring);
    free(p->restored);
    p->ring = NULL;
    p->cap = p->head = p->len = 0;
  } else {
    if (wm->n_parts == wm->cap_parts) {
      size_t nc = wm->cap_parts ? 2 * wm->cap_parts : 8;
      cuzk__wm_part_t *np = realloc(wm->parts, nc * sizeof *np);
      if (!np) {
        free(restored);
        return CUZK_ERR_NOMEM;
      }
      wm->parts = np;
      wm->cap_parts = nc;
    }
    char *t = strdup(topic);
    if (!t) {
      free(restored);
      return CUZK_ERR_NOMEM;
    }
    p = &wm->parts[wm->n_parts++];
    memset(p, 0, sizeof *p);
    p->topic = t;
    p->partition = partition;
  }
  p->gen = wm->next_gen++;
  p->committed = committed;
  p->last_taken = -1;
  p->restored = restored;
  p->n_restored = n_restored;
  *gen = p->gen;
  return CUZK_OK;
}

cuzk_err_t cuzk_watermark_revoke(cuzk_watermark_t *wm, const char *topic, int32_t partition) {
  assert(wm && topic);
  cuzk__wm_part_t *p = cuzk__wm_find(wm, topic, partition);
  if (!p) return CUZK_ERR_NOT_FOUND;
  cuzk__wm_part_clear(p);
  size_t i = (size_t)(p - wm->parts);
  wm->parts[i] = wm->parts[--wm->n_parts];
  return CUZK_OK;
}

void cuzk_watermark_revoke_all(cuzk_watermark_t *wm) {
  assert(wm);
  for (size_t i = 0; i < wm->n_parts; i++) cuzk__wm_part_clear(&wm->parts[i]);
  wm->n_parts = 0;
}

static bool cuzk__wm_restored_has(const cuzk__wm_part_t *p, int64_t off) {
  size_t lo = 0, hi = p->n_restored;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->restored[mid].hi < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->n_restored && p->restored[lo].lo <= off;
}

static void cuzk__wm_pop_done(cuzk__wm_part_t *p) {
  while (p->len > 0 && p->ring[p->head].done) {
    p->head = (p->head + 1) & (p->cap - 1);
    p->len--;
  }
}

cuzk_err_t cuzk_watermark_take(cuzk_watermark_t *wm, const char *topic, int32_t partition,
                               int64_t offset, uint64_t *gen, bool *skip) {
  assert(wm && topic && skip);
  cuzk__wm_part_t *p = cuzk__wm_find(wm, topic, partition);
  if (!p) return CUZK_ERR_NOT_FOUND;
  if (offset < 0 || offset == INT64_MAX || offset <= p->last_taken) return CUZK_ERR_INVALID_ARG;
  if (p->len == p->cap) {
    size_t nc = p->cap ? 2 * p->cap : 64;
    cuzk__wm_entry_t *nr = malloc(nc * sizeof *nr);
    if (!nr) return CUZK_ERR_NOMEM;
    for (size_t i = 0; i < p->len; i++) nr[i] = *cuzk__wm_at(p, i);
    free(p->ring);
    p->ring = nr;
    p->cap = nc;
    p->head = 0;
  }
  bool done = cuzk__wm_restored_has(p, offset);
  *cuzk__wm_at(p, p->len) = (cuzk__wm_entry_t){.off = offset, .done = done};
  p->len++;
  p->last_taken = offset;
  cuzk__wm_pop_done(p);
  *skip = done;
  if (gen) *gen = p->gen;
  return CUZK_OK;
}

cuzk_err_t cuzk_watermark_complete(cuzk_watermark_t *wm, const char *topic, int32_t partition,
                                   int64_t offset, uint64_t gen) {
  assert(wm && topic);
  cuzk__wm_part_t *p = cuzk__wm_find(wm, topic, partition);
  if (!p || p->gen != gen) return CUZK_ERR_CANCELLED;
  size_t lo = 0, hi = p->len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cuzk__wm_at(p, mid)->off < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == p->len) return CUZK_ERR_NOT_FOUND;
  cuzk__wm_entry_t *e = cuzk__wm_at(p, lo);
  if (e->off != offset) return CUZK_ERR_NOT_FOUND;
  if (e->done) return CUZK_ERR_INVALID_ARG;
  e->done = true;
  if (lo == 0) cuzk__wm_pop_done(p);
  return CUZK_OK;
}

typedef struct {
  cuzk_watermark_range_t *out;
  size_t cap;
  size_t n;
  int64_t last_hi;
} cuzk__wm_ranges_t;

static void cuzk__wm_emit(cuzk__wm_ranges_t *r, int64_t lo, int64_t hi) {
  if (r->n > 0 && r->last_hi + 1 == lo) {
    if (r->n <= r->cap) r->out[r->n - 1].hi = hi;
  } else {
    if (r->n < r->cap) r->out[r->n] = (cuzk_watermark_range_t){lo, hi};
    r->n++;
  }
  r->last_hi = hi;
}

cuzk_err_t cuzk_watermark_next_commit(const cuzk_watermark_t *wm, const char *topic,
                                      int32_t partition, int64_t *commit,
                                      cuzk_watermark_range_t *above, size_t cap, size_t *n_above) {
  assert(wm && topic && commit && n_above && (above || cap == 0));
  const cuzk__wm_part_t *p = cuzk__wm_find(wm, topic, partition);
  if (!p) return CUZK_ERR_NOT_FOUND;
  if (p->len > 0)
    *commit = p->ring[p->head].off;
  else if (p->last_taken >= 0)
    *commit = p->last_taken + 1;
  else
    *commit = p->committed;

  /* A run of completed entries adjacent in the ring becomes one range: the offsets between them
   * were never delivered (compaction, transaction markers), so a restart will not see them. */
  cuzk__wm_ranges_t rs = {.out = above, .cap = cap};
  for (size_t i = 1; i < p->len;) {
    if (!cuzk__wm_at(p, i)->done) {
      i++;
      continue;
    }
    int64_t lo = cuzk__wm_at(p, i)->off, hi = lo;
    while (i < p->len && cuzk__wm_at(p, i)->done) hi = cuzk__wm_at(p, i++)->off;
    cuzk__wm_emit(&rs, lo, hi);
  }
  int64_t floor = p->last_taken > *commit - 1 ? p->last_taken : *commit - 1;
  for (size_t r = 0; r < p->n_restored; r++) {
    if (p->restored[r].hi <= floor) continue;
    int64_t lo = p->restored[r].lo > floor ? p->restored[r].lo : floor + 1;
    cuzk__wm_emit(&rs, lo, p->restored[r].hi);
  }
  *n_above = rs.n;
  return CUZK_OK;
}

size_t cuzk_watermark_in_flight(const cuzk_watermark_t *wm, const char *topic, int32_t partition) {
  assert(wm && topic);
  const cuzk__wm_part_t *p = cuzk__wm_find(wm, topic, partition);
  return p ? p->len : 0;
}

size_t cuzk_watermark_format_metadata(char *out, size_t size, int64_t commit,
                                      const cuzk_watermark_range_t *ranges, size_t n) {
  assert(out && size >= 16 && (ranges || n == 0));
  size_t used = (size_t)snprintf(out, size, "%s", CUZK_WATERMARK_META_PREFIX);
  if (commit < 0) return 0;
  int64_t base = commit;
  size_t i = 0;
  for (; i < n; i++) {
    const cuzk_watermark_range_t *r = &ranges[i];
    if (r->lo <= base || r->hi < r->lo) break;
    char item[48];
    int k;
    if (r->hi == r->lo)
      k = snprintf(item, sizeof item, "%s%" PRId64, i ? "," : "", r->lo - base);
    else
      k = snprintf(item, sizeof item, "%s%" PRId64 "+%" PRId64, i ? "," : "", r->lo - base,
                   r->hi - r->lo);
    if (used + (size_t)k + 1 > size) break;
    memcpy(out + used, item, (size_t)k + 1);
    used += (size_t)k;
    base = r->hi;
  }
  return i;
}

/* Strict decimal: no sign, no leading zero unless the number is 0, at most INT64_MAX. */
static const char *cuzk__wm_num(const char *s, int64_t *v) {
  if (*s < '0' || *s > '9') return NULL;
  if (s[0] == '0' && s[1] >= '0' && s[1] <= '9') return NULL;
  int64_t x = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    int d = *s - '0';
    if (x > (INT64_MAX - d) / 10) return NULL;
    x = x * 10 + d;
  }
  *v = x;
  return s;
}

cuzk_err_t cuzk_watermark_parse_metadata(const char *metadata, int64_t commit,
                                         cuzk_watermark_range_t *out, size_t cap, size_t *n) {
  assert(n && (out || cap == 0));
  *n = 0;
  const size_t plen = sizeof CUZK_WATERMARK_META_PREFIX - 1;
  if (!metadata || strncmp(metadata, CUZK_WATERMARK_META_PREFIX, plen) != 0) return CUZK_OK;
  const char *s = metadata + plen;
  if (*s == '\0') return CUZK_OK;
  if (commit < 0) return CUZK_ERR_INVALID_ARG;
  int64_t base = commit;
  size_t k = 0;
  for (;;) {
    int64_t gap, len = 0;
    s = cuzk__wm_num(s, &gap);
    if (!s || gap == 0) return CUZK_ERR_PARSE;
    if (*s == '+') {
      s = cuzk__wm_num(s + 1, &len);
      if (!s || len == 0) return CUZK_ERR_PARSE;
    }
    /* offsets stay below INT64_MAX so that hi + 1 is a valid commit offset */
    if (gap > INT64_MAX - 1 - base) return CUZK_ERR_PARSE;
    int64_t lo = base + gap;
    if (len > INT64_MAX - 1 - lo) return CUZK_ERR_PARSE;
    if (k == cap) return CUZK_ERR_TOO_LARGE;
    out[k++] = (cuzk_watermark_range_t){lo, lo + len};
    base = lo + len;
    if (*s == '\0') break;
    if (*s != ',') return CUZK_ERR_PARSE;
    s++;
  }
  *n = k;
  return CUZK_OK;
}
