/* Per-partition completion watermarks for the Kafka consumer (DESIGN §3 step 8, §7).
 *
 * The poll thread registers each message's offset when it takes it (ascending per partition);
 * jobs complete in any order; the offset to commit for a partition is the lowest taken offset not
 * yet complete (or one past the last taken when all are complete), so every offset below it is
 * done. Offsets need not be contiguous (compaction, transaction markers). The completed offsets
 * above the watermark travel as commit metadata, so a restarted consumer can skip them.
 *
 * Pure bookkeeping: no librdkafka. Partitions are keyed by (topic, partition) and looked up
 * linearly (an agent holds tens of partitions); in-flight offsets of a partition live in a sorted
 * ring, so take is O(1) amortized and complete O(log n).
 *
 * Ownership: cuzk_watermark_t is an opaque handle from _new, freed by _free; topic strings are
 * copied. Threads: not thread-safe; one thread (the poll thread) owns a handle, or the caller
 * serializes every call.
 */
#ifndef CUZK_AGENT_KAFKA_WATERMARK_H
#define CUZK_AGENT_KAFKA_WATERMARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

/* Inclusive offset range [lo, hi]. */
typedef struct {
  int64_t lo;
  int64_t hi;
} cuzk_watermark_range_t;

typedef struct cuzk_watermark cuzk_watermark_t;

/* Prefix of the commit metadata this module writes; other metadata is ignored on restore. */
#define CUZK_WATERMARK_META_PREFIX "cuzk-wm1:"
/* Kafka's default offset.metadata.max.bytes. */
#define CUZK_WATERMARK_META_MAX 4096

/* An empty tracker, or NULL when out of memory. */
cuzk_watermark_t *cuzk_watermark_new(void);
void cuzk_watermark_free(cuzk_watermark_t *wm);

/* Starts tracking (topic, partition) after an assignment, dropping any older state of it.
 * `committed` is the group's committed offset (-1 when none) and `metadata` its commit metadata
 * (NULL or foreign metadata: nothing to skip). *gen receives this assignment's generation, which
 * completions must quote, so completions of work taken before a revocation are refused.
 * Errors: INVALID_ARG (committed < -1, partition < 0), PARSE (our metadata prefix, malformed),
 * NOMEM. */
cuzk_err_t cuzk_watermark_assign(cuzk_watermark_t *wm, const char *topic, int32_t partition,
                                 int64_t committed, const char *metadata, uint64_t *gen);

/* Drops the state of (topic, partition) after a revocation. NOT_FOUND when not assigned. */
cuzk_err_t cuzk_watermark_revoke(cuzk_watermark_t *wm, const char *topic, int32_t partition);

/* Drops every partition (eager rebalance, shutdown). */
void cuzk_watermark_revoke_all(cuzk_watermark_t *wm);

/* Registers `offset` as taken. Offsets of a partition must be strictly ascending within an
 * assignment. *skip is set when the restored metadata says the offset was already completed by
 * an earlier consumer: it is then recorded as complete and the caller must not process it again.
 * *gen (may be NULL) receives the assignment generation.
 * Errors: NOT_FOUND (partition not assigned), INVALID_ARG (offset not above the last taken,
 * negative, or INT64_MAX), NOMEM. */
cuzk_err_t cuzk_watermark_take(cuzk_watermark_t *wm, const char *topic, int32_t partition,
                               int64_t offset, uint64_t *gen, bool *skip);

/* Marks a taken offset complete (any order).
 * Errors: CANCELLED (partition revoked or reassigned since `gen`), NOT_FOUND (offset is not in
 * flight in this assignment: never taken, or already below the watermark), INVALID_ARG (already
 * marked complete). */
cuzk_err_t cuzk_watermark_complete(cuzk_watermark_t *wm, const char *topic, int32_t partition,
                                   int64_t offset, uint64_t gen);

/* The offset to commit for (topic, partition): every taken offset below *commit is complete.
 * *commit is -1 when nothing is known (no take and no committed offset since the assignment).
 * The completed offsets above it are written as ascending disjoint ranges into above[0..cap)
 * (above may be NULL when cap is 0); *n_above receives how many ranges exist, which may exceed
 * cap. Errors: NOT_FOUND (partition not assigned). */
cuzk_err_t cuzk_watermark_next_commit(const cuzk_watermark_t *wm, const char *topic,
                                      int32_t partition, int64_t *commit,
                                      cuzk_watermark_range_t *above, size_t cap, size_t *n_above);

/* Number of taken offsets of (topic, partition) that are not yet below the watermark (taken and
 * incomplete, plus complete ones above the lowest incomplete); 0 when not assigned. */
size_t cuzk_watermark_in_flight(const cuzk_watermark_t *wm, const char *topic, int32_t partition);

/* Encodes ranges above `commit` as commit metadata into out (size bytes incl. NUL; size ≥ 16):
 * CUZK_WATERMARK_META_PREFIX then comma-separated items "g" or "g+l", where range i starts at
 * base + g (base = commit for the first, the previous range's hi after) and spans l more offsets.
 * Ranges must be ascending, disjoint and above commit. Writes as many leading ranges as fit and
 * returns that count (the others are then simply reprocessed after a restart). */
size_t cuzk_watermark_format_metadata(char *out, size_t size, int64_t commit,
                                      const cuzk_watermark_range_t *ranges, size_t n);

/* Decodes metadata written by cuzk_watermark_format_metadata for `commit` into out[0..cap).
 * NULL, empty or foreign metadata (another prefix) gives *n = 0 and CUZK_OK.
 * Errors: PARSE (our prefix but malformed, or a range overflows int64), TOO_LARGE (more than cap
 * ranges), INVALID_ARG (commit < 0 with our prefix and ranges). */
cuzk_err_t cuzk_watermark_parse_metadata(const char *metadata, int64_t commit,
                                         cuzk_watermark_range_t *out, size_t cap, size_t *n);

#endif
