/*
 * warp.c - clx_warp: a pattern resampled through a projective map on the
 * device (cl/warp_pattern.cl), for HR-EBSD remapping: the test pattern is
 * seen through the inverse of its measured rotation and correlated again.
 * One program per input pixel type, built on first use; the device
 * buffers grow to the largest pattern seen and are kept.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "params/kernel_params.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/program_build.h"

#define WARP_TX 16
#define WARP_TY 8

struct clx_warp {
    struct clx_context *ctx;
    cl_program programs[3];     /* by input pixel type - 1 */
    cl_kernel kernels[3];
    cl_mem input, output, matrix;
    size_t input_bytes, output_bytes, matrix_bytes;
};

static void warp_destroy(void *object)
{
    struct clx_warp *w = object;
    if (!w)
        return;
    for (int t = 0; t < 3; t++) {
        if (w->kernels[t])
            clReleaseKernel(w->kernels[t]);
        if (w->programs[t])
            clReleaseProgram(w->programs[t]);
    }
    cl_mem bufs[] = { w->input, w->output, w->matrix };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(w);
}

int clx_warp_create(clx_context *ctx, clx_warp **out)
{
    int status = handle_check(ctx, HANDLE_CONTEXT);
    if (status != CLX_OK)
        return status;
    if (!out)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_warp_create: NULL argument");
    struct clx_warp *w = calloc(1, sizeof *w);
    if (!w || handle_add(w, HANDLE_WARP, ctx, warp_destroy) != CLX_OK) {
        free(w);
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    w->ctx = ctx;
    *out = w;
    return CLX_OK;
}

void clx_warp_release(clx_warp *w)
{
    /* A warp released twice, or never created, is left alone. */
    if (w && handle_remove(w, HANDLE_WARP))
        warp_destroy(w);
}

/* The kernel for input pixels of `type`, built on first use. */
static int warp_kernel(struct clx_warp *w, clx_pixel_type type, cl_kernel *kernel)
{
    int t = (int)type - 1, status = CLX_OK;
    if (!w->kernels[t]) {
        struct kernel_params p;
        kernel_params_defaults(&p, &w->ctx->dev);
        p.pixel = type;
        /* The warp reads the pattern's pixels, which the B-splines cannot
         * (they need its coefficients): Lanczos-3, whatever the default. */
        p.interp = INTERP_LANCZOS3;
        if ((status = program_build_params(w->ctx, "warp_pattern.cl", &p, &w->programs[t])) == CLX_OK)
            status = kernel_create(w->ctx, w->programs[t], "warp_pattern", &w->kernels[t]);
    }
    *kernel = w->kernels[t];
    return status;
}

int clx_warp_apply(clx_warp *w, const clx_image *input, const double h[9], clx_image *output)
{
    int status = handle_check(w, HANDLE_WARP);
    if (status != CLX_OK)
        return status;
    struct clx_context *ctx = w->ctx;
    if (!input || !h || !output)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_warp_apply: NULL argument");
    memset(output, 0, sizeof *output);
    if (!input->pixels || input->width < 1 || input->height < 1 || input->type < CLX_PIXEL_U8 ||
        input->type > CLX_PIXEL_F32)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_warp_apply: an empty input image or an unknown pixel type");
    for (int i = 0; i < 9; i++)
        if (!isfinite(h[i]))
            return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_warp_apply: the map's element %d is not finite", i);

    cl_kernel k;
    int W = input->width, H = input->height;
    size_t n = (size_t)W * H, in_bytes = n * clx_pixel_size(input->type), out_bytes = n * sizeof(float);
    if ((status = warp_kernel(w, input->type, &k)) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->input, &w->input_bytes, in_bytes, "warp", "input")) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->output, &w->output_bytes, out_bytes, "warp", "output")) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->matrix, &w->matrix_bytes, 9 * sizeof(float), "warp", "map")) != CLX_OK)
        return status;
    /* The kernel works in single precision (its reals are floats): pixel
     * positions to about 1e-4 px over a 1000 px pattern. */
    float m[9];
    for (int i = 0; i < 9; i++)
        m[i] = (float)h[i];
    clx_message msg;
    if ((status = clx_image_alloc(output, W, H, CLX_PIXEL_F32, &msg)) != CLX_OK)
        return ctx_fail(ctx, status, "%s", msg.text);
    size_t global[2] = { (size_t)(W + WARP_TX - 1) / WARP_TX * WARP_TX, (size_t)(H + WARP_TY - 1) / WARP_TY * WARP_TY };
    size_t local[2] = { WARP_TX, WARP_TY };
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, w->input, CL_FALSE, 0, in_bytes, input->pixels, 0, NULL, NULL));
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, w->matrix, CL_FALSE, 0, sizeof m, m, 0, NULL, NULL));
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof(cl_mem), &w->input));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof(int), &W));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof(int), &H));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof(cl_mem), &w->matrix));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof(cl_mem), &w->output));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, global, local, 0, NULL, NULL));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, w->output, CL_TRUE, 0, n * sizeof(float), output->pixels, 0, NULL,
                                     NULL));
    return CLX_OK;
error:
    clx_image_free(output);
    return status;
}
