/*
 * plan.c - one reference, one window list, one set of options: the public
 * plan API, the checks, the kernel parameters, the batch size, and the
 * upload every image goes through before its mode's pipeline takes it
 * (pipeline.h):
 *
 *   seed mode      pipeline_seed.c      doc/conventions.md's steps
 *   accurate mode  pipeline_accurate.c  pre-filter, window offset, refinement
 *
 * clx_plan_push uploads the images (through pinned memory) and enqueues the
 * pipeline's work; clx_plan_read waits and finishes it on the host. Where
 * the pipeline reads only the windows, only the rows and columns they cover
 * go up (upload_crop.h): the pipeline sees that crop as its images.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/correlation_stage.h"
#include "ops/filter_chain.h"
#include "params/tuning_db.h"
#include "pipeline/plan.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"

/* Largest automatic batch: enough to fill a large GPU, bounded for CPUs,
 * where bigger batches only cost memory. */
#define AUTO_BATCH_GPU 128
#define AUTO_BATCH_OTHER 16
/* Most tiles (images x windows) in one batch: kernels put tiles along
 * NDRange dimensions that some drivers limit to 65535 work-groups. */
#define MAX_TILES 65535
#define MAX_FIT_SIZE 31
/* The interpolation IC-GN uses unless told otherwise: the cubic B-spline
 * keeps its bias within 0.0013 px behind the default pre-filter, with the
 * accurate mode as fast as before IC-GN on the H200; the quintic's 0.0002
 * px costs a fifth of the patterns/s (bench/results/icgn-gpu-results.txt). */
#define ICGN_DEFAULT_INTERP CLX_INTERP_BSPLINE3

void clx_plan_options_init(clx_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = CLX_MODE_ACCURATE;
    o->method = CLX_METHOD_AUTO;
    o->estimator = CLX_ESTIMATOR_DEFAULT;
    o->fit_size = 0;
    /* The accurate mode's defaults, chosen with bench/accuracy.sh. */
    /* The light low-pass keeps the noise out of IC-GN's gradients: on the
     * Kikuchi set with noise it cut the error by a fifth and the
     * iterations by half, and noisy strain fits by a third; without noise
     * it changed nothing measurable (bench/results/interp-bias-results.txt). */
    o->prefilter = "background:8+gaussian:0.7";
    o->window = CLX_WINDOW_HANN;
    o->window_alpha = 0.25;
    o->passes = 0;      /* the refiner's: clx_plan_options_resolve */
    /* First order: as fast within a few per cent on the H200, and windows
     * that strain or rotate (every EBSD pattern's do) are measured at their
     * centre, not biased by the strain (bench/results/interp-bias-results.txt). */
    o->shape = 1;
    o->refine = 8;
    o->tolerance = 1e-3;
    /* 2 px holds the first pass's errors with room (at most 0.4 px on the
     * Kikuchi set with the default pre-filter) and keeps the window-offset
     * pass on the direct path's few-shifts form; 4 px gave the same offsets. */
    o->fine_shift = 2;
}

/* ---- checks and sizes ---------------------------------------------------- */

/*
 * The interpolation in the kernels' terms: an explicit option wins over
 * the params' interp (--param or the tuning), which CLX_INTERP_DEFAULT
 * leaves as it is; the option then names what runs, for logs and metadata.
 */
static int apply_interp(struct clx_plan *plan)
{
    /* IC-GN's own default: its bias stays within 0.002 px only with a
     * B-spline (bench/results/interp-bias-results.txt). */
    if (plan->opt.mode == CLX_MODE_ACCURATE && plan->opt.interp == CLX_INTERP_DEFAULT &&
        plan->opt.refiner == CLX_REFINER_ICGN && !(plan->overrides.given & KP_BIT(interp)))
        plan->opt.interp = ICGN_DEFAULT_INTERP;
    plan->params.shape = plan->opt.shape;
    static const struct { clx_interp option; int kernel; } map[] = {
        { CLX_INTERP_LANCZOS3, INTERP_LANCZOS3 }, { CLX_INTERP_KEYS, INTERP_KEYS },
        { CLX_INTERP_BSPLINE3, INTERP_BSPLINE3 }, { CLX_INTERP_BSPLINE5, INTERP_BSPLINE5 } };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (plan->opt.interp == map[i].option)
            plan->params.interp = map[i].kernel;
        else if (plan->opt.interp == CLX_INTERP_DEFAULT && plan->params.interp == map[i].kernel)
            plan->opt.interp = map[i].option;
    }
    return CLX_OK;
}

