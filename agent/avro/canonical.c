#include "agent/avro/canonical.h"

#include <assert.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *buf;
  size_t len, cap;
  bool oom;
  char *errstr;
  size_t errstr_size;
} sb_t;

static void sb_put(sb_t *sb, const char *s, size_t n) {
  if (sb->oom)
    return;
  if (sb->len + n + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 128;
    while (cap < sb->len + n + 1)
      cap *= 2;
    char *p = realloc(sb->buf, cap);
    if (p == NULL) {
      sb->oom = true;
      return;
    }
    sb->buf = p;
    sb->cap = cap;
  }
  memcpy(sb->buf + sb->len, s, n);
  sb->len += n;
  sb->buf[sb->len] = '\0';
}

static void sb_puts(sb_t *sb, const char *s) { sb_put(sb, s, strlen(s)); }

/* JSON string literal: only '"', '\\' and control characters are escaped; everything else,
 * including non-ASCII, is written as raw UTF-8 (STRINGS). */
static void sb_put_jstr(sb_t *sb, const char *s, size_t n) {
  sb_put(sb, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      sb_put(sb, e, 2);
    } else if (c < 0x20) {
      char e[8];
      snprintf(e, sizeof e, "\\u%04x", c);
      sb_put(sb, e, 6);
    } else {
      sb_put(sb, (const char *)&s[i], 1);
    }
  }
  sb_put(sb, "\"", 1);
}

static bool is_primitive(const char *t) {
  static const char *const prims[] = {"null", "boolean", "int", "long",
                                      "float", "double", "bytes", "string"};
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (strcmp(t, prims[i]) == 0)
      return true;
  return false;
}

static cuzk_err_t fail(sb_t *sb, const char *fmt, const char *what) {
  return cuzk_errf(CUZK_ERR_PARSE, sb->errstr, sb->errstr_size, fmt, what);
}

/* Writes the fully qualified form of `name` seen in namespace `ns` ("" = null namespace). */
static void put_fullname(sb_t *sb, const char *name, const char *ns) {
  if (strchr(name, '.') != NULL || ns[0] == '\0') {
    sb_put_jstr(sb, name, strlen(name));
    return;
  }
  size_t nl = strlen(ns), ml = strlen(name);
  char *full = malloc(nl + 1 + ml + 1);
  if (full == NULL) {
    sb->oom = true;
    return;
  }
  memcpy(full, ns, nl);
  full[nl] = '.';
  memcpy(full + nl + 1, name, ml + 1);
  sb_put_jstr(sb, full, nl + 1 + ml);
  free(full);
}

static cuzk_err_t emit(sb_t *sb, json_t *s, const char *ns, int depth);

/* A named type's definition: writes {"name":"<full>" and returns in *child_ns (malloc'd) the
 * namespace its nested definitions and references inherit. */
static cuzk_err_t emit_name(sb_t *sb, json_t *s, const char *ns, char **child_ns) {
  json_t *jname = json_object_get(s, "name");
  if (!json_is_string(jname) || json_string_length(jname) == 0)
    return fail(sb, "schema: a %s needs a non-empty string \"name\"",
                json_string_value(json_object_get(s, "type")));
  const char *name = json_string_value(jname);
  json_t *jns = json_object_get(s, "namespace");
  if (jns != NULL && !json_is_string(jns) && !json_is_null(jns))
    return fail(sb, "schema: \"namespace\" of %s is not a string", name);
  const char *space = ns;
  if (strchr(name, '.') != NULL)
    space = "";
  else if (json_is_string(jns))
    space = json_string_value(jns);
  size_t nl = strlen(space), ml = strlen(name);
  char *full = malloc(nl + 1 + ml + 1);
  if (full == NULL)
    return CUZK_ERR_NOMEM;
  if (nl > 0) {
    memcpy(full, space, nl);
    full[nl] = '.';
    memcpy(full + nl + 1, name, ml + 1);
  } else {
    memcpy(full, name, ml + 1);
  }
  sb_puts(sb, "{\"name\":");
  sb_put_jstr(sb, full, strlen(full));
  char *dot = strrchr(full, '.');
  if (dot != NULL)
    *dot = '\0';
  else
    full[0] = '\0';
  *child_ns = full;
  return CUZK_OK;
}

