/*
 * plan.c - one reference, one window list, one set of options: the pipeline
 * every pushed image goes through, in this order:
 *
 *   clx_plan_push:  copy into pinned memory -> upload -> window means ->
 *                   prepare (zero-mean windows in the correlator's layout) ->
 *                   correlate with the reference's windows (FFT or direct
 *                   path, src/correlator.h) -> argmax -> F x F neighbourhood
 *                   -> download (all enqueued, not waited for)
 *   clx_plan_read:  wait -> least-squares sub-pixel fit on the host -> results
 *
 * clx_plan_create does everything that does not depend on the images: checks,
 * batch size, the choice of path (method_choice.c), buffers, kernels, FFT
 * plans, and the reference's windows or spectra.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_error.h"
#include "context.h"
#include "method_choice.h"
#include "plan.h"

/* Largest automatic batch: enough to fill a large GPU, bounded for CPUs,
 * where bigger batches only cost memory. */
#define AUTO_BATCH_GPU 128
#define AUTO_BATCH_OTHER 16
/* Most tiles (images x windows) in one batch: kernels put tiles along
 * NDRange dimensions that some drivers limit to 65535 work-groups. */
#define MAX_TILES 65535
/* Largest F of the F x F fit: far beyond any useful neighbourhood, and it
 * keeps the host's scratch space small. */
#define MAX_FIT_SIZE 31

void clx_plan_options_init(clx_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = CLX_MODE_SEED;
    o->method = CLX_METHOD_AUTO;
    o->fit_size = 5;
}

static size_t real_size(const struct clx_plan *plan)
{
    return plan->params.use_double ? sizeof(double) : sizeof(float);
}

static size_t tile_count(const struct clx_plan *plan)
{
    return (size_t)plan->batch * plan->nwin;
}

/* ---- checks and sizes ---------------------------------------------------- */

static int check_options(struct clx_context *ctx, const clx_plan_options *o, int w, int h)
{
    if (o->mode != CLX_MODE_SEED)
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
    if (o->estimator < CLX_ESTIMATOR_LSQ || o->estimator > CLX_ESTIMATOR_CENTROID)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown estimator %d", (int)o->estimator);
    if (o->method != CLX_METHOD_AUTO && o->method != CLX_METHOD_FFT && o->method != CLX_METHOD_DIRECT)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown method %d", (int)o->method);
    if (o->max_shift < 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "maximum shift %d: it must be positive (0: no limit)", o->max_shift);
    if (o->use_double && !ctx->dev.info.has_fp64)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED,
                        "device %s has no double precision (cl_khr_fp64); run without --double",
                        ctx->dev.info.name);
    return CLX_OK;
}

/*
 * Device bytes one pushed image costs with correlator `ops`, and the largest
 * single buffer per image. `p` is configured for that correlator.
 */
static void image_costs(const struct clx_plan *plan, const struct correlator_ops *ops, const struct kernel_params *p,
                        size_t *per_image, size_t *largest)
{
    size_t rs = real_size(plan);
    size_t prepared = (size_t)p->pad_w * p->pad_h * rs, corr = (size_t)p->corr_w * p->corr_h * rs;
    size_t pixels = (size_t)plan->image_w * plan->image_h * sizeof(float); /* widest pixel type */
    size_t per_tile = prepared + corr + (size_t)p->fit_size * p->fit_size * rs + rs + sizeof(int);
    *per_image = pixels + (size_t)plan->nwin * per_tile + ops->bytes(p, plan->nwin, plan->nwin) -
                 ops->bytes(p, plan->nwin, 0);
    *largest = pixels;
    if ((size_t)plan->nwin * prepared > *largest)
        *largest = (size_t)plan->nwin * prepared;
    if ((size_t)plan->nwin * corr > *largest)
        *largest = (size_t)plan->nwin * corr;
}

