/* icgn.c - IC-GN refinement on the device (see icgn.h and cl/icgn.cl). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/icgn.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/event_wait.h"
#include "runtime/program_build.h"

static size_t real_size(const struct kernel_params *p)
{
    return p->use_double ? sizeof(double) : sizeof(float);
}

/* Real i of a host array of the working precision. */
static double real_at(const struct icgn *g, const void *a, size_t i)
{
    return g->params.use_double ? ((const double *)a)[i] : ((const float *)a)[i];
}

static void set_real(const struct icgn *g, void *a, size_t i, double v)
{
    if (g->params.use_double)
        ((double *)a)[i] = v;
    else
        ((float *)a)[i] = (float)v;
}

/* icgn_source 1 and 3 read the images through a texture. */
static int reads_texture(const struct kernel_params *p)
{
    return p->icgn_form == 0 && (p->icgn_source == 1 || p->icgn_source == 3);
}

size_t icgn_tile_bytes(const struct kernel_params *p)
{
    return real_size(p) * (2 + ICGN_RESULTS);
}

size_t icgn_window_bytes(const struct kernel_params *p)
{
    size_t npar = ICGN_NPAR(p->shape);
    return real_size(p) * (3 * (size_t)p->win_w * p->win_h + ICGN_CONSTS(npar));
}

/* The symmetric kernel c = a * b (each taps[0 .. radius], taps[k] for
 * the samples k either side; NULL: a single 1) into c[0 .. *rc]. */
static void kernel_convolve(const double *a, int ra, const double *b, int rb, double *c, int *rc)
{
    static const double one = 1;
    if (!a) {
        a = &one;
        ra = 0;
    }
    if (!b) {
        b = &one;
        rb = 0;
    }
    *rc = ra + rb;
    for (int k = 0; k <= *rc; k++) {
        double sum = 0;
        for (int i = -ra; i <= ra; i++) {
            int j = k - i;
            if (j >= -rb && j <= rb)
                sum += a[abs(i)] * b[abs(j)];
        }
        c[k] = sum;
    }
}

/*
 * The noise model (icgn_layout.h): the device evaluates the gains through
 * interp.h's kernel with the filters' combined taps; the correlations are
 * the smoothing's autocorrelation (the interpolants give pixels back at
 * whole pixels, so only the smoothing correlates neighbouring values),
 * cut where they fall below 1e-6 of the centre.
 */
static int noise_model_make(struct icgn *g, const struct icgn_noise_filters *noise)
{
    static const struct icgn_noise_filters white = { NULL, 0, NULL, 0 };
    struct clx_context *ctx = g->ctx;
    const struct kernel_params *p = &g->params;
    size_t rs = real_size(p), global = ICGN_MODEL_RHO;
    if (!noise)
        noise = &white;
    int ntaps = noise->smoothing_radius + noise->spline_radius + 1, radius;
    double *taps = malloc(sizeof *taps * ntaps), rho[ICGN_RHO_MAX + 1];
    void *raw = malloc(rs * (ICGN_RHO_MAX + 1));
    cl_mem taps_buf = NULL;
    cl_kernel k = NULL;
    int status = CLX_OK;
    if (!taps || !raw) {
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto error;
    }
    kernel_convolve(noise->smoothing, noise->smoothing_radius, noise->spline, noise->spline_radius, taps, &radius);
    if ((status = ctx_create_buffer(ctx, rs * ICGN_MODEL_SIZE, &g->noise_model, "IC-GN noise model")) != CLX_OK ||
        (status = ctx_create_reals(ctx, taps, (size_t)radius + 1, p->use_double, &taps_buf, "IC-GN noise filter")) !=
            CLX_OK ||
        (status = program_build_params(ctx, "icgn_noise.cl", &g->params, &g->noise_program)) != CLX_OK ||
        (status = kernel_create(ctx, g->noise_program, "icgn_noise_model", &k)) != CLX_OK)
        goto error;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof taps_buf, &taps_buf));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof radius, &radius));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof g->noise_model, &g->noise_model));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));

    /* The smoothing's autocorrelation, lag by lag. */
    static const double one = 1;
    const double *sm = noise->smoothing ? noise->smoothing : &one;
    int sr = noise->smoothing ? noise->smoothing_radius : 0;
    g->rho_radius = 0;
    for (int d = 0; d <= ICGN_RHO_MAX; d++) {
        double sum = 0;
        for (int i = -sr; i <= sr; i++)
            if (abs(i + d) <= sr)
                sum += sm[abs(i)] * sm[abs(i + d)];
        rho[d] = sum;
        if (d > 0 && fabs(sum) > 1e-6 * rho[0])
            g->rho_radius = d;
    }
    for (int d = 0; d <= ICGN_RHO_MAX; d++)
        set_real(g, raw, (size_t)d, d <= g->rho_radius ? rho[d] : 0);
    /* Blocking: the kernel must be done with taps_buf before it goes. */
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, g->noise_model, CL_TRUE, rs * ICGN_MODEL_RHO,
                                      rs * (ICGN_RHO_MAX + 1), raw, 0, NULL, NULL));
    CL_CALL(ctx, clFinish(ctx->queue));
