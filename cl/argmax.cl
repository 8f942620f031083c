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

#ifndef FIT_SIZE
#define FIT_SIZE 5      /* F: the primary peak's F x F neighbourhood is left out */
#endif

/* The value at shift (ux, uy), or -inf when the layout does not hold it. */
static inline real value_at(__global const real *c, int ux, int uy)
{
    if (abs(ux) > STORE_RX || abs(uy) > STORE_RY)
        return -INFINITY;
    return c[corr_index(ux, uy)];
}

/*
 * second_peak - each tile's highest local maximum outside the primary peak's
 * F x F neighbourhood, within the searched shifts (for the peak ratio,
 * primary / secondary). A local maximum is at least its 8 neighbours. NaN
 * when there is none.
 *
 * NDRange: global (ARGMAX_WG * ntiles), local (ARGMAX_WG).
 */
__kernel __attribute__((reqd_work_group_size(ARGMAX_WG, 1, 1)))
void second_peak(__global const real *corr, __global const int *peaks, __global real *second)
{
    __local real best[ARGMAX_WG];
    const int tile = get_group_id(0);
    const int lid = get_local_id(0);
    __global const real *c = corr + (size_t)tile * CORR_PIXELS;
    const int key = peaks[tile];
    const int r = (FIT_SIZE - 1) / 2;
    int px = 0, py = 0;
    if (key >= 0) {
        const int kx = key % LOGICAL_W, ky = key / LOGICAL_W;
        px = kx < WIN_W ? kx : kx - LOGICAL_W;
        py = ky < WIN_H ? ky : ky - LOGICAL_H;
    }

    real bv = -INFINITY;
    for (int i = lid; i < CORR_PIXELS; i += ARGMAX_WG) {
        const real v = c[i];
        /* Only a value above the best so far needs its place and its
         * neighbours looked at: the common case is one load and one test. */
        if (!(v > bv))
            continue;
        const int y = i / CORR_W;
        const int ux = corr_shift_x(i - y * CORR_W);
        const int uy = corr_shift_y(y);
        if (abs(ux) > SEARCH_RX || abs(uy) > SEARCH_RY || (abs(ux - px) <= r && abs(uy - py) <= r))
            continue;
        int is_max = 1;
        for (int dy = -1; dy <= 1 && is_max; dy++)
            for (int dx = -1; dx <= 1 && is_max; dx++)
                if (dx || dy)
                    is_max = !(value_at(c, ux + dx, uy + dy) > v);
        if (is_max)
            bv = v;
    }
    best[lid] = bv;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ARGMAX_WG / 2; s > 0; s >>= 1) {
        if (lid < s && best[lid + s] > best[lid])
            best[lid] = best[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        second[tile] = key >= 0 && best[0] > -INFINITY ? best[0] : NAN;
}
