/*
 * tune_search.c - clx_tune: the best kernel parameters, FFT library and batch for
 * one device and workload class, by measurement.
 *
 * Every candidate runs the real thing: images streamed from host memory
 * through clx_stream_run's overlapped lanes, exactly as `clxcorr offsets`
 * runs them, so what is timed is the rate a user gets, transfers included.
 * Its first images are checked against the reference run before the clock
 * starts; a candidate that fails to build, to fit or to agree is rejected
 * with its reason and never timed.
 *
 * The search is coordinate descent from the shipped defaults: one
 * dimension at a time (the FFT library, the batch, each kernel's work-group
 * shape and variant), every value of it tried with the others held, and a
 * value kept when it is faster by more than the noise (MIN_GAIN). A final
 * round times the winner and the defaults alternately and keeps the winner
 * only if its median beats the defaults' (a tie keeps the defaults), so
 * tuning never makes a device slower than it was.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "params/kernel_params.h"
#include "params/tuning_db.h"
#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/profile.h"

/* A change is kept when it is this much faster: below it, run-to-run noise
 * on a busy host would decide. */
#define MIN_GAIN 1.02
/* Alternating timings of the winner and the defaults at the end. */
#define FINAL_ROUNDS 3
#define MAX_PAIRS 32

void clx_tune_options_init(clx_tune_options *o)
{
    memset(o, 0, sizeof *o);
    o->seconds = 1.0;
    o->tolerance = 0.01;
}

/* ---- parameter sets ------------------------------------------------------ */

/* KEY=VALUE pairs, the later of two equal keys replacing the earlier. */
struct param_set {
    char keys[MAX_PAIRS][32];
    char values[MAX_PAIRS][32];
    int n;
    int batch;                 /* 0: the plan sizes it */
};

static void set_pair(struct param_set *s, const char *key, const char *value)
{
    int i = 0;
    while (i < s->n && strcmp(s->keys[i], key) != 0)
        i++;
    if (i == s->n) {
        if (s->n == MAX_PAIRS)
            return;
        s->n++;
    }
    snprintf(s->keys[i], sizeof s->keys[i], "%s", key);
    snprintf(s->values[i], sizeof s->values[i], "%s", value);
}

/* Applies "k=v,k=v" ("batch=N" sets the batch). */
static void set_pairs(struct param_set *s, const char *text)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (strcmp(item, "batch") == 0)
            s->batch = atoi(eq + 1);
        else
            set_pair(s, item, eq + 1);
    }
}

static void format_pairs(const struct param_set *s, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < s->n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s=%s", i ? "," : "", s->keys[i], s->values[i]);
}

/* Does s already hold every pair of `text`? */
static int holds(const struct param_set *s, const char *text)
{
    struct param_set t = *s;
    char a[512], b[512];
    set_pairs(&t, text);
    format_pairs(s, a, sizeof a);
    format_pairs(&t, b, sizeof b);
    return strcmp(a, b) == 0 && t.batch == s->batch;
}

/* ---- the search space ---------------------------------------------------- */

/* One dimension: the values it takes, each a "k=v[,k=v]" string. */
struct dimension {
    const char *name;
    const char *values[8];
    int seed, accurate;        /* in which modes the dimension matters */
    int quick;                 /* searched by a quick tune too */
};

