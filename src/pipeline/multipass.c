/*
 * multipass.c - the deforming multi-pass (clx_multipass, clxcorr.h): frame
 * pairs measured in passes of shrinking windows, the frames deformed
 * between passes by what the last one measured.
 *
 * One batch of pairs' way through:
 *
 *   pass 1: the frames pushed as pairs through its plan -> a field per
 *   pair on its grid -> validated, rejected vectors replaced, smoothed (the
 *   predictor) ->
 *   the frames' B-spline coefficients, once -> for each later pass: both
 *   frames resampled by half the predictor each way (ops/field_warp.h) ->
 *   pushed as pairs, from the device, through that pass's plan -> its
 *   residuals plus the predictor at its windows' centres -> validated (the
 *   median test on the residuals, twice), replaced, and (before the last
 *   pass) smoothed into the next predictor.
 *
 * The validation here is the only one whose verdict the results carry:
 * CLX_FLAG_OUTLIER means rejected by it, and (unless opt.replace is off)
 * always comes with CLX_FLAG_REPLACED in the last pass's results.
 *
 * The predictor is evaluated on the host by the same bicubic interpolation
 * the deformation used on the device (ops/displacement_field.h), so the
 * offset a window reports is what its frames were moved by plus what is
 * left.
 *
 * Deforming both frames halfway makes a window at x see the particles that
 * were at x - d/2 in frame A: the later passes measure the field on the
 * midpoint grid. The last one's field is taken back to frame A's
 * (reference_frame), where clxcorr's offsets are: d_A(x) = d_mid(x +
 * d_A(x)/2). Near a vortex core (0.11 rad per frame, 7 px displacements)
 * the two differ by 0.4 px.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/bspline_prefilter.h"
#include "ops/displacement_field.h"
#include "ops/field_warp.h"
#include "pipeline/plan.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"

#define MAX_PASSES 8
#define MIN_WINDOW 8
/* Pairs per run: enough to fill a GPU with the first pass's windows. */
#define MAX_BATCH 16

struct pass {
    int window, step;
    int nx, ny;
    double cx0, cy0;            /* the first window's centre */
    clx_region *regions;
    clx_plan *plan;
};

struct clx_multipass {
    struct clx_context *ctx;
    clx_multipass_options opt;
    int width, height, batch;
    struct pass passes[MAX_PASSES];
    struct kernel_params params;        /* for the deformation: cubic B-spline, single precision */
    struct bspline_prefilter *bspline;
    struct field_warp *warp;
    cl_mem frames[2], coefficients[2];  /* frames A and B of a batch, as reals, and their coefficients */
    cl_mem deformed[2];                 /* the frames deformed for the pass in flight */
    float *staged;                      /* the frames as reals on the host */
    clx_result *results;                /* the largest pass's, for a batch */
    struct displacement_field *fields;  /* per pair: the field being built */
    struct displacement_field *predictors; /* per pair: what the frames are deformed by */
};

void clx_multipass_options_init(clx_multipass_options *o)
{
    memset(o, 0, sizeof *o);
    o->passes = 3;
    o->window[0] = 64;
    o->window[1] = 32;
    o->window[2] = 32;
    o->step = 16;
    o->median_threshold = 2;
    o->median_epsilon = 0.1;
    o->min_zncc = -1;
    o->replace = 1;
    clx_plan_options_init(&o->plan);
}

static int options_check(struct clx_context *ctx, const clx_multipass_options *o, int width, int height)
{
    if (o->passes < 1 || o->passes > MAX_PASSES)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "multi-pass: %d passes, from 1 to %d", o->passes, MAX_PASSES);
    if (o->step < 1 || o->margin < 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "multi-pass: step %d and margin %d: a step of 1 px or more",
                        o->step, o->margin);
    for (int k = 0; k < o->passes; k++) {
        int w = o->window[k];
        if (w < MIN_WINDOW || w + 2 * o->margin > width || w + 2 * o->margin > height)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "multi-pass: pass %d's window of %d px %s", k + 1, w,
                            w < MIN_WINDOW ? "is below 8 px" : "with the margin does not fit in the frames");
        if (k > 0 && w > o->window[k - 1])
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "multi-pass: pass %d's window (%d px) is larger than pass %d's "
                            "(%d px): windows shrink or stay", k + 1, w, k, o->window[k - 1]);
    }
    return CLX_OK;
}

