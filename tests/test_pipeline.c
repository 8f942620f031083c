/*
 * test_pipeline.c - the whole seed pipeline through the public API against
 * the double-precision host reference of doc/conventions.md (tests/host_ref.c):
 * offsets within 1e-3 px in float and 1e-6 px in double, identical integer
 * peaks and flags; integer shifts coming back exactly; batches that do not
 * divide the image count; windows whose rows the plan uploads cropped
 * (src/pipeline/upload_crop.h); and the API's error codes for misuse.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_ref.h"
#include "pipeline/upload_crop.h"
#include "test_data.h"

#define IMAGE_W 128
#define IMAGE_H 96

static clx_plan *plan_or_die(clx_context *ctx, const clx_image *ref, const clx_region *regions, size_t n,
                             const clx_plan_options *opt)
{
    clx_plan *plan;
    if (clx_plan_create(ctx, ref, regions, n, opt, &plan) != CLX_OK) {
        fprintf(stderr, "clx_plan_create: %s\n", clx_context_message(ctx));
        exit(1);
    }
    return plan;
}

/* Runs nimages images through the plan in batches; results image by image. */
static void run_all(clx_context *ctx, clx_plan *plan, const clx_image *images, int nimages, clx_result *results)
{
    size_t nwin = clx_plan_region_count(plan);
    int batch = clx_plan_batch_size(plan);
    for (int i = 0; i < nimages; i += batch) {
        size_t n = (size_t)(nimages - i < batch ? nimages - i : batch);
        if (clx_plan_push(plan, images + i, n) != CLX_OK ||
            clx_plan_read(plan, results + (size_t)i * nwin, n * nwin) != CLX_OK) {
            fprintf(stderr, "push/read: %s\n", clx_context_message(ctx));
            exit(1);
        }
    }
}

/* Offsets of sub-pixel-shifted textured images against the host reference. */
static void check_against_reference(clx_context *ctx, int w, int h, int use_double, int F, int batch)
{
    enum { NIMAGES = 5 };
    clx_region regions[6];
    clx_image ref, images[NIMAGES];
    clx_result results[NIMAGES * 6], want;
    const int nwin = 6;
    double tol = use_double ? 1e-6 : 1e-3, worst = 0;

    for (int k = 0; k < nwin; k++) {
        regions[k].x = 6 + (k % 3) * ((IMAGE_W - w - 12) / 2);
        regions[k].y = 6 + (k / 3) * (IMAGE_H - h - 12);
        regions[k].w = w;
        regions[k].h = h;
    }
    td_textured_image(&ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 42);
    for (int i = 0; i < NIMAGES; i++)
        td_textured_image(&images[i], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0.37 * i - 0.9, 1.3 - 0.61 * i, 42);

    clx_plan_options opt;
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.use_double = use_double;
    opt.fit_size = F;
    opt.batch = batch;
    clx_plan *plan = plan_or_die(ctx, &ref, regions, nwin, &opt);
    run_all(ctx, plan, images, NIMAGES, results);

    for (int i = 0; i < NIMAGES; i++)
        for (int k = 0; k < nwin; k++) {
            const clx_result *got = &results[i * nwin + k];
            href_offset(&ref, &images[i], &regions[k], F, 0, &want);
            double err = fmax(fabs(got->dx - want.dx), fabs(got->dy - want.dy));
            if (err > worst)
                worst = err;
            CHECK(err <= tol, "%dx%d F=%d %s image %d window %d: (%.7f, %.7f), reference (%.7f, %.7f)", w, h, F,
                  use_double ? "double" : "float", i, k, got->dx, got->dy, want.dx, want.dy);
            CHECK(got->ix == want.ix && got->iy == want.iy && got->flags == want.flags,
                  "image %d window %d: peak (%d,%d) flags %u, reference (%d,%d) flags %u", i, k, got->ix, got->iy,
                  got->flags, want.ix, want.iy, want.flags);
            CHECK(fabs(got->peak - want.peak) <= (use_double ? 1e-9 : 1e-5) * fabs(want.peak),
                  "image %d window %d: peak value %.9g, reference %.9g", i, k, got->peak, want.peak);
        }
    printf("pipeline %dx%d F=%d batch %d %s: worst offset difference %.3g px (tolerance %g)\n", w, h, F,
           clx_plan_batch_size(plan), use_double ? "double" : "float", worst, tol);
    clx_plan_release(plan);
    clx_image_free(&ref);
    for (int i = 0; i < NIMAGES; i++)
        clx_image_free(&images[i]);
}

