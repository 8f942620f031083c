/* fft_own_kernels.c - the program, kernels and twiddle tables of clxcorr's own FFT backends. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/fft_own_kernels.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/* exp(-2 pi i t / n), t = 0..n-1, (re, im) interleaved, computed in double
 * and stored in the plan's precision. */
static int twiddles_create(struct clx_context *ctx, int n, int use_double, cl_mem *out)
{
    double *table = malloc(sizeof *table * 2 * (size_t)n);
    if (!table)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int t = 0; t < n; t++) {
        double a = -2.0 * M_PI * t / n;
        table[2 * t] = cos(a);
        table[2 * t + 1] = sin(a);
    }
    int status = ctx_create_reals(ctx, table, 2 * (size_t)n, use_double, out, "FFT twiddles");
    free(table);
    return status;
}

int own_fft_kernels_create(struct clx_context *ctx, const char *file, const char *options, enum fft_kind kind,
                           int nx, int ny, int use_double, struct own_fft_kernels *k)
{
    memset(k, 0, sizeof *k);
    int status = program_build(ctx, file, options, &k->program);
    if (status == CLX_OK)
        status = kernel_create(ctx, k->program, kind == FFT_R2C ? "fft_r2c_columns" : "fft_c2r_columns",
                               &k->columns);
    if (status == CLX_OK)
        status = kernel_create(ctx, k->program, "fft_rows", &k->rows);
    if (status == CLX_OK && kind == FFT_R2C)
        status = kernel_create(ctx, k->program, "fft_rows_correlate", &k->rows_correlate);
    if (status == CLX_OK)
        status = twiddles_create(ctx, nx, use_double, &k->twiddles_x);
    if (status == CLX_OK)
        status = twiddles_create(ctx, ny, use_double, &k->twiddles_y);
    if (status != CLX_OK)
        own_fft_kernels_release(k);
    return status;
}

int own_fft_enqueue_columns(struct clx_context *ctx, const struct own_fft_kernels *k, enum fft_kind kind,
                            int data_w, int data_h, cl_mem in, cl_mem out, const size_t global[2],
                            const size_t local[2])
{
    cl_int rows = data_h, cols = data_w;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k->columns, 0, sizeof in, &in));
    CL_CALL(ctx, clSetKernelArg(k->columns, 1, sizeof out, &out));
    CL_CALL(ctx, clSetKernelArg(k->columns, 2, sizeof k->twiddles_y, &k->twiddles_y));
    if (kind == FFT_R2C) {
        CL_CALL(ctx, clSetKernelArg(k->columns, 3, sizeof rows, &rows));
        CL_CALL(ctx, clSetKernelArg(k->columns, 4, sizeof cols, &cols));
    }
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k->columns, 2, NULL, global, local, 0, NULL, NULL));
error:
    return status;
}

void own_fft_kernels_release(struct own_fft_kernels *k)
{
    cl_kernel kernels[] = { k->columns, k->rows, k->rows_correlate };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i])
            clReleaseKernel(kernels[i]);
    if (k->program)
        clReleaseProgram(k->program);
    cl_mem tables[] = { k->twiddles_x, k->twiddles_y };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i])
            clReleaseMemObject(tables[i]);
    memset(k, 0, sizeof *k);
}
