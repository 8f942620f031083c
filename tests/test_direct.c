/*
 * test_direct.c - the direct path against the FFT path and the host
 * reference: correlation values at every searched shift (tolerance relative
 * to the peak) and offsets, for window sizes from 4 to 128 (odd, even,
 * non-square, large prime factors), the four batching forms (one-to-one,
 * one-to-many, n-to-mn, n-to-m), every work distribution and kernel variant
 * the device can run, with and without a bounded search (--max-shift).
 * Everything goes through the public API, surfaces included.
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
#include "test_data.h"

#define IMAGE_W 288
#define IMAGE_H 160

/* A job: windows of w x h, nwin of them, nref references, nimg images. */
struct job {
    int w, h, max_shift;
    int nwin, nref, nimg, batch;
    const char *form;
};

struct run {
    clx_result *results;      /* nref * nimg * nwin */
    float *surfaces;          /* nref * nimg * nwin surfaces */
    int sw, sh;
};

static void windows_for(const struct job *j, clx_region *regions)
{
    for (int k = 0; k < j->nwin; k++) {
        regions[k].w = j->w;
        regions[k].h = j->h;
        regions[k].x = 3 + (k * 37) % (IMAGE_W - j->w - 5);
        regions[k].y = 2 + (k * 23) % (IMAGE_H - j->h - 3);
    }
}

/* Runs the job through the public API; NULL if the plan is refused with
 * CLX_ERR_UNSUPPORTED (a variant this device cannot run). */
static int run_job(clx_context *ctx, const struct job *j, const clx_region *regions, clx_method method,
                   const char *params, const clx_image *refs, const clx_image *images, struct run *out)
{
    clx_plan_options opt;
    clx_plan *plan;
    clx_plan_options_init(&opt);
    opt.mode = CLX_MODE_SEED;
    opt.method = method;
    opt.max_shift = j->max_shift;
    opt.batch = j->batch;
    opt.params = params;
    int status = clx_plan_create(ctx, &refs[0], regions, (size_t)j->nwin, &opt, &plan);
    if (status == CLX_ERR_UNSUPPORTED)
        return status;
    if (status != CLX_OK) {
        fprintf(stderr, "clx_plan_create (%s, %s): %s\n", clx_method_name(method), params ? params : "",
                clx_context_message(ctx));
        exit(1);
    }
    clx_plan_surface_size(plan, &out->sw, &out->sh);
    size_t per_pair = (size_t)j->nwin, surf = (size_t)out->sw * out->sh;
    out->results = calloc((size_t)j->nref * j->nimg * per_pair, sizeof *out->results);
    out->surfaces = calloc((size_t)j->nref * j->nimg * per_pair * surf, sizeof *out->surfaces);
    int batch = clx_plan_batch_size(plan);
    for (int r = 0; r < j->nref; r++) {
        if (r > 0 && clx_plan_set_reference(plan, &refs[r]) != CLX_OK) {
            fprintf(stderr, "clx_plan_set_reference: %s\n", clx_context_message(ctx));
            exit(1);
        }
        for (int i = 0; i < j->nimg; i += batch) {
            size_t n = (size_t)(j->nimg - i < batch ? j->nimg - i : batch);
            size_t first = ((size_t)r * j->nimg + i) * per_pair;
            if (clx_plan_push(plan, images + i, n) != CLX_OK ||
                clx_plan_read_surfaces(plan, out->surfaces + first * surf, n * per_pair * surf) != CLX_OK ||
                clx_plan_read(plan, out->results + first, n * per_pair) != CLX_OK) {
                fprintf(stderr, "push/read: %s\n", clx_context_message(ctx));
                exit(1);
            }
        }
    }
    clx_plan_release(plan);
    return CLX_OK;
}

static void run_free(struct run *r)
{
    free(r->results);
    free(r->surfaces);
}

/* Largest |a - b| over all surfaces, relative to each surface's peak. */
static double surface_error(const struct run *a, const double *want, size_t count)
{
    size_t surf = (size_t)a->sw * a->sh;
    double worst = 0;
    for (size_t s = 0; s < count; s++) {
        double peak = 0, err = 0;
        for (size_t e = 0; e < surf; e++) {
            peak = fmax(peak, fabs(want[s * surf + e]));
            err = fmax(err, fabs(a->surfaces[s * surf + e] - want[s * surf + e]));
        }
        worst = fmax(worst, peak > 0 ? err / peak : err);
    }
    return worst;
}

