/*
 * test_peak_offsets.c - the first pass's offsets worked out on the device
 * (cl/peak_offsets.cl, src/ops/peak_offsets.c) against the host's
 * (peak_index_to_shift and subpixel_estimate, with the fallback as
 * stage_peak_of tries it), for every estimator and fallback the accurate
 * mode can be given, F = 3 and 5, in single and (where the device has it)
 * double precision: peaks on all four sides of zero, neighbourhoods that a
 * quadratic, a Gaussian or a lopsided impulse make, ones only the fallback
 * can fit (a ridge), ones neither can (a valley, a flat one: the integer
 * peak), and a
 * tile without a peak (NaN).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ops/peak_offsets.h"
#include "ops/peak_search.h"
#include "runtime/context.h"
#include "test_data.h"

#define NTILES 64
#define WIN 16

/* Tile t's F x F neighbourhood: one of five shapes, its maximum near
 * (x0, y0) where it has one. */
static void neighbourhood(int t, int F, double *nb)
{
    int r = (F - 1) / 2, shape = t % 5;
    double x0 = 0.9 * sin(1.7 * t) * 0.5, y0 = 0.9 * cos(2.3 * t) * 0.5;
    for (int y = -r; y <= r; y++)
        for (int x = -r; x <= r; x++) {
            double dx = x - x0, dy = y - y0, v;
            switch (shape) {
            case 0: v = 50 - 3 * dx * dx - 0.7 * dx * dy - 2 * dy * dy; break;       /* quadratic */
            case 1: v = 80 * exp(-0.5 * (dx * dx / 1.3 + dy * dy / 0.8)); break;      /* Gaussian */
            case 2: v = 40 * exp(-(fabs(dx) + 1.5 * fabs(dy))); break;                /* impulse */
            case 3: v = 30 - 4 * dy * dy + 0.2 * x; break;                            /* ridge along x */
            default: v = t % 10 == 4 ? 10 + dx * dx + dy * dy : 10; break;         /* valley, flat */
            }
            nb[(y + r) * F + (x + r)] = v;
        }
}

/* Tile t's logical peak index: shifts on both sides of zero; -1 for every 16th. */
static int peak_index(int t)
{
    if (t % 16 == 15)
        return -1;
    int ux = (t * 5) % (2 * WIN - 3) - (WIN - 2), uy = (t * 7) % (2 * WIN - 3) - (WIN - 2);
    int kx = ux < 0 ? ux + 2 * WIN : ux, ky = uy < 0 ? uy + 2 * WIN : uy;
    return ky * 2 * WIN + kx;
}