error:
    if (k)
        clReleaseKernel(k);
    if (taps_buf)
        clReleaseMemObject(taps_buf);
    free(taps);
    free(raw);
    return status;
}

/*
 * The vector form's work-items per work-group. Left to the runtime, PoCL
 * picked groups of thousands for a PIV batch's tiles and ran out of stack
 * for their private sums; a small fixed group keeps each group's private
 * memory small, and the kernels return at once past the last tile.
 */
#define VECTOR_WG 8

/* The work-items for n tiles or windows in p's form, and the group size. */
static void nd_range(const struct kernel_params *p, int n, size_t *global, size_t *local)
{
    *local = p->icgn_form == 1 ? VECTOR_WG : (size_t)p->icgn_wg;
    *global = p->icgn_form == 1 ? ((size_t)n + VECTOR_WG - 1) / VECTOR_WG * VECTOR_WG : *local * n;
}

/* The reference's and the iterations' kernels in the form p->icgn_form names
 * (only that form's program is built: a first run compiles what it uses). */
static int create_kernels(struct icgn *g)
{
    int status;
    if (g->params.icgn_form == 0) {
        if ((status = program_build_params(g->ctx, "icgn.cl", &g->params, &g->program)) != CLX_OK ||
            (status = kernel_create(g->ctx, g->program, "icgn_reference", &g->reference)) != CLX_OK)
            return status;
        return kernel_create(g->ctx, g->program, "icgn_iterate", &g->iterate);
    }
    if ((status = program_build_params(g->ctx, "icgn_vector.cl", &g->params, &g->vector_program)) != CLX_OK ||
        (status = kernel_create(g->ctx, g->vector_program, "icgn_reference_vector", &g->reference)) != CLX_OK)
        return status;
    return kernel_create(g->ctx, g->vector_program, "icgn_iterate_vector", &g->iterate);
}

int icgn_create(struct clx_context *ctx, const struct kernel_params *p, int nwin, int nref, int ntiles,
                const struct icgn_noise_filters *noise, struct icgn **out)
{
    size_t rs = real_size(p), window = (size_t)p->win_w * p->win_h;
    int status;

    *out = NULL;
    if (p->icgn_source != 0 && p->icgn_form != 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "icgn_source=%d chooses where icgn_form=0 samples; icgn_form=%d has "
                        "its own way", p->icgn_source, p->icgn_form);
    if (reads_texture(p) && p->use_double)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "IC-GN's texture (icgn_source=%d) reads floats: not with --double",
                        p->icgn_source);
    struct icgn *g = calloc(1, sizeof *g);
    if (!g)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    g->ctx = ctx;
    g->params = *p;
    g->nwin = nwin;
    g->nref = nref;
    g->ntiles = ntiles;
    g->starts_host = malloc(2 * rs * ntiles);
    g->results_host = malloc(ICGN_RESULTS * rs * ntiles);
    if (!g->starts_host || !g->results_host) {
        status = ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto fail;
    }
    if ((status = create_kernels(g)) != CLX_OK ||
        (status = ctx_create_buffer(ctx, rs * nref * window, &g->fref, "IC-GN reference windows")) != CLX_OK ||
        (status = ctx_create_buffer(ctx, 2 * rs * nref * window, &g->grad, "IC-GN reference gradients")) ||
        (status = ctx_create_buffer(ctx, rs * nref * ICGN_CONSTS(ICGN_NPAR(p->shape)), &g->consts,
                                    "IC-GN reference sums")) != CLX_OK ||
        (status = ctx_create_buffer(ctx, 2 * rs * ntiles, &g->starts, "IC-GN start offsets")) != CLX_OK ||
        (status = ctx_create_buffer(ctx, ICGN_RESULTS * rs * ntiles, &g->results, "IC-GN results")) != CLX_OK ||
        (status = noise_model_make(g, noise)) != CLX_OK)
        goto fail;
    *out = g;
    return CLX_OK;
