/*
 * method_choice.c - FFT or direct, by measurement.
 *
 * Each path is timed on the device with random windows of the job's size,
 * for the job's batch: the FFT path over the whole batch (it always
 * transforms all of it); the direct path first over a sample (one image's
 * windows, fewer where they are large: a 64 x 64 window searched over every
 * shift is 66 M multiply-adds, minutes of a CPU device for a whole image),
 * and over the whole batch only when that estimate is not already far
 * behind. The per-window times are cached under a key of the device, its
 * driver, clxcorr's version and the job's shape, so a job of the same shape
 * decides at once the next time.
 *
 * Before any of that, the arithmetic decides where it can: a job whose
 * direct correlation needs DIRECT_HOPELESS times the FFT path's operations
 * takes the FFT path unmeasured, so a first run does not build the direct
 * kernels and time them for nothing (on PoCL, 4 s of a 10 s first run for
 * EBSD-sized windows, whose direct path is 1500x slower there).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/method_choice.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"

/* The direct path is not measured over a whole batch when one image's
 * windows already take this many times the FFT's per-window time, and
 * measuring the batch would take more than DIRECT_GIVE_UP_MS. Small jobs are
 * always measured in full: one image's few tiny windows are mostly launch
 * latency and say little about a batch (on an H200, 8x8 windows looked 9x
 * slower direct than FFT per window that way, and were 6x faster batched). */
#define DIRECT_GIVE_UP 4.0
#define DIRECT_GIVE_UP_MS 50.0
/* A sample of this many milliseconds or more is the batch's estimate. */
#define DIRECT_SAMPLE_ENOUGH_MS 20.0
/* The direct path's first sample: at most this many multiply-adds. */
#define DIRECT_SAMPLE_MACS 2e9
/* Direct multiply-adds per FFT operation beyond which the direct path is
 * not measured. bench/results/crossover-results.txt (H200, where the direct
 * kernels do best against the FFT): at a ratio of 9 (24 x 24 windows, every
 * shift) the two paths are even, at 53 (64 x 64) direct is 7.4x slower, at
 * 120 (100 x 100) 22x; on PoCL it is far worse. */
#define DIRECT_HOPELESS 64.0
/* Timed runs per measurement (after one warm-up); the best counts. A
 * measurement that has taken MEASURE_ENOUGH_MS stops repeating. */
#define REPEATS 3
#define MEASURE_ENOUGH_MS 1000.0
#define CACHE_FILE "methods.tsv"

/* Random prepared windows for timing: any values do, zeros might not. */
static int fill_random(struct clx_context *ctx, cl_mem buf, size_t count, int use_double)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    unsigned char *host = malloc(count * rs);
    uint32_t s = 12345;
    int status = CLX_OK;
    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < count; i++) {
        s = s * 1664525u + 1013904223u;
        double v = (double)(s >> 8) / (double)(1u << 24) - 0.5;
        if (use_double)
            ((double *)host)[i] = v;
        else
            ((float *)host)[i] = (float)v;
    }
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, 0, count * rs, host, 0, NULL, NULL));
error:
    free(host);
    return status;
}

int method_time(struct clx_context *ctx, const struct correlator_ops *ops, const struct kernel_params *base,
                const struct kernel_overrides *overrides, int nwin, int ntiles, int run_tiles, double *ms)
{
    struct kernel_params p = *base;
    size_t rs = p.use_double ? sizeof(double) : sizeof(float);
    void *state = NULL;
    cl_mem prepared = NULL, corr = NULL;
    cl_int err;
    int status;

    ops->configure(&ctx->dev, &p, ntiles);
    if (overrides)
        kernel_overrides_apply(overrides, overrides->given, &p);
    status = ops->create(ctx, &p, nwin, ntiles, &state);
    if (status != CLX_OK)
        return status;
    prepared = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, rs * ntiles * p.pad_w * p.pad_h, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(timing windows)", err);
    corr = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, rs * ntiles * p.corr_w * p.corr_h, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(timing correlations)", err);
    if ((status = fill_random(ctx, prepared, (size_t)ntiles * p.pad_w * p.pad_h, p.use_double)) != CLX_OK ||
        (status = ops->set_reference(ctx, state, prepared)) != CLX_OK)
        goto error;

    double best = INFINITY, spent = 0;
    for (int r = 0; r <= REPEATS && !(r > 1 && spent > MEASURE_ENOUGH_MS); r++) {
        CL_CALL(ctx, clFinish(ctx->queue));
        double t0 = 1e3 * profile_seconds();
        if ((status = ops->enqueue(ctx, state, prepared, run_tiles, NULL, corr, NULL)) != CLX_OK)
            goto error;
        CL_CALL(ctx, clFinish(ctx->queue));
        double t = 1e3 * profile_seconds() - t0;
        spent += t;
        if (r > 0 && t < best)   /* run 0 warms up */
            best = t;
    }
    *ms = best;
error:
    if (prepared)
        clReleaseMemObject(prepared);
    if (corr)
        clReleaseMemObject(corr);
    ops->release(state);
    return status;
}

