/*
 * warp.c - clx_warp: a pattern resampled through a projective map on the
 * device (cl/warp_pattern.cl), for HR-EBSD remapping: the test pattern is
 * seen through the inverse of its measured deformation and correlated
 * again. The pattern is interpolated with a quintic B-spline of the warp's
 * own, whatever the refinement's interpolation (--interp, Lanczos-3 by
 * default): uploaded as floats, turned into its coefficients by the
 * B-spline prefilter (bspline_prefilter.c), then sampled, mirrored at its
 * borders as the prefilter assumes. Lanczos-3 would leave its own sub-pixel
 * bias in every remapped pattern, and the remapped strain would keep it.
 * Built on first use; the device buffers grow to the largest pattern seen
 * and are kept.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/bspline_prefilter.h"
#include "params/kernel_params.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/program_build.h"

#define WARP_TX 16
#define WARP_TY 8

struct clx_warp {
    struct clx_context *ctx;
    struct bspline_prefilter *prefilter;
    cl_program program;
    cl_kernel kernel;
    cl_mem input, coefficients, output, matrix;
    size_t input_bytes, coefficients_bytes, output_bytes, matrix_bytes;
};

static void warp_destroy(void *object)
{
    struct clx_warp *w = object;
    if (!w)
        return;
    bspline_prefilter_destroy(w->prefilter);
    if (w->kernel)
        clReleaseKernel(w->kernel);
    if (w->program)
        clReleaseProgram(w->program);
    cl_mem bufs[] = { w->input, w->coefficients, w->output, w->matrix };
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

/* The prefilter and the kernel, in single precision, built on first use. */
static int warp_build(struct clx_warp *w)
{
    if (w->kernel)
        return CLX_OK;
    struct kernel_params p;
    int status;
    kernel_params_defaults(&p, &w->ctx->dev);
    p.pixel = CLX_PIXEL_F32;
    p.interp = INTERP_BSPLINE5;
    if ((status = bspline_prefilter_create(w->ctx, &p, &w->prefilter)) == CLX_OK &&
        (status = program_build_params(w->ctx, "warp_pattern.cl", &p, &w->program)) == CLX_OK)
        status = kernel_create(w->ctx, w->program, "warp_pattern", &w->kernel);
    return status;
}

/* The input's pixels as floats, which the prefilter reads (malloc'd; NULL when out of memory). */
static float *pixels_as_floats(const clx_image *input)
{
    size_t n = (size_t)input->width * input->height;
    float *f = malloc(n * sizeof *f);
    for (size_t i = 0; f && i < n; i++)
        f[i] = input->type == CLX_PIXEL_U8    ? (float)((const uint8_t *)input->pixels)[i]
               : input->type == CLX_PIXEL_U16 ? (float)((const uint16_t *)input->pixels)[i]
                                              : ((const float *)input->pixels)[i];
    return f;
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

    int W = input->width, H = input->height;
    size_t n = (size_t)W * H, bytes = n * sizeof(float);
    if ((status = warp_build(w)) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->input, &w->input_bytes, bytes, "warp", "input")) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->coefficients, &w->coefficients_bytes, bytes, "warp",
                                     "coefficients")) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->output, &w->output_bytes, bytes, "warp", "output")) != CLX_OK ||
        (status = ctx_buffer_reserve(ctx, &w->matrix, &w->matrix_bytes, 9 * sizeof(float), "warp", "map")) != CLX_OK)
        return status;
    /* The kernel works in single precision (its reals are floats): pixel
     * positions to about 1e-4 px over a 1000 px pattern. */
    float m[9];
    for (int i = 0; i < 9; i++)
        m[i] = (float)h[i];
    clx_message msg;
    float *pixels = pixels_as_floats(input);
    if (!pixels)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory for a %dx%d pattern", W, H);
    if ((status = clx_image_alloc(output, W, H, CLX_PIXEL_F32, &msg)) != CLX_OK) {
        free(pixels);
        return ctx_fail(ctx, status, "%s", msg.text);
    }
    size_t global[2] = { (size_t)(W + WARP_TX - 1) / WARP_TX * WARP_TX, (size_t)(H + WARP_TY - 1) / WARP_TY * WARP_TY };
    size_t local[2] = { WARP_TX, WARP_TY };
    cl_kernel k = w->kernel;
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, w->input, CL_FALSE, 0, bytes, pixels, 0, NULL, NULL));
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, w->matrix, CL_FALSE, 0, sizeof m, m, 0, NULL, NULL));
    if ((status = bspline_prefilter_enqueue(w->prefilter, w->input, W, H, 1, w->coefficients)) != CLX_OK)
        goto error;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof(cl_mem), &w->coefficients));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof(int), &W));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof(int), &H));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof(cl_mem), &w->matrix));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof(cl_mem), &w->output));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, global, local, 0, NULL, NULL));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, w->output, CL_TRUE, 0, bytes, output->pixels, 0, NULL, NULL));
    free(pixels);
    return CLX_OK;
error:
    /* The writes may still read `pixels`: wait for the queue before freeing. */
    clFinish(ctx->queue);
    free(pixels);
    clx_image_free(output);
    return status;
}