/* The costs of the path `method` asks for, or of the dearer one for auto. */
static void job_costs(const struct clx_plan *plan, clx_method method, size_t *per_image, size_t *largest)
{
    const struct correlator_ops *candidates[2] = { &correlator_fft, &correlator_direct };
    *per_image = *largest = 0;
    for (int i = 0; i < 2; i++) {
        if (method != CLX_METHOD_AUTO && candidates[i]->method != method)
            continue;
        struct kernel_params p = plan->params;
        size_t each, big;
        candidates[i]->configure(&plan->ctx->dev, &p, plan->nwin);
        image_costs(plan, candidates[i], &p, &each, &big);
        if (each > *per_image)
            *per_image = each;
        if (big > *largest)
            *largest = big;
    }
}

static int choose_batch(struct clx_plan *plan, int requested, clx_method method)
{
    struct clx_context *ctx = plan->ctx;
    const clx_device_info *dev = &ctx->dev.info;
    size_t per_image, largest;
    job_costs(plan, method, &per_image, &largest);

    /* Half the device's memory for us, a quarter on CPUs whose "device
     * memory" is the host's. */
    unsigned long long budget = dev->global_memory / (dev->type == CLX_DEVICE_GPU ? 2 : 4);
    unsigned long long by_memory = budget / per_image;
    unsigned long long by_alloc = dev->max_allocation / largest;
    /* Kernels index tiles along one NDRange dimension, which some drivers
     * limit to 65535 work-groups. */
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
                            "a batch of %d images needs %.0f MiB of device memory; %s has %.0f MiB (at most %llu images fit)",
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
    unsigned long long cap = dev->type == CLX_DEVICE_GPU ? AUTO_BATCH_GPU : AUTO_BATCH_OTHER;
    /* Every push transforms a whole batch, so a batch larger than the run
     * only wastes work. */
    if (plan->opt.expected_images > 0 && plan->opt.expected_images < cap)
        cap = plan->opt.expected_images;
    plan->batch = (int)(fits < cap ? fits : cap);
    return CLX_OK;
}

/* ---- buffers ------------------------------------------------------------- */

static int create_buffer(struct clx_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    int status = CLX_OK;
    cl_int err;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        char call[96];
        snprintf(call, sizeof call, "clCreateBuffer(%s)", what);
        status = ctx_cl_fail(ctx, err, call, __FILE__, __LINE__);
        *out = NULL;
    }
    return status;
}

static int create_buffers(struct clx_plan *plan)
{
    struct clx_context *ctx = plan->ctx;
    const struct kernel_params *p = &plan->params;
    size_t tiles = tile_count(plan), rs = real_size(plan);
    size_t tile_prepared = (size_t)p->pad_w * p->pad_h * rs;
    size_t tile_corr = (size_t)p->corr_w * p->corr_h * rs;
    int status;

    if ((status = create_buffer(ctx, sizeof(cl_int2) * plan->nwin, &plan->corners, "corners")) ||
        (status = create_buffer(ctx, rs * tiles, &plan->means, "means")) ||
        (status = create_buffer(ctx, tile_prepared * tiles, &plan->prepared, "prepared windows")) ||
        (status = create_buffer(ctx, tile_corr * tiles, &plan->corr, "correlations")) ||
        (status = create_buffer(ctx, sizeof(cl_int) * tiles, &plan->peak_index, "peaks")) ||
        (status = create_buffer(ctx, rs * p->fit_size * p->fit_size * tiles, &plan->neighbourhoods,
                                "neighbourhoods")))
        return status;

    plan->peak_index_host = malloc(sizeof(int) * tiles);
    plan->neighbourhoods_host = malloc(rs * p->fit_size * p->fit_size * tiles);
    if (!plan->peak_index_host || !plan->neighbourhoods_host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");

    cl_int2 *corners = malloc(sizeof *corners * plan->nwin);
    if (!corners)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int i = 0; i < plan->nwin; i++) {
        corners[i].s[0] = plan->regions[i].x;
        corners[i].s[1] = plan->regions[i].y;
    }
    status = CLX_OK;
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, plan->corners, CL_TRUE, 0,
                                      sizeof *corners * plan->nwin, corners, 0, NULL, NULL));
    /* Tiles that no push fills (the reference's batch, a short last batch)
     * are still transformed by the FFT path: keep them zero rather than
     * uninitialised. */
    const cl_float zero = 0;
    CL_CALL(ctx, clEnqueueFillBuffer(ctx->queue, plan->prepared, &zero, sizeof zero, 0,
                                     tile_prepared * tiles, 0, NULL, NULL));