/* ---- the cache file ------------------------------------------------------ */

static void cache_key(const struct clx_context *ctx, const struct kernel_params *p, int nwin, int ntiles,
                      char *key, size_t len)
{
    snprintf(key, len, "%s|%s|%s|%s|win=%dx%d|search=%dx%d|fit=%d|windows=%d|tiles=%d|fft=%s", ctx->dev.info.name,
             ctx->dev.info.driver_version, PACKAGE_VERSION, p->use_double ? "double" : "float", p->win_w,
             p->win_h, p->search_rx, p->search_ry, p->fit_size, nwin, ntiles, kernel_params_fft_name(p));
}

static int cache_path(const struct clx_context *ctx, char *out, size_t len)
{
    return ctx->cache_dir[0] && snprintf(out, len, "%s/" CACHE_FILE, ctx->cache_dir) < (int)len;
}

static int cache_lookup(const struct clx_context *ctx, const char *key, struct method_choice *c)
{
    char path[PATH_MAX], line[1024];
    size_t klen = strlen(key);
    int found = 0;
    if (!cache_path(ctx, path, sizeof path))
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 || line[klen] != '\t')
            continue;
        found = sscanf(line + klen + 1, "%lf\t%lf\t%d", &c->fft_ms, &c->direct_ms, &c->direct_estimated) == 3 &&
                c->fft_ms > 0 && c->direct_ms > 0;
    }
    fclose(f);
    return found;
}

/* Rewrites the file with this key's line replaced; failures only cost a
 * measurement next time. */
static void cache_store(const struct clx_context *ctx, const char *key, const struct method_choice *c)
{
    char path[PATH_MAX], line[1024];
    size_t klen = strlen(key);
    if (!cache_path(ctx, path, sizeof path))
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    FILE *in = fopen(path, "r");
    while (in && fgets(line, sizeof line, in))
        if (!(strncmp(line, key, klen) == 0 && line[klen] == '\t') && strchr(line, '\n'))
            fputs(line, out);
    if (in)
        fclose(in);
    fprintf(out, "%s\t%.6g\t%.6g\t%d\n", key, c->fft_ms, c->direct_ms, c->direct_estimated);
    /* Replaced whole (clx_output): processes sharing the cache read either
     * file, never half of one. */
    if (fclose(out) == 0)
        clx_output_write_file(path, text, len, NULL);
    free(text);
}

/* ---- the FFT library ----------------------------------------------------- */

int fft_choose(struct clx_context *ctx, struct kernel_params *p, int nwin, int ntiles, char *why, size_t why_len)
{
    char key[768];
    struct method_choice c;   /* fft_ms: clFFT's time, direct_ms: VkFFT's */
    why[0] = '\0';
    if (p->fft != FFT_AUTO)
        return CLX_OK;
    p->fft = FFT_CLFFT;
    if (!strstr(clx_build_features(), "vkfft")) {
        snprintf(why, why_len, "fft auto: clFFT, the only FFT library of this build");
        return CLX_OK;
    }
    memset(&c, 0, sizeof c);
    cache_key(ctx, p, nwin, ntiles, key, sizeof key);
    strncat(key, "|clfft-vs-vkfft", sizeof key - strlen(key) - 1);
    c.cached = cache_lookup(ctx, key, &c);
    if (!c.cached) {
        struct kernel_params with = *p;
        with.fft = FFT_CLFFT;
        int status = method_time(ctx, &correlator_fft, &with, NULL, nwin, ntiles, ntiles, &c.fft_ms);
        with.fft = FFT_VKFFT;
        if (status == CLX_OK)
            status = method_time(ctx, &correlator_fft, &with, NULL, nwin, ntiles, ntiles, &c.direct_ms);
        if (status != CLX_OK)
            return status;
        cache_store(ctx, key, &c);
    }
    p->fft = c.direct_ms < c.fft_ms ? FFT_VKFFT : FFT_CLFFT;
    snprintf(why, why_len, "fft auto chose %s: %.4g ms per batch against %.4g ms for %s (%s)",
             kernel_params_fft_name(p), p->fft == FFT_VKFFT ? c.direct_ms : c.fft_ms,
             p->fft == FFT_VKFFT ? c.fft_ms : c.direct_ms, p->fft == FFT_VKFFT ? "clfft" : "vkfft",
             c.cached ? "measured earlier" : "measured now");
    return CLX_OK;
}

/* ---- the decision -------------------------------------------------------- */

/* Whether measure() leaves the direct path's batch time estimated: the
 * sample ran long enough that launch latency does not blur it, or it is far
 * behind and the batch would take long. */
static int direct_batch_skipped(const struct method_choice *c, int sample, int ntiles)
{
    return c->direct_ms * sample >= DIRECT_SAMPLE_ENOUGH_MS ||
           (c->direct_ms >= DIRECT_GIVE_UP * c->fft_ms && c->direct_ms * ntiles > DIRECT_GIVE_UP_MS);
}

