/*
 * icgn_layout.h - the records IC-GN's kernels (cl/icgn.cl) write and its
 * host side (src/ops/icgn.c) reads: plain C, included by both.
 *
 * consts, per window: |f~| (the zero-mean reference window's norm), the
 * window's mean, 1 (usable) or 0 (flat, or a singular Hessian), then
 * sum J (npar), sum J f~ (npar), H^-1, H and Q (npar x npar each,
 * row-major), J being the reference's gradient times the warp's Jacobian,
 * npar the shape function's parameter count, and Q = sum_ij J_i rho(i - j)
 * J_j, J weighted by the correlation of the images' filtered noise (H
 * itself where the noise stays white).
 *
 * The noise model, once per job: what white noise of variance 1 in an
 * image becomes after the pre-filter's smoothing and the interpolation
 * (icgn_noise_model): the squared norm of the derivative kernel at whole
 * pixels; for ICGN_KAPPA_STEPS + 1 fractions f = 0 .. 1 the squared norm of
 * the kernel for a value sampled f px off the pixels; then the noise's
 * correlation along one axis at lags 0 .. ICGN_RHO_MAX (the smoothing's
 * autocorrelation: 1, 0, 0, ... without one).
 *
 * results, per tile: u, v (px), du/dx, du/dy, dv/dx, dv/dy, the ZNCC at
 * the last evaluated warp, the standard deviations of u and v (px), the
 * iterations done and the status.
 */
#ifndef CLX_ICGN_LAYOUT_H
#define CLX_ICGN_LAYOUT_H

#define ICGN_NPAR(shape) ((shape) == 0 ? 2 : 6)

#define ICGN_C_NORM 0
#define ICGN_C_MEAN 1
#define ICGN_C_USABLE 2
#define ICGN_C_SUM_J 3
#define ICGN_C_SUM_JF(npar) (3 + (npar))
#define ICGN_C_HINV(npar) (3 + 2 * (npar))
#define ICGN_C_H(npar) (3 + 2 * (npar) + (npar) * (npar))
#define ICGN_C_Q(npar) (3 + 2 * (npar) + 2 * (npar) * (npar))
#define ICGN_CONSTS(npar) (3 + 2 * (npar) + 3 * (npar) * (npar))

#define ICGN_KAPPA_STEPS 64
#define ICGN_RHO_MAX 16
#define ICGN_MODEL_DERIV 0
#define ICGN_MODEL_KAPPA 1
#define ICGN_MODEL_RHO (ICGN_MODEL_KAPPA + ICGN_KAPPA_STEPS + 1)
#define ICGN_MODEL_SIZE (ICGN_MODEL_RHO + ICGN_RHO_MAX + 1)

#define ICGN_R_U 0
#define ICGN_R_V 1
#define ICGN_R_UX 2
#define ICGN_R_UY 3
#define ICGN_R_VX 4
#define ICGN_R_VY 5
#define ICGN_R_ZNCC 6
#define ICGN_R_SIGMA_U 7
#define ICGN_R_SIGMA_V 8
#define ICGN_R_ITERATIONS 9
#define ICGN_R_STATUS 10
#define ICGN_RESULTS 11

/* A tile's status. */
#define ICGN_CONVERGED 0    /* the update fell below the tolerance */
#define ICGN_UNCONVERGED 1  /* stopped after the most iterations allowed */
#define ICGN_FAILED 2       /* a flat window, a singular Hessian, a warp that lost the window, or no start */

#endif
