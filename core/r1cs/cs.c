#include "core/r1cs/cs.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/r1cs/r1cs_internal.h"

struct cuzk_cs {
  unsigned mode;
  bool finished;
  cuzk_err_t err;
  char errmsg[256];
  uint64_t ni, naux, m;
  /* witness */
  cuzk_fr_t *in_v, *aux_v;
  uint64_t in_cap, aux_cap;
  bool aux_external; /* aux_v belongs to the caller */
  /* record: entries hold the raw tagged variable in `col` until cuzk_cs_finish */
  uint64_t *row_ptr[3];
  uint64_t rp_cap;
  cuzk_r1cs_entry_t *ent[3];
  uint64_t nnz[3], ent_cap[3];
  cuzk_fr_t *coeffs;
  uint64_t ncoeffs, coeff_cap;
  uint32_t *ctab; /* open addressing: coefficient index + 1, 0 = empty */
  uint64_t ctab_cap;
  cuzk_lc_t tmp;
  /* annotations */
  char *names;
  uint64_t names_len, names_cap;
  uint64_t *name_off;
  char *ns;
  size_t ns_len, ns_cap;
  size_t *ns_stack;
  size_t ns_depth, ns_stack_cap;
};

static void cuzk__cs_fail(cuzk_cs_t *cs, cuzk_err_t err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cuzk__cs_fail(cuzk_cs_t *cs, cuzk_err_t err, const char *fmt, ...) {
  if (cs->err != CUZK_OK) return;
  cs->err = err;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cs->errmsg, sizeof cs->errmsg, fmt, ap);
  va_end(ap);
}

/* Grows *p (elements of `elem` bytes, capacity *cap) to hold at least `need`. */
static bool cuzk__grow(void **p, uint64_t *cap, uint64_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t ncap = *cap ? *cap : 16;
  while (ncap < need) {
    if (ncap > UINT64_MAX / 2) return false;
    ncap *= 2;
  }
  if (ncap > SIZE_MAX / elem) return false;
  void *q = realloc(*p, (size_t)(ncap * elem));
  if (!q) return false;
  *p = q;
  *cap = ncap;
  return true;
}

static uint64_t cuzk__fr_hash(const cuzk_fr_t *c) {
  uint64_t h = c->l[0] * 0x9e3779b97f4a7c15ULL;
  h ^= c->l[1] + (h << 6) + (h >> 2);
  h ^= c->l[2] * 0xbf58476d1ce4e5b9ULL;
  h ^= c->l[3] * 0x94d049bb133111ebULL;
  return h ^ (h >> 29);
}

static bool cuzk__ctab_insert(cuzk_cs_t *cs, uint32_t idx) {
  uint64_t mask = cs->ctab_cap - 1;
  uint64_t h = cuzk__fr_hash(&cs->coeffs[idx]) & mask;
  while (cs->ctab[h]) h = (h + 1) & mask;
  cs->ctab[h] = idx + 1;
  return true;
}

static bool cuzk__ctab_rehash(cuzk_cs_t *cs, uint64_t cap) {
  uint32_t *t = calloc(cap, sizeof *t);
  if (!t) return false;
  free(cs->ctab);
  cs->ctab = t;
  cs->ctab_cap = cap;
  for (uint64_t i = 0; i < cs->ncoeffs; i++) cuzk__ctab_insert(cs, (uint32_t)i);
  return true;
}

/* Index of coefficient c in the table, adding it when new; UINT32_MAX on failure. */
static uint32_t cuzk__coeff_index(cuzk_cs_t *cs, const cuzk_fr_t *c) {
  uint64_t mask = cs->ctab_cap - 1;
  uint64_t h = cuzk__fr_hash(c) & mask;
  while (cs->ctab[h]) {
    uint32_t i = cs->ctab[h] - 1;
    if (cuzk_fr_eq(&cs->coeffs[i], c)) return i;
    h = (h + 1) & mask;
  }
  if (cs->ncoeffs >= UINT32_MAX - 1) return UINT32_MAX;
  if (!cuzk__grow((void **)&cs->coeffs, &cs->coeff_cap, cs->ncoeffs + 1, sizeof(cuzk_fr_t)))
    return UINT32_MAX;
  uint32_t idx = (uint32_t)cs->ncoeffs++;
  cs->coeffs[idx] = *c;
  if (cs->ncoeffs * 2 > cs->ctab_cap) {
    if (!cuzk__ctab_rehash(cs, cs->ctab_cap * 2)) return UINT32_MAX;
  } else {
    cuzk__ctab_insert(cs, idx);
  }
  return idx;
}

