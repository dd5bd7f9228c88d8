#include "core/util/err.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
  const char *name;
  const char *msg;
  bool retriable;
} cuzk__err_table[] = {
#define CUZK__ERR_ROW(name, retriable, msg) {"CUZK_ERR_" #name, msg, retriable},
    CUZK_ERR_MAP(CUZK__ERR_ROW)
#undef CUZK__ERR_ROW
};

_Static_assert(sizeof(cuzk__err_table) / sizeof(cuzk__err_table[0]) == CUZK_ERR__COUNT,
               "error table out of sync with the enum");

static bool cuzk__err_valid(cuzk_err_t err) {
  return (unsigned)err < (unsigned)CUZK_ERR__COUNT;
}

const char *cuzk_err_str(cuzk_err_t err) {
  return cuzk__err_valid(err) ? cuzk__err_table[err].msg : "unknown error";
}

const char *cuzk_err_name(cuzk_err_t err) {
  return cuzk__err_valid(err) ? cuzk__err_table[err].name : "CUZK_ERR_UNKNOWN";
}

bool cuzk_err_is_retriable(cuzk_err_t err) {
  return cuzk__err_valid(err) && cuzk__err_table[err].retriable;
}

cuzk_err_t cuzk_errf(cuzk_err_t err, char *errstr, size_t errstr_size, const char *fmt, ...) {
  if (errstr && errstr_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errstr, errstr_size, fmt, ap);
    va_end(ap);
  }
  return err;
}
