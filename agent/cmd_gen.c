/* `cuzk gen vanilla`: PoSt vanilla proofs over random sector data (core/filecoin/post_gen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/config.h"
#include "core/filecoin/post_gen.h"
#include "core/util/clock.h"
#include "core/util/file.h"
#include "core/util/hex.h"
#include "core/util/pool.h"
#ifdef CUZK_HAVE_CUDA
#include "core/hash/poseidon.h"
#include "cuda/cuzk_gpu.h"
#endif

#define CMD "gen"

static void cuzk__gen_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk gen vanilla --type winning-post|window-post --sector-size S --out FILE\n"
          "                        [--proof N] [--seed S] [--randomness HEX] [--sector-id N]\n"
          "                        [--sectors K] [--first-index I] [--vec] [--gpu]\n"
          "\n"
          "Writes a PoSt vanilla proof (bincode FallbackPoStSectorProof; a bincode Vec of them\n"
          "with --sectors K > 1 or --vec) for sectors of random data drawn from the seed, with\n"
          "Filecoin's tree shape for the sector size (8-0-0 up to 512MiB, 8-8-0 at 32GiB). The\n"
          "sector is never held: leaves are drawn by position and hashed in chunks on all CPUs\n"
          "($CUZK_THREADS), so a 32GiB sector needs ~10 MiB per thread. The result is the job\n"
          "payload `cuzk submit --vanilla` sends, and `cuzk inspect vanilla` checks it.\n"
          "\n"
          "  --type T           winning-post (66 challenges, one sector) or window-post (10)\n"
          "  --sector-size S    2KiB, 8MiB, 512MiB, 32GiB, 64GiB\n"
          "  --proof N          RegisteredPoStProof (default: the type's newest for the size:\n"
          "                     winning 0..4, window V1_1 10..14)\n"
          "  --seed S           sector data seed (default 1; sector k uses S + k)\n"
          "  --randomness HEX   32 bytes of hex, a canonical little-endian Fr (default zero)\n"
          "  --sector-id N      first sector id (default 1; sector k has id N + k)\n"
          "  --sectors K        sectors in the proof (default 1)\n"
          "  --first-index I    position of the first sector in the whole proof (default 0)\n"
          "  --base-height H    test only: base trees of 8^H leaves (sector size follows)\n"
          "  --gpu              hash the chunks on CUDA device 0; the CPU hashes only the\n"
          "                     challenged chunks and checks the device's roots of those\n"
          "Prints the sector ids, comm_r, size and time. Exit codes: 0 written, 1 failure, 2\n"
          "usage error.\n");
}

#ifdef CUZK_HAVE_CUDA
static cuzk_err_t cuzk__gen_gpu_roots(void *ctx, cuzk_fr_t *roots, uint64_t seed, uint64_t first,
                                      uint64_t count, uint64_t chunk_leaves,
                                      const unsigned *level_arity, unsigned levels, char *errstr,
                                      size_t errstr_size) {
  cuzk_gpu_status_t st = cuzk_gpu_poseidon_chunk_roots(ctx, (uint64_t *)roots, seed, first, count,
                                                       chunk_leaves, level_arity, levels);
  if (st.code)
    return cuzk_errf((cuzk_err_t)st.code, errstr, errstr_size, "gpu chunk roots: %s", st.message);
  return CUZK_OK;
}

/* A device Poseidon context for the base arity (its constants from core's parameters). */
static cuzk_err_t cuzk__gen_gpu_new(cuzk_gpu_poseidon_t **out, unsigned arity, char *errstr,
                                    size_t errstr_size) {
  int n = 0;
  cuzk_gpu_status_t st = cuzk_gpu_device_count(&n);
  if (st.code || n <= 0)
    return cuzk_errf(CUZK_ERR_NO_DEVICE, errstr, errstr_size, "--gpu needs a CUDA device: %s",
                     st.code ? st.message : "none found");
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  if (!p) return cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size, "arity %u", arity);
  unsigned w = p->width;
  uint64_t mds[CUZK_POSEIDON_MAX_WIDTH * CUZK_POSEIDON_MAX_WIDTH * 4];
  for (unsigned i = 0; i < w; i++)
    for (unsigned j = 0; j < w; j++) memcpy(&mds[4 * (i * w + j)], p->mds[i][j].l, 32);
  st = cuzk_gpu_poseidon_new(out, 0, arity, p->full_rounds, p->partial_rounds,
                             (const uint64_t *)p->rc, mds, p->merkle_tag.l);
  if (st.code)
    return cuzk_errf((cuzk_err_t)st.code, errstr, errstr_size, "gpu poseidon: %s", st.message);
  return CUZK_OK;
}
#endif