static void check_one(clx_context *ctx, int F, clx_estimator kind, clx_estimator fallback_kind, int use_double)
{
    struct kernel_params p;
    struct subpixel est, fb;
    struct peak_offsets po;
    size_t rs = use_double ? sizeof(double) : sizeof(float), n = (size_t)NTILES * F * F;
    double nb[NTILES * 25];
    int peaks[NTILES];
    unsigned char raw[NTILES * 25 * sizeof(double)], out_raw[NTILES * 2 * sizeof(double)];

    kernel_params_defaults(&p, &ctx->dev);
    p.win_w = p.win_h = WIN;
    p.fit_size = F;
    p.use_double = use_double;
    for (int t = 0; t < NTILES; t++) {
        neighbourhood(t, F, nb + (size_t)t * F * F);
        peaks[t] = peak_index(t);
    }
    for (size_t i = 0; i < n; i++) {
        if (use_double)
            ((double *)raw)[i] = nb[i];
        else
            ((float *)raw)[i] = (float)nb[i];
    }
    /* As stage_create makes them: no fallback is kind 0 and nothing else. */
    memset(&fb, 0, sizeof fb);
    CHECK(subpixel_init(&est, kind, F) == CLX_OK &&
              (fallback_kind == CLX_ESTIMATOR_DEFAULT || subpixel_init(&fb, fallback_kind, F) == CLX_OK), "init");
    int status = peak_offsets_create(ctx, &p, &est, &fb, &po);
    CHECK(status == CLX_OK, "peak_offsets_create: %s", clx_context_message(ctx));
    if (status != CLX_OK)
        return;
    cl_int err;
    cl_mem peaks_buf = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof peaks, peaks, &err);
    cl_mem nb_buf = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, rs * n, raw, &err);
    cl_mem out = clCreateBuffer(ctx->cl, CL_MEM_WRITE_ONLY, rs * 2 * NTILES, NULL, &err);
    status = peak_offsets_enqueue(ctx, &po, peaks_buf, nb_buf, NTILES, out);
    CHECK(status == CLX_OK, "peak_offsets_enqueue: %s", clx_context_message(ctx));
    err = clEnqueueReadBuffer(ctx->queue, out, CL_TRUE, 0, rs * 2 * NTILES, out_raw, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "read: %d", err);

    double tol = use_double ? 1e-9 : 2e-5;
    int fitted = 0, integer = 0;
    for (int t = 0; t < NTILES; t++) {
        double got[2];
        for (int c = 0; c < 2; c++)
            got[c] = use_double ? ((double *)out_raw)[2 * t + c] : ((float *)out_raw)[2 * t + c];
        if (peaks[t] < 0) {
            CHECK(isnan(got[0]) && isnan(got[1]), "tile %d without a peak: %g, %g", t, got[0], got[1]);
            continue;
        }
        int ix, iy;
        double sx, sy, h[F * F];
        for (int i = 0; i < F * F; i++)
            h[i] = use_double ? nb[(size_t)t * F * F + i] : (double)(float)nb[(size_t)t * F * F + i];
        peak_index_to_shift(peaks[t], WIN, WIN, &ix, &iy);
        int failed = subpixel_estimate(&est, h, &sx, &sy) &&
                     (fallback_kind == CLX_ESTIMATOR_DEFAULT || subpixel_estimate(&fb, h, &sx, &sy));
        failed ? integer++ : fitted++;
        CHECK(fabs(got[0] - (ix + sx)) < tol && fabs(got[1] - (iy + sy)) < tol,
              "F %d, %s + %s, %s, tile %d: device (%.7f, %.7f), host (%.7f, %.7f)", F, clx_estimator_name(kind),
              clx_estimator_name(fallback_kind), use_double ? "double" : "float", t, got[0], got[1], ix + sx,
              iy + sy);
    }
    /* The shapes give both outcomes for every estimator. */
    CHECK(fitted > 0 && integer > 0, "%s: %d fitted, %d at the integer peak", clx_estimator_name(kind), fitted,
          integer);
    clReleaseMemObject(peaks_buf);
    clReleaseMemObject(nb_buf);
    clReleaseMemObject(out);
    peak_offsets_release(&po);
    subpixel_release(&est);
    subpixel_release(&fb);
}

int main(void)
{
    clx_context *ctx = NULL;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    /* The accurate mode's pairs: each estimator with the parabola as its
     * fallback, the parabola with none. */
    const clx_estimator kinds[][2] = {
        { CLX_ESTIMATOR_LSQ, CLX_ESTIMATOR_PARABOLA3 },   { CLX_ESTIMATOR_GAUSS3, CLX_ESTIMATOR_PARABOLA3 },
        { CLX_ESTIMATOR_CENTROID, CLX_ESTIMATOR_PARABOLA3 }, { CLX_ESTIMATOR_PARABOLA3, CLX_ESTIMATOR_DEFAULT },
        { CLX_ESTIMATOR_LSQ, CLX_ESTIMATOR_DEFAULT },
    };
    int doubles = ctx->dev.info.has_fp64 ? 2 : 1;
    for (int dbl = 0; dbl < doubles; dbl++)
        for (int F = 3; F <= 5; F += 2)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                check_one(ctx, F, kinds[k][0], kinds[k][1], dbl);
    clx_context_release(ctx);
    printf("test_peak_offsets: %s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
