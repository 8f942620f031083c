/*
 * pipeline_seed.c - the seed mode (doc/conventions.md), for one batch of images
 * already uploaded by the plan (the pipeline_ops of pipeline.h):
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
#include "runtime/context.h"
#include "runtime/event_wait.h"

static size_t real_size(const struct seed_pipeline *sp)
{
    return sp->job.params->use_double ? sizeof(double) : sizeof(float);
}

/* The seed mode costs what its one stage costs. */
static void seed_image_bytes(const struct pipeline_job *job, size_t *per_image, size_t *largest)
{
    stage_image_bytes(&job->ctx->dev, job->params, job->opt->method, job->nwin, per_image, largest);
    if (job->pairs)
        *per_image += (size_t)job->nwin * stage_reference_bytes(&job->ctx->dev, job->params, job->opt->method);
}

static void seed_release(void *state);

static int seed_create(const struct pipeline_job *job, void **state)
{
    struct clx_context *ctx = job->ctx;
    struct seed_pipeline *sp = calloc(1, sizeof *sp);
    *state = NULL;
    if (!sp)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    sp->job = *job;
    /* No fallback estimator: the seed method flags a failed fit. */
    struct stage_config config = { job->opt->method, job->opt->estimator, CLX_ESTIMATOR_DEFAULT, job->overrides, 0, 0 };
    int ntiles = job->batch * job->nwin;
    /* With pairs every tile has a reference window of its own (nref = ntiles). */
    int status = stage_create(ctx, &sp->stage, job->params, &config, job->nref, ntiles);
    if (status == CLX_OK)
        status = ctx_create_buffer(ctx, real_size(sp) * ntiles, &sp->means, "means");
    if (status != CLX_OK) {
        seed_release(sp);
        return status;
    }
    const struct kernel_params *p = &sp->stage.params;
    ctx_log(ctx, CLX_LOG_INFO, "method: %s", sp->stage.explanation);
    ctx_log(ctx, CLX_LOG_INFO,
            "seed mode: %d windows of %dx%d, shifts up to %d x %d, %s path (correlation layout %dx%d), batch of "
            "%d images, %s precision", job->nwin, p->win_w, p->win_h, p->search_rx, p->search_ry,
            sp->stage.correlator->name, p->corr_w, p->corr_h, job->batch, p->use_double ? "double" : "single");
    *state = sp;
    return CLX_OK;
}

/* Window means and prepared windows of the batch's images into the stage. */
static int prepare(struct seed_pipeline *sp, const struct batch_view *b)
{
    const struct pipeline_job *job = &sp->job;
    struct prepare_windows *pw = &sp->prepare[b->type - 1];
    int status;
    if (!pw->sums) {
        struct kernel_params p = sp->stage.params;
        p.pixel = b->type;
        if ((status = prepare_windows_build(job->ctx, &p, pw)) != CLX_OK)
            return status;
    }
    return prepare_windows_enqueue(job->ctx, pw, b->images, job->image_w, job->image_h, job->corners, job->nwin,
                                   (int)b->count, sp->means, sp->stage.prepared);
}

static int seed_set_reference(void *state, const struct batch_view *reference)
{
    struct seed_pipeline *sp = state;
    int status = prepare(sp, reference);
    return status == CLX_OK ? stage_set_reference(sp->job.ctx, &sp->stage) : status;
}

static int seed_push(void *state, const struct batch_view *batch);

/* The references' windows prepared like the images', into the stage's
 * reference, then the images as any push. */
static int seed_push_pairs(void *state, const struct batch_view *references, const struct batch_view *batch)
{
    struct seed_pipeline *sp = state;
    int status = prepare(sp, references);
    if (status == CLX_OK)
        status = stage_set_reference(sp->job.ctx, &sp->stage);
    return status == CLX_OK ? seed_push(state, batch) : status;
}

static int seed_push(void *state, const struct batch_view *batch)
{
    struct seed_pipeline *sp = state;
    int status = prepare(sp, batch);
    /* Profiled bytes: each window read twice (mean, then values), every
     * padded tile written (prep_pad 0) or its window only (1, 2: see
     * ops/prepare_windows.h; 1's fill is counted with it). */
    const struct kernel_params *p = &sp->stage.params;
    double tiles = (double)batch->count * sp->job.nwin;
    double written = p->prep_pad == 2 ? (double)p->win_w * p->win_h : (double)p->pad_w * p->pad_h;
    ctx_profile_mark(sp->job.ctx, "prepare",
                     tiles * (2.0 * p->win_w * p->win_h * clx_pixel_size(batch->type) + written * real_size(sp)));
    if (status == CLX_OK)
        status = stage_enqueue(sp->job.ctx, &sp->stage, (int)(batch->count * sp->job.nwin), NULL, &sp->done);
    return status;
}

/* Waits for the last push's downloads (asleep: runtime/event_wait.h says
 * why); the event is kept for another read. */
static int wait_done(struct seed_pipeline *sp)
{
    return event_wait(sp->job.ctx, sp->done);
}

static int seed_read(void *state, size_t count, clx_result *results)
{
    struct seed_pipeline *sp = state;
    size_t tiles = count * sp->job.nwin;
    int status = wait_done(sp);
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
        r->znssd = r->sigma_dx = r->sigma_dy = NAN;
        r->dudx = r->dudy = r->dvdx = r->dvdy = NAN;
    }
    clReleaseEvent(sp->done);
    sp->done = NULL;
    return status;
}

static int seed_read_surfaces(void *state, size_t count, float *surfaces)
{
    struct seed_pipeline *sp = state;
    struct clx_context *ctx = sp->job.ctx;
    const struct kernel_params *p = &sp->stage.params;
    int sw = 2 * p->search_rx + 1, sh = 2 * p->search_ry + 1;
    size_t tiles = count * sp->job.nwin, rs = real_size(sp);
    size_t corr_pixels = (size_t)p->corr_w * p->corr_h;
    void *host = malloc(rs * corr_pixels * tiles);
    int status = CLX_OK;

    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if ((status = wait_done(sp)) != CLX_OK)
        goto error;
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, sp->stage.corr, CL_TRUE, 0, rs * corr_pixels * tiles, host,
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

static const struct stage *seed_main_stage(const void *state)
{
    return &((const struct seed_pipeline *)state)->stage;
}

static void seed_release(void *state)
{
    struct seed_pipeline *sp = state;
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
}

const struct pipeline_ops pipeline_seed = {
    .name = "seed",
    .reads_windows_only = 1,
    .image_bytes = seed_image_bytes,
    .create = seed_create,
    .set_reference = seed_set_reference,
    .push = seed_push,
    .push_pairs = seed_push_pairs,
    .read = seed_read,
    .read_surfaces = seed_read_surfaces,
    .main_stage = seed_main_stage,
    .release = seed_release,
};