static int cuzk__gen_write(const cuzk_post_proof_info_t *infop, const uint8_t randomness[32],
                           long long sectors, long long sector_id, long long first_index,
                           long long seed, int vec, const cuzk_post_gen_provider_t *prov,
                           const char *out);

static int cuzk__gen_run(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "vanilla") != 0)
    return cuzk_cli_usage_error(CMD, "what to generate? (only 'vanilla')");
  const char *type = NULL, *size_s = NULL, *out = NULL, *rand_hex = NULL;
  long long proof = -1, seed = 1, sector_id = 1, sectors = 1, first_index = 0, base_height = -1;
  int vec = 0, gpu = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char **sp = NULL;
    long long *ip = NULL;
    if (strcmp(a, "--vec") == 0) {
      vec = 1;
      continue;
    }
    if (strcmp(a, "--gpu") == 0) {
      gpu = 1;
      continue;
    }
    if (strcmp(a, "--type") == 0)
      sp = &type;
    else if (strcmp(a, "--sector-size") == 0)
      sp = &size_s;
    else if (strcmp(a, "--out") == 0)
      sp = &out;
    else if (strcmp(a, "--randomness") == 0)
      sp = &rand_hex;
    else if (strcmp(a, "--proof") == 0)
      ip = &proof;
    else if (strcmp(a, "--seed") == 0)
      ip = &seed;
    else if (strcmp(a, "--sector-id") == 0)
      ip = &sector_id;
    else if (strcmp(a, "--sectors") == 0)
      ip = &sectors;
    else if (strcmp(a, "--first-index") == 0)
      ip = &first_index;
    else if (strcmp(a, "--base-height") == 0)
      ip = &base_height;
    else
      return cuzk_cli_usage_error(CMD, "unknown option '%s'", a);
    if (i + 1 >= argc) return cuzk_cli_usage_error(CMD, "%s needs a value", a);
    if (sp) {
      *sp = argv[++i];
    } else {
      char *end;
      *ip = strtoll(argv[++i], &end, 0);
      if (*end || *ip < 0) return cuzk_cli_usage_error(CMD, "%s needs a number >= 0", a);
    }
  }
  if (!type || !out) return cuzk_cli_usage_error(CMD, "--type and --out are required");
  cuzk_post_kind_t kind;
  if (strcmp(type, "winning-post") == 0)
    kind = CUZK_POST_WINNING;
  else if (strcmp(type, "window-post") == 0)
    kind = CUZK_POST_WINDOW;
  else
    return cuzk_cli_usage_error(CMD, "--type must be winning-post or window-post");
  char err[512];
  const cuzk_post_proof_info_t *base = NULL;
  if (proof >= 0) {
    base = cuzk_filecoin_post_info(proof);
    if (!base || base->kind != kind)
      return cuzk_cli_usage_error(CMD, "--proof %lld is not a %s proof", proof, type);
  } else {
    uint64_t ss;
    if (!size_s) return cuzk_cli_usage_error(CMD, "--sector-size (or --proof) is required");
    if (cuzk_config_parse_size(size_s, &ss, err, sizeof err) != CUZK_OK)
      return cuzk_cli_usage_error(CMD, "--sector-size: %s", err);
    for (int id = 14; id >= 0 && !base; id--) {
      const cuzk_post_proof_info_t *in = cuzk_filecoin_post_info(id);
      if (in && in->kind == kind && in->sector_size == ss) base = in;
    }
    if (!base) return cuzk_cli_usage_error(CMD, "no %s proof for sector size %s", type, size_s);
  }
  if (sectors < 1 || (kind == CUZK_POST_WINNING && sectors != 1))
    return cuzk_cli_usage_error(CMD, "--sectors must be >= 1 (1 for winning-post)");
  cuzk_post_proof_info_t info = *base;
  if (base_height >= 0) {
    if (base_height < 1 || base_height > 9)
      return cuzk_cli_usage_error(CMD, "--base-height must be 1..9");
    uint64_t leaves = 1;
    for (long long k = 0; k < base_height; k++) leaves *= info.shape.base_arity;
    if (info.shape.sub_arity) leaves *= info.shape.sub_arity;
    if (info.shape.top_arity) leaves *= info.shape.top_arity;
    info.shape.base_height = (unsigned)base_height;
    info.sector_size = leaves * 32;
  }
  uint8_t randomness[32] = {0};
  if (rand_hex && cuzk_hex_decode_exact(randomness, 32, rand_hex, strlen(rand_hex),
                                        CUZK_HEX_ALLOW_0X) != CUZK_OK)
    return cuzk_cli_usage_error(CMD, "--randomness must be 32 bytes of hex");
  if (randomness[31] & 0xc0)
    return cuzk_cli_usage_error(CMD, "--randomness: top two bits set (not a canonical Fr)");

  cuzk_post_gen_provider_t prov = {0};
  if (gpu) {
#ifdef CUZK_HAVE_CUDA
    cuzk_gpu_poseidon_t *ctx = NULL;
    if (cuzk__gen_gpu_new(&ctx, info.shape.base_arity, err, sizeof err) != CUZK_OK) {
      fprintf(stderr, "cuzk gen: %s\n", err);
      return CUZK_EXIT_FAIL;
    }
    prov.roots = cuzk__gen_gpu_roots;
    prov.ctx = ctx;
#else
    cuzk_errf(CUZK_ERR_UNSUPPORTED, err, sizeof err,
              "--gpu: CUDA is not part of this build (built with CUZK_CUDA=OFF or without nvcc)");
    fprintf(stderr, "cuzk gen: %s\n", err);
    return CUZK_EXIT_FAIL;
#endif
  }
  int rc = cuzk__gen_write(&info, randomness, sectors, sector_id, first_index, seed, vec,
                           gpu ? &prov : NULL, out);