cuzk_cs_t *cuzk_cs_new(unsigned mode, char *errstr, size_t errstr_size) {
  if (mode & ~(unsigned)(CUZK_CS_RECORD | CUZK_CS_WITNESS | CUZK_CS_ANNOTATE)) {
    cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "cs: unknown mode bits 0x%x", mode);
    return NULL;
  }
  if ((mode & CUZK_CS_ANNOTATE) && !(mode & CUZK_CS_RECORD)) mode &= ~(unsigned)CUZK_CS_ANNOTATE;
  cuzk_cs_t *cs = calloc(1, sizeof *cs);
  if (!cs) goto oom;
  cs->mode = mode;
  cuzk_lc_init(&cs->tmp);
  if (mode & CUZK_CS_RECORD) {
    for (int k = 0; k < 3; k++) {
      uint64_t cap = 0;
      if (!cuzk__grow((void **)&cs->row_ptr[k], &cap, 1024, sizeof(uint64_t))) goto oom;
      cs->row_ptr[k][0] = 0;
      cs->rp_cap = cap;
    }
    if (mode & CUZK_CS_ANNOTATE) {
      uint64_t cap = 0;
      if (!cuzk__grow((void **)&cs->name_off, &cap, cs->rp_cap, sizeof(uint64_t))) goto oom;
    }
    cs->ctab_cap = 64;
    cs->ctab = calloc(cs->ctab_cap, sizeof *cs->ctab);
    if (!cs->ctab) goto oom;
    cuzk_fr_t neg_one;
    cuzk_fr_neg(&neg_one, &CUZK_FR_ONE);
    if (cuzk__coeff_index(cs, &CUZK_FR_ONE) != CUZK_R1CS_COEFF_ONE ||
        cuzk__coeff_index(cs, &neg_one) != CUZK_R1CS_COEFF_NEG_ONE)
      goto oom;
  }
  cuzk_cs_alloc_input(cs, &CUZK_FR_ONE);
  if (cs->err != CUZK_OK) goto oom;
  return cs;
oom:
  cuzk_cs_free(cs);
  cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cs: out of memory");
  return NULL;
}

void cuzk_cs_free(cuzk_cs_t *cs) {
  if (!cs) return;
  free(cs->in_v);
  if (!cs->aux_external) free(cs->aux_v);
  for (int k = 0; k < 3; k++) {
    free(cs->row_ptr[k]);
    free(cs->ent[k]);
  }
  free(cs->coeffs);
  free(cs->ctab);
  cuzk_lc_free(&cs->tmp);
  free(cs->names);
  free(cs->name_off);
  free(cs->ns);
  free(cs->ns_stack);
  free(cs);
}

void cuzk_cs_reserve(cuzk_cs_t *cs, uint64_t inputs, uint64_t aux, uint64_t constraints,
                     uint64_t nnz_per_matrix) {
  assert(cs);
  bool ok = true;
  if (cs->mode & CUZK_CS_WITNESS) {
    ok &= cuzk__grow((void **)&cs->in_v, &cs->in_cap, inputs, sizeof(cuzk_fr_t));
    if (!cs->aux_external)
      ok &= cuzk__grow((void **)&cs->aux_v, &cs->aux_cap, aux, sizeof(cuzk_fr_t));
  }
  if ((cs->mode & CUZK_CS_RECORD) && !cs->finished) {
    for (int k = 0; k < 3; k++) {
      uint64_t cap = cs->rp_cap;
      ok &= cuzk__grow((void **)&cs->row_ptr[k], &cap, constraints + 1, sizeof(uint64_t));
      ok &= cuzk__grow((void **)&cs->ent[k], &cs->ent_cap[k], nnz_per_matrix,
                       sizeof(cuzk_r1cs_entry_t));
      if (k == 2 && ok) cs->rp_cap = cap;
    }
    if (ok && (cs->mode & CUZK_CS_ANNOTATE)) {
      uint64_t cap = 0;
      void *p = realloc(cs->name_off, cs->rp_cap * sizeof(uint64_t));
      if (p) cs->name_off = p, cap = cs->rp_cap;
      ok &= cap == cs->rp_cap;
    }
  }
  if (!ok) cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory reserving capacity");
}

