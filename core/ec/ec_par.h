/* Internal: parallel loop for core/ec (MSM), on the process-wide pool of core/util/pool.h. Not
 * a public API. */
#ifndef CUZK_EC_EC_PAR_H
#define CUZK_EC_EC_PAR_H

#include <stddef.h>

/* Calls fn(ctx, i) for every i in [0, n) on the worker threads, returning when all are done.
 * fn must be safe to run concurrently for distinct i. */
void cuzk__ec_parallel_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);
/* Number of worker threads (>= 1). */
unsigned cuzk__ec_threads(void);

/* Tests only: split every MSM window into exactly `chunks` point ranges (0 = automatic). */
void cuzk__msm_force_chunks(unsigned chunks);
/* Tests only: use window size c (2..16) for every MSM (0 = automatic). */
void cuzk__msm_force_window(unsigned c);

#endif
