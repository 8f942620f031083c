/*
 * bspline_prefilter.c - the B-spline coefficients of a batch of device
 * images: cl/bspline_prefilter.cl's row pass into the coefficient buffer,
 * then its column pass in place.
 */
#include "config.h"

#include <stdlib.h>

#include "ops/bspline_prefilter.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/* Work-items per work-group: each runs a whole line's recursion, so the
 * group only needs to be wide enough for coalesced column steps. */
#define PREFILTER_WG 64

void bspline_prefilter_destroy(struct bspline_prefilter *b)
{
    if (!b)
        return;
    if (b->rows)
        clReleaseKernel(b->rows);
    if (b->columns)
        clReleaseKernel(b->columns);
    if (b->program)
        clReleaseProgram(b->program);
    free(b);
}

int bspline_prefilter_create(struct clx_context *ctx, const struct kernel_params *p, struct bspline_prefilter **out)
{
    int status;
    *out = NULL;
    if (!INTERP_IS_BSPLINE(p->interp))
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "B-spline prefilter for interpolation %d, which is no B-spline",
                        p->interp);
    struct bspline_prefilter *b = calloc(1, sizeof *b);
    if (!b)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    b->ctx = ctx;
    b->group = ctx->dev.max_work_group_size < PREFILTER_WG ? ctx->dev.max_work_group_size : PREFILTER_WG;
    if ((status = program_build_params(ctx, "bspline_prefilter.cl", p, &b->program)) != CLX_OK ||
        (status = kernel_create(ctx, b->program, "bspline_rows", &b->rows)) != CLX_OK ||
        (status = kernel_create(ctx, b->program, "bspline_columns", &b->columns)) != CLX_OK) {
        bspline_prefilter_destroy(b);
        return status;
    }
    *out = b;
    return CLX_OK;
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

int bspline_prefilter_enqueue(struct bspline_prefilter *b, cl_mem images, int w, int h, int nimages, cl_mem coeffs)
{
    struct clx_context *ctx = b->ctx;
    int status = CLX_OK, rows = h * nimages;
    size_t rows_global = round_up((size_t)rows, b->group), rows_local = b->group;
    size_t cols_global[2] = { round_up((size_t)w, b->group), (size_t)nimages }, cols_local[2] = { b->group, 1 };
    CL_CALL(ctx, clSetKernelArg(b->rows, 0, sizeof images, &images));
    CL_CALL(ctx, clSetKernelArg(b->rows, 1, sizeof coeffs, &coeffs));
    CL_CALL(ctx, clSetKernelArg(b->rows, 2, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(b->rows, 3, sizeof rows, &rows));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, b->rows, 1, NULL, &rows_global, &rows_local, 0, NULL, NULL));
    CL_CALL(ctx, clSetKernelArg(b->columns, 0, sizeof coeffs, &coeffs));
    CL_CALL(ctx, clSetKernelArg(b->columns, 1, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(b->columns, 2, sizeof h, &h));
    CL_CALL(ctx, clSetKernelArg(b->columns, 3, sizeof nimages, &nimages));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, b->columns, 2, NULL, cols_global, cols_local, 0, NULL, NULL));
error:
    return status;
}
