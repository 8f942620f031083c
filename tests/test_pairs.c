/*
 * test_pairs.c - plans made for pairs (clx_plan_options.pairs,
 * clx_plan_push_pairs): image i of a push measured against reference i of
 * the same push, each reference's windows prepared on the device with the
 * batch.
 *   - every pair gives the offsets a plan made with that pair's reference
 *     alone gives (the same arithmetic, batched), in seed mode and in
 *     accurate mode, through clx_plan_push_pairs and
 *     clx_plan_push_pair_pixels, with batches shorter than the plan's
 *     (seed mode also on the direct path by name);
 *   - the accurate mode's offsets are the truth's within 0.01 px: each
 *     pair is one texture moved by a_i (reference) and by a_i + d_i
 *     (image), so the offset is d_i;
 *   - a stream of pairs (clx_stream_options.load_reference) gives the same;
 *   - so does a stream of several references (clx_stream_options.references,
 *     one per image run: HR-EBSD's reference per grain), whose batches end
 *     where the reference changes and whose lanes switch their plans'
 *     references;
 *   - the wrong pushes and options are refused: clx_plan_push on a pairs
 *     plan and clx_plan_push_pairs on another (CLX_ERR_STATE), pairs with
 *     the correlation refinement or window-offset passes
 *     (CLX_ERR_UNSUPPORTED), a pair of another size (CLX_ERR_SIZE).
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

#define W 160
#define H 128
#define WIN 32
#define NWIN 6
#define NPAIRS 5
#define SEED 3

/* Each pair's reference position a and the offset d of its image. */
static const double moves[NPAIRS][4] = {
    { 0.0, 0.0, 1.3, -0.6 }, { 2.25, -1.5, -0.8, 2.1 }, { -3.1, 0.7, 0.35, 0.45 }, { 1.0, 1.0, 0.0, 0.0 },
    { -0.4, 2.6, 2.7, -1.9 },
};

static void grid(clx_region *regions)
{
    for (int k = 0; k < NWIN; k++) {
        regions[k].x = 16 + (k % 3) * (W - 32 - WIN) / 2;
        regions[k].y = 16 + (k / 3) * (H - 32 - WIN);
        regions[k].w = regions[k].h = WIN;
    }
}

struct pairs {
    clx_image refs[NPAIRS], images[NPAIRS];
};

static void make_pairs(struct pairs *p)
{
    for (int i = 0; i < NPAIRS; i++) {
        td_textured_image(&p->refs[i], W, H, CLX_PIXEL_U16, moves[i][0], moves[i][1], SEED);
        td_textured_image(&p->images[i], W, H, CLX_PIXEL_U16, moves[i][0] + moves[i][2], moves[i][1] + moves[i][3],
                          SEED);
    }
}

/* The pairs through one pairs plan, in pushes of `per_push` (the plan's
 * batch at most); with `pixels`, through clx_plan_push_pair_pixels. */
static int run_pairs(clx_context *ctx, const struct pairs *p, const clx_region *regions, clx_plan_options opt,
                     int per_push, int pixels, clx_result *out)
{
    clx_plan *plan;
    opt.pairs = 1;
    opt.batch = per_push;
    if (clx_plan_create(ctx, &p->refs[0], regions, NWIN, &opt, &plan) != CLX_OK) {
        CHECK(0, "pairs plan: %s", clx_context_message(ctx));
        return -1;
    }
    int status = CLX_OK;
    size_t px = (size_t)W * H;
    unsigned short *rbuf = malloc(sizeof *rbuf * px * per_push), *ibuf = malloc(sizeof *ibuf * px * per_push);
    for (int i = 0; i < NPAIRS && status == CLX_OK; i += per_push) {
        int n = NPAIRS - i < per_push ? NPAIRS - i : per_push;
        if (pixels) {
            for (int k = 0; k < n; k++) {
                memcpy(rbuf + k * px, p->refs[i + k].pixels, sizeof *rbuf * px);
                memcpy(ibuf + k * px, p->images[i + k].pixels, sizeof *ibuf * px);
            }
            status = clx_plan_push_pair_pixels(plan, rbuf, ibuf, CLX_PIXEL_U16, (size_t)n);
        } else {
            status = clx_plan_push_pairs(plan, p->refs + i, p->images + i, (size_t)n);
        }
        if (status == CLX_OK)
            status = clx_plan_read(plan, out + (size_t)i * NWIN, (size_t)n * NWIN);
    }
    CHECK(status == CLX_OK, "pairs push/read: %s", clx_context_message(ctx));
    free(rbuf);
    free(ibuf);
    clx_plan_release(plan);
    return status == CLX_OK ? 0 : -1;
}

