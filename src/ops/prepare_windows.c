/* prepare_windows.c - enqueueing window_sums.cl and prepare.cl. */
#include "config.h"

#include <string.h>

#include "ops/prepare_windows.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

int prepare_windows_build(struct clx_context *ctx, const struct kernel_params *p,
                          struct prepare_windows *pw)
{
    int status;
    memset(pw, 0, sizeof *pw);
    pw->params = *p;
    if ((status = program_build_params(ctx, "window_sums.cl", p, &pw->sums_program)) != CLX_OK ||
        (status = kernel_create(ctx, pw->sums_program, "window_sums", &pw->sums)) != CLX_OK ||
        (status = program_build_params(ctx, "prepare.cl", p, &pw->prepare_program)) != CLX_OK ||
        (status = kernel_create(ctx, pw->prepare_program, "prepare", &pw->prepare)) != CLX_OK) {
        prepare_windows_release(pw);
        return status;
    }
    return CLX_OK;
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* Both kernels start with the same arguments: the images, their size, the
 * window corners and count, and the window means. */
static int set_shared_args(struct clx_context *ctx, cl_kernel k, cl_mem images, int image_w, int image_h,
                           cl_mem corners, int nwin, cl_mem means)
{
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof images, &images));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof image_w, &image_w));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof image_h, &image_h));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof corners, &corners));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof nwin, &nwin));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof means, &means));
error:
    return status;
}

int prepare_windows_enqueue(struct clx_context *ctx, struct prepare_windows *pw, cl_mem images,
                            int image_w, int image_h, cl_mem corners, int nwin, int nimages,
                            cl_mem means, cl_mem padded)
{
    const struct kernel_params *p = &pw->params;
    int status;

    status = set_shared_args(ctx, pw->sums, images, image_w, image_h, corners, nwin, means);
    if (status != CLX_OK)
        return status;
    size_t sums_global[2] = { (size_t)p->sums_wg * nwin, (size_t)nimages };
    size_t sums_local[2] = { (size_t)p->sums_wg, 1 };
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, pw->sums, 2, NULL, sums_global, sums_local, 0, NULL, NULL));

    size_t tiles = (size_t)nimages * nwin;
    int has_padding = p->pad_w != p->win_w || p->pad_h != p->win_h;
    if (p->prep_pad == 1 && has_padding) {
        const cl_float zero = 0;
        size_t bytes = (p->use_double ? sizeof(double) : sizeof(float)) * p->pad_w * p->pad_h * tiles;
        CL_CALL(ctx, clEnqueueFillBuffer(ctx->queue, padded, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
    }

    status = set_shared_args(ctx, pw->prepare, images, image_w, image_h, corners, nwin, means);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(pw->prepare, 6, sizeof padded, &padded));
    /* prep_pad 0 writes whole tiles, 1 and 2 the windows only (prepare.cl). */
    size_t cols = (size_t)(p->prep_pad == 0 ? p->pad_w : p->win_w);
    size_t rows = (size_t)(p->prep_pad == 0 ? p->pad_h : p->win_h);
    size_t prep_local[3] = { (size_t)p->prep_tx, (size_t)p->prep_ty, 1 };
    size_t prep_global[3] = { round_up((cols + p->prep_vec - 1) / p->prep_vec, prep_local[0]),
                              round_up(rows, prep_local[1]), tiles };
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, pw->prepare, 3, NULL, prep_global, prep_local, 0, NULL,
                                        NULL));
error:
    return status;
}

void prepare_windows_release(struct prepare_windows *pw)
{
    if (pw->sums)
        clReleaseKernel(pw->sums);
    if (pw->prepare)
        clReleaseKernel(pw->prepare);
    if (pw->sums_program)
        clReleaseProgram(pw->sums_program);
    if (pw->prepare_program)
        clReleaseProgram(pw->prepare_program);
    memset(pw, 0, sizeof *pw);
}
