#include "core/ff/ff_internal.h"

#include "core/ff/fp.h"

bool cuzk__ff_use_adx = false;
static bool ff_cpu_has_adx = false;

#if CUZK__FF_HAVE_ADX_PATH
__attribute__((constructor)) static void ff_detect_cpu(void) {
  __builtin_cpu_init();
  ff_cpu_has_adx = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
  cuzk__ff_use_adx = ff_cpu_has_adx;
}
#endif

void cuzk_ff_force_portable(bool on) { cuzk__ff_use_adx = !on && ff_cpu_has_adx; }

bool cuzk_ff_uses_adx(void) { return cuzk__ff_use_adx; }