fail:
    icgn_destroy(g);
    return status;
}

int icgn_set_reference(struct icgn *g, cl_mem source, int w, int h, cl_mem corners, int nimages)
{
    struct clx_context *ctx = g->ctx;
    /* The vector form: one work-item per reference window. */
    const int vector = g->params.icgn_form == 1, nref = g->nwin * nimages;
    size_t local, global;
    nd_range(&g->params, nref, &global, &local);
    cl_kernel k = g->reference;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof source, &source));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof h, &h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof corners, &corners));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof g->nwin, &g->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof g->fref, &g->fref));
    CL_CALL(ctx, clSetKernelArg(k, 6, sizeof g->grad, &g->grad));
    CL_CALL(ctx, clSetKernelArg(k, 7, sizeof g->consts, &g->consts));
    CL_CALL(ctx, clSetKernelArg(k, 8, sizeof g->noise_model, &g->noise_model));
    CL_CALL(ctx, clSetKernelArg(k, 9, sizeof g->rho_radius, &g->rho_radius));
    if (vector)
        CL_CALL(ctx, clSetKernelArg(k, 10, sizeof nref, &nref));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
error:
    return status;
}

void icgn_results(const struct icgn *g, int ntiles, struct icgn_result *out)
{
    for (int t = 0; t < ntiles; t++) {
        size_t b = (size_t)t * ICGN_RESULTS;
        const void *r = g->results_host;
        struct icgn_result *o = &out[t];
        o->u = real_at(g, r, b + ICGN_R_U);
        o->v = real_at(g, r, b + ICGN_R_V);
        o->ux = real_at(g, r, b + ICGN_R_UX);
        o->uy = real_at(g, r, b + ICGN_R_UY);
        o->vx = real_at(g, r, b + ICGN_R_VX);
        o->vy = real_at(g, r, b + ICGN_R_VY);
        o->zncc = real_at(g, r, b + ICGN_R_ZNCC);
        o->sigma_u = real_at(g, r, b + ICGN_R_SIGMA_U);
        o->sigma_v = real_at(g, r, b + ICGN_R_SIGMA_V);
        o->iterations = (int)real_at(g, r, b + ICGN_R_ITERATIONS);
        o->status = (int)real_at(g, r, b + ICGN_R_STATUS);
    }
}

