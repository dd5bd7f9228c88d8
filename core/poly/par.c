#include "core/poly/par.h"

#include "core/util/pool.h"

unsigned cuzk__par_threads(void) {
  cuzk_pool_t *p = cuzk_pool_global();
  unsigned n = p ? cuzk_pool_size(p) : 1;
  return n ? n : 1;
}

void cuzk__par_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx) {
  cuzk_pool_parallel_for(cuzk_pool_global(), n, fn, ctx);
}

size_t cuzk__par_chunks(size_t work, size_t min_per_chunk) {
  if (min_per_chunk == 0) min_per_chunk = 1;
  size_t c = (size_t)cuzk__par_threads() * 4;
  if (work / min_per_chunk < c) c = work / min_per_chunk;
  return c ? c : 1;
}
