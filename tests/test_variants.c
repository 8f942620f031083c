/*
 * test_variants.c - the seed pipeline's kernel variants (--param sums_items,
 * argmax_form, argmax_parts, prep_vec, prep_pad) give exactly what the
 * default kernels give: every result (ix, iy, dx, dy, peak, flags) of two
 * pushes, the window means and the prepared windows, bit for bit, on both
 * correlation paths and with both FFT libraries; the default's integer peaks
 * match the host reference. Then every argmax form on crafted correlations
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

#include "context.h"
#include "check.h"
#include "host_ref.h"
#include "plan.h"
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

/* What one configuration gave. */
struct run {
    clx_result results[NPUSHES][NIMAGES * NWIN];
    double *means, *prepared;       /* after the last push */
    size_t prepared_count;
    char path[16];
};

static double *read_reals(clx_plan *plan, cl_mem buf, size_t count)
{
    int use_double = plan->seed->stage.params.use_double;
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    void *raw = malloc(rs * count);
    double *out = malloc(sizeof(double) * count);
    if (!raw || !out || clEnqueueReadBuffer(plan->ctx->queue, buf, CL_TRUE, 0, rs * count, raw, 0, NULL, NULL)) {
        fprintf(stderr, "reading a device buffer failed\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        out[i] = use_double ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    return out;
}

static int *read_ints(clx_plan *plan, cl_mem buf, size_t count)
{
    int *out = malloc(sizeof(int) * count);
    if (!out || clEnqueueReadBuffer(plan->ctx->queue, buf, CL_TRUE, 0, sizeof(int) * count, out, 0, NULL, NULL)) {
        fprintf(stderr, "reading a device buffer failed\n");
        exit(1);
    }
    return out;
}

static void regions_of(int w, int h, clx_region regions[NWIN])
{
    for (int k = 0; k < NWIN; k++) {
        clx_region r = { corners[k][0], corners[k][1], w, h };
        regions[k] = r;
    }
}

/* Two pushes (the images, then the same in reverse order, so that a stale
 * padding from the first would show in the second) with `params`. */
static void run_config(clx_context *ctx, const struct image_set *set, int w, int h, clx_method method,
                       const char *params, struct run *out)
{
    clx_region regions[NWIN];
    clx_plan_options opt;
    clx_plan *plan;
    regions_of(w, h, regions);
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.method = method;
    opt.batch = NIMAGES;
    opt.params = params;
    if (clx_plan_create(ctx, &set->ref, regions, NWIN, &opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create (%dx%d, %s): %s\n", w, h, params, clx_context_message(ctx));
        exit(1);
    }
    for (int p = 0; p < NPUSHES; p++) {
        clx_image order[NIMAGES];
        for (int i = 0; i < NIMAGES; i++)
            order[i] = set->images[p % 2 ? NIMAGES - 1 - i : i];
        if (clx_plan_push(plan, order, NIMAGES) != CLX_OK ||
            clx_plan_read(plan, out->results[p], NIMAGES * NWIN) != CLX_OK) {
            fprintf(stderr, "push/read (%s): %s\n", params, clx_context_message(ctx));
            exit(1);
        }
    }
    const struct kernel_params *kp = &plan->seed->stage.params;
    out->prepared_count = (size_t)NIMAGES * NWIN * kp->pad_w * kp->pad_h;
    out->means = read_reals(plan, plan->seed->means, (size_t)NIMAGES * NWIN);
    out->prepared = read_reals(plan, plan->seed->stage.prepared, out->prepared_count);
    snprintf(out->path, sizeof out->path, "%s", plan->seed->stage.correlator->name);
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

/* Bit for bit what the default configuration gave (±0 aside, which == equates). */
static void check_same(const struct run *base, const struct run *r, int w, int h, const char *params)
{
    int bad = 0;
    for (int p = 0; p < NPUSHES; p++)
        for (int t = 0; t < NIMAGES * NWIN; t++) {
            const clx_result *a = &base->results[p][t], *b = &r->results[p][t];
            if (a->ix != b->ix || a->iy != b->iy || a->flags != b->flags || !same_double(a->dx, b->dx) ||
                !same_double(a->dy, b->dy) || !same_double(a->peak, b->peak)) {
                if (bad++ < 3)
                    fprintf(stderr, "  push %d tile %d: (%d,%d) %.9g %.9g peak %.9g flags %u; default (%d,%d) %.9g "
                            "%.9g peak %.9g flags %u\n", p, t, b->ix, b->iy, b->dx, b->dy, b->peak, b->flags,
                            a->ix, a->iy, a->dx, a->dy, a->peak, a->flags);
            }
        }
    CHECK(bad == 0, "%dx%d %s '%s': %d results differ from the default's", w, h, r->path, params, bad);
    bad = 0;
    for (int t = 0; t < NIMAGES * NWIN; t++)
        bad += base->means[t] != r->means[t];
    CHECK(bad == 0, "%dx%d %s '%s': %d window means differ from the default's", w, h, r->path, params, bad);
    bad = 0;
    CHECK(base->prepared_count == r->prepared_count, "%dx%d '%s': prepared layout differs", w, h, params);
    for (size_t i = 0; i < base->prepared_count && i < r->prepared_count; i++)
        bad += base->prepared[i] != r->prepared[i];
    CHECK(bad == 0, "%dx%d %s '%s': %d prepared values differ from the default's", w, h, r->path, params, bad);
    printf("%dx%d %s '%s': same as the default\n", w, h, r->path, params);
}

/* The default's integer peaks (first push) against the host reference;
 * either of two values closer than float rounding may win. */
static void check_reference(const struct run *base, const struct image_set *set, int w, int h)
{
    clx_region regions[NWIN];
    double *zr = malloc(sizeof(double) * w * h), *zd = malloc(sizeof(double) * w * h);
    double *C = malloc(sizeof(double) * 4 * w * h);
    regions_of(w, h, regions);
    for (int i = 0; i < NIMAGES; i++)
        for (int k = 0; k < NWIN; k++) {
            const clx_result *r = &base->results[0][i * NWIN + k];
            int hux, huy;
            double hpeak;
            href_window_zero_mean(&set->ref, &regions[k], zr);
            href_window_zero_mean(&set->images[i], &regions[k], zd);
            href_correlate_direct(zr, zd, w, h, C);
            href_argmax(C, w, h, &hux, &huy, &hpeak);
            double at_device = C[(size_t)((r->iy + 2 * h) % (2 * h)) * 2 * w + (r->ix + 2 * w) % (2 * w)];
            CHECK((r->ix == hux && r->iy == huy) || fabs(at_device - hpeak) <= 2e-5 * fabs(hpeak),
                  "%dx%d %s image %d window %d: default peak (%d,%d), reference (%d,%d)", w, h, base->path, i, k,
                  r->ix, r->iy, hux, huy);
        }
    printf("%dx%d %s default: integer peaks match the host reference\n", w, h, base->path);
    free(zr);
    free(zd);
    free(C);
}

/* Every configuration in `variants` against `base_params`'s, for one window size and path. */
static void check_variants(clx_context *ctx, const struct image_set *set, int w, int h, clx_method method,
                           const char *base_params, const char *const *variants, size_t nvariants)
{
    struct run *base = calloc(1, sizeof *base), *r = calloc(1, sizeof *r);
    if (!base || !r) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    run_config(ctx, set, w, h, method, base_params, base);
    check_reference(base, set, w, h);
    for (size_t v = 0; v < nvariants; v++) {
        char params[256];
        snprintf(params, sizeof params, "%s%s%s", base_params, base_params[0] ? "," : "", variants[v]);
        run_config(ctx, set, w, h, method, params, r);
        check_same(base, r, w, h, params);
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
    struct stage *s = &plan->seed->stage;
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
        if (peak_finder_build(ctx, &kp, ncases, &pf) ||
            peak_finder_enqueue(ctx, &pf, s->corr, ncases, s->peak_index, s->neighbourhoods, second) ||
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
    const char *bad_values[] = { "sums_items=0", "sums_items=9", "argmax_form=3", "argmax_parts=0",
                                 "argmax_parts=65", "prep_vec=3", "prep_vec=8", "prep_pad=3" };
    struct kernel_params p;
    struct device_entry dev = ctx->dev;
    char why[512];

    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        kernel_params_defaults(&p, &dev);
        CHECK(kernel_params_override(&p, bad_values[i], why, sizeof why) == -1, "'%s' accepted", bad_values[i]);
    }

    kernel_params_defaults(&p, &dev);
    CHECK(p.sums_items == 1 && p.argmax_form == 0 && p.prep_vec == 1 && p.prep_pad == 0,
          "defaults are not today's kernels");
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
        "sums_items=8", "argmax_form=1", "prep_pad=1", "prep_pad=2",
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

    check_variants(ctx, &u16, 24, 20, CLX_METHOD_FFT, FFT_LIBRARY, not_pixels,
                   sizeof not_pixels / sizeof not_pixels[0]);
    if (atomics)
        check_variants(ctx, &u16, 24, 20, CLX_METHOD_FFT, FFT_LIBRARY, atomic_form, 1);
    else
        printf("device lacks cl_khr_int64_extended_atomics: argmax_form=2 not run (its refusal is checked)\n");
    check_variants(ctx, &mixed, 24, 20, CLX_METHOD_FFT, FFT_LIBRARY, pixels, sizeof pixels / sizeof pixels[0]);
    check_variants(ctx, &mixed, 21, 19, CLX_METHOD_FFT, FFT_LIBRARY, odd_sides,
                   sizeof odd_sides / sizeof odd_sides[0]);
    check_variants(ctx, &mixed, 21, 19, CLX_METHOD_DIRECT, "", odd_sides, sizeof odd_sides / sizeof odd_sides[0]);
    check_variants(ctx, &u16, 24, 20, CLX_METHOD_FFT, "fft=clfft", pad_once, 1);
#ifdef HAVE_VKFFT
    check_variants(ctx, &u16, 24, 20, CLX_METHOD_FFT, "fft=vkfft", pad_once, 1);
#endif

    /* The default first: the others' second peaks are compared with its. */
    const char *const forms[] = { "", "argmax_form=1,argmax_parts=1", "argmax_form=1,argmax_parts=3",
                                  "argmax_form=1,argmax_parts=64,argmax_wg=8", "argmax_form=2,argmax_parts=1",
                                  "argmax_form=2,argmax_parts=3", "argmax_form=2,argmax_parts=64,argmax_wg=8" };
    const char *const bounded_forms[] = { "", "argmax_form=1,argmax_parts=64,argmax_wg=8",
                                          "argmax_form=2,argmax_parts=64,argmax_wg=8" };
    /* Form 2 last in both lists, so that a device without it runs the others. */
    check_crafted(ctx, 0, forms, atomics ? 7 : 4);
    check_crafted(ctx, 4, bounded_forms, atomics ? 3 : 2);

    check_refusals(ctx);
    image_set_free(&u16);
    image_set_free(&mixed);
    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
