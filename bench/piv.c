/*
 * piv.c - clxcorr-piv-bench: PIV vectors per second through the deforming
 * multi-pass (clx_multipass), from host memory: one frame pair decoded
 * once, then run in batches of copies, each batch's frames uploaded,
 * measured through every pass, validated and read back, as `clxcorr
 * offsets --reference pairs --window A,B,...` does (disk excluded). The
 * clock starts once the passes' plans exist. Public API only.
 *
 *   clxcorr-piv-bench [--device SPEC] [--windows 64,32,32] [--step 16]
 *                     [--mode seed|accurate] [--refine icgn|correlation|none]
 *                     [--shape 0|1] [--method M] [--batches N]
 *                     [--results FILE.csv] FRAME_A FRAME_B
 *
 * --results writes the last batch's first pair (image,region,x,y,dx,dy,
 * flags) for an accuracy check beside the timing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clxcorr.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr, "usage: clxcorr-piv-bench [--device SPEC] [--windows 64,32,32] [--step 16] [--mode M] "
                    "[--refine R] [--shape S] [--method M] [--batches N] [--results FILE.csv] FRAME_A FRAME_B\n");
    exit(2);
}

static int parse_windows(const char *text, clx_multipass_options *o)
{
    char *end;
    o->passes = 0;
    for (const char *p = text; *p && o->passes < 8; p = end + (*end == ',')) {
        long w = strtol(p, &end, 10);
        if (end == p || (*end && *end != ','))
            return -1;
        o->window[o->passes++] = (int)w;
    }
    return o->passes > 0 ? 0 : -1;
}

static int refiner_parse(const char *text, clx_plan_options *p)
{
    if (strcmp(text, "none") == 0) /* the peak fit alone: one correlation pass */
        return p->refine = 0, p->passes = 1, 0;
    p->refine = 8;
    if (strcmp(text, "icgn") == 0)
        return p->refiner = CLX_REFINER_ICGN, 0;
    if (strcmp(text, "correlation") == 0)
        return p->refiner = CLX_REFINER_CORRELATION, 0;
    return -1;
}

static void results_write(const char *path, const clx_result *r, const clx_region *regions, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "image,region,x,y,dx,dy,flags\n");
    for (size_t w = 0; w < n; w++)
        fprintf(f, "pair,%zu,%.1f,%.1f,%.6f,%.6f,%u\n", w, regions[w].x + (regions[w].w - 1) / 2.0,
                regions[w].y + (regions[w].h - 1) / 2.0, r[w].dx, r[w].dy, r[w].flags);
    fclose(f);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' }, { "windows", required_argument, NULL, 'w' },
        { "step", required_argument, NULL, 's' },   { "mode", required_argument, NULL, 'm' },
        { "refine", required_argument, NULL, 'r' }, { "shape", required_argument, NULL, 'S' },
        { "method", required_argument, NULL, 'M' }, { "batches", required_argument, NULL, 'n' },
        { "results", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 }
    };
    const char *device = NULL, *results_path = NULL;
    int batches = 20, c;
    clx_multipass_options o;
    clx_multipass_options_init(&o);
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'w': if (parse_windows(optarg, &o)) usage(); break;
        case 's': o.step = atoi(optarg); break;
        case 'm': o.plan.mode = strcmp(optarg, "seed") == 0 ? CLX_MODE_SEED : CLX_MODE_ACCURATE; break;
        case 'r': if (refiner_parse(optarg, &o.plan)) usage(); break;
        case 'S': o.plan.shape = atoi(optarg); break;
        case 'M':
            o.plan.method = strcmp(optarg, "fft") == 0      ? CLX_METHOD_FFT
                            : strcmp(optarg, "direct") == 0 ? CLX_METHOD_DIRECT
                                                            : CLX_METHOD_AUTO;
            break;
        case 'n': batches = atoi(optarg); break;
        case 'o': results_path = optarg; break;
        default: usage();
        }
    }
    if (argc - optind != 2 || batches < 1)
        usage();

    clx_image a, b;
    clx_message msg;
    if (clx_image_load(argv[optind], 0, &a, &msg) != CLX_OK || clx_image_load(argv[optind + 1], 0, &b, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-piv-bench: %s\n", msg.text);
        return 1;
    }
    clx_context *ctx = NULL;
    clx_context_options copt;
    clx_context_options_init(&copt);
    copt.device = device;
    if (clx_context_open(&copt, &ctx, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-piv-bench: %s\n", msg.text);
        return 1;
    }
    clx_multipass *mp = NULL;
    double t_plans = now();
    if (clx_multipass_create(ctx, a.width, a.height, &o, &mp) != CLX_OK) {
        fprintf(stderr, "clxcorr-piv-bench: %s\n", clx_context_message(ctx));
        return 1;
    }
    t_plans = now() - t_plans;
    size_t nvec;
    const clx_region *regions = clx_multipass_regions(mp, &nvec);
    size_t batch = (size_t)clx_multipass_batch_size(mp);
    clx_image *fa = malloc(batch * sizeof *fa), *fb = malloc(batch * sizeof *fb);
    clx_result *res = malloc(batch * nvec * sizeof *res);
    if (!fa || !fb || !res)
        return 1;
    for (size_t i = 0; i < batch; i++) {
        fa[i] = a;
        fb[i] = b;
    }
    /* One batch unclocked: kernels compiled lazily, buffers first touched. */
    int status = clx_multipass_run(mp, fa, fb, batch, res, batch * nvec);
    double t0 = now();
    for (int k = 0; status == CLX_OK && k < batches; k++)
        status = clx_multipass_run(mp, fa, fb, batch, res, batch * nvec);
    double t = now() - t0;
    if (status != CLX_OK) {
        fprintf(stderr, "clxcorr-piv-bench: %s\n", clx_context_message(ctx));
        return 1;
    }
    if (results_path)
        results_write(results_path, res, regions, nvec);
    double pairs = (double)batches * batch;
    printf("device: %s\n", clx_context_device(ctx)->name);
    printf("frames %dx%d, %d passes (", a.width, a.height, o.passes);
    for (int k = 0; k < o.passes; k++)
        printf("%s%d", k ? "," : "", o.window[k]);
    printf(" px), step %d, %zu vectors per pair, batches of %zu pairs, plans in %.2f s\n", o.step, nvec, batch,
           t_plans);
    printf("last pass: %s\n", clx_plan_explanation(clx_multipass_plan(mp, o.passes - 1)));
    printf("pairs/s %.2f  vectors/s %.0f  (%.0f pairs in %.3f s)\n", pairs / t, pairs * nvec / t, pairs, t);
    clx_multipass_release(mp);
    clx_context_release(ctx);
    clx_image_free(&a);
    clx_image_free(&b);
    free(fa);
    free(fb);
    free(res);
    return 0;
}
