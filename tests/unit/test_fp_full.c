// cuzk-test: labels=unit;slow timeout=900
/* test_fp with 100,000 random inputs for the exponentiation-based operations too. */
#define FT_N_EXP 100000
#include "tests/unit/test_fp.c"
