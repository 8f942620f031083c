/*
 * test_threads.c - two contexts used from two threads at once (the public
 * API's promise, clxcorr.h): each thread opens its own context at the same
 * moment (devices enumerated twice at once), builds its kernels, runs a plan
 * of its own mode and a filter, and releases everything, twice over. Every
 * result must be bit-identical to the same job run alone beforehand, and
 * the offsets the images' known shifts. Run under the sanitizer build
 * (configure --enable-sanitizers) by CI, which catches what a race breaks.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clxcorr.h"
#include "test_data.h"

#define IMAGE_W 96
#define IMAGE_H 80
#define NIMAGES 4
#define NWIN 6
#define ROUNDS 2

/* The known shift of image k (position in the image minus in the reference). */
static double shift_x(int k) { return 0.45 * k - 0.7; }
static double shift_y(int k) { return -0.3 * k + 0.5; }

static clx_image reference, images[NIMAGES];
static clx_region regions[NWIN];

/* One thread's job and what it got. */
struct job {
    clx_mode mode;
    clx_result results[NIMAGES * NWIN];
    float filtered[IMAGE_W * IMAGE_H];
    char error[1024];
    pthread_barrier_t *start;            /* NULL: run at once */
};

static int fail_job(struct job *j, const char *what, const char *why)
{
    snprintf(j->error, sizeof j->error, "%s: %.900s", what, why);
    return -1;
}

/* The whole job on a context of its own: open, plan, push, read, filter, release. */
static int run_job(struct job *j)
{
    clx_context *ctx = NULL;
    clx_plan *plan = NULL;
    clx_filter *filter = NULL;
    clx_message msg;
    int rc = -1;

    if (j->start)
        pthread_barrier_wait(j->start);
    if (clx_context_open(NULL, &ctx, &msg) != CLX_OK)
        return fail_job(j, "clx_context_open", msg.text);
    clx_plan_options po;
    clx_plan_options_init(&po);
    po.mode = j->mode;
    po.batch = 2;
    if (clx_plan_create(ctx, &reference, regions, NWIN, &po, &plan) != CLX_OK) {
        fail_job(j, "clx_plan_create", clx_context_message(ctx));
        goto done;
    }
    for (int k = 0; k < NIMAGES; k += 2)
        if (clx_plan_push(plan, &images[k], 2) != CLX_OK ||
            clx_plan_read(plan, j->results + (size_t)k * NWIN, 2 * NWIN) != CLX_OK) {
            fail_job(j, "push/read", clx_context_message(ctx));
            goto done;
        }
    clx_filter_options fo;
    clx_filter_options_init(&fo);
    fo.spec = "background:6+gaussian:1";
    clx_image out = { 0 };
    if (clx_filter_create(ctx, &fo, &filter) != CLX_OK || clx_filter_apply(filter, &images[1], &out) != CLX_OK) {
        fail_job(j, "filter", clx_context_message(ctx));
        goto done;
    }
    memcpy(j->filtered, out.pixels, sizeof j->filtered);
    clx_image_free(&out);
    rc = 0;
done:
    clx_filter_release(filter);
    clx_plan_release(plan);
    clx_context_release(ctx);
    return rc;
}

static void *job_thread(void *arg)
{
    run_job(arg);
    return NULL;
}

/* Every field of two runs' results, bit for bit (NaN included). */
static int same_results(const clx_result *a, const clx_result *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i].dx, &b[i].dx, sizeof a[i].dx) || memcmp(&a[i].dy, &b[i].dy, sizeof a[i].dy) ||
            memcmp(&a[i].peak, &b[i].peak, sizeof a[i].peak) || memcmp(&a[i].zncc, &b[i].zncc, sizeof a[i].zncc) ||
            memcmp(&a[i].peak_ratio, &b[i].peak_ratio, sizeof a[i].peak_ratio) || a[i].ix != b[i].ix ||
            a[i].iy != b[i].iy || a[i].iterations != b[i].iterations || a[i].flags != b[i].flags)
            return 0;
    return 1;
}

int main(void)
{
    static struct job alone[2], together[2];
    clx_message msg;

    /* Skip when there is no device at all. */
    clx_context *probe;
    if (td_open_context(&probe, 0) == TEST_SKIP)
        return TEST_SKIP;
    clx_context_release(probe);

    td_textured_image(&reference, IMAGE_W, IMAGE_H, CLX_PIXEL_U16, 0, 0, 7);
    for (int k = 0; k < NIMAGES; k++)
        td_textured_image(&images[k], IMAGE_W, IMAGE_H, CLX_PIXEL_U16, shift_x(k), shift_y(k), 7);
    clx_region *grid;
    size_t n;
    if (clx_regions_grid(3, 2, 24, 24, 10, IMAGE_W, IMAGE_H, &grid, &n, &msg) != CLX_OK || n != NWIN) {
        fprintf(stderr, "grid: %s\n", msg.text);
        return 1;
    }
    memcpy(regions, grid, sizeof regions);
    free(grid);

    const clx_mode modes[2] = { CLX_MODE_SEED, CLX_MODE_ACCURATE };
    for (int t = 0; t < 2; t++) {
        alone[t].mode = modes[t];
        CHECK(run_job(&alone[t]) == 0, "%s mode alone: %s", clx_mode_name(modes[t]), alone[t].error);
    }
    /* The offsets are the images' shifts (the accurate mode's to 0.05 px,
     * the seed mode's to 0.5 px: it is biased). */
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < NIMAGES; k++)
            for (int w = 0; w < NWIN; w++) {
                const clx_result *r = &alone[t].results[k * NWIN + w];
                double tol = modes[t] == CLX_MODE_SEED ? 0.5 : 0.05;
                CHECK(fabs(r->dx - shift_x(k)) < tol && fabs(r->dy - shift_y(k)) < tol,
                      "%s mode, image %d, window %d: (%.4f, %.4f) for a shift of (%.2f, %.2f)",
                      clx_mode_name(modes[t]), k, w, r->dx, r->dy, shift_x(k), shift_y(k));
            }

    for (int round = 0; round < ROUNDS; round++) {
        pthread_barrier_t start;
        pthread_t threads[2];
        pthread_barrier_init(&start, NULL, 2);
        for (int t = 0; t < 2; t++) {
            memset(&together[t], 0, sizeof together[t]);
            together[t].mode = modes[t];
            together[t].start = &start;
            if (pthread_create(&threads[t], NULL, job_thread, &together[t]) != 0) {
                fprintf(stderr, "pthread_create failed\n");
                return 1;
            }
        }
        for (int t = 0; t < 2; t++)
            pthread_join(threads[t], NULL);
        pthread_barrier_destroy(&start);
        for (int t = 0; t < 2; t++) {
            CHECK(!together[t].error[0], "round %d, %s mode beside the other: %s", round, clx_mode_name(modes[t]),
                  together[t].error);
            CHECK(same_results(together[t].results, alone[t].results, NIMAGES * NWIN),
                  "round %d: %s mode's results beside the other thread differ from its results alone", round,
                  clx_mode_name(modes[t]));
            CHECK(memcmp(together[t].filtered, alone[t].filtered, sizeof together[t].filtered) == 0,
                  "round %d: the filter beside the other thread differs from the filter alone", round);
        }
    }

    clx_image_free(&reference);
    for (int k = 0; k < NIMAGES; k++)
        clx_image_free(&images[k]);
    if (test_failures == 0)
        printf("two contexts in two threads at once, %d rounds: results identical to each alone\n", ROUNDS);
    return test_failures ? 1 : 0;
}