/* The texture: a 1D image over all of `source` (no copy). */
static int texture_for(struct icgn *g, cl_mem source)
{
    struct clx_context *ctx = g->ctx;
    size_t bytes = 0, texels;
    int status = CLX_OK;
    CL_CALL(ctx, clGetMemObjectInfo(source, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    texels = bytes / sizeof(cl_float);
    if (!ctx->dev.image_support || texels > ctx->dev.image_max_buffer)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "IC-GN's texture (icgn_source=%d) needs an image over %zu texels; "
                        "%s offers %zu: a smaller batch, or icgn_source=0 or 2", g->params.icgn_source, texels,
                        ctx->dev.info.name, ctx->dev.image_support ? ctx->dev.image_max_buffer : (size_t)0);
    status = ctx_float_image_over(ctx, source, texels, &g->texture, &g->texture_of, "IC-GN's texture over the images");
error:
    return status;
}

int icgn_enqueue(struct icgn *g, cl_mem source, int w, int h, cl_mem corners, int ntiles, int max_iter, double tol,
                 cl_event *done)
{
    struct clx_context *ctx = g->ctx;
    const struct kernel_params *p = &g->params;
    size_t rs = real_size(p), local, global;
    nd_range(p, ntiles, &global, &local);
    cl_kernel k = g->iterate;
    cl_float tol_f = (cl_float)tol;
    cl_double tol_d = tol;
    int status = CLX_OK;

    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof source, &source));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof h, &h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof corners, &corners));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof g->nwin, &g->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof g->nref, &g->nref));
    CL_CALL(ctx, clSetKernelArg(k, 6, sizeof g->fref, &g->fref));
    CL_CALL(ctx, clSetKernelArg(k, 7, sizeof g->grad, &g->grad));
    CL_CALL(ctx, clSetKernelArg(k, 8, sizeof g->consts, &g->consts));
    CL_CALL(ctx, clSetKernelArg(k, 9, sizeof g->noise_model, &g->noise_model));
    CL_CALL(ctx, clSetKernelArg(k, 10, sizeof g->starts, &g->starts));
    CL_CALL(ctx, clSetKernelArg(k, 11, sizeof max_iter, &max_iter));
    if (p->use_double)
        CL_CALL(ctx, clSetKernelArg(k, 12, sizeof tol_d, &tol_d));
    else
        CL_CALL(ctx, clSetKernelArg(k, 12, sizeof tol_f, &tol_f));
    CL_CALL(ctx, clSetKernelArg(k, 13, sizeof g->results, &g->results));
    if (p->icgn_form == 1)
        CL_CALL(ctx, clSetKernelArg(k, 14, sizeof ntiles, &ntiles));
    if (reads_texture(p)) {
        if ((status = texture_for(g, source)) != CLX_OK)
            return status;
        CL_CALL(ctx, clSetKernelArg(k, 14, sizeof g->texture, &g->texture));
    }
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    /* Profiled bytes: the windows' taps are read from cache; count each
     * window's reference data and image window once per iteration. */
    ctx_profile_mark(ctx, "refine", 4.0 * ntiles * p->win_w * p->win_h * rs);
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, g->results, CL_FALSE, 0, ICGN_RESULTS * rs * ntiles,
                                     g->results_host, 0, NULL, done));
error:
    return status;
}

int icgn_run(struct icgn *g, cl_mem source, int w, int h, cl_mem corners, int ntiles, const double *start_u,
             const double *start_v, int max_iter, double tol, struct icgn_result *out)
{
    struct clx_context *ctx = g->ctx;
    size_t rs = real_size(&g->params);
    cl_event done = NULL;
    int status = CLX_OK;

    if (ntiles <= 0)
        return CLX_OK;
    for (int t = 0; t < ntiles; t++) {
        set_real(g, g->starts_host, 2 * (size_t)t, start_u[t]);
        set_real(g, g->starts_host, 2 * (size_t)t + 1, start_v[t]);
    }
    /* The host may have worked since the last enqueue: that time is nobody's stage. */
    ctx_profile_begin(ctx);
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, g->starts, CL_FALSE, 0, 2 * rs * ntiles, g->starts_host, 0, NULL,
                                      NULL));
    if ((status = icgn_enqueue(g, source, w, h, corners, ntiles, max_iter, tol, &done)) != CLX_OK)
        goto error;
    if ((status = event_wait(ctx, done)) != CLX_OK)
        goto error;
    icgn_results(g, ntiles, out);
error:
    if (done)
        clReleaseEvent(done);
    return status;
}

void icgn_destroy(struct icgn *g)
{
    if (!g)
        return;
    if (g->reference)
        clReleaseKernel(g->reference);
    if (g->iterate)
        clReleaseKernel(g->iterate);
    if (g->texture)
        clReleaseMemObject(g->texture);
    if (g->program)
        clReleaseProgram(g->program);
    if (g->vector_program)
        clReleaseProgram(g->vector_program);
    if (g->noise_program)
        clReleaseProgram(g->noise_program);
    cl_mem bufs[] = { g->fref, g->grad, g->consts, g->noise_model, g->starts, g->results };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(g->starts_host);
    free(g->results_host);
    free(g);
}
