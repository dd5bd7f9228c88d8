#include "core/ec/ec_par.h"

#include "core/util/pool.h"

unsigned cuzk__ec_threads(void) {
  cuzk_pool_t *pool = cuzk_pool_global();
  unsigned n = pool ? cuzk_pool_size(pool) : 1;
  return n < 1 ? 1u : n;
}

void cuzk__ec_parallel_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx) {
  cuzk_pool_parallel_for(cuzk_pool_global(), n, fn, ctx);
}
