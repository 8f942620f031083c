/*
 * filter.c - clxcorr-filter-bench: how fast the pre-filters run on a device.
 *
 * For each spec it times, on a random 16-bit image of --size (default
 * 900x900):
 *   device  filter_enqueue on a batch already on the device (--batch images),
 *           kernels only, per image: what the accurate mode pays;
 *   apply   clx_filter_apply per image: upload, filter, download into a host
 *           F32 image: what `clxcorr filter` pays besides file I/O;
 * and, for radius 1 and 2, the device time with the separable path forced,
 * to compare with the tiled path. Each time is the median of --repeat runs
 * after one warm-up run (which builds the kernels).
 *
 *   clxcorr-filter-bench [--device SPEC] [--size WxH] [--batch B] [--repeat N]
 *                        [--double] [SPEC...]
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/filter_chain.h"
#include "runtime/context.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct job {
    struct clx_context *ctx;
    clx_image image;
    cl_mem input, output;
    int batch, repeat, use_double;
};

static void die(struct clx_context *ctx, const char *what)
{
    fprintf(stderr, "clxcorr-filter-bench: %s: %s\n", what, clx_context_message(ctx));
    exit(1);
}

/* Median ms per image of filter_enqueue + clFinish on the device batch. */
static double time_device(struct job *j, clx_filter *f)
{
    double t[64];
    int w = j->image.width, h = j->image.height;
    for (int r = -1; r < j->repeat; r++) {
        double start = now_ms();
        if (filter_enqueue(f, j->input, CLX_PIXEL_U16, w, h, j->batch, j->output) != CLX_OK ||
            clFinish(j->ctx->queue) != CL_SUCCESS)
            die(j->ctx, "filter_enqueue");
        if (r >= 0)
            t[r] = (now_ms() - start) / j->batch;
    }
    qsort(t, (size_t)j->repeat, sizeof t[0], by_value);
    return t[j->repeat / 2];
}

/* Median ms of clx_filter_apply on one host image. */
static double time_apply(struct job *j, clx_filter *f)
{
    double t[64];
    for (int r = -1; r < j->repeat; r++) {
        clx_image out;
        double start = now_ms();
        if (clx_filter_apply(f, &j->image, &out) != CLX_OK)
            die(j->ctx, "clx_filter_apply");
        if (r >= 0)
            t[r] = now_ms() - start;
        clx_image_free(&out);
    }
    qsort(t, (size_t)j->repeat, sizeof t[0], by_value);
    return t[j->repeat / 2];
}

static clx_filter *filter_make(struct job *j, const char *spec, enum filter_path path)
{
    clx_filter_options opt;
    clx_filter *f;
    clx_filter_options_init(&opt);
    opt.spec = spec;
    opt.use_double = j->use_double;
    if (clx_filter_create(j->ctx, &opt, &f) != CLX_OK)
        die(j->ctx, spec);
    filter_force_path(f, path);
    return f;
}

static void bench_spec(struct job *j, const char *spec)
{
    clx_filter *f = filter_make(j, spec, FILTER_PATH_AUTO);
    int radius = f->chain.stages[0].radius;
    double mpix = (double)j->image.width * j->image.height / 1e6;
    double dev = time_device(j, f), apply = time_apply(j, f);
    const char *path = f->chain.nstages > 1 ? "chain" : radius <= 2 ? "tiled" : "separable";
    printf("%-28s %3d  %-9s %9.3f %9.1f %9.3f", spec, radius, path, dev, mpix / dev * 1e3, apply);
    clx_filter_release(f);
    if (radius <= 2) {
        clx_filter *s = filter_make(j, spec, FILTER_PATH_SEPARABLE);
        printf(" %11.3f", time_device(j, s));
        clx_filter_release(s);
    }
    printf("\n");
}

static void setup(struct job *j, int w, int h)
{
    clx_message msg;
    cl_int err;
    if (clx_image_alloc(&j->image, w, h, CLX_PIXEL_U16, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-filter-bench: %s\n", msg.text);
        exit(1);
    }
    uint64_t s = 12345;
    size_t n = (size_t)w * h;
    uint16_t *batch = malloc(n * sizeof *batch * j->batch);
    for (size_t i = 0; i < n * j->batch; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        batch[i] = (uint16_t)(s >> 48);
    }
    memcpy(j->image.pixels, batch, n * sizeof *batch);
    j->input = clCreateBuffer(j->ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *batch * j->batch, batch,
                              &err);
    if (err == CL_SUCCESS)
        j->output = clCreateBuffer(j->ctx->cl, CL_MEM_READ_WRITE,
                                   n * (j->use_double ? sizeof(double) : sizeof(float)) * j->batch, NULL, &err);
    free(batch);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clxcorr-filter-bench: cannot allocate the device batch (%d)\n", (int)err);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' }, { "size", required_argument, NULL, 's' },
        { "batch", required_argument, NULL, 'b' },  { "repeat", required_argument, NULL, 'r' },
        { "double", no_argument, NULL, 'D' },       { NULL, 0, NULL, 0 }
    };
    static const char *const defaults[] = { "taps:1,2,1", "gaussian:0.33", "taps:1,4,6,4,1", "gaussian:1",
                                            "gaussian:5", "background:21", "background:20+gaussian:1" };
    struct job j = { .batch = 1, .repeat = 11 };
    const char *device = NULL;
    int w = 900, h = 900, c;
    while ((c = getopt_long(argc, argv, "d:s:b:r:D", longopts, NULL)) != -1) {
        if (c == 'd')
            device = optarg;
        else if (c == 's' && sscanf(optarg, "%dx%d", &w, &h) == 2 && w > 0 && h > 0)
            continue;
        else if (c == 'b' && (j.batch = atoi(optarg)) > 0)
            continue;
        else if (c == 'r' && (j.repeat = atoi(optarg)) > 0 && j.repeat <= 64)
            continue;
        else if (c == 'D')
            j.use_double = 1;
        else
            return 2;
    }
    clx_context_options copt;
    clx_context *ctx;
    clx_message msg;
    clx_context_options_init(&copt);
    copt.device = device;
    copt.need_fp64 = j.use_double;
    if (clx_context_open(&copt, &ctx, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-filter-bench: %s\n", msg.text);
        return 1;
    }
    j.ctx = ctx;
    setup(&j, w, h);
    printf("device: %s; %dx%d 16-bit, %s, batch %d, median of %d\n", clx_context_device(ctx)->name, w, h,
           j.use_double ? "double" : "float", j.batch, j.repeat);
    printf("%-28s %3s  %-9s %9s %9s %9s %11s\n", "spec", "r", "path", "device ms", "Mpix/s", "apply ms",
           "separable ms");
    int nspecs = optind < argc ? argc - optind : (int)(sizeof defaults / sizeof defaults[0]);
    for (int i = 0; i < nspecs; i++)
        bench_spec(&j, optind < argc ? argv[optind + i] : defaults[i]);
    clReleaseMemObject(j.input);
    clReleaseMemObject(j.output);
    clx_image_free(&j.image);
    clx_context_release(ctx);
    return 0;
}
