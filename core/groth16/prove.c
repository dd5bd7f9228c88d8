#include "core/groth16/prove.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/ec/msm.h"
#include "core/poly/ntt.h"
#include "core/util/clock.h"

/* Scalars of the variables whose bit is set: inputs filtered by in_bits (NULL = all), then aux
 * filtered by aux_bits. */
static size_t gather(cuzk_fr_t *dst, const cuzk_fr_t *inputs, uint64_t ni, const uint64_t *in_bits,
                     const cuzk_fr_t *aux, uint64_t na, const uint64_t *aux_bits) {
  size_t k = 0;
  for (uint64_t i = 0; i < ni; i++)
    if (!in_bits || cuzk_bitmap_get(in_bits, i)) dst[k++] = inputs[i];
  for (uint64_t j = 0; j < na; j++)
    if (cuzk_bitmap_get(aux_bits, j)) dst[k++] = aux[j];
  return k;
}

static cuzk_err_t check_witness(const cuzk_groth16_params_t *p, const cuzk_r1cs_t *r,
                                const cuzk_fr_t *inputs, uint64_t n_inputs, uint64_t n_aux,
                                char *errstr, size_t errstr_size) {
  if (n_inputs != cuzk_r1cs_num_inputs(r) || n_aux != cuzk_r1cs_num_aux(r) ||
      !cuzk_fr_is_one(&inputs[0]))
    return cuzk_errf(
        CUZK_ERR_INVALID_ARG, errstr, errstr_size,
        "witness has %llu inputs and %llu aux, the circuit %llu and %llu (input 0 must be 1)",
        (unsigned long long)n_inputs, (unsigned long long)n_aux,
        (unsigned long long)cuzk_r1cs_num_inputs(r), (unsigned long long)cuzk_r1cs_num_aux(r));
  return cuzk_groth16_params_match(p, r, errstr, errstr_size);
}

cuzk_err_t cuzk_groth16_prove_start_abc(cuzk_groth16_msm_t *out, const cuzk_groth16_params_t *p,
                                        const cuzk_r1cs_t *r, const cuzk_fr_t *inputs,
                                        uint64_t n_inputs, const cuzk_fr_t *aux, uint64_t n_aux,
                                        cuzk_fr_t *a, cuzk_fr_t *b, cuzk_fr_t *c, uint64_t n,
                                        cuzk_groth16_timings_t *timings, char *errstr,
                                        size_t errstr_size) {
  assert(out && p && r && inputs && a && b && c);
  cuzk_groth16_timings_t tm_local = {0};
  cuzk_groth16_timings_t *tm = timings ? timings : &tm_local;
  uint64_t synth = tm->synth_us, spmv = tm->spmv_us;
  memset(tm, 0, sizeof *tm);
  tm->synth_us = synth;
  tm->spmv_us = spmv;
  uint64_t t_all = cuzk_now_us();

  cuzk_err_t e = check_witness(p, r, inputs, n_inputs, n_aux, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  if (n != cuzk_r1cs_domain_size(r))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "a/b/c hold %llu elements, the domain %llu", (unsigned long long)n,
                     (unsigned long long)cuzk_r1cs_domain_size(r));
  cuzk_domain_t *dom = NULL;
  e = cuzk_domain_new(&dom, n, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  size_t nsc = n_inputs + n_aux;
  cuzk_fr_t *sc = malloc((nsc ? nsc : 1) * sizeof *sc);
  if (!sc) {
    e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "prove: no memory");
    goto done;
  }

  uint64_t t0 = cuzk_now_us();
  e = cuzk_poly_groth16_h(dom, a, b, c);
  tm->ntt_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) {
    cuzk_errf(e, errstr, errstr_size, "prove: the witness does not satisfy the constraints");
    goto done;
  }

  t0 = cuzk_now_us();
  e = cuzk_g1_msm(&out->h, p->h, a, n - 1);
  tm->msm_h_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;

  t0 = cuzk_now_us();
  e = cuzk_g1_msm(&out->l, p->l, aux, n_aux);
  tm->msm_l_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;

  t0 = cuzk_now_us();
  size_t k = gather(sc, inputs, n_inputs, NULL, aux, n_aux,
                    cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_A_AUX, NULL));
  assert(k == p->n_a);
  e = cuzk_g1_msm(&out->a, p->a, sc, k);
  tm->msm_a_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) goto nomem;

  t0 = cuzk_now_us();
  k = gather(sc, inputs, n_inputs, cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_INPUT, NULL), aux,
             n_aux, cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_AUX, NULL));
  assert(k == p->n_b_g1 && k == p->n_b_g2);
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
  cuzk_domain_free(dom);
  tm->total_us = tm->spmv_us + (cuzk_now_us() - t_all);
  return e;
}

