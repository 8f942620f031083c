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

#ifndef ICGN_WG
#define ICGN_WG 256         /* work-items per window or tile (a power of two) */
#endif
#ifndef SHAPE
#define SHAPE 0             /* shape function: 0 translation, 1 first order (affine) */
#endif

#if SHAPE == 0
#define NPAR 2
#define IV 1                /* q's index of v */
#elif SHAPE == 1
#define NPAR 6
#define IV 3
#else
#error "SHAPE must be 0 (translation) or 1 (first order)"
#endif

#define HALF_W ((real)WIN_W / 2)
#define HALF_H ((real)WIN_H / 2)
#define CENTRE_X ((real)(WIN_W - 1) / 2)
#define CENTRE_Y ((real)(WIN_H - 1) / 2)

#define C_NORM ICGN_C_NORM
#define C_MEAN ICGN_C_MEAN
#define C_USABLE ICGN_C_USABLE
#define C_SUM_J ICGN_C_SUM_J
#define C_SUM_JF ICGN_C_SUM_JF(NPAR)
#define C_HINV ICGN_C_HINV(NPAR)
#define C_H ICGN_C_H(NPAR)
#define C_Q ICGN_C_Q(NPAR)
#define CONSTS ICGN_CONSTS(NPAR)

/* The reference's sums: |f~|^2, H's upper triangle, sum J, sum J f~. */
#define NH (NPAR * (NPAR + 1) / 2)
#define NREF (1 + NH + 2 * NPAR)
/* An iteration's sums: g', g'^2, f~ g', J g' (g' = g less the reference's mean). */
#define NITER (3 + NPAR)

/* The most sums one reduction step carries (the reference's are summed in
 * rounds of this many, an iteration's in one). */
#define CHUNK NITER

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

/* Its slopes along x and y at the whole pixel (x, y). */
static real2 slope_at(__global const real *src, int w, int h, int x, int y)
{
    const int ix = x - TAPS / 2 + 1, iy = y - TAPS / 2 + 1;
    real2 g = (real2)(0, 0);
    for (int m = 0; m < TAPS; m++) {
        const real wy = tap_weight(0, m), dy = tap_deriv(0, m);
        __global const real *row = src + (size_t)tap_index(iy + m, h) * w;
        for (int k = 0; k < TAPS; k++) {
            const real c = row[tap_index(ix + k, w)];
            g.x += wy * tap_deriv(0, k) * c;
            g.y += dy * tap_weight(0, k) * c;
        }
    }
    return g;
}

/* J = grad f dW/dq at a pixel whose scaled position is (xi, eta). */
static void jacobian(real2 g, real xi, real eta, real *j)
{
#if SHAPE == 0
    j[0] = g.x;
    j[1] = g.y;
#else
    j[0] = g.x;
    j[1] = g.x * xi;
    j[2] = g.x * eta;
    j[3] = g.y;
    j[4] = g.y * xi;
    j[5] = g.y * eta;
#endif
}

/* Inverts the symmetric n x n matrix a (row-major) by Cholesky into inv;
 * 0 when a is not positive definite. */