/* The mode's defaults for the estimator and F where the options say 0. */
void clx_plan_options_resolve(clx_plan_options *o)
{
    int seed = o->mode == CLX_MODE_SEED;
    if (o->estimator == CLX_ESTIMATOR_DEFAULT)
        o->estimator = CLX_ESTIMATOR_LSQ;
    if (o->fit_size == 0)
        o->fit_size = seed ? 5 : 3;
    /* IC-GN converges from the first pass's sub-pixel offset (within its
     * basin of a pixel or more): a window-offset pass before it changed
     * no offset on the synthetic sets and cost a correlation and a wait. */
    if (o->passes == 0)
        o->passes = o->refine > 0 && o->refiner == CLX_REFINER_ICGN ? 1 : 2;
}

static int check_options(struct clx_context *ctx, const clx_plan_options *o, int w, int h)
{
    clx_message msg;
    if (o->mode != CLX_MODE_SEED && o->mode != CLX_MODE_ACCURATE)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown mode %d", (int)o->mode);
    if (o->fit_size < 3 || o->fit_size % 2 == 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fit size %d: it must be odd and at least 3", o->fit_size);
    if (o->fit_size > MAX_FIT_SIZE)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fit size %d: at most %d", o->fit_size, MAX_FIT_SIZE);
    int limit = 2 * (w < h ? w : h) - 1;
    if (o->fit_size > limit)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fit size %d is too large for %dx%d windows (at most %d)",
                        o->fit_size, w, h, limit % 2 ? limit : limit - 1);
    if (o->batch < 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "batch size %d: it must be positive", o->batch);
    if (o->estimator < CLX_ESTIMATOR_DEFAULT || o->estimator > CLX_ESTIMATOR_CENTROID)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown estimator %d", (int)o->estimator);
    if (o->method != CLX_METHOD_AUTO && o->method != CLX_METHOD_FFT && o->method != CLX_METHOD_DIRECT)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown method %d", (int)o->method);
    if (o->max_shift < 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "maximum shift %d: it must be positive (0: no limit)", o->max_shift);
    if (o->use_double && !ctx->dev.info.has_fp64)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED,
                        "device %s has no double precision (cl_khr_fp64); run without --double",
                        ctx->dev.info.name);
    if (o->mode == CLX_MODE_ACCURATE) {
        if (o->passes < 1 || o->passes > 16)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "passes %d: from 1 to 16", o->passes);
        if (o->refine < 0 || o->refine > 64)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "refinement iterations %d: from 0 to 64", o->refine);
        if (!(o->tolerance > 0))
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "refinement tolerance %g: it must be positive", o->tolerance);
        if (o->window < CLX_WINDOW_NONE || o->window > CLX_WINDOW_TUKEY || !(o->window_alpha >= 0) ||
            o->window_alpha > 1)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "window function %d with alpha %g: alpha from 0 to 1",
                            (int)o->window, o->window_alpha);
        if (o->interp < CLX_INTERP_DEFAULT || o->interp > CLX_INTERP_BSPLINE5)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown interpolation %d", (int)o->interp);
        if (o->refiner != CLX_REFINER_ICGN && o->refiner != CLX_REFINER_CORRELATION)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown refiner %d", (int)o->refiner);
        if (o->shape != 0 && o->shape != 1)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "shape function %d: 0 (translation) or 1 (first order)", o->shape);
        if (o->pairs && o->refine > 0 && o->refiner != CLX_REFINER_ICGN)
            return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "pairs are refined by IC-GN only, not by the %s refinement",
                            clx_refiner_name(o->refiner));
        if (o->pairs && o->passes > 1)
            return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "pairs take one correlation pass (IC-GN refines from it), "
                            "not %d", o->passes);
        if (o->fine_shift < 1 || o->fine_shift > 64)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fine search radius %d: from 1 to 64", o->fine_shift);
        if (o->prefilter && strcmp(o->prefilter, "none") != 0 &&
            clx_filter_spec_check(o->prefilter, &msg) != CLX_OK)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%s", msg.text);
    }
    return CLX_OK;
}

/* What the pipeline sees of the plan. */
static struct pipeline_job job_of(const struct clx_plan *plan)
{
    struct pipeline_job job = {
        .ctx = plan->ctx, .opt = &plan->opt, .regions = plan->regions, .nwin = plan->nwin,
        .batch = plan->batch, .pairs = plan->opt.pairs,
        .nref = plan->opt.pairs ? plan->batch * plan->nwin : plan->nwin, .params = &plan->params,
        .overrides = &plan->overrides, .corners = plan->corners,
    };
    upload_crop_size(&plan->crop, &job.image_w, &job.image_h);
    return job;
}

