/*
 * pipeline_accurate.c - the accurate mode, for one batch of images already
 * uploaded by the plan (the pipeline_ops of pipeline.h). Each step removes one of the seed method's errors
 * (doc/conventions.md, "Why the accurate mode is the default"):
 *
 *   1. pre-filter every image (background removal by default): removes the
 *      bias a smooth background puts on a zero-padded correlation;
 *   2. first pass: windows sampled where they are, the whole search range
 *      (FFT or direct, as chosen), peak, estimator -> d;
 *   3. window-offset passes (passes - 1 of them): the image window moved by
 *      round(d) and correlated again over a few pixels -> d = round(d) + peak:
 *      removes the bias of the overlap shrinking with the shift;
 *   4. refinement (up to `refine` iterations), by IC-GN (the default; see
 *      ops/icgn.h and cl/icgn.cl: the window warped by a shape function
 *      until the ZNSSD is least, iterating on the device, from the last
 *      pass's offset) or by correlation: the image window sampled at
 *      p + d with Lanczos-3 interpolation (or Keys' cubic, or a cubic or
 *      quintic B-spline on each image's coefficients, computed once per
 *      image after the pre-filter), correlated over one pixel either
 *      way, d += the residual peak (scaled by the estimator's gain as
 *      refine_step.c measures it), until the step is below the tolerance:
 *      the estimator then only sees peaks at zero, where its bias vanishes.
 *      What remains is the interpolator's phase error (it shifts content by
 *      slightly less or more than the fraction asked): 0.011 px on the
 *      speckle set with Keys' cubic, 0.006 px with Lanczos-3. Sampling the
 *      reference at p - d/2 and the image at p + d/2 instead doubled it:
 *      the two phase errors add, they do not cancel;
 *   5. quality: ZNCC of the windows at the final d, the first pass's peak
 *      ratio, and the normalised median test over grid neighbours.
 *
 * Steps 1-2 are enqueued by the push; the rest needs each pass's estimates
 * on the host and runs in the read, pass by pass (IC-GN: one wait for all
 * its iterations). IC-GN straight after the first pass (the default: no
 * window-offset pass) is enqueued by the push too, from offsets the device
 * works out from the first pass's peaks (ops/peak_offsets.h), and the read
 * waits once per batch.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/bspline_prefilter.h"
#include "ops/filter_chain.h"
#include "ops/icgn.h"
#include "pipeline/pipeline_accurate.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/event_wait.h"
#include "runtime/program_build.h"

/*
 * The refinement's search radius. Each iteration starts where the last one
 * put the peak, so the residual peak sits at zero, or one pixel off when an
 * estimate was more than half a pixel out; a peak on that border still
 * moves the window and the next iteration goes on from there. Searching one
 * pixel keeps the correlation to (2 + F - 1)^2 shifts: the direct path's
 * few-shifts form.
 */
#define REFINE_RADIUS 1

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static size_t real_size(const struct accurate_pipeline *a)
{
    return a->job.params->use_double ? sizeof(double) : sizeof(float);
}

static int ntiles_of(const struct accurate_pipeline *a)
{
    return a->job.batch * a->job.nwin;
}

static int refines_by_icgn(const clx_plan_options *o)
{
    return o->refine > 0 && o->refiner == CLX_REFINER_ICGN;
}

static int refines_by_correlation(const clx_plan_options *o)
{
    return o->refine > 0 && o->refiner == CLX_REFINER_CORRELATION;
}

/* IC-GN straight from the first pass: it starts where the first pass's
 * peaks are, so the push enqueues it behind them, with the estimates made
 * on the device, and the read waits once. Window-offset passes need the
 * host between the passes. */
static int refines_in_push(const clx_plan_options *o)
{
    return refines_by_icgn(o) && o->passes == 1;
}

/* ---- creation ------------------------------------------------------------ */

static int build(struct clx_context *ctx, const char *file, const struct kernel_params *p, const char *name,
                 cl_program *program, cl_kernel *kernel)
{
    int status = program_build_params(ctx, file, p, program);
    return status == CLX_OK ? kernel_create(ctx, *program, name, kernel) : status;
}