error:
    free(corners);
    return status;
}

/* Grows the pinned staging buffer and the device image buffer to `bytes`. */
static int reserve_image_buffers(struct clx_plan *plan, size_t bytes)
{
    struct clx_context *ctx = plan->ctx;
    int status = CLX_OK;
    cl_int err;

    if (bytes > plan->images_bytes) {
        if (plan->images)
            clReleaseMemObject(plan->images);
        plan->images_bytes = 0;
        status = create_buffer(ctx, bytes, &plan->images, "images");
        if (status != CLX_OK)
            return status;
        plan->images_bytes = bytes;
    }
    if (bytes > plan->staging_bytes) {
        if (plan->staging) {
            clEnqueueUnmapMemObject(ctx->queue, plan->staging, plan->staging_ptr, 0, NULL, NULL);
            clFinish(ctx->queue);
            clReleaseMemObject(plan->staging);
            plan->staging = NULL;
        }
        plan->staging_bytes = 0;
        plan->staging = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
        CL_CHECK_RESULT(ctx, "clCreateBuffer(pinned staging)", err);
        plan->staging_ptr = clEnqueueMapBuffer(ctx->queue, plan->staging, CL_TRUE, CL_MAP_WRITE, 0, bytes,
                                               0, NULL, NULL, &err);
        CL_CHECK_RESULT(ctx, "clEnqueueMapBuffer(pinned staging)", err);
        plan->staging_bytes = bytes;
    }
error:
    return status;
}

/* ---- upload -------------------------------------------------------------- */

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

static void copy_pixels(void *dst, clx_pixel_type to, const clx_image *src, size_t n)
{
    if (src->type == to) {
        memcpy(dst, src->pixels, n * clx_pixel_size(to));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double v = src->type == CLX_PIXEL_U8 ? ((const uint8_t *)src->pixels)[i]
                                             : ((const uint16_t *)src->pixels)[i];
        if (to == CLX_PIXEL_U16)
            ((uint16_t *)dst)[i] = (uint16_t)v;
        else
            ((float *)dst)[i] = (float)v;
    }
}

static int ensure_prepare(struct clx_plan *plan, clx_pixel_type type)
{
    struct prepare_windows *pw = &plan->prepare[type - 1];
    if (pw->sums)
        return CLX_OK;
    struct kernel_params p = plan->params;
    p.pixel = type;
    return prepare_windows_build(plan->ctx, &p, pw);
}

/* Copies the images into pinned memory, uploads them and enqueues the
 * window sums and prepare stages: tiles 0 .. n * nwin - 1 of `prepared`. */
static int upload_and_prepare(struct clx_plan *plan, const clx_image *images, size_t n)
{
    struct clx_context *ctx = plan->ctx;
    clx_pixel_type type = widest_type(images, n);
    size_t pixels = (size_t)plan->image_w * plan->image_h;
    size_t image_bytes = pixels * clx_pixel_size(type);
    int status;

    if ((status = ensure_prepare(plan, type)) != CLX_OK ||
        (status = reserve_image_buffers(plan, image_bytes * n)) != CLX_OK)
        return status;
    for (size_t i = 0; i < n; i++)
        copy_pixels((char *)plan->staging_ptr + i * image_bytes, type, &images[i], pixels);
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, plan->images, CL_FALSE, 0, image_bytes * n,
                                      plan->staging_ptr, 0, NULL, NULL));
    status = prepare_windows_enqueue(ctx, &plan->prepare[type - 1], plan->images, plan->image_w,
                                     plan->image_h, plan->corners, plan->nwin, (int)n, plan->means,
                                     plan->prepared);
error:
    return status;
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

