#include "core/ff/ff_internal.h"

#include "core/ff/fp.h"

#if CUZK__FF_HAVE_ADX_PATH
#include <cpuid.h>
#endif

bool cuzk__ff_use_adx = false;
static bool ff_cpu_has_adx = false;

#if CUZK__FF_HAVE_ADX_PATH
/* CPUID leaf 7, sub-leaf 0: EBX bit 8 = BMI2 (mulx), bit 19 = ADX (adcx/adox). */
__attribute__((constructor)) static void ff_detect_cpu(void) {
  unsigned a, b, c, d;
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    ff_cpu_has_adx = ((b >> 8) & 1) && ((b >> 19) & 1);
  }
  (void)a, (void)c, (void)d;
  cuzk__ff_use_adx = ff_cpu_has_adx;
}
#endif

void cuzk_ff_force_portable(bool on) {
  cuzk__ff_use_adx = !on && ff_cpu_has_adx;
}

bool cuzk_ff_uses_adx(void) {
  return cuzk__ff_use_adx;
}