static int create_host_arrays(struct accurate_pipeline *a)
{
    size_t n = (size_t)ntiles_of(a);
    a->dx = calloc(n, sizeof *a->dx);
    a->dy = calloc(n, sizeof *a->dy);
    a->ox = calloc(n, sizeof *a->ox);
    a->oy = calloc(n, sizeof *a->oy);
    a->peak = calloc(n, sizeof *a->peak);
    a->peak_ratio = calloc(n, sizeof *a->peak_ratio);
    a->zncc = calloc(n, sizeof *a->zncc);
    a->ix = calloc(n, sizeof *a->ix);
    a->iy = calloc(n, sizeof *a->iy);
    a->iterations = calloc(n, sizeof *a->iterations);
    a->converged = calloc(n, sizeof *a->converged);
    a->flags = calloc(n, sizeof *a->flags);
    a->open = calloc(n, sizeof *a->open);
    a->steps = calloc(n, sizeof *a->steps);
    a->offsets_host = calloc(n, 2 * real_size(a));
    a->zncc_host = calloc(n, real_size(a));
    if (a->icgn && !(a->icgn_out = calloc(n, sizeof *a->icgn_out)))
        return ctx_fail(a->job.ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if (!a->dx || !a->dy || !a->ox || !a->oy || !a->peak || !a->peak_ratio || !a->zncc || !a->ix || !a->iy ||
        !a->iterations || !a->converged || !a->flags || !a->open || !a->steps ||
        !a->offsets_host || !a->zncc_host)
        return ctx_fail(a->job.ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    return CLX_OK;
}

static int create_prefilter(struct accurate_pipeline *a)
{
    const char *spec = a->job.opt->prefilter;
    if (!spec || !*spec || strcmp(spec, "none") == 0)
        return CLX_OK;
    clx_filter_options fo;
    clx_filter_options_init(&fo);
    fo.spec = spec;
    /* Mirroring keeps a background's slope going past the image's edge,
     * where clamping would flatten it and zero would invent an edge. */
    fo.border = CLX_BORDER_MIRROR;
    fo.use_double = a->job.params->use_double;
    return filter_create(a->job.ctx, &fo, &a->prefilter);
}

/* The accurate mode's image cost beyond its first pass: the window-offset
 * and refinement stages (costed both at the larger radius), the filtered
 * image and the filter's scratch, the sampled windows. */
static void accurate_image_bytes(const struct pipeline_job *job, size_t *per_image, size_t *largest)
{
    const struct kernel_params *p = job->params;
    size_t pixels = (size_t)job->image_w * job->image_h, rs = p->use_double ? sizeof(double) : sizeof(float);
    size_t each, big;
    stage_image_bytes(&job->ctx->dev, p, job->opt->method, job->nwin, per_image, largest);
    struct kernel_params moved = *p;
    moved.search_rx = moved.search_ry = job->opt->fine_shift;
    stage_image_bytes(&job->ctx->dev, &moved, CLX_METHOD_DIRECT, job->nwin, &each, &big);
    *per_image += 2 * each + 2 * pixels * rs + (size_t)job->nwin * p->win_w * p->win_h * rs;
    /* The coefficients, and on GPUs (bspline_form 0) the separable
     * filter's row pass over the whole batch. */
    if (INTERP_IS_BSPLINE(p->interp))
        *per_image += pixels * rs * (p->bspline_form == 0 ? 2 : 1);
    if (refines_by_icgn(job->opt))
        *per_image += (size_t)job->nwin * icgn_tile_bytes(p);
    /* With pairs each image's windows are references too. */
    if (job->pairs)
        *per_image += (size_t)job->nwin * (stage_reference_bytes(&job->ctx->dev, p, job->opt->method) +
                                           (refines_by_icgn(job->opt) ? icgn_window_bytes(p) : 0));
    if (*largest < pixels * rs)
        *largest = pixels * rs;
}

/* The three stages: the first pass, the window-offset passes' and the refinement's. */
static int create_stages(struct accurate_pipeline *a, const struct kernel_params *base)
{
    struct clx_context *ctx = a->job.ctx;
    const clx_plan_options *o = a->job.opt;
    int ntiles = ntiles_of(a), status;
    struct kernel_params offset = *base, refine = *base;
    offset.search_rx = imin(o->fine_shift, base->win_w - 1);
    offset.search_ry = imin(o->fine_shift, base->win_h - 1);
    refine.search_rx = imin(REFINE_RADIUS, base->win_w - 1);
    refine.search_ry = imin(REFINE_RADIUS, base->win_h - 1);
    /* Where the estimator finds no maximum (a 3 x 3 fit on the ridge a
     * band crossing makes, say), the per-axis parabola usually still can. */
    clx_estimator fallback = o->estimator == CLX_ESTIMATOR_PARABOLA3 ? CLX_ESTIMATOR_DEFAULT : CLX_ESTIMATOR_PARABOLA3;
    struct stage_config coarse_config = { o->method, o->estimator, fallback, a->job.overrides, 1,
                                          refines_in_push(o) };
    struct stage_config moved_config = { CLX_METHOD_DIRECT, o->estimator, fallback, a->job.overrides, 0, 0 };
    if ((status = stage_create(ctx, &a->coarse, base, &coarse_config, a->job.nref, ntiles)) != CLX_OK ||
        (o->passes > 1 &&
         (status = stage_create(ctx, &a->offset, &offset, &moved_config, a->job.nwin, ntiles)) != CLX_OK) ||
        (refines_by_correlation(o) &&
         (status = stage_create(ctx, &a->refine, &refine, &moved_config, a->job.nwin, ntiles)) != CLX_OK))
        return status;
    return CLX_OK;
}

/* IC-GN, told what the pre-filter's smoothing and the B-spline prefilter
 * do to the images' noise (for the offsets' standard deviations). */
static int create_icgn(struct accurate_pipeline *a, const struct kernel_params *base, int ntiles)
{
    double smoothing[CLX_FILTER_MAX_RADIUS * CLX_FILTER_MAX_STAGES + 1];
    struct icgn_noise_filters noise = { NULL, 0, NULL, 0 };
    if (a->prefilter &&
        filter_smoothing(a->prefilter, smoothing, CLX_FILTER_MAX_RADIUS * CLX_FILTER_MAX_STAGES,
                         &noise.smoothing_radius) == 0 && noise.smoothing_radius > 0)
        noise.smoothing = smoothing;
    if (a->bspline) {
        noise.spline = a->bspline->taps_host;
        noise.spline_radius = a->bspline->radius;
    }
    return icgn_create(a->job.ctx, base, a->job.nwin, a->job.nref, ntiles, &noise, &a->icgn);
}

/* Sampling, preparing and ZNCC kernels, and the device buffers. */
/* cl/tile_prepare.cl's kernel in the form p->tile_form names. */
static const char *tile_prepare_kernel(const struct kernel_params *p)
{
    return p->tile_form == 1 ? "tile_prepare_vector" : "tile_prepare";
}

static int create_kernels_and_buffers(struct accurate_pipeline *a, const struct kernel_params *base)
{
    struct clx_context *ctx = a->job.ctx;
    const clx_plan_options *o = a->job.opt;
    int ntiles = ntiles_of(a), status;
    size_t rs = real_size(a), window = (size_t)base->win_w * base->win_h;
    if ((status = build(ctx, "sample_windows.cl", base, "sample_windows", &a->sample_program, &a->sample)) ||
        (status = kernel_create(ctx, a->sample_program, base->tile_form == 1 ? "copy_windows_rows" : "copy_windows",
                                &a->copy)) ||
        (status = build(ctx, "tile_prepare.cl", &a->coarse.params, tile_prepare_kernel(base), &a->coarse_program,
                        &a->coarse_prepare)) ||
        (base->tile_form == 0 && (status = kernel_create(ctx, a->coarse_program, "window_prepare",
                                                         &a->window_prepare))) ||
        /* Both moved stages are direct: compact windows, one layout. */
        ((o->passes > 1 || refines_by_correlation(o)) &&
         (status = build(ctx, "tile_prepare.cl", refines_by_correlation(o) ? &a->refine.params : &a->offset.params,
                         tile_prepare_kernel(base), &a->moved_program, &a->moved_prepare))) ||
        /* IC-GN measures its own ZNCC. */
        (!refines_by_icgn(o) && (status = build(ctx, "zncc.cl", base, "zncc", &a->zncc_program, &a->zncc_kernel))) ||
        (status = ctx_create_buffer(ctx, rs * a->job.batch * a->job.image_w * a->job.image_h, &a->filtered,
                                    "filtered images")) ||
        (status = ctx_create_buffer(ctx, 2 * rs * ntiles, &a->offsets, "offsets")) ||
        (status = ctx_create_buffer(ctx, rs * ntiles * window, &a->tiles, "sampled windows")) ||
        (status = ctx_create_buffer(ctx, rs * a->job.nwin * window, &a->ref_tiles, "reference windows")) ||
        (status = ctx_create_buffer(ctx, rs * ntiles, &a->zncc_values, "zncc")) ||
        (status = ctx_create_buffer(ctx, sizeof(cl_int) * ntiles, &a->tile_ids, "tile ids")))
        return status;
    if (INTERP_IS_BSPLINE(base->interp) &&
        ((status = bspline_prefilter_create(ctx, base, &a->bspline)) != CLX_OK ||
         (status = ctx_create_buffer(ctx, rs * a->job.batch * a->job.image_w * a->job.image_h, &a->coefficients,
                                     "B-spline coefficients")) != CLX_OK))
        return status;
    if (refines_by_icgn(o) && (status = create_icgn(a, base, ntiles)) != CLX_OK)
        return status;
    return CLX_OK;
}

static void accurate_release(void *state);

static int accurate_create(const struct pipeline_job *job, void **state)
{
    struct clx_context *ctx = job->ctx;
    const clx_plan_options *o = job->opt;
    int status;

    *state = NULL;
    struct accurate_pipeline *a = calloc(1, sizeof *a);
    if (!a)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    a->job = *job;
    /* The window function is applied wherever windows are prepared. */
    struct kernel_params base = *job->params;
    base.window_fn = o->window;
    base.window_alpha = o->window_alpha;
    if ((status = create_prefilter(a)) != CLX_OK || (status = create_stages(a, &base)) != CLX_OK ||
        (status = create_kernels_and_buffers(a, &base)) != CLX_OK || (status = create_host_arrays(a)) != CLX_OK) {
        accurate_release(a);
        return status;
    }
    if (window_grid_detect(job->regions, job->nwin, &a->grid) != 0)
        ctx_log(ctx, CLX_LOG_INFO, "the windows are no grid: no outlier test");
    ctx_log(ctx, CLX_LOG_INFO, "method: %s", a->coarse.explanation);
    char refinement[160];
    if (refines_by_icgn(o))
        snprintf(refinement, sizeof refinement, "IC-GN refinement (shape %d) of up to %d iterations", o->shape,
                 o->refine);
    else
        snprintf(refinement, sizeof refinement, "up to %d correlation refinement(s) over %d px", o->refine,
                 REFINE_RADIUS);
    ctx_log(ctx, CLX_LOG_INFO,
            "accurate mode: pre-filter %s, %s window, first pass %s over shifts up to %d x %d, %d window-offset "
            "pass(es) over %d px, %s with %s interpolation, %s estimator, batch of %d images",
            a->prefilter ? o->prefilter : "none",
            o->window == CLX_WINDOW_HANN ? "Hann" : o->window == CLX_WINDOW_TUKEY ? "Tukey" : "no",
            a->coarse.correlator->name, base.search_rx, base.search_ry, o->passes - 1, o->fine_shift, refinement,
            clx_interp_name(o->interp), clx_estimator_name(o->estimator), job->batch);
    *state = a;
    return CLX_OK;
}

/* ---- device steps -------------------------------------------------------- */

/* For the B-spline interpolations, the coefficients of the batch's
 * filtered images (the reference needs none: its windows are copied). */
static int coefficients(struct accurate_pipeline *a, const struct batch_view *b)
{
    if (!a->bspline)
        return CLX_OK;
    int status = bspline_prefilter_enqueue(a->bspline, a->filtered, a->job.image_w, a->job.image_h, (int)b->count,
                                           a->coefficients);
    /* Profiled with the pre-filter, as part of readying the images: a row
     * pass reading and writing, a column pass the same. */
    if (status == CLX_OK)
        ctx_profile_mark(a->job.ctx, "filter (B-spline)", 4.0 * b->count * a->job.image_w * a->job.image_h * real_size(a));
    return status;
}

/* The uploaded images as reals in `filtered`: through the pre-filter, or
 * converted. */
static int filter_images(struct accurate_pipeline *a, const struct batch_view *b)
{
    clx_pixel_type type = b->type;
    size_t n = b->count;
    struct clx_context *ctx = a->job.ctx;
    int status = CLX_OK;
    /* Profiled bytes: the images read, the filtered reals written (a
     * pre-filter's own passes move more). */
    double pixels = (double)n * a->job.image_w * a->job.image_h;
    double bytes = pixels * (clx_pixel_size(type) + real_size(a));
    if (a->prefilter) {
        status = filter_enqueue(a->prefilter, b->images, type, a->job.image_w, a->job.image_h, (int)n, a->filtered);
        if (status == CLX_OK)
            ctx_profile_mark(ctx, "filter", bytes);
        return status;
    }
    int t = type - 1;
    if (!a->to_real[t]) {
        struct kernel_params p = (*a->job.params);
        p.pixel = type;
        if ((status = build(ctx, "sample_windows.cl", &p, "image_to_real", &a->to_real_program[t], &a->to_real[t])))
            return status;
    }
    int count = (int)(n * a->job.image_w * a->job.image_h);
    size_t global = ((size_t)count + 255) / 256 * 256;
    CL_CALL(ctx, clSetKernelArg(a->to_real[t], 0, sizeof b->images, &b->images));
    CL_CALL(ctx, clSetKernelArg(a->to_real[t], 1, sizeof a->filtered, &a->filtered));
    CL_CALL(ctx, clSetKernelArg(a->to_real[t], 2, sizeof count, &count));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, a->to_real[t], 1, NULL, &global, NULL, 0, NULL, NULL));
    ctx_profile_mark(ctx, "filter", bytes);
error:
    return status;
}

