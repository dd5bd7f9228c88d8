/* The x86-64 multiplication path for CPUs with BMI2 (mulx) and ADX (adcx/adox). On ELF
 * targets the products are the generated assembly in mont_adx.inc; elsewhere they are the
 * portable CIOS compiled for BMI2/ADX. Only called after CPUID said yes (ff_internal.c). */
#include "core/ff/ff_internal.h"

#if CUZK__FF_HAVE_ADX_PATH
#include "core/ff/fp.h"
#include "core/ff/fr.h"

#if defined(__ELF__)
#include "core/ff/mont_adx.inc"
#else
#include "core/ff/mont.h"

__attribute__((target("bmi2,adx"))) void cuzk__fp_mul_adx(uint64_t out[6], const uint64_t a[6],
                                                          const uint64_t b[6]) {
  cuzk__mont_mul(out, a, b, CUZK_FP_MODULUS, CUZK__FP_NINV, 6);
}

__attribute__((target("bmi2,adx"))) void cuzk__fr_mul_adx(uint64_t out[4], const uint64_t a[4],
                                                          const uint64_t b[4]) {
  cuzk__mont_mul(out, a, b, CUZK_FR_MODULUS, CUZK__FR_NINV, 4);
}
#endif

void cuzk__fp_sqr_adx(uint64_t out[6], const uint64_t a[6]) {
  cuzk__fp_mul_adx(out, a, a);
}
void cuzk__fr_sqr_adx(uint64_t out[4], const uint64_t a[4]) {
  cuzk__fr_mul_adx(out, a, a);
}
#endif
