/* The x86-64 multiplication path for CPUs with BMI2 (mulx) and ADX (adcx/adox). */
#include "core/ff/ff_internal.h"

#if CUZK__FF_HAVE_ADX_PATH
#include "core/ff/fp.h"
#include "core/ff/fr.h"
#include "core/ff/mont.h"

__attribute__((target("bmi2,adx"))) void cuzk__fp_mul_adx(uint64_t out[6], const uint64_t a[6],
                                                         const uint64_t b[6]) {
  cuzk__mont_mul(out, a, b, CUZK_FP_MODULUS, CUZK__FP_NINV, 6);
}

__attribute__((target("bmi2,adx"))) void cuzk__fp_sqr_adx(uint64_t out[6], const uint64_t a[6]) {
  cuzk__mont_mul(out, a, a, CUZK_FP_MODULUS, CUZK__FP_NINV, 6);
}

__attribute__((target("bmi2,adx"))) void cuzk__fr_mul_adx(uint64_t out[4], const uint64_t a[4],
                                                         const uint64_t b[4]) {
  cuzk__mont_mul(out, a, b, CUZK_FR_MODULUS, CUZK__FR_NINV, 4);
}

__attribute__((target("bmi2,adx"))) void cuzk__fr_sqr_adx(uint64_t out[4], const uint64_t a[4]) {
  cuzk__mont_mul(out, a, a, CUZK_FR_MODULUS, CUZK__FR_NINV, 4);
}
#endif
