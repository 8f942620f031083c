/*
 * icgn_vector.cl - IC-GN's iterations (cl/icgn.cl's icgn_iterate) in the
 * form a CPU runs well: one work-item per tile, walking its window row by
 * row, 8 pixels at a time in explicit vectors, with no barriers.
 *
 * Why: a CPU OpenCL runtime runs the work-group form's per-pixel loop as
 * scalar code, each sample computing its 2 x TAPS weights with branches
 * and TAPS x TAPS folded indices (it was 45 % of accurate mode's time on
 * PoCL). Along a row the warped positions of 8 neighbouring pixels are
 * 8 consecutive columns whenever the warp's x slope keeps their whole
 * parts apart by exactly 1 and its y slope keeps them on one row of taps
 * (always for a translation; for a first-order warp of a few degrees all
 * but the few groups that cross a row of the grid). Then the TAPS x TAPS
 * taps are TAPS x TAPS vector loads, and the weights are polynomials
 * of the fractions in vectors (the cubic B-spline's, the accurate mode's
 * default; the other kernels take interp.h's weights lane by lane).
 * Groups near the image's edge or crossing a tap row, and the last
 * WIN_W % 8 pixels of a row, take add_pixel one by one.
 *
 * The step, the tolerance, the statuses and the results are
 * icgn_common.h's, as in the work-group form; only the order in which the
 * window's sums are added differs. The reference side is icgn.cl's.
 * NDRange: global (ntiles), any local.
 */
#include "common.h"
#include "interp.h"
#include "icgn_layout.h"
#include "icgn_common.h"

#if USE_DOUBLE
typedef double4 vreal4;
typedef double8 vreal;
typedef double16 vreal2;
#else
typedef float4 vreal4;
typedef float8 vreal;
typedef float16 vreal2;
#endif
#define LANES 8

/* Horizontal sum in a fixed order. */
static real lane_sum(vreal a)
{
    const vreal4 b = a.lo + a.hi;
    const real2 c = b.lo + b.hi;
    return c.x + c.y;
}

/* Tap i's weight for each lane's fraction f in [0, 1) (interp.h's tap_weight). */
static void vector_tap_weights(vreal f, vreal *wt)
{
#if INTERP == 2
    /* beta3 at f + 1, f, 1 - f, 2 - f. */
    const vreal g = 1 - f, f2 = f * f, g2 = g * g;
    wt[0] = g2 * g / 6;
    wt[1] = (real)2 / 3 - f2 + f2 * f / 2;
    wt[2] = (real)2 / 3 - g2 + g2 * g / 2;
    wt[3] = f2 * f / 6;
#else
    real fl[LANES], t[LANES];
    vstore8(f, 0, fl);
    for (int k = 0; k < TAPS; k++) {
        for (int l = 0; l < LANES; l++)
            t[l] = tap_weight(fl[l], k);
        wt[k] = vload8(0, t);
    }
#endif
}

/* The interpolant at 8 positions (px, py) along one row of the window. */
static vreal sample_8(__global const real *src, int w, int h, vreal px, vreal py)
{
    const vreal x0 = floor(px), y0 = floor(py);
    /* The taps of floor(x) run from floor(x) - TAPS / 2 + 1 to floor(x) + TAPS / 2. */
    if (x0.s0 >= TAPS / 2 - 1 && x0.s7 + TAPS / 2 < w && y0.s0 >= TAPS / 2 - 1 && y0.s0 + TAPS / 2 < h &&
        x0.s7 - x0.s0 == LANES - 1 && y0.s7 == y0.s0) {
        const int ix = (int)x0.s0 - TAPS / 2 + 1, iy = (int)y0.s0 - TAPS / 2 + 1;
        vreal wx[TAPS], wy[TAPS], v = 0, sx = 0, sy = 0;
        vector_tap_weights(px - x0, wx);
        vector_tap_weights(py - y0, wy);
        for (int k = 0; k < TAPS; k++)
            sx += wx[k];
        for (int m = 0; m < TAPS; m++) {
            __global const real *row = src + (size_t)(iy + m) * w + ix;
            vreal r = 0;
            for (int k = 0; k < TAPS; k++)
                r += wx[k] * vload8(0, row + k);
            v += wy[m] * r;
            sy += wy[m];
        }
        return v / (sx * sy);
    }
    real xs[LANES], ys[LANES], out[LANES];
    vstore8(px, 0, xs);
    vstore8(py, 0, ys);
    for (int l = 0; l < LANES; l++)
        out[l] = sample_at(src, w, h, xs[l], ys[l]);
    return vload8(0, out);
}

