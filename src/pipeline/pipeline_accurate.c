/*
 * pipeline_accurate.c - the accurate mode, for one batch of images already
 * uploaded by the plan. Each step removes one of the seed method's errors
 * (ALGORITHM.md, "Why the seed pipeline is not enough"):
 *
 *   1. pre-filter every image (background removal by default): removes the
 *      bias a smooth background puts on a zero-padded correlation;
 *   2. first pass: windows sampled where they are, the whole search range
 *      (FFT or direct, as chosen), peak, estimator -> d;
 *   3. window-offset passes (passes - 1 of them): the image window moved by
 *      round(d) and correlated again over a few pixels -> d = round(d) + peak:
 *      removes the bias of the overlap shrinking with the shift;
 *   4. refinement (up to `refine` iterations): the image window sampled at
 *      p + d with Lanczos-3 interpolation, correlated over one pixel either
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
 * on the host and runs in the read, pass by pass.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/filter_chain.h"
#include "pipeline/pipeline_accurate.h"
#include "pipeline/plan.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
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

static size_t real_size(const struct clx_plan *plan)
{
    return plan->params.use_double ? sizeof(double) : sizeof(float);
}

static int ntiles_of(const struct clx_plan *plan)
{
    return plan->batch * plan->nwin;
}

/* ---- creation ------------------------------------------------------------ */

static int build(struct clx_context *ctx, const char *file, const struct kernel_params *p, const char *name,
                 cl_program *program, cl_kernel *kernel)
{
    int status = program_build_params(ctx, file, p, program);
    return status == CLX_OK ? kernel_create(ctx, *program, name, kernel) : status;
}