/* Pixels of one image's device copy. */
static size_t device_pixels(const struct clx_plan *plan)
{
    int w, h;
    upload_crop_size(&plan->crop, &w, &h);
    return (size_t)w * h;
}

/* Device bytes one pushed image costs, and the largest single buffer per image. */
static void job_costs(const struct clx_plan *plan, size_t *per_image, size_t *largest)
{
    size_t pixels = device_pixels(plan);
    struct pipeline_job job = job_of(plan);
    plan->pipeline->image_bytes(&job, per_image, largest);
    /* The upload, widest pixel type; with pairs the references' too. */
    *per_image += pixels * sizeof(float) * (plan->opt.pairs ? 2 : 1);
    if (*largest < pixels * sizeof(float))
        *largest = pixels * sizeof(float);
}

static int choose_batch(struct clx_plan *plan, int requested)
{
    struct clx_context *ctx = plan->ctx;
    const clx_device_info *dev = &ctx->dev.info;
    size_t per_image, largest;
    job_costs(plan, &per_image, &largest);

    /* Half the device's memory for us, a quarter on CPUs whose "device
     * memory" is the host's; shared with the plans that run beside us. */
    unsigned long long sharing = plan->opt.plans_sharing_device > 1 ? (unsigned)plan->opt.plans_sharing_device : 1;
    unsigned long long budget = dev->global_memory / (dev->type == CLX_DEVICE_GPU ? 2 : 4) / sharing;
    unsigned long long by_memory = budget / per_image;
    unsigned long long by_alloc = dev->max_allocation / largest;
    unsigned long long by_index = MAX_TILES / (unsigned long long)plan->nwin;
    unsigned long long fits = by_memory < by_alloc ? by_memory : by_alloc;
    if (by_index < fits)
        fits = by_index;

    if (requested > 0) {
        if ((unsigned long long)requested > by_index)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "a batch of %d images with %d windows is %llu tiles; at most %d",
                            requested, plan->nwin, (unsigned long long)requested * plan->nwin, MAX_TILES);
        if ((unsigned long long)requested > by_alloc ||
            (unsigned long long)requested * per_image > dev->global_memory)
            return ctx_fail(ctx, CLX_ERR_DEVICE_MEMORY,
                            "a batch of %d images needs %.0f MiB of device memory; %s has %.0f MiB "
                            "(at most %llu images fit)",
                            requested, requested * (double)per_image / 1048576.0, dev->name,
                            dev->global_memory / 1048576.0, fits);
        plan->batch = requested;
        return CLX_OK;
    }
    if (fits < 1)
        return ctx_fail(ctx, CLX_ERR_DEVICE_MEMORY,
                        "one image with %d windows of %dx%d needs %.0f MiB of device memory; %s has %.0f MiB",
                        plan->nwin, plan->params.win_w, plan->params.win_h, per_image / 1048576.0,
                        dev->name, dev->global_memory / 1048576.0);
    unsigned long long cap = plan->tuned_batch > 0                 ? (unsigned long long)plan->tuned_batch
                             : dev->type == CLX_DEVICE_GPU ? AUTO_BATCH_GPU
                                                           : AUTO_BATCH_OTHER;
    /* Every push transforms a whole batch, so a batch larger than the run
     * only wastes work. */
    if (plan->opt.expected_images > 0 && plan->opt.expected_images < cap)
        cap = plan->opt.expected_images;
    plan->batch = (int)(fits < cap ? fits : cap);
    return CLX_OK;
}

/* ---- upload -------------------------------------------------------------- */

static int upload_corners(struct clx_plan *plan)
{
    struct clx_context *ctx = plan->ctx;
    int status = ctx_create_buffer(ctx, sizeof(cl_int2) * plan->nwin, &plan->corners, "corners");
    if (status != CLX_OK)
        return status;
    cl_int2 *corners = malloc(sizeof *corners * plan->nwin);
    if (!corners)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int i = 0; i < plan->nwin; i++)
        upload_crop_map(&plan->crop, plan->regions[i].x, plan->regions[i].y, &corners[i].s[0], &corners[i].s[1]);
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, plan->corners, CL_TRUE, 0, sizeof *corners * plan->nwin, corners,
                                      0, NULL, NULL));
error:
    free(corners);
    return status;
}

/* Where a push's images go on the device, and where clx_plan_push stages
 * them: the images', or with pairs the references'. */