/*
 * The upload crop (src/pipeline/upload_crop.h): the bands it merges the
 * windows' rows into, where a window's corner lands in the stacked copy,
 * and that it is left unused where it would save less than a tenth.
 */
static void check_upload_crop_layout(void)
{
    /* Rows 10-29 and 25-44 overlap, 45-54 touches them: one band of 45
     * rows; 70-79 stands alone. Columns 3 .. 3 + 60 - 1. */
    const clx_region r[] = { { 40, 70, 10, 10 }, { 3, 10, 20, 20 }, { 50, 25, 13, 20 }, { 7, 45, 10, 10 } };
    struct upload_crop c;
    CHECK(upload_crop_choose(&c, r, 4, 100, 90) == CLX_OK, "upload_crop_choose");
    CHECK(c.used && c.nbands == 2 && c.x0 == 3 && c.width == 60 && c.height == 55, "crop: used %d, %d bands, "
          "x0 %d, %dx%d; want 2 bands, x0 3, 60x55", c.used, c.nbands, c.x0, c.width, c.height);
    CHECK(c.nbands == 2 && c.bands[0].y == 10 && c.bands[0].h == 45 && c.bands[0].at == 0 && c.bands[1].y == 70 &&
          c.bands[1].h == 10 && c.bands[1].at == 45, "crop bands (%d %d %d), (%d %d %d); want (10 45 0), (70 10 45)",
          c.bands[0].y, c.bands[0].h, c.bands[0].at, c.bands[1].y, c.bands[1].h, c.bands[1].at);
    int x, y, w, h;
    upload_crop_map(&c, 40, 70, &x, &y);
    CHECK(x == 37 && y == 45, "window (40, 70) maps to (%d, %d), want (37, 45)", x, y);
    upload_crop_map(&c, 50, 25, &x, &y);
    CHECK(x == 47 && y == 15, "window (50, 25) maps to (%d, %d), want (47, 15)", x, y);
    upload_crop_size(&c, &w, &h);
    CHECK(w == 60 && h == 55, "device copy %dx%d, want 60x55", w, h);
    upload_crop_release(&c);

    /* Windows over 95 of 100 rows and every column: whole images go up. */
    const clx_region tall[] = { { 0, 0, 50, 50 }, { 50, 45, 50, 50 } };
    CHECK(upload_crop_choose(&c, tall, 2, 100, 100) == CLX_OK && !c.used, "a crop that saves 5%% is not used");
    upload_crop_size(&c, &w, &h);
    CHECK(w == 100 && h == 100, "unused crop: device copy %dx%d, want the image's 100x100", w, h);
    upload_crop_release(&c);
}

/*
 * Windows whose rows overlap, touch or stand alone, out to the image's
 * left and right edges and its last row, and not in row order: the
 * cropped upload gives the host reference's offsets window by window.
 */
