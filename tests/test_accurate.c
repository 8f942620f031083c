/*
 * test_accurate.c - the accurate mode through the public API on images with
 * known sub-pixel shifts (a smooth texture sampled at x - d, tests/test_data.c):
 *
 *  - the correlation refinement converges: every estimator ends within
 *    0.02 px of the true shift, below the tolerance, in at most the
 *    iterations allowed, with no flag; integer shifts take at most three
 *    iterations;
 *  - IC-GN's work-group form reads its samples from global memory, a
 *    texture, local-memory strips or both, to the same offsets;
 *  - IC-GN (the default refinement) converges: within 0.002 px (gradients
 *    within 1e-4) without a pre-filter, within 0.03 px (0.005) with the
 *    default pre-filter, whose
 *    mirrored border (these windows lie 12 px from the image's edge, inside
 *    its 24 px reach) is not the same in a moved image, and which IC-GN's
 *    uniformly weighted windows feel more than the Hann-tapered
 *    correlation does;
 *  - it is what makes the accuracy: the same run without window offset and
 *    refinement is several times worse;
 *  - the flags: a window moved out of the image is clamped (16), a window
 *    whose content was replaced is an outlier among its neighbours (8), a
 *    refinement cut short is unconverged (32);
 *  - the quality columns: ZNCC close to 1 and a peak ratio above 1 on
 *    matching windows, ZNCC low on the replaced one;
 *  - double precision agrees with float;
 *  - the refinement's step (src/ops/refine_step.c) lands on the answer of a
 *    linear correction u = G (d - o) in a few iterations whatever the gain
 *    G, where adding u creeps or oscillates.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ops/refine_step.h"
#include "test_data.h"

#define IMAGE_W 224
#define IMAGE_H 176
#define GRID_X 4
#define GRID_Y 3
#define NWIN (GRID_X * GRID_Y)
#define WIN 40
#define SEED 7

/* True shifts (image minus reference) of the test images. */
static const double shifts[][2] = {
    { 0.37, -1.62 }, { 2.5, 3.25 }, { -4.8, 0.11 }, { 1.05, 0.95 }, { -0.23, 2.71 }, { 3.0, -2.0 }, { 0.0, 0.0 },
};
#define NIMAGES ((int)(sizeof shifts / sizeof shifts[0]))
#define FIRST_INTEGER 5     /* shifts from here on are whole pixels */

/* A 4 x 3 grid of 40 x 40 windows, 12 px from the edges. */
static void grid(clx_region *regions)
{
    for (int j = 0; j < GRID_Y; j++)
        for (int i = 0; i < GRID_X; i++) {
            clx_region *r = &regions[j * GRID_X + i];
            r->x = 12 + i * (IMAGE_W - 24 - WIN) / (GRID_X - 1);
            r->y = 12 + j * (IMAGE_H - 24 - WIN) / (GRID_Y - 1);
            r->w = r->h = WIN;
        }
}

/* Runs `images` through a plan with `opt`; 0, or -1 after a failed check. */
static int run(clx_context *ctx, const clx_image *ref, const clx_region *regions, int nwin, const clx_image *images,
               int nimages, const clx_plan_options *opt, clx_result *results)
{
    clx_plan *plan;
    clx_plan_options simulated;
    if (td_simulator()) {
        /* make check-oclgrind: the FFT-free path, over the shifts the
         * images hold (FFT kernels are far too slow simulated). */
        simulated = *opt;
        simulated.method = CLX_METHOD_DIRECT;
        simulated.max_shift = 8;
        opt = &simulated;
    }
    if (clx_plan_create(ctx, ref, regions, (size_t)nwin, opt, &plan) != CLX_OK) {
        CHECK(0, "clx_plan_create: %s", clx_context_message(ctx));
        return -1;
    }
    int batch = clx_plan_batch_size(plan), status = CLX_OK;
    for (int i = 0; i < nimages && status == CLX_OK; i += batch) {
        size_t n = (size_t)(nimages - i < batch ? nimages - i : batch);
        status = clx_plan_push(plan, images + i, n);
        if (status == CLX_OK)
            status = clx_plan_read(plan, results + (size_t)i * nwin, n * nwin);
    }
    CHECK(status == CLX_OK, "push/read: %s", clx_context_message(ctx));
    clx_plan_release(plan);
    return status == CLX_OK ? 0 : -1;
}

