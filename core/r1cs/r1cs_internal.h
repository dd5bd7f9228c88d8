/* Internals shared by cs.c, r1cs.c and pce.c. Not part of the public API. */
#ifndef CUZK_R1CS_R1CS_INTERNAL_H
#define CUZK_R1CS_R1CS_INTERNAL_H

#include "core/r1cs/r1cs.h"
#include "core/util/file.h"

struct cuzk_r1cs {
  uint64_t m, ni, naux;
  cuzk_r1cs_matrix_t mat[3];
  const cuzk_fr_t *coeffs;
  uint64_t ncoeffs;
  uint64_t *dens[3]; /* malloc'd; indexed by cuzk_r1cs_density_t */
  uint64_t dens_count[3];
  /* annotations (heap systems only): name_off[row] into names, UINT64_MAX when none */
  char *names;
  uint64_t *name_off;
  /* storage: heap arrays (owned[]) or one file mapping */
  void *owned[8];
  cuzk_file_map_t map; /* zeroed for heap systems */
};

/* Allocates the three density bitmaps of r (zeroed). */
cuzk_err_t cuzk__r1cs_alloc_density(cuzk_r1cs_t *r);
/* Marks density from rows [r0, r1) of A and B; thread-safe (atomic OR) for disjoint row
 * ranges. Assumes every column is in range. */
void cuzk__r1cs_mark_density(cuzk_r1cs_t *r, uint64_t r0, uint64_t r1);
/* Computes dens_count from the bitmaps. */
void cuzk__r1cs_count_density(cuzk_r1cs_t *r);
/* Computes the densities of a validated system in parallel. */
cuzk_err_t cuzk__r1cs_compute_density(cuzk_r1cs_t *r);

/* Evaluates one row range of one matrix at w = inputs ‖ aux (columns already remapped). */
void cuzk__r1cs_row_eval(cuzk_fr_t *out, const cuzk_r1cs_matrix_t *mat, uint64_t row,
                         const cuzk_fr_t *coeffs, const cuzk_fr_t *inputs, uint64_t ni,
                         const cuzk_fr_t *aux);

static inline uint64_t cuzk__bitmap_words(uint64_t bits) {
  return (bits + 63) / 64;
}

#endif
