/*
 * argmax.cl - the integer peak of every correlation (seed pipeline step 3).
 *
 * One work-group searches one tile over the shifts |ux| <= SEARCH_RX,
 * |uy| <= SEARCH_RY (ALGORITHM.md's full range (-w, w) by default; smaller
 * with --max-shift). Ties go to the smallest logical index
 * ky * 2 WIN_W + kx (common.h), whatever the search order or the layout, so
 * the result depends neither on the work-group size nor on the path that
 * computed the correlation. NaN values never win. The result is that
 * logical index, or -1 when no value was a number.
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
    __global const real *c = corr + (size_t)tile * CORR_PIXELS;

    real bv = 0;
    int bk = -1;
    for (int i = lid; i < CORR_PIXELS; i += ARGMAX_WG) {
        const int y = i / CORR_W;
        const int ux = corr_shift_x(i - y * CORR_W);
        const int uy = corr_shift_y(y);
        if (abs(ux) > SEARCH_RX || abs(uy) > SEARCH_RY)
            continue;
        const real v = c[i];
        const int k = (uy < 0 ? uy + LOGICAL_H : uy) * LOGICAL_W + (ux < 0 ? ux + LOGICAL_W : ux);
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
