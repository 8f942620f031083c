/*
 * test_bspline.c - the B-spline interpolations against a host reference:
 *   - the prefilter (cl/bspline_prefilter.cl, ops/bspline_prefilter.c)
 *     gives the coefficients the host's recursion gives, and the spline they
 *     define passes through every pixel (re-evaluated at whole pixels, on
 *     the host, with the mirror boundary): cubic and quintic, float and
 *     double, images from 1x1 to 97x83 (lines shorter and longer than the
 *     recursion's horizon), a batch of two different images; every kernel
 *     form (bspline_form 0, the pre-filter's separable kernels, as on GPUs,
 *     and 1, on CPU devices the recursive ones for the cubic and the vector
 *     FIR for the quintic);
 *   - sample_windows (cl/sample_windows.cl) on those coefficients matches
 *     the host's evaluation of the same spline at fractional offsets, at
 *     integer offsets (which must give the pixels back, not copy
 *     coefficients) and with taps past the image's edges.
 * Tolerances: 1e-5 (float) or 1e-10 (double) of the image's largest value
 * for the prefilter, 1e-4 (float) or 1e-10 (double) for the sampling.
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
#include "runtime/context.h"
#include "runtime/program_build.h"
#include "test_data.h"

/* ---- the host reference -------------------------------------------------- */

static double beta(double t, int interp)
{
    t = fabs(t);
    if (interp == INTERP_BSPLINE3) {
        if (t < 1)
            return 2.0 / 3 - t * t + t * t * t / 2;
        return t < 2 ? pow(2 - t, 3) / 6 : 0;
    }
    /* beta5 as the sum of truncated powers: an independent form of interp.h's pieces. */
    static const double binomial[7] = { 1, 6, 15, 20, 15, 6, 1 };
    double sum = 0;
    for (int k = 0; k <= 6; k++) {
        double u = t + 3 - k;
        if (u > 0)
            sum += (k % 2 ? -1 : 1) * binomial[k] * pow(u, 5);
    }
    return t < 3 ? sum / 120 : 0;
}

/* "101" mirroring, as the prefilter assumes and sample_windows reads. */
static int mirror(int i, int n)
{
    if (n == 1)
        return 0;
    int period = 2 * (n - 1);
    i = abs(i) % period;
    return i < n ? i : period - i;
}

/* One line to coefficients, in double: Unser's recursion, summing the
 * causal start over the mirrored line in full (no horizon). */
static void line_ref(double *c, int n, int interp)
{
    const double cubic[] = { sqrt(3.0) - 2 };
    const double quintic[] = { -0.430575347099973791851434783493520, -0.043096288203264653822712376822550 };
    const double *poles = interp == INTERP_BSPLINE3 ? cubic : quintic;
    int npoles = interp == INTERP_BSPLINE3 ? 1 : 2;
    if (n == 1)
        return;
    double gain = 1;
    for (int p = 0; p < npoles; p++)
        gain *= (1 - poles[p]) * (1 - 1 / poles[p]);
    for (int k = 0; k < n; k++)
        c[k] *= gain;
    for (int p = 0; p < npoles; p++) {
        double z = poles[p], sum = 0;
        /* sum over k >= 0 of z^k s[mirror(k)], until z^k is below 1e-20 */
        for (int k = 0; pow(fabs(z), k) > 1e-20; k++)
            sum += pow(z, k) * c[mirror(k, n)];
        c[0] = sum;
        for (int k = 1; k < n; k++)
            c[k] += z * c[k - 1];
        c[n - 1] = z / (z * z - 1) * (z * c[n - 2] + c[n - 1]);
        for (int k = n - 2; k >= 0; k--)
            c[k] = z * (c[k + 1] - c[k]);
    }
}

/* The coefficients of a w x h image: rows, then columns. */
static void prefilter_ref(const double *img, int w, int h, int interp, double *c)
{
    double *line = malloc(sizeof *line * (w > h ? w : h));
    memcpy(c, img, sizeof *c * w * h);
    for (int y = 0; y < h; y++)
        line_ref(c + (size_t)y * w, w, interp);
    for (int x = 0; x < w; x++) {
        for (int y = 0; y < h; y++)
            line[y] = c[(size_t)y * w + x];
        line_ref(line, h, interp);
        for (int y = 0; y < h; y++)
            c[(size_t)y * w + x] = line[y];
    }
    free(line);
}

