/* field_warp.c - images deformed by displacement fields on the device (see field_warp.h). */
#include "config.h"

#include <stdlib.h>

#include "ops/field_warp.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

static size_t real_size(const struct field_warp *fw)
{
    return fw->params.use_double ? sizeof(double) : sizeof(float);
}

int field_warp_create(struct clx_context *ctx, const struct kernel_params *p, struct field_warp **out)
{
    *out = NULL;
    struct field_warp *fw = calloc(1, sizeof *fw);
    if (!fw)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    fw->ctx = ctx;
    fw->params = *p;
    int status = program_build_params(ctx, "field_warp.cl", p, &fw->program);
    if (status == CLX_OK)
        status = kernel_create(ctx, fw->program, "field_warp", &fw->kernel);
    if (status != CLX_OK) {
        field_warp_destroy(fw);
        return status;
    }
    *out = fw;
    return CLX_OK;
}

/* The fields as the kernel reads them: per image u then v, in reals. */
static int fields_upload(struct field_warp *fw, const struct displacement_field *fields, int nimages)
{
    struct clx_context *ctx = fw->ctx;
    size_t n = (size_t)fields[0].nx * fields[0].ny, rs = real_size(fw), bytes = 2 * n * rs * nimages;
    int status = ctx_buffer_reserve(ctx, &fw->fields, &fw->fields_bytes, bytes, "deforming multi-pass",
                                    "displacement fields");
    if (status != CLX_OK)
        return status;
    void *host = realloc(fw->fields_host, bytes);
    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    fw->fields_host = host;
    for (int i = 0; i < nimages; i++)
        for (size_t k = 0; k < n; k++) {
            size_t at = 2 * n * (size_t)i + k;
            if (fw->params.use_double) {
                ((double *)host)[at] = fields[i].u[k];
                ((double *)host)[at + n] = fields[i].v[k];
            } else {
                ((float *)host)[at] = (float)fields[i].u[k];
                ((float *)host)[at + n] = (float)fields[i].v[k];
            }
        }
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, fw->fields, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
error:
    return status;
}

/* A real kernel argument in the working precision. */
static cl_int set_real(struct field_warp *fw, cl_uint index, double v)
{
    cl_float f = (cl_float)v;
    cl_double d = v;
    return fw->params.use_double ? clSetKernelArg(fw->kernel, index, sizeof d, &d)
                                 : clSetKernelArg(fw->kernel, index, sizeof f, &f);
}

int field_warp_enqueue(struct field_warp *fw, cl_mem src, int w, int h, int nimages,
                       const struct displacement_field *fields, double scale, cl_mem out)
{
    struct clx_context *ctx = fw->ctx;
    cl_kernel k = fw->kernel;
    int status = fields_upload(fw, fields, nimages);
    if (status != CLX_OK)
        return status;
    const struct displacement_field *f = &fields[0];
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof src, &src));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof h, &h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof fw->fields, &fw->fields));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof f->nx, &f->nx));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof f->ny, &f->ny));
    CL_CALL(ctx, set_real(fw, 6, f->x0));
    CL_CALL(ctx, set_real(fw, 7, f->y0));
    CL_CALL(ctx, set_real(fw, 8, f->step_x));
    CL_CALL(ctx, set_real(fw, 9, f->step_y));
    CL_CALL(ctx, set_real(fw, 10, scale));
    CL_CALL(ctx, clSetKernelArg(k, 11, sizeof out, &out));
    size_t global[3] = { (size_t)w, (size_t)h, (size_t)nimages };
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 3, NULL, global, NULL, 0, NULL, NULL));
    ctx_profile_mark(ctx, "deform", 2.0 * nimages * w * h * real_size(fw));
error:
    return status;
}

void field_warp_destroy(struct field_warp *fw)
{
    if (!fw)
        return;
    if (fw->kernel)
        clReleaseKernel(fw->kernel);
    if (fw->program)
        clReleaseProgram(fw->program);
    if (fw->fields)
        clReleaseMemObject(fw->fields);
    free(fw->fields_host);
    free(fw);
}