/* The batch's values depend on the device type and are filled in below. */
static const struct dimension dimensions[] = {
    { "fft", { "fft=vkfft", "fft=clfft", "fft=cpu", "fft=local" }, 1, 1, 1 },
    { "fft_pack", { "fft_pack=0", "fft_pack=1" }, 1, 1, 0 },
    { "batch", { NULL }, 1, 1, 1 },
    { "sums_wg", { "sums_wg=64", "sums_wg=128", "sums_wg=256", "sums_wg=512" }, 1, 0, 1 },
    { "sums_items", { "sums_items=1", "sums_items=2", "sums_items=4", "sums_items=8" }, 1, 0, 0 },
    { "prepare shape",
      { "prep_tx=32,prep_ty=8", "prep_tx=64,prep_ty=4", "prep_tx=16,prep_ty=16", "prep_tx=128,prep_ty=2",
        "prep_tx=32,prep_ty=4" }, 1, 0, 1 },
    { "prep_vec", { "prep_vec=1", "prep_vec=2", "prep_vec=4" }, 1, 0, 0 },
    { "prep_pad", { "prep_pad=0", "prep_pad=1", "prep_pad=2" }, 1, 0, 0 },
    { "tile_wg", { "tile_wg=64", "tile_wg=128", "tile_wg=256", "tile_wg=512" }, 0, 1, 1 },
    { "tile_form", { "tile_form=0", "tile_form=1" }, 0, 1, 1 },
    { "icgn_form", { "icgn_form=0", "icgn_form=1" }, 0, 1, 1 },
    /* After icgn_form: where form 0 reads its samples (form 1 takes only 0). */
    { "icgn_source", { "icgn_source=0", "icgn_source=1", "icgn_source=2", "icgn_source=3" }, 0, 1, 0 },
    { "argmax_wg", { "argmax_wg=64", "argmax_wg=128", "argmax_wg=256", "argmax_wg=512" }, 1, 1, 1 },
    { "argmax_form",
      { "argmax_form=0", "argmax_form=1,argmax_parts=4", "argmax_form=1,argmax_parts=16",
        "argmax_form=2,argmax_parts=4", "argmax_form=2,argmax_parts=16", "argmax_form=3" }, 1, 1, 0 },
    { "sample shape",
      { "sample_tx=16,sample_ty=8", "sample_tx=32,sample_ty=4", "sample_tx=16,sample_ty=16",
        "sample_tx=8,sample_ty=8" }, 0, 1, 0 },
    { "direct_few_wg", { "direct_few_wg=32", "direct_few_wg=64", "direct_few_wg=128", "direct_few_wg=256" }, 0, 1,
      0 },
};

static const char *const gpu_batches[] = { "batch=32", "batch=64", "batch=128", "batch=256", NULL };
static const char *const other_batches[] = { "batch=4", "batch=8", "batch=16", "batch=32", NULL };

/* ---- one candidate ------------------------------------------------------- */

struct tuner {
    struct clx_context *ctx;
    const clx_image *reference;
    const clx_region *regions;
    size_t nregions;
    clx_plan_options base;
    const clx_image *images;
    size_t nimages;
    clx_tune_options opt;
    clx_result *expected;      /* the reference run's results for images[] */
    size_t timed;              /* images timed per candidate (after the checked ones) */
    int tried, rejected;
};

/* What one stream run's callbacks share. */
struct run {
    struct tuner *t;
    int check;                 /* compare with t->expected (else: fill it) */
    size_t warm;               /* images delivered before the clock starts */
    double t_warm, t_end;
    int batch, lanes;
};

static int load(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    struct run *r = user;
    return clx_image_copy_to(&r->t->images[i % r->t->nimages], staged, msg);
}

static int started(void *user, const clx_stream_info *info, clx_message *msg)
{
    struct run *r = user;
    r->batch = clx_plan_batch_size(info->plan);
    r->lanes = info->lanes;
    /* The clock starts when the batch holding the last checked image is
     * delivered: whole batches are delivered at once. */
    size_t b = (size_t)r->batch;
    r->warm = (r->t->nimages + b - 1) / b * b;
    return CLX_OK;
}

/* The reference's result for the same image and window; a mismatch is an error naming it. */
static int compare(const struct tuner *t, size_t image, const clx_result *got, clx_message *msg)
{
    for (size_t k = 0; k < t->nregions; k++) {
        const clx_result *want = &t->expected[image * t->nregions + k];
        /* Windows the reference itself flags are not held to a number. */
        if (want->flags != 0)
            continue;
        double err = fmax(fabs(got[k].dx - want->dx), fabs(got[k].dy - want->dy));
        if (got[k].flags != 0 || !(err <= t->opt.tolerance)) {
            snprintf(msg->text, sizeof msg->text,
                     "image %zu window %zu: (%.4f, %.4f) flags %u, the reference (%.4f, %.4f): off by %.4g px", image,
                     k, got[k].dx, got[k].dy, got[k].flags, want->dx, want->dy, err);
            return CLX_ERR_ARGUMENT;
        }
    }
    return CLX_OK;
}

static int deliver(void *user, size_t i, const clx_result *results, size_t n, clx_message *msg)
{
    struct run *r = user;
    struct tuner *t = r->t;
    if (i < t->nimages) {
        if (!r->check)
            memcpy(&t->expected[i * n], results, n * sizeof *results);
        else if (compare(t, i, results, msg) != CLX_OK)
            return CLX_ERR_ARGUMENT;
    }
    if (i + 1 == r->warm)
        r->t_warm = profile_seconds();
    r->t_end = profile_seconds();
    return CLX_OK;
}