cuzk_err_t cuzk_cs_set_aux_buffer(cuzk_cs_t *cs, cuzk_fr_t *buf, uint64_t cap) {
  assert(cs && (buf || cap == 0));
  if (!(cs->mode & CUZK_CS_WITNESS) || cs->naux != 0 || cs->aux_external)
    return CUZK_ERR_INVALID_ARG;
  free(cs->aux_v);
  cs->aux_v = buf;
  cs->aux_cap = cap;
  cs->aux_external = true;
  return CUZK_OK;
}

unsigned cuzk_cs_mode(const cuzk_cs_t *cs) {
  return cs->mode;
}
uint64_t cuzk_cs_num_constraints(const cuzk_cs_t *cs) {
  return cs->m;
}
uint64_t cuzk_cs_num_inputs(const cuzk_cs_t *cs) {
  return cs->ni;
}
uint64_t cuzk_cs_num_aux(const cuzk_cs_t *cs) {
  return cs->naux;
}

cuzk_err_t cuzk_cs_error(const cuzk_cs_t *cs, char *errstr, size_t errstr_size) {
  if (cs->err == CUZK_OK) return CUZK_OK;
  return cuzk_errf(cs->err, errstr, errstr_size, "%s", cs->errmsg);
}

static cuzk_var_t cuzk__alloc(cuzk_cs_t *cs, bool aux, const cuzk_fr_t *value) {
  uint64_t *count = aux ? &cs->naux : &cs->ni;
  if (cs->err != CUZK_OK) return CUZK_VAR_ONE;
  if (*count >= CUZK_VAR_MAX_INDEX || cs->ni + cs->naux >= UINT32_MAX) {
    cuzk__cs_fail(cs, CUZK_ERR_TOO_LARGE, "cs: more than 2^31 %s variables", aux ? "aux" : "input");
    return CUZK_VAR_ONE;
  }
  if (cs->mode & CUZK_CS_WITNESS) {
    if (!value) {
      cuzk__cs_fail(cs, CUZK_ERR_INVALID_ARG, "cs: witness value missing for %s %llu",
                    aux ? "aux" : "input", (unsigned long long)*count);
      return CUZK_VAR_ONE;
    }
    cuzk_fr_t **v = aux ? &cs->aux_v : &cs->in_v;
    uint64_t *cap = aux ? &cs->aux_cap : &cs->in_cap;
    if (aux && cs->aux_external && *count >= *cap) {
      cuzk__cs_fail(cs, CUZK_ERR_TOO_LARGE, "cs: aux buffer of %llu values is full",
                    (unsigned long long)*cap);
      return CUZK_VAR_ONE;
    }
    if (!cuzk__grow((void **)v, cap, *count + 1, sizeof(cuzk_fr_t))) {
      cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory for witness values");
      return CUZK_VAR_ONE;
    }
    (*v)[*count] = *value;
  }
  uint32_t idx = (uint32_t)(*count)++;
  return aux ? cuzk_var_aux(idx) : cuzk_var_input(idx);
}

cuzk_var_t cuzk_cs_alloc_input(cuzk_cs_t *cs, const cuzk_fr_t *value) {
  return cuzk__alloc(cs, false, value);
}
cuzk_var_t cuzk_cs_alloc_aux(cuzk_cs_t *cs, const cuzk_fr_t *value) {
  return cuzk__alloc(cs, true, value);
}

static bool cuzk__var_ok(const cuzk_cs_t *cs, cuzk_var_t v) {
  return cuzk_var_index(v) < (cuzk_var_is_aux(v) ? cs->naux : cs->ni);
}

/* Appends the normalised copy of lc to matrix k; false on failure (error set). */
static bool cuzk__record_lc(cuzk_cs_t *cs, int k, const cuzk_lc_t *lc) {
  cuzk_lc_copy(&cs->tmp, lc);
  if (cs->tmp.oom) {
    cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory copying a linear combination");
    return false;
  }
  cuzk_lc_normalize(&cs->tmp);
  const cuzk_lc_term_t *t = cuzk_lc_terms_const(&cs->tmp);
  uint32_t n = cs->tmp.n;
  if (!cuzk__grow((void **)&cs->ent[k], &cs->ent_cap[k], cs->nnz[k] + n,
                  sizeof(cuzk_r1cs_entry_t))) {
    cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory recording constraint %llu",
                  (unsigned long long)cs->m);
    return false;
  }
  cuzk_r1cs_entry_t *e = cs->ent[k] + cs->nnz[k];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ci;
    if (t[i].kind == CUZK_LC_COEFF_ONE)
      ci = CUZK_R1CS_COEFF_ONE;
    else if (t[i].kind == CUZK_LC_COEFF_NEG_ONE)
      ci = CUZK_R1CS_COEFF_NEG_ONE;
    else if ((ci = cuzk__coeff_index(cs, &t[i].c)) == UINT32_MAX) {
      cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: coefficient table full");
      return false;
    }
    e[i].col = t[i].var.v;
    e[i].coeff = ci;
  }
  cs->nnz[k] += n;
  return true;
}

