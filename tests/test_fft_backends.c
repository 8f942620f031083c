/*
 * test_fft_backends.c - every FFT backend built in (src/ops/fft_plan.h) on the
 * device of the run: R2C and C2C forward against a direct host DFT (small
 * sizes), C2R(R2C(x)) = x and C2C inverse(C2C forward(z)) = z, batches
 * whose members differ, a plan run on other buffers, forward transforms
 * leaving their input alone, in float and (where the device has fp64)
 * double; VkFFT and clxcorr's own backends against clFFT on a larger
 * batch; and the correlation stage with fft=vkfft, fft=cpu and fft=local
 * (whose correlates fuse the multiply into the transforms) against
 * fft=clfft through the public API. The cpu and local backends (real
 * transforms only, half-spectrum layouts of their own) are compared after
 * their spectra are put in the libraries' layout, and their R2C reading
 * only part of the input against one reading all of it. In a build without VkFFT, fft=vkfft must fail with
 * its one-line message.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "device_read.h"
#include "ops/correlator.h"
#include "ops/fft_plan.h"
#include "params/kernel_params.h"
#include "runtime/context.h"
#include "test_data.h"

static const char *const backend_names[] = { "clfft", "vkfft", "cpu", "local" };

/*
 * The contract checks, in float and, where the device has fp64, double.
 * clFFT's kernels take PoCL 2 to 10 s per length to compile (VkFFT's under
 * 3 s) and test_stages checks clFFT at many lengths through the
 * correlations, so the longer lengths run on VkFFT alone here; the
 * 200x200 float round trips of both are in check_agree. 14 x 24 puts the
 * cpu backend's radix-7 and radix-8 passes against the host DFT.
 */
static const struct {
    int nx, ny, batch;
    int with_dft;               /* against the host DFT, not only the round trip */
    int skip_clfft;             /* VkFFT only (see above) */
    int double_only;
} cases[] = {
    { 12, 10, 3, 1, 0, 0 },
    { 30, 18, 2, 1, 1, 0 },
    { 14, 24, 2, 1, 1, 0 },
    { 200, 200, 2, 0, 1, 1 },
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(struct clx_context *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, clx_context_message(ctx));
    exit(1);
}

/* A device buffer of `count` reals (float or double) or, with values, filled from them. */
static cl_mem buffer_of(struct clx_context *ctx, size_t count, int use_double, const double *values)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, rs * count, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        exit(1);
    }
    if (values) {
        void *raw = malloc(rs * count);
        for (size_t i = 0; i < count; i++) {
            if (use_double)
                ((double *)raw)[i] = values[i];
            else
                ((float *)raw)[i] = (float)values[i];
        }
        if (clEnqueueWriteBuffer(ctx->queue, m, CL_TRUE, 0, rs * count, raw, 0, NULL, NULL) != CL_SUCCESS) {
            fprintf(stderr, "clEnqueueWriteBuffer failed\n");
            exit(1);
        }
        free(raw);
    }
    return m;
}

/* `batch` arrays of nx x ny values in [-1, 1), each from its own seed;
 * complex values (re, im) with `complex_values`. */
static double *random_values(int nx, int ny, int batch, int complex_values, uint64_t seed)
{
    size_t n = (size_t)nx * ny * batch * (complex_values ? 2 : 1);
    double *x = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++)
        x[i] = 2 * td_uniform(&seed) - 1;
    return x;
}

/* The spectrum of one nx x ny array of reals (the half-spectrum, rows of
 * nx / 2 + 1) or of complex values (rows of nx) by the direct sum,
 * interleaved (re, im); twiddles from exact integer phases. */
static void host_dft(const double *x, int nx, int ny, int complex_signal, double *spectrum)
{
    const double two_pi = 6.283185307179586476925286766559;
    int hx = complex_signal ? nx : nx / 2 + 1;
    for (int ky = 0; ky < ny; ky++)
        for (int kx = 0; kx < hx; kx++) {
            double re = 0, im = 0;
            for (int y = 0; y < ny; y++)
                for (int xx = 0; xx < nx; xx++) {
                    /* phase = kx xx / nx + ky y / ny, reduced exactly over nx ny */
                    long turn = ((long)kx * xx * ny + (long)ky * y * nx) % ((long)nx * ny);
                    double a = two_pi * (double)turn / ((double)nx * ny);
                    size_t i = (size_t)y * nx + xx;
                    double xr = complex_signal ? x[2 * i] : x[i], xi = complex_signal ? x[2 * i + 1] : 0;
                    re += xr * cos(a) + xi * sin(a);
                    im += xi * cos(a) - xr * sin(a);
                }
            spectrum[2 * ((size_t)ky * hx + kx)] = re;
            spectrum[2 * ((size_t)ky * hx + kx) + 1] = im;
        }
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(a[i] - b[i]));
    return worst;
}

static double l2_norm(const double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * a[i];
    return sqrt(s);
}

/*
 * `batch` half-spectra of the cpu backend (per array nx rows of `pitch`
 * complex values, row kx holding ky = 0..ny/2) in the libraries' layout
 * (rows ky of nx / 2 + 1 values kx), the rest by Hermitian symmetry:
 * X(kx, ky) = conj(X(-kx, -ky)).
 */