static int invert_spd(real *a, real *inv)
{
    for (int j = 0; j < NPAR; j++) {
        real d = a[j * NPAR + j];
        for (int k = 0; k < j; k++)
            d -= a[j * NPAR + k] * a[j * NPAR + k];
        if (!(d > 0))
            return 0;
        d = sqrt(d);
        a[j * NPAR + j] = d;
        for (int i = j + 1; i < NPAR; i++) {
            real s = a[i * NPAR + j];
            for (int k = 0; k < j; k++)
                s -= a[i * NPAR + k] * a[j * NPAR + k];
            a[i * NPAR + j] = s / d;
        }
    }
    /* Columns of the inverse: L L^T x = e_c. */
    for (int c = 0; c < NPAR; c++) {
        real y[NPAR];
        for (int i = 0; i < NPAR; i++) {
            real s = i == c ? 1 : 0;
            for (int k = 0; k < i; k++)
                s -= a[i * NPAR + k] * y[k];
            y[i] = s / a[i * NPAR + i];
        }
        for (int i = NPAR - 1; i >= 0; i--) {
            real s = y[i];
            for (int k = i + 1; k < NPAR; k++)
                s -= a[k * NPAR + i] * inv[k * NPAR + c];
            inv[i * NPAR + c] = s / a[i * NPAR + i];
        }
    }
    return 1;
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
    for (int i = get_local_id(0); i < WIN_PIXELS; i += ICGN_WG) {
        const int x = i % WIN_W, y = i / WIN_W;
        real2 sg = (real2)(0, 0);
        for (int dy = -rho_radius; dy <= rho_radius; dy++) {
            if (y + dy < 0 || y + dy >= WIN_H)
                continue;
            for (int dx = -rho_radius; dx <= rho_radius; dx++)
                if (x + dx >= 0 && x + dx < WIN_W)
                    sg += rho[abs(dx)] * rho[abs(dy)] * g[(y + dy) * WIN_W + x + dx];
        }
        real j[NPAR], js[NPAR];
        const real xi = (x - CENTRE_X) / HALF_W, eta = (y - CENTRE_Y) / HALF_H;
        jacobian(g[i], xi, eta, j);
        jacobian(sg, xi, eta, js);
        int n = 0;
        for (int a = 0; a < NPAR; a++)
            for (int b = a; b < NPAR; b++)
                q[n++] += (real)0.5 * (j[a] * js[b] + j[b] * js[a]);
    }
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
        v[0] += fv * fv;
        int n = 1;
        for (int a = 0; a < NPAR; a++)
            for (int b = a; b < NPAR; b++)
                v[n++] += j[a] * j[b];
        for (int a = 0; a < NPAR; a++) {
            v[1 + NH + a] += j[a];
            v[1 + NH + NPAR + a] += j[a] * fv;
        }
    }
    group_sums(part, v, NREF, all);
    /* Every work-item's gradients are written: Q may read its neighbours'. */
    barrier(CLK_GLOBAL_MEM_FENCE);
    real q[NH];
    noise_hessian_part(g, noise_model + ICGN_MODEL_RHO, rho_radius, q);
    group_sums(part, q, NH, all_q);
    if (lid != 0)
        return;
    real hm[NPAR * NPAR], inv[NPAR * NPAR];
    int n = 1;
    for (int a = 0; a < NPAR; a++)
        for (int b = a; b < NPAR; b++) {
            hm[a * NPAR + b] = hm[b * NPAR + a] = all[n];
            n++;
        }
    const int usable = all[0] > 0 && invert_spd(hm, inv);
    c[C_NORM] = sqrt(all[0]);
    c[C_MEAN] = mean;
    c[C_USABLE] = usable;
    for (int a = 0; a < NPAR; a++) {
        c[C_SUM_J + a] = all[1 + NH + a];
        c[C_SUM_JF + a] = all[1 + NH + NPAR + a];
    }
    n = 0;
    for (int a = 0; a < NPAR; a++)
        for (int b = a; b < NPAR; b++) {
            c[C_H + a * NPAR + b] = c[C_H + b * NPAR + a] = all[1 + n];
            c[C_Q + a * NPAR + b] = c[C_Q + b * NPAR + a] = all_q[n];
            n++;
        }
    for (int k = 0; k < NPAR * NPAR; k++)
        c[C_HINV + k] = usable ? inv[k] : 0;
}

/*
 * icgn_noise_model: what stands between an image's white noise and a
 * sample is eta(t) = sum_j taps[|j|] w(t - j), taps being the pre-filter's
 * smoothing convolved with the B-spline prefilter's FIR (each a single 1
 * where there is none), eta' likewise with w'. Work-item 0 writes
 * sum_k eta'(k)^2, work-item 1 + i sum_k eta(k - f_i)^2 for
 * f_i = i / ICGN_KAPPA_STEPS; the correlations (ICGN_MODEL_RHO on) are the
 * host's. NDRange: global ICGN_MODEL_RHO.
 */
__kernel void icgn_noise_model(__global const real *taps, int radius, __global real *model)
{
    const int i = get_global_id(0);
    if (i >= ICGN_MODEL_RHO)
        return;
    const real f = i == ICGN_MODEL_DERIV ? 0 : (real)(i - ICGN_MODEL_KAPPA) / ICGN_KAPPA_STEPS;
    const int reach = radius + TAPS;
    real sum = 0;
    for (int k = -reach; k <= reach; k++) {
        real e = 0;
        for (int j = -radius; j <= radius; j++) {
            const real t = k - f - j, h = taps[abs(j)];
            e += h * (i == ICGN_MODEL_DERIV ? weight_deriv(t) : weight(t));
        }
        sum += e * e;
    }
    model[i] = sum;
}