static bool cuzk__lc_vars_ok(cuzk_cs_t *cs, const cuzk_lc_t *lc, char which) {
  const cuzk_lc_term_t *t = cuzk_lc_terms_const(lc);
  if (lc->oom) {
    cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: a linear combination ran out of memory");
    return false;
  }
  for (uint32_t i = 0; i < lc->n; i++)
    if (!cuzk__var_ok(cs, t[i].var)) {
      cuzk__cs_fail(cs, CUZK_ERR_INVALID_ARG,
                    "cs: constraint %llu (%c) uses unallocated %s variable %u",
                    (unsigned long long)cs->m, which, cuzk_var_is_aux(t[i].var) ? "aux" : "input",
                    cuzk_var_index(t[i].var));
      return false;
    }
  return true;
}

static void cuzk__record_name(cuzk_cs_t *cs, const char *name) {
  if (!name && cs->ns_len == 0) {
    cs->name_off[cs->m] = UINT64_MAX;
    return;
  }
  size_t nl = name ? strlen(name) : 0;
  uint64_t need = cs->names_len + cs->ns_len + nl + 2;
  if (!cuzk__grow((void **)&cs->names, &cs->names_cap, need, 1)) {
    cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory for annotations");
    return;
  }
  cs->name_off[cs->m] = cs->names_len;
  char *p = cs->names + cs->names_len;
  memcpy(p, cs->ns, cs->ns_len);
  p += cs->ns_len;
  if (nl) {
    if (cs->ns_len) *p++ = '/';
    memcpy(p, name, nl);
    p += nl;
  }
  *p++ = 0;
  cs->names_len = (uint64_t)(p - cs->names);
}

void cuzk_cs_enforce_named(cuzk_cs_t *cs, const char *name, const cuzk_lc_t *a, const cuzk_lc_t *b,
                           const cuzk_lc_t *c) {
  assert(cs && a && b && c);
  if (cs->err != CUZK_OK) return;
  if (!(cs->mode & CUZK_CS_RECORD)) {
    cs->m++;
    return;
  }
  if (cs->finished) {
    cuzk__cs_fail(cs, CUZK_ERR_INVALID_ARG, "cs: enforce after cuzk_cs_finish");
    return;
  }
  if (!cuzk__lc_vars_ok(cs, a, 'A') || !cuzk__lc_vars_ok(cs, b, 'B') ||
      !cuzk__lc_vars_ok(cs, c, 'C'))
    return;
  if (cs->m + 2 > cs->rp_cap) {
    uint64_t cap = cs->rp_cap;
    bool ok = true;
    for (int k = 0; k < 3 && ok; k++) {
      cap = cs->rp_cap;
      ok = cuzk__grow((void **)&cs->row_ptr[k], &cap, cs->m + 2, sizeof(uint64_t));
    }
    if (ok && (cs->mode & CUZK_CS_ANNOTATE)) {
      void *p = realloc(cs->name_off, cap * sizeof(uint64_t));
      if (p)
        cs->name_off = p;
      else
        ok = false;
    }
    if (!ok) {
      cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory for row pointers");
      return;
    }
    cs->rp_cap = cap;
  }
  const cuzk_lc_t *lcs[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    if (!cuzk__record_lc(cs, k, lcs[k])) return;
    cs->row_ptr[k][cs->m + 1] = cs->nnz[k];
  }
  if (cs->mode & CUZK_CS_ANNOTATE) cuzk__record_name(cs, name);
  cs->m++;
}

void cuzk_cs_enforce(cuzk_cs_t *cs, const cuzk_lc_t *a, const cuzk_lc_t *b, const cuzk_lc_t *c) {
  cuzk_cs_enforce_named(cs, NULL, a, b, c);
}

