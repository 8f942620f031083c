/*
 * test_icgn.c - IC-GN (cl/icgn.cl, ops/icgn.c) against a host reference:
 *   - the reference side: each window's zero-mean values, gradients and
 *     sums (|f~|, mean, sum J, sum J f~, H and H^-1) match the host's, which
 *     evaluates the same interpolant in double and takes its slopes by
 *     central differences (an independent form of interp.h's
 *     weight_deriv), for every interpolation and both shape functions,
 *     with windows touching the image's edges;
 *   - the noise model: a value at a whole pixel keeps the noise (gain 1),
 *     the gain is symmetric about half a pixel and smallest there, and
 *     Keys' matches the sum of its squared weights;
 *   - the iteration: an analytic texture moved by known sub-pixel shifts
 *     comes back within 0.002 px (B-splines; 0.02 for the others) from a
 *     start half a pixel off, with gradients within 1e-4 for shape 1
 *     (B-splines, windows 8 px from the edge; 1e-3 otherwise; windows
 *     moved past the image's edge only converge); a flat window,
 *     a NaN start and a one-iteration limit give their statuses.
 * Tolerances: 1e-4 relative (float) or 1e-9 (double) for the reference's
 * values; for its slopes and sums 1e-3 (float) or 1e-6 (double) with the
 * B-splines, 5e-4 with the kinked kernels.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ops/bspline_prefilter.h"
#include "ops/icgn.h"
#include "runtime/context.h"
#include "test_data.h"

#define W 72
#define H 64
#define WIN 24
#define NWIN 4

static const int corners[NWIN][2] = { { 20, 18 }, { 0, 0 }, { W - WIN, H - WIN }, { 40, 6 } };

/* ---- the host reference -------------------------------------------------- */

static double kernel_at(int interp, double t)
{
    t = fabs(t);
    switch (interp) {
    case INTERP_KEYS:
        if (t <= 1)
            return (1.5 * t - 2.5) * t * t + 1;
        return t < 2 ? ((-0.5 * t + 2.5) * t - 4) * t + 2 : 0;
    case INTERP_LANCZOS3:
        if (t < 1e-12)
            return 1;
        return t < 3 ? 3 * sin(M_PI * t) * sin(M_PI * t / 3) / (M_PI * M_PI * t * t) : 0;
    case INTERP_BSPLINE3:
        if (t < 1)
            return 2.0 / 3 - t * t + t * t * t / 2;
        return t < 2 ? pow(2 - t, 3) / 6 : 0;
    default: {
        /* beta5 as truncated powers, independent of interp.h's pieces. */
        static const double binomial[7] = { 1, 6, 15, 20, 15, 6, 1 };
        double sum = 0;
        for (int k = 0; k <= 6; k++) {
            double u = t + 3 - k;
            if (u > 0)
                sum += (k % 2 ? -1 : 1) * binomial[k] * pow(u, 5);
        }
        return t < 3 ? sum / 120 : 0;
    }
    }
}

static int is_bspline(int interp)
{
    return interp == INTERP_BSPLINE3 || interp == INTERP_BSPLINE5;
}

/* Where a tap outside the image reads: the edge (pixels) or the mirror (coefficients). */
static int tap(int i, int n, int interp)
{
    if (!is_bspline(interp))
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    int period = 2 * (n - 1);
    i = abs(i) % period;
    return i < n ? i : period - i;
}

/* The interpolant at (x, y) of src (pixels, or the B-splines' coefficients). */
static double value_at(const double *src, int interp, double x, double y)
{
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double sum = 0, sx = 0, sy = 0;
    for (int i = x0 - 3; i <= x0 + 4; i++)
        sx += kernel_at(interp, x - i);
    for (int j = y0 - 3; j <= y0 + 4; j++) {
        double wy = kernel_at(interp, y - j);
        sy += wy;
        for (int i = x0 - 3; i <= x0 + 4; i++)
            sum += wy * kernel_at(interp, x - i) * src[tap(j, H, interp) * W + tap(i, W, interp)];
    }
    return sum / (sx * sy);
}