struct upload_target {
    cl_mem *buffer;
    size_t *bytes;
    struct pinned *staging;
    const char *what;
};

static struct upload_target images_target(struct clx_plan *plan)
{
    struct upload_target t = { &plan->images, &plan->images_bytes, &plan->staging, "images" };
    return t;
}

static struct upload_target references_target(struct clx_plan *plan)
{
    struct upload_target t = { &plan->references, &plan->references_bytes, &plan->reference_staging, "references" };
    return t;
}

/* Grows a device image buffer to `bytes`. */
static int reserve_images(struct clx_plan *plan, struct upload_target t, size_t bytes)
{
    if (bytes <= *t.bytes)
        return CLX_OK;
    if (*t.buffer)
        clReleaseMemObject(*t.buffer);
    *t.bytes = 0;
    int status = ctx_create_buffer(plan->ctx, bytes, t.buffer, t.what);
    if (status == CLX_OK)
        *t.bytes = bytes;
    return status;
}

/* Grows a pinned staging buffer to `bytes`. */
static int reserve_staging(struct clx_plan *plan, struct upload_target t, size_t bytes)
{
    if (bytes <= t.staging->bytes)
        return CLX_OK;
    ctx_pinned_free(plan->ctx, t.staging);
    return ctx_pinned_alloc(plan->ctx, bytes, t.staging, "staged images");
}

/* The widest pixel type among the images: narrower ones are widened
 * losslessly into it, so one kernel variant serves a mixed batch. */
static clx_pixel_type widest_type(const clx_image *images, size_t n)
{
    clx_pixel_type t = images[0].type;
    for (size_t i = 1; i < n; i++)
        if (images[i].type > t)
            t = images[i].type;
    return t;
}

/* Enqueues the upload of n images of `type`, back to back at `pixels`, into
 * the target's buffer. */
static int upload_pixels(struct clx_plan *plan, struct upload_target t, const void *pixels, clx_pixel_type type,
                         size_t n)
{
    struct clx_context *ctx = plan->ctx;
    size_t bytes = device_pixels(plan) * clx_pixel_size(type) * n;
    int status = reserve_images(plan, t, bytes);
    if (status != CLX_OK)
        return status;
    ctx_profile_begin(ctx);
    CL_CALL(ctx, upload_crop_enqueue(&plan->crop, ctx->queue, *t.buffer, pixels, clx_pixel_size(type), n));
    ctx_profile_mark(ctx, "upload", (double)bytes);
error:
    return status;
}

/* Copies the images into the target's pinned memory, as `type` (the
 * widest among them), and enqueues their upload. */
static int upload(struct clx_plan *plan, struct upload_target t, const clx_image *images, size_t n,
                  clx_pixel_type type)
{
    size_t pixels = (size_t)plan->image_w * plan->image_h;
    size_t image_bytes = pixels * clx_pixel_size(type);
    int status = reserve_staging(plan, t, image_bytes * n);
    if (status != CLX_OK)
        return status;
    for (size_t i = 0; i < n; i++) {
        /* Widening only (the type is the widest): it cannot fail. */
        clx_image staged = { plan->image_w, plan->image_h, type, (char *)t.staging->host + i * image_bytes };
        clx_message msg;
        clx_image_copy_to(&images[i], &staged, &msg);
    }
    return upload_pixels(plan, t, t.staging->host, type, n);
}

static int check_image(struct clx_plan *plan, const clx_image *img, const char *what, size_t index)
{
    if (!img->pixels || img->type < CLX_PIXEL_U8 || img->type > CLX_PIXEL_F32)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "%s %zu has no pixels or an unknown pixel type", what, index);
    if (img->width != plan->image_w || img->height != plan->image_h)
        return ctx_fail(plan->ctx, CLX_ERR_SIZE, "%s %zu is %dx%d but the reference is %dx%d", what, index,
                        img->width, img->height, plan->image_w, plan->image_h);
    return CLX_OK;
}

/* ---- create / release ---------------------------------------------------- */

static void plan_free(struct clx_plan *plan);

/* The handle table's way to free a plan whose context goes first. */
static void plan_free_handle(void *plan)
{
    plan_free(plan);
}

/*
 * The tuning's parameters (tuning_db.h) with the caller's after them, so
 * that the caller's win key by key: parsed once into plan->overrides and
 * applied to plan->params, which every stage starts from.
 */