static double *cpu_to_library_layout(const double *cpu, int nx, int ny, int batch)
{
    size_t pitch = fft_backend_cpu.spectrum_elements(nx, ny) / (size_t)nx, hx = (size_t)nx / 2 + 1;
    double *lib = malloc(sizeof(double) * 2 * hx * ny * batch);
    for (int b = 0; b < batch; b++)
        for (int ky = 0; ky < ny; ky++)
            for (size_t kx = 0; kx < hx; kx++) {
                int conj = ky > ny / 2;
                size_t row = conj ? (nx - kx) % nx : kx, col = conj ? (size_t)(ny - ky) : (size_t)ky;
                const double *from = cpu + 2 * ((size_t)b * nx * pitch + row * pitch + col);
                double *to = lib + 2 * ((size_t)b * hx * ny + (size_t)ky * hx + kx);
                to[0] = from[0];
                to[1] = conj ? -from[1] : from[1];
            }
    return lib;
}

/*
 * `batch` half-spectra of the local backend (per array ny / 2 + 1 rows of
 * nx values kx, row ky) in the libraries' layout, the rows past ny / 2 by
 * Hermitian symmetry.
 */
static double *local_to_library_layout(const double *local, int nx, int ny, int batch)
{
    size_t hx = (size_t)nx / 2 + 1, hy = (size_t)ny / 2 + 1;
    double *lib = malloc(sizeof(double) * 2 * hx * ny * batch);
    for (int b = 0; b < batch; b++)
        for (int ky = 0; ky < ny; ky++)
            for (size_t kx = 0; kx < hx; kx++) {
                int conj = ky > ny / 2;
                size_t row = conj ? (size_t)(ny - ky) : (size_t)ky, col = conj ? (nx - kx) % nx : kx;
                const double *from = local + 2 * ((size_t)b * hy * nx + row * nx + col);
                double *to = lib + 2 * ((size_t)b * hx * ny + (size_t)ky * hx + kx);
                to[0] = from[0];
                to[1] = conj ? -from[1] : from[1];
            }
    return lib;
}

/* clxcorr's own backends: real transforms only, in layouts of their own. */
static int own_backend(const struct fft_backend *fft)
{
    return fft == &fft_backend_cpu || fft == &fft_backend_local;
}

/* The spectra `plan` made, in the libraries' layout. */
static double *read_spectra(struct clx_context *ctx, const struct fft_backend *fft, cl_mem spectra, int nx, int ny,
                            int batch, int use_double)
{
    double *got = device_read_reals(ctx, spectra, 2 * fft->spectrum_elements(nx, ny) * batch, use_double);
    if (!own_backend(fft))
        return got;
    double *lib = fft == &fft_backend_cpu ? cpu_to_library_layout(got, nx, ny, batch)
                                          : local_to_library_layout(got, nx, ny, batch);
    free(got);
    return lib;
}

/* Relative tolerance of one transform's values. */
static double tolerance(int use_double)
{
    return use_double ? 1e-12 : 2e-6;
}

static struct fft_plan *plan_of(struct clx_context *ctx, const struct fft_backend *fft, enum fft_kind kind, int nx,
                                int ny, int batch, int use_double, double *ms)
{
    struct fft_plan *plan;
    double t0 = now_ms();
    if (fft_plan_create(ctx, fft, kind, nx, ny, batch, use_double, nx, ny, &plan) != CLX_OK)
        die(ctx, "fft_plan_create");
    *ms += now_ms() - t0;
    return plan;
}

/*
 * One backend, size, precision and signal (reals: R2C and C2R; complex
 * values: C2C forward and inverse): the forward transform of `batch`
 * distinct arrays (against the host DFT when `with_dft`), its input
 * unchanged, the inverse back to the input; then the same plans on a second
 * set of buffers.
 */