static void check_cropped_windows(clx_context *ctx)
{
    enum { NIMAGES = 3, NWIN = 6 };
    const clx_region regions[NWIN] = { { 60, 70, 20, 20 }, { 0, 4, 20, 20 }, { 30, 16, 20, 20 },
                                       { 108, 24, 20, 20 }, { 90, 76, 20, 20 }, { 5, 40, 20, 20 } };
    clx_image ref, images[NIMAGES];
    clx_result results[NIMAGES * NWIN], want;
    double worst = 0;

    td_textured_image(&ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 7);
    for (int i = 0; i < NIMAGES; i++)
        td_textured_image(&images[i], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 1.4 - 0.8 * i, 0.45 * i - 0.7, 7);
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.batch = 2;
    clx_plan *plan = plan_or_die(ctx, &ref, regions, NWIN, &opt);
    run_all(ctx, plan, images, NIMAGES, results);
    for (int i = 0; i < NIMAGES; i++)
        for (int k = 0; k < NWIN; k++) {
            const clx_result *got = &results[i * NWIN + k];
            href_offset(&ref, &images[i], &regions[k], 5, 0, &want);
            double err = fmax(fabs(got->dx - want.dx), fabs(got->dy - want.dy));
            worst = err > worst ? err : worst;
            CHECK(err <= 1e-3 && got->ix == want.ix && got->iy == want.iy && got->flags == want.flags,
                  "cropped upload, image %d window %d: (%.6f, %.6f) flags %u, reference (%.6f, %.6f) flags %u", i,
                  k, got->dx, got->dy, got->flags, want.dx, want.dy, want.flags);
        }
    printf("cropped upload (rows 4-59 and 70-95 of %d, columns 0-%d): worst offset difference %.3g px\n", IMAGE_H,
           IMAGE_W - 1, worst);
    /* What a loader may read alone (clx_plan_rows_read): those two runs. */
    clx_rows rows[3];
    size_t nrows = clx_plan_rows_read(plan, rows, 3);
    CHECK(nrows == 2 && rows[0].first == 4 && rows[0].count == 56 && rows[1].first == 70 && rows[1].count == 26,
          "rows read: %zu runs (%d +%d, %d +%d), want 2 (4 +56, 70 +26)", nrows, rows[0].first, rows[0].count,
          rows[1].first, rows[1].count);
    CHECK(clx_plan_rows_read(plan, NULL, 0) == 2, "rows read: the count without room for the runs");
    clx_plan_release(plan);
    /* The accurate mode samples around the windows: every row. */
    opt.mode = CLX_MODE_ACCURATE;
    plan = plan_or_die(ctx, &ref, regions, NWIN, &opt);
    nrows = clx_plan_rows_read(plan, rows, 3);
    CHECK(nrows == 1 && rows[0].first == 0 && rows[0].count == IMAGE_H, "accurate mode: %zu runs (%d +%d), want "
          "all %d rows", nrows, rows[0].first, rows[0].count, IMAGE_H);
    clx_plan_release(plan);
    CHECK(clx_plan_rows_read(NULL, rows, 3) == 0, "rows read of a NULL plan");
    clx_image_free(&ref);
    for (int i = 0; i < NIMAGES; i++)
        clx_image_free(&images[i]);
}

/*
 * Integer shifts: zero-mean features that lie wholly inside every window in
 * both images, so the correlation around the peak is the features'
 * autocorrelation, symmetric, and the fit's sub-pixel part is zero up to
 * rounding. The offset must be the shift.
 */
static void check_integer_shifts(clx_context *ctx, int use_double)
{
    const int w = 32, h = 32;
    const clx_region regions[2] = { { 10, 10, w, h }, { 60, 40, w, h } };
    const int shifts[][2] = { { 0, 0 }, { 3, 1 }, { -4, 2 }, { 5, -5 }, { -2, -3 } };
    const int nshifts = (int)(sizeof shifts / sizeof shifts[0]);
    clx_image ref, images[5];
    clx_result results[5 * 2];
    double tol = use_double ? 1e-9 : 1e-4;
    uint64_t seed = 7;

    /* A +/- pattern with exactly zero sum in a 10x10 patch at each window's
     * centre, on a zero background. */
    double patch[10][10];
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 5; x++) {
            patch[y][x] = 100 + (double)(td_next(&seed) % 900);
            patch[9 - y][9 - x] = -patch[y][x];
        }
    clx_message msg;
    for (int i = -1; i < nshifts; i++) {
        clx_image *img = i < 0 ? &ref : &images[i];
        int sx = i < 0 ? 0 : shifts[i][0], sy = i < 0 ? 0 : shifts[i][1];
        if (clx_image_alloc(img, IMAGE_W, IMAGE_H, CLX_PIXEL_F32, &msg) != CLX_OK)
            exit(1);
        memset(img->pixels, 0, sizeof(float) * IMAGE_W * IMAGE_H);
        for (int k = 0; k < 2; k++)
            for (int y = 0; y < 10; y++)
                for (int x = 0; x < 10; x++)
                    ((float *)img->pixels)[(regions[k].y + 11 + y + sy) * IMAGE_W + regions[k].x + 11 + x + sx] =
                        (float)patch[y][x];
    }
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.use_double = use_double;
    clx_plan *plan = plan_or_die(ctx, &ref, regions, 2, &opt);
    run_all(ctx, plan, images, nshifts, results);
    for (int i = 0; i < nshifts; i++)
        for (int k = 0; k < 2; k++) {
            const clx_result *r = &results[i * 2 + k];
            CHECK(r->ix == shifts[i][0] && r->iy == shifts[i][1] && fabs(r->dx - shifts[i][0]) <= tol &&
                      fabs(r->dy - shifts[i][1]) <= tol && r->flags == 0,
                  "integer shift (%d,%d) %s window %d: peak (%d,%d), offset (%.9f, %.9f), flags %u", shifts[i][0],
                  shifts[i][1], use_double ? "double" : "float", k, r->ix, r->iy, r->dx, r->dy, r->flags);
        }
    printf("integer shifts (%s): checked to %g px\n", use_double ? "double" : "float", tol);
    clx_plan_release(plan);
    clx_image_free(&ref);
    for (int i = 0; i < nshifts; i++)
        clx_image_free(&images[i]);
}

