// libFuzzer target for the PoSt vanilla decoder, the Merkle path checks and the verify-info
// JSON reader. Build (clang only), from the repository root:
//
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_vanilla.c \
//     core/filecoin/*.c core/hash/*.c core/ff/*.c core/util/*.c -lcrypto -lpthread -lm \
//     -o build/fuzz_vanilla
//   build/fuzz_vanilla -max_len=65536 corpus/
//
// Seed corpus: the byte 0x00 followed by ../shared/vectors/filecoin/*.vproof, and 0x02 followed
// by the .pub.json. The first input byte selects the entry point (0 single, 1 Vec, 2 JSON);
// decoding must never crash, leak or read out of bounds, and every decoder error must be typed.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/filecoin/post.h"
#include "core/filecoin/vanilla.h"
#include "core/filecoin/verify_info.h"

static int typed(cuzk_err_t e) {
  return e == CUZK_OK || e == CUZK_ERR_BAD_VANILLA || e == CUZK_ERR_TRUNCATED ||
         e == CUZK_ERR_TOO_LARGE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t mode = data[0];
  data++;
  size--;
  char err[256];
  if (mode % 3 == 2) {
    cuzk_post_verify_info_t vi;
    if (cuzk_post_verify_info_parse(&vi, (const char *)data, size, err, sizeof err) == CUZK_OK)
      cuzk_post_verify_info_clear(&vi);
    return 0;
  }
  cuzk_vanilla_post_t *v = NULL;
  cuzk_err_t e = mode % 3 == 0 ? cuzk_vanilla_post_decode(&v, data, size, err, sizeof err)
                               : cuzk_vanilla_post_decode_vec(&v, data, size, err, sizeof err);
  if (!typed(e)) abort();
  if (e != CUZK_OK) {
    if (v) abort();
    return 0;
  }
  /* Verify a bounded number of paths against every shape (hashing is the slow part). */
  size_t budget = 4;
  for (size_t i = 0; i < v->n_items && budget; i++)
    for (size_t s = 0; s < v->items[i].n_sectors && budget; s++) {
      const cuzk_sector_proof_t *sp = &v->items[i].sectors[s];
      cuzk_vanilla_comm_r_check(sp->comm_c, sp->comm_r_last, v->items[i].comm_r, NULL);
      for (size_t n = 0; n < sp->n_proofs && budget; n++, budget--)
        for (int id = 5; id < 10; id++) {
          uint64_t leaf;
          cuzk_vanilla_merkle_verify(&sp->proofs[n], &cuzk_filecoin_post_info(id)->shape,
                                     sp->comm_r_last, &leaf, err, sizeof err);
        }
    }
  cuzk_vanilla_post_free(v);
  return 0;
}