/* Uploads the host's offsets (ox, oy) of the first ntiles tiles. */
static int upload_offsets(struct accurate_pipeline *a, int ntiles)
{
    struct clx_context *ctx = a->job.ctx;
    int status = CLX_OK;
    for (int t = 0; t < ntiles; t++) {
        if (a->job.params->use_double) {
            ((double *)a->offsets_host)[2 * t] = a->ox[t];
            ((double *)a->offsets_host)[2 * t + 1] = a->oy[t];
        } else {
            ((float *)a->offsets_host)[2 * t] = (float)a->ox[t];
            ((float *)a->offsets_host)[2 * t + 1] = (float)a->oy[t];
        }
    }
    /* Blocking: the host array may be rewritten for the next pass as soon
     * as this returns. */
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, a->offsets, CL_TRUE, 0, 2 * real_size(a) * ntiles,
                                      a->offsets_host, 0, NULL, NULL));
error:
    return status;
}

/* Samples the windows of the first nslots tiles (or of tiles tile_ids[0 ..
 * nslots - 1]) at their offsets from the filtered images (tile t from image
 * t / nwin) into slots 0 .. nslots - 1 of `tiles`; `integer`: every offset
 * is a whole number of pixels (copied, not interpolated). The B-splines
 * interpolate the images' coefficients; copies are of the pixels. */