/* Pass k's grid: its window, a step keeping the last pass's overlap ratio,
 * windows from the margin on while they fit. */
static int pass_grid(clx_multipass *mp, int k)
{
    struct pass *p = &mp->passes[k];
    const clx_multipass_options *o = &mp->opt;
    p->window = o->window[k];
    p->step = (int)lround((double)o->step * p->window / o->window[o->passes - 1]);
    if (p->step < 1)
        p->step = 1;
    p->nx = (mp->width - 2 * o->margin - p->window) / p->step + 1;
    p->ny = (mp->height - 2 * o->margin - p->window) / p->step + 1;
    p->cx0 = o->margin + (p->window - 1) / 2.0;
    p->cy0 = o->margin + (p->window - 1) / 2.0;
    p->regions = malloc(sizeof *p->regions * p->nx * p->ny);
    if (!p->regions)
        return ctx_fail(mp->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int j = 0; j < p->ny; j++)
        for (int i = 0; i < p->nx; i++) {
            clx_region *r = &p->regions[j * p->nx + i];
            r->x = o->margin + i * p->step;
            r->y = o->margin + j * p->step;
            r->w = r->h = p->window;
        }
    return CLX_OK;
}

/*
 * Pass k's plan for batches of mp->batch pairs; where the device cannot
 * hold that many, every pass's batch halves (the plans made so far again).
 *
 * The first of several passes correlates without a window function: its
 * frames are not deformed yet, and a Hann window, which weights a window's
 * middle, about halves the displacement a pass can catch. With it, 32 px
 * first passes lost displacements of 8-10 px: --window 32 --passes 3 was
 * at 1.44 px rms (31 px at most) on a 1024 x 1024 pair whose 64,32,32 is
 * at 0.063 px; without, 0.066 px (64,32,32 unchanged). The later passes,
 * which measure what the deformation left, keep opt.plan's window.
 */
static int pass_plan(clx_multipass *mp, int k, const clx_image *shape)
{
    struct pass *p = &mp->passes[k];
    clx_plan_options po = mp->opt.plan;
    po.pairs = 1;
    if (k == 0 && mp->opt.passes > 1)
        po.window = CLX_WINDOW_NONE;
    for (;;) {
        po.batch = mp->batch;
        int status = clx_plan_create(mp->ctx, shape, p->regions, (size_t)p->nx * p->ny, &po, &p->plan);
        if (status != CLX_ERR_DEVICE_MEMORY || mp->batch == 1)
            return status;
        mp->batch /= 2;
        for (int j = 0; j < k; j++) {
            clx_plan_release(mp->passes[j].plan);
            mp->passes[j].plan = NULL;
            po.batch = mp->batch;
            if ((status = clx_plan_create(mp->ctx, shape, mp->passes[j].regions,
                                          (size_t)mp->passes[j].nx * mp->passes[j].ny, &po,
                                          &mp->passes[j].plan)) != CLX_OK)
                return status;
        }
    }
}

static void multipass_free(void *object)
{
    clx_multipass *mp = object;
    if (!mp)
        return;
    clFinish(mp->ctx->queue);
    for (int k = 0; k < MAX_PASSES; k++) {
        clx_plan_release(mp->passes[k].plan);
        free(mp->passes[k].regions);
    }
    bspline_prefilter_destroy(mp->bspline);
    field_warp_destroy(mp->warp);
    cl_mem bufs[] = { mp->frames[0], mp->frames[1], mp->coefficients[0], mp->coefficients[1], mp->deformed[0],
                      mp->deformed[1] };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    for (int i = 0; mp->fields && i < mp->batch; i++) {
        field_free(&mp->fields[i]);
        field_free(&mp->predictors[i]);
    }
    free(mp->fields);
    free(mp->predictors);
    free(mp->results);
    free(mp->staged);
    free(mp);
}

