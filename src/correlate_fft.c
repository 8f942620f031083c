/*
 * correlate_fft.c - the FFT path: C = IFFT(conj(FFT(r)) * FFT(d)) for every
 * tile, with the reference's spectra computed once. Prepared windows are
 * zero-padded to an FFT-friendly size of at least 2w x 2h, so the circular
 * correlation the FFT gives is the linear one ALGORITHM.md defines; the
 * correlation is left where the inverse FFT puts it (CORR = PAD).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cl_error.h"
#include "context.h"
#include "correlator.h"
#include "fft.h"

struct fft_state {
    struct fft_plan *r2c, *c2r;    /* batched over all `ntiles` tiles */
    cl_program program;
    cl_kernel multiply;
    cl_mem spectra;                /* ntiles half-spectra */
    cl_mem ref_spectra;            /* nwin half-spectra of the reference */
    size_t spectrum_bytes;         /* one tile's half-spectrum */
    size_t tile_bytes;             /* one prepared tile, as one correlation: PAD_W x PAD_H reals */
    size_t multiply_global[2];     /* spectrum_multiply's NDRange */
    int nwin, ntiles;
};

static size_t spectrum_bytes(const struct kernel_params *p)
{
    size_t rs = p->use_double ? sizeof(double) : sizeof(float);
    return (size_t)(p->pad_w / 2 + 1) * p->pad_h * 2 * rs;
}

/* The FFT library p names (fft=clfft|vkfft), or an error when this build lacks it. */
static int params_backend(struct clx_context *ctx, const struct kernel_params *p, const struct fft_backend **out)
{
    const char *name = kernel_params_fft_name(p);
    *out = fft_backend_named(name);
    if (*out)
        return CLX_OK;
    if (strcmp(name, "vkfft") == 0)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "VkFFT is not built into this clxcorr (configure found no vkFFT.h)");
    return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fft_backend %d: no such FFT library", p->fft_backend);
}

static void fft_configure(const struct device_entry *dev, struct kernel_params *p, int ntiles)
{
    /* 2w x 2h keeps the correlation linear; a larger size the FFT library
     * handles keeps it linear too. The FFT computes every shift. A library
     * this build lacks is reported by fft_create. Both libraries pad to the
     * same sizes, so the layout does not depend on whether an fft=
     * override was applied before this or after (stage_create: after). */
    const struct fft_backend *fft = fft_backend_named(kernel_params_fft_name(p));
    if (!fft)
        fft = fft_default_backend();
    p->pad_w = fft->good_size(2 * p->win_w);
    p->pad_h = fft->good_size(2 * p->win_h);
    p->corr_w = p->pad_w;
    p->corr_h = p->pad_h;
    p->store_rx = p->win_w - 1;
    p->store_ry = p->win_h - 1;
}

static size_t fft_bytes(const struct kernel_params *p, int nwin, int ntiles)
{
    /* The spectra, the reference's spectra, and as much again for the FFT
     * library's own scratch buffers. */
    return spectrum_bytes(p) * ((size_t)2 * ntiles + nwin);
}

static void fft_release(void *opaque)
{
    struct fft_state *st = opaque;
    if (!st)
        return;
    fft_plan_destroy(st->r2c);
    fft_plan_destroy(st->c2r);
    if (st->multiply)
        clReleaseKernel(st->multiply);
    if (st->program)
        clReleaseProgram(st->program);
    if (st->spectra)
        clReleaseMemObject(st->spectra);
    if (st->ref_spectra)
        clReleaseMemObject(st->ref_spectra);
    free(st);
}

static int fft_create(struct clx_context *ctx, const struct kernel_params *p, int nwin, int ntiles, void **out)
{
    const struct fft_backend *fft;
    int status;
    cl_int err;

    *out = NULL;
    if ((status = params_backend(ctx, p, &fft)) != CLX_OK)
        return status;
    struct fft_state *st = calloc(1, sizeof *st);
    if (!st)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    st->nwin = nwin;
    st->ntiles = ntiles;
    st->spectrum_bytes = spectrum_bytes(p);
    st->tile_bytes = (size_t)p->pad_w * p->pad_h * (p->use_double ? sizeof(double) : sizeof(float));
    /* One work-item per spectrum element; rounded up to a multiple of 64
     * so that the driver can pick a good work-group. */
    st->multiply_global[0] = ((size_t)(p->pad_w / 2 + 1) * p->pad_h + 63) / 64 * 64;
    st->multiply_global[1] = (size_t)ntiles;

    status = program_build(ctx, "spectrum_multiply.cl", p, &st->program);
    if (status == CLX_OK)
        status = kernel_create(ctx, st->program, "spectrum_multiply", &st->multiply);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_R2C, p->pad_w, p->pad_h, ntiles, p->use_double, &st->r2c);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_C2R, p->pad_w, p->pad_h, ntiles, p->use_double, &st->c2r);
    if (status != CLX_OK)
        goto error;

    st->spectra = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, st->spectrum_bytes * ntiles, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(spectra)", err);
    st->ref_spectra = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, st->spectrum_bytes * nwin, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(reference spectra)", err);
    *out = st;
    return CLX_OK;

error:
    fft_release(st);
    return status;
}

static int fft_set_reference(struct clx_context *ctx, void *opaque, cl_mem prepared)
{
    struct fft_state *st = opaque;
    int status = fft_plan_execute(st->r2c, prepared, st->spectra);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, st->spectra, st->ref_spectra, 0, 0,
                                     st->spectrum_bytes * st->nwin, 0, NULL, NULL));
error:
    return status;
}

/* Always transforms all ntiles tiles the plans were baked for; tiles past
 * the ones asked for hold values nobody reads. */
static int fft_enqueue(struct clx_context *ctx, void *opaque, cl_mem prepared, int ntiles, cl_mem tile_ids,
                       cl_mem corr)
{
    struct fft_state *st = opaque;
    cl_kernel k = st->multiply;
    if (tile_ids)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "the FFT path correlates whole batches, not subsets");
    /* Profiled bytes: what each step must read and write at least. */
    double tiles = st->ntiles, spectra = tiles * (double)st->spectrum_bytes, reals = tiles * (double)st->tile_bytes;
    int status = fft_plan_execute(st->r2c, prepared, st->spectra);
    if (status != CLX_OK)
        return status;
    profile_mark(ctx, "fft forward", reals + spectra);
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof st->spectra, &st->spectra));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof st->ref_spectra, &st->ref_spectra));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof st->nwin, &st->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof st->ntiles, &st->ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, st->multiply_global, NULL, 0, NULL, NULL));
    profile_mark(ctx, "multiply", 2 * spectra + (double)st->nwin * st->spectrum_bytes);
    status = fft_plan_execute(st->c2r, st->spectra, corr);
    if (status == CLX_OK)
        profile_mark(ctx, "fft inverse", spectra + reals);
error:
    return status;
}

const struct correlator_ops correlator_fft = {
    .name = "fft",
    .method = CLX_METHOD_FFT,
    .configure = fft_configure,
    .bytes = fft_bytes,
    .create = fft_create,
    .set_reference = fft_set_reference,
    .enqueue = fft_enqueue,
    .release = fft_release,
};