/* The noise gain of a value sampled at fraction f (linear in the table). */
static real kappa_at(__global const real *model, real f)
{
    const real x = (f - floor(f)) * ICGN_KAPPA_STEPS;
    /* clamp: a NaN or infinite f must not index outside the table. */
    const int k = isfinite(x) ? clamp((int)x, 0, ICGN_KAPPA_STEPS - 1) : 0;
    const real a = model[ICGN_MODEL_KAPPA + k], b = model[ICGN_MODEL_KAPPA + k + 1];
    return a + (b - a) * (x - k);
}

/*
 * The standard deviations of u and v (px), into sd[0], sd[1]; NaN where the
 * noise swamps the window. Gauss-Newton's estimate is a sum of the
 * residual weighted by J, and both sides are noisy. With s^2 each image's
 * white noise variance before any filter and k0, k(f) the model's gains at
 * a whole pixel and at the warp's fraction, the residual's variance is
 * s_r^2 = |f~|^2 ZNSSD / (N - npar) = s^2 (k0^2 + k(fx) k(fy)); the
 * reference's gradients, and so J and H, carry noise of variance
 * s^2 model[deriv] k0 per pixel. With S = H less that noise's expected
 * part (the signal's own Hessian), the update's covariance is
 * 2 s^2 S^-1 Q S^-1 (errors in the variables; Q = H for white noise, and
 * Cov = 2 s^2 H^-1 where the reference is noise-free too).
 */
static void standard_deviations(__global const real *c, __global const real *model, real znssd, real fu, real fv,
                                 real *sd)
{
    const real n = WIN_PIXELS;
    const real sr2 = c[C_NORM] * c[C_NORM] * fmax(znssd, (real)0) / (n - NPAR);
    const real k0 = model[ICGN_MODEL_KAPPA];
    const real s2 = sr2 / (k0 * k0 + kappa_at(model, fu) * kappa_at(model, fv));
    const real gn = s2 * model[ICGN_MODEL_DERIV] * k0;
    real sm[NPAR * NPAR], si[NPAR * NPAR];
    for (int k = 0; k < NPAR * NPAR; k++)
        sm[k] = c[C_H + k];
#if SHAPE == 0
    sm[0] -= gn * n;
    sm[3] -= gn * n;
#else
    /* J's noise: (nx, nx xi, nx eta, ny, ny xi, ny eta), nx and ny
     * independent, xi and eta of mean 0 and uncorrelated over the window. */
    const real mx = n * ((real)WIN_W * WIN_W - 1) / (12 * HALF_W * HALF_W);
    const real my = n * ((real)WIN_H * WIN_H - 1) / (12 * HALF_H * HALF_H);
    const real m[3] = { n, mx, my };
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++)
            sm[(3 * b + k) * NPAR + 3 * b + k] -= gn * m[k];
#endif
    if (!invert_spd(sm, si)) {
        sd[0] = sd[1] = NAN;
        return;
    }
    for (int out = 0; out < 2; out++) {
        const int i = out == 0 ? 0 : IV;
        real v = 0;
        for (int a = 0; a < NPAR; a++)
            for (int b = 0; b < NPAR; b++)
                v += si[i * NPAR + a] * c[C_Q + a * NPAR + b] * si[b * NPAR + i];
        sd[out] = sqrt(2 * s2 * v);
    }
}

/* The warp as displacement at the centre (t) and gradient A - I (px/px). */
struct warp {
    real u, v, ux, uy, vx, vy;
};

/* W <- W o W(dq)^-1, dq in the scaled parameters. */
static struct warp compose_inverse(struct warp w, const real *dq)
{
#if SHAPE == 0
    w.u -= dq[0];
    w.v -= dq[1];
#else
    /* A_new = A A_d^-1, t_new = t - A A_d^-1 t_d, A = I + grad. */
    const real a11 = 1 + dq[1] / HALF_W, a12 = dq[2] / HALF_H, a21 = dq[4] / HALF_W, a22 = 1 + dq[5] / HALF_H;
    const real det = a11 * a22 - a12 * a21;
    const real i11 = a22 / det, i12 = -a12 / det, i21 = -a21 / det, i22 = a11 / det;
    const real b11 = 1 + w.ux, b12 = w.uy, b21 = w.vx, b22 = 1 + w.vy;
    const real m11 = b11 * i11 + b12 * i21, m12 = b11 * i12 + b12 * i22;
    const real m21 = b21 * i11 + b22 * i21, m22 = b21 * i12 + b22 * i22;
    w.u -= m11 * dq[0] + m12 * dq[3];
    w.v -= m21 * dq[0] + m22 * dq[3];
    w.ux = m11 - 1;
    w.uy = m12;
    w.vx = m21;
    w.vy = m22 - 1;
#endif
    return w;
}