static void check_backend(struct clx_context *ctx, const struct fft_backend *fft, int nx, int ny, int batch,
                          int use_double, int complex_signal, int with_dft, double *plan_ms)
{
    const char *precision = use_double ? "double" : "float";
    enum fft_kind forward = complex_signal ? FFT_C2C_FORWARD : FFT_R2C;
    enum fft_kind inverse = complex_signal ? FFT_C2C_INVERSE : FFT_C2R;
    size_t nsignal = (size_t)nx * ny * (complex_signal ? 2 : 1);
    /* As read back (the libraries' layout), and as the backend stores it. */
    size_t nspectrum = 2 * (size_t)(complex_signal ? nx : nx / 2 + 1) * ny;
    size_t nstored = complex_signal ? nspectrum : 2 * fft->spectrum_elements(nx, ny);
    double tol = tolerance(use_double), t0 = now_ms();
    struct fft_plan *fwd = plan_of(ctx, fft, forward, nx, ny, batch, use_double, plan_ms);
    struct fft_plan *inv = plan_of(ctx, fft, inverse, nx, ny, batch, use_double, plan_ms);

    for (int set = 0; set < 2; set++) {
        double *x = random_values(nx, ny, batch, complex_signal,
                                  1000u * nx + ny + 77u * set + (use_double ? 5 : 0) + (complex_signal ? 3 : 0));
        cl_mem in = buffer_of(ctx, nsignal * batch, use_double, x);
        cl_mem spectra = buffer_of(ctx, nstored * batch, use_double, NULL);
        cl_mem back = buffer_of(ctx, nsignal * batch, use_double, NULL);
        double *want = malloc(sizeof(double) * nspectrum);

        if (fft_plan_execute(fwd, in, spectra) != CLX_OK)
            die(ctx, fft_kind_name(forward));
        double *got = complex_signal ? device_read_reals(ctx, spectra, nspectrum * batch, use_double)
                                     : read_spectra(ctx, fft, spectra, nx, ny, batch, use_double);
        double *kept = device_read_reals(ctx, in, nsignal * batch, use_double);
        if (fft_plan_execute(inv, spectra, back) != CLX_OK)
            die(ctx, fft_kind_name(inverse));
        double *round = device_read_reals(ctx, back, nsignal * batch, use_double);

        CHECK(max_abs_diff(kept, x, nsignal * batch) <= (use_double ? 0 : 1e-7),
              "%s %dx%d x %d %s: %s changed its input", fft->name, nx, ny, batch, precision, fft_kind_name(forward));
        for (int b = 0; b < batch; b++) {
            const double *xb = x + b * nsignal;
            double norm = l2_norm(xb, nsignal);
            if (with_dft) {
                host_dft(xb, nx, ny, complex_signal, want);
                double err = max_abs_diff(got + nspectrum * b, want, nspectrum);
                CHECK(err <= tol * norm,
                      "%s %dx%d x %d %s set %d member %d: %s differs from the DFT by %.3g (norm %.3g)",
                      fft->name, nx, ny, batch, precision, set, b, fft_kind_name(forward), err, norm);
            }
            /* Values in [-1, 1): the round trip's error is absolute. */
            double err = max_abs_diff(round + b * nsignal, xb, nsignal);
            CHECK(err <= 10 * tol, "%s %dx%d x %d %s set %d member %d: %s(%s(x)) differs from x by %.3g",
                  fft->name, nx, ny, batch, precision, set, b, fft_kind_name(inverse), fft_kind_name(forward), err);
        }
        free(x);
        free(want);
        free(got);
        free(kept);
        free(round);
        clReleaseMemObject(in);
        clReleaseMemObject(spectra);
        clReleaseMemObject(back);
    }
    fft_plan_destroy(fwd);
    fft_plan_destroy(inv);
    printf("%s %dx%d x %d %s %s: %s checked (%.0f ms)\n", fft->name, nx, ny, batch, precision,
           complex_signal ? "C2C" : "R2C/C2R", with_dft ? "DFT and round trip" : "round trip", now_ms() - t0);
}

/* Two backends' spectra of one batch against each other, and each one's
 * round trip against the input. */
static void check_agree(struct clx_context *ctx, const struct fft_backend *a, const struct fft_backend *b, int nx,
                        int ny, int batch, int use_double, double *plan_ms)
{
    size_t nreal = (size_t)nx * ny, ncomplex = (size_t)(nx / 2 + 1) * ny;
    double *x = random_values(nx, ny, batch, 0, 4242), tol = tolerance(use_double);
    double *spectra[2];
    const struct fft_backend *backends[2] = { a, b };

    for (int i = 0; i < 2; i++) {
        struct fft_plan *r2c = plan_of(ctx, backends[i], FFT_R2C, nx, ny, batch, use_double, &plan_ms[i]);
        struct fft_plan *c2r = plan_of(ctx, backends[i], FFT_C2R, nx, ny, batch, use_double, &plan_ms[i]);
        cl_mem in = buffer_of(ctx, nreal * batch, use_double, x);
        cl_mem spec = buffer_of(ctx, 2 * backends[i]->spectrum_elements(nx, ny) * batch, use_double, NULL);
        cl_mem out = buffer_of(ctx, nreal * batch, use_double, NULL);
        if (fft_plan_execute(r2c, in, spec) != CLX_OK)
            die(ctx, "R2C");
        spectra[i] = read_spectra(ctx, backends[i], spec, nx, ny, batch, use_double);
        if (fft_plan_execute(c2r, spec, out) != CLX_OK)
            die(ctx, "C2R");
        double *round = device_read_reals(ctx, out, nreal * batch, use_double);
        for (int m = 0; m < batch; m++) {
            double err = max_abs_diff(round + nreal * m, x + nreal * m, nreal);
            CHECK(err <= 10 * tol, "%s %dx%d x %d member %d: C2R(R2C(x)) differs from x by %.3g", backends[i]->name,
                  nx, ny, batch, m, err);
        }
        free(round);
        fft_plan_destroy(r2c);
        fft_plan_destroy(c2r);
        clReleaseMemObject(in);
        clReleaseMemObject(spec);
        clReleaseMemObject(out);
    }
    for (int m = 0; m < batch; m++) {
        double norm = l2_norm(x + m * nreal, nreal);
        double err = max_abs_diff(spectra[0] + 2 * ncomplex * m, spectra[1] + 2 * ncomplex * m, 2 * ncomplex);
        CHECK(err <= 2 * tol * norm, "%dx%d x %d member %d: %s and %s spectra differ by %.3g (norm %.3g)", nx, ny,
              batch, m, a->name, b->name, err, norm);
    }
    printf("%s and %s agree on %dx%d x %d (%s), round trips checked\n", a->name, b->name, nx, ny, batch,
           use_double ? "double" : "float");
    free(x);
    free(spectra[0]);
    free(spectra[1]);
}