/* The error of result r against shift s: the larger of |ex|, |ey|. */
static double error_of(const clx_result *r, const double *s)
{
    return fmax(fabs(r->dx - s[0]), fabs(r->dy - s[1]));
}

struct images {
    clx_image ref, moved[NIMAGES];
};

static void make_images(struct images *im)
{
    td_textured_image(&im->ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, SEED);
    for (int i = 0; i < NIMAGES; i++)
        td_textured_image(&im->moved[i], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, shifts[i][0], shifts[i][1], SEED);
}

static void free_images(struct images *im)
{
    clx_image_free(&im->ref);
    for (int i = 0; i < NIMAGES; i++)
        clx_image_free(&im->moved[i]);
}

/* Iterations of o += step on u = G (d - o) until |d - o| < 1e-9; or -1. */
static int iterations_to_land(const double g[2][2], const double d[2], int broyden)
{
    struct refine_step s;
    double o[2] = { 0, 0 };
    refine_step_reset(&s);
    for (int it = 1; it <= 50; it++) {
        double r[2] = { d[0] - o[0], d[1] - o[1] };
        double u[2] = { g[0][0] * r[0] + g[0][1] * r[1], g[1][0] * r[0] + g[1][1] * r[1] }, step[2] = { u[0], u[1] };
        if (broyden)
            refine_step_next(&s, o, u, 1, step);
        o[0] += step[0];
        o[1] += step[1];
        if (hypot(d[0] - o[0], d[1] - o[1]) < 1e-9)
            return it;
    }
    return -1;
}

static void check_refine_step(void)
{
    const double d[2] = { 0.31, -0.27 };
    const struct { const char *what; double g[2][2]; } gains[] = {
        { "exact estimator", { { 1, 0 }, { 0, 1 } } },
        { "overshoot by a quarter (a ridge's 3 x 3 fit)", { { 1.25, 0.08 }, { 0.05, 1.3 } } },
        { "overshoot near 2 (oscillates)", { { 1.93, 0 }, { 0, 1.1 } } },
        { "peak locking (gain 0.3)", { { 0.3, 0 }, { 0, 0.35 } } },
        { "coupled axes", { { 0.8, 0.4 }, { 0.3, 0.9 } } },
    };
    for (size_t i = 0; i < sizeof gains / sizeof gains[0]; i++) {
        int plain = iterations_to_land(gains[i].g, d, 0), steps = iterations_to_land(gains[i].g, d, 1);
        CHECK(steps > 0 && steps <= 4, "refine step, %s: %d iterations", gains[i].what, steps);
        printf("  refine step, %-46s %2d iterations (adding u: %s%d)\n", gains[i].what, steps,
               plain < 0 ? "more than " : "", plain < 0 ? 50 : plain);
    }
}

