#include "core/filecoin/post.h"

#include <assert.h>
#include <openssl/sha.h>
#include <stddef.h>

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

/* base_height = log8(sector_size / 32 / (sub * top)). */
#define SHAPE_2K \
  { 8, 0, 0, 2 } /* 64 leaves = 8^2 */
#define SHAPE_8M \
  { 8, 0, 0, 6 } /* 2^18 = 8^6 */
#define SHAPE_512M \
  { 8, 0, 0, 8 } /* 2^24 = 8^8 */
#define SHAPE_32G \
  { 8, 8, 0, 9 } /* 2^30 = 8 * 8^9 */
#define SHAPE_64G \
  { 8, 8, 2, 9 } /* 2^31 = 2 * 8 * 8^9 */

static const cuzk_post_proof_info_t proofs[] = {
    {0, "StackedDrgWinning2KiBV1", CUZK_POST_WINNING, CUZK_POST_API_V1_0, 2 * KIB, SHAPE_2K, 66, 1},
    {1, "StackedDrgWinning8MiBV1", CUZK_POST_WINNING, CUZK_POST_API_V1_0, 8 * MIB, SHAPE_8M, 66, 1},
    {2, "StackedDrgWinning512MiBV1", CUZK_POST_WINNING, CUZK_POST_API_V1_0, 512 * MIB, SHAPE_512M,
     66, 1},
    {3, "StackedDrgWinning32GiBV1", CUZK_POST_WINNING, CUZK_POST_API_V1_0, 32 * GIB, SHAPE_32G, 66,
     1},
    {4, "StackedDrgWinning64GiBV1", CUZK_POST_WINNING, CUZK_POST_API_V1_0, 64 * GIB, SHAPE_64G, 66,
     1},
    {5, "StackedDrgWindow2KiBV1", CUZK_POST_WINDOW, CUZK_POST_API_V1_0, 2 * KIB, SHAPE_2K, 10, 2},
    {6, "StackedDrgWindow8MiBV1", CUZK_POST_WINDOW, CUZK_POST_API_V1_0, 8 * MIB, SHAPE_8M, 10, 2},
    {7, "StackedDrgWindow512MiBV1", CUZK_POST_WINDOW, CUZK_POST_API_V1_0, 512 * MIB, SHAPE_512M, 10,
     2},
    {8, "StackedDrgWindow32GiBV1", CUZK_POST_WINDOW, CUZK_POST_API_V1_0, 32 * GIB, SHAPE_32G, 10,
     2349},
    {9, "StackedDrgWindow64GiBV1", CUZK_POST_WINDOW, CUZK_POST_API_V1_0, 64 * GIB, SHAPE_64G, 10,
     2300},
    {10, "StackedDrgWindow2KiBV1_1", CUZK_POST_WINDOW, CUZK_POST_API_V1_2, 2 * KIB, SHAPE_2K, 10,
     2},
    {11, "StackedDrgWindow8MiBV1_1", CUZK_POST_WINDOW, CUZK_POST_API_V1_2, 8 * MIB, SHAPE_8M, 10,
     2},
    {12, "StackedDrgWindow512MiBV1_1", CUZK_POST_WINDOW, CUZK_POST_API_V1_2, 512 * MIB, SHAPE_512M,
     10, 2},
    {13, "StackedDrgWindow32GiBV1_1", CUZK_POST_WINDOW, CUZK_POST_API_V1_2, 32 * GIB, SHAPE_32G, 10,
     2349},
    {14, "StackedDrgWindow64GiBV1_1", CUZK_POST_WINDOW, CUZK_POST_API_V1_2, 64 * GIB, SHAPE_64G, 10,
     2300},
};

const cuzk_post_proof_info_t *cuzk_filecoin_post_info(int64_t id) {
  if (id < 0 || (uint64_t)id >= sizeof proofs / sizeof proofs[0]) return NULL;
  return &proofs[id];
}

uint64_t cuzk_filecoin_sector_leaves(uint64_t sector_size) {
  return sector_size / CUZK_FILECOIN_NODE_SIZE;
}

uint64_t cuzk_filecoin_challenge_index(cuzk_post_api_t api, uint64_t sector_index,
                                       unsigned challenges_per_sector, unsigned n) {
  if (api == CUZK_POST_API_V1_2) return n;
  return sector_index * challenges_per_sector + n;
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t cuzk_filecoin_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t challenge_index, uint64_t leaves) {
  assert(randomness && leaves > 0);
  uint8_t msg[48], h[SHA256_DIGEST_LENGTH];
  for (int i = 0; i < 32; i++) msg[i] = randomness[i];
  put_le64(msg + 32, sector_id);
  put_le64(msg + 40, challenge_index);
  SHA256(msg, sizeof msg, h);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | h[i];
  return v % leaves;
}

void cuzk_filecoin_sector_challenges(uint64_t *out, const cuzk_post_proof_info_t *info,
                                     const uint8_t randomness[32], uint64_t sector_id,
                                     uint64_t sector_index) {
  assert(out && info && randomness);
  uint64_t leaves = cuzk_filecoin_sector_leaves(info->sector_size);
  for (unsigned n = 0; n < info->challenges_per_sector; n++)
    out[n] = cuzk_filecoin_leaf_challenge(
        randomness, sector_id,
        cuzk_filecoin_challenge_index(info->api, sector_index, info->challenges_per_sector, n),
        leaves);
}

void cuzk_filecoin_randomness_mask(uint8_t randomness[32]) {
  randomness[31] &= 0x3f;
}
