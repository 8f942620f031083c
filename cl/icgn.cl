/*
 * icgn.cl - sub-pixel refinement by the inverse-compositional Gauss-Newton
 * algorithm (IC-GN) with the zero-normalised sum of squared differences
 * (ZNSSD) as its criterion, as in Pan, Li and Tong (2013), "Fast, robust
 * and accurate digital image correlation calculation without redundant
 * computations". Each tile's window of the image is warped by a shape
 * function until it matches the reference window:
 *
 *   SHAPE 0: translation, q = (u, v);
 *   SHAPE 1: first order, q = (u, a1, a2, v, b1, b2), the displacement at a
 *            reference point being (u + a1 xi + a2 eta, v + b1 xi + b2 eta)
 *            with xi = dx / HALF_W, eta = dy / HALF_H its position from the
 *            window centre scaled to about [-1, 1], so that every parameter
 *            is in pixels and the Hessian stays well conditioned in float.
 *
 * Inverse compositional: the reference side's gradients J = grad f dW/dq,
 * the Hessian H = sum J^T J and its inverse are computed once per
 * reference (icgn_reference); each iteration then only samples the image
 * at the warped positions, sums 3 + NPAR values over the window and solves
 * dq = -H^-1 sum J^T (f~ - a g~), a = |f~| / |g~| (f~, g~ the windows less
 * their means), and composes W(q) <- W(q) o W(dq)^-1. It stops when
 * |dq| < tol (pixels), or after max_iter iterations (icgn_iterate). The
 * whole loop runs on the device: the host waits once per batch.
 *
 * The image is sampled with interp.h's kernel: at each warped position the
 * TAPS x TAPS taps around it, weighted separably; the B-splines read the
 * images' coefficients (bspline_prefilter.cl). The reference's values and
 * gradients are the same interpolant's at whole pixels.
 *
 * Layouts: fref, per window WIN_PIXELS reals (f~); grad, per window
 * WIN_PIXELS real2 (df/dx, df/dy); consts and results as icgn_layout.h
 * says.
 * NDRange of both kernels: global (ICGN_WG * n), local (ICGN_WG), one
 * work-group per window (icgn_reference) or per tile (icgn_iterate).
 */
#include "common.h"
#include "interp.h"
#include "icgn_layout.h"
#include "icgn_common.h"

#ifndef ICGN_WG
#define ICGN_WG 256         /* work-items per window or tile (a power of two) */
#endif
/* The most sums one reduction step carries (the reference's are summed in
 * rounds of this many, an iteration's in one). */
#define CHUNK NITER

/*
 * Where an iteration reads the image's samples (ICGN_SOURCE; bit-identical
 * results, the same values added in the same order):
 *   0  global memory, through the cache (sample_at);
 *   1  a texture: an image1d_buffer over the same buffer, point reads
 *      through the texture units (sample_texture; floats only);
 *   2  local memory: the work-group copies the footprint of ICGN_STRIP
 *      window rows at a time (the warped strip's bounding box and its taps)
 *      into local memory, and interpolates from there (sample_local); a
 *      strip whose footprint passes ICGN_STRIP_CAP samples is read as in 0;
 *   3  both: work-groups alternate between 1 and 2 (the hybrid of the seed
 *      document on balancing GPU subsystems: the texture units and the
 *      local memory busy at once).
 */
#ifndef ICGN_SOURCE
#define ICGN_SOURCE 0       /* 0 global memory, 1 a texture, 2 local-memory strips, 3 texture and strips */
#endif
#ifndef ICGN_STRIP
#define ICGN_STRIP 16       /* window rows per local-memory strip */
#endif
#ifndef ICGN_STRIP_CAP
#define ICGN_STRIP_CAP (USE_DOUBLE ? 2048 : 4096) /* samples a strip's footprint may hold (16 KB) */
#endif
#if ICGN_SOURCE == 1 || ICGN_SOURCE == 3
#define ICGN_TEXTURE 1
#if USE_DOUBLE
#error "IC-GN's texture reads floats: ICGN_SOURCE 0 or 2 in double precision"
#endif
#define TEXTURE_PARAM , __read_only image1d_buffer_t tex
#define TEXTURE_ARG , tex
#else
#define ICGN_TEXTURE 0
#define TEXTURE_PARAM
#define TEXTURE_ARG
#endif

