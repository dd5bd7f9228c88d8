#include "core/groth16/prove_abc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/ec/msm.h"
#include "core/util/clock.h"

/* Scalars of the variables whose bit is set: inputs filtered by in_bits (NULL = all), then aux
 * filtered by aux_bits. */
static size_t abc_gather(cuzk_fr_t *dst, const cuzk_fr_t *inputs, uint64_t ni,
                         const uint64_t *in_bits, const cuzk_fr_t *aux, uint64_t na,
                         const uint64_t *aux_bits) {
  size_t k = 0;
  for (uint64_t i = 0; i < ni; i++)
    if (!in_bits || cuzk_bitmap_get(in_bits, i)) dst[k++] = inputs[i];
  for (uint64_t j = 0; j < na; j++)
    if (cuzk_bitmap_get(aux_bits, j)) dst[k++] = aux[j];
  return k;
}

static size_t abc_count(const uint64_t *bits, uint64_t n) {
  size_t k = 0;
  for (uint64_t i = 0; i < n; i++) k += cuzk_bitmap_get(bits, i);
  return k;
}

cuzk_err_t cuzk_groth16_prove_start_abc(cuzk_groth16_msm_t *out, const cuzk_groth16_params_t *p,
                                        const cuzk_domain_t *dom, const cuzk_groth16_abc_t *in,
                                        cuzk_groth16_timings_t *timings, char *errstr,
                                        size_t errstr_size) {
  assert(out && p && in && in->a && in->b && in->c && in->inputs);
  assert(in->density_a_aux && in->density_b_input && in->density_b_aux);
  cuzk_groth16_timings_t tm_local;
  cuzk_groth16_timings_t *tm = timings ? timings : &tm_local;
  uint64_t t_all = cuzk_now_us();

  if (in->n_inputs == 0 || !cuzk_fr_is_one(&in->inputs[0]))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "prove: input 0 must be 1");
  size_t n_a = in->n_inputs + abc_count(in->density_a_aux, in->n_aux);
  size_t n_b = abc_count(in->density_b_input, in->n_inputs) + abc_count(in->density_b_aux, in->n_aux);
  if (in->n < 2 || p->n_h != in->n - 1 || p->vk.n_ic != in->n_inputs || p->n_l != in->n_aux ||
      p->n_a != n_a || p->n_b_g1 != n_b || p->n_b_g2 != n_b)
    return cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                     "prove: parameters (h %zu, ic %zu, l %zu, a %zu, b %zu/%zu) do not fit the "
                     "partition (n %llu, inputs %llu, aux %llu, a %zu, b %zu)",
                     p->n_h, p->vk.n_ic, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2,
                     (unsigned long long)in->n, (unsigned long long)in->n_inputs,
                     (unsigned long long)in->n_aux, n_a, n_b);

  cuzk_domain_t *own = NULL;
  cuzk_err_t e;
  if (!dom) {
    e = cuzk_domain_new(&own, in->n, errstr, errstr_size);
    if (e != CUZK_OK) return e;
    dom = own;
  }
  if (dom->n != in->n) {
    cuzk_domain_free(own);
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "prove: domain of %llu, inputs of %llu",
                     (unsigned long long)dom->n, (unsigned long long)in->n);
  }
  size_t nsc = n_a > n_b ? n_a : n_b;
  cuzk_fr_t *sc = malloc((nsc ? nsc : 1) * sizeof *sc);
  if (!sc) {
    cuzk_domain_free(own);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "prove: no memory for %zu scalars", nsc);
  }

  uint64_t t0 = cuzk_now_us();
  e = cuzk_poly_groth16_h(dom, in->a, in->b, in->c);
  tm->ntt_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) {
    cuzk_errf(e, errstr, errstr_size, "prove: the witness does not satisfy the constraints");
    goto done;
  }
  t0 = cuzk_now_us();
  e = cuzk_g1_msm(&out->h, p->h, in->a, in->n - 1);
  tm->msm_h_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;

  t0 = cuzk_now_us();
  e = cuzk_g1_msm(&out->l, p->l, in->aux, in->n_aux);
  tm->msm_l_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;

  t0 = cuzk_now_us();
  size_t k = abc_gather(sc, in->inputs, in->n_inputs, NULL, in->aux, in->n_aux, in->density_a_aux);
  e = cuzk_g1_msm(&out->a, p->a, sc, k);
  tm->msm_a_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;

  t0 = cuzk_now_us();
  k = abc_gather(sc, in->inputs, in->n_inputs, in->density_b_input, in->aux, in->n_aux,
                 in->density_b_aux);
  e = cuzk_g1_msm(&out->b_g1, p->b_g1, sc, k);
  tm->msm_b_g1_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;
  t0 = cuzk_now_us();
  e = cuzk_g2_msm(&out->b_g2, p->b_g2, sc, k);
  tm->msm_b_g2_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;
  e = CUZK_OK;
  goto done;
nomem:
  e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "prove: no memory for an MSM");
done:
  free(sc);
  cuzk_domain_free(own);
  tm->total_us = cuzk_now_us() - t_all;
  return e;
}
