/*
 * tile_prepare.cl - the accurate mode's prepare step: each sampled window
 * minus its mean, times the window function, into the correlator's layout
 * (PAD_W x PAD_H per tile, zeros elsewhere).
 *
 * tile_prepare: one work-group per tile; a tree reduction in local memory
 * gives the mean, in a fixed order, so the result is the same on every
 * run. It writes the window only, as tile_prepare_vector does (below).
 * NDRange: global (TILE_WG * ntiles), local (TILE_WG). window_prepare
 * (further down) does the same from the images, for the first pass.
 *
 * tile_prepare_vector (tile_form 1, CPU devices, where a runtime runs the
 * work-group form's loops scalar and its barriers as loop splits): one
 * work-item per tile with explicit vectors, the window function's weights
 * along x computed once per tile. It writes the window only: the stage's
 * buffer was filled with zeros when it was made (correlation_stage.c), the
 * FFT transforms out of place, and no kernel writes non-zeros into the
 * padding, so its zeros are still there. NDRange: global at least
 * ntiles (work-items past them return at once), any local.
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

/*
 * One work-group prepares one window, whose rows start `pitch` reals apart
 * at src: its sum in a fixed order (the same for either pitch), then the
 * window's values minus the mean, tapered. Only the window's part of the
 * padded tile is written: the padding's zeros are still there (see
 * tile_prepare_vector above).
 */
static void prepare_window(__global const real *src, int pitch, __global real *dst, __local real *part)
{
    const int lid = get_local_id(0);
    real sum = 0;
    for (int i = lid; i < WIN_PIXELS; i += TILE_WG) {
        const int y = i / WIN_W, x = i - y * WIN_W;
        sum += src[y * pitch + x];
    }
    part[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = TILE_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const real mean = part[0] / WIN_PIXELS;
    for (int i = lid; i < WIN_PIXELS; i += TILE_WG) {
        const int y = i / WIN_W, x = i - y * WIN_W;
        dst[y * PAD_W + x] = (src[y * pitch + x] - mean) * taper(x, WIN_W) * taper(y, WIN_H);
    }
}

__kernel __attribute__((reqd_work_group_size(TILE_WG, 1, 1)))
void tile_prepare(__global const real *tiles, __global real *prepared)
{
    __local real part[TILE_WG];
    const int tile = get_group_id(0);
    prepare_window(tiles + (size_t)tile * WIN_PIXELS, WIN_W, prepared + (size_t)tile * PAD_PIXELS, part);
}

/*
 * window_prepare: tile_prepare of the windows where they are in the images
 * (tile t: window t % nwin of image t / nwin, at its corner), without
 * copying them into tiles first: the first pass's windows are never moved.
 * The same values as copy_windows at zero offsets and then tile_prepare.
 * NDRange: global (TILE_WG * ntiles), local (TILE_WG).
 */
__kernel __attribute__((reqd_work_group_size(TILE_WG, 1, 1)))
void window_prepare(__global const real *images, int image_w, int image_h, __global const int2 *corners, int nwin,
                    __global real *prepared)
{
    __local real part[TILE_WG];
    const int tile = get_group_id(0), img = tile / nwin;
    const int2 corner = corners[tile - img * nwin];
    prepare_window(images + (size_t)img * image_w * image_h + (size_t)corner.y * image_w + corner.x, image_w,
                   prepared + (size_t)tile * PAD_PIXELS, part);
}

__kernel void tile_prepare_vector(__global const real *tiles, __global real *prepared, int ntiles)
{
    const int tile = get_global_id(0);
    if (tile >= ntiles)
        return;
    __global const real *src = tiles + (size_t)tile * WIN_PIXELS;
    __global real *dst = prepared + (size_t)tile * PAD_PIXELS;

    vreal acc = 0;
    real sum = 0;
    int i = 0;
    for (; i + 8 <= WIN_PIXELS; i += 8)
        acc += vload8(0, src + i);
    for (; i < WIN_PIXELS; i++)
        sum += src[i];
    const real mean = (sum + lane_sum(acc)) / WIN_PIXELS;

    real tx[WIN_W];
    for (int x = 0; x < WIN_W; x++)
        tx[x] = taper(x, WIN_W);
    for (int y = 0; y < WIN_H; y++) {
        const real ty = taper(y, WIN_H);
        __global const real *s = src + y * WIN_W;
        __global real *d = dst + y * PAD_W;
        int x = 0;
        for (; x + 8 <= WIN_W; x += 8)
            vstore8((vload8(0, s + x) - mean) * vload8(0, tx + x) * ty, 0, d + x);
        for (; x < WIN_W; x++)
            d[x] = (s[x] - mean) * tx[x] * ty;
    }
}