static int sample(struct accurate_pipeline *a, int nslots, cl_mem tile_ids, int integer)
{
    struct clx_context *ctx = a->job.ctx;
    const struct kernel_params *p = a->job.params;
    cl_kernel k = integer ? a->copy : a->sample;
    cl_mem source = !integer && a->bspline ? a->coefficients : a->filtered;
    int status = CLX_OK;
    /* The host may have worked since the last enqueue (fits between
     * passes): that time is nobody's stage. */
    ctx_profile_begin(ctx);
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof source, &source));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof a->job.image_w, &a->job.image_w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof a->job.image_h, &a->job.image_h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof a->job.corners, &a->job.corners));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof a->job.nwin, &a->job.nwin));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof a->offsets, &a->offsets));
    CL_CALL(ctx, clSetKernelArg(k, 6, sizeof tile_ids, &tile_ids));
    CL_CALL(ctx, clSetKernelArg(k, 7, sizeof a->tiles, &a->tiles));
    size_t local[3] = { (size_t)p->sample_tx, (size_t)p->sample_ty, 1 };
    size_t global[3] = { ((size_t)p->win_w + local[0] - 1) / local[0] * local[0],
                         ((size_t)p->win_h + local[1] - 1) / local[1] * local[1], (size_t)nslots };
    if (integer && p->tile_form == 1) {
        /* copy_windows_rows: a work-item per window row. */
        size_t rows[2] = { (size_t)p->win_h, (size_t)nslots };
        CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, rows, NULL, 0, NULL, NULL));
    } else {
        CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 3, NULL, global, local, 0, NULL, NULL));
    }
    /* Profiled bytes: each window read (interpolation reads a few more rows) and written. */
    ctx_profile_mark(ctx, "sample", 2.0 * nslots * p->win_w * p->win_h * real_size(a));
error:
    return status;
}