/* The direct path's first sample: one image's windows, or fewer where their
 * sums are long. */
static int direct_sample(const struct kernel_params *p, int nwin, int ntiles)
{
    double per_tile = (double)p->win_w * p->win_h * (2.0 * p->search_rx + 1) * (2.0 * p->search_ry + 1);
    double most = DIRECT_SAMPLE_MACS / per_tile;
    int n = nwin < ntiles ? nwin : ntiles;
    return most < 1 ? 1 : most < n ? (int)most : n;
}

static int measure(struct clx_context *ctx, const struct kernel_params *base, int nwin, int ntiles,
                   struct method_choice *c)
{
    double fft, direct;
    int sample = direct_sample(base, nwin, ntiles);
    int status = method_time(ctx, &correlator_fft, base, NULL, nwin, ntiles, ntiles, &fft);
    if (status != CLX_OK)
        return status;
    c->fft_ms = fft / ntiles;
    /* The sample first: a job of `sample` windows of one image (the direct
     * kernel correlates whole images' windows, so a part of a batch of
     * pairs, each tile with its own reference, is timed as its own job). */
    status = method_time(ctx, &correlator_direct, base, NULL, sample, sample, sample, &direct);
    if (status != CLX_OK)
        return status;
    c->direct_ms = direct / sample;
    c->direct_estimated = 1;
    if (ntiles > sample && !direct_batch_skipped(c, sample, ntiles)) {
        status = method_time(ctx, &correlator_direct, base, NULL, nwin, ntiles, ntiles, &direct);
        if (status != CLX_OK)
            return status;
        c->direct_ms = direct / ntiles;
        c->direct_estimated = 0;
    }
    return CLX_OK;
}

/* Direct multiply-adds per operation of the FFT path, for one window: the
 * direct sum over every searched shift against a real transform each way
 * (about 2.5 P log2 P each for P padded points) and the product. */
static double direct_fft_work_ratio(const struct kernel_params *p)
{
    double direct = (double)p->win_w * p->win_h * (2.0 * p->search_rx + 1) * (2.0 * p->search_ry + 1);
    double points = 4.0 * p->win_w * p->win_h;   /* at least 2w x 2h */
    double fft = 5.0 * points * log2(points) + 6.0 * points;
    return direct / fft;
}

int method_choose(struct clx_context *ctx, clx_method requested, const struct kernel_params *base,
                  int nwin, int ntiles, struct method_choice *c)
{
    char key[768];
    memset(c, 0, sizeof *c);
    c->fft_ms = c->direct_ms = -1;
    if (requested != CLX_METHOD_AUTO) {
        c->correlator = requested == CLX_METHOD_DIRECT ? &correlator_direct : &correlator_fft;
        snprintf(c->explanation, sizeof c->explanation, "%s, as asked", c->correlator->name);
        return CLX_OK;
    }
    double ratio = direct_fft_work_ratio(base);
    if (ratio >= DIRECT_HOPELESS) {
        c->correlator = &correlator_fft;
        snprintf(c->explanation, sizeof c->explanation,
                 "auto chose fft without measuring: for %dx%d windows with shifts up to %d x %d, direct correlation "
                 "needs %.0f multiply-adds per FFT operation, where it never wins (%.0f or more)",
                 base->win_w, base->win_h, base->search_rx, base->search_ry, ratio, DIRECT_HOPELESS);
        return CLX_OK;
    }

    cache_key(ctx, base, nwin, ntiles, key, sizeof key);
    c->cached = cache_lookup(ctx, key, c);
    /* An estimate an earlier rule made where measure() now measures. */
    int sample = direct_sample(base, nwin, ntiles);
    if (c->cached && c->direct_estimated && ntiles > sample && !direct_batch_skipped(c, sample, ntiles))
        c->cached = 0;
    if (!c->cached) {
        int status = measure(ctx, base, nwin, ntiles, c);
        if (status != CLX_OK)
            return status;
        cache_store(ctx, key, c);
    }
    c->correlator = c->direct_ms < c->fft_ms ? &correlator_direct : &correlator_fft;
    snprintf(c->explanation, sizeof c->explanation,
             "auto chose %s: %.4g ms per window against %.4g ms for %s (%s on %s for %dx%d windows, shifts up to "
             "%d x %d, %d windows x %d images per batch, %s%s)",
             c->correlator->name, c->correlator == &correlator_direct ? c->direct_ms : c->fft_ms,
             c->correlator == &correlator_direct ? c->fft_ms : c->direct_ms,
             c->correlator == &correlator_direct ? "fft" : "direct",
             c->cached ? "measured earlier" : "measured now", ctx->dev.info.name, base->win_w, base->win_h,
             base->search_rx, base->search_ry, nwin, ntiles / nwin, base->use_double ? "double" : "float",
             c->direct_estimated ? "; direct estimated from a sample of the windows" : "");
    return CLX_OK;
}

