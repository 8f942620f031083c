/*
 * tile_prepare.cl - the accurate mode's prepare step: each sampled window
 * minus its mean, times the window function, into the correlator's layout
 * (PAD_W x PAD_H per tile, zeros elsewhere).
 *
 * One work-group per tile: a tree reduction in local memory gives the mean,
 * in a fixed order, so the result is the same on every run.
 * NDRange: global (TILE_WG * ntiles), local (TILE_WG).
 */
#include "common.h"

#ifndef TILE_WG
#define TILE_WG 256         /* work-items per tile (a power of two) */
#endif
#ifndef WINDOW_FN
#define WINDOW_FN 0         /* 0 none, 1 Hann, 2 Tukey */
#endif
#ifndef WINDOW_ALPHA
#define WINDOW_ALPHA 0.25   /* Tukey: the tapered fraction of the width */
#endif

/* The window function's weight at n of 0 .. N - 1 along one axis (cospi:
 * cos(pi x) without reducing a multiple of pi on every call). */
static inline real taper(int n, int N)
{
#if WINDOW_FN == 1
    return N > 1 ? (real)0.5 - (real)0.5 * cospi((real)(2 * n) / (N - 1)) : 1;
#elif WINDOW_FN == 2
    const real edge = (real)WINDOW_ALPHA * (N - 1) / 2;
    const int m = min(n, N - 1 - n);
    if (edge <= 0 || m >= edge)
        return 1;
    return (real)0.5 * (1 + cospi(m / edge - 1));
#else
    return 1;
#endif
}

__kernel __attribute__((reqd_work_group_size(TILE_WG, 1, 1)))
void tile_prepare(__global const real *tiles, __global real *prepared)
{
    __local real part[TILE_WG];
    const int tile = get_group_id(0), lid = get_local_id(0);
    __global const real *src = tiles + (size_t)tile * WIN_PIXELS;

    real sum = 0;
    for (int i = lid; i < WIN_PIXELS; i += TILE_WG)
        sum += src[i];
    part[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = TILE_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const real mean = part[0] / WIN_PIXELS;

    __global real *dst = prepared + (size_t)tile * PAD_PIXELS;
    for (int i = lid; i < PAD_PIXELS; i += TILE_WG) {
        const int y = i / PAD_W, x = i - y * PAD_W;
        real v = 0;
        if (x < WIN_W && y < WIN_H)
            v = (src[y * WIN_W + x] - mean) * taper(x, WIN_W) * taper(y, WIN_H);
        dst[i] = v;
    }
}
