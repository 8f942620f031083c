/*
 * zncc.cl - the zero-normalised cross-correlation of each tile's sampled
 * window with its reference window (window t % nwin):
 *     sum r' d' / sqrt(sum r'^2 sum d'^2),  r', d' the windows minus their means,
 * 1 for identical content, 0 for unrelated, NaN for a flat window.
 *
 * One work-group per tile, two tree reductions (the means, then the sums).
 * NDRange: global (TILE_WG * ntiles), local (TILE_WG).
 */
#include "common.h"

#ifndef TILE_WG
#define TILE_WG 256         /* work-items per tile (a power of two) */
#endif

/* Sums v over the work-group into part[0] (fixed order); all must call it. */
static inline real reduce(__local real *part, real v)
{
    const int lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    part[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = TILE_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return part[0];
}

__kernel __attribute__((reqd_work_group_size(TILE_WG, 1, 1)))
void zncc(__global const real *refs, __global const real *tiles, int nwin, __global real *out)
{
    __local real part[TILE_WG];
    const int tile = get_group_id(0), lid = get_local_id(0);
    __global const real *r = refs + (size_t)(tile % nwin) * WIN_PIXELS;
    __global const real *d = tiles + (size_t)tile * WIN_PIXELS;

    real sr = 0, sd = 0;
    for (int i = lid; i < WIN_PIXELS; i += TILE_WG) {
        sr += r[i];
        sd += d[i];
    }
    const real mr = reduce(part, sr) / WIN_PIXELS;
    const real md = reduce(part, sd) / WIN_PIXELS;

    real rd = 0, rr = 0, dd = 0;
    for (int i = lid; i < WIN_PIXELS; i += TILE_WG) {
        const real a = r[i] - mr, b = d[i] - md;
        rd += a * b;
        rr += a * a;
        dd += b * b;
    }
    rd = reduce(part, rd);
    rr = reduce(part, rr);
    dd = reduce(part, dd);
    if (lid == 0)
        out[tile] = rd / sqrt(rr * dd);
}
