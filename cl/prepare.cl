/*
 * prepare.cl - extract each window, subtract its mean and zero-pad it into
 * the FFT layout (seed pipeline step 1).
 *
 * The whole PAD_W x PAD_H tile is written, zeros included, so no stage can
 * leave stale values in the padding whatever the FFT library does with its
 * input.
 *
 * NDRange: global (PAD_W, PAD_H, ntiles) rounded up to the work-group,
 * local (PREP_TX, PREP_TY, 1).
 */
#include "common.h"

#ifndef PIXEL_T
#error "define PIXEL_T (uchar, ushort or float)"
#endif
#ifndef PREP_TX
#define PREP_TX 32      /* work-group width: consecutive x of one row, for coalescing */
#endif
#ifndef PREP_TY
#define PREP_TY 8       /* work-group height */
#endif

__kernel __attribute__((reqd_work_group_size(PREP_TX, PREP_TY, 1)))
void prepare(__global const PIXEL_T *images, int image_w, int image_h,
             __global const int2 *corners, int nwin, __global const real *means,
             __global real *padded)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int tile = get_global_id(2);
    if (x >= PAD_W || y >= PAD_H)
        return;

    real v = 0;
    if (x < WIN_W && y < WIN_H) {
        const int img = tile / nwin;
        const int2 corner = corners[tile - img * nwin];
        const real mean = means[tile];
        const size_t at = (size_t)img * image_w * image_h + (size_t)(corner.y + y) * image_w + corner.x + x;
        v = (real)images[at] - mean;
    }
    padded[(size_t)tile * PAD_PIXELS + y * PAD_W + x] = v;
}
