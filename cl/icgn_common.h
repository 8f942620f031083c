/*
 * icgn_common.h - what IC-GN's two forms share (cl/icgn.cl's work-group
 * kernels, cl/icgn_vector.cl's one work-item per tile for CPUs): the shape
 * function's parameters and Jacobian, the consts' layout, one pixel's
 * share of an iteration's sums, the Gauss-Newton step that turns the sums
 * into the next warp, and the result record with its standard deviations.
 * the reference side's per-pixel pieces and consts; cl/icgn.cl says what
 * the algorithm is. Include after common.h, interp.h
 * and icgn_layout.h.
 */
#ifndef CLX_ICGN_COMMON_H
#define CLX_ICGN_COMMON_H

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


/*
 * J = grad f dW/dq at a pixel whose scaled position is (xi, eta), from its
 * slopes gx, gy, into j[NPAR]. Macros, for one pixel in reals or 8 in
 * vectors (cl/icgn_vector.cl) alike; so are the sums below.
 */
#if SHAPE == 0
#define JACOBIAN(gx, gy, xi, eta, j) ((j)[0] = (gx), (j)[1] = (gy))
#else
#define JACOBIAN(gx, gy, xi, eta, j)                                                                                  \
    ((j)[0] = (gx), (j)[1] = (gx) * (xi), (j)[2] = (gx) * (eta), (j)[3] = (gy), (j)[4] = (gy) * (xi),               \
     (j)[5] = (gy) * (eta))
#endif

/* A reference pixel's share of its sums s[NREF]: |f~|^2, H's upper
 * triangle, sum J, sum J f~ (fv: its f~). */
#define ADD_REFERENCE_SUMS(s, j, fv)                                                                                  \
    do {                                                                                                             \
        (s)[0] += (fv) * (fv);                                                                                       \
        int n_ = 1;                                                                                                  \
        for (int a_ = 0; a_ < NPAR; a_++)                                                                            \
            for (int b_ = a_; b_ < NPAR; b_++)                                                                       \
                (s)[n_++] += (j)[a_] * (j)[b_];                                                                      \
        for (int a_ = 0; a_ < NPAR; a_++) {                                                                          \
            (s)[1 + NH + a_] += (j)[a_];                                                                             \
            (s)[1 + NH + NPAR + a_] += (j)[a_] * (fv);                                                               \
        }                                                                                                            \
    } while (0)

/* A pixel's share of Q's upper triangle q[NH] from its J and the J of its
 * smoothed gradients, js (add_noise_pixel says what Q is). */
#define ADD_Q_SUMS(q, j, js)                                                                                          \
    do {                                                                                                             \
        int n_ = 0;                                                                                                  \
        for (int a_ = 0; a_ < NPAR; a_++)                                                                            \
            for (int b_ = a_; b_ < NPAR; b_++)                                                                       \
                (q)[n_++] += (real)0.5 * ((j)[a_] * (js)[b_] + (j)[b_] * (js)[a_]);                                  \
    } while (0)

