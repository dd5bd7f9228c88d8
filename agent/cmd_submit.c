/* `cuzk submit`: publishes one ProofJob (operator tool). */
#include <librdkafka/rdkafka.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/avro/codec.h"
#include "agent/cli.h"
#include "agent/jobspec.h"
#include "agent/kafka/topics.h"
#include "agent/payload.h"
#include "agent/config.h"
#include "core/filecoin/post.h"
#include "core/filecoin/vanilla.h"
#include "core/util/hex.h"
#include "core/util/file.h"

static void submit_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk submit --type TYPE (--vanilla FILE | --circuit synthetic-N) [--job-id ID]\n"
          "                   [--brokers B] [--prefix P] [--circuit C] [--inline-max BYTES]\n"
          "                   [--deadline-s S] [--partition N]\n"
          "       PoSt jobs: [--proof N] [--sector-size S] --randomness HEX|FILE\n"
          "                   [--sector-ids LIST|FILE] [--prover-id HEX|FILE | --miner-id N]\n"
          "\n"
          "Publishes one ProofJob to <prefix>.jobs.<TYPE>, keyed by its job id, and prints\n"
          "job_id, topic, partition and offset. A payload larger than --inline-max travels as a\n"
          "file:// reference with its sha256 and size (the agent must see the same path).\n"
          "\n"
          "  --type TYPE        winning-post, window-post, snap-deals or porep-c2\n"
          "  --vanilla FILE     the vanilla proof / C1 output (the job's payload)\n"
          "  --circuit C        engine circuit label (e.g. synthetic-10: a synthetic proof, no\n"
          "                     vanilla needed; results are labelled synthetic). Default: the\n"
          "                     type's real circuit for the sector size\n"
          "  --job-id ID        default: job-<random hex>\n"
          "  --brokers B        default: $CUZK_KAFKA_BROKERS, else $KAFKA_BROKERS\n"
          "  --prefix P         topic prefix (default cuzk)\n"
          "  --inline-max N     bytes sent inline at most (default 1048576)\n"
          "  --deadline-s S     the job expires S seconds from now\n"
          "  --partition N      topic partition (default: by key)\n"
          "PoSt (winning-post, window-post; the agent picks the circuit by registered proof):\n"
          "  --vanilla FILE     bincode Vec<FallbackPoStSectorProof>, one per challenged sector\n"
          "                     in --sector-ids order (one bare proof is taken as a Vec of one)\n"
          "  --proof N          RegisteredPoStProof (default: the type's newest for the size)\n"
          "  --sector-size S    2KiB (default), 8MiB, 512MiB, 32GiB, 64GiB\n"
          "  --randomness R     32 bytes: 64 hex digits, or a file of 32 raw bytes or 64 hex\n"
          "  --sector-ids L     comma-separated ids, or a file of them (default: the vanilla\n"
          "                     proofs' own sector ids)\n"
          "  --prover-id P      32 bytes as for --randomness (default: from --miner-id)\n"
          "  --miner-id N       actor id (default 1000)\n"
          "\n"
          "Exit codes: 0 published, 1 failure, 2 usage error.\n");
}

static const char *cuzk__env_brokers(void) {
  const char *b = getenv("CUZK_KAFKA_BROKERS");
  if (b && *b) return b;
  b = getenv("KAFKA_BROKERS");
  return b && *b ? b : NULL;
}

typedef struct {
  int done;
  rd_kafka_resp_err_t err;
  int32_t partition;
  int64_t offset;
} cuzk__dr_t;

static void cuzk__submit_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  cuzk__dr_t *d = opaque;
  d->done = 1;
  d->err = m->err;
  d->partition = m->partition;
  d->offset = m->offset;
}

