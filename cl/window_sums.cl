/*
 * window_sums.cl - the mean of every window's pixels (seed pipeline step 1).
 *
 * One work-group reduces one tile (image, window): each work-item sums a
 * strided share of the window's pixels, SUMS_ITEMS consecutive ones per step,
 * then a tree reduction in local memory combines the shares. The order of
 * additions is fixed, so the result is the same on every run. Integer pixels
 * are summed exactly in 64-bit integers and the mean is formed as
 * quotient + remainder / N, so it is exact wherever the working precision can
 * hold it (a flat window then becomes exactly 0) and the same for every
 * SUMS_WG and SUMS_ITEMS. Float pixels are summed in the working precision,
 * so their last bits depend on SUMS_WG x SUMS_ITEMS, the order of additions.
 *
 * NDRange: global (SUMS_WG * nwin, nimages), local (SUMS_WG, 1).
 */
#include "common.h"

#ifndef SUMS_WG
#define SUMS_WG 256     /* work-items reducing one window (a power of two) */
#endif
#ifndef SUMS_ITEMS
#define SUMS_ITEMS 1    /* consecutive pixels per work-item and step, unrolled (1..8) */
#endif
#define SUMS_STRIDE (SUMS_WG * SUMS_ITEMS)
#ifndef PIXEL_T
#error "define PIXEL_T (uchar, ushort or float)"
#endif
#ifndef PIXEL_IS_FLOAT
#define PIXEL_IS_FLOAT 0    /* 1 when PIXEL_T is float */
#endif

#if PIXEL_IS_FLOAT
typedef real acc_t;
#else
typedef ulong acc_t;
#endif

__kernel __attribute__((reqd_work_group_size(SUMS_WG, 1, 1)))
void window_sums(__global const PIXEL_T *images, int image_w, int image_h,
                 __global const int2 *corners, int nwin, __global real *means)
{
    __local acc_t part[SUMS_WG];
    const int win = get_group_id(0);
    const int img = get_group_id(1);
    const int lid = get_local_id(0);
    const int2 corner = corners[win];
    __global const PIXEL_T *src =
        images + (size_t)img * image_w * image_h + (size_t)corner.y * image_w + corner.x;

    acc_t acc = 0;
    for (int first = lid * SUMS_ITEMS; first < WIN_PIXELS; first += SUMS_STRIDE) {
        /* One division per step; the run of pixels may wrap to the next row. */
        int y = first / WIN_W, x = first - y * WIN_W;
#pragma unroll
        for (int j = 0; j < SUMS_ITEMS; j++) {
            if (first + j < WIN_PIXELS)
                acc += src[(size_t)y * image_w + x];
            if (++x == WIN_W) {
                x = 0;
                y++;
            }
        }
    }
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = SUMS_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
#if PIXEL_IS_FLOAT
        means[img * nwin + win] = part[0] / (real)WIN_PIXELS;
#else
        const ulong q = part[0] / WIN_PIXELS, r = part[0] - q * WIN_PIXELS;
        means[img * nwin + win] = (real)q + (real)r / (real)WIN_PIXELS;
#endif
    }
}