/* The deformation's kernels and the buffers of a batch. */
static int deformation_create(clx_multipass *mp)
{
    struct clx_context *ctx = mp->ctx;
    size_t image = (size_t)mp->width * mp->height * sizeof(float), most = 0;
    int status;
    kernel_params_defaults(&mp->params, &ctx->dev);
    mp->params.win_w = mp->params.win_h = mp->opt.window[0];
    mp->params.interp = INTERP_BSPLINE3;
    for (int k = 0; k < mp->opt.passes; k++)
        if ((size_t)mp->passes[k].nx * mp->passes[k].ny > most)
            most = (size_t)mp->passes[k].nx * mp->passes[k].ny;
    if ((status = bspline_prefilter_create(ctx, &mp->params, &mp->bspline)) != CLX_OK ||
        (status = field_warp_create(ctx, &mp->params, &mp->warp)) != CLX_OK)
        return status;
    for (int f = 0; f < 2; f++)
        if ((status = ctx_create_buffer(ctx, image * mp->batch, &mp->frames[f], "multi-pass frames")) != CLX_OK ||
            (status = ctx_create_buffer(ctx, image * mp->batch, &mp->coefficients[f], "multi-pass coefficients")) ||
            (status = ctx_create_buffer(ctx, image * mp->batch, &mp->deformed[f], "deformed frames")) != CLX_OK)
            return status;
    mp->staged = malloc(image * mp->batch);
    mp->results = malloc(sizeof *mp->results * most * mp->batch);
    mp->fields = calloc((size_t)mp->batch, sizeof *mp->fields);
    mp->predictors = calloc((size_t)mp->batch, sizeof *mp->predictors);
    if (!mp->staged || !mp->results || !mp->fields || !mp->predictors)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    return CLX_OK;
}

int clx_multipass_create(clx_context *ctx, int width, int height, const clx_multipass_options *options,
                         clx_multipass **out)
{
    int status = handle_check(ctx, HANDLE_CONTEXT);
    if (status != CLX_OK)
        return status;
    msg_clear(&ctx->message);
    if (!options || !out)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_multipass_create: NULL argument");
    *out = NULL;
    if ((status = options_check(ctx, options, width, height)) != CLX_OK)
        return status;
    clx_multipass *mp = calloc(1, sizeof *mp);
    if (!mp)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    mp->ctx = ctx;
    mp->opt = *options;
    mp->width = width;
    mp->height = height;
    mp->batch = options->plan.batch > 0 && options->plan.batch < MAX_BATCH ? options->plan.batch : MAX_BATCH;
    /* A blank frame of the right size: the plans of pairs take their size from it. */
    clx_image shape = { width, height, CLX_PIXEL_F32, calloc((size_t)width * height, sizeof(float)) };
    if (!shape.pixels)
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    /* The plans parse the caller's --param string; it is not kept after. */
    mp->opt.plan.params = options->plan.params;
    for (int k = 0; status == CLX_OK && k < options->passes; k++)
        if ((status = pass_grid(mp, k)) == CLX_OK)
            status = pass_plan(mp, k, &shape);
    free(shape.pixels);
    if (status == CLX_OK)
        status = deformation_create(mp);
    if (status == CLX_OK && handle_add(mp, HANDLE_MULTIPASS, ctx, multipass_free) != CLX_OK)
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if (status != CLX_OK) {
        multipass_free(mp);
        return status;
    }
    mp->opt.plan.params = NULL;
    *out = mp;
    return CLX_OK;
}

const clx_region *clx_multipass_regions(const clx_multipass *mp, size_t *count)
{
    if (handle_check(mp, HANDLE_MULTIPASS) != CLX_OK) {
        if (count)
            *count = 0;
        return NULL;
    }
    const struct pass *last = &mp->passes[mp->opt.passes - 1];
    if (count)
        *count = (size_t)last->nx * last->ny;
    return last->regions;
}

const clx_plan *clx_multipass_plan(const clx_multipass *mp, int pass)
{
    if (handle_check(mp, HANDLE_MULTIPASS) != CLX_OK || pass < 0 || pass >= mp->opt.passes)
        return NULL;
    return mp->passes[pass].plan;
}

int clx_multipass_batch_size(const clx_multipass *mp)
{
    return handle_check(mp, HANDLE_MULTIPASS) == CLX_OK ? mp->batch : 0;
}

/* Frames A (f 0) or B (f 1) of the batch to the device as reals, and their
 * B-spline coefficients, for the deformation. */
static int frames_stage(clx_multipass *mp, int f, const clx_image *frames, int n)
{
    struct clx_context *ctx = mp->ctx;
    size_t pixels = (size_t)mp->width * mp->height;
    int status = CLX_OK;
    for (int i = 0; i < n; i++) {
        clx_image dst = { mp->width, mp->height, CLX_PIXEL_F32, mp->staged + (size_t)i * pixels };
        clx_message msg;
        if (clx_image_copy_to(&frames[i], &dst, &msg) != CLX_OK)
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "multi-pass: frame %d: %s", i, msg.text);
    }
    /* Blocking: the staged pixels are rewritten by the other frames. */
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, mp->frames[f], CL_TRUE, 0, sizeof(float) * pixels * n, mp->staged,
                                      0, NULL, NULL));
    status = bspline_prefilter_enqueue(mp->bspline, mp->frames[f], mp->width, mp->height, n, mp->coefficients[f]);