/*
 * Streams `timed` images after the checked ones with plan options `po`;
 * *rate: images/s between the end of the warm-up and the last delivery
 * (0 when nothing was timed). Returns the run's status; its message is in
 * why.
 */
static int run_stream(struct tuner *t, const clx_plan_options *po, int check, size_t timed, double *rate,
                      double *seconds, char *why, size_t why_len)
{
    struct run r = { t, check, t->nimages, 0, 0, 0, 0 };
    clx_stream_options so;
    clx_stream_options_init(&so);
    so.started = started;
    size_t count = t->nimages + timed;
    *rate = 0;
    if (seconds)
        *seconds = 0;
    int status = clx_stream_run(t->ctx, t->reference, t->regions, t->nregions, po, &so, count, load, deliver, &r,
                                NULL);
    why[0] = '\0';
    if (status != CLX_OK) {
        snprintf(why, why_len, "%s", clx_context_message(t->ctx));
    } else if (count >= r.warm + 2 * (size_t)r.batch && r.t_end > r.t_warm) {
        /* Two batches at least after the warm-up, or the figure is noise. */
        *rate = (double)(count - r.warm) / (r.t_end - r.t_warm);
        if (seconds)
            *seconds = r.t_end - r.t_warm;
    } else if (timed > 0) {
        snprintf(why, why_len, "%zu images are too few to time batches of %d", timed, r.batch);
    }
    return status;
}

static void say(const struct tuner *t, const char *fmt, ...) CLX_PRINTF(2, 3);

static void say(const struct tuner *t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    if (!t->opt.progress)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    t->opt.progress(t->opt.user, line);
}

/* Checks then times one parameter set; 0 with *rate, or -1 when rejected. */
static int measure(struct tuner *t, const struct param_set *s, double *rate)
{
    char params[512], why[1024];
    clx_plan_options po = t->base;
    format_pairs(s, params, sizeof params);
    po.params = params;
    po.batch = s->batch;
    t->tried++;
    if (run_stream(t, &po, 1, t->timed, rate, NULL, why, sizeof why) != CLX_OK || !(*rate > 0)) {
        t->rejected++;
        say(t, "  rejected  %s batch=%d: %s", params[0] ? params : "(defaults)", s->batch,
            why[0] ? why : "nothing timed");
        return -1;
    }
    say(t, "  %9.1f images/s  %s batch=%d", *rate, params[0] ? params : "(defaults)", s->batch);
    return 0;
}

/* ---- the search ---------------------------------------------------------- */

static int has_vkfft(void)
{
    return strstr(clx_build_features(), "vkfft") != NULL;
}

/* Is this value worth a run on this device? (Work-groups it cannot hold,
 * a library this build lacks.) */
static int feasible(const struct tuner *t, const char *value)
{
    if (strncmp(value, "fft=vkfft", 9) == 0 && !has_vkfft())
        return 0;
    if (strncmp(value, "batch=", 6) == 0)
        return 1;   /* a batch that does not fit is rejected by the run, with the reason */
    struct kernel_params p;
    char why[512];
    kernel_params_defaults(&p, &t->ctx->dev);
    p.use_double = t->base.use_double;
    if (kernel_params_override(&p, value, why, sizeof why) != 0)
        return 0;   /* a key this build does not know */
    return kernel_params_check(&p, &t->ctx->dev, why, sizeof why) == 0;
}

/* Sorts v (n is small); the index of its median. */
static int median_index(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n / 2;
}

static void search(struct tuner *t, struct param_set *best, double *best_rate)
{
    int seed = t->base.mode == CLX_MODE_SEED, gpu = t->ctx->dev.info.type == CLX_DEVICE_GPU;
    for (size_t d = 0; d < sizeof dimensions / sizeof dimensions[0]; d++) {
        const struct dimension *dim = &dimensions[d];
        if (!(seed ? dim->seed : dim->accurate) || (t->opt.quick && !dim->quick))
            continue;
        const char *const *values = strcmp(dim->name, "batch") == 0 ? gpu ? gpu_batches : other_batches
                                                                     : dim->values;
        say(t, "%s (best so far %.1f images/s):", dim->name, *best_rate);
        for (int v = 0; v < 8 && values[v]; v++) {
            if (holds(best, values[v]) || !feasible(t, values[v]))
                continue;
            struct param_set s = *best;
            double rate;
            set_pairs(&s, values[v]);
            if (measure(t, &s, &rate) == 0 && rate > *best_rate * MIN_GAIN) {
                *best = s;
                *best_rate = rate;
            }
        }
    }
}