/*
 * An R2C told that only the top-left data_w x data_h part of its input is
 * not zero (the correlation's padding) gives the spectra of the plan that
 * reads it all (tails of the cpu backend's vectors and of the local
 * backend's column groups included: data_w not a multiple of 8 or 16). The
 * cpu backend gives exactly the same numbers; the local one, which pairs
 * columns differently, only to rounding: read whole, a zero column's
 * spectrum comes out of its pair's separation as rounding residue, where
 * the part-reading plan knows it is zero.
 */
static void check_extent(struct clx_context *ctx, const struct fft_backend *fft, int nx, int ny, int batch,
                         int data_w, int data_h)
{
    size_t nreal = (size_t)nx * ny, nspec = 2 * fft->spectrum_elements(nx, ny);
    double *x = random_values(nx, ny, batch, 0, 99), ms = 0;
    for (int b = 0; b < batch; b++)
        for (int y = 0; y < ny; y++)
            for (int xx = 0; xx < nx; xx++)
                if (y >= data_h || xx >= data_w)
                    x[b * nreal + (size_t)y * nx + xx] = 0;
    struct fft_plan *all = plan_of(ctx, fft, FFT_R2C, nx, ny, batch, 0, &ms), *part;
    if (fft_plan_create(ctx, fft, FFT_R2C, nx, ny, batch, 0, data_w, data_h, &part) != CLX_OK)
        die(ctx, "fft_plan_create (part)");
    cl_mem in = buffer_of(ctx, nreal * batch, 0, x);
    cl_mem spec[2] = { buffer_of(ctx, nspec * batch, 0, NULL), buffer_of(ctx, nspec * batch, 0, NULL) };
    if (fft_plan_execute(all, in, spec[0]) != CLX_OK || fft_plan_execute(part, in, spec[1]) != CLX_OK)
        die(ctx, "R2C");
    double *a = read_spectra(ctx, fft, spec[0], nx, ny, batch, 0);
    double *b = read_spectra(ctx, fft, spec[1], nx, ny, batch, 0);
    double err = max_abs_diff(a, b, (size_t)(nx / 2 + 1) * ny * 2 * batch), norm = l2_norm(x, nreal);
    double tol = fft == &fft_backend_cpu ? 0 : 2 * tolerance(0) * norm;
    CHECK(err <= tol, "%s %dx%d reading %dx%d of it: spectra differ by %.3g from reading all (norm %.3g)", fft->name,
          nx, ny, data_w, data_h, err, norm);
    printf("%s %dx%d x %d reading only %dx%d: the same spectra (%.3g)\n", fft->name, nx, ny, batch, data_w, data_h,
           err);
    free(x);
    free(a);
    free(b);
    fft_plan_destroy(all);
    fft_plan_destroy(part);
    clReleaseMemObject(in);
    clReleaseMemObject(spec[0]);
    clReleaseMemObject(spec[1]);
}

/* ---- the peak search fused into the local backend's inverse ------------- */

/* The host's peak order (cl/peak_order.h): does (v, k) beat (bv, bk)? */
static int host_beats(double v, int k, double bv, int bk)
{
    if (k < 0 || isnan(v))
        return 0;
    return bk < 0 || v > bv || (v == bv && k < bk);
}

/*
 * The local backend's correlate with a peak search (peak_parts.h): `batch`
 * nx x ny arrays correlated with a reference whose spectrum is exactly 1
 * (R2C of a unit impulse), so that each correlation is its array again up
 * to rounding. Each array's pairs, combined by the rule, must name the
 * place and value the host finds in the correlation as stored, among the
 * shifts |ux| <= rx, |uy| <= ry of w x h windows; and the stored
 * correlations must be bit for bit those of the correlate without a
 * search. Arrays: random; random with a spike at a negative shift; a larger
 * spike just outside the searched shifts and a smaller one inside; all
 * zeros (every value ties: logical index 0 wins); a NaN (all NaN: no peak,
 * -1); random again.
 */