error:
    return status;
}

/* The field's displacement gradient at (x, y), by central differences. */
static void field_gradient(const struct displacement_field *f, double x, double y, double g[4])
{
    double u1, v1, u2, v2;
    field_at(f, x + 1, y, &u1, &v1);
    field_at(f, x - 1, y, &u2, &v2);
    g[0] = (u1 - u2) / 2;
    g[2] = (v1 - v2) / 2;
    field_at(f, x, y + 1, &u1, &v1);
    field_at(f, x, y - 1, &u2, &v2);
    g[1] = (u1 - u2) / 2;
    g[3] = (v1 - v2) / 2;
}

/* The predictor at pass k's window centres, as a field on its grid. */
static int predictor_sample(clx_multipass *mp, int k, const struct displacement_field *pred,
                            struct displacement_field *at)
{
    const struct pass *p = &mp->passes[k];
    if (field_create(at, p->nx, p->ny, p->cx0, p->cy0, p->step, p->step) != CLX_OK)
        return ctx_fail(mp->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int t = 0; t < p->nx * p->ny; t++) {
        field_at(pred, p->cx0 + (t % p->nx) * p->step, p->cy0 + (t / p->nx) * p->step, &at->u[t], &at->v[t]);
        at->valid[t] = 1;
    }
    return CLX_OK;
}

/* Pass k's results of pair i made whole: its residuals plus the predictor
 * at each window's centre (at, from predictor_sample), and the predictor's
 * gradient plus the residual's, to first order. */
static void add_predictor(const clx_multipass *mp, int k, const struct displacement_field *pred,
                          const struct displacement_field *at, clx_result *r)
{
    const struct pass *p = &mp->passes[k];
    for (int t = 0; t < p->nx * p->ny; t++) {
        double x = p->cx0 + (t % p->nx) * p->step, y = p->cy0 + (t / p->nx) * p->step, g[4];
        r[t].dx += at->u[t];
        r[t].dy += at->v[t];
        if (isfinite(r[t].dudx)) {
            field_gradient(pred, x, y, g);
            r[t].dudx += g[0];
            r[t].dudy += g[1];
            r[t].dvdx += g[2];
            r[t].dvdy += g[3];
        }
    }
}

/* Pass k's field of pair i from its results, validated (a deformed pass's
 * against `trend`, the predictor at its windows; NULL for the first);
 * before the last pass, with its gaps filled and smoothed, the next
 * predictor; after it, with opt.replace, the rejected vectors replaced in
 * the results. */
