/*
 * prepare.cl - extract each window, subtract its mean and zero-pad it into
 * the FFT layout (seed pipeline step 1).
 *
 * PREP_PAD 0 writes the whole PAD_W x PAD_H tile, zeros included, so no
 * stage can leave stale values in the padding whatever the FFT library does
 * with its input. PREP_PAD 1 and 2 write only the window's WIN_W x WIN_H
 * values: the host zeroes the padding, before every prepare (1) or once
 * when the buffer is made (2) (src/ops/prepare_windows.h says why that holds).
 *
 * Each work-item converts PREP_VEC consecutive x of one row with vector
 * loads and stores (legal at any element-aligned address); a run that
 * crosses the window's right edge or the end of the written row is done
 * element by element, so every value is the same as with PREP_VEC 1.
 *
 * NDRange: global (ceil(COLS / PREP_VEC), ROWS, ntiles) rounded up to the
 * work-group, COLS x ROWS = PAD_W x PAD_H (PREP_PAD 0) or WIN_W x WIN_H;
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
#ifndef PREP_VEC
#define PREP_VEC 1      /* consecutive x per work-item, vector loads and stores (1, 2 or 4) */
#endif
#ifndef PREP_PAD
#define PREP_PAD 0      /* 0: write the padding's zeros too; 1, 2: the window's values only */
#endif

#if PREP_PAD == 0
#define PREP_COLS PAD_W
#define PREP_ROWS PAD_H
#else
#define PREP_COLS WIN_W
#define PREP_ROWS WIN_H
#endif

/* Vector type names are built by pasting, and `real` is a typedef. */
#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
#if USE_DOUBLE
#define REAL_NAME double
#else
#define REAL_NAME float
#endif

#if PREP_VEC == 1
typedef real realv;
#define load_pixels(p) ((real)*(p))
#define store_reals(v, p) (*(p) = (v))
#else
typedef PASTE(REAL_NAME, PREP_VEC) realv;
#define load_pixels(p) PASTE(convert_, PASTE(REAL_NAME, PREP_VEC))(PASTE(vload, PREP_VEC)(0, p))
#define store_reals(v, p) PASTE(vstore, PREP_VEC)(v, 0, p)
#endif

__kernel __attribute__((reqd_work_group_size(PREP_TX, PREP_TY, 1)))
void prepare(__global const PIXEL_T *images, int image_w, int image_h,
             __global const int2 *corners, int nwin, __global const real *means,
             __global real *padded)
{
    const int x0 = get_global_id(0) * PREP_VEC;
    const int y = get_global_id(1);
    const int tile = get_global_id(2);
    if (x0 >= PREP_COLS || y >= PREP_ROWS)
        return;

    __global real *dst = padded + (size_t)tile * PAD_PIXELS + y * PAD_W + x0;
    if (y >= WIN_H || x0 >= WIN_W) {
        if (x0 + PREP_VEC <= PREP_COLS)
            store_reals((realv)0, dst);
        else
            for (int j = 0; x0 + j < PREP_COLS; j++)
                dst[j] = 0;
        return;
    }
    const int img = tile / nwin;
    const int2 corner = corners[tile - img * nwin];
    const real mean = means[tile];
    __global const PIXEL_T *src =
        images + (size_t)img * image_w * image_h + (size_t)(corner.y + y) * image_w + corner.x + x0;
    if (x0 + PREP_VEC <= WIN_W)
        store_reals(load_pixels(src) - (realv)mean, dst);
    else
        /* The run crosses the window's right edge (and perhaps the row's end). */
        for (int j = 0; j < PREP_VEC && x0 + j < PREP_COLS; j++)
            dst[j] = x0 + j < WIN_W ? (real)src[j] - mean : 0;
}