/* The host reference's surfaces in the same order and layout. */
static double *reference_surfaces(const struct job *j, const clx_region *regions, const clx_image *refs,
                                  const clx_image *images, int sw, int sh)
{
    int w = j->w, h = j->h, rx = (sw - 1) / 2, ry = (sh - 1) / 2;
    size_t surf = (size_t)sw * sh;
    double *out = malloc(sizeof(double) * j->nref * j->nimg * j->nwin * surf);
    double *zr = malloc(sizeof(double) * w * h), *zd = malloc(sizeof(double) * w * h);
    double *C = malloc(sizeof(double) * 4 * w * h);
    for (int r = 0; r < j->nref; r++)
        for (int i = 0; i < j->nimg; i++)
            for (int k = 0; k < j->nwin; k++) {
                href_window_zero_mean(&refs[r], &regions[k], zr);
                href_window_zero_mean(&images[i], &regions[k], zd);
                if (w * h > 1600)
                    href_correlate_fft(zr, zd, w, h, C);
                else
                    href_correlate_direct(zr, zd, w, h, C);
                double *o = out + (((size_t)r * j->nimg + i) * j->nwin + k) * surf;
                for (int uy = -ry; uy <= ry; uy++)
                    for (int ux = -rx; ux <= rx; ux++)
                        o[(size_t)(uy + ry) * sw + ux + rx] =
                            C[(size_t)((uy + 2 * h) % (2 * h)) * 2 * w + (ux + 2 * w) % (2 * w)];
            }
    free(zr);
    free(zd);
    free(C);
    return out;
}

static void make_images(const struct job *j, clx_image *refs, clx_image *images, uint64_t seed)
{
    for (int r = 0; r < j->nref; r++)
        td_textured_image(&refs[r], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0.3 * r, -0.2 * r, seed);
    for (int i = 0; i < j->nimg; i++)
        td_textured_image(&images[i], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0.7 + 0.45 * i, -1.1 + 0.3 * i, seed);
}

static void free_images(const struct job *j, clx_image *refs, clx_image *images)
{
    for (int r = 0; r < j->nref; r++)
        clx_image_free(&refs[r]);
    for (int i = 0; i < j->nimg; i++)
        clx_image_free(&images[i]);
}

/*
 * One job: the FFT path and the direct path with each of `variants`
 * (parameter overrides) against the host reference and each other.
 */
