/*
 * test_multipass.c - the deforming multi-pass (clx_multipass) on particle
 * images of a known smooth flow, against the truth:
 *   - frame A: Gaussian particles at random positions; frame B: the same
 *     particles moved by d(p) = (6 sin(2 pi (y + 40) / 768),
 *     -4 cos(2 pi (x + 40) / 768)) px: displacements up to a quarter of the
 *     last window, gradients up to 0.05;
 *   - three passes (48, 32, 24 px, step 12) measure it within 0.05 px RMS at
 *     the windows' centres; one pass of the last window, unvalidated, is
 *     off by more than a pixel (its windows lose the particles that moved
 *     out);
 *   - the grid the results follow; a wild vector made by a replaced patch
 *     of frame B is rejected and replaced (CLX_FLAG_REPLACED) and its
 *     neighbours are not;
 *   - patches of noise over one window and over two side by side: every
 *     vector flagged an outlier is replaced (flag 8 comes with 256), the
 *     patches' windows among them, and every vector, replaced or not, lies
 *     near the flow (before, 29 vectors kept flag 8 alone from the plans'
 *     own neighbour test, one of them 1.0 px off);
 *   - the refusals: growing windows, windows that do not fit, a pair of
 *     another size.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_data.h"

#define SIZE 192
#define NPART 6000

static void flow(double x, double y, double *u, double *v)
{
    *u = 6 * sin(2 * M_PI * (y + 40) / 768);
    *v = -4 * cos(2 * M_PI * (x + 40) / 768);
}

/* Particles rendered as Gaussian spots of sigma 1.2 px (exactly, by point sampling). */
static void render(clx_image *img, const double *px, const double *py, int n)
{
    img->width = img->height = SIZE;
    img->type = CLX_PIXEL_F32;
    float *p = calloc((size_t)SIZE * SIZE, sizeof *p);
    img->pixels = p;
    for (int k = 0; k < n; k++) {
        int x0 = (int)floor(px[k]), y0 = (int)floor(py[k]);
        for (int y = y0 - 5; y <= y0 + 5; y++)
            for (int x = x0 - 5; x <= x0 + 5; x++) {
                if (x < 0 || y < 0 || x >= SIZE || y >= SIZE)
                    continue;
                double dx = x - px[k], dy = y - py[k];
                p[y * SIZE + x] += (float)(1000 * exp(-(dx * dx + dy * dy) / (2 * 1.2 * 1.2)));
            }
    }
}

static void make_pair(clx_image *a, clx_image *b, uint64_t seed)
{
    double *px = malloc(sizeof *px * NPART), *py = malloc(sizeof *py * NPART);
    double *qx = malloc(sizeof *qx * NPART), *qy = malloc(sizeof *qy * NPART);
    for (int k = 0; k < NPART; k++) {
        px[k] = -8 + td_uniform(&seed) * (SIZE + 16);
        py[k] = -8 + td_uniform(&seed) * (SIZE + 16);
        double u, v;
        flow(px[k], py[k], &u, &v);
        /* A second-order step along the flow, so that d is its displacement at the midpoint. */
        double mu, mv;
        flow(px[k] + u / 2, py[k] + v / 2, &mu, &mv);
        qx[k] = px[k] + mu;
        qy[k] = py[k] + mv;
    }
    render(a, px, py, NPART);
    render(b, qx, qy, NPART);
    free(px);
    free(py);
    free(qx);
    free(qy);
}

/* Frame A's point (x, y) moves by this (make_pair's step). */
static void displacement(double x, double y, double *u, double *v)
{
    double u0, v0;
    flow(x, y, &u0, &v0);
    flow(x + u0 / 2, y + v0 / 2, u, v);
}

/* RMS over the windows of the error against the displacement of frame A's
 * point at each centre. */
static double rms_error(const clx_region *regions, size_t n, const clx_result *r, unsigned skip_flags)
{
    double s = 0;
    size_t m = 0;
    for (size_t t = 0; t < n; t++) {
        if (r[t].flags & skip_flags)
            continue;
        double x = regions[t].x + (regions[t].w - 1) / 2.0, y = regions[t].y + (regions[t].h - 1) / 2.0, u, v;
        displacement(x, y, &u, &v);
        s += pow(r[t].dx - u, 2) + pow(r[t].dy - v, 2);
        m++;
    }
    return m ? sqrt(s / m) : INFINITY;
}