static cuzk_err_t emit_object(sb_t *sb, json_t *s, const char *ns, int depth) {
  json_t *jtype = json_object_get(s, "type");
  if (!json_is_string(jtype))
    return fail(sb, "schema: object without a string \"type\"%s", "");
  const char *type = json_string_value(jtype);
  if (is_primitive(type)) {
    sb_put_jstr(sb, type, strlen(type));
    return CUZK_OK;
  }
  cuzk_err_t err = CUZK_OK;
  char *cns = NULL;
  if (strcmp(type, "record") == 0 || strcmp(type, "error") == 0) {
    json_t *fields = json_object_get(s, "fields");
    if (!json_is_array(fields))
      return fail(sb, "schema: %s needs a \"fields\" array", type);
    if ((err = emit_name(sb, s, ns, &cns)) != CUZK_OK)
      return err;
    sb_puts(sb, ",\"type\":");
    sb_put_jstr(sb, type, strlen(type));
    sb_puts(sb, ",\"fields\":[");
    for (size_t i = 0; i < json_array_size(fields) && err == CUZK_OK; i++) {
      json_t *f = json_array_get(fields, i);
      json_t *fname = json_object_get(f, "name");
      json_t *ftype = json_object_get(f, "type");
      if (!json_is_object(f) || !json_is_string(fname) || ftype == NULL) {
        err = fail(sb, "schema: a field of a %s needs \"name\" and \"type\"", type);
        break;
      }
      sb_puts(sb, i ? ",{\"name\":" : "{\"name\":");
      sb_put_jstr(sb, json_string_value(fname), json_string_length(fname));
      sb_puts(sb, ",\"type\":");
      err = emit(sb, ftype, cns, depth + 1);
      sb_puts(sb, "}");
    }
    sb_puts(sb, "]}");
  } else if (strcmp(type, "enum") == 0) {
    json_t *syms = json_object_get(s, "symbols");
    if (!json_is_array(syms))
      return fail(sb, "schema: %s needs a \"symbols\" array", type);
    if ((err = emit_name(sb, s, ns, &cns)) != CUZK_OK)
      return err;
    sb_puts(sb, ",\"type\":\"enum\",\"symbols\":[");
    for (size_t i = 0; i < json_array_size(syms); i++) {
      json_t *sym = json_array_get(syms, i);
      if (!json_is_string(sym)) {
        err = fail(sb, "schema: enum symbols must be strings%s", "");
        break;
      }
      if (i)
        sb_puts(sb, ",");
      sb_put_jstr(sb, json_string_value(sym), json_string_length(sym));
    }
    sb_puts(sb, "]}");
  } else if (strcmp(type, "fixed") == 0) {
    json_t *size = json_object_get(s, "size");
    if (!json_is_integer(size) || json_integer_value(size) < 0)
      return fail(sb, "schema: %s needs a non-negative integer \"size\"", type);
    if ((err = emit_name(sb, s, ns, &cns)) != CUZK_OK)
      return err;
    char num[32];
    snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(size));
    sb_puts(sb, ",\"type\":\"fixed\",\"size\":");
    sb_puts(sb, num);
    sb_puts(sb, "}");
  } else if (strcmp(type, "array") == 0 || strcmp(type, "map") == 0) {
    bool arr = type[0] == 'a';
    json_t *sub = json_object_get(s, arr ? "items" : "values");
    if (sub == NULL)
      return fail(sb, "schema: %s needs its element type", type);
    sb_puts(sb, arr ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":");
    err = emit(sb, sub, ns, depth + 1);
    sb_puts(sb, "}");
  } else {
    /* {"type":"Name"} is a reference to a named type. */
    put_fullname(sb, type, ns);
  }
  free(cns);
  return err;
}

static cuzk_err_t emit(sb_t *sb, json_t *s, const char *ns, int depth) {
  if (depth > CUZK_AVRO_CANONICAL_MAX_DEPTH)
    return fail(sb, "schema: nested deeper than %s levels", "64");
  if (json_is_string(s)) {
    const char *t = json_string_value(s);
    if (t[0] == '\0')
      return fail(sb, "schema: empty type name%s", "");
    if (is_primitive(t))
      sb_put_jstr(sb, t, strlen(t));
    else
      put_fullname(sb, t, ns);
    return CUZK_OK;
  }
  if (json_is_array(s)) {
    sb_puts(sb, "[");
    for (size_t i = 0; i < json_array_size(s); i++) {
      if (i)
        sb_puts(sb, ",");
      cuzk_err_t err = emit(sb, json_array_get(s, i), ns, depth + 1);
      if (err != CUZK_OK)
        return err;
    }
    sb_puts(sb, "]");
    return CUZK_OK;
  }
  if (json_is_object(s))
    return emit_object(sb, s, ns, depth);
  return fail(sb, "schema: a type must be a string, an array or an object%s", "");
}

cuzk_err_t cuzk_avro_canonical(char **out, size_t *out_len, const char *json, size_t len,
                               char *errstr, size_t errstr_size) {
  assert(out != NULL && out_len != NULL && json != NULL);
  json_error_t jerr;
  json_t *root = json_loadb(json, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "schema JSON: %s at line %d column %d",
                     jerr.text, jerr.line, jerr.column);
  sb_t sb = {.errstr = errstr, .errstr_size = errstr_size};
  cuzk_err_t err = emit(&sb, root, "", 0);
  json_decref(root);
  if (err == CUZK_OK && sb.oom)
    err = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "schema: out of memory");
  if (err == CUZK_OK && sb.buf == NULL)
    err = cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "schema: empty canonical form");
  if (err != CUZK_OK) {
    free(sb.buf);
    return err;
  }
  *out = sb.buf;
  *out_len = sb.len;
  return CUZK_OK;
}