void cuzk_cs_push_namespace(cuzk_cs_t *cs, const char *name) {
  if (!(cs->mode & CUZK_CS_ANNOTATE) || cs->err != CUZK_OK) return;
  size_t nl = strlen(name);
  uint64_t cap = cs->ns_cap, scap = cs->ns_stack_cap;
  if (!cuzk__grow((void **)&cs->ns, &cap, cs->ns_len + nl + 2, 1) ||
      !cuzk__grow((void **)&cs->ns_stack, &scap, cs->ns_depth + 1, sizeof(size_t))) {
    cuzk__cs_fail(cs, CUZK_ERR_NOMEM, "cs: out of memory for namespaces");
    return;
  }
  cs->ns_cap = (size_t)cap;
  cs->ns_stack_cap = (size_t)scap;
  cs->ns_stack[cs->ns_depth++] = cs->ns_len;
  if (cs->ns_len) cs->ns[cs->ns_len++] = '/';
  memcpy(cs->ns + cs->ns_len, name, nl);
  cs->ns_len += nl;
}

void cuzk_cs_pop_namespace(cuzk_cs_t *cs) {
  if (!(cs->mode & CUZK_CS_ANNOTATE) || cs->err != CUZK_OK) return;
  if (cs->ns_depth == 0) {
    cuzk__cs_fail(cs, CUZK_ERR_INVALID_ARG, "cs: pop_namespace without push");
    return;
  }
  cs->ns_len = cs->ns_stack[--cs->ns_depth];
}

bool cuzk_cs_value(const cuzk_cs_t *cs, cuzk_var_t v, cuzk_fr_t *out) {
  if (!(cs->mode & CUZK_CS_WITNESS) || !cuzk__var_ok(cs, v)) return false;
  const cuzk_fr_t *src = cuzk_var_is_aux(v) ? cs->aux_v : cs->in_v;
  if (!src) return false;
  *out = src[cuzk_var_index(v)];
  return true;
}

bool cuzk_cs_lc_value(const cuzk_cs_t *cs, const cuzk_lc_t *lc, cuzk_fr_t *out) {
  const cuzk_lc_term_t *t = cuzk_lc_terms_const(lc);
  cuzk_fr_t acc = CUZK_FR_ZERO, x;
  for (uint32_t i = 0; i < lc->n; i++) {
    if (!cuzk_cs_value(cs, t[i].var, &x)) return false;
    switch ((cuzk_lc_coeff_kind_t)t[i].kind) {
      case CUZK_LC_COEFF_ONE:
        cuzk_fr_add(&acc, &acc, &x);
        break;
      case CUZK_LC_COEFF_NEG_ONE:
        cuzk_fr_sub(&acc, &acc, &x);
        break;
      default:
        cuzk_fr_mul(&x, &x, &t[i].c);
        cuzk_fr_add(&acc, &acc, &x);
        break;
    }
  }
  *out = acc;
  return true;
}

/* Row value with raw tagged columns (before cuzk_cs_finish). */
static void cuzk__row_eval_tagged(cuzk_fr_t *out, const cuzk_cs_t *cs, int k, uint64_t row) {
  cuzk_fr_t acc = CUZK_FR_ZERO, x;
  for (uint64_t e = cs->row_ptr[k][row]; e < cs->row_ptr[k][row + 1]; e++) {
    cuzk_var_t v = {cs->ent[k][e].col};
    const cuzk_fr_t *w = cuzk_var_is_aux(v) ? &cs->aux_v[cuzk_var_index(v)] : &cs->in_v[v.v];
    uint32_t ci = cs->ent[k][e].coeff;
    if (ci == CUZK_R1CS_COEFF_ONE) {
      cuzk_fr_add(&acc, &acc, w);
    } else if (ci == CUZK_R1CS_COEFF_NEG_ONE) {
      cuzk_fr_sub(&acc, &acc, w);
    } else {
      cuzk_fr_mul(&x, w, &cs->coeffs[ci]);
      cuzk_fr_add(&acc, &acc, &x);
    }
  }
  *out = acc;
}