static void check_flow(clx_context *ctx, clx_image *a, clx_image *b)
{
    clx_multipass_options o;
    clx_multipass *mp;
    clx_multipass_options_init(&o);
    o.passes = 3;
    o.window[0] = 48;
    o.window[1] = 32;
    o.window[2] = 24;
    o.step = 12;
    o.margin = 4;
    if (clx_multipass_create(ctx, SIZE, SIZE, &o, &mp) != CLX_OK) {
        CHECK(0, "multipass: %s", clx_context_message(ctx));
        return;
    }
    size_t n;
    const clx_region *regions = clx_multipass_regions(mp, &n);
    CHECK(n == 14 * 14 && regions[0].x == 4 && regions[1].x == 16 && regions[0].w == 24,
          "the last pass's grid: %zu windows, first at %d, then %d, %d px", n, regions[0].x, regions[1].x,
          regions[0].w);
    clx_result *r = malloc(sizeof *r * n);
    if (clx_multipass_run(mp, a, b, 1, r, n) == CLX_OK) {
        double e = rms_error(regions, n, r, 0);
        CHECK(e <= 0.05, "three passes: rms error %.4f px", e);
        printf("  three passes (48, 32, 24 px): rms %.4f px over %zu windows\n", e, n);
        /* One pass of the last window, for comparison. */
        clx_multipass_options one = o;
        one.passes = 1;
        one.window[0] = 24;
        one.median_threshold = 0;
        clx_multipass *single;
        clx_result *rs = malloc(sizeof *rs * n);
        if (clx_multipass_create(ctx, SIZE, SIZE, &one, &single) == CLX_OK &&
            clx_multipass_run(single, a, b, 1, rs, n) == CLX_OK) {
            double e1 = rms_error(regions, n, rs, 0);
            CHECK(e1 > 20 * e, "one pass of 24 px: rms %.4f px, not twenty times the multi-pass's %.4f", e1, e);
            printf("  one pass of 24 px: rms %.4f px\n", e1);
        } else {
            CHECK(0, "one pass: %s", clx_context_message(ctx));
        }
        clx_multipass_release(single);
        free(rs);
    } else {
        CHECK(0, "multipass run: %s", clx_context_message(ctx));
    }

    /* A patch of frame B replaced by unrelated particles: its window's
     * vector is wild, rejected and replaced; the others are not. */
    clx_image wild = *b;
    wild.pixels = malloc(sizeof(float) * SIZE * SIZE);
    memcpy(wild.pixels, b->pixels, sizeof(float) * SIZE * SIZE);
    float *w = wild.pixels;
    uint64_t seed = 99;
    const clx_region *victim = &regions[7 * 14 + 7];
    for (int y = victim->y; y < victim->y + 24; y++)
        for (int x = victim->x; x < victim->x + 24; x++)
            w[y * SIZE + x] = (float)(2000 * td_uniform(&seed));
    if (clx_multipass_run(mp, a, &wild, 1, r, n) == CLX_OK) {
        int replaced = 0;
        for (size_t t = 0; t < n; t++)
            replaced += (r[t].flags & CLX_FLAG_REPLACED) != 0;
        CHECK((r[7 * 14 + 7].flags & CLX_FLAG_REPLACED) && replaced <= 3,
              "the wild window: flags %u; %d windows replaced", r[7 * 14 + 7].flags, replaced);
        double e = rms_error(regions, n, r, 0);
        CHECK(e <= 0.1, "with the wild window replaced: rms %.4f px", e);
        printf("  a wild window: flags %u, %d replaced, rms %.4f px\n", r[7 * 14 + 7].flags, replaced, e);
    }
    free(wild.pixels);
    free(r);
    clx_multipass_release(mp);
}

/* Frame B's pixels over [x0, x0 + w) x [y0, y0 + h) replaced by noise. */
static void noise_patch(clx_image *img, int x0, int y0, int w, int h, uint64_t seed)
{
    float *p = img->pixels;
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++)
            p[y * SIZE + x] = (float)(2000 * td_uniform(&seed));
}