/* Times the winner and the defaults alternately; their medians. */
static int final_round(struct tuner *t, const struct param_set *best, const struct param_set *defaults,
                       double *best_rate, double *default_rate)
{
    double b[FINAL_ROUNDS], d[FINAL_ROUNDS];
    char a[512], z[512];
    format_pairs(best, a, sizeof a);
    format_pairs(defaults, z, sizeof z);
    /* Nothing beat the defaults: timing them against themselves would
     * only report noise as a gain. */
    int same = strcmp(a, z) == 0 && best->batch == defaults->batch;
    say(t, same ? "final: nothing beat the defaults; they are timed %d times:"
                : "final: the best and the defaults, %d times each, alternately:", FINAL_ROUNDS);
    for (int i = 0; i < FINAL_ROUNDS; i++)
        if ((!same && measure(t, best, &b[i]) != 0) || measure(t, defaults, &d[i]) != 0)
            return -1;
    *default_rate = d[median_index(d, FINAL_ROUNDS)];
    *best_rate = same ? *default_rate : b[median_index(b, FINAL_ROUNDS)];
    return 0;
}

/* The reference run: the defaults, in double where the device has it. */
static int reference_run(struct tuner *t)
{
    char why[1024];
    double rate;
    clx_plan_options po = t->base;
    po.params = NULL;
    po.batch = 0;
    if (t->ctx->dev.info.has_fp64)
        po.use_double = 1;
    say(t, "reference: the shipped defaults in %s precision over %zu images", po.use_double ? "double" : "single",
        t->nimages);
    if (run_stream(t, &po, 0, 0, &rate, NULL, why, sizeof why) != CLX_OK)
        return ctx_fail(t->ctx, CLX_ERR_ARGUMENT, "the reference run failed: %s", why);
    return CLX_OK;
}

/* How many images to time per candidate: `seconds` at the defaults' rate.
 * The count grows from a guess until a run of the defaults lasts at least
 * half of that, so that the pipeline is full for most of every timing. */
static int calibrate(struct tuner *t, const struct param_set *defaults, double *rate)
{
    char why[1024], params[512];
    clx_plan_options po = t->base;
    format_pairs(defaults, params, sizeof params);
    po.params = params;
    po.batch = defaults->batch;
    size_t timed = 8 * t->nimages;
    for (;;) {
        double seconds;
        if (run_stream(t, &po, 1, timed, rate, &seconds, why, sizeof why) != CLX_OK)
            return ctx_fail(t->ctx, CLX_ERR_ARGUMENT, "the defaults do not agree with the reference: %s", why);
        if (*rate > 0 && (seconds >= 0.5 * t->opt.seconds || timed >= ((size_t)1 << 24)))
            break;
        double want = *rate * t->opt.seconds * 1.1;
        timed = want > 2.0 * timed ? (size_t)want : 2 * timed;
    }
    t->timed = timed;
    say(t, "defaults: %.1f images/s; each candidate is timed over %zu images after %zu checked ones", *rate,
        t->timed, t->nimages);
    return CLX_OK;
}

/* The tuner for one clx_tune call, its options defaulted. */
static void tuner_init(struct tuner *t, clx_context *ctx, const clx_image *reference, const clx_region *regions,
                       size_t region_count, const clx_plan_options *plan_options, const clx_image *images,
                       size_t image_count, const clx_tune_options *options)
{
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->reference = reference;
    t->regions = regions;
    t->nregions = region_count;
    t->images = images;
    t->nimages = image_count;
    if (plan_options)
        t->base = *plan_options;
    else
        clx_plan_options_init(&t->base);
    clx_tune_options_init(&t->opt);
    if (options)
        t->opt = *options;
    if (!(t->opt.seconds > 0))
        t->opt.seconds = 1.0;
    if (!(t->opt.tolerance > 0))
        t->opt.tolerance = 0.01;
    t->base.params = NULL;
}