static int apply_tuning(struct clx_plan *plan, const char *caller)
{
    struct clx_context *ctx = plan->ctx;
    struct kernel_overrides tuned;
    clx_tuning t;
    char why[1024];
    tuning_for(ctx, plan->opt.mode, &plan->params, &t, plan->tuning, sizeof plan->tuning);
    plan->tuned_batch = t.batch;
    ctx_log(ctx, CLX_LOG_INFO, "parameters: %s%s%s%s%s", plan->tuning, t.params[0] || (caller && caller[0]) ? "; " : "",
            t.params, t.params[0] && caller && caller[0] ? "," : "", caller ? caller : "");
    kernel_overrides_init(&plan->overrides);
    if (kernel_overrides_parse(&plan->overrides, t.params, 1, why, sizeof why))
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%s, as %s says: run clxcorr tune again or override it with --param",
                        why, plan->tuning);
    tuned = plan->overrides;
    if (caller && kernel_overrides_parse(&plan->overrides, caller, 0, why, sizeof why))
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%s", why);
    /* Parsed once, into plan->overrides: the caller's string need not outlive the call. */
    plan->opt.params = NULL;
    struct kernel_params tuned_only = plan->params;
    kernel_overrides_apply(&plan->overrides, plan->overrides.given, &plan->params);
    if (kernel_params_check(&plan->params, &ctx->dev, why, sizeof why)) {
        /* A stored value the device refuses names the tuning it came from. */
        char ignored[1024];
        kernel_overrides_apply(&tuned, tuned.given, &tuned_only);
        if (kernel_params_check(&tuned_only, &ctx->dev, ignored, sizeof ignored))
            return ctx_fail(ctx, CLX_ERR_ARGUMENT,
                            "%s, as %s says: run clxcorr tune again or override it with --param", why, plan->tuning);
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%s", why);
    }
    return CLX_OK;
}

static int set_reference(struct clx_plan *plan, const clx_image *reference)
{
    struct batch_view b = { NULL, reference->type, 1 };
    int status = upload(plan, images_target(plan), reference, 1, b.type);
    b.images = plan->images;
    if (status == CLX_OK)
        status = plan->pipeline->set_reference(plan->state, &b);
    if (status == CLX_OK) {
        /* Surface any failure now, while it is clearly the reference's. */
        cl_int err = clFinish(plan->ctx->queue);
        if (err != CL_SUCCESS)
            status = ctx_cl_fail(plan->ctx, err, "clFinish(reference)", __FILE__, __LINE__);
    }
    return status;
}

int clx_plan_set_reference(clx_plan *plan, const clx_image *reference)
{
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;
    msg_clear(&plan->ctx->message);
    if (!reference)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "clx_plan_set_reference: NULL reference");
    if (plan->pushed)
        return ctx_fail(plan->ctx, CLX_ERR_STATE, "a new reference before the results of the last push were read");
    if (plan->opt.pairs)
        return ctx_fail(plan->ctx, CLX_ERR_STATE, "a plan made for pairs takes its references with each push");
    status = check_image(plan, reference, "reference", 0);
    return status == CLX_OK ? set_reference(plan, reference) : status;
}

