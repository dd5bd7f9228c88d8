#include "core/groth16/verify.h"

#include <assert.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

#include "core/ec/msm.h"

struct cuzk_groth16_pvk {
  cuzk_fp12_t alpha_beta;
  cuzk_g2_prepared_t neg_gamma, neg_delta;
  cuzk_g1_affine_t *ic;
  size_t n_ic;
};

cuzk_groth16_pvk_t *cuzk_groth16_pvk_new(const cuzk_groth16_vk_t *vk, char *errstr,
                                         size_t errstr_size) {
  assert(vk);
  if (vk->n_ic == 0) {
    cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size, "verifying key has no IC");
    return NULL;
  }
  cuzk_groth16_pvk_t *p = calloc(1, sizeof *p);
  if (p) p->ic = malloc(vk->n_ic * sizeof *p->ic);
  if (!p || !p->ic) {
    free(p);
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
    return NULL;
  }
  memcpy(p->ic, vk->ic, vk->n_ic * sizeof *p->ic);
  p->n_ic = vk->n_ic;
  cuzk_pairing(&p->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
  cuzk_g2_affine_t q;
  cuzk_g2_affine_neg(&q, &vk->gamma_g2);
  cuzk_pairing_g2_prepare(&p->neg_gamma, &q);
  cuzk_g2_affine_neg(&q, &vk->delta_g2);
  cuzk_pairing_g2_prepare(&p->neg_delta, &q);
  return p;
}

void cuzk_groth16_pvk_free(cuzk_groth16_pvk_t *pvk) {
  if (!pvk) return;
  free(pvk->ic);
  free(pvk);
}

size_t cuzk_groth16_pvk_num_public(const cuzk_groth16_pvk_t *pvk) {
  return pvk->n_ic - 1;
}

/* acc = IC₀ + Σ xᵢ·ICᵢ₊₁ */
static cuzk_err_t ic_sum(cuzk_g1_t *acc, const cuzk_groth16_pvk_t *pvk, const cuzk_fr_t *pub) {
  size_t n = pvk->n_ic - 1;
  cuzk_g1_t s;
  cuzk_err_t e = cuzk_g1_msm(&s, pvk->ic + 1, pub, n);
  if (e != CUZK_OK) return e;
  cuzk_g1_from_affine(acc, &pvk->ic[0]);
  cuzk_g1_add(acc, acc, &s);
  return CUZK_OK;
}

static bool proof_has_infinity(const cuzk_groth16_proof_t *p) {
  return cuzk_g1_affine_is_infinity(&p->a) || cuzk_g2_affine_is_infinity(&p->b) ||
         cuzk_g1_affine_is_infinity(&p->c);
}

cuzk_err_t cuzk_groth16_verify(const cuzk_groth16_pvk_t *pvk, const cuzk_groth16_proof_t *proof,
                               const cuzk_fr_t *pub, size_t n_public) {
  assert(pvk && proof && (pub || n_public == 0));
  if (n_public + 1 != pvk->n_ic) return CUZK_ERR_INVALID_ARG;
  if (proof_has_infinity(proof)) return CUZK_ERR_BAD_PROOF;
  cuzk_g1_t acc;
  cuzk_err_t e = ic_sum(&acc, pvk, pub);
  if (e != CUZK_OK) return e;
  cuzk_g1_affine_t ps[3];
  cuzk_g2_prepared_t *qs = malloc(3 * sizeof *qs);
  if (!qs) return CUZK_ERR_NOMEM;
  ps[0] = proof->a;
  cuzk_g1_to_affine(&ps[1], &acc);
  ps[2] = proof->c;
  cuzk_pairing_g2_prepare(&qs[0], &proof->b);
  qs[1] = pvk->neg_gamma;
  qs[2] = pvk->neg_delta;
  cuzk_fp12_t f, g;
  cuzk_pairing_miller_loop(&f, ps, qs, 3);
  free(qs);
  cuzk_pairing_final_exp(&g, &f);
  return cuzk_fp12_eq(&g, &pvk->alpha_beta) ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
}