static void check_outliers(clx_context *ctx, const clx_image *a, const clx_image *b)
{
    clx_multipass_options o;
    clx_multipass *mp;
    clx_multipass_options_init(&o);
    o.window[0] = 48;
    o.window[1] = 32;
    o.window[2] = 24;
    o.step = 12;
    o.margin = 4;
    if (clx_multipass_create(ctx, SIZE, SIZE, &o, &mp) != CLX_OK) {
        CHECK(0, "multipass: %s", clx_context_message(ctx));
        return;
    }
    size_t n;
    const clx_region *regions = clx_multipass_regions(mp, &n);
    clx_image noisy = *b;
    noisy.pixels = malloc(sizeof(float) * SIZE * SIZE);
    memcpy(noisy.pixels, b->pixels, sizeof(float) * SIZE * SIZE);
    /* One window's square (grid cell 3, 3), and the 36 x 24 px under cells
     * (9, 9) and (10, 9), side by side. */
    const clx_region *one = &regions[3 * 14 + 3], *two = &regions[9 * 14 + 9];
    noise_patch(&noisy, one->x, one->y, 24, 24, 5);
    noise_patch(&noisy, two->x, two->y, 36, 24, 6);
    const int centres[] = { 3 * 14 + 3, 9 * 14 + 9, 9 * 14 + 10 };
    clx_result *r = malloc(sizeof *r * n);
    if (clx_multipass_run(mp, a, &noisy, 1, r, n) == CLX_OK) {
        int lone = 0, replaced = 0, hit = 0;
        double worst = 0, worst_replaced = 0;
        for (size_t t = 0; t < n; t++) {
            double x = regions[t].x + (regions[t].w - 1) / 2.0, y = regions[t].y + (regions[t].h - 1) / 2.0, u, v;
            displacement(x, y, &u, &v);
            double e = hypot(r[t].dx - u, r[t].dy - v);
            worst = e > worst ? e : worst;
            if (r[t].flags & CLX_FLAG_REPLACED) {
                replaced++;
                worst_replaced = e > worst_replaced ? e : worst_replaced;
            }
            lone += (r[t].flags & (CLX_FLAG_OUTLIER | CLX_FLAG_REPLACED)) == CLX_FLAG_OUTLIER;
        }
        for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++)
            hit += (r[centres[c]].flags & CLX_FLAG_REPLACED) != 0;
        CHECK(lone == 0, "%d vectors flagged outlier (8) but not replaced (256)", lone);
        CHECK(hit == 3, "%d of the 3 windows under noise replaced", hit);
        /* Measured: replaced vectors up to 0.178 px off, any 0.291 px (a
         * window half over the noise); before, 1.001 px. */
        CHECK(worst_replaced <= 0.5, "replaced vectors up to %.3f px off the flow", worst_replaced);
        CHECK(worst <= 0.6, "vectors up to %.3f px off the flow", worst);
        printf("  noise over 3 windows: %d replaced, up to %.3f px off (any vector: %.3f px)\n", replaced,
               worst_replaced, worst);
    } else {
        CHECK(0, "multipass run: %s", clx_context_message(ctx));
    }
    free(noisy.pixels);
    free(r);
    clx_multipass_release(mp);
}

static void check_refusals(clx_context *ctx, const clx_image *a)
{
    clx_multipass_options o;
    clx_multipass *mp = NULL;
    clx_multipass_options_init(&o);
    o.window[1] = 80;
    CHECK(clx_multipass_create(ctx, SIZE, SIZE, &o, &mp) == CLX_ERR_ARGUMENT, "a window that grows");
    clx_multipass_options_init(&o);
    o.window[0] = 400;
    CHECK(clx_multipass_create(ctx, SIZE, SIZE, &o, &mp) == CLX_ERR_ARGUMENT && mp == NULL,
          "a window larger than the frames: %s", clx_context_message(ctx));
    clx_multipass_options_init(&o);
    o.passes = 1;
    o.window[0] = 32;
    if (clx_multipass_create(ctx, SIZE, SIZE, &o, &mp) == CLX_OK) {
        clx_image small;
        td_textured_image(&small, SIZE / 2, SIZE, CLX_PIXEL_U16, 0, 0, 1);
        size_t n;
        clx_multipass_regions(mp, &n);
        clx_result *r = malloc(sizeof *r * n);
        CHECK(clx_multipass_run(mp, a, &small, 1, r, n) == CLX_ERR_SIZE, "a frame of another size: %s",
              clx_context_message(ctx));
        free(r);
        clx_image_free(&small);
        clx_multipass_release(mp);
    }
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    clx_image a, b;
    make_pair(&a, &b, 7);
    check_flow(ctx, &a, &b);
    check_outliers(ctx, &a, &b);
    check_refusals(ctx, &a);
    free(a.pixels);
    free(b.pixels);
    clx_context_release(ctx);
    printf("test_multipass: %s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