/* The windows, the image size and the job's kernel parameters. */
static int set_job(struct clx_plan *plan, const clx_image *reference, const clx_region *regions, size_t n)
{
    const clx_plan_options *o = &plan->opt;
    plan->nwin = (int)n;
    plan->image_w = reference->width;
    plan->image_h = reference->height;
    plan->regions = malloc(sizeof *regions * n);
    if (!plan->regions)
        return ctx_fail(plan->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    memcpy(plan->regions, regions, sizeof *regions * n);

    struct kernel_params *p = &plan->params;
    kernel_params_defaults(p, &plan->ctx->dev);
    p->use_double = o->use_double;
    p->win_w = regions[0].w;
    p->win_h = regions[0].h;
    p->search_rx = o->max_shift > 0 && o->max_shift < p->win_w - 1 ? o->max_shift : p->win_w - 1;
    p->search_ry = o->max_shift > 0 && o->max_shift < p->win_h - 1 ? o->max_shift : p->win_h - 1;
    p->fit_size = o->fit_size;
    p->pixel = reference->type;
    return CLX_OK;
}

/* What of each image goes up. A pipeline that reads only the windows gets
 * the rows they cover; pairs always go whole, because multipass.c pushes
 * pairs already on the device as whole images (plan_push_device_pairs). */
static int choose_crop(struct clx_plan *plan)
{
    const clx_region *regions = plan->regions;
    size_t n = plan->pipeline->reads_windows_only && !plan->opt.pairs ? (size_t)plan->nwin : 0;
    if (upload_crop_choose(&plan->crop, regions, n, plan->image_w, plan->image_h) != CLX_OK)
        return ctx_fail(plan->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if (plan->crop.used)
        ctx_log(plan->ctx, CLX_LOG_INFO, "upload: %dx%d of each %dx%d image (the rows and columns the windows cover)",
                plan->crop.width, plan->crop.height, plan->image_w, plan->image_h);
    return CLX_OK;
}

/* The mode's pipeline for the job, and the listing --explain prints. */
static int create_pipeline(struct clx_plan *plan)
{
    struct pipeline_job job = job_of(plan);
    int status = plan->pipeline->create(&job, &plan->state);
    if (status == CLX_OK)
        kernel_params_describe(&plan->pipeline->main_stage(plan->state)->params, &plan->overrides,
                               &plan->ctx->dev, plan->parameters, sizeof plan->parameters);
    return status;
}

int clx_plan_create(clx_context *ctx, const clx_image *reference, const clx_region *regions,
                    size_t region_count, const clx_plan_options *options, clx_plan **out)
{
    clx_plan_options defaults;
    struct clx_plan *plan = NULL;
    int status;

    if ((status = handle_check(ctx, HANDLE_CONTEXT)) != CLX_OK)
        return status;
    msg_clear(&ctx->message);
    if (!out || !reference || !regions)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_plan_create: NULL argument");
    *out = NULL;
    if (!options) {
        clx_plan_options_init(&defaults);
        options = &defaults;
    }
    if (region_count == 0 || region_count > INT32_MAX / 1024)
        return ctx_fail(ctx, CLX_ERR_REGION, "%zu windows: give at least one (and not absurdly many)", region_count);
    if (!reference->pixels || reference->width < 1 || reference->height < 1)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "the reference image is empty");
    status = clx_regions_check(regions, region_count, reference->width, reference->height, &ctx->message);
    if (status != CLX_OK)
        return status;
    clx_plan_options resolved = *options;
    clx_plan_options_resolve(&resolved);
    status = check_options(ctx, &resolved, regions[0].w, regions[0].h);
    if (status != CLX_OK)
        return status;

    plan = calloc(1, sizeof *plan);
    if (!plan)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    plan->ctx = ctx;
    plan->opt = resolved;
    plan->pipeline = resolved.mode == CLX_MODE_SEED ? &pipeline_seed : &pipeline_accurate;
    if ((status = set_job(plan, reference, regions, region_count)) != CLX_OK ||
        (status = choose_crop(plan)) != CLX_OK || (status = apply_tuning(plan, options->params)) != CLX_OK || (status = apply_interp(plan)) != CLX_OK ||
        (status = choose_batch(plan, options->batch)) != CLX_OK || (status = upload_corners(plan)) != CLX_OK ||
        (status = create_pipeline(plan)) != CLX_OK ||
        /* With pairs each push brings its references: this one gave the size. */
        (!plan->opt.pairs && (status = set_reference(plan, reference)) != CLX_OK))
        goto error;
    if (handle_add(plan, HANDLE_PLAN, ctx, plan_free_handle) != CLX_OK) {
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto error;
    }
    *out = plan;
    return CLX_OK;

error:
    plan_free(plan);
    return status;
}

void clx_plan_release(clx_plan *plan)
{
    /* A plan released twice, or never created, is left alone. */
    if (plan && handle_remove(plan, HANDLE_PLAN))
        plan_free(plan);
}

static void plan_free(struct clx_plan *plan)
{
    if (!plan)
        return;
    struct clx_context *ctx = plan->ctx;
    /* Nothing may still be writing into memory we free. */
    clFinish(ctx->queue);
    if (plan->state)
        plan->pipeline->release(plan->state);
    ctx_pinned_free(ctx, &plan->staging);
    ctx_pinned_free(ctx, &plan->reference_staging);
    if (plan->corners)
        clReleaseMemObject(plan->corners);
    if (plan->images)
        clReleaseMemObject(plan->images);
    if (plan->references)
        clReleaseMemObject(plan->references);
    upload_crop_release(&plan->crop);
    free(plan->regions);
    free(plan);
}

/* The getters answer 0 or "" for a NULL, released or unknown plan. */
static int live(const clx_plan *plan)
{
    return handle_check(plan, HANDLE_PLAN) == CLX_OK;
}

int clx_plan_batch_size(const clx_plan *plan)
{
    return live(plan) ? plan->batch : 0;
}

size_t clx_plan_region_count(const clx_plan *plan)
{
    return live(plan) ? (size_t)plan->nwin : 0;
}

/* The stage whose path the plan reports: the seed's, or the accurate
 * mode's first pass. */
static const struct stage *main_stage(const struct clx_plan *plan)
{
    return plan->state ? plan->pipeline->main_stage(plan->state) : NULL;
}

clx_method clx_plan_method(const clx_plan *plan)
{
    const struct stage *s = live(plan) ? main_stage(plan) : NULL;
    return s && s->correlator ? s->correlator->method : CLX_METHOD_AUTO;
}

const char *clx_plan_fft(const clx_plan *plan)
{
    const struct stage *s = live(plan) ? main_stage(plan) : NULL;
    return s && s->correlator && s->correlator->method == CLX_METHOD_FFT ? kernel_params_fft_name(&s->params) : "";
}

const char *clx_plan_tuning(const clx_plan *plan)
{
    return live(plan) ? plan->tuning : "";
}

const char *clx_plan_parameters(const clx_plan *plan)
{
    return live(plan) ? plan->parameters : "";
}

const char *clx_plan_explanation(const clx_plan *plan)
{
    const struct stage *s = live(plan) ? main_stage(plan) : NULL;
    return s ? s->explanation : "";
}

void clx_plan_surface_size(const clx_plan *plan, int *width, int *height)
{
    int ok = live(plan);
    if (width)
        *width = ok ? 2 * plan->params.search_rx + 1 : 0;
    if (height)
        *height = ok ? 2 * plan->params.search_ry + 1 : 0;
}

size_t clx_plan_rows_read(const clx_plan *plan, clx_rows *rows, size_t capacity)
{
    if (!live(plan))
        return 0;
    const struct upload_crop *c = &plan->crop;
    if (!c->used) {
        if (capacity > 0 && rows)
            rows[0] = (clx_rows){ 0, plan->image_h };
        return 1;
    }
    for (int b = 0; b < c->nbands && (size_t)b < capacity && rows; b++)
        rows[b] = (clx_rows){ c->bands[b].y, c->bands[b].h };
    return (size_t)c->nbands;
}

/* ---- push / read --------------------------------------------------------- */

/* The checks every push makes before it uploads anything; `pairs`: the
 * push is clx_plan_push_pairs's. */
static int push_check(clx_plan *plan, size_t count, int pairs)
{
    if (pairs != plan->opt.pairs)
        return ctx_fail(plan->ctx, CLX_ERR_STATE, pairs ? "pairs pushed to a plan made without options.pairs"
                                                        : "a plan made for pairs takes clx_plan_push_pairs");
    if (count < 1 || count > (size_t)plan->batch)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "push of %zu images: give 1 to %d", count, plan->batch);
    if (plan->pushed)
        return ctx_fail(plan->ctx, CLX_ERR_STATE, "push before the results of the previous push were read");
    return CLX_OK;
}