static void check_peak_parts(struct clx_context *ctx, int nx, int ny, int w, int h, int rx, int ry)
{
    enum { BATCH = 6 };
    const struct fft_backend *fft = &fft_backend_local;
    size_t n = (size_t)nx * ny, nspec = 2 * fft->spectrum_elements(nx, ny);
    double *x = random_values(nx, ny, BATCH, 0, 7), ms = 0;
    double *impulse = calloc(n, sizeof(double));
    impulse[0] = 1;
    /* Shift (ux, uy) of array b: x[b * n + (uy mod ny) nx + (ux mod nx)]. */
#define AT(b, ux, uy) x[(size_t)(b) * n + (size_t)(((uy) + ny) % ny) * nx + (size_t)(((ux) + nx) % nx)]
    AT(1, -3, -2) = 5;
    AT(2, rx + 1, 0) = 9;
    AT(2, -rx, ry) = 4;
    for (size_t i = 0; i < n; i++) {
        x[3 * n + i] = 0;
    }
    AT(4, 1, 1) = NAN;
#undef AT

    struct fft_plan *r2c = plan_of(ctx, fft, FFT_R2C, nx, ny, BATCH, 0, &ms);
    struct fft_plan *c2r = plan_of(ctx, fft, FFT_C2R, nx, ny, BATCH, 0, &ms);
    struct fft_plan *ref_plan = plan_of(ctx, fft, FFT_R2C, nx, ny, 1, 0, &ms);
    int per_array = fft_plan_peak_parts(c2r);
    CHECK(per_array > 0, "local C2R %dx%d: no peak search (%d pairs per array)", nx, ny, per_array);
    if (per_array <= 0)
        return;
    cl_mem in = buffer_of(ctx, n * BATCH, 0, x), ref_in = buffer_of(ctx, n, 0, impulse);
    cl_mem ref_spec = buffer_of(ctx, nspec, 0, NULL), spectra = buffer_of(ctx, nspec * BATCH, 0, NULL);
    cl_mem out[2] = { buffer_of(ctx, n * BATCH, 0, NULL), buffer_of(ctx, n * BATCH, 0, NULL) };
    struct peak_parts parts = { buffer_of(ctx, (size_t)per_array * BATCH, 0, NULL), NULL, rx, ry, w, h };
    cl_int err;
    parts.indices = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, sizeof(cl_int) * per_array * BATCH, NULL, &err);
    if (err != CL_SUCCESS || fft_plan_execute(ref_plan, ref_in, ref_spec) != CLX_OK ||
        fft_plan_correlate(r2c, c2r, in, spectra, ref_spec, 1, out[0], NULL) != CLX_OK ||
        fft_plan_correlate(r2c, c2r, in, spectra, ref_spec, 1, out[1], &parts) != CLX_OK)
        die(ctx, "local correlate with a peak search");
    double *plain = device_read_reals(ctx, out[0], n * BATCH, 0);
    double *corr = device_read_reals(ctx, out[1], n * BATCH, 0);
    double *values = device_read_reals(ctx, parts.values, (size_t)per_array * BATCH, 0);
    int *indices = malloc(sizeof(int) * per_array * BATCH);
    if (clEnqueueReadBuffer(ctx->queue, parts.indices, CL_TRUE, 0, sizeof(int) * per_array * BATCH, indices, 0, NULL,
                            NULL) != CL_SUCCESS)
        die(ctx, "reading the peak indices");
    int same = 1;
    for (size_t i = 0; i < n * BATCH; i++)
        same &= memcmp(&plain[i], &corr[i], sizeof(double)) == 0 || (isnan(plain[i]) && isnan(corr[i]));
    CHECK(same, "local %dx%d: the correlations differ with the peak search", nx, ny);

    for (int b = 0; b < BATCH; b++) {
        double gv = 0, hv = 0;
        int gk = -1, hk = -1;
        for (int p = 0; p < per_array; p++)
            if (host_beats(values[b * per_array + p], indices[b * per_array + p], gv, gk)) {
                gv = values[b * per_array + p];
                gk = indices[b * per_array + p];
            }
        for (int uy = -ry; uy <= ry; uy++)
            for (int ux = -rx; ux <= rx; ux++) {
                double v = corr[(size_t)b * n + (size_t)((uy + ny) % ny) * nx + (size_t)((ux + nx) % nx)];
                int k = (uy < 0 ? uy + 2 * h : uy) * 2 * w + (ux < 0 ? ux + 2 * w : ux);
                if (host_beats(v, k, hv, hk)) {
                    hv = v;
                    hk = k;
                }
            }
        CHECK(gk == hk && (hk < 0 || gv == hv), "local %dx%d array %d: the fused search found %d (%.9g), the host %d "
              "(%.9g)", nx, ny, b, gk, gv, hk, hv);
        const int want[BATCH] = { hk, (-2 + 2 * h) * 2 * w + (-3 + 2 * w), (ry) * 2 * w + (-rx + 2 * w), 0, -1, hk };
        CHECK(hk == want[b], "local %dx%d array %d: the host's peak %d, expected %d", nx, ny, b, hk, want[b]);
    }
    printf("local %dx%d, shifts up to (%d, %d) of %dx%d windows: the fused peak search (%d pairs per array) finds "
           "the host's peaks, ties and NaN included\n", nx, ny, rx, ry, w, h, per_array);
    free(x);
    free(impulse);
    free(plain);
    free(corr);
    free(values);
    free(indices);
    fft_plan_destroy(r2c);
    fft_plan_destroy(c2r);
    fft_plan_destroy(ref_plan);
    clReleaseMemObject(in);
    clReleaseMemObject(ref_in);
    clReleaseMemObject(ref_spec);
    clReleaseMemObject(spectra);
    clReleaseMemObject(out[0]);
    clReleaseMemObject(out[1]);
    clReleaseMemObject(parts.values);
    clReleaseMemObject(parts.indices);
}