static int set_reference(struct clx_plan *plan, const clx_image *reference)
{
    int status = upload_and_prepare(plan, reference, 1);
    if (status == CLX_OK)
        status = plan->correlator->set_reference(plan->ctx, plan->correlator_state, plan->prepared);
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
    if (!plan)
        return CLX_ERR_ARGUMENT;
    msg_clear(&plan->ctx->message);
    if (!reference)
        return ctx_fail(plan->ctx, CLX_ERR_ARGUMENT, "clx_plan_set_reference: NULL reference");
    if (plan->pushed)
        return ctx_fail(plan->ctx, CLX_ERR_STATE, "a new reference before the results of the last push were read");
    int status = check_image(plan, reference, "reference", 0);
    return status == CLX_OK ? set_reference(plan, reference) : status;
}

int clx_plan_create(clx_context *ctx, const clx_image *reference, const clx_region *regions,
                    size_t region_count, const clx_plan_options *options, clx_plan **out)
{
    clx_plan_options defaults;
    struct clx_plan *plan = NULL;
    int status;

    if (!ctx)
        return CLX_ERR_ARGUMENT;
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
    status = check_options(ctx, options, regions[0].w, regions[0].h);
    if (status != CLX_OK)
        return status;

    plan = calloc(1, sizeof *plan);
    if (!plan)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    plan->ctx = ctx;
    plan->opt = *options;
    plan->nwin = (int)region_count;
    plan->image_w = reference->width;
    plan->image_h = reference->height;
    plan->regions = malloc(sizeof *regions * region_count);
    if (!plan->regions) {
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto error;
    }
    memcpy(plan->regions, regions, sizeof *regions * region_count);

    struct kernel_params *p = &plan->params;
    kernel_params_defaults(p, &ctx->dev);
    p->use_double = options->use_double;
    p->win_w = regions[0].w;
    p->win_h = regions[0].h;
    p->search_rx = options->max_shift > 0 && options->max_shift < p->win_w - 1 ? options->max_shift : p->win_w - 1;
    p->search_ry = options->max_shift > 0 && options->max_shift < p->win_h - 1 ? options->max_shift : p->win_h - 1;
    p->fit_size = options->fit_size;
    p->pixel = reference->type;

    struct method_choice choice;
    if ((status = choose_batch(plan, options->batch, options->method)) != CLX_OK ||
        (status = method_choose(ctx, options->method, p, plan->nwin, (int)tile_count(plan), &choice)) != CLX_OK)
        goto error;
    plan->correlator = choice.correlator;
    plan->correlator->configure(&ctx->dev, p, (int)tile_count(plan));
    char why[1024];
    if ((options->params && kernel_params_override(p, options->params, why, sizeof why)) ||
        kernel_params_check(p, &ctx->dev, why, sizeof why)) {
        status = ctx_fail(ctx, CLX_ERR_ARGUMENT, "%s", why);
        goto error;
    }
    snprintf(plan->explanation, sizeof plan->explanation, "%s", choice.explanation);
    ctx_log(ctx, CLX_LOG_INFO, "method: %s", plan->explanation);
    ctx_log(ctx, CLX_LOG_INFO,
            "%d windows of %dx%d, shifts up to %d x %d, %s path (correlation layout %dx%d), batch of %d images, "
            "%s precision", plan->nwin, p->win_w, p->win_h, p->search_rx, p->search_ry, plan->correlator->name,
            p->corr_w, p->corr_h, plan->batch, p->use_double ? "double" : "single");
    if ((status = subpixel_init(&plan->fit, options->estimator, p->fit_size)) != CLX_OK) {
        ctx_fail(ctx, status, "cannot set up the %s estimator over %dx%d values", clx_estimator_name(options->estimator),
                 p->fit_size, p->fit_size);
        goto error;
    }
    if ((status = create_buffers(plan)) != CLX_OK ||
        (status = peak_finder_build(ctx, p, &plan->peaks)) != CLX_OK ||
        (status = plan->correlator->create(ctx, p, plan->nwin, (int)tile_count(plan), &plan->correlator_state)) !=
            CLX_OK ||
        (status = set_reference(plan, reference)) != CLX_OK)
        goto error;
    *out = plan;
    return CLX_OK;

error:
    clx_plan_release(plan);
    return status;
}

