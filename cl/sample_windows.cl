/*
 * sample_windows.cl - the accurate mode's windows, sampled from images held
 * as reals (pre-filtered, or converted by image_to_real).
 *
 * sample_windows: tile t (image t / nwin, window t % nwin) at its window's
 * corner plus the tile's offset, into slot t, or, when tile_ids is not
 * NULL (the refinement's open tiles), tile tile_ids[s] into slot s.
 * Fractional offsets interpolate with interp.h's kernel: Lanczos-3 (INTERP
 * 1, the default) or Keys' cubic convolution (INTERP 0, a = -0.5) on the
 * images, taps outside them repeating the edge pixel; or a cubic or
 * quintic B-spline (INTERP 2, 3) on the images' B-spline coefficients
 * (bspline_prefilter.cl), mirrored outside. copy_windows copies pixels
 * for integer offsets, from the images in every case; copy_windows_rows
 * does the same on CPU devices (tile_form 1).
 * NDRange: global (WIN_W, WIN_H, slots) rounded up to (SAMPLE_TX, SAMPLE_TY, 1);
 * copy_windows_rows (WIN_H, slots), any local.
 */
#include "common.h"

#ifndef PIXEL_T
#define PIXEL_T ushort      /* image_to_real's input pixels */
#endif
#ifndef SAMPLE_TX
#define SAMPLE_TX 16        /* sample_windows' work-group width */
#endif
#ifndef SAMPLE_TY
#define SAMPLE_TY 8         /* sample_windows' work-group height */
#endif

/* image_to_real: n pixels to reals, for runs without a pre-filter. */
__kernel void image_to_real(__global const PIXEL_T *in, __global real *out, int n)
{
    const int i = get_global_id(0);
    if (i < n)
        out[i] = (real)in[i];
}

#include "interp.h"

#define PATCH_W (SAMPLE_TX + TAPS - 1)
#define PATCH_H (SAMPLE_TY + TAPS - 1)

/*
 * A tile is moved by one offset, so every pixel of it has the same
 * fractional position and the same TAPS x TAPS weights: they are computed
 * once per work-group, and the interpolation runs separably through local
 * memory (a patch of the image, then its rows filtered, then the columns):
 * 2 TAPS multiply-adds per pixel instead of TAPS^2 and as many sines. An
 * integer move copies pixels with the interpolating kernels, its weights
 * being a single 1, and gives them back from coefficients with the
 * B-splines. (A uniform early return for that case, before the barriers,
 * corrupted memory on PoCL 3.1.)
 */
