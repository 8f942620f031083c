/* correlate_fft.c - the FFT correlation path: R2C, conjugate multiply, C2R. */
#include "config.h"

#include <string.h>

#include "cl_error.h"
#include "context.h"
#include "correlate_fft.h"
#include "fft.h"

static size_t real_size(const struct kernel_params *p)
{
    return p->use_double ? sizeof(double) : sizeof(float);
}

static size_t spectrum_bytes(const struct kernel_params *p)
{
    return (size_t)(p->pad_w / 2 + 1) * p->pad_h * 2 * real_size(p);
}

size_t correlate_fft_bytes(const struct kernel_params *p, int nwin, int ntiles)
{
    /* The spectra, the reference's spectra, and as much again for the FFT
     * library's own scratch buffers. */
    return spectrum_bytes(p) * ((size_t)2 * ntiles + nwin);
}

int correlate_fft_create(struct clx_context *ctx, const struct kernel_params *p, int nwin,
                         int ntiles, struct correlate_fft *cf)
{
    const struct fft_backend *fft = fft_default_backend();
    int status;
    cl_int err;

    memset(cf, 0, sizeof *cf);
    cf->nwin = nwin;
    cf->ntiles = ntiles;
    cf->spectrum_bytes = spectrum_bytes(p);
    /* One work-item per spectrum element; rounded up to a multiple of 64
     * so that the driver can pick a good work-group. */
    cf->multiply_global[0] = ((size_t)(p->pad_w / 2 + 1) * p->pad_h + 63) / 64 * 64;
    cf->multiply_global[1] = (size_t)ntiles;

    status = program_build(ctx, "spectrum_multiply.cl", p, &cf->program);
    if (status == CLX_OK)
        status = kernel_create(ctx, cf->program, "spectrum_multiply", &cf->multiply);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_R2C, p->pad_w, p->pad_h, ntiles, p->use_double, &cf->r2c);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_C2R, p->pad_w, p->pad_h, ntiles, p->use_double, &cf->c2r);
    if (status != CLX_OK)
        goto error;

    cf->spectra = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, cf->spectrum_bytes * ntiles, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(spectra)", err);
    cf->ref_spectra = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, cf->spectrum_bytes * nwin, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(reference spectra)", err);
    return CLX_OK;

error:
    correlate_fft_release(cf);
    return status;
}

int correlate_fft_set_reference(struct clx_context *ctx, struct correlate_fft *cf, cl_mem padded)
{
    int status = fft_plan_execute(cf->r2c, padded, cf->spectra);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, cf->spectra, cf->ref_spectra, 0, 0,
                                     cf->spectrum_bytes * cf->nwin, 0, NULL, NULL));
error:
    return status;
}

int correlate_fft_enqueue(struct clx_context *ctx, struct correlate_fft *cf, cl_mem padded,
                          cl_mem corr)
{
    cl_kernel k = cf->multiply;
    int status = fft_plan_execute(cf->r2c, padded, cf->spectra);
    if (status != CLX_OK)
        return status;

    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof cf->spectra, &cf->spectra));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof cf->ref_spectra, &cf->ref_spectra));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof cf->nwin, &cf->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof cf->ntiles, &cf->ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, cf->multiply_global, NULL, 0, NULL, NULL));

    status = fft_plan_execute(cf->c2r, cf->spectra, corr);
error:
    return status;
}

void correlate_fft_release(struct correlate_fft *cf)
{
    fft_plan_destroy(cf->r2c);
    fft_plan_destroy(cf->c2r);
    if (cf->multiply)
        clReleaseKernel(cf->multiply);
    if (cf->program)
        clReleaseProgram(cf->program);
    if (cf->spectra)
        clReleaseMemObject(cf->spectra);
    if (cf->ref_spectra)
        clReleaseMemObject(cf->ref_spectra);
    memset(cf, 0, sizeof *cf);
}