/* The spline at (x, y): every coefficient within the support, mirrored
 * outside the image. */
static double spline_at(const double *c, int w, int h, int interp, double x, double y)
{
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double sum = 0;
    for (int j = y0 - 3; j <= y0 + 4; j++) {
        double by = beta(y - j, interp);
        if (by == 0)
            continue;
        for (int i = x0 - 3; i <= x0 + 4; i++)
            sum += by * beta(x - i, interp) * c[(size_t)mirror(j, h) * w + mirror(i, w)];
    }
    return sum;
}

/* ---- the device ---------------------------------------------------------- */

static cl_mem upload(clx_context *ctx, const double *v, size_t n, int use_double)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    void *raw = malloc(rs * n);
    for (size_t i = 0; i < n; i++) {
        if (use_double)
            ((double *)raw)[i] = v[i];
        else
            ((float *)raw)[i] = (float)v[i];
    }
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rs * n, raw, &err);
    free(raw);
    CHECK(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    return err == CL_SUCCESS ? m : NULL;
}

static double *download(clx_context *ctx, cl_mem m, size_t n, int use_double)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    void *raw = malloc(rs * n);
    double *v = calloc(n, sizeof *v);
    cl_int err = clEnqueueReadBuffer(ctx->queue, m, CL_TRUE, 0, rs * n, raw, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);
    for (size_t i = 0; err == CL_SUCCESS && i < n; i++)
        v[i] = use_double ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    return v;
}

/* A smooth pattern (wavelengths of 20 px and more) with a little
 * pseudo-random texture, different for each seed. */
static void image_make(double *img, int w, int h, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            s = s * 1664525u + 1013904223u;
            img[(size_t)y * w + x] = 1000 + 300 * sin(0.3 * x + 0.1 * y + seed) + 200 * cos(0.15 * x - 0.25 * y) +
                                     50.0 * (s >> 8) / (1u << 24);
        }
}

static double largest(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i]) > m)
            m = fabs(v[i]);
    return m;
}

static const char *interp_name(int interp)
{
    return interp == INTERP_BSPLINE3 ? "bspline3" : "bspline5";
}

/* ---- the prefilter ------------------------------------------------------- */

static void test_prefilter(clx_context *ctx, int interp, int use_double, int form, int w, int h, int nimages)
{
    struct kernel_params p;
    struct bspline_prefilter *bp = NULL;
    size_t px = (size_t)w * h, n = px * nimages;
    double tol = use_double ? 1e-10 : 1e-5;
    kernel_params_defaults(&p, &ctx->dev);
    p.win_w = p.win_h = 8;
    p.interp = interp;
    p.use_double = use_double;
    p.bspline_form = form;
    double *img = malloc(sizeof *img * n), *ref = malloc(sizeof *ref * n);
    for (int i = 0; i < nimages; i++)
        image_make(img + i * px, w, h, (unsigned)i);
    cl_mem in = upload(ctx, img, n, use_double), out = upload(ctx, img, n, use_double);
    int status = bspline_prefilter_create(ctx, &p, &bp);
    CHECK(status == CLX_OK, "bspline_prefilter_create: %s", clx_context_message(ctx));
    if (status == CLX_OK && in && out &&
        bspline_prefilter_enqueue(bp, in, w, h, nimages, out) == CLX_OK) {
        double *c = download(ctx, out, n, use_double);
        double worst_c = 0, worst_px = 0, scale = largest(img, n);
        for (int i = 0; i < nimages; i++) {
            prefilter_ref(img + i * px, w, h, interp, ref + i * px);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    size_t k = i * px + (size_t)y * w + x;
                    worst_c = fmax(worst_c, fabs(c[k] - ref[k]));
                    worst_px = fmax(worst_px, fabs(spline_at(c + i * px, w, h, interp, x, y) - img[k]));
                }
        }
        CHECK(worst_c <= tol * scale, "%s %s form %d %dx%dx%d: coefficients off the host's by %.3g (of %.3g)",
              interp_name(interp), use_double ? "double" : "float", form, w, h, nimages, worst_c, scale);
        CHECK(worst_px <= tol * scale, "%s %s form %d %dx%dx%d: the spline misses a pixel by %.3g (of %.3g)",
              interp_name(interp), use_double ? "double" : "float", form, w, h, nimages, worst_px, scale);
        free(c);
    } else if (status == CLX_OK) {
        CHECK(0, "bspline_prefilter_enqueue: %s", clx_context_message(ctx));
    }
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    bspline_prefilter_destroy(bp);
    free(img);
    free(ref);
}

