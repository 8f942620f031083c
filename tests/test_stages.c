/*
 * test_stages.c - every device stage of the FFT path against the host
 * reference: window means, prepared (zero-mean, zero-padded) windows,
 * correlation values at all shifts, argmax (ties, padding band, NaN) and the
 * F x F neighbourhood with its wrap-around, for odd, even, non-square and
 * large-prime window sizes, in float and double, for every pixel type.
 *
 * It reads the plan's device buffers after a push (src/pipeline/plan.h), so each
 * stage is checked on its own, not only through the final offsets.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "check.h"
#include "host_ref.h"
#include "device_read.h"
#include "pipeline/pipeline_seed.h"
#include "pipeline/plan.h"
#include "test_data.h"

#define NIMAGES 2
#define IMAGE_W 96
#define IMAGE_H 80

/* The device correlation's value at shift (ux, uy) of one tile. */
static double corr_at(const double *corr, const clx_plan *plan, size_t tile, int ux, int uy)
{
    int cw = seed_of(plan)->stage.params.corr_w, ch = seed_of(plan)->stage.params.corr_h;
    int x = ux >= 0 ? ux : ux + cw, y = uy >= 0 ? uy : uy + ch;
    return corr[tile * cw * ch + (size_t)y * cw + x];
}

static clx_plan *make_plan(clx_context *ctx, const clx_image *ref, const clx_region *regions, int nwin,
                           int use_double, int fit_size, clx_method method)
{
    clx_plan_options opt;
    clx_plan *plan;
    clx_plan_options_init(&opt);
    opt.batch = NIMAGES;
    opt.use_double = use_double;
    opt.fit_size = fit_size;
    opt.method = method;
    opt.mode = CLX_MODE_SEED;
    if (clx_plan_create(ctx, ref, regions, (size_t)nwin, &opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create: %s\n", clx_context_message(ctx));
        exit(1);
    }
    return plan;
}

static void push_and_read(clx_plan *plan, const clx_image *images, size_t n, clx_result *results)
{
    if (clx_plan_push(plan, images, n) != CLX_OK ||
        clx_plan_read(plan, results, n * clx_plan_region_count(plan)) != CLX_OK) {
        fprintf(stderr, "push/read: %s\n", clx_context_message(plan->ctx));
        exit(1);
    }
}

/*
 * Means, prepared windows, correlations, peaks and neighbourhoods of one
 * push of NIMAGES images against the host reference.
 */
static void check_stages(clx_context *ctx, clx_method method, int w, int h, int use_double, clx_pixel_type ref_type,
                         const clx_pixel_type image_types[NIMAGES], uint64_t seed)
{
    const clx_region regions[3] = { { 0, 0, w, h }, { IMAGE_W - w, IMAGE_H - h, w, h }, { 17, 9, w, h } };
    const int nwin = 3, F = 5;
    double max_value = 255;
    clx_image ref, images[NIMAGES];
    clx_result results[NIMAGES * 3];
    double tol_rel = use_double ? 1e-11 : 2e-5;

    td_random_image(&ref, IMAGE_W, IMAGE_H, ref_type, ref_type == CLX_PIXEL_U8 ? 255 : 4000, seed);
    for (int i = 0; i < NIMAGES; i++) {
        max_value = image_types[i] == CLX_PIXEL_U8 ? 255 : 4000;
        td_random_image(&images[i], IMAGE_W, IMAGE_H, image_types[i], max_value, seed + 1 + i);
    }
    clx_plan *plan = make_plan(ctx, &ref, regions, nwin, use_double, F, method);
    push_and_read(plan, images, NIMAGES, results);

    int pw = seed_of(plan)->stage.params.pad_w, ph = seed_of(plan)->stage.params.pad_h;
    int srx = seed_of(plan)->stage.params.store_rx, sry = seed_of(plan)->stage.params.store_ry;
    size_t tiles = (size_t)NIMAGES * nwin;
    double *means = read_reals(plan, seed_of(plan)->means, tiles);
    double *padded = read_reals(plan, seed_of(plan)->stage.prepared, tiles * pw * ph);
    double *corr = read_reals(plan, seed_of(plan)->stage.corr, tiles * seed_of(plan)->stage.params.corr_w * seed_of(plan)->stage.params.corr_h);
    const char *path = seed_of(plan)->stage.correlator->name;
    double *nbs = read_reals(plan, seed_of(plan)->stage.neighbourhoods, tiles * F * F);
    int *peaks = read_ints(plan, seed_of(plan)->stage.peak_index, tiles);
    double *zr = malloc(sizeof(double) * w * h), *zd = malloc(sizeof(double) * w * h);
    double *C = malloc(sizeof(double) * 4 * w * h), nb[25];

    for (int i = 0; i < NIMAGES; i++) {
        for (int k = 0; k < nwin; k++) {
            size_t t = (size_t)i * nwin + k;
            double mean = href_window_mean(&images[i], &regions[k]);
            CHECK(fabs(means[t] - mean) <= (use_double ? 1e-12 : 1e-6) * fabs(mean) + 1e-12,
                  "%dx%d %s %s image %d window %d: mean %.9g, reference %.9g", w, h, path, use_double ? "double" : "float", i, k, means[t], mean);

            /* Prepared window: zero-mean values, zeros elsewhere. */
            href_window_zero_mean(&images[i], &regions[k], zd);
            int bad = 0;
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++) {
                    double want = x < w && y < h ? zd[y * w + x] : 0.0;
                    double got = padded[t * pw * ph + (size_t)y * pw + x];
                    if (fabs(got - want) > (use_double ? 1e-9 : 1e-3))
                        bad++;
                }
            CHECK(bad == 0, "%dx%d %s %s image %d window %d: %d prepared values differ", w, h, path, use_double ? "double" : "float", i, k, bad);

            /* Correlation at every stored shift, relative to the peak. */
            href_window_zero_mean(&ref, &regions[k], zr);
            href_correlate_direct(zr, zd, w, h, C);
            int hux, huy;
            double hpeak;
            href_argmax(C, w, h, &hux, &huy, &hpeak);
            double worst = 0;
            for (int uy = -sry; uy <= sry; uy++)
                for (int ux = -srx; ux <= srx; ux++) {
                    double want = C[(size_t)((uy + 2 * h) % (2 * h)) * 2 * w + (ux + 2 * w) % (2 * w)];
                    double err = fabs(corr_at(corr, plan, t, ux, uy) - want);
                    if (err > worst)
                        worst = err;
                }
            CHECK(worst <= tol_rel * fabs(hpeak), "%dx%d %s %s image %d window %d: correlation error %.3g of peak %.6g",
                  w, h, path, use_double ? "double" : "float", i, k, worst, hpeak);

            /* Integer peak: the reference's, unless the two best values are
             * closer than float rounding (then either is right). */
            int dux, duy;
            peak_index_to_shift(peaks[t], w, h, &dux, &duy);
            double dev_value = C[(size_t)((duy + 2 * h) % (2 * h)) * 2 * w + (dux + 2 * w) % (2 * w)];
            CHECK((dux == hux && duy == huy) || fabs(dev_value - hpeak) <= tol_rel * fabs(hpeak),
                  "%dx%d %s %s image %d window %d: peak (%d,%d), reference (%d,%d)", w, h, path, use_double ? "double" : "float", i, k, dux, duy, hux, huy);
            CHECK(results[t].ix == dux && results[t].iy == duy, "result's integer peak differs from the argmax buffer");

            /* Neighbourhood: the device's own correlation values around its
             * peak, wrapped in the logical layout (every shift the wrap can
             * reach is stored). */
            double *logical = C; /* reuse: rebuild from the device values */
            for (int ky = 0; ky < 2 * h; ky++)
                for (int kx = 0; kx < 2 * w; kx++) {
                    int ux = kx < w ? kx : kx - 2 * w, uy = ky < h ? ky : ky - 2 * h;
                    int stored = abs(ux) <= srx && abs(uy) <= sry;
                    logical[(size_t)ky * 2 * w + kx] =
                        (kx == w || ky == h || !stored) ? 0 : corr_at(corr, plan, t, ux, uy);
                }
            href_neighbourhood(logical, w, h, dux, duy, F, nb);
            bad = 0;
            for (int j = 0; j < F * F; j++)
                if (nbs[t * F * F + j] != nb[j])
                    bad++;
            CHECK(bad == 0, "%dx%d %s %s image %d window %d: %d neighbourhood values differ", w, h, path, use_double ? "double" : "float", i, k, bad);
        }
    }
    printf("stages %dx%d %s %s (correlation layout %dx%d, pixels %d/%d,%d): checked\n", w, h, path,
           use_double ? "double" : "float", seed_of(plan)->stage.params.corr_w, seed_of(plan)->stage.params.corr_h, ref_type, image_types[0],
           image_types[1]);
    free(means);
    free(padded);
    free(corr);
    free(nbs);
    free(peaks);
    free(zr);
    free(zd);
    free(C);
    clx_plan_release(plan);
    clx_image_free(&ref);
    for (int i = 0; i < NIMAGES; i++)
        clx_image_free(&images[i]);
}