/* The reference side of one window on the host, in double (layout of icgn_layout.h). */
static void reference_ref(const double *src, int interp, int shape, int win, double *f, double *g, double *consts)
{
    int npar = ICGN_NPAR(shape), n = WIN * WIN;
    double mean = 0, norm2 = 0, h[36] = { 0 }, sum_j[6] = { 0 }, sum_jf[6] = { 0 };
    const double step = 1e-4, half = WIN / 2.0, centre = (WIN - 1) / 2.0;
    for (int i = 0; i < n; i++)
        mean += value_at(src, interp, corners[win][0] + i % WIN, corners[win][1] + i / WIN) / n;
    for (int i = 0; i < n; i++) {
        double x = corners[win][0] + i % WIN, y = corners[win][1] + i / WIN;
        double gx = (value_at(src, interp, x + step, y) - value_at(src, interp, x - step, y)) / (2 * step);
        double gy = (value_at(src, interp, x, y + step) - value_at(src, interp, x, y - step)) / (2 * step);
        double xi = (i % WIN - centre) / half, eta = (i / WIN - centre) / half;
        double j[6] = { gx, gx * xi, gx * eta, gy, gy * xi, gy * eta };
        if (shape == 0)
            j[1] = gy;
        f[i] = value_at(src, interp, x, y) - mean;
        g[2 * i] = gx;
        g[2 * i + 1] = gy;
        norm2 += f[i] * f[i];
        for (int a = 0; a < npar; a++) {
            sum_j[a] += j[a];
            sum_jf[a] += j[a] * f[i];
            for (int b = 0; b < npar; b++)
                h[a * npar + b] += j[a] * j[b];
        }
    }
    consts[ICGN_C_NORM] = sqrt(norm2);
    consts[ICGN_C_MEAN] = mean;
    consts[ICGN_C_USABLE] = 1;
    for (int a = 0; a < npar; a++) {
        consts[ICGN_C_SUM_J + a] = sum_j[a];
        consts[ICGN_C_SUM_JF(npar) + a] = sum_jf[a];
    }
    for (int k = 0; k < npar * npar; k++)
        consts[ICGN_C_H(npar) + k] = h[k];
}

/* ---- the device ---------------------------------------------------------- */

static size_t rsize(int use_double)
{
    return use_double ? sizeof(double) : sizeof(float);
}

static cl_mem upload(clx_context *ctx, const double *v, size_t n, int use_double)
{
    void *raw = malloc(rsize(use_double) * n);
    for (size_t i = 0; i < n; i++) {
        if (use_double)
            ((double *)raw)[i] = v[i];
        else
            ((float *)raw)[i] = (float)v[i];
    }
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rsize(use_double) * n, raw, &err);
    free(raw);
    CHECK(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    return err == CL_SUCCESS ? m : NULL;
}

static double *download(clx_context *ctx, cl_mem m, size_t n, int use_double)
{
    void *raw = malloc(rsize(use_double) * n);
    double *v = calloc(n, sizeof *v);
    cl_int err = clEnqueueReadBuffer(ctx->queue, m, CL_TRUE, 0, rsize(use_double) * n, raw, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);
    for (size_t i = 0; err == CL_SUCCESS && i < n; i++)
        v[i] = use_double ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    return v;
}

/* The textured test image moved by (dx, dy), as doubles. */
static void texture(double *out, double dx, double dy)
{
    clx_image img;
    td_textured_image(&img, W, H, CLX_PIXEL_F32, dx, dy, 11);
    for (int i = 0; i < W * H; i++)
        out[i] = ((const float *)img.pixels)[i];
    clx_image_free(&img);
}

/* One job: the kernel parameters, the windows' corners, the IC-GN object
 * and (for the B-splines) the prefilter. */
struct job {
    clx_context *ctx;
    struct kernel_params p;
    struct bspline_prefilter *bp;
    struct icgn *g;
    cl_mem corners;
};

static int job_open(struct job *j, clx_context *ctx, int interp, int shape, int use_double, int ntiles)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    kernel_params_defaults(&j->p, &ctx->dev);
    j->p.win_w = j->p.win_h = WIN;
    j->p.interp = interp;
    j->p.shape = shape;
    j->p.use_double = use_double;
    cl_int2 c[NWIN];
    for (int k = 0; k < NWIN; k++) {
        c[k].s[0] = corners[k][0];
        c[k].s[1] = corners[k][1];
    }
    cl_int err;
    j->corners = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof c, c, &err);
    int status = err == CL_SUCCESS ? CLX_OK : CLX_ERR_DEVICE_MEMORY;
    if (status == CLX_OK && is_bspline(interp))
        status = bspline_prefilter_create(ctx, &j->p, &j->bp);
    struct icgn_noise_filters noise = { NULL, 0, j->bp ? j->bp->taps_host : NULL, j->bp ? j->bp->radius : 0 };
    if (status == CLX_OK)
        status = icgn_create(ctx, &j->p, NWIN, NWIN, ntiles, &noise, &j->g);
    CHECK(status == CLX_OK, "interp %d shape %d: %s", interp, shape, clx_context_message(ctx));
    return status;
}