/* ---- sampling the coefficients ------------------------------------------- */

#define W 97
#define H 83
#define WIN 16

static void test_sampling(clx_context *ctx, int interp, int use_double)
{
    /* Window corners and offsets: fractional, integer (the pixels must
     * come back), negative, and reaching past each edge. */
    static const int corners[][2] = { { 40, 30 }, { 20, 50 }, { 60, 10 }, { 0, 0 }, { W - WIN, H - WIN }, { 5, 40 } };
    static const double offsets[][2] = { { 0.3, 0.7 }, { 3, -2 }, { -1.25, 0.05 }, { -1.5, -2.75 }, { 1.6, 2.4 },
                                         { 0, 0 } };
    enum { NWIN = sizeof corners / sizeof corners[0] };
    struct kernel_params p;
    struct bspline_prefilter *bp = NULL;
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    size_t n = (size_t)W * H, rs = use_double ? sizeof(double) : sizeof(float);
    double tol = use_double ? 1e-10 : 1e-4;
    kernel_params_defaults(&p, &ctx->dev);
    p.win_w = p.win_h = WIN;
    p.interp = interp;
    p.use_double = use_double;

    double img[W * H], ref[W * H], offs[2 * NWIN];
    cl_int2 corner_ints[NWIN];
    image_make(img, W, H, 7);
    prefilter_ref(img, W, H, interp, ref);
    for (int t = 0; t < NWIN; t++) {
        corner_ints[t].s[0] = corners[t][0];
        corner_ints[t].s[1] = corners[t][1];
        offs[2 * t] = offsets[t][0];
        offs[2 * t + 1] = offsets[t][1];
    }
    cl_int err;
    cl_mem images = upload(ctx, img, n, use_double), coeffs = upload(ctx, img, n, use_double);
    cl_mem offsets_buf = upload(ctx, offs, 2 * NWIN, use_double);
    cl_mem corners_buf = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof corner_ints,
                                        corner_ints, &err);
    cl_mem tiles = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, rs * NWIN * WIN * WIN, NULL, &err);
    int nwin = NWIN, w = W, h = H;
    cl_mem no_ids = NULL;
    int status = bspline_prefilter_create(ctx, &p, &bp);
    if (status == CLX_OK)
        status = bspline_prefilter_enqueue(bp, images, W, H, 1, coeffs);
    if (status == CLX_OK && (status = program_build_params(ctx, "sample_windows.cl", &p, &program)) == CLX_OK)
        status = kernel_create(ctx, program, "sample_windows", &kernel);
    CHECK(status == CLX_OK, "%s: %s", interp_name(interp), clx_context_message(ctx));
    if (status == CLX_OK) {
        size_t local[3] = { (size_t)p.sample_tx, (size_t)p.sample_ty, 1 };
        size_t global[3] = { (WIN + local[0] - 1) / local[0] * local[0], (WIN + local[1] - 1) / local[1] * local[1],
                             NWIN };
        err = clSetKernelArg(kernel, 0, sizeof coeffs, &coeffs);
        err |= clSetKernelArg(kernel, 1, sizeof w, &w);
        err |= clSetKernelArg(kernel, 2, sizeof h, &h);
        err |= clSetKernelArg(kernel, 3, sizeof corners_buf, &corners_buf);
        err |= clSetKernelArg(kernel, 4, sizeof nwin, &nwin);
        err |= clSetKernelArg(kernel, 5, sizeof offsets_buf, &offsets_buf);
        err |= clSetKernelArg(kernel, 6, sizeof no_ids, &no_ids);
        err |= clSetKernelArg(kernel, 7, sizeof tiles, &tiles);
        CHECK(err == CL_SUCCESS, "clSetKernelArg");
        err = clEnqueueNDRangeKernel(ctx->queue, kernel, 3, NULL, global, local, 0, NULL, NULL);
        CHECK(err == CL_SUCCESS, "clEnqueueNDRangeKernel: %d", err);
        double *got = download(ctx, tiles, (size_t)NWIN * WIN * WIN, use_double), scale = largest(img, n);
        for (int t = 0; t < NWIN; t++) {
            int integer = offsets[t][0] == floor(offsets[t][0]) && offsets[t][1] == floor(offsets[t][1]);
            double worst = 0;
            for (int y = 0; y < WIN; y++)
                for (int x = 0; x < WIN; x++) {
                    double px = corners[t][0] + x + offsets[t][0], py = corners[t][1] + y + offsets[t][1];
                    /* At whole pixels inside the image, the pixels themselves. */
                    double want = integer && px >= 0 && py >= 0 && px < W && py < H
                                      ? img[(size_t)py * W + (size_t)px]
                                      : spline_at(ref, W, H, interp, px, py);
                    worst = fmax(worst, fabs(got[(size_t)t * WIN * WIN + y * WIN + x] - want));
                }
            CHECK(worst <= tol * scale, "%s %s: window at (%d, %d) moved by (%g, %g) off by %.3g (of %.3g)",
                  interp_name(interp), use_double ? "double" : "float", corners[t][0], corners[t][1],
                  offsets[t][0], offsets[t][1], worst, scale);
        }
        free(got);
    }
    cl_mem bufs[] = { images, coeffs, offsets_buf, corners_buf, tiles };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    if (kernel)
        clReleaseKernel(kernel);
    if (program)
        clReleaseProgram(program);
    bspline_prefilter_destroy(bp);
}