#ifdef CUZK_HAVE_CUDA
  cuzk_gpu_poseidon_free(prov.ctx);
#endif
  return rc;
}

static int cuzk__gen_write(const cuzk_post_proof_info_t *infop, const uint8_t randomness[32],
                           long long sectors, long long sector_id, long long first_index,
                           long long seed, int vec, const cuzk_post_gen_provider_t *prov,
                           const char *out) {
  const cuzk_post_proof_info_t info = *infop;
  char err[512];
  size_t cap = 8, len = 8;
  uint8_t *buf = malloc(cap);
  if (!buf) return CUZK_EXIT_FAIL;
  for (int k = 0; k < 8; k++) buf[k] = (uint8_t)((uint64_t)sectors >> (8 * k));
  uint64_t t0 = cuzk_now_us();
  for (long long k = 0; k < sectors; k++) {
    uint8_t *one = NULL;
    size_t n = 0;
    uint64_t id = (uint64_t)(sector_id + k);
    cuzk_err_t e =
        cuzk_filecoin_post_gen_ext(&one, &n, &info, randomness, id, (uint64_t)(first_index + k),
                                   (uint64_t)(seed + k), UINT64_C(1) << 18, prov, err, sizeof err);
    if (e != CUZK_OK) {
      fprintf(stderr, "cuzk gen: %s\n", err);
      free(buf);
      return CUZK_EXIT_FAIL;
    }
    char hex[65];
    cuzk_hex_encode(hex, sizeof hex, one + 8, 32);
    printf("sector %llu comm_r %s\n", (unsigned long long)id, hex);
    if (len + n > cap) {
      while (len + n > cap) cap *= 2;
      uint8_t *q = realloc(buf, cap);
      if (!q) {
        free(one), free(buf);
        return CUZK_EXIT_FAIL;
      }
      buf = q;
    }
    memcpy(buf + len, one, n);
    len += n;
    free(one);
  }
  double s = (double)(cuzk_now_us() - t0) / 1e6;
  int as_vec = vec || sectors > 1;
  cuzk_err_t e =
      cuzk_file_write_atomic(out, as_vec ? buf : buf + 8, as_vec ? len : len - 8, err, sizeof err);
  free(buf);
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk gen: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  uint64_t leaves = info.sector_size / 32 * (uint64_t)sectors;
  printf("proof %d (%s) sectors %lld leaves %llu bytes %zu seconds %.3f leaves/s %.3g threads %u"
         " gpu %d\n",
         info.id, info.name, sectors, (unsigned long long)leaves, as_vec ? len : len - 8, s,
         s > 0 ? (double)leaves / s : 0.0, cuzk_pool_size(cuzk_pool_global()), prov != NULL);
  return CUZK_EXIT_OK;
}

const cuzk_cmd_t cuzk_cmd_gen = {"gen", "generate test data (PoSt vanilla proofs)", cuzk__gen_run,
                                 cuzk__gen_usage};
