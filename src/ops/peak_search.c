/* peak_search.c - enqueueing argmax.cl and neighbourhood.cl; decoding peak indices. */
#include "config.h"

#include <string.h>

#include "ops/peak_search.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/* The kernels of each argmax form: the search, and the one that finishes it (form 0: none). */
static const char *const argmax_kernels[4][2] = {
    { "argmax", NULL },
    { "argmax_parts", "argmax_combine" },
    { "argmax_atomic", "argmax_unpack" },
    { "argmax_rows", NULL },
};

/* One work-item per tile, in work-groups the driver picks: ntiles rounded up to 64. */
static size_t one_per_tile(int ntiles)
{
    return ((size_t)ntiles + 63) / 64 * 64;
}

int peak_finder_build(struct clx_context *ctx, const struct kernel_params *p, int max_tiles, int parts_per_tile,
                      struct peak_finder *pf)
{
    const char *search = argmax_kernels[p->argmax_form][0], *finish = argmax_kernels[p->argmax_form][1];
    size_t rs = p->use_double ? sizeof(double) : sizeof(float);
    int status;
    memset(pf, 0, sizeof *pf);
    pf->params = *p;
    pf->parts_per_tile = p->argmax_form == 3 ? 0 : parts_per_tile;
    /* The pairs buffers serve the correlator's search and form 1's parts alike. */
    int per_tile = p->argmax_form == 1 && p->argmax_parts > pf->parts_per_tile ? p->argmax_parts : pf->parts_per_tile;
    size_t parts = (size_t)max_tiles * per_tile;
    if ((status = program_build_params(ctx, "argmax.cl", p, &pf->argmax_program)) != CLX_OK ||
        (status = kernel_create(ctx, pf->argmax_program, search, &pf->argmax)) != CLX_OK ||
        (finish && (status = kernel_create(ctx, pf->argmax_program, finish, &pf->argmax_finish)) != CLX_OK) ||
        (status = kernel_create(ctx, pf->argmax_program, p->argmax_form == 3 ? "argmax_second_rows" : "second_peak",
                                &pf->second_peak)) != CLX_OK ||
        (status = program_build_params(ctx, "neighbourhood.cl", p, &pf->neighbourhood_program)) != CLX_OK ||
        (status = kernel_create(ctx, pf->neighbourhood_program, "neighbourhood", &pf->neighbourhood)) != CLX_OK ||
        (pf->parts_per_tile > 0 &&
         (status = kernel_create(ctx, pf->argmax_program, "argmax_combine", &pf->combine)) != CLX_OK) ||
        (parts > 0 &&
         ((status = ctx_create_buffer(ctx, rs * parts, &pf->part_values, "argmax partial values")) != CLX_OK ||
          (status = ctx_create_buffer(ctx, sizeof(cl_int) * parts, &pf->part_indices, "argmax partial indices")) !=
              CLX_OK)) ||
        (p->argmax_form == 2 &&
         (status = ctx_create_buffer(ctx, sizeof(cl_ulong) * max_tiles, &pf->packed, "packed argmax words")) !=
             CLX_OK)) {
        peak_finder_release(pf);
        return status;
    }
    return CLX_OK;
}

void peak_finder_parts(const struct peak_finder *pf, struct peak_parts *parts)
{
    parts->values = pf->part_values;
    parts->indices = pf->part_indices;
    parts->search_rx = pf->params.search_rx;
    parts->search_ry = pf->params.search_ry;
    parts->win_w = pf->params.win_w;
    parts->win_h = pf->params.win_h;
}

/* argmax_combine over `parts` pairs per tile into `peaks`. */
static int combine_enqueue(struct clx_context *ctx, struct peak_finder *pf, cl_kernel k, cl_int parts, int ntiles,
                           cl_mem peaks)
{
    size_t global = one_per_tile(ntiles);
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof pf->part_values, &pf->part_values));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof pf->part_indices, &pf->part_indices));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof peaks, &peaks));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof ntiles, &ntiles));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof parts, &parts));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
error:
    return status;
}