static int create_host_arrays(struct clx_plan *plan)
{
    struct accurate_pipeline *a = plan->accurate;
    size_t n = (size_t)ntiles_of(plan);
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
    a->offsets_host = calloc(n, 2 * real_size(plan));
    a->zncc_host = calloc(n, real_size(plan));
    if (!a->dx || !a->dy || !a->ox || !a->oy || !a->peak || !a->peak_ratio || !a->zncc || !a->ix || !a->iy ||
        !a->iterations || !a->converged || !a->flags || !a->open || !a->steps ||
        !a->offsets_host || !a->zncc_host)
        return ctx_fail(plan->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    return CLX_OK;
}

static int create_prefilter(struct clx_plan *plan)
{
    const char *spec = plan->opt.prefilter;
    if (!spec || !*spec || strcmp(spec, "none") == 0)
        return CLX_OK;
    clx_filter_options fo;
    clx_filter_options_init(&fo);
    fo.spec = spec;
    /* Mirroring keeps a background's slope going past the image's edge,
     * where clamping would flatten it and zero would invent an edge. */
    fo.border = CLX_BORDER_MIRROR;
    fo.use_double = plan->params.use_double;
    return clx_filter_create(plan->ctx, &fo, &plan->accurate->prefilter);
}

int accurate_create(struct clx_plan *plan)
{
    struct clx_context *ctx = plan->ctx;
    const clx_plan_options *o = &plan->opt;
    int ntiles = ntiles_of(plan), status;
    size_t rs = real_size(plan), window = (size_t)plan->params.win_w * plan->params.win_h;

    struct accurate_pipeline *a = calloc(1, sizeof *a);
    if (!a)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    plan->accurate = a;

    /* The window function is applied wherever windows are prepared. */
    struct kernel_params base = plan->params;
    base.window_fn = o->window;
    base.window_alpha = o->window_alpha;
    struct kernel_params offset = base, refine = base;
    offset.search_rx = imin(o->fine_shift, base.win_w - 1);
    offset.search_ry = imin(o->fine_shift, base.win_h - 1);
    refine.search_rx = imin(REFINE_RADIUS, base.win_w - 1);
    refine.search_ry = imin(REFINE_RADIUS, base.win_h - 1);
    /* Where the estimator finds no maximum (a 3 x 3 fit on the ridge a
     * band crossing makes, say), the per-axis parabola usually still can. */
    clx_estimator fallback = o->estimator == CLX_ESTIMATOR_PARABOLA3 ? CLX_ESTIMATOR_DEFAULT : CLX_ESTIMATOR_PARABOLA3;
    struct stage_config coarse_config = { o->method, o->estimator, fallback, &plan->overrides, 1 };
    struct stage_config moved_config = { CLX_METHOD_DIRECT, o->estimator, fallback, &plan->overrides, 0 };

    if ((status = create_prefilter(plan)) != CLX_OK ||
        (status = stage_create(ctx, &a->coarse, &base, &coarse_config, plan->nwin, ntiles)) != CLX_OK ||
        (o->passes > 1 &&
         (status = stage_create(ctx, &a->offset, &offset, &moved_config, plan->nwin, ntiles)) != CLX_OK) ||
        (o->refine > 0 &&
         (status = stage_create(ctx, &a->refine, &refine, &moved_config, plan->nwin, ntiles)) != CLX_OK) ||
        (status = build(ctx, "sample_windows.cl", &base, "sample_windows", &a->sample_program, &a->sample)) ||
        (status = kernel_create(ctx, a->sample_program, "copy_windows", &a->copy)) ||
        (status = build(ctx, "tile_prepare.cl", &a->coarse.params, "tile_prepare", &a->coarse_program,
                        &a->coarse_prepare)) ||
        /* Both moved stages are direct: compact windows, one layout. */
        ((o->passes > 1 || o->refine > 0) &&
         (status = build(ctx, "tile_prepare.cl", o->refine > 0 ? &a->refine.params : &a->offset.params,
                         "tile_prepare", &a->moved_program, &a->moved_prepare))) ||
        (status = build(ctx, "zncc.cl", &base, "zncc", &a->zncc_program, &a->zncc_kernel)) ||
        (status = ctx_create_buffer(ctx, rs * plan->batch * plan->image_w * plan->image_h, &a->filtered,
                                    "filtered images")) ||
        (status = ctx_create_buffer(ctx, 2 * rs * ntiles, &a->offsets, "offsets")) ||
        (status = ctx_create_buffer(ctx, rs * ntiles * window, &a->tiles, "sampled windows")) ||
        (status = ctx_create_buffer(ctx, rs * plan->nwin * window, &a->ref_tiles, "reference windows")) ||
        (status = ctx_create_buffer(ctx, rs * ntiles, &a->zncc_values, "zncc")) ||
        (status = ctx_create_buffer(ctx, sizeof(cl_int) * ntiles, &a->tile_ids, "tile ids")) ||
        (status = create_host_arrays(plan)) != CLX_OK)
        return status;
    if (window_grid_detect(plan->regions, plan->nwin, &a->grid) != 0)
        ctx_log(ctx, CLX_LOG_INFO, "the windows are no grid: no outlier test");
    ctx_log(ctx, CLX_LOG_INFO, "method: %s", a->coarse.explanation);
    ctx_log(ctx, CLX_LOG_INFO,
            "accurate mode: pre-filter %s, %s window, first pass %s over shifts up to %d x %d, %d window-offset "
            "pass(es) over %d px, up to %d refinement(s) over %d px, %s estimator, batch of %d images",
            a->prefilter ? o->prefilter : "none",
            o->window == CLX_WINDOW_HANN ? "Hann" : o->window == CLX_WINDOW_TUKEY ? "Tukey" : "no",
            a->coarse.correlator->name, base.search_rx, base.search_ry, o->passes - 1, o->fine_shift, o->refine,
            REFINE_RADIUS, clx_estimator_name(o->estimator), plan->batch);
    return CLX_OK;
}

/* ---- device steps -------------------------------------------------------- */

/* The uploaded images as reals in `filtered`: through the pre-filter, or
 * converted. */
static int filter_images(struct clx_plan *plan, clx_pixel_type type, size_t n)
{
    struct clx_context *ctx = plan->ctx;
    struct accurate_pipeline *a = plan->accurate;
    int status = CLX_OK;
    /* Profiled bytes: the images read, the filtered reals written (a
     * pre-filter's own passes move more). */
    double pixels = (double)n * plan->image_w * plan->image_h;
    double bytes = pixels * (clx_pixel_size(type) + real_size(plan));
    if (a->prefilter) {
        status = filter_enqueue(a->prefilter, plan->images, type, plan->image_w, plan->image_h, (int)n, a->filtered);
        if (status == CLX_OK)
            ctx_profile_mark(ctx, "filter", bytes);
        return status;
    }
    int t = type - 1;
    if (!a->to_real[t]) {
        struct kernel_params p = plan->params;
        p.pixel = type;
        if ((status = build(ctx, "sample_windows.cl", &p, "image_to_real", &a->to_real_program[t], &a->to_real[t])))
            return status;
    }
    int count = (int)(n * plan->image_w * plan->image_h);
    size_t global = ((size_t)count + 255) / 256 * 256;
    CL_CALL(ctx, clSetKernelArg(a->to_real[t], 0, sizeof plan->images, &plan->images));
    CL_CALL(ctx, clSetKernelArg(a->to_real[t], 1, sizeof a->filtered, &a->filtered));
    CL_CALL(ctx, clSetKernelArg(a->to_real[t], 2, sizeof count, &count));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, a->to_real[t], 1, NULL, &global, NULL, 0, NULL, NULL));
    ctx_profile_mark(ctx, "filter", bytes);