/* ---- the correlation stage through the public API ---------------------- */

/* Windows of 100 x 100: the FFT path pads them to 200 x 200, check_agree's
 * size, whose kernels PoCL has compiled by then. */
#define IMAGE_W 240
#define IMAGE_H 220
#define NIMAGES 3
#define NWIN 4

struct stage_run {
    clx_result results[NIMAGES * NWIN];
    float *surfaces;
    int sw, sh;
};

/* A seed-mode FFT plan in float with `params`; returns its status (the run is filled on CLX_OK). */
static int run_stage(clx_context *ctx, const char *params, const clx_image *ref, const clx_image *images,
                     const clx_region *regions, struct stage_run *out)
{
    clx_plan_options opt;
    clx_plan *plan;
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.method = CLX_METHOD_FFT;
    opt.batch = NIMAGES;
    opt.params = params;
    int status = clx_plan_create(ctx, ref, regions, NWIN, &opt, &plan);
    if (status != CLX_OK)
        return status;
    clx_plan_surface_size(plan, &out->sw, &out->sh);
    size_t count = (size_t)NIMAGES * NWIN * out->sw * out->sh;
    out->surfaces = malloc(sizeof(float) * count);
    if (clx_plan_push(plan, images, NIMAGES) != CLX_OK ||
        clx_plan_read_surfaces(plan, out->surfaces, count) != CLX_OK ||
        clx_plan_read(plan, out->results, NIMAGES * NWIN) != CLX_OK)
        die(ctx, "push/read");
    clx_plan_release(plan);
    return CLX_OK;
}

static int vkfft_plans_logged, fused_searches_logged;

/* Counts the VkFFT plans made and the stages whose correlator searches for the peaks (correlation_stage.c's log). */
static void count_vkfft_plans(void *user, clx_log_level level, const char *line)
{
    (void)user;
    (void)level;
    if (strncmp(line, "VkFFT ", 6) == 0)
        vkfft_plans_logged++;
    if (strncmp(line, "peak search: ", 13) == 0)
        fused_searches_logged++;
}

/* The largest surface difference of tile t relative to its peak; offsets checked too. */
static double compare_tile(const struct stage_run *a, const struct stage_run *b, int t)
{
    const clx_result *ra = &a->results[t], *rb = &b->results[t];
    size_t surf = (size_t)a->sw * a->sh;
    double peak = 0, err = 0;
    for (size_t e = 0; e < surf; e++) {
        peak = fmax(peak, fabs(a->surfaces[t * surf + e]));
        err = fmax(err, fabs(a->surfaces[t * surf + e] - b->surfaces[t * surf + e]));
    }
    CHECK(err <= 2e-5 * peak, "tile %d: surfaces differ by %.3g of peak %.6g", t, err, peak);
    CHECK(ra->ix == rb->ix && ra->iy == rb->iy, "tile %d: integer peak (%d,%d) with clfft, (%d,%d) with the other", t,
          ra->ix, ra->iy, rb->ix, rb->iy);
    CHECK(fabs(ra->dx - rb->dx) <= 1e-3 && fabs(ra->dy - rb->dy) <= 1e-3,
          "tile %d: offset (%.5f,%.5f) with clfft, (%.5f,%.5f) with the other", t, ra->dx, ra->dy, rb->dx, rb->dy);
    return err / peak;
}

/* The correlation stage with fft=vkfft, fft=cpu and fft=local against
 * fft=clfft, or, in a build without VkFFT, fft=vkfft's refusal; fft=cpu and
 * fft=local refusing fft_pack=1. */