/* Enqueues the mode's work on images (and references, with pairs) on the
 * device and sends it off. */
static int push_views(clx_plan *plan, const struct batch_view *r, const struct batch_view *b)
{
    struct clx_context *ctx = plan->ctx;
    int status = plan->opt.pairs ? plan->pipeline->push_pairs(plan->state, r, b) : plan->pipeline->push(plan->state, b);
    if (status == CLX_OK)
        status = clFlush(ctx->queue) == CL_SUCCESS ? CLX_OK : ctx_fail(ctx, CLX_ERR_OPENCL, "clFlush failed");
    if (status != CLX_OK) {
        /* Leave no half-enqueued work behind for the next push to trip over. */
        clFinish(ctx->queue);
        return status;
    }
    plan->pushed = b->count;
    return CLX_OK;
}

/* The same for the images (and references) the push uploaded. */
static int push_uploaded(clx_plan *plan, clx_pixel_type type, size_t count)
{
    struct batch_view b = { plan->images, type, count }, r = { plan->references, type, count };
    return push_views(plan, &r, &b);
}

int clx_plan_push(clx_plan *plan, const clx_image *images, size_t count)
{
    clx_pixel_type type;
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;

    msg_clear(&plan->ctx->message);
    if (!images)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "clx_plan_push: NULL images");
    if ((status = push_check(plan, count, 0)) != CLX_OK)
        return status;
    for (size_t i = 0; i < count; i++)
        if ((status = check_image(plan, &images[i], "image", i)) != CLX_OK)
            return status;
    type = widest_type(images, count);
    if ((status = upload(plan, images_target(plan), images, count, type)) != CLX_OK) {
        clFinish(plan->ctx->queue);
        return status;
    }
    return push_uploaded(plan, type, count);
}

