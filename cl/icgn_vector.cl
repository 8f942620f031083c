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
 * but the few groups that cross a column or row of the grid). Then the
 * TAPS x TAPS taps are TAPS x TAPS vector loads, and the weights are
 * polynomials of the fractions in vectors (the cubic B-spline's, the
 * accurate mode's default; the other kernels take interp.h's weights lane
 * by lane). A group that crosses a column or row loads one more tap column
 * and row each side and each lane takes its own; a row's last WIN_W % 8
 * pixels are its last 8 with the lanes already added masked out. Only
 * groups near the image's edge take sample_at lane by lane.
 *
 * The step, the tolerance, the statuses and the results are
 * icgn_common.h's, as in the work-group form; only the order in which the
 * window's sums are added differs. icgn_reference_vector does the
 * reference side the same way (with pairs of images, one reference window
 * per tile, it was most of a PIV job's time on PoCL).
 * NDRange: global at least ntiles, or nref for the reference (work-items
 * past them return at once), any local.
 */
#include "common.h"
#include "interp.h"
#include "icgn_layout.h"
#include "icgn_common.h"

#define LANES 8              /* pixels per vector (common.h's vreal) */

/* The tap loops are unrolled (#pragma unroll): PoCL left them as loops,
 * with the weights and sums going through the stack. */

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

/* Among three vectors by a lane's offset o (-1, 0 or 1): lo, mid or hi. */
static inline vreal by_offset(vreal o, vreal lo, vreal mid, vreal hi)
{
    return o < 0 ? lo : (o > 0 ? hi : mid);
}

/* The interpolant at 8 positions (px, py) along one row of the window. */
static vreal sample_8(__global const real *src, int w, int h, vreal px, vreal py)
{
    const vreal lane = (vreal)(0, 1, 2, 3, 4, 5, 6, 7);
    const vreal x0 = floor(px), y0 = floor(py);
    /* Each lane's taps against those of 8 consecutive columns from lane 0's,
     * on lane 0's row of taps: -1, 0 or 1 column or row off, for a
     * first-order warp that crosses a column or row of the grid within the
     * 8 pixels (0 and 0 in every lane: the common case, a translation). */
    const vreal ox = x0 - (x0.s0 + lane), oy = y0 - y0.s0;
    const int ix = (int)x0.s0 - TAPS / 2 + 1, iy = (int)y0.s0 - TAPS / 2 + 1;
    const int flat = !any(ox != 0) && !any(oy != 0), near = all(fabs(ox) <= 1) && all(fabs(oy) <= 1);
    /* Inside the image: the TAPS x TAPS taps of every lane, and for an
     * offset the one more tap column or row each side it may reach. */
    const int inside = flat ? ix >= 0 && ix + LANES + TAPS - 2 < w && iy >= 0 && iy + TAPS - 1 < h
                            : ix >= 1 && ix + LANES + TAPS <= w && iy >= 1 && iy + TAPS < h;
    if (!near || !inside) {
        real xs[LANES], ys[LANES], out[LANES];
        vstore8(px, 0, xs);
        vstore8(py, 0, ys);
        for (int l = 0; l < LANES; l++)
            out[l] = sample_at(src, w, h, xs[l], ys[l]);
        return vload8(0, out);
    }
    vreal wx[TAPS], wy[TAPS], v = 0, sx = 0, sy = 0;
    vector_tap_weights(px - x0, wx);
    vector_tap_weights(py - y0, wy);
    #pragma unroll
    for (int k = 0; k < TAPS; k++)
        sx += wx[k];
    #pragma unroll
    for (int m = 0; m < TAPS; m++)
        sy += wy[m];
    if (flat) {
        /* TAPS x TAPS vector loads. */
        #pragma unroll
        for (int m = 0; m < TAPS; m++) {
            __global const real *row = src + (size_t)(iy + m) * w + ix;
            vreal r = 0;
            #pragma unroll
            for (int k = 0; k < TAPS; k++)
                r += wx[k] * vload8(0, row + k);
            v += wy[m] * r;
        }
        return v / (sx * sy);
    }
    /* TAPS + 2 rows of TAPS + 2 vector loads, each lane taking its column
     * and its row of them. */
    vreal r[TAPS + 2];
    #pragma unroll
    for (int m = 0; m < TAPS + 2; m++) {
        __global const real *row = src + (size_t)(iy - 1 + m) * w + ix - 1;
        vreal c[TAPS + 2];
        #pragma unroll
        for (int k = 0; k < TAPS + 2; k++)
            c[k] = vload8(0, row + k);
        r[m] = 0;
        #pragma unroll
        for (int k = 0; k < TAPS; k++)
            r[m] += wx[k] * by_offset(ox, c[k], c[k + 1], c[k + 2]);
    }
    #pragma unroll
    for (int m = 0; m < TAPS; m++)
        v += wy[m] * by_offset(oy, r[m], r[m + 1], r[m + 2]);
    return v / (sx * sy);
}

/* Pixels x0 + skip .. x0 + 7 of window row y: their shares of an
 * iteration's sums, added to s (lanes below `skip` add nothing). */
static void add_8(__global const real *image, int w, int h, int2 corner, struct warp wp, real mean,
                  __global const real *f, __global const real2 *g, int x0, int y, int skip, vreal *s)
{
    const vreal lane = (vreal)(0, 1, 2, 3, 4, 5, 6, 7);
    const real dy = y - CENTRE_Y;
    /* As add_pixel computes each position. */
    const vreal xv = x0 + lane, dx = xv - CENTRE_X;
    const vreal px = corner.x + xv + wp.u + wp.ux * dx + wp.uy * dy;
    const vreal py = corner.y + y + wp.v + wp.vx * dx + wp.vy * dy;
    vreal gv = sample_8(image, w, h, px, py) - mean;
    if (skip)
        gv = lane < skip ? (vreal)0 : gv;      /* every share below is a multiple of gv */
    const int i = y * WIN_W + x0;
    const vreal2 grad = vload16(0, (__global const real *)(g + i));
    vreal j[NPAR];
    JACOBIAN(grad.even, grad.odd, dx / HALF_W, dy / HALF_H, j);
    s[0] += gv;
    s[1] += gv * gv;
    s[2] += vload8(0, f + i) * gv;
    #pragma unroll
    for (int a = 0; a < NPAR; a++)
        s[3 + a] += j[a] * gv;
}

/* An iteration's sums (NITER) over tile's window at the warp wp. */
static void window_sums(__global const real *image, int w, int h, int2 corner, struct warp wp, real mean,
                        __global const real *f, __global const real2 *g, real *v)
{
    vreal s[NITER];
    for (int k = 0; k < NITER; k++) {
        s[k] = 0;
        v[k] = 0;
    }
    for (int y = 0; y < WIN_H; y++) {
        int x = 0;
        for (; x + LANES <= WIN_W; x += LANES)
            add_8(image, w, h, corner, wp, mean, f, g, x, y, 0, s);
#if WIN_W >= LANES
        /* The row's last WIN_W % 8 pixels: the last 8, those already added left out. */
        if (x < WIN_W)
            add_8(image, w, h, corner, wp, mean, f, g, WIN_W - LANES, y, x - (WIN_W - LANES), s);
#else
        for (; x < WIN_W; x++)
            add_pixel(image, w, h, corner, wp, mean, f, g, y * WIN_W + x, v);
#endif
    }
    for (int k = 0; k < NITER; k++)
        v[k] += lane_sum(s[k]);
}

/*
 * The reference side, one work-item per reference window (icgn.cl's
 * icgn_reference runs it as a work-group with sums through local memory,
 * which a CPU runtime runs as loops split at every barrier). At whole
 * pixels the interpolant's weights are the same for every pixel, so a row
 * of 8 pixels is TAPS x TAPS vector loads weighted by constants, for the
 * value and both slopes at once. Three passes over the window: values and
 * slopes (into fref and grad) and their sum; the sums that make H; Q.
 */

/* Values and slopes of the 8 whole pixels (x0 .. x0 + 7, y) of a w x h
 * image; wt, dt: the taps' weights and derivative weights at fraction 0. */
static void whole_pixels_8(__global const real *src, int w, int h, int x0, int y, const real *wt, const real *dt,
                           real norm, vreal *v, vreal *gx, vreal *gy)
{
    const int ix = x0 - TAPS / 2 + 1, iy = y - TAPS / 2 + 1;
    if (ix >= 0 && ix + LANES - 1 + TAPS <= w && iy >= 0 && iy + TAPS <= h) {
        vreal s = 0, sx = 0, sy = 0;
        #pragma unroll
        for (int m = 0; m < TAPS; m++) {
            __global const real *row = src + (size_t)(iy + m) * w + ix;
            vreal r = 0, rd = 0;
            #pragma unroll
            for (int k = 0; k < TAPS; k++) {
                const vreal c = vload8(0, row + k);
                r += wt[k] * c;
                rd += dt[k] * c;
            }
            s += wt[m] * r;
            sx += wt[m] * rd;
            sy += dt[m] * r;
        }
        *v = s / norm;
        *gx = sx;
        *gy = sy;
        return;
    }
    real vs[LANES], xs[LANES], ys[LANES];
    for (int l = 0; l < LANES; l++) {
        const real2 g = slope_at(src, w, h, x0 + l, y);
        vs[l] = sample_at(src, w, h, x0 + l, y);
        xs[l] = g.x;
        ys[l] = g.y;
    }
    *v = vload8(0, vs);
    *gx = vload8(0, xs);
    *gy = vload8(0, ys);
}

/* Row y's gradients x0 .. x0 + 7 of a window, 0 in lanes outside it. */
static vreal2 window_gradients_8(__global const real2 *g, int x0, int y)
{
    __global const real *row = (__global const real *)(g + y * WIN_W);
    if (x0 >= 0 && x0 + LANES <= WIN_W)
        return vload16(0, row + 2 * x0);
    real t[2 * LANES];
    for (int l = 0; l < LANES; l++) {
        const int x = x0 + l, inside = x >= 0 && x < WIN_W;
        t[2 * l] = inside ? row[2 * x] : 0;
        t[2 * l + 1] = inside ? row[2 * x + 1] : 0;
    }
    return vload16(0, t);
}

__kernel void icgn_reference_vector(__global const real *src, int w, int h, __global const int2 *corners, int nwin,
                                    __global real *fref, __global real2 *grad, __global real *consts,
                                    __global const real *noise_model, int rho_radius, int nref)
{
    const int win = get_global_id(0);
    if (win >= nref)
        return;
    const int2 corner = corners[win % nwin];
    src += (size_t)(win / nwin) * w * h;
    __global real *f = fref + (size_t)win * WIN_PIXELS;
    __global real2 *g = grad + (size_t)win * WIN_PIXELS;
    __global const real *rho = noise_model + ICGN_MODEL_RHO;
    const vreal lane = (vreal)(0, 1, 2, 3, 4, 5, 6, 7);
    real wt[TAPS], dt[TAPS], norm = 0;
    for (int k = 0; k < TAPS; k++) {
        wt[k] = tap_weight(0, k);
        dt[k] = tap_deriv(0, k);
        norm += wt[k];
    }
    norm *= norm;

    /* Values (less no mean yet) and slopes, and the values' sum. */
    vreal vsum = 0;
    real sum = 0;
    for (int y = 0; y < WIN_H; y++) {
        int x = 0;
        for (; x + LANES <= WIN_W; x += LANES) {
            vreal v, gx, gy;
            whole_pixels_8(src, w, h, corner.x + x, corner.y + y, wt, dt, norm, &v, &gx, &gy);
            const int i = y * WIN_W + x;
            vstore8(v, 0, f + i);
            vreal2 gg;
            gg.even = gx;
            gg.odd = gy;
            vstore16(gg, 0, (__global real *)(g + i));
            vsum += v;
        }
        for (; x < WIN_W; x++) {
            const int i = y * WIN_W + x;
            f[i] = sample_at(src, w, h, corner.x + x, corner.y + y);
            g[i] = slope_at(src, w, h, corner.x + x, corner.y + y);
            sum += f[i];
        }
    }
    const real mean = (sum + lane_sum(vsum)) / WIN_PIXELS;

    /* f~ = f - mean, and the sums that make H. */
    vreal acc[NREF];
    real all[NREF];
    for (int k = 0; k < NREF; k++) {
        acc[k] = 0;
        all[k] = 0;
    }
    for (int y = 0; y < WIN_H; y++) {
        const real eta = (y - CENTRE_Y) / HALF_H;
        int x = 0;
        for (; x + LANES <= WIN_W; x += LANES) {
            const int i = y * WIN_W + x;
            const vreal fv = vload8(0, f + i) - mean;
            vstore8(fv, 0, f + i);
            const vreal2 gg = vload16(0, (__global const real *)(g + i));
            const vreal xi = ((x + lane) - CENTRE_X) / HALF_W;
            vreal j[NPAR];
            JACOBIAN(gg.even, gg.odd, xi, eta, j);
            ADD_REFERENCE_SUMS(acc, j, fv);
        }
        for (; x < WIN_W; x++) {
            const int i = y * WIN_W + x;
            const real fv = f[i] - mean;
            f[i] = fv;
            real j[NPAR];
            jacobian(g[i], (x - CENTRE_X) / HALF_W, eta, j);
            ADD_REFERENCE_SUMS(all, j, fv);
        }
    }
    for (int k = 0; k < NREF; k++)
        all[k] += lane_sum(acc[k]);

    /* Q: each pixel's gradient smoothed by rho over the window, times its own. */
    vreal qacc[NH];
    real q[NH];
    for (int k = 0; k < NH; k++) {
        qacc[k] = 0;
        q[k] = 0;
    }
    for (int y = 0; y < WIN_H; y++) {
        const real eta = (y - CENTRE_Y) / HALF_H;
        int x = 0;
        for (; x + LANES <= WIN_W; x += LANES) {
            vreal sgx = 0, sgy = 0;
            for (int dy = -rho_radius; dy <= rho_radius; dy++) {
                if (y + dy < 0 || y + dy >= WIN_H)
                    continue;
                for (int dx = -rho_radius; dx <= rho_radius; dx++) {
                    const vreal2 gg = window_gradients_8(g, x + dx, y + dy);
                    const real r = rho[abs(dx)] * rho[abs(dy)];
                    sgx += r * gg.even;
                    sgy += r * gg.odd;
                }
            }
            const vreal2 gg = vload16(0, (__global const real *)(g + y * WIN_W + x));
            const vreal xi = ((x + lane) - CENTRE_X) / HALF_W;
            vreal j[NPAR], js[NPAR];
            JACOBIAN(gg.even, gg.odd, xi, eta, j);
            JACOBIAN(sgx, sgy, xi, eta, js);
            ADD_Q_SUMS(qacc, j, js);
        }
        for (; x < WIN_W; x++)
            add_noise_pixel(g, rho, rho_radius, y * WIN_W + x, q);
    }
    for (int k = 0; k < NH; k++)
        q[k] += lane_sum(qacc[k]);
    write_consts(consts + (size_t)win * CONSTS, all, q, mean);
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