/* A flat window (or one that becomes flat) has no peak: flagged, offset 0. */
static void check_flat_window(clx_context *ctx, int use_double)
{
    const clx_region regions[2] = { { 8, 8, 24, 24 }, { 60, 40, 24, 24 } };
    clx_image ref, img;
    clx_result res[2];
    td_textured_image(&ref, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 9);
    td_textured_image(&img, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0.5, 0, 9);
    for (int y = 40; y < 64; y++)
        for (int x = 60; x < 84; x++)
            ((uint16_t *)img.pixels)[y * IMAGE_W + x] = 31337;
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.use_double = use_double;
    clx_plan *plan = plan_or_die(ctx, &ref, regions, 2, &opt);
    run_all(ctx, plan, &img, 1, res);
    CHECK(res[0].flags == 0, "textured window: flags %u", res[0].flags);
    CHECK(res[1].flags == (CLX_FLAG_NO_PEAK | CLX_FLAG_FIT_FAILED) && res[1].dx == 0 && res[1].dy == 0 &&
              res[1].peak == 0,
          "flat window (%s): flags %u, offset (%g, %g), peak %g", use_double ? "double" : "float", res[1].flags,
          res[1].dx, res[1].dy, res[1].peak);
    clx_plan_release(plan);
    clx_image_free(&ref);
    clx_image_free(&img);
    printf("flat window (%s): checked\n", use_double ? "double" : "float");
}