/* The search from the shipped defaults: the best set and its rate, and the defaults'. */
static int search_from_defaults(struct tuner *t, struct param_set *defaults, struct param_set *best, double *best_rate,
                       double *default_rate)
{
    clx_context *ctx = t->ctx;
    const char *why;
    clx_tuning shipped;
    tuning_shipped(&ctx->dev, t->base.mode, &shipped, &why);
    *defaults = (struct param_set){ .n = 0, .batch = shipped.batch };
    set_pairs(defaults, shipped.params);
    *best = *defaults;
    *best_rate = *default_rate = 0;

    /* The candidates say every value they change; the tuning file must not
     * change the rest (nor the defaults they are compared with). */
    int ignored = ctx->ignore_tuning;
    ctx->ignore_tuning = 1;
    int status = reference_run(t);
    if (status == CLX_OK)
        status = calibrate(t, defaults, best_rate);
    if (status == CLX_OK) {
        search(t, best, best_rate);
        if (final_round(t, best, defaults, best_rate, default_rate) != 0)
            status = ctx_fail(ctx, CLX_ERR_ARGUMENT, "the final timing failed (see the lines above)");
    }
    ctx->ignore_tuning = ignored;
    return status;
}

/* The entry the search kept, never slower than the defaults (they win a
 * tie within the noise), stored in the tuning file unless a dry run. */
static int keep_result(struct tuner *t, const struct param_set *best, double best_rate,
                       const struct param_set *defaults, double default_rate, clx_tuning *result)
{
    clx_context *ctx = t->ctx;
    const struct param_set *kept = best_rate > default_rate ? best : defaults;
    struct kernel_params p;
    kernel_params_defaults(&p, &ctx->dev);
    p.win_w = t->regions[0].w;
    p.win_h = t->regions[0].h;
    p.use_double = t->base.use_double;
    p.pixel = t->reference->type;
    memset(result, 0, sizeof *result);
    snprintf(result->device, sizeof result->device, "%s", ctx->dev.info.name);
    snprintf(result->driver, sizeof result->driver, "%s", ctx->dev.info.driver_version);
    tuning_class(t->base.mode, &p, result->workload, sizeof result->workload);
    format_pairs(kept, result->params, sizeof result->params);
    result->batch = kept->batch;
    result->rate = kept == best ? best_rate : default_rate;
    result->default_rate = default_rate;
    time_t now = time(NULL);
    struct tm local;
    strftime(result->date, sizeof result->date, "%Y-%m-%d %H:%M", localtime_r(&now, &local));
    say(t, "%d candidates tried, %d rejected; kept %s: %.1f images/s against %.1f for the defaults (%+.1f%%)",
        t->tried, t->rejected, kept == best ? "the best" : "the defaults", result->rate, default_rate,
        100.0 * (result->rate / default_rate - 1.0));
    if (t->opt.dry_run)
        return CLX_OK;
    clx_message msg;
    char path[PATH_MAX];
    int status;
    if (tuning_path_of(ctx, path, sizeof path) != 0)
        return ctx_fail(ctx, CLX_ERR_IO, "no cache directory for the tuning file (set XDG_CACHE_HOME)");
    if ((status = tuning_store(path, result, &msg)) != CLX_OK)
        return ctx_fail(ctx, status, "%s", msg.text);
    return CLX_OK;
}

int clx_tune(clx_context *ctx, const clx_image *reference, const clx_region *regions, size_t region_count,
             const clx_plan_options *plan_options, const clx_image *images, size_t image_count,
             const clx_tune_options *options, clx_tuning *result)
{
    int live = handle_check(ctx, HANDLE_CONTEXT);
    if (live != CLX_OK)
        return live;
    msg_clear(&ctx->message);
    if (!reference || !regions || !region_count || !images || !image_count || !result)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_tune: a NULL or empty argument");
    struct tuner t;
    tuner_init(&t, ctx, reference, regions, region_count, plan_options, images, image_count, options);
    t.expected = malloc(sizeof *t.expected * image_count * region_count);
    if (!t.expected)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    struct param_set defaults, best;
    double best_rate, default_rate;
    int status = search_from_defaults(&t, &defaults, &best, &best_rate, &default_rate);
    if (status == CLX_OK)
        status = keep_result(&t, &best, best_rate, &defaults, default_rate, result);
    free(t.expected);
    return status;
}
