/*
 * test_variants.c - the seed pipeline's kernel variants (--param sums_items,
 * argmax_form, argmax_parts, prep_vec, prep_pad) give exactly what the
 * default kernels give: every result (ix, iy, dx, dy, peak, flags) of two
 * pushes, the window means and the prepared windows, bit for bit, on both
 * correlation paths and with both FFT libraries; the default's integer peaks
 * match the host reference. fft_pack=1, whose FFTs round differently, gives
 * the same integer peaks and flags, and offsets and peak values within
 * 1e-4 (px, relative), with both FFT libraries, even and odd tile counts
 * and in double precision. Then every argmax form on crafted correlations
 * (ties, NaN, all NaN, negative values, signed zeros, infinities, a bounded
 * search) against the host reference, and the parameter checks that refuse
 * bad values and argmax_form=2 where it cannot run.
 *
 * Kernels are compiled for every configuration (a new -D value is a new
 * cache key), and per pixel type for window_sums and prepare, so variants
 * that do not touch pixels run on 16-bit images only, and the others also
 * on a set mixing every pixel type. Its float image holds 8-bit values, so
 * that its window sums are exact in any order of additions (sums_items
 * changes that order, and float sums are only as exact as their order
 * makes them).
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

#define IMAGE_W 96
#define IMAGE_H 80
#define NIMAGES 4
#define NWIN 6
#define NPUSHES 2

/* The FFT path's library, named so that no automatic choice can differ
 * between a configuration and its default. */
#ifdef HAVE_VKFFT
#define FFT_LIBRARY "fft=vkfft"
#else
#define FFT_LIBRARY "fft=clfft"
#endif

static const int corners[NWIN][2] = { { 8, 6 }, { 40, 6 }, { 66, 8 }, { 10, 46 }, { 38, 50 }, { 64, 54 } };

/* The reference and the pushed images, each moved by a known shift. */
struct image_set {
    clx_image ref;
    clx_image images[NIMAGES];
};

/* 16-bit images only, or 16-bit, 8-bit and float (holding 8-bit values). */
static void image_set_make(struct image_set *set, int mixed)
{
    clx_message msg;
    clx_image u8;
    td_textured_image(&set->ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 11);
    td_textured_image(&set->images[0], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 1.3, -2.6, 11);
    td_textured_image(&set->images[1], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, -3.5, 2.25, 11);
    td_textured_image(&set->images[2], IMAGE_W, IMAGE_H, mixed ? CLX_PIXEL_U8 : CLX_PIXEL_U16, 0.5, 4.4, 11);
    if (!mixed) {
        td_textured_image(&set->images[3], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, -4.2, -1.7, 11);
        return;
    }
    td_textured_image(&u8, IMAGE_W, IMAGE_H, CLX_PIXEL_U8, -4.2, -1.7, 11);
    if (clx_image_alloc(&set->images[3], IMAGE_W, IMAGE_H, CLX_PIXEL_F32, &msg) != CLX_OK ||
        clx_image_copy_to(&u8, &set->images[3], &msg) != CLX_OK) {
        fprintf(stderr, "float image: %s\n", msg.text);
        exit(1);
    }
    clx_image_free(&u8);
}

static void image_set_free(struct image_set *set)
{
    clx_image_free(&set->ref);
    for (int i = 0; i < NIMAGES; i++)
        clx_image_free(&set->images[i]);
}

/* The job a configuration runs: window size, path, precision, and the
 * first nwin windows on the first nimages images (the batch). */
struct job {
    int w, h;
    clx_method method;
    int use_double;
    int nwin, nimages;
};

/* What one configuration gave. */
struct run {
    clx_result results[NPUSHES][NIMAGES * NWIN];
    int ntiles;
    double *means, *prepared;       /* after the last push */
    size_t prepared_count;
    char path[16];
    char label[64];                 /* the job, for messages */
};

