/* Data-parallel loops for core/r1cs and core/poly, on the global pool (core/util/pool.h).
 *
 * cuzk__par_for(n, fn, ctx) calls fn(ctx, i) once for every i in [0, n), spread over the
 * worker threads and the caller, and returns when all calls have returned (safe to nest).
 * Callers split work into a few chunks per thread (cuzk__par_chunks).
 */
#ifndef CUZK_POLY_PAR_H
#define CUZK_POLY_PAR_H

#include <stddef.h>

unsigned cuzk__par_threads(void);
void cuzk__par_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

/* A chunk count for `work` items: about 4 per thread, none smaller than `min_per_chunk`,
 * at least 1. */
size_t cuzk__par_chunks(size_t work, size_t min_per_chunk);

#endif
