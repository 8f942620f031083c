/*
 * throughput.c - clxcorr-throughput: patterns per second from host memory,
 * measured the way bench/peer_cupy.py (the CuPy + cuFFT reference) measures
 * it: images decoded once, then streamed through the device (upload,
 * correlation, download and host fit included, disk excluded) by
 * clx_stream_run, as `clxcorr offsets` does, its loader threads copying the
 * decoded images into pinned memory (the rows the plan reads of them, as
 * offsets reads those alone from files). Like the peers (bench/peer_cupy.py,
 * bench/peer_scipy.py), it leaves the first batch untimed: the clock starts
 * once that batch is delivered (its images come out of the count), so
 * neither side's figure holds first-touch costs such as a new buffer's page
 * faults. Runs of one batch are timed from the plans' start instead.
 * Uses the public API only.
 *
 *   clxcorr-throughput [--device SPEC] [--batch B] [--repeat N] [--double]
 *                      [--method M] [--max-shift R] [--mode seed|accurate]
 *                      [--param KEY=VALUE,...] [--lanes L] [--threads T]
 *                      [--refine icgn|correlation|none] [--shape 0|1] [--passes N]
 *                      [--prefilter SPEC] [--pairs]
 *                      [--interp lanczos3|keys|bspline3|bspline5]
 *                      --regions FILE REFERENCE IMAGE...   (seed mode unless asked)
 *
 * --pairs times PIV's frame pairs: every image against its own reference
 * (the REFERENCE copied in beside it, prepared on the device with the
 * batch), twice the transforms of one reference.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <pthread.h>
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

/* What the stream's callbacks see. */
struct source {
    const clx_image *images;
    size_t nimages;
    double start;               /* the plans exist */
    double warm;                /* the first batch was delivered */
    size_t delivered;
    int batch, lanes;
    const char *method;
    /* The rows the plan reads (clx_plan_rows_read): the loaders copy those
     * alone, as `clxcorr offsets` reads them from files. */
    clx_rows rows[64];
    size_t nrows;               /* 0: every row */
};

static int load(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    struct source *src = user;
    return clx_image_copy_rows_to(&src->images[i % src->nimages], staged, src->nrows ? src->rows : NULL, src->nrows,
                                  msg);
}

/* --pairs: each image's own reference, the one REFERENCE copied again. */
static const clx_image *pairs_reference;

static int load_reference(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    return clx_image_copy_to(pairs_reference, staged, msg);
}

/* --no-load: the pinned memory keeps whatever it holds, so that the run
 * times the device side and the stream alone, without the host's copy. */
static int load_nothing(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    return CLX_OK;
}

/* Images come in input order, on the calling thread. */
static int deliver(void *user, size_t i, const clx_result *results, size_t n, clx_message *msg)
{
    struct source *src = user;
    if (++src->delivered == (size_t)src->batch)
        src->warm = now();
    return CLX_OK;
}

static int started(void *user, const clx_stream_info *info, clx_message *msg)
{
    struct source *src = user;
    src->batch = clx_plan_batch_size(info->plan);
    src->lanes = info->lanes;
    src->method = clx_method_name(clx_plan_method(info->plan));
    src->nrows = clx_plan_rows_read(info->plan, src->rows, sizeof src->rows / sizeof src->rows[0]);
    if (src->nrows > sizeof src->rows / sizeof src->rows[0])
        src->nrows = 0;
    src->start = now();
    return CLX_OK;
}

/* --separate: one independent stream per device, each on its own thread,
 * to tell the shared stream's costs from the driver's and the host's. */
struct separate {
    clx_context *ctx;
    const clx_image *ref;
    const clx_region *regions;
    size_t nregions, count, done;
    const clx_plan_options *popt;
    clx_stream_options sopt;
    struct source src;
    double end;
    int status;
};