/* Every estimator of the correlation refinement converges on every shift. */
static void check_convergence(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    const struct { clx_estimator e; double tol; } cases[] = {
        { CLX_ESTIMATOR_DEFAULT, 0.02 }, { CLX_ESTIMATOR_GAUSS3, 0.02 },
        { CLX_ESTIMATOR_PARABOLA3, 0.02 }, { CLX_ESTIMATOR_CENTROID, 0.02 },
    };
    clx_result results[NIMAGES * NWIN];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clx_plan_options opt;
        clx_plan_options_init(&opt);
        opt.refiner = CLX_REFINER_CORRELATION;
        opt.estimator = cases[c].e;
        const char *name = cases[c].e == CLX_ESTIMATOR_DEFAULT ? "default (lsq)" : clx_estimator_name(cases[c].e);
        if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, results) != 0)
            continue;
        double worst = 0, sum2 = 0;
        int bad = 0;
        for (int i = 0; i < NIMAGES; i++)
            for (int k = 0; k < NWIN; k++) {
                const clx_result *r = &results[i * NWIN + k];
                double e = error_of(r, shifts[i]);
                worst = fmax(worst, e);
                sum2 += e * e;
                int ok = e <= cases[c].tol && r->flags == 0 && r->iterations >= 1 && r->iterations <= opt.refine &&
                         r->zncc > 0.99 && r->peak_ratio > 1;
                /* The first few failures in full. */
                if (!ok && bad++ < 5)
                    CHECK(ok, "%s, shift (%.2f, %.2f) window %d: (%.4f, %.4f) error %.4f flags %u iterations %d "
                          "zncc %.4f peak ratio %.3g", name, shifts[i][0], shifts[i][1], k, r->dx, r->dy, e,
                          r->flags, r->iterations, r->zncc, r->peak_ratio);
                /* Integer shifts: the first pass is already there (but for the
                 * pre-filter's mirrored border, which differs between the
                 * images near the image's edge). */
                if (i >= FIRST_INTEGER)
                    CHECK(r->iterations <= 3 && e <= 0.005, "%s, integer shift (%.0f, %.0f) window %d: "
                          "error %.2g after %d iterations", name, shifts[i][0], shifts[i][1], k, e, r->iterations);
            }
        CHECK(bad == 0, "%s: %d windows out of bounds", name, bad);
        printf("  %-14s max error %.4f px, rms %.4f px (limit %.2f)\n", name, worst, sqrt(sum2 / (NIMAGES * NWIN)),
               cases[c].tol);
    }
}

/* Where the work-group form of IC-GN reads its samples (icgn_source: a
 * texture, local-memory strips, both): the offsets of global memory's,
 * within float rounding (the strips give each work-item other pixels to
 * add), the same flags and iterations. A device without images over
 * buffers may refuse the texture. */
static void check_icgn_sources(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    static clx_result base[NIMAGES * NWIN], results[NIMAGES * NWIN];
    static const char *const params[] = { "icgn_form=0,tile_form=0,icgn_source=0",
                                          "icgn_form=0,tile_form=0,icgn_source=1",
                                          "icgn_form=0,tile_form=0,icgn_source=2",
                                          "icgn_form=0,tile_form=0,icgn_source=3" };
    for (int s = 0; s < 4; s++) {
        clx_plan_options opt;
        clx_plan_options_init(&opt);
        opt.params = params[s];
        clx_plan *plan;
        if ((s == 1 || s == 3) && clx_plan_create(ctx, &im->ref, regions, NWIN, &opt, &plan) != CLX_OK) {
            printf("  icgn_source=%d: not on this device (%s)\n", s, clx_context_message(ctx));
            continue;
        }
        if (s == 1 || s == 3)
            clx_plan_release(plan);
        if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, s == 0 ? base : results) != 0 || s == 0)
            continue;
        double apart = 0;
        int same = 1;
        for (int t = 0; t < NIMAGES * NWIN; t++) {
            apart = fmax(apart, fmax(fabs(results[t].dx - base[t].dx), fabs(results[t].dy - base[t].dy)));
            same &= results[t].flags == base[t].flags;
        }
        CHECK(apart <= 1e-4 && same, "icgn_source=%d: offsets %.2g px from global memory's, flags %s", s, apart,
              same ? "the same" : "differ");
        printf("  icgn_source=%d within %.2g px of icgn_source=0\n", s, apart);
    }
}

/* IC-GN converges on every shift: see the header for the bounds. Both
 * forms of its iterations (cl/icgn.cl, cl/icgn_vector.cl) and of
 * tile_prepare run on every device and agree to within float rounding. */