/* Each pair through a plan of its own reference. */
static int run_alone(clx_context *ctx, const struct pairs *p, const clx_region *regions, clx_plan_options opt,
                     clx_result *out)
{
    for (int i = 0; i < NPAIRS; i++) {
        clx_plan *plan;
        if (clx_plan_create(ctx, &p->refs[i], regions, NWIN, &opt, &plan) != CLX_OK ||
            clx_plan_push(plan, &p->images[i], 1) != CLX_OK ||
            clx_plan_read(plan, out + (size_t)i * NWIN, NWIN) != CLX_OK) {
            CHECK(0, "pair %d alone: %s", i, clx_context_message(ctx));
            return -1;
        }
        clx_plan_release(plan);
    }
    return 0;
}

static void check_mode(clx_context *ctx, const struct pairs *p, const clx_region *regions, clx_mode mode,
                       clx_method method)
{
    clx_plan_options opt;
    clx_plan_options_init(&opt);
    opt.mode = mode;
    opt.method = method;
    char name[64];
    snprintf(name, sizeof name, "%s, %s", clx_mode_name(mode), clx_method_name(method));
    /* Seed mode's offsets carry the seed method's biases (up to 0.7 px on
     * this texture's sloped background): only the accurate mode's are held
     * to the truth. */
    double truth_tol = mode == CLX_MODE_SEED ? INFINITY : 0.01;
    clx_result alone[NPAIRS * NWIN], paired[NPAIRS * NWIN];
    if (run_alone(ctx, p, regions, opt, alone) != 0)
        return;
    for (int per_push = 2; per_push <= 3; per_push++)
        for (int pixels = 0; pixels <= 1; pixels++) {
            if (run_pairs(ctx, p, regions, opt, per_push, pixels, paired) != 0)
                continue;
            double worst_same = 0, worst_truth = 0;
            for (int t = 0; t < NPAIRS * NWIN; t++) {
                const double *d = moves[t / NWIN] + 2;
                worst_same = fmax(worst_same, fmax(fabs(paired[t].dx - alone[t].dx), fabs(paired[t].dy - alone[t].dy)));
                worst_truth = fmax(worst_truth, fmax(fabs(paired[t].dx - d[0]), fabs(paired[t].dy - d[1])));
                CHECK(paired[t].flags == alone[t].flags, "%s, pair %d window %d: flags %u, alone %u", name, t / NWIN,
                      t % NWIN, paired[t].flags, alone[t].flags);
            }
            CHECK(worst_same <= 1e-5, "%s, %d per push%s: pairs differ from each pair alone by %.3g px", name,
                  per_push, pixels ? ", pixels" : "", worst_same);
            CHECK(worst_truth <= truth_tol, "%s, %d per push%s: %.4f px off the truth", name, per_push,
                  pixels ? ", pixels" : "", worst_truth);
            printf("  %-8s %d per push%-8s: pairs within %.2g px of each pair alone, %.4f px of the truth\n", name,
                   per_push, pixels ? ", pixels" : "", worst_same, worst_truth);
        }
}

/* The stream: each item's reference and image from the callbacks. */
struct stream_data {
    const struct pairs *p;
    clx_result *out;
};

static int load_ref(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    const struct stream_data *d = user;
    return clx_image_copy_to(&d->p->refs[i], staged, msg);
}