error:
    return status;
}

/* Uploads the host's offsets (ox, oy) of the first ntiles tiles. */
static int upload_offsets(struct clx_plan *plan, int ntiles)
{
    struct clx_context *ctx = plan->ctx;
    struct accurate_pipeline *a = plan->accurate;
    int status = CLX_OK;
    for (int t = 0; t < ntiles; t++) {
        if (plan->params.use_double) {
            ((double *)a->offsets_host)[2 * t] = a->ox[t];
            ((double *)a->offsets_host)[2 * t + 1] = a->oy[t];
        } else {
            ((float *)a->offsets_host)[2 * t] = (float)a->ox[t];
            ((float *)a->offsets_host)[2 * t + 1] = (float)a->oy[t];
        }
    }
    /* Blocking: the host array may be rewritten for the next pass as soon
     * as this returns. */
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, a->offsets, CL_TRUE, 0, 2 * real_size(plan) * ntiles,
                                      a->offsets_host, 0, NULL, NULL));
error:
    return status;
}

/* Samples the windows of the first nslots tiles (or of tiles tile_ids[0 ..
 * nslots - 1]) at their offsets from the filtered images (tile t from image
 * t / nwin) into slots 0 .. nslots - 1 of `tiles`; `integer`: every offset
 * is a whole number of pixels (copied, not interpolated). */
static int sample(struct clx_plan *plan, int nslots, cl_mem tile_ids, int integer)
{
    struct clx_context *ctx = plan->ctx;
    struct accurate_pipeline *a = plan->accurate;
    const struct kernel_params *p = &plan->params;
    cl_kernel k = integer ? a->copy : a->sample;
    int status = CLX_OK;
    /* The host may have worked since the last enqueue (fits between
     * passes): that time is nobody's stage. */
    ctx_profile_begin(ctx);
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof a->filtered, &a->filtered));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof plan->image_w, &plan->image_w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof plan->image_h, &plan->image_h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof plan->corners, &plan->corners));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof plan->nwin, &plan->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof a->offsets, &a->offsets));
    CL_CALL(ctx, clSetKernelArg(k, 6, sizeof tile_ids, &tile_ids));
    CL_CALL(ctx, clSetKernelArg(k, 7, sizeof a->tiles, &a->tiles));
    size_t local[3] = { (size_t)p->sample_tx, (size_t)p->sample_ty, 1 };
    size_t global[3] = { ((size_t)p->win_w + local[0] - 1) / local[0] * local[0],
                         ((size_t)p->win_h + local[1] - 1) / local[1] * local[1], (size_t)nslots };
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 3, NULL, global, local, 0, NULL, NULL));
    /* Profiled bytes: each window read (interpolation reads a few more rows) and written. */
    ctx_profile_mark(ctx, "sample", 2.0 * nslots * p->win_w * p->win_h * real_size(plan));
error:
    return status;
}

/* Prepares ntiles sampled windows of `tiles` into stage s's layout. */
static int prepare(struct clx_plan *plan, cl_kernel k, struct stage *s, cl_mem tiles, int ntiles)
{
    struct clx_context *ctx = plan->ctx;
    size_t local = (size_t)plan->params.tile_wg, global = local * ntiles;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof tiles, &tiles));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof s->prepared, &s->prepared));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    /* Profiled bytes: the windows read, the stage's padded tiles written. */
    ctx_profile_mark(ctx, "prepare",
                 (double)ntiles * real_size(plan) *
                     ((double)plan->params.win_w * plan->params.win_h + (double)s->params.pad_w * s->params.pad_h));
error:
    return status;
}