static void jacobian(real2 g, real xi, real eta, real *j)
{
    JACOBIAN(g.x, g.y, xi, eta, j);
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

/* The interpolant's slopes along x and y at the whole pixel (x, y) of a
 * w x h image of values or coefficients (as sample_at reads it). */
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

/* Pixel i's share of Q (noise_hessian_part in cl/icgn.cl says what Q is):
 * its gradient smoothed by rho over the window, times its own, into q. */
static void add_noise_pixel(__global const real2 *g, __global const real *rho, int rho_radius, int i, real *q)
{
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
    ADD_Q_SUMS(q, j, js);
}

/* A reference window's consts (icgn_layout.h) from its sums (NREF: |f~|^2,
 * H's upper triangle, sum J, sum J f~), Q's upper triangle and its mean. */
static void write_consts(__global real *c, const real *all, const real *all_q, real mean)
{
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


/* Where window pixel i is sampled in the image at the warp wp. */
static inline void warped_position(int2 corner, struct warp wp, int i, real *px, real *py)
{
    const int x = i % WIN_W, y = i / WIN_W;
    const real dx = x - CENTRE_X, dy = y - CENTRE_Y;
    *px = corner.x + x + wp.u + wp.ux * dx + wp.uy * dy;
    *py = corner.y + y + wp.v + wp.vx * dx + wp.vy * dy;
}

/* Pixel i's share of an iteration's sums v[NITER], its sample at the warp
 * less the reference's mean being gv. */
static inline void add_sample(real gv, __global const real *f, __global const real2 *g, int i, real *v)
{
    const int x = i % WIN_W, y = i / WIN_W;
    real j[NPAR];
    jacobian(g[i], (x - CENTRE_X) / HALF_W, (y - CENTRE_Y) / HALF_H, j);
    v[0] += gv;
    v[1] += gv * gv;
    v[2] += f[i] * gv;
    for (int a = 0; a < NPAR; a++)
        v[3 + a] += j[a] * gv;
}

/* Pixel i's share of an iteration's sums v[NITER] at the warp wp: the
 * image sampled at the warped position, less the reference's mean. */
static void add_pixel(__global const real *image, int w, int h, int2 corner, struct warp wp, real mean,
                      __global const real *f, __global const real2 *g, int i, real *v)
{
    real px, py;
    warped_position(corner, wp, i, &px, &py);
    add_sample(sample_at(image, w, h, px, py) - mean, f, g, i, v);
}

/*
 * One Gauss-Newton step from iteration `it`'s sums (NITER, over the whole
 * window) against the reference's consts c: *w becomes the next warp and
 * *zncc the ZNCC at the warp the sums were taken at. Returns -1 to go on,
 * else the tile's status.
 */
static int icgn_step(const real *sums, __global const real *c, real2 start, int it, int max_iter, real tol,
                     struct warp *w, real *zncc)
{
    const real n = WIN_PIXELS, gm = sums[0] / n;
    const real gnorm = sqrt(fmax(sums[1] - sums[0] * gm, (real)0));
    if (!(gnorm > 0))
        return ICGN_FAILED;
    const real a = c[C_NORM] / gnorm;
    real b[NPAR], dq[NPAR], step = 0;
    for (int k = 0; k < NPAR; k++)
        b[k] = c[C_SUM_JF + k] - a * (sums[3 + k] - gm * c[C_SUM_J + k]);
    for (int r = 0; r < NPAR; r++) {
        real s = 0;
        for (int k = 0; k < NPAR; k++)
            s += c[C_HINV + r * NPAR + k] * b[k];
        dq[r] = -s;
        step += dq[r] * dq[r];
    }
    *zncc = sums[2] / (c[C_NORM] * gnorm);
    const struct warp nw = compose_inverse(*w, dq);
    *w = nw;
    /* A warp beyond a window's size has lost the window. */
    if (!(fabs(nw.u - start.x) <= WIN_W && fabs(nw.v - start.y) <= WIN_H && fabs(nw.ux) < 1 && fabs(nw.uy) < 1 &&
          fabs(nw.vx) < 1 && fabs(nw.vy) < 1))
        return ICGN_FAILED;
    if (sqrt(step) < tol)
        return ICGN_CONVERGED;
    if (it >= max_iter)
        return ICGN_UNCONVERGED;
    return -1;
}

/* The tile's result record (icgn_layout.h) from its final warp. */
static void write_result(__global real *r, int state, struct warp wf, real zncc, int it, __global const real *c,
                         __global const real *noise_model)
{
    real sd[2] = { NAN, NAN };
    if (state != ICGN_FAILED)
        standard_deviations(c, noise_model, 2 * (1 - zncc), wf.u, wf.v, sd);
    r[ICGN_R_U] = wf.u;
    r[ICGN_R_V] = wf.v;
    r[ICGN_R_UX] = wf.ux;
    r[ICGN_R_UY] = wf.uy;
    r[ICGN_R_VX] = wf.vx;
    r[ICGN_R_VY] = wf.vy;
    r[ICGN_R_ZNCC] = zncc;
    r[ICGN_R_SIGMA_U] = sd[0];
    r[ICGN_R_SIGMA_V] = sd[1];
    r[ICGN_R_ITERATIONS] = it;
    r[ICGN_R_STATUS] = state;
}

#endif