static void check_stage(clx_context *ctx)
{
    const clx_region regions[NWIN] = { { 4, 4, 100, 100 }, { 136, 6, 100, 100 }, { 10, 112, 100, 100 },
                                       { 138, 116, 100, 100 } };
    clx_image ref, images[NIMAGES];
    struct stage_run with_clfft, with_vkfft = { .surfaces = NULL };

    td_textured_image(&ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 31);
    for (int i = 0; i < NIMAGES; i++)
        td_textured_image(&images[i], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 1.3 * i - 2.1, 0.7 - 0.9 * i, 31);

    if (run_stage(ctx, "fft=clfft", &ref, images, regions, &with_clfft) != CLX_OK)
        die(ctx, "clx_plan_create (fft=clfft)");
    int status = run_stage(ctx, "fft=vkfft", &ref, images, regions, &with_vkfft);
    if (!fft_backend_named("vkfft")) {
        CHECK(status == CLX_ERR_UNSUPPORTED, "fft=vkfft without VkFFT: status %d", status);
        const char *want = "VkFFT is not built into this clxcorr (configure found no vkFFT.h)";
        CHECK(strcmp(clx_context_message(ctx), want) == 0, "fft=vkfft without VkFFT: message '%s'",
              clx_context_message(ctx));
        printf("stage: fft=vkfft refused: %s\n", clx_context_message(ctx));
    } else {
        if (status != CLX_OK)
            die(ctx, "clx_plan_create (fft=vkfft)");
        double worst = 0;
        for (int t = 0; t < NIMAGES * NWIN; t++)
            worst = fmax(worst, compare_tile(&with_clfft, &with_vkfft, t));
        printf("stage: fft=vkfft gives fft=clfft's surfaces (worst %.3g of the peak) and offsets\n", worst);
    }
    for (int own = 0; own < 2; own++) {
        const char *name = own ? "local" : "cpu";
        char params[64];
        struct stage_run with_own = { .surfaces = NULL };
        snprintf(params, sizeof params, "fft=%s", name);
        if (run_stage(ctx, params, &ref, images, regions, &with_own) != CLX_OK)
            die(ctx, params);
        double worst = 0;
        for (int t = 0; t < NIMAGES * NWIN; t++)
            worst = fmax(worst, compare_tile(&with_clfft, &with_own, t));
        printf("stage: %s gives fft=clfft's surfaces (worst %.3g of the peak) and offsets\n", params, worst);
        free(with_own.surfaces);
        with_own.surfaces = NULL;
        /* fft=local's peak search in its inverse transform (peak_parts.h),
         * which the stage uses with GPUs' argmax forms, and without it. */
        for (int fuse = 1; own && fuse >= 0; fuse--) {
            snprintf(params, sizeof params, "fft=local,argmax_form=0,peak_fuse=%d", fuse);
            int searches = fused_searches_logged;
            if (run_stage(ctx, params, &ref, images, regions, &with_own) != CLX_OK)
                die(ctx, params);
            CHECK(fused_searches_logged - searches == fuse, "%s: %d stages searched in the inverse transform", params,
                  fused_searches_logged - searches);
            worst = 0;
            for (int t = 0; t < NIMAGES * NWIN; t++)
                worst = fmax(worst, compare_tile(&with_clfft, &with_own, t));
            printf("stage: %s gives fft=clfft's surfaces (worst %.3g of the peak) and offsets\n", params, worst);
            free(with_own.surfaces);
            with_own.surfaces = NULL;
        }
        snprintf(params, sizeof params, "fft=%s,fft_pack=1", name);
        status = run_stage(ctx, params, &ref, images, regions, &with_own);
        CHECK(status == CLX_ERR_UNSUPPORTED, "%s: status %d", params, status);
        printf("stage: %s refused: %s\n", params, clx_context_message(ctx));
        free(with_own.surfaces);
    }
    free(with_clfft.surfaces);
    free(with_vkfft.surfaces);
    for (int i = 0; i < NIMAGES; i++)
        clx_image_free(&images[i]);
    clx_image_free(&ref);
}

/* The "fft" key takes the backends' names and nothing else. */
static void check_params(void)
{
    struct kernel_params p;
    char why[256];
    memset(&p, 0, sizeof p);
    CHECK(kernel_params_override(&p, "fft=vkfft", why, sizeof why) == 0 && p.fft == 1 &&
          strcmp(kernel_params_fft_name(&p), "vkfft") == 0, "fft=vkfft: %s", why);
    CHECK(kernel_params_override(&p, "fft=clfft", why, sizeof why) == 0 && p.fft == 0 &&
          strcmp(kernel_params_fft_name(&p), "clfft") == 0, "fft=clfft: %s", why);
    CHECK(kernel_params_override(&p, "fft=fftw", why, sizeof why) == -1 &&
          strcmp(why, "parameter fft=fftw: expected clfft or vkfft or auto or cpu or local") == 0, "fft=fftw: '%s'",
          why);
    CHECK(kernel_params_override(&p, "fft=cpu", why, sizeof why) == 0 && p.fft == FFT_CPU &&
          strcmp(kernel_params_fft_name(&p), "cpu") == 0, "fft=cpu: %s", why);
    CHECK(kernel_params_override(&p, "fft=local", why, sizeof why) == 0 && p.fft == FFT_LOCAL &&
          strcmp(kernel_params_fft_name(&p), "local") == 0, "fft=local: %s", why);
    CHECK(fft_backend_named("fftw") == NULL && fft_backend_named("clfft") == &fft_backend_clfft, "fft_backend_named");
}

/* fft=local where a work-group's lines fit local memory; a window too
 * long for that goes to the library (the FFT path's configure), with the
 * same padding. */
