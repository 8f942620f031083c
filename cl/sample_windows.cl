/*
 * sample_windows.cl - the accurate mode's windows, sampled from images held
 * as reals (pre-filtered, or converted by image_to_real).
 *
 * sample_windows: tile t (image t / nwin, window t % nwin) at its window's
 * corner plus the tile's offset. Integer offsets copy pixels (the bicubic
 * weights are then exactly 0, 1, 0, 0); fractional ones interpolate with
 * Keys' cubic convolution (a = -0.5), which reproduces linear and quadratic
 * intensity exactly and is what the refinement moves windows with. Taps
 * outside the image repeat its edge pixel.
 * NDRange: global (WIN_W, WIN_H, ntiles) rounded up to (SAMPLE_TX, SAMPLE_TY, 1).
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
#ifndef INTERP
#define INTERP 1            /* fractional offsets: 0 Keys' cubic (4 taps), 1 Lanczos-3 (6 taps) */
#endif

/* image_to_real: n pixels to reals, for runs without a pre-filter. */
__kernel void image_to_real(__global const PIXEL_T *in, __global real *out, int n)
{
    const int i = get_global_id(0);
    if (i < n)
        out[i] = (real)in[i];
}

#define PI_REAL ((real)3.14159265358979323846)

#if INTERP == 0
#define TAPS 4
/* Keys' cubic convolution kernel, a = -0.5, at distance t >= 0. */
static inline real weight(real t)
{
    t = fabs(t);
    if (t <= 1)
        return ((real)1.5 * t - (real)2.5) * t * t + 1;
    if (t < 2)
        return (((real)-0.5 * t + (real)2.5) * t - 4) * t + 2;
    return 0;
}
#else
#define TAPS 6
/* Lanczos-3: sinc(t) sinc(t / 3) for |t| < 3. Its pass band is flatter
 * than the cubic's, so its phase error, which biases a refined offset
 * toward half a pixel, is several times smaller. */
static inline real weight(real t)
{
    t = fabs(t);
    if (t < (real)1e-6)
        return 1;
    if (t >= 3)
        return 0;
    const real a = PI_REAL * t, b = a / 3;
    return sin(a) * sin(b) / (a * b);
}
#endif

__kernel __attribute__((reqd_work_group_size(SAMPLE_TX, SAMPLE_TY, 1)))
void sample_windows(__global const real *images, int image_w, int image_h, __global const int2 *corners, int nwin,
                    __global const real2 *offsets, __global real *tiles)
{
    const int x = get_global_id(0), y = get_global_id(1), tile = get_global_id(2);
    if (x >= WIN_W || y >= WIN_H)
        return;
    const int img = tile / nwin;
    const int2 corner = corners[tile - img * nwin];
    const real2 o = offsets[tile];
    const real px = corner.x + x + o.x, py = corner.y + y + o.y;
    const real fx0 = floor(px), fy0 = floor(py);
    const real fx = px - fx0, fy = py - fy0;
    const int ix = (int)fx0, iy = (int)fy0;
    __global const real *image = images + (size_t)img * image_w * image_h;

    /* An integer position: the pixel itself (every weight but one is 0). */
    if (fx == 0 && fy == 0) {
        tiles[(size_t)tile * WIN_PIXELS + y * WIN_W + x] =
            image[(size_t)clamp(iy, 0, image_h - 1) * image_w + clamp(ix, 0, image_w - 1)];
        return;
    }
    real wx[TAPS], wy[TAPS], sx = 0, sy = 0;
    for (int i = 0; i < TAPS; i++) {
        wx[i] = weight(fx - (i - TAPS / 2 + 1));
        wy[i] = weight(fy - (i - TAPS / 2 + 1));
        sx += wx[i];
        sy += wy[i];
    }
    real v = 0;
    for (int j = 0; j < TAPS; j++) {
        const int row = clamp(iy - TAPS / 2 + 1 + j, 0, image_h - 1);
        real h = 0;
        for (int i = 0; i < TAPS; i++)
            h += wx[i] * image[(size_t)row * image_w + clamp(ix - TAPS / 2 + 1 + i, 0, image_w - 1)];
        v += wy[j] * h;
    }
    /* Normalised: a flat image stays flat (Lanczos weights sum to 1 only
     * approximately). */
    tiles[(size_t)tile * WIN_PIXELS + y * WIN_W + x] = v / (sx * sy);
}