cuzk_err_t cuzk_groth16_prove_start(cuzk_groth16_msm_t *out, const cuzk_groth16_params_t *p,
                                    const cuzk_r1cs_t *r, const cuzk_fr_t *inputs,
                                    uint64_t n_inputs, const cuzk_fr_t *aux, uint64_t n_aux,
                                    cuzk_groth16_timings_t *timings, char *errstr,
                                    size_t errstr_size) {
  assert(out && p && r && inputs);
  cuzk_groth16_timings_t tm_local = {0};
  cuzk_groth16_timings_t *tm = timings ? timings : &tm_local;
  cuzk_err_t e = check_witness(p, r, inputs, n_inputs, n_aux, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  uint64_t n = cuzk_r1cs_domain_size(r);
  cuzk_fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c) {
    e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "prove: no memory for %llu-point domain",
                  (unsigned long long)n);
    goto done;
  }
  uint64_t t0 = cuzk_now_us();
  e = cuzk_r1cs_spmv(r, inputs, n_inputs, aux, n_aux, a, b, c, n);
  tm->spmv_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) {
    cuzk_errf(e, errstr, errstr_size, "prove: SpMV failed");
    goto done;
  }
  e = cuzk_groth16_prove_start_abc(out, p, r, inputs, n_inputs, aux, n_aux, a, b, c, n, tm, errstr,
                                   errstr_size);
done:
  free(a), free(b), free(c);
  return e;
}

void cuzk_groth16_prove_finish(cuzk_groth16_proof_t *proof, const cuzk_groth16_vk_t *vk,
                               const cuzk_groth16_msm_t *msm, const cuzk_fr_t *r,
                               const cuzk_fr_t *s, cuzk_groth16_timings_t *timings) {
  assert(proof && vk && msm && r && s);
  uint64_t t0 = cuzk_now_us();
  cuzk_g1_t alpha1, beta1, delta1, ga, gb1, gc, t;
  cuzk_g2_t beta2, delta2, gb2, t2;
  cuzk_g1_from_affine(&alpha1, &vk->alpha_g1);
  cuzk_g1_from_affine(&beta1, &vk->beta_g1);
  cuzk_g1_from_affine(&delta1, &vk->delta_g1);
  cuzk_g2_from_affine(&beta2, &vk->beta_g2);
  cuzk_g2_from_affine(&delta2, &vk->delta_g2);

  /* A = α₁ + Σ wA + r·δ₁ */
  cuzk_g1_mul(&t, &delta1, r);
  cuzk_g1_add(&ga, &alpha1, &msm->a);
  cuzk_g1_add(&ga, &ga, &t);
  /* B = β₂ + Σ wB + s·δ₂ ; B₁ = β₁ + Σ wB + s·δ₁ */
  cuzk_g2_mul(&t2, &delta2, s);
  cuzk_g2_add(&gb2, &beta2, &msm->b_g2);
  cuzk_g2_add(&gb2, &gb2, &t2);
  cuzk_g1_mul(&t, &delta1, s);
  cuzk_g1_add(&gb1, &beta1, &msm->b_g1);
  cuzk_g1_add(&gb1, &gb1, &t);
  /* C = L + H + s·A + r·B₁ − r·s·δ₁ */
  cuzk_fr_t rs;
  cuzk_fr_mul(&rs, r, s);
  cuzk_g1_add(&gc, &msm->l, &msm->h);
  cuzk_g1_mul(&t, &ga, s);
  cuzk_g1_add(&gc, &gc, &t);
  cuzk_g1_mul(&t, &gb1, r);
  cuzk_g1_add(&gc, &gc, &t);
  cuzk_g1_mul(&t, &delta1, &rs);
  cuzk_g1_sub(&gc, &gc, &t);

  cuzk_g1_to_affine(&proof->a, &ga);
  cuzk_g2_to_affine(&proof->b, &gb2);
  cuzk_g1_to_affine(&proof->c, &gc);
  if (timings) {
    timings->epilogue_us = cuzk_now_us() - t0;
    timings->total_us += timings->epilogue_us;
  }
}

cuzk_err_t cuzk_groth16_prove(cuzk_groth16_proof_t *proof, const cuzk_groth16_params_t *p,
                              const cuzk_r1cs_t *r, const cuzk_fr_t *inputs, uint64_t n_inputs,
                              const cuzk_fr_t *aux, uint64_t n_aux, const cuzk_fr_t rs[2],
                              cuzk_groth16_timings_t *timings, char *errstr, size_t errstr_size) {
  cuzk_groth16_msm_t msm;
  cuzk_err_t e = cuzk_groth16_prove_start(&msm, p, r, inputs, n_inputs, aux, n_aux, timings, errstr,
                                          errstr_size);
  if (e != CUZK_OK) return e;
  cuzk_fr_t rr, ss;
  if (rs) {
    rr = rs[0];
    ss = rs[1];
  } else if ((e = cuzk_fr_random(&rr)) != CUZK_OK || (e = cuzk_fr_random(&ss)) != CUZK_OK) {
    return cuzk_errf(e, errstr, errstr_size, "prove: CSPRNG failed");
  }
  cuzk_groth16_prove_finish(proof, &p->vk, &msm, &rr, &ss, timings);
  memset(&rr, 0, sizeof rr);
  memset(&ss, 0, sizeof ss);
  return CUZK_OK;
}