static int wait_event(struct clx_context *ctx, cl_event *ev)
{
    cl_int run_status = CL_COMPLETE;
    int status = CLX_OK;
    CL_CALL(ctx, clWaitForEvents(1, ev));
    CL_CALL(ctx, clGetEventInfo(*ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof run_status, &run_status, NULL));
    if (run_status < 0)
        status = ctx_cl_fail(ctx, run_status, "device execution", __FILE__, __LINE__);
error:
    clReleaseEvent(*ev);
    *ev = NULL;
    return status;
}

/* ---- the reference and the first pass ------------------------------------ */

static void zero_offsets(struct clx_plan *plan, int ntiles)
{
    memset(plan->accurate->ox, 0, sizeof(double) * ntiles);
    memset(plan->accurate->oy, 0, sizeof(double) * ntiles);
}

int accurate_set_reference(struct clx_plan *plan, clx_pixel_type type)
{
    struct clx_context *ctx = plan->ctx;
    struct accurate_pipeline *a = plan->accurate;
    size_t bytes = real_size(plan) * plan->nwin * plan->params.win_w * plan->params.win_h;
    int status;

    zero_offsets(plan, plan->nwin);
    if ((status = filter_images(plan, type, 1)) != CLX_OK || (status = upload_offsets(plan, plan->nwin)) ||
        (status = sample(plan, plan->nwin, NULL, 1)) != CLX_OK)
        return status;
    CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, a->tiles, a->ref_tiles, 0, 0, bytes, 0, NULL, NULL));
    if ((status = prepare(plan, a->coarse_prepare, &a->coarse, a->tiles, plan->nwin)) != CLX_OK ||
        (status = stage_set_reference(ctx, &a->coarse)) != CLX_OK)
        return status;
    struct stage *moved[] = { &a->offset, &a->refine };
    for (int i = 0; i < 2; i++)
        if (moved[i]->correlator && ((status = prepare(plan, a->moved_prepare, moved[i], a->tiles, plan->nwin)) ||
                                     (status = stage_set_reference(ctx, moved[i])) != CLX_OK))
            return status;
error:
    return status;
}

int accurate_push(struct clx_plan *plan, clx_pixel_type type, size_t count)
{
    struct accurate_pipeline *a = plan->accurate;
    int ntiles = (int)count * plan->nwin, status;
    zero_offsets(plan, ntiles);
    if ((status = filter_images(plan, type, count)) != CLX_OK || (status = upload_offsets(plan, ntiles)) ||
        (status = sample(plan, ntiles, NULL, 1)) != CLX_OK ||
        (status = prepare(plan, a->coarse_prepare, &a->coarse, a->tiles, ntiles)) != CLX_OK)
        return status;
    return stage_enqueue(plan->ctx, &a->coarse, ntiles, NULL, &a->coarse_done);
}