cuzk_err_t cuzk_groth16_verify_batch(const cuzk_groth16_pvk_t *pvk,
                                     const cuzk_groth16_proof_t *proofs, size_t k,
                                     const cuzk_fr_t *pub, size_t n_public) {
  assert(pvk && (proofs || k == 0));
  if (n_public + 1 != pvk->n_ic) return CUZK_ERR_INVALID_ARG;
  if (k == 0) return CUZK_OK;
  for (size_t i = 0; i < k; i++)
    if (proof_has_infinity(&proofs[i])) return CUZK_ERR_BAD_PROOF;
  cuzk_g1_affine_t *ps = malloc((k + 2) * sizeof *ps);
  cuzk_g2_prepared_t *qs = malloc((k + 2) * sizeof *qs);
  cuzk_fr_t *rho = malloc(k * sizeof *rho);
  cuzk_g1_t *tmp = malloc(k * sizeof *tmp);
  cuzk_err_t e = CUZK_OK;
  if (!ps || !qs || !rho || !tmp) {
    e = CUZK_ERR_NOMEM;
    goto done;
  }
  /* Σρ as a plain integer: k·2^128 fits in 3 limbs for any k < 2^64. */
  uint64_t rho_sum[3] = {0, 0, 0};
  for (size_t i = 0; i < k; i++) {
    uint64_t raw[4] = {0, 0, 0, 0};
    do {
      if (RAND_bytes((unsigned char *)raw, 16) != 1) {
        e = CUZK_ERR_INTERNAL;
        goto done;
      }
    } while (raw[0] == 0 && raw[1] == 0);
    cuzk_fr_from_raw(&rho[i], raw);
    unsigned __int128 t = (unsigned __int128)rho_sum[0] + raw[0];
    rho_sum[0] = (uint64_t)t;
    t = (unsigned __int128)rho_sum[1] + raw[1] + (uint64_t)(t >> 64);
    rho_sum[1] = (uint64_t)t;
    rho_sum[2] += (uint64_t)(t >> 64);
  }
  /* Σρₖ·accₖ = (Σρₖ)·IC₀ + Σᵢ (Σₖ ρₖ xₖᵢ)·ICᵢ₊₁ */
  cuzk_g1_t acc, cs;
  {
    cuzk_fr_t *coef = malloc((n_public ? n_public : 1) * sizeof *coef);
    if (!coef) {
      e = CUZK_ERR_NOMEM;
      goto done;
    }
    for (size_t i = 0; i < n_public; i++) {
      coef[i] = CUZK_FR_ZERO;
      for (size_t j = 0; j < k; j++) {
        cuzk_fr_t t;
        cuzk_fr_mul(&t, &rho[j], &pub[j * n_public + i]);
        cuzk_fr_add(&coef[i], &coef[i], &t);
      }
    }
    e = cuzk_g1_msm(&acc, pvk->ic + 1, coef, n_public);
    free(coef);
    if (e != CUZK_OK) goto done;
    cuzk_g1_t ic0;
    cuzk_g1_from_affine(&ic0, &pvk->ic[0]);
    cuzk_g1_mul_u64_vartime(&ic0, &ic0, rho_sum, 3);
    cuzk_g1_add(&acc, &acc, &ic0);
  }
  {
    cuzk_g1_affine_t *cpts = malloc(k * sizeof *cpts);
    if (!cpts) {
      e = CUZK_ERR_NOMEM;
      goto done;
    }
    for (size_t i = 0; i < k; i++) cpts[i] = proofs[i].c;
    e = cuzk_g1_msm(&cs, cpts, rho, k);
    free(cpts);
    if (e != CUZK_OK) goto done;
  }
  for (size_t i = 0; i < k; i++) {
    cuzk_g1_from_affine(&tmp[i], &proofs[i].a);
    cuzk_g1_mul_vartime(&tmp[i], &tmp[i], &rho[i]);
    cuzk_pairing_g2_prepare(&qs[i], &proofs[i].b);
  }
  cuzk_g1_batch_to_affine(ps, tmp, k);
  cuzk_g1_to_affine(&ps[k], &acc);
  cuzk_g1_to_affine(&ps[k + 1], &cs);
  qs[k] = pvk->neg_gamma;
  qs[k + 1] = pvk->neg_delta;
  cuzk_fp12_t f, g, want;
  cuzk_pairing_miller_loop(&f, ps, qs, k + 2);
  cuzk_pairing_final_exp(&g, &f);
  cuzk_fp12_pow(&want, &pvk->alpha_beta, rho_sum, 3);
  e = cuzk_fp12_eq(&g, &want) ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
done:
  free(ps);
  free(qs);
  free(rho);
  free(tmp);
  return e;
}
