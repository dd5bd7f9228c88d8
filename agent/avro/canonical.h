/* Parsing Canonical Form of Avro schemas (Avro specification, "Parsing Canonical Form for
 * Schemas"): PRIMITIVES ({"type":"int"} -> "int"), FULLNAMES (names and references made
 * fully qualified, "namespace" dropped), STRIP (only type, name, fields, symbols, items, values,
 * size are kept), ORDER (in that order), STRINGS (escapes replaced by UTF-8), INTEGERS (no
 * leading zeros), WHITESPACE (none outside strings).
 *
 * Avro C 1.11 has no canonical form, so this is ours; JSON is parsed with jansson.
 * Thread use: pure, callable from any thread.
 */
#ifndef CUZK_AGENT_AVRO_CANONICAL_H
#define CUZK_AGENT_AVRO_CANONICAL_H

#include "core/util/err.h"

#include <stddef.h>

/* Nesting deeper than this (named types, arrays, maps, unions) is refused as CUZK_ERR_PARSE. */
#define CUZK_AVRO_CANONICAL_MAX_DEPTH 64

/* Canonicalizes the schema JSON text `json` (`len` bytes, need not be NUL-terminated).
 * On success *out is a malloc'd NUL-terminated string owned by the caller (free()) and *out_len
 * its length without the NUL. Errors: CUZK_ERR_PARSE for invalid JSON or a malformed schema
 * (missing name/fields/symbols/items/values/size, wrong JSON types, too deep), CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_avro_canonical(char **out, size_t *out_len, const char *json, size_t len,
                               char *errstr, size_t errstr_size);

#endif
