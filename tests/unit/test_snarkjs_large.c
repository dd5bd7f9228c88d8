/* snarkjs interop at 2^14 constraints. */
// cuzk-test: labels=unit timeout=600
#define SNARKJS_LOGS 14
#include "tests/unit/test_snarkjs.inc"
