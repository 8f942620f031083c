/*
 * warp_pattern.cl - a pattern resampled through a projective map (HR-EBSD
 * remapping): out(u, v) = in at h (u, v, 1), divided by its third component,
 * with one of interp.h's interpolations (warp.c builds it with the quintic
 * B-spline, whatever the refinement uses). With a B-spline, `in`
 * holds the pattern's coefficients (bspline_prefilter.cl) and taps outside
 * are mirrored; otherwise its pixels, the edge pixel repeated. Weights are
 * normalised so that a flat pattern stays flat.
 * NDRange: global (w, h) rounded up to the work-group (WARP_TX, WARP_TY).
 */
#include "common.h"
#include "interp.h"

#ifndef PIXEL_T
#define PIXEL_T ushort      /* the input pattern's pixels */
#endif

__kernel void warp_pattern(__global const PIXEL_T *in, int w, int h, __global const real *hm, __global float *out)
{
    const int u = get_global_id(0), v = get_global_id(1);
    if (u >= w || v >= h)
        return;
    const real X = hm[0] * u + hm[1] * v + hm[2];
    const real Y = hm[3] * u + hm[4] * v + hm[5];
    const real Z = hm[6] * u + hm[7] * v + hm[8];
    /* A point far outside reads the pattern 8 px out (mirrored there with
     * a B-spline, the edge repeated otherwise), one behind the source at
     * (-8, -8); clamping first keeps the tap indices in int range. */
    const real x = Z > 0 ? clamp(X / Z, (real)-8, (real)(w + 8)) : (real)-8;
    const real y = Z > 0 ? clamp(Y / Z, (real)-8, (real)(h + 8)) : (real)-8;
    const real x0 = floor(x), y0 = floor(y);
    real wx[TAPS], wy[TAPS];
    const real norm = weights_at(x - x0, wx) * weights_at(y - y0, wy);
    const int ix0 = (int)x0 - TAPS / 2 + 1, iy0 = (int)y0 - TAPS / 2 + 1;
    real sum = 0;
    for (int j = 0; j < TAPS; j++) {
        __global const PIXEL_T *row = in + (size_t)tap_index(iy0 + j, h) * w;
        real r = 0;
        for (int k = 0; k < TAPS; k++)
            r += wx[k] * (real)row[tap_index(ix0 + k, w)];
        sum += wy[j] * r;
    }
    out[(size_t)v * w + u] = (float)(sum / norm);
}
