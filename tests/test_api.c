/*
 * test_api.c - the public API as a program sees it, linked against the
 * installed form of the library (src/libclxcorr.la, clx_ symbols only):
 *
 *   - every status has its name; NULL arguments give CLX_ERR_ARGUMENT and
 *     never crash, for every function that takes a context, plan or filter;
 *   - misuse is detected: a plan, filter or context used after its release,
 *     released twice, or a pointer that never came from the library gives
 *     CLX_ERR_STATE; a context released with plans still open releases them;
 *   - two plans at once on one context (different modes, windows and
 *     batches, pushes interleaved) give exactly the results each gives
 *     alone, and those are the known shifts of the images.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clxcorr.h"
#include "test_data.h"

#define IMAGE_W 96
#define IMAGE_H 80
#define NIMAGES 5

/* The known shift of image k (position in the image minus in the reference). */
static double shift_x(int k) { return 0.35 * k - 0.6; }
static double shift_y(int k) { return -0.25 * k + 0.4; }

/* ---- without a device ---------------------------------------------------- */

static void check_status_names(void)
{
    static const struct {
        int status;
        const char *name;
    } names[] = {
        { CLX_OK, "CLX_OK" },
        { CLX_ERR_ARGUMENT, "CLX_ERR_ARGUMENT" },
        { CLX_ERR_HOST_MEMORY, "CLX_ERR_HOST_MEMORY" },
        { CLX_ERR_IO, "CLX_ERR_IO" },
        { CLX_ERR_FORMAT, "CLX_ERR_FORMAT" },
        { CLX_ERR_NO_DEVICE, "CLX_ERR_NO_DEVICE" },
        { CLX_ERR_UNSUPPORTED, "CLX_ERR_UNSUPPORTED" },
        { CLX_ERR_OPENCL, "CLX_ERR_OPENCL" },
        { CLX_ERR_DEVICE_MEMORY, "CLX_ERR_DEVICE_MEMORY" },
        { CLX_ERR_BUILD, "CLX_ERR_BUILD" },
        { CLX_ERR_FFT, "CLX_ERR_FFT" },
        { CLX_ERR_SIZE, "CLX_ERR_SIZE" },
        { CLX_ERR_REGION, "CLX_ERR_REGION" },
        { CLX_ERR_STATE, "CLX_ERR_STATE" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK(strcmp(clx_status_name(names[i].status), names[i].name) == 0, "status %d is named %s, not %s",
              names[i].status, clx_status_name(names[i].status), names[i].name);
    CHECK(strcmp(clx_status_name(-99), "CLX_ERR_UNKNOWN") == 0, "an unknown status: %s", clx_status_name(-99));
    CHECK(strcmp(clx_version(), PACKAGE_VERSION) == 0, "clx_version %s, configure says %s", clx_version(),
          PACKAGE_VERSION);
    CHECK(strstr(clx_build_features(), "clfft") != NULL, "build features lack clfft: %s", clx_build_features());
}

/* Every function taking a context, plan or filter refuses NULL. */
static void check_null_handles(void)
{
    clx_image img = { 0 };
    clx_result res[1];
    clx_plan *plan = NULL;
    clx_filter *filter = NULL;
    clx_filter_options fopt;
    clx_stage_time times[1];
    size_t count = 7;
    double bus, memory;
    int w = 5, h = 5;

    clx_filter_options_init(&fopt);
    fopt.spec = "gaussian:1";
    CHECK(clx_context_open(NULL, NULL, NULL) == CLX_ERR_ARGUMENT, "open with a NULL context pointer");
    CHECK(clx_plan_create(NULL, &img, NULL, 0, NULL, &plan) == CLX_ERR_ARGUMENT, "plan on a NULL context");
    CHECK(clx_filter_create(NULL, &fopt, &filter) == CLX_ERR_ARGUMENT, "filter on a NULL context");
    CHECK(clx_plan_push(NULL, &img, 1) == CLX_ERR_ARGUMENT, "push to a NULL plan");
    CHECK(clx_plan_push_pixels(NULL, &w, CLX_PIXEL_U8, 1) == CLX_ERR_ARGUMENT, "push pixels to a NULL plan");
    CHECK(clx_plan_read(NULL, res, 1) == CLX_ERR_ARGUMENT, "read from a NULL plan");
    CHECK(clx_plan_read_surfaces(NULL, NULL, 0) == CLX_ERR_ARGUMENT, "surfaces of a NULL plan");
    CHECK(clx_plan_set_reference(NULL, &img) == CLX_ERR_ARGUMENT, "reference of a NULL plan");
    CHECK(clx_filter_apply(NULL, &img, &img) == CLX_ERR_ARGUMENT, "apply a NULL filter");
    CHECK(clx_context_stage_times(NULL, times, 1, &count) == CLX_ERR_ARGUMENT, "stage times of a NULL context");
    CHECK(clx_context_bandwidth(NULL, &bus, &memory) == CLX_ERR_ARGUMENT, "bandwidth of a NULL context");
    CHECK(clx_stream_run(NULL, &img, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL) == CLX_ERR_ARGUMENT,
          "stream on a NULL context");
    CHECK(clx_tune(NULL, &img, NULL, 0, NULL, NULL, 0, NULL, NULL) == CLX_ERR_ARGUMENT, "tune on a NULL context");
    CHECK(clx_plan_batch_size(NULL) == 0 && clx_plan_region_count(NULL) == 0, "sizes of a NULL plan");
    CHECK(clx_plan_method(NULL) == CLX_METHOD_AUTO, "method of a NULL plan");
    CHECK(strcmp(clx_plan_explanation(NULL), "") == 0 && strcmp(clx_plan_fft(NULL), "") == 0 &&
              strcmp(clx_plan_tuning(NULL), "") == 0, "strings of a NULL plan");
    clx_plan_surface_size(NULL, &w, &h);
    CHECK(w == 0 && h == 0, "surface size of a NULL plan: %dx%d", w, h);
    CHECK(clx_context_device(NULL) == NULL, "device of a NULL context");
    CHECK(strcmp(clx_context_message(NULL), "") == 0, "message of a NULL context: %s", clx_context_message(NULL));
    /* Releasing nothing is allowed, as free(NULL) is. */
    clx_plan_release(NULL);
    clx_filter_release(NULL);
    clx_context_release(NULL);
    clx_context_stage_times_reset(NULL);
}

/* Pointers that never came from the library are refused without being read. */
static void check_foreign_handles(void)
{
    /* Zeroed memory the size of anything the library could hand out: a
     * check that read the object would find nothing valid in it. */
    static double storage[4096];
    clx_plan *plan = (clx_plan *)storage;
    clx_context *ctx = (clx_context *)storage;
    clx_image img = { 0 };
    clx_result res[1];
    clx_plan *made = NULL;

    CHECK(clx_plan_push(plan, &img, 1) == CLX_ERR_STATE, "push to a plan never created");
    CHECK(clx_plan_read(plan, res, 1) == CLX_ERR_STATE, "read from a plan never created");
    CHECK(clx_plan_batch_size(plan) == 0, "batch size of a plan never created");
    CHECK(clx_plan_create(ctx, &img, NULL, 0, NULL, &made) == CLX_ERR_STATE && made == NULL,
          "plan on a context never opened");
    CHECK(clx_context_device(ctx) == NULL, "device of a context never opened");
    CHECK(strstr(clx_context_message(ctx), "not an open context") != NULL, "message of a context never opened: %s",
          clx_context_message(ctx));
    clx_plan_release(plan);      /* ignored: not one of the library's */
    clx_context_release(ctx);
}

/* ---- with a device ------------------------------------------------------- */

static clx_plan *plan_or_die(clx_context *ctx, const clx_image *ref, const clx_region *regions, size_t n,
                             const clx_plan_options *opt)
{
    clx_plan *plan = NULL;
    if (clx_plan_create(ctx, ref, regions, n, opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create: %s\n", clx_context_message(ctx));
        exit(1);
    }
    return plan;
}

/* Pushes `first`..NIMAGES-1 in the plan's batches; results image by image. */
static void run_alone(clx_context *ctx, clx_plan *plan, const clx_image *images, clx_result *results)
{
    size_t nwin = clx_plan_region_count(plan);
    int batch = clx_plan_batch_size(plan);
    for (int i = 0; i < NIMAGES; i += batch) {
        size_t n = (size_t)(NIMAGES - i < batch ? NIMAGES - i : batch);
        if (clx_plan_push(plan, images + i, n) != CLX_OK ||
            clx_plan_read(plan, results + (size_t)i * nwin, n * nwin) != CLX_OK) {
            fprintf(stderr, "push/read: %s\n", clx_context_message(ctx));
            exit(1);
        }
    }
}

static int same_result(const clx_result *a, const clx_result *b)
{
    return a->dx == b->dx && a->dy == b->dy && a->ix == b->ix && a->iy == b->iy && a->flags == b->flags &&
           a->peak == b->peak;
}

/*
 * Two plans on one context, pushed alternately image by image and read in
 * the other order, give bit for bit what each gives alone: a seed-mode plan
 * on a 3 x 2 grid of 24 x 24 windows with batches of 2, and an
 * accurate-mode plan on two 32 x 32 windows with batches of 3.
 */
static void check_two_plans(clx_context *ctx, const clx_image *ref, const clx_image *images)
{
    clx_region *grid = NULL, pair[2] = { { 10, 12, 32, 32 }, { 50, 36, 32, 32 } };
    size_t ngrid = 0;
    clx_message msg;
    clx_plan_options seed, accurate;
    clx_result alone_a[NIMAGES * 6], alone_b[NIMAGES * 2], both_a[NIMAGES * 6], both_b[NIMAGES * 2];

    if (clx_regions_grid(3, 2, 24, 24, 8, IMAGE_W, IMAGE_H, &grid, &ngrid, &msg) != CLX_OK) {
        fprintf(stderr, "clx_regions_grid: %s\n", msg.text);
        exit(1);
    }
    clx_plan_options_init(&seed);
    seed.mode = CLX_MODE_SEED;
    seed.batch = 2;
    clx_plan_options_init(&accurate);
    accurate.batch = 3;

    clx_plan *a = plan_or_die(ctx, ref, grid, ngrid, &seed);
    run_alone(ctx, a, images, alone_a);
    clx_plan_release(a);
    clx_plan *b = plan_or_die(ctx, ref, pair, 2, &accurate);
    run_alone(ctx, b, images, alone_b);
    clx_plan_release(b);

    a = plan_or_die(ctx, ref, grid, ngrid, &seed);
    b = plan_or_die(ctx, ref, pair, 2, &accurate);
    for (int i = 0; i < NIMAGES; i++) {
        int status = clx_plan_push(a, &images[i], 1);
        if (status == CLX_OK)
            status = clx_plan_push(b, &images[i], 1);
        if (status == CLX_OK)
            status = clx_plan_read(b, both_b + (size_t)i * 2, 2);
        if (status == CLX_OK)
            status = clx_plan_read(a, both_a + (size_t)i * ngrid, ngrid);
        CHECK(status == CLX_OK, "image %d through two plans: %s %s", i, clx_status_name(status),
              clx_context_message(ctx));
    }
    int differ = 0;
    for (size_t t = 0; t < NIMAGES * ngrid; t++)
        differ += !same_result(&alone_a[t], &both_a[t]);
    for (size_t t = 0; t < NIMAGES * 2; t++)
        differ += !same_result(&alone_b[t], &both_b[t]);
    CHECK(differ == 0, "%d results differ between two plans at once and each alone", differ);

    /* And the values are the shifts the images were made with: the seed
     * method within its known bias (toward zero shift, up to ~0.45 px on
     * 24 x 24 windows: doc/accurate-mode.md), the accurate mode within
     * 0.02 px. */
    double worst_seed = 0, worst_accurate = 0;
    for (int i = 0; i < NIMAGES; i++) {
        for (size_t w = 0; w < ngrid; w++) {
            const clx_result *r = &both_a[i * ngrid + w];
            worst_seed = fmax(worst_seed, fmax(fabs(r->dx - shift_x(i)), fabs(r->dy - shift_y(i))));
        }
        for (int w = 0; w < 2; w++) {
            const clx_result *r = &both_b[i * 2 + w];
            worst_accurate = fmax(worst_accurate, fmax(fabs(r->dx - shift_x(i)), fabs(r->dy - shift_y(i))));
            CHECK(r->flags == 0 && r->zncc > 0.99, "image %d window %d: flags %u, zncc %.4f", i, w, r->flags,
                  r->zncc);
        }
    }
    CHECK(worst_seed < 0.5, "seed mode: largest error %.4f px", worst_seed);
    CHECK(worst_accurate < 0.02, "accurate mode: largest error %.4f px", worst_accurate);
    printf("two plans at once: identical to each alone; largest error seed %.4f px, accurate %.4f px\n",
           worst_seed, worst_accurate);

    clx_plan_release(a);
    clx_plan_release(b);
    free(grid);
}

/* A released plan is refused, not read: every call says CLX_ERR_STATE, and a
 * second release does nothing. */
static void check_plan_after_release(clx_context *ctx, const clx_image *ref, const clx_image *images)
{
    const clx_region region = { 20, 20, 32, 32 };
    clx_plan_options opt;
    clx_result res[2];
    float surface[1];
    int w = 9, h = 9;

    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    clx_plan *plan = plan_or_die(ctx, ref, &region, 1, &opt);
    CHECK(clx_plan_batch_size(plan) > 0, "a live plan has a batch size");
    clx_plan_release(plan);

    CHECK(clx_plan_push(plan, images, 1) == CLX_ERR_STATE, "push after release");
    CHECK(clx_plan_push_pixels(plan, images[0].pixels, images[0].type, 1) == CLX_ERR_STATE,
          "push pixels after release");
    CHECK(clx_plan_read(plan, res, 2) == CLX_ERR_STATE, "read after release");
    CHECK(clx_plan_read_surfaces(plan, surface, 1) == CLX_ERR_STATE, "surfaces after release");
    CHECK(clx_plan_set_reference(plan, ref) == CLX_ERR_STATE, "new reference after release");
    CHECK(clx_plan_batch_size(plan) == 0 && clx_plan_region_count(plan) == 0, "sizes after release");
    CHECK(strcmp(clx_plan_explanation(plan), "") == 0, "explanation after release");
    clx_plan_surface_size(plan, &w, &h);
    CHECK(w == 0 && h == 0, "surface size after release: %dx%d", w, h);
    clx_plan_release(plan);      /* a second release does nothing */

    /* A context passed where a plan belongs is refused too. */
    CHECK(clx_plan_push((clx_plan *)ctx, images, 1) == CLX_ERR_STATE, "a context passed as a plan");

    /* The context is unharmed: a new plan works. */
    plan = plan_or_die(ctx, ref, &region, 1, &opt);
    CHECK(clx_plan_push(plan, &images[2], 1) == CLX_OK && clx_plan_read(plan, res, 1) == CLX_OK,
          "a plan after a released one: %s", clx_context_message(ctx));
    CHECK(fabs(res[0].dx - shift_x(2)) < 0.25 && fabs(res[0].dy - shift_y(2)) < 0.25,
          "its offset (%.4f, %.4f), made with (%.2f, %.2f)", res[0].dx, res[0].dy, shift_x(2), shift_y(2));
    clx_plan_release(plan);
}

static void check_filter_after_release(clx_context *ctx, const clx_image *ref)
{
    clx_filter_options opt;
    clx_filter *filter = NULL;
    clx_image out = { 0 };

    clx_filter_options_init(&opt);
    opt.spec = "gaussian:1";
    CHECK(clx_filter_create(ctx, &opt, &filter) == CLX_OK, "filter: %s", clx_context_message(ctx));
    CHECK(clx_filter_apply(filter, ref, &out) == CLX_OK && out.width == IMAGE_W && out.type == CLX_PIXEL_F32,
          "apply: %s", clx_context_message(ctx));
    clx_image_free(&out);
    clx_filter_release(filter);
    CHECK(clx_filter_apply(filter, ref, &out) == CLX_ERR_STATE && out.pixels == NULL, "apply after release");
    clx_filter_release(filter);
}

static struct {
    int warnings;
    char last[1024];
} logged;

static void log_line(void *user, clx_log_level level, const char *line)
{
    if (level == CLX_LOG_WARNING) {
        logged.warnings++;
        snprintf(logged.last, sizeof logged.last, "%s", line);
    }
}

/* A context released before its plans takes them with it (and says so in
 * its log), so that they never point into a freed context. */
static void check_context_after_release(const clx_image *ref, const clx_image *images)
{
    const clx_region region = { 20, 20, 32, 32 };
    clx_context_options copt;
    clx_plan_options popt;
    clx_context *ctx;
    clx_plan *plan;
    clx_message msg;
    clx_result res[1];

    clx_context_options_init(&copt);
    copt.log = log_line;
    if (clx_context_open(&copt, &ctx, &msg) != CLX_OK) {
        fprintf(stderr, "clx_context_open: %s\n", msg.text);
        exit(1);
    }
    clx_plan_options_init(&popt);
    popt.mode = CLX_MODE_SEED;
    plan = plan_or_die(ctx, ref, &region, 1, &popt);
    CHECK(clx_plan_push(plan, images, 1) == CLX_OK, "push: %s", clx_context_message(ctx));
    /* Released with a push unread: the plan waits for the device first. */
    clx_context_release(ctx);
    CHECK(logged.warnings == 1 && strstr(logged.last, "1 plan(s), 0 filter(s) and 0 warp(s) were still open"),
          "%d warnings, last: %s", logged.warnings, logged.last);
    CHECK(clx_plan_read(plan, res, 1) == CLX_ERR_STATE, "read from a plan its context took with it");
    CHECK(clx_plan_create(ctx, ref, &region, 1, &popt, &plan) == CLX_ERR_STATE, "plan on a released context");
    CHECK(clx_context_device(ctx) == NULL, "device of a released context");
    CHECK(strstr(clx_context_message(ctx), "not an open context") != NULL, "message of a released context: %s",
          clx_context_message(ctx));
    clx_plan_release(plan);      /* the usual order, too late: does nothing */
    clx_context_release(ctx);    /* a second release does nothing */
}

int main(void)
{
    clx_context *ctx;
    clx_image ref, images[NIMAGES];

    check_status_names();
    check_null_handles();
    check_foreign_handles();
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return test_failures ? 1 : TEST_SKIP;

    td_textured_image(&ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 11);
    for (int k = 0; k < NIMAGES; k++)
        td_textured_image(&images[k], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, shift_x(k), shift_y(k), 11);

    check_two_plans(ctx, &ref, images);
    check_plan_after_release(ctx, &ref, images);
    check_filter_after_release(ctx, &ref);
    clx_context_release(ctx);
    check_context_after_release(&ref, images);

    clx_image_free(&ref);
    for (int k = 0; k < NIMAGES; k++)
        clx_image_free(&images[k]);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