static void check_icgn(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    static const char *const form0_params = "icgn_form=0,tile_form=0";
    static const char *const form1_params = "icgn_form=1,tile_form=1";
    const struct { const char *prefilter, *form; double tol, gradient; } cases[] = {
        { "none", form0_params, 0.002, 1e-4 }, { "none", form1_params, 0.002, 1e-4 },
        { NULL, form0_params, 0.03, 0.005 }, { NULL, form1_params, 0.03, 0.005 } };
    static clx_result results[NIMAGES * NWIN], form0[NIMAGES * NWIN];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clx_plan_options opt;
        clx_plan_options_init(&opt);
        if (cases[c].prefilter)
            opt.prefilter = cases[c].prefilter;
        opt.params = cases[c].form;
        if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, results) != 0)
            continue;
        if (c % 2 == 0) {
            memcpy(form0, results, sizeof results);
        } else {
            double apart = 0, sigma_apart = 0;
            int same = 1, compared = 0;
            for (int t = 0; t < NIMAGES * NWIN; t++) {
                const clx_result *r = &results[t], *r0 = &form0[t];
                apart = fmax(apart, fmax(fabs(r->dx - r0->dx), fabs(r->dy - r0->dy)));
                /* The standard deviations through both forms' reference
                 * sums (H, Q), within 1 % plus what the sums' float
                 * rounding (about 1e-6 of the ZNCC, added in another
                 * order) does to sigma ~ sqrt(1 - ZNCC). A wrong sum is
                 * off by far more. */
                if (r0->zncc < 1 - 1e-6) {
                    const double tol = 1e-2 + 1e-6 / (1 - r0->zncc);
                    sigma_apart = fmax(sigma_apart, fabs(r->sigma_dx - r0->sigma_dx) / (tol * r0->sigma_dx));
                    sigma_apart = fmax(sigma_apart, fabs(r->sigma_dy - r0->sigma_dy) / (tol * r0->sigma_dy));
                    compared++;
                }
                same &= r->flags == r0->flags;
            }
            CHECK(apart <= 2e-4 && same && sigma_apart <= 1,
                  "the two forms, pre-filter %s: offsets %.2g px apart, flags %s, sigmas %.2g of the tolerance",
                  cases[c].prefilter ? cases[c].prefilter : "default", apart, same ? "the same" : "differ",
                  sigma_apart);
            printf("  the work-group and vector forms within %.2g px, sigmas within %.2g of their tolerance (%d)\n",
                   apart, sigma_apart, compared);
        }
        double worst = 0;
        int bad = 0;
        for (int t = 0; t < NIMAGES * NWIN; t++) {
            const clx_result *r = &results[t];
            double e = error_of(r, shifts[t / NWIN]);
            worst = fmax(worst, e);
            int ok = e <= cases[c].tol && r->flags == 0 && r->iterations >= 1 && r->iterations <= opt.refine &&
                     r->zncc > 0.99 && fabs(r->znssd - 2 * (1 - r->zncc)) < 1e-6 && r->sigma_dx >= 0 &&
                     r->sigma_dy >= 0 && fabs(r->dudx) < cases[c].gradient && fabs(r->dudy) < cases[c].gradient &&
                     fabs(r->dvdx) < cases[c].gradient && fabs(r->dvdy) < cases[c].gradient;
            if (!ok && bad++ < 5)
                CHECK(ok, "IC-GN, pre-filter %s, shift (%.2f, %.2f) window %d: (%.4f, %.4f) error %.4f flags %u "
                      "iterations %d zncc %.5f gradients (%.2g, %.2g)", cases[c].prefilter ? cases[c].prefilter :
                      "default", shifts[t / NWIN][0], shifts[t / NWIN][1], t % NWIN, r->dx, r->dy, e, r->flags,
                      r->iterations, r->zncc, r->dudx, r->dvdy);
        }
        printf("  IC-GN, pre-filter %-8s %-23s max error %.4f px (limit %g)\n",
               cases[c].prefilter ? cases[c].prefilter : "default", cases[c].form, worst, cases[c].tol);
    }
}

