/*
 * pipeline_seed.c - the seed mode (ALGORITHM.md), for one batch of images
 * already uploaded by the plan:
 *
 *   window means (exact) -> prepare: zero-mean windows, zero-padded into the
 *   correlator's layout -> stage: correlate with the reference's windows,
 *   argmax, F x F neighbourhood, download -> the estimator on the host
 *   (least squares by default) -> offset = integer peak + sub-pixel part
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_seed.h"
#include "pipeline/plan.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"

static size_t real_size(const struct clx_plan *plan)
{
    return plan->params.use_double ? sizeof(double) : sizeof(float);
}

int seed_create(struct clx_plan *plan)
{
    struct clx_context *ctx = plan->ctx;
    struct seed_pipeline *sp = calloc(1, sizeof *sp);
    if (!sp)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    plan->seed = sp;
    /* No fallback estimator: the seed method flags a failed fit. */
    struct stage_config config = { plan->opt.method, plan->opt.estimator, CLX_ESTIMATOR_DEFAULT, &plan->overrides, 0 };
    int ntiles = plan->batch * plan->nwin;
    int status = stage_create(ctx, &sp->stage, &plan->params, &config, plan->nwin, ntiles);
    if (status != CLX_OK)
        return status;
    cl_int err;
    sp->means = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, real_size(plan) * ntiles, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(means)", err);
    const struct kernel_params *p = &sp->stage.params;
    ctx_log(ctx, CLX_LOG_INFO, "method: %s", sp->stage.explanation);
    ctx_log(ctx, CLX_LOG_INFO,
            "seed mode: %d windows of %dx%d, shifts up to %d x %d, %s path (correlation layout %dx%d), batch of "
            "%d images, %s precision", plan->nwin, p->win_w, p->win_h, p->search_rx, p->search_ry,
            sp->stage.correlator->name, p->corr_w, p->corr_h, plan->batch, p->use_double ? "double" : "single");
error:
    return status;
}

/* Window means and prepared windows of `n` uploaded images into the stage. */
static int prepare(struct clx_plan *plan, clx_pixel_type type, size_t n)
{
    struct seed_pipeline *sp = plan->seed;
    struct prepare_windows *pw = &sp->prepare[type - 1];
    int status;
    if (!pw->sums) {
        struct kernel_params p = sp->stage.params;
        p.pixel = type;
        if ((status = prepare_windows_build(plan->ctx, &p, pw)) != CLX_OK)
            return status;
    }
    return prepare_windows_enqueue(plan->ctx, pw, plan->images, plan->image_w, plan->image_h, plan->corners,
                                   plan->nwin, (int)n, sp->means, sp->stage.prepared);
}

int seed_set_reference(struct clx_plan *plan, clx_pixel_type type)
{
    int status = prepare(plan, type, 1);
    return status == CLX_OK ? stage_set_reference(plan->ctx, &plan->seed->stage) : status;
}

int seed_push(struct clx_plan *plan, clx_pixel_type type, size_t count)
{
    struct seed_pipeline *sp = plan->seed;
    int status = prepare(plan, type, count);
    /* Profiled bytes: each window read twice (mean, then values), every
     * padded tile written. */
    const struct kernel_params *p = &sp->stage.params;
    double tiles = (double)count * plan->nwin;
    ctx_profile_mark(plan->ctx, "prepare",
                 tiles * (2.0 * p->win_w * p->win_h * clx_pixel_size(type) +
                          (double)p->pad_w * p->pad_h * real_size(plan)));
    if (status == CLX_OK)
        status = stage_enqueue(plan->ctx, &sp->stage, (int)(count * plan->nwin), NULL, &sp->done);
    return status;
}

/* Waits for the last push's downloads; the event is kept for another read. */
static int wait_done(struct clx_plan *plan)
{
    struct clx_context *ctx = plan->ctx;
    cl_int run_status = CL_COMPLETE;
    int status = CLX_OK;
    CL_CALL(ctx, clWaitForEvents(1, &plan->seed->done));
    CL_CALL(ctx, clGetEventInfo(plan->seed->done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof run_status,
                                &run_status, NULL));
    if (run_status < 0)
        status = ctx_cl_fail(ctx, run_status, "device execution", __FILE__, __LINE__);
error:
    return status;
}

int seed_read(struct clx_plan *plan, clx_result *results)
{
    struct seed_pipeline *sp = plan->seed;
    size_t tiles = plan->pushed * plan->nwin;
    int status = wait_done(plan);
    for (size_t t = 0; status == CLX_OK && t < tiles; t++) {
        struct stage_peak pk;
        clx_result *r = &results[t];
        stage_peak_of(&sp->stage, t, &pk);
        memset(r, 0, sizeof *r);
        r->ix = pk.ix;
        r->iy = pk.iy;
        r->peak = pk.peak;
        r->flags = pk.flags;
        r->dx = pk.flags & CLX_FLAG_NO_PEAK && isnan(pk.peak) ? NAN : pk.ix + pk.sx;
        r->dy = pk.flags & CLX_FLAG_NO_PEAK && isnan(pk.peak) ? NAN : pk.iy + pk.sy;
        r->zncc = r->peak_ratio = NAN;
    }
    clReleaseEvent(sp->done);
    sp->done = NULL;
    return status;
}

int seed_read_surfaces(struct clx_plan *plan, float *surfaces)
{
    struct clx_context *ctx = plan->ctx;
    const struct kernel_params *p = &plan->seed->stage.params;
    int sw = 2 * p->search_rx + 1, sh = 2 * p->search_ry + 1;
    size_t tiles = plan->pushed * plan->nwin, rs = real_size(plan);
    size_t corr_pixels = (size_t)p->corr_w * p->corr_h;
    void *host = malloc(rs * corr_pixels * tiles);
    int status = CLX_OK;

    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if ((status = wait_done(plan)) != CLX_OK)
        goto error;
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, plan->seed->stage.corr, CL_TRUE, 0, rs * corr_pixels * tiles, host,
                                     0, NULL, NULL));
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

void seed_release(struct clx_plan *plan)
{
    struct seed_pipeline *sp = plan->seed;
    if (!sp)
        return;
    if (sp->done)
        clReleaseEvent(sp->done);
    for (int t = 0; t < 3; t++)
        prepare_windows_release(&sp->prepare[t]);
    stage_release(&sp->stage);
    if (sp->means)
        clReleaseMemObject(sp->means);
    free(sp);
    plan->seed = NULL;
}
