#include "core/filecoin/cid.h"

#include <string.h>

#define CID_MAX_BYTES 64

static int b32_value(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= '2' && c <= '7') return c - '2' + 26;
  return -1;
}

static int read_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *out) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 63 && *pos < n; shift += 7) {
    uint8_t b = p[(*pos)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1;
}

cuzk_err_t cuzk_filecoin_cid_decode(const char *cid, uint64_t *codec, uint64_t *mh_code,
                                    uint8_t digest[32], char *errstr, size_t errstr_size) {
  if (!cid || !codec || !mh_code || !digest)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "NULL argument");
  size_t len = strlen(cid);
  if (len < 2 || cid[0] != 'b')
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                     "CID: expected multibase 'b' (base32 lowercase)");
  uint8_t bytes[CID_MAX_BYTES];
  size_t nb = 0;
  uint32_t acc = 0;
  unsigned bits = 0;
  for (size_t i = 1; i < len; i++) {
    int v = b32_value(cid[i]);
    if (v < 0)
      return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: bad base32 character at %zu", i);
    acc = (acc << 5) | (uint32_t)v;
    bits += 5;
    if (bits >= 8) {
      if (nb == sizeof bytes)
        return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: longer than %d bytes",
                         CID_MAX_BYTES);
      bytes[nb++] = (uint8_t)(acc >> (bits - 8));
      bits -= 8;
      acc &= (1u << bits) - 1;
    }
  }
  if (bits >= 5 || acc != 0)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: non-canonical base32 tail");
  size_t pos = 0;
  uint64_t version, dlen;
  if (read_varint(bytes, nb, &pos, &version) || version != 1)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: not a CID v1");
  if (read_varint(bytes, nb, &pos, codec) || read_varint(bytes, nb, &pos, mh_code) ||
      read_varint(bytes, nb, &pos, &dlen))
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: truncated varint");
  if (dlen != 32)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: digest length %llu, want 32",
                     (unsigned long long)dlen);
  if (nb - pos != 32)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "CID: %zu digest bytes present, want 32",
                     nb - pos);
  memcpy(digest, bytes + pos, 32);
  return CUZK_OK;
}

cuzk_err_t cuzk_filecoin_commr_from_cid(uint8_t comm_r[32], const char *cid, char *errstr,
                                        size_t errstr_size) {
  uint64_t codec, mh;
  cuzk_err_t e = cuzk_filecoin_cid_decode(cid, &codec, &mh, comm_r, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  if (codec != CUZK_CID_FIL_SEALED)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                     "CID: codec 0x%llx is not fil-commitment-sealed (0xf102)",
                     (unsigned long long)codec);
  if (mh != CUZK_MH_POSEIDON_BLS12_381_A2_FC1)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                     "CID: multihash 0x%llx is not poseidon-bls12_381-a2-fc1 (0xb401)",
                     (unsigned long long)mh);
  return CUZK_OK;
}