/* Prepares ntiles sampled windows of `tiles` into stage s's layout. */
static int prepare(struct accurate_pipeline *a, cl_kernel k, struct stage *s, cl_mem tiles, int ntiles)
{
    struct clx_context *ctx = a->job.ctx;
    const struct kernel_params *p = a->job.params;
    /* The vector form: one work-item per tile, writing the windows only,
     * in small groups (left to the runtime, PoCL makes groups of thousands,
     * each with its tiles' private rows of weights on one thread's stack). */
    const int vector = p->tile_form == 1;
    size_t local = vector ? 8 : (size_t)p->tile_wg, global = vector ? ((size_t)ntiles + 7) / 8 * 8 : local * ntiles;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof tiles, &tiles));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof s->prepared, &s->prepared));
    if (vector)
        CL_CALL(ctx, clSetKernelArg(k, 2, sizeof ntiles, &ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    /* Profiled bytes: the windows read and written (the padding keeps its zeros). */
    ctx_profile_mark(ctx, "prepare", 2.0 * ntiles * p->win_w * p->win_h * real_size(a));
error:
    return status;
}

/* Waits (asleep: runtime/event_wait.h) and releases the event. */
static int wait_event(struct clx_context *ctx, cl_event *ev)
{
    int status = event_wait(ctx, *ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    return status;
}

/* The first pass's windows of ntiles tiles, where they are in the filtered
 * images, prepared into the coarse stage's layout: window_prepare where the
 * work-group form has it (one kernel, no copy), else copied, then prepared. */
static int prepare_in_place(struct accurate_pipeline *a, int ntiles)
{
    struct clx_context *ctx = a->job.ctx;
    const struct kernel_params *p = a->job.params;
    cl_kernel k = a->window_prepare;
    size_t local = (size_t)p->tile_wg, global = local * ntiles;
    int status = CLX_OK;
    if (!k) {
        if ((status = sample(a, ntiles, NULL, 1)) != CLX_OK)
            return status;
        return prepare(a, a->coarse_prepare, &a->coarse, a->tiles, ntiles);
    }
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof a->filtered, &a->filtered));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof a->job.image_w, &a->job.image_w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof a->job.image_h, &a->job.image_h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof a->job.corners, &a->job.corners));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof a->job.nwin, &a->job.nwin));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof a->coarse.prepared, &a->coarse.prepared));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    /* Profiled bytes: the windows read and written. */
    ctx_profile_mark(ctx, "prepare", 2.0 * ntiles * p->win_w * p->win_h * real_size(a));
error:
    return status;
}

/* ---- the reference and the first pass ------------------------------------ */

static void zero_offsets(struct accurate_pipeline *a, int ntiles)
{
    memset(a->ox, 0, sizeof(double) * ntiles);
    memset(a->oy, 0, sizeof(double) * ntiles);
}

static int accurate_set_reference(void *state, const struct batch_view *reference)
{
    struct accurate_pipeline *a = state;
    struct clx_context *ctx = a->job.ctx;
    size_t bytes = real_size(a) * a->job.nwin * a->job.params->win_w * a->job.params->win_h;
    int status;

    zero_offsets(a, a->job.nwin);
    if ((status = filter_images(a, reference)) != CLX_OK || (status = upload_offsets(a, a->job.nwin)) ||
        (status = sample(a, a->job.nwin, NULL, 1)) != CLX_OK)
        return status;
    CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, a->tiles, a->ref_tiles, 0, 0, bytes, 0, NULL, NULL));
    if (a->icgn && ((status = coefficients(a, reference)) != CLX_OK ||
                    (status = icgn_set_reference(a->icgn, a->bspline ? a->coefficients : a->filtered, a->job.image_w,
                                                 a->job.image_h, a->job.corners, 1)) != CLX_OK))
        return status;
    if ((status = prepare(a, a->coarse_prepare, &a->coarse, a->tiles, a->job.nwin)) != CLX_OK ||
        (status = stage_set_reference(ctx, &a->coarse)) != CLX_OK)
        return status;
    struct stage *moved[] = { &a->offset, &a->refine };
    for (int i = 0; i < 2; i++)
        if (moved[i]->correlator && ((status = prepare(a, a->moved_prepare, moved[i], a->tiles, a->job.nwin)) ||
                                     (status = stage_set_reference(ctx, moved[i])) != CLX_OK))
            return status;
error:
    return status;
}

/* The first pass of a batch whose windows' offsets (all zero) are on the
 * device: filtered, sampled where they are, correlated; then, where IC-GN
 * starts from it (refines_in_push), the refinement from the first pass's
 * offsets, worked out on the device. */
static int first_pass(struct accurate_pipeline *a, const struct batch_view *batch)
{
    struct clx_context *ctx = a->job.ctx;
    const clx_plan_options *o = a->job.opt;
    int ntiles = (int)batch->count * a->job.nwin, status;
    if ((status = filter_images(a, batch)) != CLX_OK || (status = coefficients(a, batch)) != CLX_OK ||
        (status = prepare_in_place(a, ntiles)) != CLX_OK ||
        (status = stage_enqueue(ctx, &a->coarse, ntiles, NULL, &a->coarse_done)) != CLX_OK)
        return status;
    if (!refines_in_push(o))
        return CLX_OK;
    if ((status = stage_enqueue_offsets(ctx, &a->coarse, ntiles, a->icgn->starts)) != CLX_OK)
        return status;
    ctx_profile_mark(ctx, "start offsets", (double)ntiles * real_size(a) * (a->coarse.params.fit_size *
                                                                           a->coarse.params.fit_size + 2));
    return icgn_enqueue(a->icgn, a->bspline ? a->coefficients : a->filtered, a->job.image_w, a->job.image_h,
                        a->job.corners, ntiles, o->refine, o->tolerance, &a->icgn_done);
}

/* The zero offsets are needed on the device only where the first pass
 * copies its windows (no window_prepare). Their write blocks, so it comes
 * first, while this queue holds nothing (the last read waited for
 * everything): behind the upload and the filters it held the push up by
 * their whole device time (18 ms per 256 ebsd-900 images on an H100, with
 * the lane's thread idle). */