#if ICGN_TEXTURE
/* sample_at, the image (texels base ...) read through the texture. */
static real sample_texture(__read_only image1d_buffer_t tex, int base, int w, int h, real x, real y)
{
    const real x0 = floor(x), y0 = floor(y);
    const int ix = (int)x0 - TAPS / 2 + 1, iy = (int)y0 - TAPS / 2 + 1;
    real wx[TAPS], wy[TAPS];
    const real norm = weights_at(x - x0, wx) * weights_at(y - y0, wy);
    const int inside = ix >= 0 && iy >= 0 && ix <= w - TAPS && iy <= h - TAPS;
    real v = 0;
    for (int m = 0; m < TAPS; m++) {
        const int row = base + (inside ? iy + m : tap_index(iy + m, h)) * w;
        real r = 0;
        for (int k = 0; k < TAPS; k++)
            r += wx[k] * read_imagef(tex, row + (inside ? ix + k : tap_index(ix + k, w))).x;
        v += wy[m] * r;
    }
    return v / norm;
}
#endif

#if ICGN_SOURCE >= 2
/* sample_at from a strip's footprint in local memory: rows of bw samples
 * from image position (x0, y0), holding every tap of (x, y). */
static real sample_local(__local const real *strip, int bw, int x0, int y0, real x, real y)
{
    const real fx0 = floor(x), fy0 = floor(y);
    const int ix = (int)fx0 - TAPS / 2 + 1 - x0, iy = (int)fy0 - TAPS / 2 + 1 - y0;
    real wx[TAPS], wy[TAPS];
    const real norm = weights_at(x - fx0, wx) * weights_at(y - fy0, wy);
    __local const real *row = strip + iy * bw + ix;
    real v = 0;
    for (int m = 0; m < TAPS; m++, row += bw) {
        real r = 0;
        for (int k = 0; k < TAPS; k++)
            r += wx[k] * row[k];
        v += wy[m] * r;
    }
    return v / norm;
}

/* Window rows [r0, r1)'s footprint at the warp: the bounding box of their
 * warped positions (an affine map: its corners' extremes), widened by the
 * taps and by one sample against rounding, as (x0, y0) and bw x bh. */
static void strip_footprint(int2 corner, struct warp wp, int r0, int r1, int *x0, int *y0, int *bw, int *bh)
{
    real lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
    const int ends[4] = { r0 * WIN_W, r0 * WIN_W + WIN_W - 1, (r1 - 1) * WIN_W, (r1 - 1) * WIN_W + WIN_W - 1 };
    for (int e = 0; e < 4; e++) {
        real px, py;
        warped_position(corner, wp, ends[e], &px, &py);
        lo_x = fmin(lo_x, px);
        hi_x = fmax(hi_x, px);
        lo_y = fmin(lo_y, py);
        hi_y = fmax(hi_y, py);
    }
    *x0 = (int)floor(lo_x) - TAPS / 2;
    *y0 = (int)floor(lo_y) - TAPS / 2;
    *bw = (int)floor(hi_x) + TAPS / 2 + 1 - *x0 + 1;
    *bh = (int)floor(hi_y) + TAPS / 2 + 1 - *y0 + 1;
}
#endif

/*
 * The iteration's sums v[NITER] over the whole window at the warp wp, its
 * samples read from ICGN_SOURCE's place (image: the tile's image, texels
 * base ... of the texture). Every work-item of the group calls it.
 */