/* An iteration's sums (NITER) over tile's window at the warp wp. */
static void window_sums(__global const real *image, int w, int h, int2 corner, struct warp wp, real mean,
                        __global const real *f, __global const real2 *g, real *v)
{
    const vreal lane = (vreal)(0, 1, 2, 3, 4, 5, 6, 7);
    vreal s[NITER];
    for (int k = 0; k < NITER; k++) {
        s[k] = 0;
        v[k] = 0;
    }
    for (int y = 0; y < WIN_H; y++) {
        const real dy = y - CENTRE_Y;
        int x = 0;
        for (; x + LANES <= WIN_W; x += LANES) {
            /* As add_pixel computes each position. */
            const vreal xv = x + lane, dx = xv - CENTRE_X;
            const vreal px = corner.x + xv + wp.u + wp.ux * dx + wp.uy * dy;
            const vreal py = corner.y + y + wp.v + wp.vx * dx + wp.vy * dy;
            const vreal gv = sample_8(image, w, h, px, py) - mean;
            const int i = y * WIN_W + x;
            const vreal2 grad = vload16(0, (__global const real *)(g + i));
            const vreal gx = grad.even * gv, gy = grad.odd * gv;
            s[0] += gv;
            s[1] += gv * gv;
            s[2] += vload8(0, f + i) * gv;
#if SHAPE == 0
            s[3] += gx;
            s[4] += gy;
#else
            const vreal xi = dx / HALF_W;
            const real eta = dy / HALF_H;
            s[3] += gx;
            s[4] += gx * xi;
            s[5] += gx * eta;
            s[6] += gy;
            s[7] += gy * xi;
            s[8] += gy * eta;
#endif
        }
        for (; x < WIN_W; x++)
            add_pixel(image, w, h, corner, wp, mean, f, g, y * WIN_W + x, v);
    }
    for (int k = 0; k < NITER; k++)
        v[k] += lane_sum(s[k]);
}

/*
 * icgn_iterate_vector: icgn_iterate's arguments and results, one
 * work-item per tile; work-items past the batch's last tile (global
 * rounded up) return at once.
 */
__kernel void icgn_iterate_vector(__global const real *src, int w, int h, __global const int2 *corners, int nwin,
                                  int nref, __global const real *fref, __global const real2 *grad,
                                  __global const real *consts, __global const real *noise_model,
                                  __global const real2 *starts, int max_iter, real tol, __global real *results,
                                  int ntiles)
{
    const int tile = get_global_id(0);
    if (tile >= ntiles)
        return;
    const int img = tile / nwin, win = tile - img * nwin, ref = tile % nref;
    const int2 corner = corners[win];
    __global const real *image = src + (size_t)img * w * h;
    __global const real *f = fref + (size_t)ref * WIN_PIXELS;
    __global const real2 *g = grad + (size_t)ref * WIN_PIXELS;
    __global const real *c = consts + (size_t)ref * CONSTS;
    const real2 start = starts[tile];
    struct warp wp = { start.x, start.y, 0, 0, 0, 0 };
    real zncc = NAN;
    int it = 0;
    int state = c[C_USABLE] != 0 && !isnan(start.x) && !isnan(start.y) ? -1 : ICGN_FAILED;
    while (state < 0) {
        real sums[NITER];
        window_sums(image, w, h, corner, wp, c[C_MEAN], f, g, sums);
        it++;
        state = icgn_step(sums, c, start, it, max_iter, tol, &wp, &zncc);
    }
    write_result(results + (size_t)tile * ICGN_RESULTS, state, wp, zncc, it, c, noise_model);
}