static int accurate_push(void *state, const struct batch_view *batch)
{
    struct accurate_pipeline *a = state;
    int ntiles = (int)batch->count * a->job.nwin, status;
    zero_offsets(a, ntiles);
    if (!a->window_prepare && (status = upload_offsets(a, ntiles)) != CLX_OK)
        return status;
    return first_pass(a, batch);
}

/*
 * Pairs (the plan refuses them with window-offset passes or the correlation
 * refinement): the references' windows become the first pass's reference
 * and IC-GN's reference side, one per tile, prepared as the images' are;
 * then the images' first pass, at the same zero offsets.
 */
static int accurate_push_pairs(void *state, const struct batch_view *references, const struct batch_view *batch)
{
    struct accurate_pipeline *a = state;
    int n = (int)references->count, ntiles = n * a->job.nwin, status;
    zero_offsets(a, ntiles);
    if ((status = upload_offsets(a, ntiles)) != CLX_OK || (status = filter_images(a, references)) != CLX_OK ||
        (status = coefficients(a, references)) != CLX_OK ||
        (a->icgn && (status = icgn_set_reference(a->icgn, a->bspline ? a->coefficients : a->filtered,
                                                 a->job.image_w, a->job.image_h, a->job.corners, n)) != CLX_OK) ||
        (status = sample(a, ntiles, NULL, 1)) != CLX_OK ||
        (status = prepare(a, a->coarse_prepare, &a->coarse, a->tiles, ntiles)) != CLX_OK ||
        (status = stage_set_reference(a->job.ctx, &a->coarse)) != CLX_OK)
        return status;
    return first_pass(a, batch);
}

/* The first pass's peaks, estimates, peak ratios and flags. */
static void first_pass_results(struct accurate_pipeline *a, int ntiles)
{
    for (int t = 0; t < ntiles; t++) {
        struct stage_peak pk;
        stage_peak_of(&a->coarse, (size_t)t, &pk);
        a->ix[t] = pk.ix;
        a->iy[t] = pk.iy;
        a->peak[t] = pk.peak;
        a->flags[t] = pk.flags & (CLX_FLAG_NO_PEAK | CLX_FLAG_EDGE | CLX_FLAG_FIT_FAILED);
        a->peak_ratio[t] = pk.peak / pk.second;
        if (!(pk.second > 0))
            a->peak_ratio[t] = pk.peak > 0 ? INFINITY : NAN;
        a->iterations[t] = 0;
        a->converged[t] = 0;
        refine_step_reset(&a->steps[t]);
        if (isnan(pk.peak)) {
            a->dx[t] = a->dy[t] = NAN;
            continue;
        }
        a->dx[t] = pk.ix + pk.sx;
        a->dy[t] = pk.iy + pk.sy;
    }
}

/* ---- window-offset and refinement passes --------------------------------- */

/* The offset that moves tile t's window to (x0 + o): kept inside the image. */
static double keep_inside(double o, int corner, int size, int extent, unsigned *flags)
{
    double lo = -corner, hi = extent - size - corner;
    if (o < lo || o > hi)
        *flags |= CLX_FLAG_CLAMPED;
    return o < lo ? lo : o > hi ? hi : o;
}

/*
 * The tiles a pass works on, into a->open and *nslots: all of them, or, for
 * a refinement whose stage takes subsets, only the open ones (not
 * converged, with an estimate), uploaded as the pass's *tile_ids.
 */
static int open_tiles(struct accurate_pipeline *a, struct stage *s, int ntiles, int refining, int *nslots,
                      cl_mem *tile_ids)
{
    struct clx_context *ctx = a->job.ctx;
    int n = 0, status = CLX_OK;
    *tile_ids = NULL;
    *nslots = ntiles;
    if (!refining || !stage_takes_subsets(s)) {
        for (int t = 0; t < ntiles; t++)
            a->open[t] = t;
        return CLX_OK;
    }
    for (int t = 0; t < ntiles; t++)
        if (!a->converged[t] && !isnan(a->dx[t]))
            a->open[n++] = t;
    *nslots = n;
    *tile_ids = a->tile_ids;
    if (n > 0)
        CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, a->tile_ids, CL_TRUE, 0, sizeof(cl_int) * n, a->open, 0, NULL,
                                          NULL));
error:
    return status;
}

/*
 * One pass of the moved windows over the first ntiles tiles: each tile's
 * image window sampled at p + (ox, oy) (kept inside the image), correlated
 * with the reference's windows by stage s, and the peak's position added to
 * the move. A window-offset pass moves by round(d); a refinement iteration
 * moves by d itself, takes the step refine_step.h works out from the peak,
 * counts, and closes a tile whose step fell below the tolerance. Later
 * iterations correlate only the tiles still open (where the stage can): a
 * batch then costs what its tiles need, not what its slowest tile needs.
 */
