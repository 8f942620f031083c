/* peak_offsets.c - a stage's offsets on the device: cl/peak_offsets.cl's host side. */
#include "config.h"

#include <string.h>

#include "ops/peak_offsets.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/* The estimator's pseudo-inverse as the kernel's reals (one unused value
 * for estimators without one: a kernel argument must be a buffer). */
static int upload_pinv(struct clx_context *ctx, const struct kernel_params *p, const struct subpixel *fit,
                       cl_mem *out)
{
    static const double none = 0;
    if (!fit->pinv)
        return ctx_create_reals(ctx, &none, 1, p->use_double, out, "sub-pixel fit");
    return ctx_create_reals(ctx, fit->pinv, 6 * (size_t)fit->size * fit->size, p->use_double, out, "sub-pixel fit");
}

int peak_offsets_create(struct clx_context *ctx, const struct kernel_params *p, const struct subpixel *estimator,
                        const struct subpixel *fallback, struct peak_offsets *out)
{
    int status;
    memset(out, 0, sizeof *out);
    out->kind = (int)estimator->kind;
    out->fallback = (int)fallback->kind;
    if ((status = program_build_params(ctx, "peak_offsets.cl", p, &out->program)) != CLX_OK ||
        (status = kernel_create(ctx, out->program, "peak_offsets", &out->kernel)) != CLX_OK ||
        (status = upload_pinv(ctx, p, estimator, &out->pinv)) != CLX_OK ||
        (status = upload_pinv(ctx, p, fallback, &out->fallback_pinv)) != CLX_OK) {
        peak_offsets_release(out);
        return status;
    }
    return CLX_OK;
}

int peak_offsets_enqueue(struct clx_context *ctx, struct peak_offsets *po, cl_mem peaks, cl_mem neighbourhoods,
                         int ntiles, cl_mem offsets)
{
    cl_kernel k = po->kernel;
    size_t global = ((size_t)ntiles + 63) / 64 * 64;
    int status = CLX_OK;
    if (ntiles <= 0)
        return CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof peaks, &peaks));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof neighbourhoods, &neighbourhoods));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof ntiles, &ntiles));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof po->kind, &po->kind));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof po->pinv, &po->pinv));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof po->fallback, &po->fallback));
    CL_CALL(ctx, clSetKernelArg(k, 6, sizeof po->fallback_pinv, &po->fallback_pinv));
    CL_CALL(ctx, clSetKernelArg(k, 7, sizeof offsets, &offsets));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
error:
    return status;
}

void peak_offsets_release(struct peak_offsets *po)
{
    if (po->kernel)
        clReleaseKernel(po->kernel);
    if (po->program)
        clReleaseProgram(po->program);
    if (po->pinv)
        clReleaseMemObject(po->pinv);
    if (po->fallback_pinv)
        clReleaseMemObject(po->fallback_pinv);
    memset(po, 0, sizeof *po);
}