int main(void)
{
    clx_context *ctx = NULL;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    /* Sizes: one pixel, lines shorter than the float recursion's horizon
     * (13 terms for the cubic pole) and longer, a batch of two. */
    static const int sizes[][3] = { { 1, 1, 1 }, { 2, 3, 1 }, { 7, 5, 1 }, { 40, 1, 1 }, { 1, 33, 1 },
                                    { 97, 83, 1 }, { 64, 20, 2 } };
    int doubles = ctx->dev.info.has_fp64 ? 2 : 1;
    /* make check-oclgrind (td_simulator): the small sizes only. */
    size_t nsizes = td_simulator() ? 5 : sizeof sizes / sizeof sizes[0];
    /* Both forms of the prefilter on any device: the device's own (the
     * default: the separable kernels on GPUs, the vector ones on CPUs) with
     * the sampling, then the other. */
    struct kernel_params defaults;
    kernel_params_defaults(&defaults, &ctx->dev);
    for (int round = 0; round < 2; round++) {
        const int form = round == 0 ? defaults.bspline_form : 1 - defaults.bspline_form;
        for (int interp = INTERP_BSPLINE3; interp <= INTERP_BSPLINE5; interp++)
            for (int dbl = 0; dbl < doubles; dbl++) {
                for (size_t s = 0; s < nsizes; s++)
                    test_prefilter(ctx, interp, dbl, form, sizes[s][0], sizes[s][1], sizes[s][2]);
                if (round == 0)
                    test_sampling(ctx, interp, dbl);
            }
    }
    /* A prefilter for an interpolation that is no B-spline is refused. */
    struct kernel_params p;
    struct bspline_prefilter *bp = (struct bspline_prefilter *)&p;
    kernel_params_defaults(&p, &ctx->dev);
    p.interp = INTERP_LANCZOS3;
    CHECK(bspline_prefilter_create(ctx, &p, &bp) == CLX_ERR_ARGUMENT && bp == NULL,
          "a Lanczos-3 prefilter was not refused");
    clx_context_release(ctx);
    printf("test_bspline: %s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