__kernel __attribute__((reqd_work_group_size(SAMPLE_TX, SAMPLE_TY, 1)))
void sample_windows(__global const real *images, int image_w, int image_h, __global const int2 *corners, int nwin,
                    __global const real2 *offsets, __global const int *tile_ids, __global real *tiles)
{
    __local real wx[TAPS], wy[TAPS];
    __local real patch[PATCH_H][PATCH_W];
    __local real rows[PATCH_H][SAMPLE_TX];
    const int lx = get_local_id(0), ly = get_local_id(1), lid = ly * SAMPLE_TX + lx;
    const int x = get_global_id(0), y = get_global_id(1), slot = get_global_id(2);
    const int tile = tile_ids ? tile_ids[slot] : slot;
    const int img = tile / nwin;
    const int2 corner = corners[tile - img * nwin];
    const real2 o = offsets[tile];
    const real ox0 = floor(o.x), oy0 = floor(o.y);
    const real fx = o.x - ox0, fy = o.y - oy0;
    __global const real *image = images + (size_t)img * image_w * image_h;
    __global real *out = tiles + (size_t)slot * WIN_PIXELS;

    /* The weights, normalised so that a flat image stays flat (Lanczos
     * weights sum to 1 only approximately; the others to 1 exactly). */
    for (int axis = lid; axis < 2; axis += SAMPLE_TX * SAMPLE_TY) {
        __local real *w = axis == 0 ? wx : wy;
        const real f = axis == 0 ? fx : fy;
        real sum = 0;
        for (int k = 0; k < TAPS; k++) {
            w[k] = tap_weight(f, k);
            sum += w[k];
        }
        for (int k = 0; k < TAPS; k++)
            w[k] /= sum;
    }
    /* The patch: the group's pixels and the taps around them, read outside
     * the image as interp.h's tap_index says. */
    const int px0 = corner.x + (int)ox0 + (int)get_group_id(0) * SAMPLE_TX - TAPS / 2 + 1;
    const int py0 = corner.y + (int)oy0 + (int)get_group_id(1) * SAMPLE_TY - TAPS / 2 + 1;
    for (int r = ly; r < PATCH_H; r += SAMPLE_TY) {
        __global const real *row = image + (size_t)tap_index(py0 + r, image_h) * image_w;
        for (int c = lx; c < PATCH_W; c += SAMPLE_TX)
            patch[r][c] = row[tap_index(px0 + c, image_w)];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = ly; r < PATCH_H; r += SAMPLE_TY) {
        real h = 0;
        for (int k = 0; k < TAPS; k++)
            h += wx[k] * patch[r][lx + k];
        rows[r][lx] = h;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    real v = 0;
    for (int k = 0; k < TAPS; k++)
        v += wy[k] * rows[ly + k][lx];
    if (x < WIN_W && y < WIN_H)
        out[y * WIN_W + x] = v;
}

/*
 * copy_windows: sample_windows for integer offsets (the first pass, the
 * window-offset passes): the pixels themselves, without the interpolation's
 * local memory and barriers. Same arguments and NDRange.
 */
__kernel __attribute__((reqd_work_group_size(SAMPLE_TX, SAMPLE_TY, 1)))
void copy_windows(__global const real *images, int image_w, int image_h, __global const int2 *corners, int nwin,
                  __global const real2 *offsets, __global const int *tile_ids, __global real *tiles)
{
    const int x = get_global_id(0), y = get_global_id(1), slot = get_global_id(2);
    if (x >= WIN_W || y >= WIN_H)
        return;
    const int tile = tile_ids ? tile_ids[slot] : slot;
    const int img = tile / nwin;
    const int2 corner = corners[tile - img * nwin];
    const real2 o = offsets[tile];
    const int ix = clamp(corner.x + x + (int)o.x, 0, image_w - 1), iy = clamp(corner.y + y + (int)o.y, 0, image_h - 1);
    tiles[(size_t)slot * WIN_PIXELS + y * WIN_W + x] =
        images[(size_t)img * image_w * image_h + (size_t)iy * image_w + ix];
}

/*
 * copy_windows_rows: copy_windows for CPU devices (tile_form 1), the same
 * values: one work-item per row of a window, a run of vector copies where
 * the row lies inside the image. (One work-item per pixel spent more of a
 * CPU runtime's time starting work-items than copying.)
 */
__kernel void copy_windows_rows(__global const real *images, int image_w, int image_h, __global const int2 *corners,
                                int nwin, __global const real2 *offsets, __global const int *tile_ids,
                                __global real *tiles)
{
    const int y = get_global_id(0), slot = get_global_id(1);
    if (y >= WIN_H)
        return;
    const int tile = tile_ids ? tile_ids[slot] : slot;
    const int img = tile / nwin;
    const int2 corner = corners[tile - img * nwin];
    const real2 o = offsets[tile];
    const int x0 = corner.x + (int)o.x, iy = clamp(corner.y + y + (int)o.y, 0, image_h - 1);
    __global const real *row = images + (size_t)img * image_w * image_h + (size_t)iy * image_w;
    __global real *out = tiles + (size_t)slot * WIN_PIXELS + y * WIN_W;
    if (x0 >= 0 && x0 + WIN_W <= image_w) {
        int x = 0;
        for (; x + 8 <= WIN_W; x += 8)
            vstore8(vload8(0, row + x0 + x), 0, out + x);
        for (; x < WIN_W; x++)
            out[x] = row[x0 + x];
        return;
    }
    for (int x = 0; x < WIN_W; x++)
        out[x] = row[clamp(x0 + x, 0, image_w - 1)];
}