void clx_plan_release(clx_plan *plan)
{
    if (!plan)
        return;
    struct clx_context *ctx = plan->ctx;
    /* Nothing may still be writing into memory we free. */
    clFinish(ctx->queue);
    if (plan->done)
        clReleaseEvent(plan->done);
    for (int t = 0; t < 3; t++)
        prepare_windows_release(&plan->prepare[t]);
    if (plan->correlator)
        plan->correlator->release(plan->correlator_state);
    peak_finder_release(&plan->peaks);
    subpixel_release(&plan->fit);
    if (plan->staging) {
        clEnqueueUnmapMemObject(ctx->queue, plan->staging, plan->staging_ptr, 0, NULL, NULL);
        clFinish(ctx->queue);
        clReleaseMemObject(plan->staging);
    }
    cl_mem bufs[] = { plan->corners, plan->images, plan->means, plan->prepared,
                      plan->corr, plan->peak_index, plan->neighbourhoods };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(plan->peak_index_host);
    free(plan->neighbourhoods_host);
    free(plan->regions);
    free(plan);
}

int clx_plan_batch_size(const clx_plan *plan)
{
    return plan ? plan->batch : 0;
}

size_t clx_plan_region_count(const clx_plan *plan)
{
    return plan ? (size_t)plan->nwin : 0;
}

clx_method clx_plan_method(const clx_plan *plan)
{
    return plan && plan->correlator ? plan->correlator->method : CLX_METHOD_AUTO;
}

const char *clx_plan_explanation(const clx_plan *plan)
{
    return plan ? plan->explanation : "";
}

void clx_plan_surface_size(const clx_plan *plan, int *width, int *height)
{
    *width = plan ? 2 * plan->params.search_rx + 1 : 0;
    *height = plan ? 2 * plan->params.search_ry + 1 : 0;
}

/* ---- push / read --------------------------------------------------------- */

int clx_plan_push(clx_plan *plan, const clx_image *images, size_t count)
{
    if (!plan)
        return CLX_ERR_ARGUMENT;
    struct clx_context *ctx = plan->ctx;
    size_t tiles = count * plan->nwin, rs = real_size(plan);
    size_t nb_bytes = rs * plan->params.fit_size * plan->params.fit_size * tiles;
    int status;

    msg_clear(&ctx->message);
    if (!images || count < 1 || count > (size_t)plan->batch)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "push of %zu images: give 1 to %d", count, plan->batch);
    if (plan->pushed)
        return ctx_fail(ctx, CLX_ERR_STATE, "push before the results of the previous push were read");
    for (size_t i = 0; i < count; i++)
        if ((status = check_image(plan, &images[i], "image", i)) != CLX_OK)
            return status;

    if ((status = upload_and_prepare(plan, images, count)) != CLX_OK ||
        (status = plan->correlator->enqueue(ctx, plan->correlator_state, plan->prepared, (int)tiles, plan->corr)) !=
            CLX_OK ||
        (status = peak_finder_enqueue(ctx, &plan->peaks, plan->corr, (int)tiles, plan->peak_index,
                                      plan->neighbourhoods)) != CLX_OK)
        goto error;
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, plan->peak_index, CL_FALSE, 0, sizeof(cl_int) * tiles,
                                     plan->peak_index_host, 0, NULL, NULL));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, plan->neighbourhoods, CL_FALSE, 0, nb_bytes,
                                     plan->neighbourhoods_host, 0, NULL, &plan->done));
    CL_CALL(ctx, clFlush(ctx->queue));
    plan->pushed = count;
    return CLX_OK;

error:
    /* Leave no half-enqueued work behind for the next push to trip over. */
    clFinish(ctx->queue);
    return status;
}

