/*
 * argmax.cl - the integer peak of every correlation (seed pipeline step 3).
 *
 * One work-group searches one tile over the shifts |ux| < WIN_W, |uy| < WIN_H
 * (the zero band of a padded FFT layout is skipped). Ties go to the smallest
 * logical index ky * 2 WIN_W + kx (common.h), whatever the search order, so
 * the result does not depend on the work-group size or the padding. NaN
 * values never win. The result is that logical index, or -1 when no value
 * was a number.
 *
 * NDRange: global (ARGMAX_WG * ntiles), local (ARGMAX_WG).
 */
#include "common.h"

#ifndef ARGMAX_WG
#define ARGMAX_WG 256   /* work-items searching one correlation (a power of two) */
#endif

/* Does candidate (v, k) beat the current best (bv, bk)? */
static inline int beats(real v, int k, real bv, int bk)
{
    if (k < 0 || isnan(v))
        return 0;
    return bk < 0 || v > bv || (v == bv && k < bk);
}

__kernel __attribute__((reqd_work_group_size(ARGMAX_WG, 1, 1)))
void argmax(__global const real *corr, __global int *peaks)
{
    __local real best_v[ARGMAX_WG];
    __local int best_k[ARGMAX_WG];
    const int tile = get_group_id(0);
    const int lid = get_local_id(0);
    __global const real *c = corr + (size_t)tile * PAD_PIXELS;

    real bv = 0;
    int bk = -1;
    for (int i = lid; i < PAD_PIXELS; i += ARGMAX_WG) {
        const int y = i / PAD_W;
        const int x = i - y * PAD_W;
        const int kx = x < WIN_W ? x : (x > PAD_W - WIN_W ? x - PAD_W + LOGICAL_W : -1);
        const int ky = y < WIN_H ? y : (y > PAD_H - WIN_H ? y - PAD_H + LOGICAL_H : -1);
        if (kx < 0 || ky < 0)
            continue;
        const real v = c[i];
        const int k = ky * LOGICAL_W + kx;
        if (beats(v, k, bv, bk)) {
            bv = v;
            bk = k;
        }
    }
    best_v[lid] = bv;
    best_k[lid] = bk;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ARGMAX_WG / 2; s > 0; s >>= 1) {
        if (lid < s && beats(best_v[lid + s], best_k[lid + s], best_v[lid], best_k[lid])) {
            best_v[lid] = best_v[lid + s];
            best_k[lid] = best_k[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        peaks[tile] = best_k[0];
}