/* The first pass's peaks, estimates, peak ratios and flags. */
static void first_pass_results(struct clx_plan *plan, int ntiles)
{
    struct accurate_pipeline *a = plan->accurate;
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
static int open_tiles(struct clx_plan *plan, struct stage *s, int ntiles, int refining, int *nslots,
                      cl_mem *tile_ids)
{
    struct clx_context *ctx = plan->ctx;
    struct accurate_pipeline *a = plan->accurate;
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
static int moved_pass(struct clx_plan *plan, struct stage *s, int ntiles, int refining)
{
    struct accurate_pipeline *a = plan->accurate;
    const struct kernel_params *p = &plan->params;
    cl_event done = NULL;
    cl_mem tile_ids;
    int nslots, status;

    if ((status = open_tiles(plan, s, ntiles, refining, &nslots, &tile_ids)) != CLX_OK || nslots == 0)
        return status;
    for (int i = 0; i < nslots; i++) {
        int t = a->open[i];
        if (a->converged[t])
            continue;
        const clx_region *r = &plan->regions[t % plan->nwin];
        double mx = isnan(a->dx[t]) ? 0 : refining ? a->dx[t] : round(a->dx[t]);
        double my = isnan(a->dy[t]) ? 0 : refining ? a->dy[t] : round(a->dy[t]);
        a->ox[t] = keep_inside(mx, r->x, p->win_w, plan->image_w, &a->flags[t]);
        a->oy[t] = keep_inside(my, r->y, p->win_h, plan->image_h, &a->flags[t]);
    }
    if ((status = upload_offsets(plan, ntiles)) != CLX_OK ||
        (status = sample(plan, nslots, tile_ids, !refining)) != CLX_OK ||
        (status = prepare(plan, a->moved_prepare, s, a->tiles, nslots)) != CLX_OK ||
        (status = stage_enqueue(plan->ctx, s, nslots, tile_ids, &done)) != CLX_OK ||
        (status = wait_event(plan->ctx, &done)) != CLX_OK)
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
        a->converged[t] = usable && fabs(step[0]) < plan->opt.tolerance && fabs(step[1]) < plan->opt.tolerance;
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
static int measure_zncc(struct clx_plan *plan, int ntiles)
{
    struct clx_context *ctx = plan->ctx;
    struct accurate_pipeline *a = plan->accurate;
    const struct kernel_params *p = &plan->params;
    cl_kernel k = a->zncc_kernel;
    size_t local = (size_t)p->tile_wg, global = local * ntiles;
    unsigned ignored;
    int status;

    for (int t = 0; t < ntiles; t++) {
        const clx_region *r = &plan->regions[t % plan->nwin];
        a->ox[t] = isnan(a->dx[t]) ? 0 : keep_inside(a->dx[t], r->x, p->win_w, plan->image_w, &ignored);
        a->oy[t] = isnan(a->dy[t]) ? 0 : keep_inside(a->dy[t], r->y, p->win_h, plan->image_h, &ignored);
    }
    if ((status = upload_offsets(plan, ntiles)) != CLX_OK || (status = sample(plan, ntiles, NULL, 0)))
        return status;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof a->ref_tiles, &a->ref_tiles));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof a->tiles, &a->tiles));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof plan->nwin, &plan->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof a->zncc_values, &a->zncc_values));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    ctx_profile_mark(ctx, "zncc", 2.0 * ntiles * p->win_w * p->win_h * real_size(plan));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, a->zncc_values, CL_TRUE, 0, real_size(plan) * ntiles, a->zncc_host,
                                     0, NULL, NULL));
    for (int t = 0; t < ntiles; t++)
        a->zncc[t] = isnan(a->dx[t]) ? NAN
                     : p->use_double ? ((double *)a->zncc_host)[t] : ((float *)a->zncc_host)[t];
error:
    return status;
}

int accurate_read(struct clx_plan *plan, clx_result *results)
{
    struct accurate_pipeline *a = plan->accurate;
    const clx_plan_options *o = &plan->opt;
    int ntiles = (int)plan->pushed * plan->nwin;
    int status = wait_event(plan->ctx, &a->coarse_done);
    if (status != CLX_OK)
        return status;

    first_pass_results(plan, ntiles);
    for (int pass = 1; pass < o->passes; pass++)
        if ((status = moved_pass(plan, &a->offset, ntiles, 0)) != CLX_OK)
            return status;
    for (int i = 0; i < o->refine && !all_converged(a, ntiles); i++)
        if ((status = moved_pass(plan, &a->refine, ntiles, 1)) != CLX_OK)
            return status;
    if ((status = measure_zncc(plan, ntiles)) != CLX_OK)
        return status;

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
        if (o->refine > 0 && !a->converged[t] && !isnan(r->dx))
            r->flags |= CLX_FLAG_UNCONVERGED;
    }
    if (a->grid.nx > 0)
        for (size_t i = 0; i < plan->pushed; i++)
            outliers_flag(&a->grid, plan->regions, results + i * plan->nwin);
    return CLX_OK;
}

void accurate_release(struct clx_plan *plan)
{
    struct accurate_pipeline *a = plan->accurate;
    if (!a)
        return;
    if (a->coarse_done)
        clReleaseEvent(a->coarse_done);
    clx_filter_release(a->prefilter);
    stage_release(&a->coarse);
    stage_release(&a->offset);
    stage_release(&a->refine);
    cl_kernel kernels[] = { a->sample, a->copy, a->coarse_prepare, a->moved_prepare, a->zncc_kernel,
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
    cl_mem bufs[] = { a->filtered, a->offsets, a->tiles, a->ref_tiles, a->zncc_values, a->tile_ids };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    window_grid_release(&a->grid);
    void *host[] = { a->dx, a->dy, a->ox, a->oy, a->peak, a->peak_ratio, a->zncc, a->ix, a->iy, a->iterations,
                     a->converged, a->flags, a->open, a->steps, a->offsets_host, a->zncc_host };
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
        free(host[i]);
    free(a);
    plan->accurate = NULL;
}
