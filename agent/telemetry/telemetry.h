/* Offline telemetry: PartitionTiming record sets, their file container, reading them from Kafka,
 * per-GPU statistics and the self-contained HTML report (`cuzk telemetry`).
 *
 * Container ("cuzk-telemetry v1"): a text file whose first line is `# cuzk-telemetry v1`; every
 * other non-empty line not starting with '#' is the standard base64 (RFC 4648, padded) of one
 * framed Avro message exactly as it was on the topic. Lines are at most
 * CUZK_TELEMETRY_MAX_LINE bytes.
 *
 * Phases of a partition (DESIGN 4.9): queued = [enqueued, synth_start) (includes the budget
 * wait), synth = [synth_start, synth_end), gpu wait = [synth_end, gpu_start), gpu =
 * [gpu_start, gpu_end), finish = [gpu_end, finish_end). A GPU is (agent_id, gpu).
 *
 * Thread use: a set and a stats object belong to one thread; functions that decode take a codec,
 * which is itself bound to one thread (codec.h).
 */
#ifndef CUZK_AGENT_TELEMETRY_TELEMETRY_H
#define CUZK_AGENT_TELEMETRY_TELEMETRY_H

#include <stdint.h>
#include <stdio.h>

#include "agent/avro/codec.h"
#include "core/util/err.h"

#define CUZK_TELEMETRY_HEADER "# cuzk-telemetry v1"
#define CUZK_TELEMETRY_MAX_LINE (1u << 20)

enum {
  CUZK_TPHASE_QUEUED,
  CUZK_TPHASE_SYNTH,
  CUZK_TPHASE_GPU_WAIT,
  CUZK_TPHASE_GPU,
  CUZK_TPHASE_FINISH,
  CUZK_TPHASE__COUNT
};

/* A growable array of decoded records; owns each record's strings. */
typedef struct {
  cuzk_partition_timing_t *recs;
  size_t n, cap;
} cuzk_telemetry_set_t;

void cuzk_telemetry_set_init(cuzk_telemetry_set_t *set);
/* Frees every record and the array; leaves an empty set. */
void cuzk_telemetry_set_clear(cuzk_telemetry_set_t *set);
/* Decodes one framed message and appends it (the set takes ownership of the decoded record). */
cuzk_err_t cuzk_telemetry_set_add_framed(cuzk_telemetry_set_t *set, cuzk_avro_codec_t *codec,
                                         const uint8_t *buf, size_t len, char *errstr,
                                         size_t errstr_size);
/* Keeps only records whose finish_end lies in [since_us, until_us] (INT64_MIN/MAX = open). */
void cuzk_telemetry_set_filter(cuzk_telemetry_set_t *set, int64_t since_us, int64_t until_us);

/* Base64 of buf into out (NUL-terminated; out_size >= 4*ceil(len/3)+1). Returns the length. */
size_t cuzk_telemetry_b64_encode(char *out, size_t out_size, const uint8_t *buf, size_t len);
/* Decodes base64 text s[0..n) (padding required, no whitespace) into out (capacity out_size);
 * *out_len gets the size. CUZK_ERR_PARSE on a bad character or length, CUZK_ERR_TOO_LARGE when
 * out is too small. */
cuzk_err_t cuzk_telemetry_b64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *s,
                                     size_t n);

/* Writes one container line for a framed message. */
cuzk_err_t cuzk_telemetry_write_line(FILE *f, const uint8_t *buf, size_t len);

/* Reads a container file into set (appending). CUZK_ERR_IO when it cannot be read,
 * CUZK_ERR_PARSE (with the line number in errstr) on a missing header, bad base64 or an
 * undecodable record. */
cuzk_err_t cuzk_telemetry_read_file(cuzk_telemetry_set_t *set, cuzk_avro_codec_t *codec,
                                    const char *path, char *errstr, size_t errstr_size);

/* Called by cuzk_telemetry_consume for each message; nonzero return stops the loop. */
typedef int (*cuzk_telemetry_msg_fn)(void *ctx, const uint8_t *buf, size_t len);

/* Reads every partition of `topic` from the beginning without a consumer group. Without follow
 * it stops at the high watermarks seen at the start; with follow it runs until *stop is set,
 * fn returns nonzero or timeout_ms (0 = none) passes. `max` > 0 stops after that many messages.
 * `tick`, when non-NULL, is called about every second from the same thread. */
cuzk_err_t cuzk_telemetry_consume(const char *brokers, const char *topic, int follow, long max,
                                  long timeout_ms, volatile int *stop, cuzk_telemetry_msg_fn fn,
                                  void (*tick)(void *ctx), void *ctx, char *errstr,
                                  size_t errstr_size);

/* Per-GPU figures over the report window. */
typedef struct {
  char *agent_id; /* owned */
  int32_t gpu;
  size_t partitions, jobs, pinned;
  int64_t busy_us; /* length of the union of [gpu_start, gpu_end) clipped to the window */
  int64_t synth_us, gpu_us, h2d_bytes, h2d_us;
  int64_t *gaps_us; /* idle gaps (window edges included), owned */
  size_t n_gaps;
} cuzk_telemetry_gpu_t;

typedef struct {
  int64_t t0_us, t1_us; /* window: earliest enqueued .. latest finish_end */
  cuzk_telemetry_gpu_t *gpus;
  size_t n_gpus;
} cuzk_telemetry_stats_t;

/* Computes per-GPU statistics over set (records are sorted by agent, gpu, gpu_start in place).
 * CUZK_ERR_NOMEM on allocation failure; an empty set gives n_gpus == 0. */
cuzk_err_t cuzk_telemetry_stats(cuzk_telemetry_stats_t *st, cuzk_telemetry_set_t *set);
void cuzk_telemetry_stats_free(cuzk_telemetry_stats_t *st);

/* Nearest-rank percentile (q in (0,1]) of v[0..n) sorted ascending: v[ceil(q*n)-1]. n > 0. */
int64_t cuzk_telemetry_percentile(const int64_t *sorted, size_t n, double q);

/* Writes s HTML-escaped (& < > " ') to f; bytes < 0x20 other than tab become U+FFFD. */
void cuzk_telemetry_html_escape(FILE *f, const char *s);

typedef struct {
  int64_t resolution_us; /* timeline bin; default 200 ms */
  const char *title;     /* shown escaped; NULL = "cuzk telemetry" */
} cuzk_telemetry_report_opts_t;

/* Renders the report for set (sorted in place) as one HTML document with inline SVG.
 * CUZK_ERR_INVALID_ARG when the timeline would need more than 200000 bins (errstr suggests a
 * coarser resolution), CUZK_ERR_IO on a write error. */
cuzk_err_t cuzk_telemetry_report_html(FILE *f, cuzk_telemetry_set_t *set,
                                      const cuzk_telemetry_report_opts_t *opts, char *errstr,
                                      size_t errstr_size);

#endif