/* ---- argmax and neighbourhood on crafted correlations ---------------------- */

struct crafted {
    const char *what;
    int peak_ux, peak_uy;     /* where the maximum is put (or the first of a tie) */
    int tie_ux, tie_uy;       /* a second, equal maximum (tie) unless 99 */
    int band_spike;           /* a huge value in the padding band (ignored) */
    int nans;                 /* NaN values sprinkled in (ignored) */
    int all_zero;
};

static void check_crafted(clx_context *ctx, int use_double)
{
    /* 11x13 windows: the FFT layout (24x28) is wider than 2w x 2h, so the
     * padding band is there to be ignored. */
    const int w = 11, h = 13, F = 5;
    const clx_region region = { 0, 0, w, h };
    const struct crafted cases[] = {
        { "all zero", 0, 0, 99, 99, 0, 0, 1 },
        { "interior", 3, -2, 99, 99, 0, 0, 0 },
        { "tie", 3, -2, -1, 4, 0, 0, 0 },
        { "tie at zero", -1, 0, 0, 0, 0, 0, 0 },
        { "padding band spike", 4, 4, 99, 99, 1, 0, 0 },
        { "NaN values", -5, 7, 99, 99, 0, 1, 0 },
        { "corner +w-1,+h-1", w - 1, h - 1, 99, 99, 0, 0, 0 },
        { "corner -(w-1),-(h-1)", -(w - 1), -(h - 1), 99, 99, 0, 0, 0 },
        { "left edge", -(w - 1), 0, 99, 99, 0, 0, 0 },
        { "bottom edge", 2, h - 1, 99, 99, 0, 0, 0 },
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    clx_image ref;
    td_random_image(&ref, 32, 32, CLX_PIXEL_U16, 1000, 5);

    clx_plan_options opt;
    clx_plan *plan;
    clx_plan_options_init(&opt);
    opt.batch = ncases;
    opt.use_double = use_double;
    opt.method = CLX_METHOD_FFT;   /* the layout with a padding band */
    opt.mode = CLX_MODE_SEED;
    if (clx_plan_create(ctx, &ref, &region, 1, &opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create: %s\n", clx_context_message(ctx));
        exit(1);
    }
    int pw = seed_of(plan)->stage.params.pad_w, ph = seed_of(plan)->stage.params.pad_h;
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    double *values = malloc(sizeof(double) * ncases * pw * ph);
    double *logical = malloc(sizeof(double) * 4 * w * h);
    unsigned char *raw = malloc(rs * ncases * pw * ph);
    uint64_t seed = 99;

    for (int c = 0; c < ncases; c++) {
        const struct crafted *cs = &cases[c];
        double *v = values + (size_t)c * pw * ph;
        for (int i = 0; i < pw * ph; i++)
            v[i] = cs->all_zero ? 0 : td_uniform(&seed) * 100;
        int x = cs->peak_ux >= 0 ? cs->peak_ux : cs->peak_ux + pw;
        int y = cs->peak_uy >= 0 ? cs->peak_uy : cs->peak_uy + ph;
        if (!cs->all_zero)
            v[y * pw + x] = 1000;
        if (cs->tie_ux != 99) {
            int tx = cs->tie_ux >= 0 ? cs->tie_ux : cs->tie_ux + pw;
            int ty = cs->tie_uy >= 0 ? cs->tie_uy : cs->tie_uy + ph;
            v[ty * pw + tx] = 1000;
        }
        if (cs->band_spike)
            v[3 * pw + w + 1] = 1e6;     /* column w + 1 lies in the band */
        if (cs->nans)
            for (int i = 0; i < pw * ph; i += 37)
                if (i != y * pw + x)
                    v[i] = NAN;
        for (int i = 0; i < pw * ph; i++) {
            size_t at = (size_t)c * pw * ph + i;
            if (!use_double)
                v[i] = (float)v[i];   /* what the device holds */
            if (use_double)
                ((double *)raw)[at] = v[i];
            else
                ((float *)raw)[at] = (float)v[i];
        }
    }
    if (clEnqueueWriteBuffer(ctx->queue, seed_of(plan)->stage.corr, CL_TRUE, 0, rs * ncases * pw * ph, raw, 0, NULL, NULL) ||
        peak_finder_enqueue(ctx, &seed_of(plan)->stage.peaks, seed_of(plan)->stage.corr, ncases, 0, seed_of(plan)->stage.peak_index, seed_of(plan)->stage.neighbourhoods, NULL) ||
        clFinish(ctx->queue)) {
        fprintf(stderr, "crafted argmax: %s\n", clx_context_message(ctx));
        exit(1);
    }
    int *peaks = read_ints(plan, seed_of(plan)->stage.peak_index, ncases);
    double *nbs = read_reals(plan, seed_of(plan)->stage.neighbourhoods, (size_t)ncases * F * F);

    for (int c = 0; c < ncases; c++) {
        const double *v = values + (size_t)c * pw * ph;
        /* The host reference sees the logical layout, NaN replaced by -inf
         * (it has no NaN rule; the device must ignore NaN). */
        for (int ky = 0; ky < 2 * h; ky++)
            for (int kx = 0; kx < 2 * w; kx++) {
                int ux = kx < w ? kx : kx - 2 * w, uy = ky < h ? ky : ky - 2 * h;
                double val = (kx == w || ky == h) ? 0 : v[(uy >= 0 ? uy : uy + ph) * pw + (ux >= 0 ? ux : ux + pw)];
                logical[(size_t)ky * 2 * w + kx] = isnan(val) ? -INFINITY : val;
            }
        int hux, huy, dux, duy;
        double hv, nb[25];
        href_argmax(logical, w, h, &hux, &huy, &hv);
        peak_index_to_shift(peaks[c], w, h, &dux, &duy);
        CHECK(peaks[c] >= 0 && dux == hux && duy == huy, "crafted '%s' (%s): device peak (%d,%d), reference (%d,%d)",
              cases[c].what, use_double ? "double" : "float", dux, duy, hux, huy);
        href_neighbourhood(logical, w, h, hux, huy, F, nb);
        int bad = 0;
        for (int j = 0; j < F * F; j++) {
            double got = nbs[(size_t)c * F * F + j];
            if (!(got == nb[j] || (isnan(got) && isinf(nb[j]))))
                bad++;
        }
        CHECK(bad == 0, "crafted '%s' (%s): %d neighbourhood values differ", cases[c].what,
              use_double ? "double" : "float", bad);
    }
    printf("argmax/neighbourhood on %d crafted correlations (%s): checked\n", ncases, use_double ? "double" : "float");
    free(values);
    free(logical);
    free(raw);
    free(peaks);
    free(nbs);
    clx_plan_release(plan);
    clx_image_free(&ref);
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    int fp64 = clx_context_device(ctx)->has_fp64;
    const clx_pixel_type u16[NIMAGES] = { CLX_PIXEL_U16, CLX_PIXEL_U16 };
    const clx_pixel_type mixed[NIMAGES] = { CLX_PIXEL_U8, CLX_PIXEL_U16 };
    const clx_pixel_type u8[NIMAGES] = { CLX_PIXEL_U8, CLX_PIXEL_U8 };
    const clx_pixel_type f32[NIMAGES] = { CLX_PIXEL_F32, CLX_PIXEL_F32 };

    for (int m = td_simulator() ? 1 : 0; m < 2; m++) {
        clx_method method = m == 0 ? CLX_METHOD_FFT : CLX_METHOD_DIRECT;
        check_stages(ctx, method, 7, 5, 0, CLX_PIXEL_U16, u16, 1);      /* odd, non-square */
        if (td_simulator()) {
            /* Both precisions, every pixel type, at the smallest sizes. */
            check_stages(ctx, method, 8, 8, 0, CLX_PIXEL_U16, mixed, 7);
            check_stages(ctx, method, 8, 8, 0, CLX_PIXEL_F32, f32, 6);
            if (fp64)
                check_stages(ctx, method, 7, 5, 1, CLX_PIXEL_U16, u16, 8);
            continue;
        }
        check_stages(ctx, method, 8, 8, 0, CLX_PIXEL_U16, u16, 2);      /* even, square */
        check_stages(ctx, method, 11, 13, 0, CLX_PIXEL_U16, u16, 3);    /* FFT layout padded past 2w x 2h */
        check_stages(ctx, method, 53, 47, 0, CLX_PIXEL_U16, u16, 4);    /* large prime sides */
        check_stages(ctx, method, 8, 8, 0, CLX_PIXEL_U8, u8, 5);        /* 8-bit */
        check_stages(ctx, method, 8, 8, 0, CLX_PIXEL_F32, f32, 6);      /* float pixels */
        check_stages(ctx, method, 8, 8, 0, CLX_PIXEL_U16, mixed, 7);    /* a batch of mixed types */
        if (fp64) {
            check_stages(ctx, method, 7, 5, 1, CLX_PIXEL_U16, u16, 8);
            check_stages(ctx, method, 11, 13, 1, CLX_PIXEL_F32, f32, 9);
        }
    }
    /* check_crafted runs the FFT layout: not simulated. */
    if (!td_simulator()) {
        check_crafted(ctx, 0);
        if (fp64)
            check_crafted(ctx, 1);
    }
    if (!fp64)
        printf("device has no fp64: double-precision stages not checked\n");
    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