static int moved_pass(struct accurate_pipeline *a, struct stage *s, int ntiles, int refining)
{
    const struct kernel_params *p = a->job.params;
    cl_event done = NULL;
    cl_mem tile_ids;
    int nslots, status;

    if ((status = open_tiles(a, s, ntiles, refining, &nslots, &tile_ids)) != CLX_OK || nslots == 0)
        return status;
    for (int i = 0; i < nslots; i++) {
        int t = a->open[i];
        if (a->converged[t])
            continue;
        const clx_region *r = &a->job.regions[t % a->job.nwin];
        double mx = isnan(a->dx[t]) ? 0 : refining ? a->dx[t] : round(a->dx[t]);
        double my = isnan(a->dy[t]) ? 0 : refining ? a->dy[t] : round(a->dy[t]);
        a->ox[t] = keep_inside(mx, r->x, p->win_w, a->job.image_w, &a->flags[t]);
        a->oy[t] = keep_inside(my, r->y, p->win_h, a->job.image_h, &a->flags[t]);
    }
    if ((status = upload_offsets(a, ntiles)) != CLX_OK ||
        (status = sample(a, nslots, tile_ids, !refining)) != CLX_OK ||
        (status = prepare(a, a->moved_prepare, s, a->tiles, nslots)) != CLX_OK ||
        (status = stage_enqueue(a->job.ctx, s, nslots, tile_ids, &done)) != CLX_OK ||
        (status = wait_event(a->job.ctx, &done)) != CLX_OK)
        return status;
    for (int i = 0; i < nslots; i++) {
        struct stage_peak pk;
        int t = a->open[i];
        if (isnan(a->dx[t]) || a->converged[t])
            continue;
        stage_peak_of(s, (size_t)i, &pk);
        double o[2] = { a->ox[t], a->oy[t] }, u[2] = { pk.ix + pk.sx, pk.iy + pk.sy }, step[2] = { u[0], u[1] };
        /* A failed fit gives a zero sub-pixel part: no evidence of convergence. */
        int usable = pk.ix == 0 && pk.iy == 0 && !(pk.flags & CLX_FLAG_FIT_FAILED);
        if (refining)
            refine_step_next(&a->steps[t], o, u, usable, step);
        a->dx[t] = o[0] + step[0];
        a->dy[t] = o[1] + step[1];
        /* The last pass's word counts for the fit and the search border. */
        a->flags[t] = (a->flags[t] & ~(unsigned)(CLX_FLAG_FIT_FAILED | CLX_FLAG_EDGE)) |
                      (pk.flags & (CLX_FLAG_FIT_FAILED | CLX_FLAG_EDGE));
        if (!refining)
            continue;
        a->iterations[t]++;
        a->converged[t] = usable && fabs(step[0]) < a->job.opt->tolerance && fabs(step[1]) < a->job.opt->tolerance;
    }
    return CLX_OK;
}

static int all_converged(const struct accurate_pipeline *a, int ntiles)
{
    for (int t = 0; t < ntiles; t++)
        if (!a->converged[t] && !isnan(a->dx[t]))
            return 0;
    return 1;
}

/* ZNCC of every tile's window sampled at its final d. */
static int measure_zncc(struct accurate_pipeline *a, int ntiles)
{
    struct clx_context *ctx = a->job.ctx;
    const struct kernel_params *p = a->job.params;
    cl_kernel k = a->zncc_kernel;
    size_t local = (size_t)p->tile_wg, global = local * ntiles;
    unsigned ignored;
    int status;

    for (int t = 0; t < ntiles; t++) {
        const clx_region *r = &a->job.regions[t % a->job.nwin];
        a->ox[t] = isnan(a->dx[t]) ? 0 : keep_inside(a->dx[t], r->x, p->win_w, a->job.image_w, &ignored);
        a->oy[t] = isnan(a->dy[t]) ? 0 : keep_inside(a->dy[t], r->y, p->win_h, a->job.image_h, &ignored);
    }
    if ((status = upload_offsets(a, ntiles)) != CLX_OK || (status = sample(a, ntiles, NULL, 0)))
        return status;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof a->ref_tiles, &a->ref_tiles));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof a->tiles, &a->tiles));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof a->job.nwin, &a->job.nwin));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof a->zncc_values, &a->zncc_values));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    ctx_profile_mark(ctx, "zncc", 2.0 * ntiles * p->win_w * p->win_h * real_size(a));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, a->zncc_values, CL_TRUE, 0, real_size(a) * ntiles, a->zncc_host,
                                     0, NULL, NULL));
    for (int t = 0; t < ntiles; t++)
        a->zncc[t] = isnan(a->dx[t]) ? NAN
                     : p->use_double ? ((double *)a->zncc_host)[t] : ((float *)a->zncc_host)[t];
error:
    return status;
}

/* Whether tile t's window, warped by r, reaches outside the image. */
static int warped_outside(const struct accurate_pipeline *a, int t, const struct icgn_result *r)
{
    const clx_region *w = &a->job.regions[t % a->job.nwin];
    double hx = (w->w - 1) / 2.0, hy = (w->h - 1) / 2.0, cx = w->x + hx, cy = w->y + hy;
    for (int corner = 0; corner < 4; corner++) {
        double ex = corner & 1 ? hx : -hx, ey = corner & 2 ? hy : -hy;
        double x = cx + ex + r->u + r->ux * ex + r->uy * ey, y = cy + ey + r->v + r->vx * ex + r->vy * ey;
        if (x < 0 || y < 0 || x > a->job.image_w - 1 || y > a->job.image_h - 1)
            return 1;
    }
    return 0;
}

/* The IC-GN refinement of every tile from its last pass's offset (run
 * here, or waited for where the push enqueued it). A tile it cannot refine
 * keeps that offset, unconverged. */
static int icgn_refine(struct accurate_pipeline *a, int ntiles)
{
    const clx_plan_options *o = a->job.opt;
    int status;
    if (refines_in_push(o)) {
        if ((status = wait_event(a->job.ctx, &a->icgn_done)) != CLX_OK)
            return status;
        icgn_results(a->icgn, ntiles, a->icgn_out);
    } else if ((status = icgn_run(a->icgn, a->bspline ? a->coefficients : a->filtered, a->job.image_w,
                                  a->job.image_h, a->job.corners, ntiles, a->dx, a->dy, o->refine, o->tolerance,
                                  a->icgn_out)) != CLX_OK) {
        return status;
    }
    for (int t = 0; t < ntiles; t++) {
        const struct icgn_result *r = &a->icgn_out[t];
        a->iterations[t] = r->iterations;
        a->converged[t] = r->status == ICGN_CONVERGED;
        a->zncc[t] = r->status == ICGN_FAILED ? NAN : r->zncc;
        if (r->status == ICGN_FAILED)
            continue;
        a->dx[t] = r->u;
        a->dy[t] = r->v;
        if (warped_outside(a, t, r))
            a->flags[t] |= CLX_FLAG_CLAMPED;
    }
    return CLX_OK;
}