static int load_image(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    const struct stream_data *d = user;
    return clx_image_copy_to(&d->p->images[i], staged, msg);
}

static int deliver(void *user, size_t i, const clx_result *results, size_t n, clx_message *msg)
{
    const struct stream_data *d = user;
    memcpy(d->out + i * n, results, sizeof *results * n);
    return CLX_OK;
}

static void check_stream(clx_context *ctx, const struct pairs *p, const clx_region *regions)
{
    clx_plan_options opt;
    clx_stream_options so;
    clx_result alone[NPAIRS * NWIN], streamed[NPAIRS * NWIN];
    clx_plan_options_init(&opt);
    if (run_alone(ctx, p, regions, opt, alone) != 0)
        return;
    opt.pairs = 1;
    opt.batch = 2;
    clx_stream_options_init(&so);
    so.lanes = 2;
    so.load_reference = load_ref;
    struct stream_data d = { p, streamed };
    size_t delivered = 0;
    int status = clx_stream_run(ctx, &p->refs[0], regions, NWIN, &opt, &so, NPAIRS, load_image, deliver, &d,
                                &delivered);
    CHECK(status == CLX_OK && delivered == NPAIRS, "stream of pairs: %s", clx_context_message(ctx));
    double worst = 0;
    for (int t = 0; status == CLX_OK && t < NPAIRS * NWIN; t++)
        worst = fmax(worst, fmax(fabs(streamed[t].dx - alone[t].dx), fabs(streamed[t].dy - alone[t].dy)));
    CHECK(worst <= 1e-5, "stream of pairs: %.3g px from each pair alone", worst);
    printf("  stream of pairs (2 lanes, batches of 2): within %.2g px of each pair alone\n", worst);
    /* A stream of pairs needs its references' loader, and only it. */
    so.load_reference = NULL;
    CHECK(clx_stream_run(ctx, &p->refs[0], regions, NWIN, &opt, &so, NPAIRS, load_image, deliver, &d, NULL) ==
              CLX_ERR_ARGUMENT, "a stream of pairs without load_reference");
}

/* Several references: item k is image r[k] against reference r[k]. */
#define NITEMS 8
static const size_t item_reference[NITEMS] = { 0, 0, 1, 1, 1, 3, 4, 4 };

static int load_item(void *user, size_t k, clx_image *staged, clx_message *msg)
{
    const struct stream_data *d = user;
    return clx_image_copy_to(&d->p->images[item_reference[k]], staged, msg);
}

static void check_references_stream(clx_context *ctx, const struct pairs *p, const clx_region *regions)
{
    clx_plan_options opt;
    clx_stream_options so;
    clx_result alone[NPAIRS * NWIN], streamed[NITEMS * NWIN];
    clx_plan_options_init(&opt);
    if (run_alone(ctx, p, regions, opt, alone) != 0)
        return;
    opt.batch = 3;
    clx_stream_options_init(&so);
    so.lanes = 2;
    so.references = p->refs;
    so.reference_count = NPAIRS;
    so.reference_of = item_reference;
    struct stream_data d = { p, streamed };
    size_t delivered = 0;
    /* The run's own reference is one no item uses: every lane must switch. */
    int status = clx_stream_run(ctx, &p->refs[2], regions, NWIN, &opt, &so, NITEMS, load_item, deliver, &d,
                                &delivered);
    CHECK(status == CLX_OK && delivered == NITEMS, "stream of several references: %s", clx_context_message(ctx));
    double worst = 0;
    for (int k = 0; status == CLX_OK && k < NITEMS; k++)
        for (int w = 0; w < NWIN; w++) {
            const clx_result *a = &alone[item_reference[k] * NWIN + w], *b = &streamed[k * NWIN + w];
            worst = fmax(worst, fmax(fabs(a->dx - b->dx), fabs(a->dy - b->dy)));
        }
    CHECK(worst <= 1e-5, "stream of several references: %.3g px from each image against its own alone", worst);
    printf("  stream of 5 references over 8 images (2 lanes, batches of 3): within %.2g px of each alone\n", worst);
    clx_image small;
    td_textured_image(&small, W / 2, H, CLX_PIXEL_U16, 0, 0, SEED);
    clx_image refs[NPAIRS];
    memcpy(refs, p->refs, sizeof refs);
    refs[3] = small;
    so.references = refs;
    CHECK(clx_stream_run(ctx, &p->refs[0], regions, NWIN, &opt, &so, NITEMS, load_item, deliver, &d, NULL) ==
              CLX_ERR_SIZE, "a reference of another size: %s", clx_context_message(ctx));
    clx_image_free(&small);
}