int clx_plan_push_pairs(clx_plan *plan, const clx_image *references, const clx_image *images, size_t count)
{
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;

    msg_clear(&plan->ctx->message);
    if (!images || !references)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "clx_plan_push_pairs: NULL images or references");
    if ((status = push_check(plan, count, 1)) != CLX_OK)
        return status;
    for (size_t i = 0; i < count; i++)
        if ((status = check_image(plan, &references[i], "reference", i)) != CLX_OK ||
            (status = check_image(plan, &images[i], "image", i)) != CLX_OK)
            return status;
    /* One pixel type for both, so that one kernel variant serves the push. */
    clx_pixel_type type = widest_type(images, count), rt = widest_type(references, count);
    type = rt > type ? rt : type;
    if ((status = upload(plan, references_target(plan), references, count, type)) != CLX_OK ||
        (status = upload(plan, images_target(plan), images, count, type)) != CLX_OK) {
        clFinish(plan->ctx->queue);
        return status;
    }
    return push_uploaded(plan, type, count);
}

int plan_push_device_pairs(struct clx_plan *plan, cl_mem references, cl_mem images, clx_pixel_type type,
                           size_t count)
{
    int status = push_check(plan, count, 1);
    if (status != CLX_OK)
        return status;
    struct batch_view b = { images, type, count }, r = { references, type, count };
    return push_views(plan, &r, &b);
}

int clx_plan_push_pair_pixels(clx_plan *plan, const void *reference_pixels, const void *pixels,
                              clx_pixel_type type, size_t count)
{
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;

    msg_clear(&plan->ctx->message);
    if (!pixels || !reference_pixels || type < CLX_PIXEL_U8 || type > CLX_PIXEL_F32)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT,
                        "clx_plan_push_pair_pixels: no pixels or an unknown pixel type");
    if ((status = push_check(plan, count, 1)) != CLX_OK)
        return status;
    if ((status = upload_pixels(plan, references_target(plan), reference_pixels, type, count)) != CLX_OK ||
        (status = upload_pixels(plan, images_target(plan), pixels, type, count)) != CLX_OK) {
        clFinish(plan->ctx->queue);
        return status;
    }
    return push_uploaded(plan, type, count);
}

int clx_plan_push_pixels(clx_plan *plan, const void *pixels, clx_pixel_type type, size_t count)
{
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;

    msg_clear(&plan->ctx->message);
    if (!pixels || type < CLX_PIXEL_U8 || type > CLX_PIXEL_F32)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "clx_plan_push_pixels: no pixels or an unknown pixel type");
    if ((status = push_check(plan, count, 0)) != CLX_OK)
        return status;
    if ((status = upload_pixels(plan, images_target(plan), pixels, type, count)) != CLX_OK) {
        clFinish(plan->ctx->queue);
        return status;
    }
    return push_uploaded(plan, type, count);
}

int clx_plan_read(clx_plan *plan, clx_result *results, size_t capacity)
{
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;
    struct clx_context *ctx = plan->ctx;
    size_t tiles = plan->pushed * plan->nwin;

    msg_clear(&ctx->message);
    if (!plan->pushed)
        return ctx_fail(ctx, CLX_ERR_STATE, "read without a push");
    if (!results || capacity < tiles)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "results need room for %zu entries, got %zu", tiles, capacity);
    status = plan->pipeline->read(plan->state, plan->pushed, results);
    /* The push is consumed whatever happened: the next one starts afresh. */
    plan->pushed = 0;
    return status;
}

int clx_plan_read_surfaces(clx_plan *plan, float *surfaces, size_t capacity)
{
    int status = handle_check(plan, HANDLE_PLAN);
    if (status != CLX_OK)
        return status;
    struct clx_context *ctx = plan->ctx;
    int sw, sh;
    size_t tiles = plan->pushed * plan->nwin;

    msg_clear(&ctx->message);
    clx_plan_surface_size(plan, &sw, &sh);
    if (!plan->pushed)
        return ctx_fail(ctx, CLX_ERR_STATE, "surfaces read without a push");
    if (!plan->pipeline->read_surfaces)
        return ctx_fail(ctx, CLX_ERR_STATE, "correlation surfaces are read in seed mode");
    if (!surfaces || capacity < tiles * sw * sh)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "surfaces need room for %zu floats, got %zu", tiles * sw * sh,
                        capacity);
    return plan->pipeline->read_surfaces(plan->state, plan->pushed, surfaces);
}