/* IC-GN's own columns of tile t's result (NaN where it did not run). */
static void icgn_columns(const struct accurate_pipeline *a, int t, clx_result *r)
{
    const struct icgn_result *g = a->icgn ? &a->icgn_out[t] : NULL;
    int ran = g && g->status != ICGN_FAILED, shaped = ran && a->job.opt->shape == 1;
    r->znssd = ran ? 2 * (1 - g->zncc) : NAN;
    r->sigma_dx = ran ? g->sigma_u : NAN;
    r->sigma_dy = ran ? g->sigma_v : NAN;
    r->dudx = shaped ? g->ux : NAN;
    r->dudy = shaped ? g->uy : NAN;
    r->dvdx = shaped ? g->vx : NAN;
    r->dvdy = shaped ? g->vy : NAN;
}

static int accurate_read(void *state, size_t count, clx_result *results)
{
    struct accurate_pipeline *a = state;
    const clx_plan_options *o = a->job.opt;
    int ntiles = (int)count * a->job.nwin;
    int status = wait_event(a->job.ctx, &a->coarse_done);
    if (status != CLX_OK)
        return status;

    first_pass_results(a, ntiles);
    for (int pass = 1; pass < o->passes; pass++)
        if ((status = moved_pass(a, &a->offset, ntiles, 0)) != CLX_OK)
            return status;
    if (a->icgn) {
        if ((status = icgn_refine(a, ntiles)) != CLX_OK)
            return status;
    } else {
        for (int i = 0; i < o->refine && !all_converged(a, ntiles); i++)
            if ((status = moved_pass(a, &a->refine, ntiles, 1)) != CLX_OK)
                return status;
        if ((status = measure_zncc(a, ntiles)) != CLX_OK)
            return status;
    }

    for (int t = 0; t < ntiles; t++) {
        clx_result *r = &results[t];
        memset(r, 0, sizeof *r);
        r->dx = a->dx[t];
        r->dy = a->dy[t];
        r->ix = a->ix[t];
        r->iy = a->iy[t];
        r->peak = a->peak[t];
        r->zncc = a->zncc[t];
        r->peak_ratio = a->peak_ratio[t];
        r->iterations = a->iterations[t];
        r->flags = a->flags[t];
        icgn_columns(a, t, r);
        /* zncc is 0/0 where a window has no contrast (a flat image): the
         * offset then means nothing, as where the peak is not positive. */
        if (isnan(r->zncc))
            r->flags |= CLX_FLAG_NO_PEAK;
        if (o->refine > 0 && !a->converged[t] && !isnan(r->dx))
            r->flags |= CLX_FLAG_UNCONVERGED;
    }
    if (a->grid.nx > 0)
        for (size_t i = 0; i < count; i++)
            outliers_flag(&a->grid, a->job.regions, results + i * a->job.nwin);
    return CLX_OK;
}

static const struct stage *accurate_main_stage(const void *state)
{
    return &((const struct accurate_pipeline *)state)->coarse;
}

static void accurate_release(void *state)
{
    struct accurate_pipeline *a = state;
    if (!a)
        return;
    if (a->coarse_done)
        clReleaseEvent(a->coarse_done);
    if (a->icgn_done)
        clReleaseEvent(a->icgn_done);
    filter_destroy(a->prefilter);
    bspline_prefilter_destroy(a->bspline);
    icgn_destroy(a->icgn);
    stage_release(&a->coarse);
    stage_release(&a->offset);
    stage_release(&a->refine);
    cl_kernel kernels[] = { a->sample, a->copy, a->coarse_prepare, a->window_prepare, a->moved_prepare, a->zncc_kernel,
                            a->to_real[0], a->to_real[1],
                            a->to_real[2] };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i])
            clReleaseKernel(kernels[i]);
    cl_program programs[] = { a->sample_program, a->coarse_program, a->moved_program, a->zncc_program,
                              a->to_real_program[0], a->to_real_program[1], a->to_real_program[2] };
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
        if (programs[i])
            clReleaseProgram(programs[i]);
    cl_mem bufs[] = { a->filtered, a->coefficients, a->offsets, a->tiles, a->ref_tiles, a->zncc_values, a->tile_ids };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    window_grid_release(&a->grid);
    void *host[] = { a->dx, a->dy, a->ox, a->oy, a->peak, a->peak_ratio, a->zncc, a->ix, a->iy, a->iterations,
                     a->converged, a->flags, a->open, a->steps, a->offsets_host, a->zncc_host, a->icgn_out };
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
        free(host[i]);
    free(a);
}

const struct pipeline_ops pipeline_accurate = {
    .name = "accurate",
    .reads_windows_only = 0,    /* IC-GN and the window offsets sample around them */
    .image_bytes = accurate_image_bytes,
    .create = accurate_create,
    .set_reference = accurate_set_reference,
    .push = accurate_push,
    .push_pairs = accurate_push_pairs,
    .read = accurate_read,
    .read_surfaces = NULL,
    .main_stage = accurate_main_stage,
    .release = accurate_release,
};