/* Window offset and refinement are what make the accuracy. */
static void check_refinement_matters(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    clx_result with[NIMAGES * NWIN], without[NIMAGES * NWIN];
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, with) != 0)
        return;
    opt.passes = 1;
    opt.refine = 0;
    if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, without) != 0)
        return;
    double s_with = 0, s_without = 0;
    for (int i = 0; i < NIMAGES; i++)
        for (int k = 0; k < NWIN; k++) {
            s_with += pow(error_of(&with[i * NWIN + k], shifts[i]), 2);
            s_without += pow(error_of(&without[i * NWIN + k], shifts[i]), 2);
            CHECK(without[i * NWIN + k].iterations == 0, "no refinement asked, %d iterations done",
                  without[i * NWIN + k].iterations);
        }
    double rms_with = sqrt(s_with / (NIMAGES * NWIN)), rms_without = sqrt(s_without / (NIMAGES * NWIN));
    CHECK(rms_with * 3 < rms_without, "refined rms %.4f px is not a third of the first pass's %.4f px", rms_with,
          rms_without);
    printf("  first pass only: rms %.4f px; with window offset and refinement: %.4f px\n", rms_without, rms_with);
}

/* A window moved out of the image is kept inside and flagged; the others not. */
static void check_clamped(clx_context *ctx, const struct images *im)
{
    /* The image content moves (-4.8, 0.11): a window at x = 2 would have to
     * start at -2.8. */
    const clx_region regions[] = { { 2, 60, WIN, WIN }, { 90, 60, WIN, WIN } };
    clx_result results[2];
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    if (run(ctx, &im->ref, regions, 2, &im->moved[2], 1, &opt, results) != 0)
        return;
    CHECK(results[0].flags & CLX_FLAG_CLAMPED, "window at the edge moved out of the image: flags %u",
          results[0].flags);
    CHECK(results[1].flags == 0 && error_of(&results[1], shifts[2]) <= 0.02,
          "interior window: flags %u, error %.4f", results[1].flags, error_of(&results[1], shifts[2]));
    printf("  edge window flags %u, offset (%.3f, %.3f)\n", results[0].flags, results[0].dx, results[0].dy);
}

/* One window's content replaced by an unrelated texture: an outlier, and
 * its ZNCC low; its neighbours unaffected. */
static void check_outlier(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    const int victim = 5;
    const clx_region *v = &regions[victim];
    clx_image image, other;
    clx_result results[NWIN];
    td_textured_image(&image, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, shifts[0][0], shifts[0][1], SEED);
    td_textured_image(&other, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, SEED + 1000);
    unsigned short *dst = image.pixels, *src = other.pixels;
    for (int y = v->y - 4; y < v->y + v->h + 4; y++)
        memcpy(dst + (size_t)y * IMAGE_W + v->x - 4, src + (size_t)y * IMAGE_W + v->x - 4,
               sizeof *dst * (size_t)(v->w + 8));
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    if (run(ctx, &im->ref, regions, NWIN, &image, 1, &opt, results) == 0) {
        CHECK((results[victim].flags & CLX_FLAG_OUTLIER) && results[victim].zncc < 0.5,
              "replaced window: flags %u, zncc %.3f, offset (%.2f, %.2f)", results[victim].flags,
              results[victim].zncc, results[victim].dx, results[victim].dy);
        for (int k = 0; k < NWIN; k++)
            if (k != victim)
                CHECK(!(results[k].flags & CLX_FLAG_OUTLIER) && error_of(&results[k], shifts[0]) <= 0.02,
                      "window %d next to the replaced one: flags %u, error %.4f", k, results[k].flags,
                      error_of(&results[k], shifts[0]));
        printf("  replaced window: flags %u, zncc %.3f\n", results[victim].flags, results[victim].zncc);
    }
    clx_image_free(&image);
    clx_image_free(&other);
}