/*
 * icgn_iterate: tile t (image t / nwin, window t % nwin) refined from its
 * start offset against reference window t % nref; src holds the batch's
 * images (or their coefficients).
 */
__kernel __attribute__((reqd_work_group_size(ICGN_WG, 1, 1)))
void icgn_iterate(__global const real *src, int w, int h, __global const int2 *corners, int nwin, int nref,
                  __global const real *fref, __global const real2 *grad, __global const real *consts,
                  __global const real *noise_model, __global const real2 *starts, int max_iter, real tol,
                  __global real *results)
{
    __local real part[CHUNK * ICGN_WG];
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
        for (int i = lid; i < WIN_PIXELS; i += ICGN_WG) {
            const int x = i % WIN_W, y = i / WIN_W;
            const real dx = x - CENTRE_X, dy = y - CENTRE_Y;
            const real px = corner.x + x + wp.u + wp.ux * dx + wp.uy * dy;
            const real py = corner.y + y + wp.v + wp.vx * dx + wp.vy * dy;
            const real gv = sample_at(image, w, h, px, py) - mean;
            real j[NPAR];
            jacobian(g[i], dx / HALF_W, dy / HALF_H, j);
            v[0] += gv;
            v[1] += gv * gv;
            v[2] += f[i] * gv;
            for (int a = 0; a < NPAR; a++)
                v[3 + a] += j[a] * gv;
        }
        group_sums(part, v, NITER, all);
        it++;
        if (lid == 0) {
            const real n = WIN_PIXELS, gm = all[0] / n;
            const real gnorm = sqrt(fmax(all[1] - all[0] * gm, (real)0));
            struct warp nw = wp;
            if (!(gnorm > 0)) {
                state = ICGN_FAILED;
            } else {
                const real a = c[C_NORM] / gnorm;
                real b[NPAR], dq[NPAR], step = 0;
                for (int k = 0; k < NPAR; k++)
                    b[k] = c[C_SUM_JF + k] - a * (all[3 + k] - gm * c[C_SUM_J + k]);
                for (int r = 0; r < NPAR; r++) {
                    real s = 0;
                    for (int k = 0; k < NPAR; k++)
                        s += c[C_HINV + r * NPAR + k] * b[k];
                    dq[r] = -s;
                    step += dq[r] * dq[r];
                }
                last_zncc = all[2] / (c[C_NORM] * gnorm);
                nw = compose_inverse(wp, dq);
                /* A warp beyond a window's size has lost the window. */
                if (!(fabs(nw.u - start.x) <= WIN_W && fabs(nw.v - start.y) <= WIN_H &&
                      fabs(nw.ux) < 1 && fabs(nw.uy) < 1 && fabs(nw.vx) < 1 && fabs(nw.vy) < 1))
                    state = ICGN_FAILED;
                else if (sqrt(step) < tol)
                    state = ICGN_CONVERGED;
                else if (it >= max_iter)
                    state = ICGN_UNCONVERGED;
                shared_warp = nw;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid != 0)
        return;
    const struct warp wf = shared_warp;
    __global real *r = results + (size_t)tile * ICGN_RESULTS;
    real sd[2] = { NAN, NAN };
    if (state != ICGN_FAILED)
        standard_deviations(c, noise_model, 2 * (1 - last_zncc), wf.u, wf.v, sd);
    r[ICGN_R_U] = wf.u;
    r[ICGN_R_V] = wf.v;
    r[ICGN_R_UX] = wf.ux;
    r[ICGN_R_UY] = wf.uy;
    r[ICGN_R_VX] = wf.vx;
    r[ICGN_R_VY] = wf.vy;
    r[ICGN_R_ZNCC] = last_zncc;
    r[ICGN_R_SIGMA_U] = sd[0];
    r[ICGN_R_SIGMA_V] = sd[1];
    r[ICGN_R_ITERATIONS] = it;
    r[ICGN_R_STATUS] = state;
}