static void regions_of(int w, int h, int nwin, clx_region regions[NWIN])
{
    for (int k = 0; k < nwin; k++) {
        clx_region r = { corners[k][0], corners[k][1], w, h };
        regions[k] = r;
    }
}

/* Two pushes (the images, then the same in reverse order, so that a stale
 * padding from the first would show in the second) with `params`. */
static void run_config(clx_context *ctx, const struct image_set *set, const struct job *job, const char *params,
                       struct run *out)
{
    clx_region regions[NWIN];
    clx_plan_options opt;
    clx_plan *plan;
    int ntiles = job->nimages * job->nwin;
    regions_of(job->w, job->h, job->nwin, regions);
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.method = job->method;
    opt.use_double = job->use_double;
    opt.batch = job->nimages;
    opt.params = params;
    if (clx_plan_create(ctx, &set->ref, regions, job->nwin, &opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create (%dx%d, %s): %s\n", job->w, job->h, params, clx_context_message(ctx));
        exit(1);
    }
    for (int p = 0; p < NPUSHES; p++) {
        clx_image order[NIMAGES];
        for (int i = 0; i < job->nimages; i++)
            order[i] = set->images[p % 2 ? job->nimages - 1 - i : i];
        if (clx_plan_push(plan, order, job->nimages) != CLX_OK ||
            clx_plan_read(plan, out->results[p], ntiles) != CLX_OK) {
            fprintf(stderr, "push/read (%s): %s\n", params, clx_context_message(ctx));
            exit(1);
        }
    }
    const struct kernel_params *kp = &seed_of(plan)->stage.params;
    out->ntiles = ntiles;
    out->prepared_count = (size_t)ntiles * kp->pad_w * kp->pad_h;
    out->means = read_reals(plan, seed_of(plan)->means, (size_t)ntiles);
    out->prepared = read_reals(plan, seed_of(plan)->stage.prepared, out->prepared_count);
    snprintf(out->path, sizeof out->path, "%s", seed_of(plan)->stage.correlator->name);
    int n = snprintf(out->label, sizeof out->label, "%dx%d", job->w, job->h);
    if (job->nwin != NWIN || job->nimages != NIMAGES)
        n += snprintf(out->label + n, sizeof out->label - n, " (%d windows x %d image%s)", job->nwin, job->nimages,
                      job->nimages == 1 ? "" : "s");
    if (job->use_double)
        snprintf(out->label + n, sizeof out->label - n, " double");
    clx_plan_release(plan);
}

static void run_free(struct run *r)
{
    free(r->means);
    free(r->prepared);
}

static int same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* The window means and the prepared windows, bit for bit what the default's were. */
static void check_same_prepared(const struct run *base, const struct run *r, const char *params)
{
    int bad = 0;
    for (int t = 0; t < r->ntiles; t++)
        bad += base->means[t] != r->means[t];
    CHECK(bad == 0, "%s %s '%s': %d window means differ from the default's", r->label, r->path, params, bad);
    bad = 0;
    CHECK(base->prepared_count == r->prepared_count, "%s '%s': prepared layout differs", r->label, params);
    for (size_t i = 0; i < base->prepared_count && i < r->prepared_count; i++)
        bad += base->prepared[i] != r->prepared[i];
    CHECK(bad == 0, "%s %s '%s': %d prepared values differ from the default's", r->label, r->path, params, bad);
}

/* Bit for bit what the default configuration gave (±0 aside, which == equates). */
static void check_same(const struct run *base, const struct run *r, const char *params)
{
    int bad = 0;
    for (int p = 0; p < NPUSHES; p++)
        for (int t = 0; t < r->ntiles; t++) {
            const clx_result *a = &base->results[p][t], *b = &r->results[p][t];
            if (a->ix != b->ix || a->iy != b->iy || a->flags != b->flags || !same_double(a->dx, b->dx) ||
                !same_double(a->dy, b->dy) || !same_double(a->peak, b->peak)) {
                if (bad++ < 3)
                    fprintf(stderr, "  push %d tile %d: (%d,%d) %.9g %.9g peak %.9g flags %u; default (%d,%d) %.9g "
                            "%.9g peak %.9g flags %u\n", p, t, b->ix, b->iy, b->dx, b->dy, b->peak, b->flags,
                            a->ix, a->iy, a->dx, a->dy, a->peak, a->flags);
            }
        }
    CHECK(bad == 0, "%s %s '%s': %d results differ from the default's", r->label, r->path, params, bad);
    check_same_prepared(base, r, params);
    printf("%s %s '%s': same as the default\n", r->label, r->path, params);
}

/*
 * What the default configuration gave up to the rounding of a different
 * FFT (fft_pack=1 adds and multiplies in another order): the same integer
 * peaks and flags, sub-pixel offsets within 1e-4 px and peak values within
 * 1e-4 of the default's; the window means and prepared windows, which come
 * before the FFT, bit for bit.
 */
static void check_close(const struct run *base, const struct run *r, const char *params)
{
    double worst_d = 0, worst_peak = 0;
    int bad = 0;
    for (int p = 0; p < NPUSHES; p++)
        for (int t = 0; t < r->ntiles; t++) {
            const clx_result *a = &base->results[p][t], *b = &r->results[p][t];
            double d = fmax(fabs(a->dx - b->dx), fabs(a->dy - b->dy));
            double peak = fabs(a->peak - b->peak) / fabs(a->peak);
            worst_d = fmax(worst_d, d);
            worst_peak = fmax(worst_peak, peak);
            if (a->ix != b->ix || a->iy != b->iy || a->flags != b->flags || !(d <= 1e-4) || !(peak <= 1e-4)) {
                if (bad++ < 3)
                    fprintf(stderr, "  push %d tile %d: (%d,%d) %.9g %.9g peak %.9g flags %u; default (%d,%d) %.9g "
                            "%.9g peak %.9g flags %u\n", p, t, b->ix, b->iy, b->dx, b->dy, b->peak, b->flags,
                            a->ix, a->iy, a->dx, a->dy, a->peak, a->flags);
            }
        }
    CHECK(bad == 0, "%s %s '%s': %d results not within tolerance of the default's", r->label, r->path, params, bad);
    check_same_prepared(base, r, params);
    printf("%s %s '%s': the default's peaks, offsets within %.2g px, peak values within %.2g\n", r->label, r->path,
           params, worst_d, worst_peak);
}

/* The default's integer peaks (first push) against the host reference;
 * either of two values closer than float rounding may win. */
static void check_reference(const struct run *base, const struct image_set *set, const struct job *job)
{
    int w = job->w, h = job->h;
    clx_region regions[NWIN];
    double *zr = malloc(sizeof(double) * w * h), *zd = malloc(sizeof(double) * w * h);
    double *C = malloc(sizeof(double) * 4 * w * h);
    regions_of(w, h, job->nwin, regions);
    for (int i = 0; i < job->nimages; i++)
        for (int k = 0; k < job->nwin; k++) {
            const clx_result *r = &base->results[0][i * job->nwin + k];
            int hux, huy;
            double hpeak;
            href_window_zero_mean(&set->ref, &regions[k], zr);
            href_window_zero_mean(&set->images[i], &regions[k], zd);
            href_correlate_direct(zr, zd, w, h, C);
            href_argmax(C, w, h, &hux, &huy, &hpeak);
            double at_device = C[(size_t)((r->iy + 2 * h) % (2 * h)) * 2 * w + (r->ix + 2 * w) % (2 * w)];
            CHECK((r->ix == hux && r->iy == huy) || fabs(at_device - hpeak) <= 2e-5 * fabs(hpeak),
                  "%s %s image %d window %d: default peak (%d,%d), reference (%d,%d)", base->label, base->path, i,
                  k, r->ix, r->iy, hux, huy);
        }
    printf("%s %s default: integer peaks match the host reference\n", base->label, base->path);
    free(zr);
    free(zd);
    free(C);
}

/* Every configuration in `variants` against `base_params`'s, for one job,
 * compared by `check` (check_same or check_close). */
static void check_variants(clx_context *ctx, const struct image_set *set, const struct job *job,
                           const char *base_params, const char *const *variants, size_t nvariants,
                           void (*check)(const struct run *, const struct run *, const char *))
{
    struct run *base = calloc(1, sizeof *base), *r = calloc(1, sizeof *r);
    if (!base || !r) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    run_config(ctx, set, job, base_params, base);
    check_reference(base, set, job);
    for (size_t v = 0; v < nvariants; v++) {
        char params[256];
        snprintf(params, sizeof params, "%s%s%s", base_params, base_params[0] ? "," : "", variants[v]);
        run_config(ctx, set, job, params, r);
        check(base, r, params);
        run_free(r);
    }
    run_free(base);
    free(base);
    free(r);
}

/* ---- argmax forms on crafted correlations --------------------------------- */

struct crafted {
    const char *what;
    int fill;                 /* 0 random in [0, 100), 1 all 0, 2 all NaN, 3 random in [-100, 0), 4 all -inf */
    int peak_ux, peak_uy;     /* where the maximum goes (99: none) */
    double peak;
    int tie_ux, tie_uy;       /* an equal second maximum (99: none) */
    double tie;
    int nans;                 /* NaN sprinkled in, the maximum spared */
    int band_spike;           /* a huge value in the FFT layout's unused band */
};

/* The value the host reference sees: NaN never wins, so it is -inf there. */
static double logical_value(const double *v, int w, int h, int pw, int ph, int kx, int ky)
{
    int ux = kx < w ? kx : kx - 2 * w, uy = ky < h ? ky : ky - 2 * h;
    double val = (kx == w || ky == h) ? 0 : v[(uy >= 0 ? uy : uy + ph) * pw + (ux >= 0 ? ux : ux + pw)];
    return isnan(val) ? -INFINITY : val;
}

/*
 * Writes crafted correlations into a default plan's correlation buffer and
 * runs a peak finder built for each of `forms` (the plan's parameters with
 * those overrides) on them: the peak must be the host reference's (-1 when
 * nothing searched is a number) and the second peaks the default form's.
 * Building only the peak finder keeps the kernels compiled per form few.
 */
static void check_crafted(clx_context *ctx, int max_shift, const char *const *forms, size_t nforms)
{
    /* 11x13 windows: the FFT layout (24x28) is wider than 2w x 2h, so the
     * unused band is there to be ignored. */
    const int w = 11, h = 13;
    const clx_region region = { 0, 0, w, h };
    const struct crafted cases[] = {
        { "all zero (ties everywhere)", 1, 99, 99, 0, 99, 99, 0, 0, 0 },
        { "interior", 0, 3, -2, 1000, 99, 99, 0, 0, 0 },
        { "tie", 0, 3, -2, 1000, -1, 4, 1000, 0, 0 },
        { "tie at zero", 0, -1, 0, 1000, 0, 0, 1000, 0, 0 },
        { "NaN values", 0, -5, 7, 1000, 99, 99, 0, 1, 0 },
        { "all NaN", 2, 99, 99, 0, 99, 99, 0, 0, 0 },
        { "negative values", 3, 2, 3, -0.5, 99, 99, 0, 0, 0 },
        { "negative tie", 3, 4, -3, -0.25, -2, -3, -0.25, 0, 0 },
        { "negative with NaN", 3, -4, 1, -1e-3, 99, 99, 0, 1, 0 },
        /* Equal, so the smaller index wins: -0 must not order below +0. */
        { "-0 first, +0 last", 3, 0, 0, -0.0, -1, -1, 0.0, 0, 0 },
        { "+inf tie", 0, 5, 5, INFINITY, -5, -5, INFINITY, 0, 0 },
        { "all -inf", 4, 99, 99, 0, 99, 99, 0, 0, 0 },
        { "band spike", 0, 4, 4, 1000, 99, 99, 0, 0, 1 },
        { "corner -(w-1),-(h-1)", 0, -(w - 1), -(h - 1), 1000, 99, 99, 0, 0, 0 },
        { "outside a bounded search", 0, w - 1, h - 1, 1e6, 2, 1, 1000, 0, 0 },
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    clx_image ref;
    clx_plan_options opt;
    clx_plan *plan;
    td_random_image(&ref, 32, 32, CLX_PIXEL_U16, 1000, 5);
    clx_plan_options_init(&opt);
    opt.batch = ncases;
    opt.method = CLX_METHOD_FFT;
    opt.mode = CLX_MODE_SEED;
    opt.max_shift = max_shift;
    if (clx_plan_create(ctx, &ref, &region, 1, &opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create: %s\n", clx_context_message(ctx));
        exit(1);
    }
    struct stage *s = &seed_of(plan)->stage;
    int pw = s->params.corr_w, ph = s->params.corr_h;
    int rx = s->params.search_rx, ry = s->params.search_ry;
    double *values = malloc(sizeof(double) * ncases * pw * ph);
    double *logical = malloc(sizeof(double) * 4 * w * h);
    float *raw = malloc(sizeof(float) * ncases * pw * ph);
    double *second_base = NULL;
    uint64_t seed = 99;
    cl_int err;
    cl_mem second = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, sizeof(float) * ncases, NULL, &err);
    if (!values || !logical || !raw || err != CL_SUCCESS) {
        fprintf(stderr, "crafted argmax: out of memory\n");
        exit(1);
    }

    for (int c = 0; c < ncases; c++) {
        const struct crafted *cs = &cases[c];
        double *v = values + (size_t)c * pw * ph;
        for (int i = 0; i < pw * ph; i++) {
            double u = td_uniform(&seed) * 100;
            const double fills[] = { u, 0, NAN, -u - 1e-3, -INFINITY };
            v[i] = fills[cs->fill];
        }
        int x = 0, y = 0;
        if (cs->peak_ux != 99) {
            x = cs->peak_ux >= 0 ? cs->peak_ux : cs->peak_ux + pw;
            y = cs->peak_uy >= 0 ? cs->peak_uy : cs->peak_uy + ph;
            v[y * pw + x] = cs->peak;
        }
        if (cs->tie_ux != 99)
            v[(cs->tie_uy >= 0 ? cs->tie_uy : cs->tie_uy + ph) * pw + (cs->tie_ux >= 0 ? cs->tie_ux : cs->tie_ux + pw)] =
                cs->tie;
        if (cs->band_spike)
            v[3 * pw + w + 1] = 1e6;
        if (cs->nans)
            for (int i = 0; i < pw * ph; i += 37)
                if (i != y * pw + x)
                    v[i] = NAN;
        for (int i = 0; i < pw * ph; i++) {
            raw[(size_t)c * pw * ph + i] = (float)v[i];
            v[i] = (float)v[i];
        }
    }
    if (clEnqueueWriteBuffer(ctx->queue, s->corr, CL_TRUE, 0, sizeof(float) * ncases * pw * ph, raw, 0, NULL, NULL)) {
        fprintf(stderr, "crafted argmax: writing the correlations failed\n");
        exit(1);
    }

    for (size_t f = 0; f < nforms; f++) {
        struct kernel_params kp = s->params;
        struct peak_finder pf;
        char why[512];
        if (kernel_params_override(&kp, forms[f], why, sizeof why) ||
            kernel_params_check(&kp, &ctx->dev, why, sizeof why)) {
            fprintf(stderr, "crafted argmax '%s': %s\n", forms[f], why);
            exit(1);
        }
        if (peak_finder_build(ctx, &kp, ncases, 0, &pf) ||
            peak_finder_enqueue(ctx, &pf, s->corr, ncases, 0, s->peak_index, s->neighbourhoods, second) ||
            clFinish(ctx->queue)) {
            fprintf(stderr, "crafted argmax ('%s'): %s\n", forms[f], clx_context_message(ctx));
            exit(1);
        }
        peak_finder_release(&pf);
        int *peaks = read_ints(plan, s->peak_index, ncases);
        double *seconds = read_reals(plan, second, ncases);

        for (int c = 0; c < ncases; c++) {
            const double *v = values + (size_t)c * pw * ph;
            int any_number = 0;
            for (int uy = -ry; uy <= ry; uy++)
                for (int ux = -rx; ux <= rx; ux++)
                    any_number |= !isnan(v[(uy >= 0 ? uy : uy + ph) * pw + (ux >= 0 ? ux : ux + pw)]);
            if (!any_number) {
                CHECK(peaks[c] == -1, "crafted '%s' ('%s'): peak index %d, expected -1 (no number)", cases[c].what,
                      forms[f], peaks[c]);
                continue;
            }
            for (int ky = 0; ky < 2 * h; ky++)
                for (int kx = 0; kx < 2 * w; kx++)
                    logical[(size_t)ky * 2 * w + kx] = logical_value(v, w, h, pw, ph, kx, ky);
            int hux, huy, dux, duy;
            double hv;
            href_argmax_within(logical, w, h, rx, ry, &hux, &huy, &hv);
            peak_index_to_shift(peaks[c], w, h, &dux, &duy);
            CHECK(peaks[c] >= 0 && dux == hux && duy == huy,
                  "crafted '%s' ('%s'): device peak (%d,%d), reference (%d,%d)", cases[c].what, forms[f], dux, duy,
                  hux, huy);
        }
        if (second_base) {
            int bad = 0;
            for (int c = 0; c < ncases; c++)
                bad += !same_double(seconds[c], second_base[c]);
            CHECK(bad == 0, "crafted ('%s'): %d second peaks differ from the default's", forms[f], bad);
            free(seconds);
        } else {
            second_base = seconds;
        }
        free(peaks);
        printf("argmax on %d crafted correlations ('%s', max shift %d): checked\n", ncases, forms[f], max_shift);
    }
    free(second_base);
    clReleaseMemObject(second);
    free(values);
    free(logical);
    free(raw);
    clx_plan_release(plan);
    clx_image_free(&ref);
}

/* ---- parameter checks ------------------------------------------------------- */

static void check_refusals(clx_context *ctx)
{
    const char *bad_values[] = { "sums_items=0", "sums_items=9", "argmax_form=4", "argmax_parts=0",
                                 "argmax_parts=65", "prep_vec=3", "prep_vec=8", "prep_pad=3", "fft_pack=2",
                                 "fft_pack=-1" };
    struct kernel_params p;
    struct device_entry dev = ctx->dev;
    char why[512];

    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        kernel_params_defaults(&p, &dev);
        CHECK(kernel_params_override(&p, bad_values[i], why, sizeof why) == -1, "'%s' accepted", bad_values[i]);
    }

    /* The generic defaults: today's kernels on a GPU; a CPU's own argmax
     * form and FFT. */
    dev.info.type = CLX_DEVICE_GPU;
    kernel_params_defaults(&p, &dev);
    CHECK(p.sums_items == 1 && p.argmax_form == 0 && p.prep_vec == 1 && p.prep_pad == 0 && p.fft_pack == 0 &&
              p.fft != FFT_CPU,
          "defaults are not today's kernels");
    dev.info.type = CLX_DEVICE_CPU;
    kernel_params_defaults(&p, &dev);
    CHECK(p.argmax_form == 3 && p.fft == FFT_CPU, "a CPU's defaults: argmax_form=%d, fft=%s", p.argmax_form,
          kernel_params_fft_name(&p));
    dev = ctx->dev;
    kernel_params_defaults(&p, &dev);
    p.argmax_form = 2;
    p.use_double = 1;
    why[0] = '\0';
    CHECK(kernel_params_check(&p, &dev, why, sizeof why) == -1 && strstr(why, "argmax_form=2") &&
          strstr(why, "double"), "argmax_form=2 in double precision: '%s'", why);
    p.use_double = 0;
    dev.has_int64_atomics = 0;
    why[0] = '\0';
    CHECK(kernel_params_check(&p, &dev, why, sizeof why) == -1 && strstr(why, "cl_khr_int64_extended_atomics"),
          "argmax_form=2 without 64-bit atomics: '%s'", why);
    dev.has_int64_atomics = 1;
    CHECK(kernel_params_check(&p, &dev, why, sizeof why) == 0, "argmax_form=2 refused with 64-bit atomics: %s", why);

    /* Through the public API: the plan is refused with the reason. */
    if (clx_context_device(ctx)->has_fp64) {
        clx_image ref;
        const clx_region region = { 0, 0, 8, 8 };
        clx_plan_options opt;
        clx_plan *plan = NULL;
        td_random_image(&ref, 16, 16, CLX_PIXEL_U16, 1000, 3);
        clx_plan_options_init(&opt);
        opt.mode = CLX_MODE_SEED;
        opt.method = CLX_METHOD_FFT;   /* no measuring for the automatic choice */
        opt.use_double = 1;
        opt.params = "argmax_form=2";
        int status = clx_plan_create(ctx, &ref, &region, 1, &opt, &plan);
        CHECK(status == CLX_ERR_ARGUMENT && strstr(clx_context_message(ctx), "argmax_form=2"),
              "double-precision plan with argmax_form=2: status %d, '%s'", status, clx_context_message(ctx));
        if (status == CLX_OK)
            clx_plan_release(plan);
        clx_image_free(&ref);
    }
    printf("bad values and argmax_form=2 where it cannot run: refused\n");
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    int atomics = ctx->dev.has_int64_atomics;
    struct image_set u16, mixed;
    image_set_make(&u16, 0);
    image_set_make(&mixed, 1);

    /* Each value alone, then a few together (other work-group shapes too);
     * argmax_parts's range is covered by the crafted correlations below. */
    const char *const not_pixels[] = {
        "sums_items=2", "sums_items=3", "sums_items=4", "sums_items=5", "sums_items=6", "sums_items=7",
        "sums_items=8", "argmax_form=0", "argmax_form=1", "argmax_form=3", "prep_pad=0", "prep_pad=1",
        "prep_pad=2",
    };
    const char *const atomic_form[] = { "argmax_form=2" };
    const char *const pixels[] = {
        "sums_items=3", "prep_vec=2", "prep_vec=4",
        "sums_items=4,argmax_form=1,argmax_parts=3,prep_vec=4,prep_pad=2",
        "sums_items=8,sums_wg=32,argmax_form=1,argmax_parts=7,argmax_wg=16,prep_vec=4,prep_tx=8,prep_ty=4,prep_pad=1",
        atomics ? "sums_items=3,argmax_form=2,argmax_parts=5,argmax_wg=64,prep_vec=2,prep_pad=2"
                : "sums_items=3,argmax_form=1,argmax_parts=5,argmax_wg=64,prep_vec=2,prep_pad=2",
    };
    /* Odd window sides: vector runs cross the window's right edge, and the
     * row's end (FFT layout 42 wide; the direct path's is the window's). */
    const char *const odd_sides[] = { "prep_vec=4", "sums_items=5,prep_vec=2,prep_pad=2" };
    /* prep_pad=2 relies on the R2C transform leaving its input alone. */
    const char *const pad_once[] = { "prep_pad=2" };

    const struct job fft_24x20 = { 24, 20, CLX_METHOD_FFT, 0, NWIN, NIMAGES };
    const struct job fft_21x19 = { 21, 19, CLX_METHOD_FFT, 0, NWIN, NIMAGES };
    const struct job direct_21x19 = { 21, 19, CLX_METHOD_DIRECT, 0, NWIN, NIMAGES };
    check_variants(ctx, &u16, &fft_24x20, FFT_LIBRARY, not_pixels, sizeof not_pixels / sizeof not_pixels[0],
                   check_same);
    if (atomics)
        check_variants(ctx, &u16, &fft_24x20, FFT_LIBRARY, atomic_form, 1, check_same);
    else
        printf("device lacks cl_khr_int64_extended_atomics: argmax_form=2 not run (its refusal is checked)\n");
    check_variants(ctx, &mixed, &fft_24x20, FFT_LIBRARY, pixels, sizeof pixels / sizeof pixels[0], check_same);
    check_variants(ctx, &mixed, &fft_21x19, FFT_LIBRARY, odd_sides, sizeof odd_sides / sizeof odd_sides[0],
                   check_same);
    check_variants(ctx, &mixed, &direct_21x19, "", odd_sides, sizeof odd_sides / sizeof odd_sides[0], check_same);
    check_variants(ctx, &u16, &fft_24x20, "fft=clfft", pad_once, 1, check_same);
    check_variants(ctx, &u16, &fft_24x20, "fft=cpu", pad_once, 1, check_same);
    check_variants(ctx, &u16, &fft_24x20, "fft=local", pad_once, 1, check_same);
#ifdef HAVE_VKFFT
    check_variants(ctx, &u16, &fft_24x20, "fft=vkfft", pad_once, 1, check_same);
#endif

    /* fft_pack=1 with each FFT library: even tile counts (pairs of windows
     * of one image), odd ones (3 windows x 1 image: the last pair's second
     * tile is padding; 3 x 3: pairs spanning two images), odd window sides,
     * double precision, and with other variants. */
    const char *const packed[] = { "fft_pack=1", "fft_pack=1,prep_pad=2,argmax_form=1" };
    const struct job pack_jobs[] = {
        { 24, 20, CLX_METHOD_FFT, 0, NWIN, NIMAGES }, { 24, 20, CLX_METHOD_FFT, 0, 3, 1 },
        { 24, 20, CLX_METHOD_FFT, 0, 3, 3 }, { 21, 19, CLX_METHOD_FFT, 0, 5, 3 },
        { 24, 20, CLX_METHOD_FFT, 1, 3, 3 },
    };
    const char *const libraries[] = {
        "fft=clfft",
#ifdef HAVE_VKFFT
        "fft=vkfft",
#endif
    };
    for (size_t l = 0; l < sizeof libraries / sizeof libraries[0]; l++)
        for (size_t j = 0; j < sizeof pack_jobs / sizeof pack_jobs[0]; j++) {
            if (pack_jobs[j].use_double && !clx_context_device(ctx)->has_fp64) {
                printf("device has no fp64: fft_pack=1 in double precision not run\n");
                continue;
            }
            /* The combination on the first job only. */
            check_variants(ctx, &u16, &pack_jobs[j], libraries[l], packed, j == 0 ? 2 : 1, check_close);
        }

    /* The default first (form 0 on GPUs, 3 on CPUs): the others' second
     * peaks are compared with its. */
    const char *const forms[] = { "", "argmax_form=0", "argmax_form=3", "argmax_form=1,argmax_parts=1",
                                  "argmax_form=1,argmax_parts=3", "argmax_form=1,argmax_parts=64,argmax_wg=8",
                                  "argmax_form=2,argmax_parts=1", "argmax_form=2,argmax_parts=3",
                                  "argmax_form=2,argmax_parts=64,argmax_wg=8" };
    const char *const bounded_forms[] = { "", "argmax_form=0", "argmax_form=3",
                                          "argmax_form=1,argmax_parts=64,argmax_wg=8",
                                          "argmax_form=2,argmax_parts=64,argmax_wg=8" };
    /* Form 2 last in both lists, so that a device without it runs the others. */
    check_crafted(ctx, 0, forms, atomics ? 9 : 6);
    check_crafted(ctx, 4, bounded_forms, atomics ? 5 : 4);

    check_refusals(ctx);
    image_set_free(&u16);
    image_set_free(&mixed);
    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