static void job_close(struct job *j)
{
    icgn_destroy(j->g);
    bspline_prefilter_destroy(j->bp);
    if (j->corners)
        clReleaseMemObject(j->corners);
}

/* The images on the device as IC-GN reads them: coefficients for the
 * B-splines, else the pixels. Also the host's copy of the same. */
static cl_mem source(struct job *j, const double *pixels, int nimages, double *host_source)
{
    size_t n = (size_t)W * H * nimages;
    cl_mem in = upload(j->ctx, pixels, n, j->p.use_double);
    if (!j->bp || !in) {
        memcpy(host_source, pixels, sizeof *pixels * n);
        return in;
    }
    cl_mem out = upload(j->ctx, pixels, n, j->p.use_double);
    CHECK(bspline_prefilter_enqueue(j->bp, in, W, H, nimages, out) == CLX_OK, "prefilter: %s",
          clx_context_message(j->ctx));
    double *c = download(j->ctx, out, n, j->p.use_double);
    memcpy(host_source, c, sizeof *c * n);
    free(c);
    clReleaseMemObject(in);
    return out;
}

static const char *interp_name(int interp)
{
    static const char *const names[] = { "keys", "lanczos3", "bspline3", "bspline5" };
    return names[interp];
}

/* Worst |a - b| over n values, relative to the largest |b|. */
static double relative_gap(const double *a, const double *b, int n)
{
    double worst = 0, scale = 0;
    for (int i = 0; i < n; i++) {
        worst = fmax(worst, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    return scale > 0 ? worst / scale : worst;
}

/* ---- tests --------------------------------------------------------------- */

static void test_reference(clx_context *ctx, int interp, int shape, int use_double)
{
    struct job j;
    int npar = ICGN_NPAR(shape), nconsts = ICGN_CONSTS(npar), n = WIN * WIN;
    double tol = use_double ? 1e-9 : 1e-4;
    /* The host's slopes are central differences: Keys' and Lanczos' kernels
     * have kinks at whole pixels, where those are good to about 1e-4. */
    double slope_tol = is_bspline(interp) ? (use_double ? 1e-6 : 1e-3) : 5e-4;
    double *img = malloc(sizeof *img * W * H), *src = malloc(sizeof *src * W * H);
    texture(img, 0, 0);
    if (job_open(&j, ctx, interp, shape, use_double, NWIN) == CLX_OK) {
        cl_mem s = source(&j, img, 1, src);
        CHECK(icgn_set_reference(j.g, s, W, H, j.corners, 1) == CLX_OK, "set_reference: %s", clx_context_message(ctx));
        double *f = download(ctx, j.g->fref, (size_t)NWIN * n, use_double);
        double *g = download(ctx, j.g->grad, (size_t)NWIN * n * 2, use_double);
        double *c = download(ctx, j.g->consts, (size_t)NWIN * nconsts, use_double);
        double fr[WIN * WIN], gr[2 * WIN * WIN], cr[ICGN_CONSTS(6)];
        for (int w = 0; w < NWIN; w++) {
            const double *cw = c + (size_t)w * nconsts;
            reference_ref(src, interp, shape, w, fr, gr, cr);
            const char *what = interp_name(interp), *prec = use_double ? "double" : "float";
            CHECK(relative_gap(f + (size_t)w * n, fr, n) <= tol, "%s shape %d %s window %d: f~ off by %.3g", what,
                  shape, prec, w, relative_gap(f + (size_t)w * n, fr, n));
            CHECK(relative_gap(g + (size_t)w * 2 * n, gr, 2 * n) <= slope_tol, "%s shape %d %s window %d: "
                  "gradients off by %.3g", what, shape, prec, w, relative_gap(g + (size_t)w * 2 * n, gr, 2 * n));
            CHECK(fabs(cw[ICGN_C_NORM] - cr[ICGN_C_NORM]) <= tol * cr[ICGN_C_NORM] && cw[ICGN_C_USABLE] == 1,
                  "%s shape %d %s window %d: |f~| %.9g, host %.9g", what, shape, prec, w, cw[ICGN_C_NORM],
                  cr[ICGN_C_NORM]);
            double gap_h = relative_gap(cw + ICGN_C_H(npar), cr + ICGN_C_H(npar), npar * npar);
            double gap_jf = relative_gap(cw + ICGN_C_SUM_JF(npar), cr + ICGN_C_SUM_JF(npar), npar);
            CHECK(gap_h <= slope_tol && gap_jf <= slope_tol * 10, "%s shape %d %s window %d: H off by %.3g, "
                  "sum J f~ by %.3g", what, shape, prec, w, gap_h, gap_jf);
            /* H^-1 H = I. */
            double worst = 0;
            for (int a = 0; a < npar; a++)
                for (int b = 0; b < npar; b++) {
                    double sum = 0;
                    for (int k = 0; k < npar; k++)
                        sum += cw[ICGN_C_HINV(npar) + a * npar + k] * cw[ICGN_C_H(npar) + k * npar + b];
                    worst = fmax(worst, fabs(sum - (a == b)));
                }
            CHECK(worst <= (use_double ? 1e-9 : 1e-3), "%s shape %d %s window %d: H^-1 H is off I by %.3g",
                  what, shape, prec, w, worst);
        }
        free(f);
        free(g);
        free(c);
        if (s)
            clReleaseMemObject(s);
    }
    job_close(&j);
    free(img);
    free(src);
}

static void test_noise_model(clx_context *ctx, int interp)
{
    struct job j;
    if (job_open(&j, ctx, interp, 0, 0, NWIN) == CLX_OK) {
        double *m = download(ctx, j.g->noise_model, ICGN_MODEL_SIZE, 0);
        const double *kappa = m + ICGN_MODEL_KAPPA;
        const char *what = interp_name(interp);
        CHECK(fabs(kappa[0] - 1) < 1e-4 && fabs(kappa[ICGN_KAPPA_STEPS] - 1) < 1e-4,
              "%s: noise gain %g at a whole pixel, %g a pixel on", what, kappa[0], kappa[ICGN_KAPPA_STEPS]);
        for (int i = 0; i <= ICGN_KAPPA_STEPS; i++)
            CHECK(fabs(kappa[i] - kappa[ICGN_KAPPA_STEPS - i]) < 1e-4 && kappa[i] >= kappa[ICGN_KAPPA_STEPS / 2] - 1e-6,
                  "%s: noise gain %g at %d/64 (%g at the mirror, %g at half)", what, kappa[i], i,
                  kappa[ICGN_KAPPA_STEPS - i], kappa[ICGN_KAPPA_STEPS / 2]);
        CHECK(m[ICGN_MODEL_DERIV] >= 0.5 && m[ICGN_MODEL_DERIV] < 4, "%s: derivative noise gain %g", what,
              m[ICGN_MODEL_DERIV]);
        if (interp == INTERP_KEYS) {
            /* Keys at half a pixel: weights -1/16, 9/16, 9/16, -1/16. */
            double want = 2 * (1.0 / 256 + 81.0 / 256);
            CHECK(fabs(kappa[ICGN_KAPPA_STEPS / 2] - want) < 1e-5, "keys: noise gain %g at half, want %g",
                  kappa[ICGN_KAPPA_STEPS / 2], want);
        }
        free(m);
    }
    job_close(&j);
}

/* Refines a texture moved by each of a few shifts, from half a pixel off. */
static void test_iterate(clx_context *ctx, int interp, int shape, int use_double)
{
    static const double shifts[][2] = { { 0.37, -0.81 }, { -1.25, 0.5 }, { 0.05, 0.95 } };
    enum { NIMG = 3 };
    struct job j;
    int ntiles = NIMG * NWIN;
    double *ref = malloc(sizeof *ref * W * H), *moved = malloc(sizeof *moved * W * H * NIMG);
    double *host = malloc(sizeof *host * W * H * NIMG);
    double su[NIMG * NWIN], sv[NIMG * NWIN];
    struct icgn_result out[NIMG * NWIN];
    texture(ref, 0, 0);
    for (int k = 0; k < NIMG; k++)
        texture(moved + (size_t)k * W * H, shifts[k][0], shifts[k][1]);
    for (int t = 0; t < ntiles; t++) {
        su[t] = shifts[t / NWIN][0] + 0.45;
        sv[t] = shifts[t / NWIN][1] - 0.45;
    }
    if (job_open(&j, ctx, interp, shape, use_double, ntiles) == CLX_OK) {
        cl_mem r = source(&j, ref, 1, host), m = source(&j, moved, NIMG, host);
        int status = icgn_set_reference(j.g, r, W, H, j.corners, 1);
        if (status == CLX_OK)
            status = icgn_run(j.g, m, W, H, j.corners, ntiles, su, sv, 20, 1e-4, out);
        CHECK(status == CLX_OK, "%s: %s", interp_name(interp), clx_context_message(ctx));
        /* The B-splines have almost no bias; the others their known few
         * thousandths, and shape 1 turns theirs into gradients too. */
        double tol = is_bspline(interp) ? 0.002 : 0.02;
        for (int t = 0; status == CLX_OK && t < ntiles; t++) {
            const double *want = shifts[t / NWIN];
            double du = out[t].u - want[0], dv = out[t].v - want[1];
            /* A window moved past the image's edge reads repeated or
             * mirrored values there (the pipeline flags it): only its status counts. */
            int x = corners[t % NWIN][0], y = corners[t % NWIN][1];
            if (x + floor(want[0]) < 0 || y + floor(want[1]) < 0 || x + WIN + ceil(want[0]) > W ||
                y + WIN + ceil(want[1]) > H) {
                CHECK(out[t].status == ICGN_CONVERGED, "%s shape %d: tile %d at the edge: status %d",
                      interp_name(interp), shape, t, out[t].status);
                continue;
            }
            double grad = fmax(fmax(fabs(out[t].ux), fabs(out[t].uy)), fmax(fabs(out[t].vx), fabs(out[t].vy)));
            /* Coefficients near the edge are the mirrored image's, not the texture's. */
            int inner = x >= 8 && y >= 8 && x + WIN <= W - 8 && y + WIN <= H - 8;
            double grad_tol = is_bspline(interp) && inner ? 1e-4 : 1e-3;
            CHECK(out[t].status == ICGN_CONVERGED && fabs(du) <= tol && fabs(dv) <= tol && grad <= grad_tol &&
                      out[t].zncc > 0.999 && out[t].iterations >= 2,
                  "%s shape %d %s: tile %d (window at %d, %d) moved (%g, %g): status %d after %d iterations, "
                  "errors (%.4f, %.4f), gradients up to %.2g, zncc %.6f", interp_name(interp), shape,
                  use_double ? "double" : "float", t, corners[t % NWIN][0], corners[t % NWIN][1], want[0], want[1],
                  out[t].status, out[t].iterations, du, dv, grad, out[t].zncc);
        }
        /* A NaN start fails; a single iteration cannot converge from half a pixel off. */
        su[0] = NAN;
        if (status == CLX_OK && icgn_run(j.g, m, W, H, j.corners, ntiles, su, sv, 1, 1e-4, out) == CLX_OK)
            CHECK(out[0].status == ICGN_FAILED && out[1].status == ICGN_UNCONVERGED && out[1].iterations == 1,
                  "NaN start: status %d; one iteration: status %d after %d", out[0].status, out[1].status,
                  out[1].iterations);
        if (r)
            clReleaseMemObject(r);
        if (m)
            clReleaseMemObject(m);
    }
    job_close(&j);
    free(ref);
    free(moved);
    free(host);
}

/* A flat reference window cannot be matched: its tiles fail. */
static void test_flat(clx_context *ctx)
{
    struct job j;
    double *flat = malloc(sizeof *flat * W * H), *host = malloc(sizeof *host * W * H);
    double su[NWIN] = { 0 }, sv[NWIN] = { 0 };
    struct icgn_result out[NWIN];
    for (int i = 0; i < W * H; i++)
        flat[i] = 1234;
    if (job_open(&j, ctx, INTERP_BSPLINE3, 1, 0, NWIN) == CLX_OK) {
        cl_mem s = source(&j, flat, 1, host);
        if (icgn_set_reference(j.g, s, W, H, j.corners, 1) == CLX_OK &&
            icgn_run(j.g, s, W, H, j.corners, NWIN, su, sv, 10, 1e-3, out) == CLX_OK)
            for (int t = 0; t < NWIN; t++)
                CHECK(out[t].status == ICGN_FAILED, "flat window %d: status %d", t, out[t].status);
        if (s)
            clReleaseMemObject(s);
    }
    job_close(&j);
    free(flat);
    free(host);
}

int main(void)
{
    clx_context *ctx = NULL;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    int doubles = ctx->dev.info.has_fp64 ? 2 : 1;
    for (int interp = INTERP_KEYS; interp <= INTERP_BSPLINE5; interp++) {
        test_noise_model(ctx, interp);
        for (int shape = 0; shape <= 1; shape++)
            for (int dbl = 0; dbl < doubles; dbl++) {
                test_reference(ctx, interp, shape, dbl);
                test_iterate(ctx, interp, shape, dbl);
            }
    }
    test_flat(ctx);
    clx_context_release(ctx);
    printf("test_icgn: %s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