/* 32 bytes from 64 hex digits, or from a file holding 32 raw bytes or 64 hex digits. */
static int cuzk__bytes32(const char *arg, uint8_t out[32]) {
  if (cuzk_hex_decode_exact(out, 32, arg, strlen(arg), CUZK_HEX_ALLOW_0X) == CUZK_OK) return 0;
  uint8_t *b = NULL;
  size_t n = 0;
  char err[256];
  if (cuzk_file_read(arg, 4096, &b, &n, err, sizeof err) != CUZK_OK) return -1;
  int rc = -1;
  if (n == 32) {
    memcpy(out, b, 32);
    rc = 0;
  } else {
    while (n && (b[n - 1] == '\n' || b[n - 1] == '\r' || b[n - 1] == ' ')) n--;
    if (cuzk_hex_decode_exact(out, 32, (const char *)b, n, CUZK_HEX_ALLOW_0X) == CUZK_OK) rc = 0;
  }
  free(b);
  return rc;
}

/* Sector ids from "1,2,3" or a file of ids separated by commas or white space. */
static int cuzk__sector_ids(const char *arg, int64_t **ids, size_t *n) {
  uint8_t *b = NULL;
  size_t len = 0;
  char err[256];
  if (strspn(arg, "0123456789,") != strlen(arg)) {
    if (cuzk_file_read(arg, 1 << 24, &b, &len, err, sizeof err) != CUZK_OK) return -1;
  } else {
    b = (uint8_t *)strdup(arg);
    len = b ? strlen(arg) : 0;
  }
  if (!b) return -1;
  char *t = malloc(len + 1);
  *ids = malloc((len / 2 + 1) * sizeof **ids);
  if (!t || !*ids) {
    free(b), free(t);
    return -1;
  }
  memcpy(t, b, len);
  t[len] = 0;
  free(b);
  *n = 0;
  int rc = 0;
  for (char *save = NULL, *tok = strtok_r(t, ", \t\r\n", &save); tok;
       tok = strtok_r(NULL, ", \t\r\n", &save)) {
    char *end;
    long long v = strtoll(tok, &end, 10);
    if (*end || v < 0) rc = -1;
    (*ids)[(*n)++] = v;
  }
  free(t);
  return rc == 0 && *n > 0 ? 0 : -1;
}