static void window_sums(__global const real *image TEXTURE_PARAM, int base, int w, int h, int2 corner,
                        struct warp wp, real mean, __global const real *f, __global const real2 *g,
                        __local real *strip, real *v)
{
    const int lid = get_local_id(0);
#if ICGN_SOURCE == 3
    const int use_texture = get_group_id(0) % 2 == 0;
#else
    const int use_texture = ICGN_SOURCE == 1;
#endif
#if ICGN_TEXTURE
    if (use_texture) {
        for (int i = lid; i < WIN_PIXELS; i += ICGN_WG) {
            real px, py;
            warped_position(corner, wp, i, &px, &py);
            add_sample(sample_texture(tex, base, w, h, px, py) - mean, f, g, i, v);
        }
        return;
    }
#endif
#if ICGN_SOURCE >= 2
    for (int r0 = 0; r0 < WIN_H; r0 += ICGN_STRIP) {
        const int r1 = min(r0 + ICGN_STRIP, WIN_H);
        int x0, y0, bw, bh;
        strip_footprint(corner, wp, r0, r1, &x0, &y0, &bw, &bh);
        /* Each side bounded first, so that a wild warp's product cannot wrap. */
        const int fits = bw > 0 && bh > 0 && bw <= ICGN_STRIP_CAP && bh <= ICGN_STRIP_CAP && bw * bh <= ICGN_STRIP_CAP;
        barrier(CLK_LOCAL_MEM_FENCE);       /* the last strip's reads are done */
        if (fits) {
            const int inside = x0 >= 0 && y0 >= 0 && x0 + bw <= w && y0 + bh <= h;
            for (int e = lid; e < bw * bh; e += ICGN_WG) {
                const int r = e / bw, col = e - r * bw;
                strip[e] = inside ? image[(size_t)(y0 + r) * w + x0 + col]
                                  : image[(size_t)tap_index(y0 + r, h) * w + tap_index(x0 + col, w)];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = r0 * WIN_W + lid; i < r1 * WIN_W; i += ICGN_WG) {
            real px, py;
            warped_position(corner, wp, i, &px, &py);
            const real gv = fits ? sample_local(strip, bw, x0, y0, px, py) : sample_at(image, w, h, px, py);
            add_sample(gv - mean, f, g, i, v);
        }
    }
#else
    for (int i = lid; i < WIN_PIXELS; i += ICGN_WG)
        add_pixel(image, w, h, corner, wp, mean, f, g, i, v);
#endif
}

/* Sums n values of every work-item's v[] over the work-group into all[]
 * (fixed order, so every run adds the same way). All must call it. */
static void group_sums(__local real *part, const real *v, int n, __local real *all)
{
    const int lid = get_local_id(0);
    for (int first = 0; first < n; first += CHUNK) {
        const int m = min(CHUNK, n - first);
        for (int k = 0; k < m; k++)
            part[k * ICGN_WG + lid] = v[first + k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = ICGN_WG / 2; s > 0; s >>= 1) {
            if (lid < s)
                for (int k = 0; k < m; k++)
                    part[k * ICGN_WG + lid] += part[k * ICGN_WG + lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid < m)
            all[first + lid] = part[lid * ICGN_WG];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/*
 * Q's share of this work-item's pixels: sum_i J_i (rho * J)_i, the
 * window's gradients g smoothed by the noise's correlation rho (separable,
 * lags up to rho_radius; neighbours outside the window left out), into
 * q's NH upper-triangle entries. J's position factors are taken at i:
 * rho is symmetric, so smoothing g xi differs from xi smoothing g only by
 * rho's lags over the window's half-width.
 */
static void noise_hessian_part(__global const real2 *g, __global const real *rho, int rho_radius, real *q)
{
    for (int k = 0; k < NH; k++)
        q[k] = 0;
    for (int i = get_local_id(0); i < WIN_PIXELS; i += ICGN_WG)
        add_noise_pixel(g, rho, rho_radius, i, q);
}

/*
 * icgn_reference: per reference window r, the reference's f~, gradients
 * and consts. src holds the references (their coefficients for the
 * B-splines), w x h each: window r is window r % nwin of image r / nwin
 * (one image, or with pairs one per tile). noise_model as icgn_layout.h
 * says, rho_radius its noise correlation's last lag that counts (0: white).
 */
__kernel __attribute__((reqd_work_group_size(ICGN_WG, 1, 1)))
void icgn_reference(__global const real *src, int w, int h, __global const int2 *corners, int nwin,
                    __global real *fref, __global real2 *grad, __global real *consts,
                    __global const real *noise_model, int rho_radius)
{
    __local real part[CHUNK * ICGN_WG];
    __local real all[NREF];
    __local real all_q[NH];
    const int win = get_group_id(0), lid = get_local_id(0);
    const int2 corner = corners[win % nwin];
    src += (size_t)(win / nwin) * w * h;
    __global real *f = fref + (size_t)win * WIN_PIXELS;
    __global real2 *g = grad + (size_t)win * WIN_PIXELS;
    __global real *c = consts + (size_t)win * CONSTS;
    real v[NREF];

    real sum = 0;
    for (int i = lid; i < WIN_PIXELS; i += ICGN_WG) {
        const int x = i % WIN_W, y = i / WIN_W;
        sum += sample_at(src, w, h, corner.x + x, corner.y + y);
    }
    v[0] = sum;
    group_sums(part, v, 1, all);
    const real mean = all[0] / WIN_PIXELS;

    for (int k = 0; k < NREF; k++)
        v[k] = 0;
    for (int i = lid; i < WIN_PIXELS; i += ICGN_WG) {
        const int x = i % WIN_W, y = i / WIN_W;
        const real fv = sample_at(src, w, h, corner.x + x, corner.y + y) - mean;
        const real2 gv = slope_at(src, w, h, corner.x + x, corner.y + y);
        real j[NPAR];
        jacobian(gv, (x - CENTRE_X) / HALF_W, (y - CENTRE_Y) / HALF_H, j);
        f[i] = fv;
        g[i] = gv;
        ADD_REFERENCE_SUMS(v, j, fv);
    }
    group_sums(part, v, NREF, all);
    /* Every work-item's gradients are written: Q may read its neighbours'. */
    barrier(CLK_GLOBAL_MEM_FENCE);
    real q[NH];
    noise_hessian_part(g, noise_model + ICGN_MODEL_RHO, rho_radius, q);
    group_sums(part, q, NH, all_q);
    if (lid != 0)
        return;
    real sums[NREF], qs[NH];
    for (int k = 0; k < NREF; k++)
        sums[k] = all[k];
    for (int k = 0; k < NH; k++)
        qs[k] = all_q[k];
    write_consts(c, sums, qs, mean);
}

/*
 * icgn_iterate: tile t (image t / nwin, window t % nwin) refined from its
 * start offset against reference window t % nref; src holds the batch's
 * images (or their coefficients). Work-item 0 takes each step.
 */
__kernel __attribute__((reqd_work_group_size(ICGN_WG, 1, 1)))
void icgn_iterate(__global const real *src, int w, int h, __global const int2 *corners, int nwin, int nref,
                  __global const real *fref, __global const real2 *grad, __global const real *consts,
                  __global const real *noise_model, __global const real2 *starts, int max_iter, real tol,
                  __global real *results TEXTURE_PARAM)
{
    __local real part[CHUNK * ICGN_WG];
#if ICGN_SOURCE >= 2
    __local real strip[ICGN_STRIP_CAP];
#else
    __local real *strip = NULL;
#endif
    __local real all[NITER];
    __local struct warp shared_warp;
    __local int state;           /* -1 going on, else the status */
    __local real last_zncc;
    const int tile = get_group_id(0), lid = get_local_id(0);
    const int img = tile / nwin, win = tile - img * nwin, ref = tile % nref;
    const int2 corner = corners[win];
    __global const real *image = src + (size_t)img * w * h;
    __global const real *f = fref + (size_t)ref * WIN_PIXELS;
    __global const real2 *g = grad + (size_t)ref * WIN_PIXELS;
    __global const real *c = consts + (size_t)ref * CONSTS;
    const real2 start = starts[tile];
    const real mean = c[C_MEAN];
    int it = 0;

    if (lid == 0) {
        struct warp w0 = { start.x, start.y, 0, 0, 0, 0 };
        shared_warp = w0;
        state = c[C_USABLE] != 0 && !isnan(start.x) && !isnan(start.y) ? -1 : ICGN_FAILED;
        last_zncc = NAN;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    while (state < 0) {
        const struct warp wp = shared_warp;
        real v[NITER];
        for (int k = 0; k < NITER; k++)
            v[k] = 0;
        window_sums(image TEXTURE_ARG, img * w * h, w, h, corner, wp, mean, f, g, strip, v);
        group_sums(part, v, NITER, all);
        it++;
        if (lid == 0) {
            real sums[NITER], zncc = last_zncc;
            struct warp nw = wp;
            for (int k = 0; k < NITER; k++)
                sums[k] = all[k];
            state = icgn_step(sums, c, start, it, max_iter, tol, &nw, &zncc);
            shared_warp = nw;
            last_zncc = zncc;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        write_result(results + (size_t)tile * ICGN_RESULTS, state, shared_warp, last_zncc, it, c, noise_model);
}