/* One iteration with an unreachable tolerance: every window unconverged. */
static void check_unconverged(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    clx_result results[NWIN];
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    opt.refine = 1;
    opt.tolerance = 1e-12;
    if (run(ctx, &im->ref, regions, NWIN, &im->moved[0], 1, &opt, results) != 0)
        return;
    int flagged = 0;
    for (int k = 0; k < NWIN; k++) {
        flagged += (results[k].flags & CLX_FLAG_UNCONVERGED) != 0;
        CHECK(results[k].iterations == 1, "window %d: %d iterations with --refine 1", k, results[k].iterations);
    }
    CHECK(flagged == NWIN, "%d of %d windows flagged unconverged", flagged, NWIN);
}

/* Double precision: the same offsets, to well within the accuracy. */
static void check_double(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    clx_result f[NIMAGES * NWIN], d[NIMAGES * NWIN];
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, f) != 0)
        return;
    opt.use_double = 1;
    if (run(ctx, &im->ref, regions, NWIN, im->moved, NIMAGES, &opt, d) != 0)
        return;
    double worst = 0;
    for (int t = 0; t < NIMAGES * NWIN; t++)
        worst = fmax(worst, fmax(fabs(f[t].dx - d[t].dx), fabs(f[t].dy - d[t].dy)));
    CHECK(worst <= 2e-3, "float and double offsets differ by %.2g px", worst);
    printf("  float and double within %.2g px\n", worst);
}

/* make check-oclgrind (td_simulator): the accurate pipeline and its IC-GN
 * refinement (cl/icgn.cl, and the vector forms in float) on two windows
 * of the first image, in float and in double; a simulated device takes
 * minutes for even that. */
static void check_simulated(clx_context *ctx, const struct images *im, const clx_region *regions)
{
    clx_result results[2];
    /* Float and double in IC-GN's work-group form, and float in its vector
     * form; quick (CI's subset): the default, float in the work-group form. */
    int passes = td_simulator_quick() ? 1 : clx_context_device(ctx)->has_fp64 ? 3 : 2;
    for (int pass = 0; pass < passes; pass++) {
        const int dbl = pass == 2;
        clx_plan_options opt;
        clx_plan_options_init(&opt);
        opt.use_double = dbl;
        opt.params = pass == 1 ? "icgn_form=1,tile_form=1" : "icgn_form=0,tile_form=0";
        if (run(ctx, &im->ref, regions, 2, im->moved, 1, &opt, results) != 0)
            continue;
        for (int k = 0; k < 2; k++) {
            double e = error_of(&results[k], shifts[0]);
            CHECK(e <= 0.05 && !isnan(results[k].zncc), "simulated %s, %s, window %d: error %.4f px, zncc %.4f",
                  dbl ? "double" : "float", opt.params, k, e, results[k].zncc);
        }
    }
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    clx_region regions[NWIN];
    struct images im;
    grid(regions);
    make_images(&im);

    check_refine_step();
    if (td_simulator()) {
        check_simulated(ctx, &im, regions);
        free_images(&im);
        clx_context_release(ctx);
        printf("simulator: two windows, %s; %s (%d failures)\n",
               td_simulator_quick() ? "float (quick)" : "float and double", test_failures ? "FAILED" : "passed",
               test_failures);
        return test_failures ? 1 : 0;
    }
    check_convergence(ctx, &im, regions);
    check_icgn(ctx, &im, regions);
    check_icgn_sources(ctx, &im, regions);
    check_refinement_matters(ctx, &im, regions);
    check_clamped(ctx, &im);
    check_outlier(ctx, &im, regions);
    check_unconverged(ctx, &im, regions);
    if (clx_context_device(ctx)->has_fp64)
        check_double(ctx, &im, regions);
    else
        printf("  (no fp64 on this device: double precision not checked)\n");

    free_images(&im);
    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