/* One tile's result from its peak index and neighbourhood. */
static void finish_tile(const struct clx_plan *plan, int index, const double *nb, clx_result *r)
{
    int w = plan->params.win_w, h = plan->params.win_h, F = plan->params.fit_size;
    double sx, sy;

    memset(r, 0, sizeof *r);
    if (index < 0) {
        r->dx = r->dy = r->peak = NAN;
        r->flags = CLX_FLAG_NO_PEAK | CLX_FLAG_FIT_FAILED;
        return;
    }
    peak_index_to_shift(index, w, h, &r->ix, &r->iy);
    r->peak = nb[(F * F) / 2];
    if (subpixel_estimate(&plan->fit, nb, &sx, &sy))
        r->flags |= CLX_FLAG_FIT_FAILED;
    r->dx = r->ix + sx;
    r->dy = r->iy + sy;
    if (abs(r->ix) == plan->params.search_rx || abs(r->iy) == plan->params.search_ry)
        r->flags |= CLX_FLAG_EDGE;
    if (!(r->peak > 0))
        r->flags |= CLX_FLAG_NO_PEAK;
}

int clx_plan_read(clx_plan *plan, clx_result *results, size_t capacity)
{
    if (!plan)
        return CLX_ERR_ARGUMENT;
    struct clx_context *ctx = plan->ctx;
    int F = plan->params.fit_size, status = CLX_OK;
    size_t tiles = plan->pushed * plan->nwin;
    double nb[MAX_FIT_SIZE * MAX_FIT_SIZE];

    msg_clear(&ctx->message);
    if (!plan->pushed)
        return ctx_fail(ctx, CLX_ERR_STATE, "read without a push");
    if (!results || capacity < tiles)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "results need room for %zu entries, got %zu", tiles, capacity);

    cl_int run_status = CL_COMPLETE;
    CL_CALL(ctx, clWaitForEvents(1, &plan->done));
    CL_CALL(ctx, clGetEventInfo(plan->done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof run_status,
                                &run_status, NULL));
    if (run_status < 0) {
        status = ctx_cl_fail(ctx, run_status, "device execution", __FILE__, __LINE__);
        goto error;
    }
    for (size_t t = 0; t < tiles; t++) {
        for (int j = 0; j < F * F; j++)
            nb[j] = plan->params.use_double ? ((const double *)plan->neighbourhoods_host)[t * F * F + j]
                                            : ((const float *)plan->neighbourhoods_host)[t * F * F + j];
        finish_tile(plan, plan->peak_index_host[t], nb, &results[t]);
    }
error:
    /* The push is consumed whatever happened: the next one starts afresh. */
    clReleaseEvent(plan->done);
    plan->done = NULL;
    plan->pushed = 0;
    return status;
}

int clx_plan_read_surfaces(clx_plan *plan, float *surfaces, size_t capacity)
{
    if (!plan)
        return CLX_ERR_ARGUMENT;
    struct clx_context *ctx = plan->ctx;
    const struct kernel_params *p = &plan->params;
    int sw = 2 * p->search_rx + 1, sh = 2 * p->search_ry + 1;
    size_t tiles = plan->pushed * plan->nwin, rs = real_size(plan);
    size_t corr_pixels = (size_t)p->corr_w * p->corr_h;
    int status = CLX_OK;

    msg_clear(&ctx->message);
    if (!plan->pushed)
        return ctx_fail(ctx, CLX_ERR_STATE, "surfaces read without a push");
    if (!surfaces || capacity < tiles * sw * sh)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "surfaces need room for %zu floats, got %zu", tiles * sw * sh,
                        capacity);
    void *host = malloc(rs * corr_pixels * tiles);
    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    CL_CALL(ctx, clWaitForEvents(1, &plan->done));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, plan->corr, CL_TRUE, 0, rs * corr_pixels * tiles, host, 0, NULL,
                                     NULL));
    for (size_t t = 0; t < tiles; t++)
        for (int uy = -p->search_ry; uy <= p->search_ry; uy++)
            for (int ux = -p->search_rx; ux <= p->search_rx; ux++) {
                /* Where the correlation layout keeps shift (ux, uy): cl/common.h's corr_index. */
                size_t at = t * corr_pixels + (size_t)(uy < 0 ? uy + p->corr_h : uy) * p->corr_w +
                            (size_t)(ux < 0 ? ux + p->corr_w : ux);
                float v = p->use_double ? (float)((const double *)host)[at] : ((const float *)host)[at];
                surfaces[t * sw * sh + (size_t)(uy + p->search_ry) * sw + (ux + p->search_rx)] = v;
            }
error:
    free(host);
    return status;
}