/* Each tile's logical peak index into `peaks`, by pf's argmax form. */
static int argmax_enqueue(struct clx_context *ctx, struct peak_finder *pf, cl_mem corr, int ntiles, cl_mem peaks)
{
    const struct kernel_params *p = &pf->params;
    int status = CLX_OK;
    cl_kernel k = pf->argmax;
    size_t wg = (size_t)p->argmax_wg;
    size_t global = wg * ntiles * (p->argmax_form == 0 ? 1 : (size_t)p->argmax_parts);
    size_t finish_global = one_per_tile(ntiles);

    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof corr, &corr));
    if (p->argmax_form == 3) {
        CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
        CL_CALL(ctx, clSetKernelArg(k, 2, sizeof ntiles, &ntiles));
        CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &finish_global, NULL, 0, NULL, NULL));
        return CLX_OK;
    }
    if (p->argmax_form == 0) {
        CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
    } else if (p->argmax_form == 1) {
        CL_CALL(ctx, clSetKernelArg(k, 1, sizeof pf->part_values, &pf->part_values));
        CL_CALL(ctx, clSetKernelArg(k, 2, sizeof pf->part_indices, &pf->part_indices));
    } else {
        /* 0 is below every packed pair: what argmax_unpack reads as "no peak". */
        const cl_ulong none = 0;
        CL_CALL(ctx, clEnqueueFillBuffer(ctx->queue, pf->packed, &none, sizeof none, 0, sizeof none * ntiles, 0, NULL,
                                         NULL));
        CL_CALL(ctx, clSetKernelArg(k, 1, sizeof pf->packed, &pf->packed));
    }
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL));
    if (p->argmax_form == 0)
        return CLX_OK;

    k = pf->argmax_finish;
    if (p->argmax_form == 1)
        return combine_enqueue(ctx, pf, k, p->argmax_parts, ntiles, peaks);
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof pf->packed, &pf->packed));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof ntiles, &ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &finish_global, NULL, 0, NULL, NULL));
error:
    return status;
}

int peak_finder_enqueue(struct clx_context *ctx, struct peak_finder *pf, cl_mem corr, int ntiles, int searched,
                        cl_mem peaks, cl_mem neighbourhoods, cl_mem second)
{
    /* Form 3 with a second peak: argmax_second_rows does both, one work-item per tile. */
    const int fused = second && pf->params.argmax_form == 3;
    int status = CLX_OK;
    if (searched && pf->parts_per_tile <= 0)
        return ctx_fail(ctx, CLX_ERR_STATE, "internal: the peak finder keeps no correlator's pairs");
    if (searched)
        status = combine_enqueue(ctx, pf, pf->combine, pf->parts_per_tile, ntiles, peaks);
    else if (!fused)
        status = argmax_enqueue(ctx, pf, corr, ntiles, peaks);
    cl_kernel k;
    size_t wg = (size_t)pf->params.argmax_wg;
    size_t global = wg * ntiles;

    if (status != CLX_OK)
        return status;
    if (second) {
        k = pf->second_peak;
        CL_CALL(ctx, clSetKernelArg(k, 0, sizeof corr, &corr));
        CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
        CL_CALL(ctx, clSetKernelArg(k, 2, sizeof second, &second));
        if (fused) {
            size_t tiles = one_per_tile(ntiles);
            CL_CALL(ctx, clSetKernelArg(k, 3, sizeof ntiles, &ntiles));
            CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &tiles, NULL, 0, NULL, NULL));
        } else {
            CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL));
        }
    }

    k = pf->neighbourhood;
    size_t nb_global[2] = { (size_t)pf->params.fit_size * pf->params.fit_size, (size_t)ntiles };
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof corr, &corr));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof neighbourhoods, &neighbourhoods));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof ntiles, &ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, nb_global, NULL, 0, NULL, NULL));
error:
    return status;
}

void peak_index_to_shift(int index, int w, int h, int *ux, int *uy)
{
    int kx = index % (2 * w), ky = index / (2 * w);
    *ux = kx < w ? kx : kx - 2 * w;
    *uy = ky < h ? ky : ky - 2 * h;
}

void peak_finder_release(struct peak_finder *pf)
{
    if (pf->argmax)
        clReleaseKernel(pf->argmax);
    if (pf->argmax_finish)
        clReleaseKernel(pf->argmax_finish);
    if (pf->combine)
        clReleaseKernel(pf->combine);
    if (pf->second_peak)
        clReleaseKernel(pf->second_peak);
    if (pf->neighbourhood)
        clReleaseKernel(pf->neighbourhood);
    if (pf->argmax_program)
        clReleaseProgram(pf->argmax_program);
    if (pf->neighbourhood_program)
        clReleaseProgram(pf->neighbourhood_program);
    cl_mem scratch[] = { pf->part_values, pf->part_indices, pf->packed };
    for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
        if (scratch[i])
            clReleaseMemObject(scratch[i]);
    memset(pf, 0, sizeof *pf);
}