static void check_refusals(clx_context *ctx, const struct pairs *p, const clx_region *regions)
{
    clx_plan_options opt;
    clx_plan *plan;
    clx_result r[NWIN];
    clx_plan_options_init(&opt);
    opt.pairs = 1;
    if (clx_plan_create(ctx, &p->refs[0], regions, NWIN, &opt, &plan) == CLX_OK) {
        CHECK(clx_plan_push(plan, &p->images[0], 1) == CLX_ERR_STATE, "clx_plan_push on a pairs plan");
        CHECK(clx_plan_set_reference(plan, &p->refs[1]) == CLX_ERR_STATE, "a new reference for a pairs plan");
        clx_image small;
        td_textured_image(&small, W / 2, H, CLX_PIXEL_U16, 0, 0, SEED);
        CHECK(clx_plan_push_pairs(plan, &small, &p->images[0], 1) == CLX_ERR_SIZE, "a reference of another size");
        clx_image_free(&small);
        /* The plan still works after the refusals. */
        CHECK(clx_plan_push_pairs(plan, &p->refs[0], &p->images[0], 1) == CLX_OK &&
                  clx_plan_read(plan, r, NWIN) == CLX_OK,
              "a pair after the refusals: %s", clx_context_message(ctx));
        clx_plan_release(plan);
    }
    opt.pairs = 0;
    if (clx_plan_create(ctx, &p->refs[0], regions, NWIN, &opt, &plan) == CLX_OK) {
        CHECK(clx_plan_push_pairs(plan, &p->refs[0], &p->images[0], 1) == CLX_ERR_STATE,
              "clx_plan_push_pairs on a plan without pairs");
        clx_plan_release(plan);
    }
    opt.pairs = 1;
    opt.refiner = CLX_REFINER_CORRELATION;
    CHECK(clx_plan_create(ctx, &p->refs[0], regions, NWIN, &opt, &plan) == CLX_ERR_UNSUPPORTED,
          "pairs with the correlation refinement: %s", clx_context_message(ctx));
    opt.refiner = CLX_REFINER_ICGN;
    opt.passes = 2;
    CHECK(clx_plan_create(ctx, &p->refs[0], regions, NWIN, &opt, &plan) == CLX_ERR_UNSUPPORTED,
          "pairs with a window-offset pass: %s", clx_context_message(ctx));
}

int main(void)
{
    clx_context *ctx;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    clx_region regions[NWIN];
    struct pairs p;
    grid(regions);
    make_pairs(&p);
    check_mode(ctx, &p, regions, CLX_MODE_SEED, CLX_METHOD_AUTO);
    /* The direct path by name too: on a GPU it took a shorter push than the
     * plan's batch for no image at all (its tiles / nwin rounded down to 0)
     * and left the last push's correlations in place. */
    check_mode(ctx, &p, regions, CLX_MODE_SEED, CLX_METHOD_DIRECT);
    check_references_stream(ctx, &p, regions);
    check_mode(ctx, &p, regions, CLX_MODE_ACCURATE, CLX_METHOD_AUTO);
    check_stream(ctx, &p, regions);
    check_refusals(ctx, &p, regions);
    for (int i = 0; i < NPAIRS; i++) {
        clx_image_free(&p.refs[i]);
        clx_image_free(&p.images[i]);
    }
    clx_context_release(ctx);
    printf("test_pairs: %s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
