/* snarkjs interop, small sizes (2^10, 2^12); test_snarkjs_large.c covers 2^14. */
#define SNARKJS_LOGS 10, 12
#include "tests/unit/test_snarkjs.inc"