cuzk_err_t cuzk_cs_check(const cuzk_cs_t *cs, uint64_t *bad_row, char *errstr, size_t errstr_size) {
  if ((cs->mode & (CUZK_CS_RECORD | CUZK_CS_WITNESS)) != (CUZK_CS_RECORD | CUZK_CS_WITNESS) ||
      cs->finished)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "cs_check needs a RECORD|WITNESS builder before finish");
  if (cs->err != CUZK_OK) return cuzk_cs_error(cs, errstr, errstr_size);
  for (uint64_t r = 0; r < cs->m; r++) {
    cuzk_fr_t a, b, c;
    cuzk__row_eval_tagged(&a, cs, 0, r);
    cuzk__row_eval_tagged(&b, cs, 1, r);
    cuzk__row_eval_tagged(&c, cs, 2, r);
    cuzk_fr_mul(&a, &a, &b);
    if (!cuzk_fr_eq(&a, &c)) {
      if (bad_row) *bad_row = r;
      const char *name = (cs->mode & CUZK_CS_ANNOTATE) && cs->name_off[r] != UINT64_MAX
                             ? cs->names + cs->name_off[r]
                             : NULL;
      return cuzk_errf(CUZK_ERR_UNSATISFIED, errstr, errstr_size,
                       "constraint %llu%s%s%s is not satisfied", (unsigned long long)r,
                       name ? " (" : "", name ? name : "", name ? ")" : "");
    }
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_cs_finish(cuzk_cs_t *cs, cuzk_r1cs_t **out, char *errstr, size_t errstr_size) {
  assert(cs && out);
  *out = NULL;
  if (cs->err != CUZK_OK) return cuzk_cs_error(cs, errstr, errstr_size);
  if (!(cs->mode & CUZK_CS_RECORD) || cs->finished)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "cs_finish needs a RECORD builder, once");
  cuzk_r1cs_t *r = calloc(1, sizeof *r);
  if (!r) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cs_finish: out of memory");
  r->m = cs->m;
  r->ni = cs->ni;
  r->naux = cs->naux;
  for (int k = 0; k < 3; k++) {
    cuzk_r1cs_entry_t *e = cs->ent[k];
    uint32_t ni = (uint32_t)cs->ni;
    for (uint64_t i = 0; i < cs->nnz[k]; i++) {
      cuzk_var_t v = {e[i].col};
      if (cuzk_var_is_aux(v)) e[i].col = ni + cuzk_var_index(v);
    }
    r->mat[k].row_ptr = cs->row_ptr[k];
    r->mat[k].entries = e;
    r->mat[k].nnz = cs->nnz[k];
    r->owned[2 * k] = cs->row_ptr[k];
    r->owned[2 * k + 1] = e;
    cs->row_ptr[k] = NULL;
    cs->ent[k] = NULL;
  }
  r->coeffs = cs->coeffs;
  r->ncoeffs = cs->ncoeffs;
  r->owned[6] = cs->coeffs;
  cs->coeffs = NULL;
  if (cs->mode & CUZK_CS_ANNOTATE) {
    r->names = cs->names;
    r->name_off = cs->name_off;
    cs->names = NULL;
    cs->name_off = NULL;
  }
  free(cs->ctab);
  cs->ctab = NULL;
  cs->finished = true;
  cuzk_err_t err = cuzk__r1cs_compute_density(r);
  if (err != CUZK_OK) {
    cuzk_r1cs_free(r);
    return cuzk_errf(err, errstr, errstr_size, "cs_finish: out of memory for densities");
  }
  *out = r;
  return CUZK_OK;
}

const cuzk_fr_t *cuzk_cs_inputs(const cuzk_cs_t *cs, uint64_t *n) {
  if (n) *n = (cs->mode & CUZK_CS_WITNESS) && cs->in_v ? cs->ni : 0;
  return cs->in_v;
}

const cuzk_fr_t *cuzk_cs_aux(const cuzk_cs_t *cs, uint64_t *n) {
  if (n) *n = (cs->mode & CUZK_CS_WITNESS) && cs->aux_v ? cs->naux : 0;
  return cs->aux_v;
}

cuzk_err_t cuzk_cs_take_witness(cuzk_cs_t *cs, cuzk_fr_t **inputs, uint64_t *n_inputs,
                                cuzk_fr_t **aux, uint64_t *n_aux) {
  assert(cs && inputs && aux);
  if (!(cs->mode & CUZK_CS_WITNESS))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, NULL, 0, "take_witness needs WITNESS mode");
  if (cs->err != CUZK_OK) return cs->err;
  *inputs = cs->in_v;
  *aux = cs->aux_v;
  if (n_inputs) *n_inputs = cs->ni;
  if (n_aux) *n_aux = cs->naux;
  cs->in_v = cs->aux_v = NULL;
  cs->in_cap = cs->aux_cap = 0;
  cs->aux_external = false;
  return CUZK_OK;
}