static void *separate_main(void *arg)
{
    struct separate *p = arg;
    p->status = clx_stream_run(p->ctx, p->ref, p->regions, p->nregions, p->popt, &p->sopt, p->count, load, deliver,
                               &p->src, &p->done);
    p->end = now();
    return NULL;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "clxcorr-throughput: %s: %s\n", what, why);
    exit(1);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' }, { "batch", required_argument, NULL, 'b' },
        { "repeat", required_argument, NULL, 'n' }, { "double", no_argument, NULL, 'D' },
        { "regions", required_argument, NULL, 'r' }, { "method", required_argument, NULL, 'm' },
        { "max-shift", required_argument, NULL, 'R' }, { "mode", required_argument, NULL, 'M' },
        { "param", required_argument, NULL, 'p' }, { "lanes", required_argument, NULL, 'L' },
        { "threads", required_argument, NULL, 'j' }, { "no-load", no_argument, NULL, 'N' },
        { "separate", no_argument, NULL, 'S' }, { "refine", required_argument, NULL, 'F' },
        { "shape", required_argument, NULL, 'H' }, { "interp", required_argument, NULL, 'I' },
        { "passes", required_argument, NULL, 'P' }, { "prefilter", required_argument, NULL, 'G' },
        { "pairs", no_argument, NULL, 'A' }, { NULL, 0, NULL, 0 }
    };
    const char *device = NULL, *regions_path = NULL, *params = NULL;
    int batch = 0, use_double = 0, max_shift = 0, lanes = 0, threads = 0, no_load = 0, separate = 0, pairs = 0, c;
    clx_method method = CLX_METHOD_AUTO;
    clx_mode mode = CLX_MODE_SEED;
    const char *refine = NULL, *interp = NULL, *prefilter = NULL;
    int shape = -1, passes = 0;     /* -1, 0: the library's defaults */
    long repeat = 4096;
    clx_message msg;

    while ((c = getopt_long(argc, argv, "d:b:n:Dr:m:R:M:p:L:j:NSF:H:I:P:G:A", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'b': batch = atoi(optarg); break;
        case 'n': repeat = atol(optarg); break;
        case 'D': use_double = 1; break;
        case 'r': regions_path = optarg; break;
        case 'm':
            method = strcmp(optarg, "fft") == 0 ? CLX_METHOD_FFT
                     : strcmp(optarg, "direct") == 0 ? CLX_METHOD_DIRECT : CLX_METHOD_AUTO;
            break;
        case 'R': max_shift = atoi(optarg); break;
        case 'M': mode = strcmp(optarg, "accurate") == 0 ? CLX_MODE_ACCURATE : CLX_MODE_SEED; break;
        case 'p': params = optarg; break;
        case 'L': lanes = atoi(optarg); break;
        case 'j': threads = atoi(optarg); break;
        case 'N': no_load = 1; break;
        case 'S': separate = 1; break;
        case 'F': refine = optarg; break;
        case 'H': shape = atoi(optarg); break;
        case 'I': interp = optarg; break;
        case 'P': passes = atoi(optarg); break;
        case 'G': prefilter = optarg; break;
        case 'A': pairs = 1; break;
        default: return 2;
        }
    }
    if (!regions_path || argc - optind < 2) {
        fprintf(stderr, "usage: clxcorr-throughput [--device SPEC] [--batch B] [--repeat N] [--double] [--method M] "
                        "[--max-shift R] [--mode seed|accurate] [--param KEY=VALUE,...] [--lanes L] [--threads T] "
                        "[--no-load] [--separate] [--refine icgn|correlation|none] [--shape 0|1] [--passes N] [--prefilter SPEC] "
                        "[--interp lanczos3|keys|bspline3|bspline5] [--pairs] "
                        "--regions FILE REFERENCE IMAGE...\n");
        return 2;
    }

    clx_image ref;
    clx_region *regions;
    size_t nregions, nimages = (size_t)(argc - optind - 1);
    if (clx_image_load(argv[optind], 0, &ref, &msg) != CLX_OK)
        die(argv[optind], msg.text);
    if (clx_regions_read(regions_path, &regions, &nregions, &msg) != CLX_OK)
        die(regions_path, msg.text);
    clx_image *images = calloc(nimages, sizeof *images);
    for (size_t i = 0; i < nimages; i++)
        if (clx_image_load(argv[optind + 1 + i], 0, &images[i], &msg) != CLX_OK)
            die(argv[optind + 1 + i], msg.text);

    /* --device may list several devices (comma-separated): the stream shares
     * the batches among them (clx_stream_run_devices). */
    clx_context *ctxs[16];
    size_t ndevices = 0;
    char device_names[1024] = "";
    do {
        char spec[128] = "";
        const char *comma = device ? strchr(device, ',') : NULL;
        if (device)
            snprintf(spec, sizeof spec, "%.*s", (int)(comma ? (size_t)(comma - device) : strlen(device)), device);
        clx_context_options copt;
        clx_context_options_init(&copt);
        copt.device = device ? spec : NULL;
        copt.need_fp64 = use_double;
        if (ndevices == 16 || clx_context_open(&copt, &ctxs[ndevices], &msg) != CLX_OK)
            die("device", ndevices == 16 ? "at most 16 devices" : msg.text);
        size_t used = strlen(device_names);
        snprintf(device_names + used, sizeof device_names - used, "%s%s", ndevices ? " + " : "",
                 clx_context_device(ctxs[ndevices])->name);
        ndevices++;
        device = comma ? comma + 1 : NULL;
    } while (device);
    clx_context *ctx = ctxs[0];
    clx_plan_options popt;
    clx_plan_options_init(&popt);
    popt.batch = batch;
    popt.use_double = use_double;
    popt.method = method;
    popt.mode = mode;
    popt.max_shift = max_shift;
    popt.params = params;
    if (shape >= 0)
        popt.shape = shape;
    popt.passes = passes;
    popt.pairs = pairs;
    if (prefilter)
        popt.prefilter = prefilter;
    if (refine && strcmp(refine, "none") == 0)
        popt.refine = 0;
    else if (refine)
        popt.refiner = strcmp(refine, "correlation") == 0 ? CLX_REFINER_CORRELATION : CLX_REFINER_ICGN;
    static const clx_interp interps[] = { CLX_INTERP_LANCZOS3, CLX_INTERP_KEYS, CLX_INTERP_BSPLINE3,
                                          CLX_INTERP_BSPLINE5 };
    for (size_t i = 0; interp && i < sizeof interps / sizeof interps[0]; i++)
        if (strcmp(interp, clx_interp_name(interps[i])) == 0)
            popt.interp = interps[i];
    /* Warm-up: a short stream builds the kernels and FFT plans and settles
     * the automatic choices (cached), so that the timed one starts warm. */
    clx_stream_options sopt;
    clx_stream_options_init(&sopt);
    sopt.lanes = lanes;
    sopt.loaders = threads;
    sopt.started = started;
    pairs_reference = &ref;
    sopt.load_reference = pairs ? load_reference : NULL;
    size_t device_images[16];
    sopt.device_images = device_images;
    struct source src = { .images = images, .nimages = nimages, .method = "" };
    if (clx_stream_run_devices(ctxs, ndevices, &ref, regions, nregions, &popt, &sopt, nimages * ndevices, load,
                               deliver, &src, NULL) != CLX_OK)
        die("warm-up", clx_context_message(ctx));
    if (separate && ndevices > 1) {
        struct separate runs[16];
        pthread_t threads_of[16];
        for (size_t d = 0; d < ndevices; d++) {
            runs[d] = (struct separate){ ctxs[d], &ref, regions, nregions, (size_t)repeat / ndevices, 0, &popt, sopt,
                                         src, 0, 0 };
            runs[d].sopt.device_images = NULL;
            pthread_create(&threads_of[d], NULL, separate_main, &runs[d]);
        }
        double first = 0, last = 0, sum = 0;
        size_t total = 0;
        for (size_t d = 0; d < ndevices; d++) {
            pthread_join(threads_of[d], NULL);
            if (runs[d].status != CLX_OK)
                die("run", clx_context_message(ctxs[d]));
            first = d == 0 || runs[d].src.start < first ? runs[d].src.start : first;
            last = runs[d].end > last ? runs[d].end : last;
            sum += runs[d].done / (runs[d].end - runs[d].src.start);
            total += runs[d].done;
        }
        printf("clxcorr (separate streams) %s device=\"%s\": %.1f patterns/s in all, %.1f summed over the streams\n",
               clx_mode_name(mode), device_names, total / (last - first), sum);
        for (size_t d = 0; d < ndevices; d++)
            clx_context_release(ctxs[d]);
        return 0;
    }
    size_t done = 0;
    src.warm = 0;           /* the warm-up stream's deliveries do not count */
    src.delivered = 0;
    if (clx_stream_run_devices(ctxs, ndevices, &ref, regions, nregions, &popt, &sopt, (size_t)repeat,
                               no_load ? load_nothing : load, deliver, &src, &done) != CLX_OK)
        die("run", clx_context_message(ctx));
    /* The first batch untimed, as the peers' warm-up run. */
    double end = now(), elapsed = end - src.start;
    size_t timed = done;
    if (src.warm > 0 && done > (size_t)src.batch) {
        elapsed = end - src.warm;
        timed = done - (size_t)src.batch;
    }
    char refinement[192] = "";
    clx_plan_options resolved = popt;
    clx_plan_options_resolve(&resolved);
    if (mode == CLX_MODE_ACCURATE)
        snprintf(refinement, sizeof refinement, " refine=%s shape=%d interp=%s passes=%d prefilter=%s",
                 popt.refine ? clx_refiner_name(popt.refiner) : "none", popt.shape, interp ? interp : "default",
                 resolved.passes, popt.prefilter ? popt.prefilter : "none");
    printf("clxcorr %s%s%s%s %s %s max-shift=%d%s%s device=\"%s\" batch=%d lanes=%d regions=%zu window=%dx%d "
           "image=%dx%d: %.1f patterns/s (%.4f ms/pattern)\n",
           no_load ? "(no load) " : "", pairs ? "pairs " : "", clx_mode_name(mode), refinement, use_double ? "double" : "float", src.method,
           max_shift, params ? " params=" : "",
           params ? params : "", device_names, src.batch, src.lanes, nregions, regions[0].w, regions[0].h, ref.width,
           ref.height, timed / elapsed, 1e3 * elapsed / timed);
    if (ndevices > 1) {
        printf("  images per device:");
        for (size_t d = 0; d < ndevices; d++)
            printf(" %zu", device_images[d]);
        printf("\n");
    }

    for (size_t d = 0; d < ndevices; d++)
        clx_context_release(ctxs[d]);
    for (size_t i = 0; i < nimages; i++)
        clx_image_free(&images[i]);
    clx_image_free(&ref);
    free(images);
    free(regions);
    return 0;
}
