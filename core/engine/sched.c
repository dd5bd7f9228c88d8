#include "core/engine/sched.h"

#include <assert.h>
#include <stdlib.h>

typedef struct {
  cuzk_sched_key_t key;
  void *item;
} cuzk__slot_t;

struct cuzk_sched {
  cuzk__slot_t *heap;
  size_t len, cap;
  size_t depth[CUZK_PRIO__COUNT];
};

int cuzk_sched_key_cmp(const cuzk_sched_key_t *a, const cuzk_sched_key_t *b) {
  if (a->priority != b->priority) return a->priority > b->priority ? -1 : 1;
  if (a->job_seq != b->job_seq) return a->job_seq < b->job_seq ? -1 : 1;
  if (a->partition != b->partition) return a->partition < b->partition ? -1 : 1;
  return 0;
}

cuzk_sched_t *cuzk_sched_new(void) {
  return calloc(1, sizeof(cuzk_sched_t));
}

void cuzk_sched_free(cuzk_sched_t *s) {
  if (!s) return;
  free(s->heap);
  free(s);
}

static void cuzk__swap(cuzk__slot_t *a, cuzk__slot_t *b) {
  cuzk__slot_t t = *a;
  *a = *b;
  *b = t;
}

static void cuzk__sift_up(cuzk_sched_t *s, size_t i) {
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (cuzk_sched_key_cmp(&s->heap[i].key, &s->heap[p].key) >= 0) break;
    cuzk__swap(&s->heap[i], &s->heap[p]);
    i = p;
  }
}

static void cuzk__sift_down(cuzk_sched_t *s, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < s->len && cuzk_sched_key_cmp(&s->heap[l].key, &s->heap[m].key) < 0) m = l;
    if (r < s->len && cuzk_sched_key_cmp(&s->heap[r].key, &s->heap[m].key) < 0) m = r;
    if (m == i) return;
    cuzk__swap(&s->heap[i], &s->heap[m]);
    i = m;
  }
}

/* Linear scan: queues hold at most a few thousand partitions, and pushes happen per job. */
static int cuzk__contains(const cuzk_sched_t *s, const cuzk_sched_key_t *k) {
  for (size_t i = 0; i < s->len; i++)
    if (cuzk_sched_key_cmp(&s->heap[i].key, k) == 0) return 1;
  return 0;
}

cuzk_err_t cuzk_sched_push(cuzk_sched_t *s, cuzk_sched_key_t key, void *item) {
  assert(s);
  assert((unsigned)key.priority < CUZK_PRIO__COUNT);
  if (cuzk__contains(s, &key)) return CUZK_ERR_BUSY;
  if (s->len == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    cuzk__slot_t *h = realloc(s->heap, cap * sizeof(*h));
    if (!h) return CUZK_ERR_NOMEM;
    s->heap = h;
    s->cap = cap;
  }
  s->heap[s->len].key = key;
  s->heap[s->len].item = item;
  cuzk__sift_up(s, s->len++);
  s->depth[key.priority]++;
  return CUZK_OK;
}

void *cuzk_sched_peek(const cuzk_sched_t *s, cuzk_sched_key_t *key) {
  assert(s);
  if (s->len == 0) return NULL;
  if (key) *key = s->heap[0].key;
  return s->heap[0].item;
}

static void cuzk__remove_at(cuzk_sched_t *s, size_t i) {
  s->depth[s->heap[i].key.priority]--;
  s->heap[i] = s->heap[--s->len];
  if (i < s->len) {
    cuzk__sift_down(s, i);
    cuzk__sift_up(s, i);
  }
}

void *cuzk_sched_pop(cuzk_sched_t *s, cuzk_sched_key_t *key) {
  assert(s);
  if (s->len == 0) return NULL;
  if (key) *key = s->heap[0].key;
  void *item = s->heap[0].item;
  cuzk__remove_at(s, 0);
  return item;
}

size_t cuzk_sched_remove_job(cuzk_sched_t *s, uint64_t job_seq, void (*fn)(void *, void *),
                             void *ctx) {
  assert(s);
  size_t n = 0;
  for (size_t i = 0; i < s->len;) {
    if (s->heap[i].key.job_seq == job_seq) {
      void *item = s->heap[i].item;
      cuzk__remove_at(s, i);
      if (fn) fn(item, ctx);
      n++;
      i = 0; /* the heap moved under us; rescan (cancellation is rare) */
    } else {
      i++;
    }
  }
  return n;
}

size_t cuzk_sched_len(const cuzk_sched_t *s) {
  return s->len;
}

void cuzk_sched_depths(const cuzk_sched_t *s, size_t depths[CUZK_PRIO__COUNT]) {
  for (int p = 0; p < CUZK_PRIO__COUNT; p++) depths[p] = s->depth[p];
}
