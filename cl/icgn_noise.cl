/*
 * icgn_noise.cl - what IC-GN's standard deviations need to know about the
 * images' noise (icgn_layout.h's noise model), once per job: its own
 * program, so that a run builds it without either form of the iterations
 * it does not use (cl/icgn.cl, cl/icgn_vector.cl).
 */
#include "common.h"
#include "interp.h"
#include "icgn_layout.h"

/*
 * icgn_noise_model: what stands between an image's white noise and a
 * sample is eta(t) = sum_j taps[|j|] w(t - j), taps being the pre-filter's
 * smoothing convolved with the B-spline prefilter's FIR (each a single 1
 * where there is none), eta' likewise with w'. Work-item 0 writes
 * sum_k eta'(k)^2, work-item 1 + i sum_k eta(k - f_i)^2 for
 * f_i = i / ICGN_KAPPA_STEPS; the correlations (ICGN_MODEL_RHO on) are the
 * host's. NDRange: global ICGN_MODEL_RHO.
 */
__kernel void icgn_noise_model(__global const real *taps, int radius, __global real *model)
{
    const int i = get_global_id(0);
    if (i >= ICGN_MODEL_RHO)
        return;
    const real f = i == ICGN_MODEL_DERIV ? 0 : (real)(i - ICGN_MODEL_KAPPA) / ICGN_KAPPA_STEPS;
    const int reach = radius + TAPS;
    real sum = 0;
    for (int k = -reach; k <= reach; k++) {
        real e = 0;
        for (int j = -radius; j <= radius; j++) {
            const real t = k - f - j, h = taps[abs(j)];
            e += h * (i == ICGN_MODEL_DERIV ? weight_deriv(t) : weight(t));
        }
        sum += e * e;
    }
    model[i] = sum;
}
