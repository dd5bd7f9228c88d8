/* `cuzk inspect vanilla`: decode a PoSt vanilla proof and check every path, comm_r and the
 * challenged leaves. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/inspect.h"
#include "core/filecoin/post.h"
#include "core/filecoin/vanilla.h"
#include "core/filecoin/verify_info.h"
#include "core/util/file.h"
#include "core/util/hex.h"

#define CMD "inspect vanilla"
#define MAX_FILE (UINT64_C(1) << 30)

void cuzk_inspect_vanilla_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk inspect vanilla --type window-post|winning-post FILE [options]\n"
          "\n"
          "Decodes a PoSt vanilla proof (bincode FallbackPoStSectorProof, or a Vec of them) and\n"
          "checks that every inclusion path hashes to comm_r_last, that Poseidon2(comm_c,\n"
          "comm_r_last) equals comm_r and, with randomness, that each path opens the challenged\n"
          "leaf.\n"
          "  --type T           window-post or winning-post\n"
          "  --pub JSON         the WindowPoStVerifyInfo/WinningPoStVerifyInfo JSON: randomness,\n"
          "                     proof type, and the sealed CIDs to compare comm_r against\n"
          "  --proof N          RegisteredPoStProof number (default: from --pub, else inferred\n"
          "                     from the tree shape, V1 challenge rule)\n"
          "  --randomness HEX   32 bytes of hex (as on chain; the top two bits are masked)\n"
          "  --sector-index K   position of the first sector in the whole proof (default 0)\n"
          "  --json             one JSON object on stdout instead of text\n"
          "Exit codes: 0 every check passed, 1 a check failed or the file is invalid, 2 usage.\n");
}

static const cuzk_post_proof_info_t *infer(cuzk_post_kind_t kind, const cuzk_merkle_proof_t *m) {
  for (int id = 0; id < 10; id++) {
    const cuzk_post_proof_info_t *p = cuzk_filecoin_post_info(id);
    if (p->kind != kind) continue;
    cuzk_merkle_kind_t want = p->shape.top_arity   ? CUZK_MERKLE_TOP
                              : p->shape.sub_arity ? CUZK_MERKLE_SUB
                                                   : CUZK_MERKLE_SINGLE;
    if (m->kind == want && m->base.len == p->shape.base_height) return p;
  }
  return NULL;
}

static void hex32(char out[65], const uint8_t b[32]) {
  cuzk_hex_encode(out, 65, b, 32);
}

static void json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static int read_text(const char *path, uint8_t **buf, size_t *len) {
  char err[256];
  if (cuzk_file_read(path, MAX_FILE, buf, len, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk " CMD ": %s\n", err);
    return -1;
  }
  return 0;
}

int cuzk_inspect_vanilla_main(int argc, char **argv) {
  const char *type = NULL, *file = NULL, *pub = NULL, *rand_hex = NULL;
  long long proof_id = -1;
  unsigned long long sector_base = 0;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--type") == 0 && more)
      type = argv[++i];
    else if (strcmp(a, "--pub") == 0 && more)
      pub = argv[++i];
    else if (strcmp(a, "--randomness") == 0 && more)
      rand_hex = argv[++i];
    else if (strcmp(a, "--json") == 0)
      json = 1;
    else if ((strcmp(a, "--proof") == 0 || strcmp(a, "--sector-index") == 0) && more) {
      char *end;
      errno = 0;
      unsigned long long v = strtoull(argv[++i], &end, 10);
      if (errno || *end || argv[i][0] == '-')
        return cuzk_cli_usage_error(CMD, "%s needs a non-negative integer", a);
      if (a[2] == 'p')
        proof_id = (long long)v;
      else
        sector_base = v;
    } else if (a[0] == '-' && a[1])
      return cuzk_cli_usage_error(CMD, "unknown option '%s'", a);
    else if (!file)
      file = a;
    else
      return cuzk_cli_usage_error(CMD, "more than one FILE");
  }
  if (!type) return cuzk_cli_usage_error(CMD, "--type is required");
  cuzk_post_kind_t kind;
  if (strcmp(type, "window-post") == 0)
    kind = CUZK_POST_WINDOW;
  else if (strcmp(type, "winning-post") == 0)
    kind = CUZK_POST_WINNING;
  else
    return cuzk_cli_usage_error(CMD, "--type must be window-post or winning-post");
  if (!file) return cuzk_cli_usage_error(CMD, "FILE is required");

  uint8_t randomness[32];
  int have_rand = 0;
  if (rand_hex) {
    if (cuzk_hex_decode_exact(randomness, 32, rand_hex, strlen(rand_hex), CUZK_HEX_ALLOW_0X) !=
        CUZK_OK)
      return cuzk_cli_usage_error(CMD, "--randomness must be 32 bytes of hex");
    have_rand = 1;
  }
  cuzk_post_verify_info_t vi;
  memset(&vi, 0, sizeof vi);
  int have_pub = 0;
  if (pub) {
    uint8_t *t;
    size_t tl;
    char err[256];
    if (read_text(pub, &t, &tl) != 0) return CUZK_EXIT_FAIL;
    cuzk_err_t e = cuzk_post_verify_info_parse(&vi, (const char *)t, tl, err, sizeof err);
    free(t);
    if (e != CUZK_OK) {
      fprintf(stderr, "cuzk " CMD ": %s: %s\n", pub, err);
      return CUZK_EXIT_FAIL;
    }
    have_pub = 1;
    if (!have_rand) {
      memcpy(randomness, vi.randomness, 32);
      have_rand = 1;
    }
    if (proof_id < 0) proof_id = vi.post_proof;
  }
  if (have_rand) cuzk_filecoin_randomness_mask(randomness);

  uint8_t *buf;
  size_t len;
  if (read_text(file, &buf, &len) != 0) {
    cuzk_post_verify_info_clear(&vi);
    return CUZK_EXIT_FAIL;
  }
  char err[256], err2[256];
  cuzk_vanilla_post_t *v = NULL;
  cuzk_err_t e = cuzk_vanilla_post_decode(&v, buf, len, err, sizeof err);
  if (e != CUZK_OK && cuzk_vanilla_post_decode_vec(&v, buf, len, err2, sizeof err2) != CUZK_OK) {
    fprintf(stderr, "cuzk " CMD ": %s: %s: %s\n", file, cuzk_err_name(e), err);
    free(buf);
    cuzk_post_verify_info_clear(&vi);
    return CUZK_EXIT_FAIL;
  }
  free(buf);

  const cuzk_post_proof_info_t *info = NULL;
  if (proof_id >= 0) {
    info = cuzk_filecoin_post_info(proof_id);
    if (!info || info->kind != kind) {
      cuzk_vanilla_post_free(v);
      cuzk_post_verify_info_clear(&vi);
      return cuzk_cli_usage_error(CMD, "proof type %lld is not a known %s proof", proof_id, type);
    }
  } else if (v->n_items && v->items[0].n_sectors && v->items[0].sectors[0].n_proofs) {
    info = infer(kind, &v->items[0].sectors[0].proofs[0]);
  }

  int fail = 0;
  if (json) {
    printf("{\"file\":");
    json_string(file);
    printf(",\"proof\":%s%s%s,\"sectors\":[", info ? "\"" : "", info ? info->name : "null",
           info ? "\"" : "");
  } else
    printf("proof type: %s\n", info ? info->name : "unknown (tree shape not recognised)");
  if (!info) fail = 1;
  uint64_t leaves = info ? cuzk_filecoin_sector_leaves(info->sector_size) : 0;
  for (size_t i = 0; i < v->n_items; i++) {
    const cuzk_post_sector_proof_t *p = &v->items[i];
    uint64_t sector_index = sector_base + i;
    char hx[65];
    hex32(hx, p->comm_r);
    if (json)
      printf("%s{\"sector_id\":%llu,\"comm_r\":\"%s\"", i ? "," : "",
             (unsigned long long)p->sector_id, hx);
    else
      printf("sector %llu (index %llu): comm_r %s\n", (unsigned long long)p->sector_id,
             (unsigned long long)sector_index, hx);
    const char *pub_status = "not checked";
    if (have_pub) {
      pub_status = "FAIL (sector not in --pub)";
      for (size_t k = 0; k < vi.n_sectors; k++)
        if (vi.sectors[k].sector_number == p->sector_id)
          pub_status = memcmp(vi.sectors[k].comm_r, p->comm_r, 32) == 0 ? "OK" : "FAIL";
      if (pub_status[0] == 'F') fail = 1;
    }
    if (json)
      printf(",\"sealed_cid\":\"%s\",\"sector_proofs\":[", pub_status);
    else
      printf("  comm_r vs sealed CID: %s\n", pub_status);
    for (size_t s = 0; s < p->n_sectors; s++) {
      const cuzk_sector_proof_t *sp = &p->sectors[s];
      uint8_t computed[32];
      cuzk_err_t ce = cuzk_vanilla_comm_r_check(sp->comm_c, sp->comm_r_last, p->comm_r, computed);
      if (ce != CUZK_OK) fail = 1;
      char hc[65], hl[65];
      hex32(hc, sp->comm_c);
      hex32(hl, sp->comm_r_last);
      if (json)
        printf(
            "%s{\"comm_c\":\"%s\",\"comm_r_last\":\"%s\",\"comm_r_check\":\"%s\","
            "\"challenges\":[",
            s ? "," : "", hc, hl, ce == CUZK_OK ? "OK" : "FAIL");
      else
        printf("  comm_c %s\n  comm_r_last %s\n  Poseidon2(comm_c, comm_r_last) == comm_r: %s\n",
               hc, hl, ce == CUZK_OK ? "OK" : "FAIL");
      for (size_t n = 0; n < sp->n_proofs; n++) {
        uint64_t leaf = 0;
        const char *path = "FAIL", *chal = "not checked";
        uint64_t want = 0;
        err[0] = 0;
        if (info) {
          e = cuzk_vanilla_merkle_verify(&sp->proofs[n], &info->shape, sp->comm_r_last, &leaf, err,
                                         sizeof err);
          if (e == CUZK_OK) path = "OK";
          if (have_rand) {
            uint64_t ci =
                cuzk_filecoin_challenge_index(info->api, sector_index, info->challenges_per_sector,
                                              (unsigned)(s * sp->n_proofs + n));
            want = cuzk_filecoin_leaf_challenge(randomness, p->sector_id, ci, leaves);
            chal = (e == CUZK_OK || e == CUZK_ERR_VERIFY_FAILED) && want == leaf ? "OK" : "FAIL";
          }
        } else {
          snprintf(err, sizeof err, "unknown tree shape");
        }
        if (path[0] == 'F' || chal[0] == 'F') fail = 1;
        if (json) {
          printf("%s{\"leaf\":%llu,\"path\":\"%s\",\"challenge\":\"%s\"", n ? "," : "",
                 (unsigned long long)leaf, path, chal);
          if (have_rand) printf(",\"expected_leaf\":%llu", (unsigned long long)want);
          printf("}");
        } else {
          printf("  challenge %zu: leaf %llu path %s challenge %s", n, (unsigned long long)leaf,
                 path, chal);
          if (have_rand && chal[0] == 'F') printf(" (expected %llu)", (unsigned long long)want);
          if (path[0] == 'F') printf(" (%s)", err);
          printf("\n");
        }
      }
      if (json) printf("]}");
    }
    if (json) printf("]}");
  }
  if (json)
    printf("],\"result\":\"%s\"}\n", fail ? "FAIL" : "OK");
  else
    printf("result: %s\n", fail ? "FAIL" : "OK");
  cuzk_vanilla_post_free(v);
  cuzk_post_verify_info_clear(&vi);
  return fail ? CUZK_EXIT_FAIL : CUZK_EXIT_OK;
}