static int submit_run(int argc, char **argv) {
  const char *type_s = NULL, *vanilla = NULL, *job_id = NULL, *brokers = cuzk__env_brokers();
  const char *prefix = "cuzk", *circuit = NULL;
  const char *rand_arg = NULL, *ids_arg = NULL, *prover_arg = NULL, *size_arg = NULL;
  long long inline_max = 1 << 20, deadline_s = -1, partition = -1, proof = -1, miner_id = 1000;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **sp = NULL;
    long long *ip = NULL;
    if (strcmp(a, "--type") == 0)
      sp = &type_s;
    else if (strcmp(a, "--vanilla") == 0)
      sp = &vanilla;
    else if (strcmp(a, "--job-id") == 0)
      sp = &job_id;
    else if (strcmp(a, "--brokers") == 0)
      sp = &brokers;
    else if (strcmp(a, "--prefix") == 0)
      sp = &prefix;
    else if (strcmp(a, "--circuit") == 0)
      sp = &circuit;
    else if (strcmp(a, "--randomness") == 0)
      sp = &rand_arg;
    else if (strcmp(a, "--sector-ids") == 0)
      sp = &ids_arg;
    else if (strcmp(a, "--prover-id") == 0)
      sp = &prover_arg;
    else if (strcmp(a, "--sector-size") == 0)
      sp = &size_arg;
    else if (strcmp(a, "--proof") == 0)
      ip = &proof;
    else if (strcmp(a, "--miner-id") == 0)
      ip = &miner_id;
    else if (strcmp(a, "--inline-max") == 0)
      ip = &inline_max;
    else if (strcmp(a, "--deadline-s") == 0)
      ip = &deadline_s;
    else if (strcmp(a, "--partition") == 0)
      ip = &partition;
    else
      return cuzk_cli_usage_error("submit", "unknown option '%s'", a);
    if (i + 1 >= argc) return cuzk_cli_usage_error("submit", "%s needs a value", a);
    if (sp) {
      *sp = argv[++i];
    } else {
      char *end;
      *ip = strtoll(argv[++i], &end, 10);
      if (*end || *ip < 0) return cuzk_cli_usage_error("submit", "%s needs a number >= 0", a);
    }
  }
  cuzk_proof_type_t type;
  if (!type_s) return cuzk_cli_usage_error("submit", "--type is required");
  if (!cuzk_jobspec_parse_type(type_s, &type))
    return cuzk_cli_usage_error("submit", "unknown type '%s'", type_s);
  bool synthetic = circuit && strncmp(circuit, "synthetic", 9) == 0;
  if (!vanilla && !synthetic)
    return cuzk_cli_usage_error("submit", "--vanilla is required (or --circuit synthetic-N)");
  if (!brokers)
    return cuzk_cli_usage_error("submit", "no brokers: use --brokers or $KAFKA_BROKERS");
  char err[1024];
  cuzk_topics_t topics;
  if (cuzk_topics_init(&topics, prefix, err, sizeof err) != CUZK_OK)
    return cuzk_cli_usage_error("submit", "%s", err);
  uint8_t *payload = NULL;
  size_t len = 0;
  char abspath[PATH_MAX];
  if (vanilla) {
    if (cuzk_file_read(vanilla, (size_t)16 << 30, &payload, &len, err, sizeof err) != CUZK_OK) {
      fprintf(stderr, "cuzk submit: %s\n", err);
      return CUZK_EXIT_FAIL;
    }
    if (!realpath(vanilla, abspath)) snprintf(abspath, sizeof abspath, "%s", vanilla);
  } else {
    payload = (uint8_t *)strdup("synthetic"); /* the synthetic circuit ignores its payload */
    len = strlen((char *)payload);
  }
  char idbuf[64];
  if (!job_id) {
    uint8_t r[8];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(r, 1, 8, f) != 8) memset(r, 0x5a, 8);
    if (f) fclose(f);
    snprintf(idbuf, sizeof idbuf, "job-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7]);
    job_id = idbuf;
  }
  cuzk_jobspec_t spec;
  cuzk_jobspec_init(&spec, type, job_id, circuit, payload, len);
  if (vanilla && (long long)len > inline_max) {
    char uri[PATH_MAX + 8];
    snprintf(uri, sizeof uri, "file://%s", abspath);
    cuzk_jobspec_set_ref(&spec, uri, payload, len);
  }
  int64_t *ids = NULL;
  bool post = (type == CUZK_PROOF_TYPE_WINNING_POST || type == CUZK_PROOF_TYPE_WINDOW_POST) &&
              !synthetic;
  if (post) {
    uint8_t randomness[32], prover[32];
    if (!rand_arg || cuzk__bytes32(rand_arg, randomness) != 0) {
      free(payload);
      return cuzk_cli_usage_error("submit", "a PoSt job needs --randomness (32 bytes)");
    }
    if (prover_arg && cuzk__bytes32(prover_arg, prover) != 0) {
      free(payload);
      return cuzk_cli_usage_error("submit", "--prover-id must be 32 bytes");
    }
    bool win = type == CUZK_PROOF_TYPE_WINNING_POST;
    if (proof < 0) {
      uint64_t ss = 2048;
      if (size_arg && cuzk_config_parse_size(size_arg, &ss, err, sizeof err) != CUZK_OK) {
        free(payload);
        return cuzk_cli_usage_error("submit", "--sector-size: %s", err);
      }
      for (int id = 14; id >= 0 && proof < 0; id--) {
        const cuzk_post_proof_info_t *in = cuzk_filecoin_post_info(id);
        if (in && (in->kind == CUZK_POST_WINNING) == win && in->sector_size == ss) proof = id;
      }
    }
    size_t n_ids = 0;
    if (ids_arg) {
      if (cuzk__sector_ids(ids_arg, &ids, &n_ids) != 0) {
        free(payload), free(ids);
        return cuzk_cli_usage_error("submit", "--sector-ids: not a list of sector numbers");
      }
    } else {
      cuzk_vanilla_post_t *v = NULL;
      if (cuzk_vanilla_post_decode_vec(&v, payload, len, err, sizeof err) != CUZK_OK &&
          cuzk_vanilla_post_decode(&v, payload, len, err, sizeof err) != CUZK_OK) {
        fprintf(stderr, "cuzk submit: --vanilla: %s (name the sectors with --sector-ids)\n", err);
        free(payload);
        return CUZK_EXIT_FAIL;
      }
      ids = malloc((v->n_items + 1) * sizeof *ids);
      for (size_t i = 0; ids && i < v->n_items; i++) ids[n_ids++] = (int64_t)v->items[i].sector_id;
      cuzk_vanilla_post_free(v);
    }
    if (proof < 0 || cuzk_jobspec_set_post(&spec, (int)proof, prover_arg ? prover : NULL, miner_id,
                                           randomness, ids, n_ids) != 0) {
      free(payload), free(ids);
      return cuzk_cli_usage_error("submit", "no %s registered proof for these options",
                                  type_s);
    }
  }
  if (deadline_s >= 0) {
    spec.job.has_deadline = true;
    spec.job.deadline_ms = spec.job.created_at_ms + deadline_s * 1000;
  }
  int rc = CUZK_EXIT_FAIL;
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  cuzk_avro_codec_t *codec = cuzk_avro_codec_new(&cc, err, sizeof err);
  uint8_t *msg = NULL;
  size_t msg_len = 0;
  rd_kafka_t *rk = NULL;
  if (!codec || cuzk_proof_job_validate(&spec.job, err, sizeof err) != CUZK_OK ||
      cuzk_avro_encode(codec, CUZK_AVRO_PROOF_JOB, &spec.job, &msg, &msg_len, err, sizeof err) !=
          CUZK_OK) {
    fprintf(stderr, "cuzk submit: %s\n", err);
    goto out;
  }
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  cuzk__dr_t dr = {0, 0, -1, -1};
  char mmb[32];
  snprintf(mmb, sizeof mmb, "%zu", msg_len + (1u << 20));
  if (rd_kafka_conf_set(kc, "bootstrap.servers", brokers, err, sizeof err) ||
      rd_kafka_conf_set(kc, "enable.idempotence", "true", err, sizeof err) ||
      rd_kafka_conf_set(kc, "message.max.bytes", mmb, err, sizeof err)) {
    fprintf(stderr, "cuzk submit: %s\n", err);
    rd_kafka_conf_destroy(kc);
    goto out;
  }
  rd_kafka_conf_set_opaque(kc, &dr);
  rd_kafka_conf_set_dr_msg_cb(kc, cuzk__submit_dr);
  rk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "cuzk submit: %s\n", err);
    rd_kafka_conf_destroy(kc);
    goto out;
  }
  const char *topic = topics.names[type];
  rd_kafka_resp_err_t e = rd_kafka_producev(
      rk, RD_KAFKA_V_TOPIC(topic),
      RD_KAFKA_V_PARTITION(partition >= 0 ? (int32_t)partition : RD_KAFKA_PARTITION_UA),
      RD_KAFKA_V_KEY(job_id, strlen(job_id)), RD_KAFKA_V_VALUE(msg, msg_len),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  if (e) {
    fprintf(stderr, "cuzk submit: produce: %s\n", rd_kafka_err2str(e));
    goto out;
  }
  rd_kafka_flush(rk, 30000);
  if (!dr.done || dr.err) {
    fprintf(stderr, "cuzk submit: delivery failed: %s\n",
            dr.done ? rd_kafka_err2str(dr.err) : "timed out after 30 s");
    goto out;
  }
  printf("submitted job_id=%s topic=%s partition=%d offset=%lld payload=%s bytes=%zu%s\n", job_id,
         topic, (int)dr.partition, (long long)dr.offset, spec.job.payload_is_ref ? "ref" : "inline",
         len, synthetic ? " circuit=synthetic (results are synthetic proofs)" : "");
  rc = CUZK_EXIT_OK;
out:
  if (rk) rd_kafka_destroy(rk);
  free(msg);
  cuzk_avro_codec_free(codec);
  free(payload);
  free(ids);
  return rc;
}

const cuzk_cmd_t cuzk_cmd_submit = {"submit", "publish a proof job to Kafka", submit_run,
                                    submit_usage};
