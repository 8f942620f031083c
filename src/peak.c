/* peak.c - enqueueing argmax.cl and neighbourhood.cl; decoding peak indices. */
#include "config.h"

#include <string.h>

#include "cl_error.h"
#include "context.h"
#include "peak.h"

int peak_finder_build(struct clx_context *ctx, const struct kernel_params *p, struct peak_finder *pf)
{
    int status;
    memset(pf, 0, sizeof *pf);
    pf->params = *p;
    if ((status = program_build(ctx, "argmax.cl", p, &pf->argmax_program)) != CLX_OK ||
        (status = kernel_create(ctx, pf->argmax_program, "argmax", &pf->argmax)) != CLX_OK ||
        (status = kernel_create(ctx, pf->argmax_program, "second_peak", &pf->second_peak)) != CLX_OK ||
        (status = program_build(ctx, "neighbourhood.cl", p, &pf->neighbourhood_program)) != CLX_OK ||
        (status = kernel_create(ctx, pf->neighbourhood_program, "neighbourhood", &pf->neighbourhood)) != CLX_OK) {
        peak_finder_release(pf);
        return status;
    }
    return CLX_OK;
}

int peak_finder_enqueue(struct clx_context *ctx, struct peak_finder *pf, cl_mem corr, int ntiles,
                        cl_mem peaks, cl_mem neighbourhoods, cl_mem second)
{
    int status = CLX_OK;
    cl_kernel k = pf->argmax;
    size_t wg = (size_t)pf->params.argmax_wg;
    size_t global = wg * ntiles;

    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof corr, &corr));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL));

    if (second) {
        k = pf->second_peak;
        CL_CALL(ctx, clSetKernelArg(k, 0, sizeof corr, &corr));
        CL_CALL(ctx, clSetKernelArg(k, 1, sizeof peaks, &peaks));
        CL_CALL(ctx, clSetKernelArg(k, 2, sizeof second, &second));
        CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL));
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
    if (pf->second_peak)
        clReleaseKernel(pf->second_peak);
    if (pf->neighbourhood)
        clReleaseKernel(pf->neighbourhood);
    if (pf->argmax_program)
        clReleaseProgram(pf->argmax_program);
    if (pf->neighbourhood_program)
        clReleaseProgram(pf->neighbourhood_program);
    memset(pf, 0, sizeof *pf);
}