static int field_update(clx_multipass *mp, int k, int i, const struct displacement_field *trend, clx_result *r)
{
    const struct pass *p = &mp->passes[k];
    const clx_multipass_options *o = &mp->opt;
    struct displacement_field *f = &mp->fields[i];
    struct field_validation val = { o->median_threshold, o->median_epsilon, o->min_peak_ratio, o->min_zncc,
                                    o->max_displacement };
    field_free(f);
    if (field_create(f, p->nx, p->ny, p->cx0, p->cy0, p->step, p->step) != CLX_OK)
        return ctx_fail(mp->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    field_from_results(f, r);
    /*
     * A deformed pass is judged on its residuals (what it measured beyond
     * the predictor): the predictor carries the flow's gradients and
     * curvature, which the neighbours' plane fits only in part. And twice:
     * a wild vector pulls that plane (least squares) for its neighbours, so
     * a wild one beside it passes; the second round tests them without it.
     * On a 1024 x 1024 pair of OpenPIV synimagegen's density (0.008
     * particles per px, 10 px displacements) one round left a 2 x 2 cluster
     * unflagged, 6.9 px off (rms 0.17 px over the field); two, rms 0.063
     * px and no error above 0.6 px. Not more: a third round erodes good
     * vectors beside the rejected ones near a vortex core (0.078 px rms
     * against 0.061), as a second one does on the first pass's field, which
     * carries all the curvature (0.0226 against 0.0209 on the test vortex).
     */
    int rounds = trend ? 2 : 1;
    for (int round = 0; round < rounds && field_validate(f, &val, trend, r) > 0; round++)
        ;
    int last = k == o->passes - 1;
    if (last && !o->replace)
        return CLX_OK;
    unsigned char *was_valid = last ? malloc((size_t)p->nx * p->ny) : NULL;
    if (last && !was_valid)
        return ctx_fail(mp->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if (was_valid)
        memcpy(was_valid, f->valid, (size_t)p->nx * p->ny);
    field_replace(f);
    if (last) {
        for (int t = 0; t < p->nx * p->ny; t++)
            if (!was_valid[t]) {
                /* A vector without an offset (no peak) is rejected too: 256 comes with 8. */
                r[t].dx = f->u[t];
                r[t].dy = f->v[t];
                r[t].flags |= CLX_FLAG_OUTLIER | CLX_FLAG_REPLACED;
            }
        free(was_valid);
        return CLX_OK;
    }
    field_smooth(f);
    /* The next pass is deformed by this one. */
    struct displacement_field swap = mp->predictors[i];
    mp->predictors[i] = *f;
    *f = swap;
    return CLX_OK;
}

/* The field at (x, y), beyond the grid's edge continued along its gradient
 * there (holding the edge value would bias a border window by the
 * gradient times the distance, 0.1 px and more). */
static void field_at_extended(const struct displacement_field *f, double x, double y, double *u, double *v)
{
    double x1 = f->x0 + (f->nx - 1) * f->step_x, y1 = f->y0 + (f->ny - 1) * f->step_y;
    double cx = fmin(fmax(x, f->x0), x1), cy = fmin(fmax(y, f->y0), y1);
    field_at(f, cx, cy, u, v);
    if (cx != x) {
        /* One-sided at the edge: the field is held beyond it. */
        double xa = fmax(cx - f->step_x, f->x0), xb = fmin(cx + f->step_x, x1), ua, va, ub, vb;
        field_at(f, xa, cy, &ua, &va);
        field_at(f, xb, cy, &ub, &vb);
        *u += (ub - ua) / (xb - xa) * (x - cx);
        *v += (vb - va) / (xb - xa) * (x - cx);
    }
    if (cy != y) {
        double ya = fmax(cy - f->step_y, f->y0), yb = fmin(cy + f->step_y, y1), ua, va, ub, vb;
        field_at(f, cx, ya, &ua, &va);
        field_at(f, cx, yb, &ub, &vb);
        *u += (ub - ua) / (yb - ya) * (y - cy);
        *v += (vb - va) / (yb - ya) * (y - cy);
    }
}

/* The last pass's results, measured on the midpoint grid (its frames
 * deformed halfway each), as offsets of frame A's points: d_A(x) = d_mid(x
 * + d_A(x)/2) by fixed-point iteration over the field's interpolant (a few
 * steps: each shrinks the error by |grad d|/2), and the gradient G_A = G_mid
 * (I - G_mid/2)^-1 (from dX_mid = (I + G_A/2) dX_A). */
static int reference_frame(clx_multipass *mp, const struct pass *p, clx_result *r)
{
    struct displacement_field mid;
    if (field_create(&mid, p->nx, p->ny, p->cx0, p->cy0, p->step, p->step) != CLX_OK)
        return ctx_fail(mp->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    field_from_results(&mid, r);
    field_replace(&mid);
    for (int t = 0; t < p->nx * p->ny; t++) {
        if (!isfinite(r[t].dx) || !isfinite(r[t].dy))
            continue;
        double x = p->cx0 + (t % p->nx) * p->step, y = p->cy0 + (t / p->nx) * p->step;
        double u = r[t].dx, v = r[t].dy;
        for (int it = 0; it < 6; it++)
            field_at_extended(&mid, x + u / 2, y + v / 2, &u, &v);
        r[t].dx = u;
        r[t].dy = v;
        if (isfinite(r[t].dudx)) {
            /* (I - G/2)^-1 for G = [[a, b], [c, d]]. */
            double a = r[t].dudx, b = r[t].dudy, c = r[t].dvdx, d = r[t].dvdy;
            double m11 = 1 - a / 2, m12 = -b / 2, m21 = -c / 2, m22 = 1 - d / 2, det = m11 * m22 - m12 * m21;
            double i11 = m22 / det, i12 = -m12 / det, i21 = -m21 / det, i22 = m11 / det;
            r[t].dudx = a * i11 + b * i21;
            r[t].dudy = a * i12 + b * i22;
            r[t].dvdx = c * i11 + d * i21;
            r[t].dvdy = c * i12 + d * i22;
        }
    }
    field_free(&mid);
    return CLX_OK;
}

/* Pass k over the batch: pushed (raw frames for the first, deformed ones
 * after), read, made whole and validated; the last of several taken back
 * to frame A's grid. */
static int pass_run(clx_multipass *mp, int k, const clx_image *frames_a, const clx_image *frames_b, int n)
{
    struct pass *p = &mp->passes[k];
    int status;
    if (k == 0)
        status = clx_plan_push_pairs(p->plan, frames_a, frames_b, (size_t)n);
    else if ((status = field_warp_enqueue(mp->warp, mp->coefficients[0], mp->width, mp->height, n, mp->predictors,
                                          -0.5, mp->deformed[0])) == CLX_OK &&
             (status = field_warp_enqueue(mp->warp, mp->coefficients[1], mp->width, mp->height, n, mp->predictors,
                                          0.5, mp->deformed[1])) == CLX_OK)
        status = plan_push_device_pairs(p->plan, mp->deformed[0], mp->deformed[1], CLX_PIXEL_F32, (size_t)n);
    if (status == CLX_OK)
        status = clx_plan_read(p->plan, mp->results, (size_t)n * p->nx * p->ny);
    /* The plan's own neighbour test (ops/outliers.h) judged the pass's
     * offsets with its fixed threshold, whatever opt says, and its flag
     * stayed on vectors that field_update neither rejected nor replaced
     * (flag 8 without 256 in the last pass). Flag 8 is field_update's alone. */
    for (size_t t = 0; status == CLX_OK && t < (size_t)n * p->nx * p->ny; t++)
        mp->results[t].flags &= ~CLX_FLAG_OUTLIER;
    for (int i = 0; status == CLX_OK && i < n; i++) {
        clx_result *r = mp->results + (size_t)i * p->nx * p->ny;
        struct displacement_field at = { 0 };
        if (k > 0 && (status = predictor_sample(mp, k, &mp->predictors[i], &at)) == CLX_OK)
            add_predictor(mp, k, &mp->predictors[i], &at, r);
        if (status == CLX_OK)
            status = field_update(mp, k, i, k > 0 ? &at : NULL, r);
        field_free(&at);
        if (status == CLX_OK && k > 0 && k == mp->opt.passes - 1)
            status = reference_frame(mp, p, r);
    }
    return status;
}

int clx_multipass_run(clx_multipass *mp, const clx_image *frames_a, const clx_image *frames_b, size_t count,
                      clx_result *results, size_t capacity)
{
    int status = handle_check(mp, HANDLE_MULTIPASS);
    if (status != CLX_OK)
        return status;
    struct clx_context *ctx = mp->ctx;
    msg_clear(&ctx->message);
    const struct pass *last = &mp->passes[mp->opt.passes - 1];
    size_t nwin = (size_t)last->nx * last->ny;
    if (!frames_a || !frames_b || !results)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_multipass_run: NULL argument");
    if (count < 1 || count > (size_t)mp->batch)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_multipass_run: %zu pairs; give 1 to %d", count, mp->batch);
    if (capacity < count * nwin)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_multipass_run: room for %zu results, %zu needed", capacity,
                        count * nwin);
    for (size_t i = 0; i < count; i++)
        if (frames_a[i].width != mp->width || frames_a[i].height != mp->height ||
            frames_b[i].width != mp->width || frames_b[i].height != mp->height)
            return ctx_fail(ctx, CLX_ERR_SIZE, "clx_multipass_run: pair %zu is not %dx%d", i, mp->width, mp->height);
    int n = (int)count;
    if (mp->opt.passes > 1 && ((status = frames_stage(mp, 0, frames_a, n)) != CLX_OK ||
                               (status = frames_stage(mp, 1, frames_b, n)) != CLX_OK))
        return status;
    for (int k = 0; status == CLX_OK && k < mp->opt.passes; k++)
        status = pass_run(mp, k, frames_a, frames_b, n);
    if (status == CLX_OK)
        memcpy(results, mp->results, sizeof *results * count * nwin);
    return status;
}

void clx_multipass_release(clx_multipass *mp)
{
    if (mp && handle_remove(mp, HANDLE_MULTIPASS))
        multipass_free(mp);
}
