/* libFuzzer target for the Groth16 decoders: the first byte picks the decoder, the rest is the
 * input. Decoders must return typed errors and never crash, leak or read out of bounds.
 * Build with clang (tests/fuzz/CMakeLists.txt); run e.g. `fuzz_params -max_total_time=60`. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/groth16/groth16.h"
#include "core/groth16/snarkjs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t sel = data[0];
  const uint8_t *in = data + 1;
  size_t n = size - 1;
  /* exact-size copy so out-of-bounds reads hit the sanitizer's redzone */
  uint8_t *buf = malloc(n + 1);
  if (!buf) return 0;
  memcpy(buf, in, n);
  unsigned flags = (sel & 0x80) ? CUZK_GROTH16_TRUSTED : 0;
  char err[256];
  switch (sel & 7) {
    case 0:
    case 1: {
      cuzk_groth16_params_t *p;
      if (cuzk_groth16_params_decode(&p, buf, n, flags, err, sizeof err) == CUZK_OK) {
        size_t sz = cuzk_groth16_params_size(p);
        uint8_t *re = malloc(sz);
        if (re) {
          cuzk_groth16_params_encode(re, p);
          if (sz != n || memcmp(re, buf, n) != 0) abort(); /* decode∘encode must be the identity */
          free(re);
        }
        cuzk_groth16_params_free(p);
      }
      break;
    }
    case 2:
    case 3: {
      cuzk_groth16_vk_t vk;
      size_t used = 0;
      if (cuzk_groth16_vk_decode(&vk, buf, n, (sel & 1) ? &used : NULL, flags, err, sizeof err) ==
          CUZK_OK) {
        if (used > n) abort();
        cuzk_groth16_vk_clear(&vk);
      }
      break;
    }
    case 4: {
      cuzk_groth16_proof_t *pf;
      size_t k;
      if (cuzk_groth16_proofs_decode(&pf, &k, buf, n, flags) == CUZK_OK) {
        if (k * CUZK_GROTH16_PROOF_BYTES != n) abort();
        free(pf);
      }
      break;
    }
    default: {
      char *s = malloc(n + 1);
      if (!s) break;
      memcpy(s, buf, n);
      s[n] = 0;
      cuzk_fr_t *v;
      size_t k;
      if (cuzk_snarkjs_public_parse(&v, &k, s) == CUZK_OK) free(v);
      free(s);
      break;
    }
  }
  free(buf);
  return 0;
}