static void check_local_fallback(clx_context *ctx)
{
    const int sides[2] = { 100, 1600 };
    for (int i = 0; i < 2; i++) {
        struct kernel_params p;
        kernel_params_defaults(&p, &ctx->dev);
        p.win_w = p.win_h = sides[i];
        p.fft = FFT_LOCAL;
        correlator_fft.configure(&ctx->dev, &p, 1);
        int fits = fft_local_fits(p.pad_w, p.pad_h, 0, ctx->dev.info.local_memory);
        CHECK(fits == (i == 0), "%dx%d windows: the local backend %s fit", sides[i], sides[i],
              fits ? "should not" : "should");
        CHECK((p.fft == FFT_LOCAL) == fits, "%dx%d windows: fft=%s", sides[i], sides[i], kernel_params_fft_name(&p));
        printf("%dx%d windows (padded %dx%d): fft=local runs them with %s\n", sides[i], sides[i], p.pad_w, p.pad_h,
               kernel_params_fft_name(&p));
    }
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    int fp64 = clx_context_device(ctx)->has_fp64;
    double t_start = now_ms();
    check_params();
    check_local_fallback(ctx);
    if (td_simulator()) {
        /* make check-oclgrind: the local backend's kernels, whose work-items
         * share local memory between barriers (the libraries' kernels are
         * not ours; the cpu backend's share nothing), small sizes, every
         * radix, and the partial reads. */
        double ms = 0;
        check_backend(ctx, &fft_backend_local, 12, 10, 3, 0, 0, 1, &ms);
        check_backend(ctx, &fft_backend_local, 14, 6, 2, 0, 0, 1, &ms);
        check_backend(ctx, &fft_backend_local, 42, 70, 2, 0, 0, 1, &ms);
        check_extent(ctx, &fft_backend_local, 42, 70, 2, 21, 35);
        check_peak_parts(ctx, 12, 10, 6, 5, 3, 4);
        printf("simulator: the local backend only, small sizes, float\n");
        clx_context_release(ctx);
        printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
        return test_failures ? 1 : 0;
    }

    ctx->log = count_vkfft_plans;
    ctx->log_level = CLX_LOG_DEBUG;
    for (size_t i = 0; i < sizeof backend_names / sizeof backend_names[0]; i++) {
        const struct fft_backend *fft = fft_backend_named(backend_names[i]);
        double plan_ms = 0, t0 = now_ms();
        if (!fft) {
            printf("%s: not built in\n", backend_names[i]);
            continue;
        }
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            if (cases[c].skip_clfft && fft == &fft_backend_clfft)
                continue;
            /* Every program of the local backend takes PoCL 5 s to build:
             * past the first case, its radices are checked below. */
            if (c > 0 && fft == &fft_backend_local)
                continue;
            for (int d = cases[c].double_only; d <= fp64; d++)
                for (int cplx = 0; cplx < (own_backend(fft) ? 1 : 2); cplx++)
                    check_backend(ctx, fft, cases[c].nx, cases[c].ny, cases[c].batch, d, cplx, cases[c].with_dft,
                                  &plan_ms);
        }
        printf("%s: %.0f ms, of which plan creation %.0f ms\n", fft->name, now_ms() - t0, plan_ms);
    }
    if (!fp64)
        printf("device has no fp64: double precision not checked\n");
    /* clxcorr's own backends' radix 7 and odd-radix sizes on both axes, and their partial reads. */
    const struct fft_backend *own[] = { &fft_backend_cpu, &fft_backend_local };
    for (int o = 0; o < 2; o++) {
        for (int d = 0; d <= fp64; d++) {
            double ms = 0;
            check_backend(ctx, own[o], 42, 70, 2, d, 0, 1, &ms);
            check_backend(ctx, own[o], 14, 6, 3, d, 0, 1, &ms);
        }
        check_extent(ctx, own[o], 200, 200, 3, 100, 100);
        check_extent(ctx, own[o], 42, 70, 2, 21, 35);
    }
    if (fft_backend_named("vkfft")) {
        check_extent(ctx, fft_backend_named("vkfft"), 200, 200, 3, 100, 100);
        check_extent(ctx, fft_backend_named("vkfft"), 42, 70, 2, 21, 35);
    }
    for (int o = 0; o < 2; o++) {
        struct fft_plan *c2c;
        CHECK(fft_plan_create(ctx, own[o], FFT_C2C_FORWARD, 12, 10, 1, 0, 12, 10, &c2c) == CLX_ERR_UNSUPPORTED,
              "%s C2C: not refused", own[o]->name);
        printf("%s C2C refused: %s\n", own[o]->name, clx_context_message(ctx));
    }

    if (fft_backend_named("vkfft")) {
        double plan_ms[2] = { 0, 0 }, t0 = now_ms();
        check_agree(ctx, &fft_backend_clfft, fft_backend_named("vkfft"), 200, 200, 7, 0, plan_ms);
        printf("200x200 x 7: %.0f ms, of which plan creation: clfft %.0f ms, vkfft %.0f ms\n", now_ms() - t0,
               plan_ms[0], plan_ms[1]);
    }
    {
        double plan_ms[2] = { 0, 0 };
        check_agree(ctx, &fft_backend_clfft, &fft_backend_cpu, 200, 200, 7, 0, plan_ms);
        check_agree(ctx, &fft_backend_clfft, &fft_backend_local, 200, 200, 7, 0, plan_ms);
    }
    check_peak_parts(ctx, 200, 200, 100, 100, 99, 99);
    check_peak_parts(ctx, 42, 70, 21, 35, 9, 34);

    int before = vkfft_plans_logged;
    double t0 = now_ms();
    check_stage(ctx);
    if (fft_backend_named("vkfft"))
        CHECK(vkfft_plans_logged == before + 2, "fft=vkfft made %d VkFFT plans, expected 2",
              vkfft_plans_logged - before);
    printf("stage check: %.0f ms; all: %.0f ms\n", now_ms() - t0, now_ms() - t_start);

    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