/* The API refuses misuse with the documented status, and recovers. */
static void check_api_errors(clx_context *ctx)
{
    const clx_region region = { 4, 4, 16, 16 };
    const clx_region outside = { 100, 4, 32, 16 };
    const clx_region two_sizes[2] = { { 4, 4, 16, 16 }, { 30, 4, 12, 16 } };
    clx_image ref, img, small;
    clx_result res[4];
    clx_plan *plan = NULL;
    clx_plan_options opt;

    td_textured_image(&ref, 64, 48, CLX_PIXEL_U16, 0, 0, 3);
    td_textured_image(&img, 64, 48, CLX_PIXEL_U16, 1, 0, 3);
    td_textured_image(&small, 60, 48, CLX_PIXEL_U16, 1, 0, 3);
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;

    CHECK(clx_plan_create(ctx, &ref, &outside, 1, &opt, &plan) == CLX_ERR_REGION && !plan,
          "a window outside the image is refused");
    CHECK(strstr(clx_context_message(ctx), "outside") != NULL, "message names the problem: %s",
          clx_context_message(ctx));
    CHECK(clx_plan_create(ctx, &ref, two_sizes, 2, &opt, &plan) == CLX_ERR_REGION, "windows of two sizes are refused");
    opt.fit_size = 4;
    CHECK(clx_plan_create(ctx, &ref, &region, 1, &opt, &plan) == CLX_ERR_ARGUMENT, "an even fit size is refused");
    opt.fit_size = 33;
    CHECK(clx_plan_create(ctx, &ref, &region, 1, &opt, &plan) == CLX_ERR_ARGUMENT, "a fit larger than the windows");
    opt.fit_size = 5;
    CHECK(clx_plan_create(ctx, &ref, &region, 0, &opt, &plan) == CLX_ERR_REGION, "no windows is refused");
    CHECK(clx_plan_create(ctx, NULL, &region, 1, &opt, &plan) == CLX_ERR_ARGUMENT, "NULL reference is refused");

    opt.batch = 2;
    plan = plan_or_die(ctx, &ref, &region, 1, &opt);
    const clx_image three[3] = { img, img, img };
    CHECK(clx_plan_read(plan, res, 4) == CLX_ERR_STATE, "read before push is refused");
    CHECK(clx_plan_push(plan, three, 3) == CLX_ERR_ARGUMENT, "a push larger than the batch is refused");
    CHECK(clx_plan_push(plan, &small, 1) == CLX_ERR_SIZE, "an image of another size is refused");
    CHECK(strstr(clx_context_message(ctx), "60x48") != NULL, "size message: %s", clx_context_message(ctx));
    CHECK(clx_plan_push(plan, &img, 1) == CLX_OK, "a good push after refused ones works");
    CHECK(clx_plan_push(plan, &img, 1) == CLX_ERR_STATE, "a second push before reading is refused");
    CHECK(clx_plan_read(plan, res, 0) == CLX_ERR_ARGUMENT, "a too small result array is refused");
    CHECK(clx_plan_read(plan, res, 4) == CLX_OK, "...without losing the push: %s", clx_context_message(ctx));
    CHECK(clx_plan_read(plan, res, 4) == CLX_ERR_STATE, "a second read of one push is refused");
    CHECK(clx_plan_push(plan, &img, 1) == CLX_OK && clx_plan_read(plan, res, 4) == CLX_OK,
          "push and read work again: %s", clx_context_message(ctx));
    clx_result want;
    href_offset(&ref, &img, &region, 5, 0, &want);
    CHECK(res[0].ix == want.ix && res[0].iy == want.iy && fabs(res[0].dx - want.dx) < 1e-3,
          "after refused calls: (%.6f, %.6f), reference (%.6f, %.6f)", res[0].dx, res[0].dy, want.dx, want.dy);

    /* Two plans on one context at once. */
    clx_plan *second = plan_or_die(ctx, &ref, &region, 1, &opt);
    clx_result r2[1];
    CHECK(clx_plan_push(plan, &img, 1) == CLX_OK && clx_plan_push(second, &img, 1) == CLX_OK &&
              clx_plan_read(second, r2, 1) == CLX_OK && clx_plan_read(plan, res, 1) == CLX_OK,
          "two plans interleaved: %s", clx_context_message(ctx));
    CHECK(r2[0].dx == res[0].dx && r2[0].dy == res[0].dy, "two plans agree");
    clx_plan_release(second);
    clx_plan_release(plan);
    clx_plan_release(NULL);
    printf("API errors: checked\n");
    clx_image_free(&ref);
    clx_image_free(&img);
    clx_image_free(&small);
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    check_against_reference(ctx, 24, 24, 0, 5, 2);      /* 5 images in batches of 2: 2, 2, 1 */
    check_against_reference(ctx, 17, 23, 0, 3, 3);      /* odd, non-square, F = 3 */
    check_against_reference(ctx, 24, 24, 0, 7, 0);      /* automatic batch, F = 7 */
    check_upload_crop_layout();
    check_cropped_windows(ctx);
    check_integer_shifts(ctx, 0);
    check_flat_window(ctx, 0);
    check_api_errors(ctx);
    if (clx_context_device(ctx)->has_fp64) {
        check_against_reference(ctx, 24, 24, 1, 5, 2);
        check_against_reference(ctx, 17, 23, 1, 5, 0);
        check_integer_shifts(ctx, 1);
        check_flat_window(ctx, 1);
    } else {
        printf("device has no fp64: double precision not checked\n");
    }
    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