static void check_job(clx_context *ctx, const struct job *j, const char *const *variants, int nvariants)
{
    clx_region regions[8];
    clx_image refs[4], images[8];
    struct run fft, direct;
    const double tol = 2e-5;

    windows_for(j, regions);
    make_images(j, refs, images, (uint64_t)(j->w * 131 + j->h));
    run_job(ctx, j, regions, CLX_METHOD_FFT, NULL, refs, images, &fft);
    size_t count = (size_t)j->nref * j->nimg * j->nwin;
    double *want = reference_surfaces(j, regions, refs, images, fft.sw, fft.sh);
    double err_fft = surface_error(&fft, want, count);
    CHECK(err_fft <= tol, "%s %dx%d R=%d: FFT surfaces differ from the reference by %.3g of the peak", j->form, j->w,
          j->h, j->max_shift, err_fft);

    for (int v = 0; v < nvariants; v++) {
        const char *params = variants[v];
        if (run_job(ctx, j, regions, CLX_METHOD_DIRECT, params, refs, images, &direct) == CLX_ERR_UNSUPPORTED) {
            printf("  %s %dx%d R=%d direct [%s]: not on this device (%s)\n", j->form, j->w, j->h, j->max_shift,
                   params ? params : "defaults", clx_context_message(ctx));
            continue;
        }
        double err = surface_error(&direct, want, count), worst_dx = 0;
        CHECK(direct.sw == fft.sw && direct.sh == fft.sh, "surface sizes differ");
        CHECK(err <= tol, "%s %dx%d R=%d direct [%s]: surfaces differ from the reference by %.3g of the peak",
              j->form, j->w, j->h, j->max_shift, params ? params : "defaults", err);
        for (size_t t = 0; t < count; t++) {
            const clx_result *a = &direct.results[t], *b = &fft.results[t];
            double d = fmax(fabs(a->dx - b->dx), fabs(a->dy - b->dy));
            worst_dx = fmax(worst_dx, d);
            CHECK(a->ix == b->ix && a->iy == b->iy && a->flags == b->flags && d <= 1e-3,
                  "%s %dx%d R=%d direct [%s] tile %zu: (%.6f, %.6f) flags %u, FFT (%.6f, %.6f) flags %u", j->form,
                  j->w, j->h, j->max_shift, params ? params : "defaults", t, a->dx, a->dy, a->flags, b->dx, b->dy,
                  b->flags);
        }
        printf("  %s %dx%d R=%d direct [%s]: surfaces %.2g of peak (fft %.2g), offsets within %.2g px of fft\n",
               j->form, j->w, j->h, j->max_shift, params ? params : "defaults", err, err_fft, worst_dx);
        run_free(&direct);
    }
    run_free(&fft);
    free(want);
    free_images(j, refs, images);
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    const char *defaults[] = { NULL };
    /* Every work distribution and variant of the direct kernel. */
    const char *variants[] = {
        NULL,
        "direct_split=3",                       /* overlap rows split over 3 work-groups */
        "direct_split=2,direct_rows=1",          /* ... one row per pass through local memory */
        "direct_ipi=2",                          /* two images per work-item */
        "direct_ipi=3,direct_spx=1",             /* three images, one shift each */
        "direct_spx=8,direct_tx=4,direct_ty=4",  /* wide register blocking, small work-groups */
        "direct_source=1",                       /* texture path */
        "direct_source=2,direct_split=2",        /* hybrid: texture and local memory by work-group */
        "direct_broadcast=1",                    /* sub-group broadcast (devices with sub-groups) */
        "direct_broadcast=2",                    /* NVIDIA shfl.sync (NVIDIA only) */
    };
    const int nvariants = (int)(sizeof variants / sizeof variants[0]);

    /* The four forms, with every variant, on a mid-size odd window. */
    const struct job forms[] = {
        { 23, 19, 0, 1, 1, 1, 0, "one-to-one" },
        { 23, 19, 0, 1, 1, 5, 2, "one-to-many" },
        { 23, 19, 0, 3, 1, 4, 3, "n-to-mn" },
        { 23, 19, 0, 2, 2, 3, 0, "n-to-m" },
        { 23, 19, 5, 3, 1, 4, 3, "n-to-mn" },
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        check_job(ctx, &forms[f], variants, nvariants);

    /* Window sizes from 4 to 128, full and bounded searches. */
    const struct job sizes[] = {
        { 4, 4, 0, 2, 1, 2, 0, "n-to-mn" },   { 5, 7, 0, 2, 1, 2, 0, "n-to-mn" },
        { 16, 16, 0, 2, 1, 2, 0, "n-to-mn" }, { 13, 11, 0, 2, 1, 2, 0, "n-to-mn" },
        { 17, 31, 3, 2, 1, 2, 0, "n-to-mn" }, { 53, 47, 0, 1, 1, 1, 0, "one-to-one" },
        { 53, 47, 8, 2, 1, 2, 0, "n-to-mn" }, { 64, 48, 10, 2, 1, 2, 0, "n-to-mn" },
        { 128, 128, 0, 1, 1, 1, 0, "one-to-one" }, { 128, 128, 6, 1, 1, 2, 0, "one-to-many" },
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        check_job(ctx, &sizes[s], defaults, 1);
    const char *split_variants[] = { "direct_split=4" };
    check_job(ctx, &sizes[5], split_variants, 1);

    /* The few-shifts form (a search of a pixel or two, as the accurate
     * mode's refinement makes), chosen by default there, against the
     * shift-parallel kernel and other work-group sizes. */
    const char *few_variants[] = { NULL, "direct_few=0", "direct_few_wg=32", "direct_few=1,direct_few_wg=128" };
    const struct job few[] = {
        { 23, 19, 1, 3, 1, 4, 3, "n-to-mn" },     { 100, 100, 1, 2, 1, 2, 0, "n-to-mn" },
        { 5, 7, 1, 2, 1, 2, 0, "n-to-mn" },       { 64, 48, 2, 2, 2, 3, 0, "n-to-m" },
    };
    for (size_t f = 0; f < sizeof few / sizeof few[0]; f++)
        check_job(ctx, &few[f], few_variants, 4);

    clx_context_release(ctx);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
