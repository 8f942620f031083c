/*
 * correlate_fft.c - the FFT path: C = IFFT(conj(FFT(r)) * FFT(d)) for every
 * tile, with the reference's spectra computed once. Prepared windows are
 * zero-padded to an FFT-friendly size of at least 2w x 2h, so the circular
 * correlation the FFT gives is the linear one doc/conventions.md defines; the
 * correlation is left where the inverse FFT puts it (CORR = PAD).
 *
 * Two forms (fft_pack): 0 transforms each tile with R2C and C2R and
 * multiplies the half-spectra (cl/spectrum_multiply.cl); 1 packs tiles 2p
 * and 2p + 1 into one complex array and transforms the pairs with C2C each
 * way, separating and multiplying the two spectra in between
 * (cl/fft_pack.cl). The reference's half-spectra are R2C's in both.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ops/correlator.h"
#include "ops/fft_plan.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

struct fft_state {
    int fft_pack;                  /* kernel_params.fft_pack */
    int peak_fuse;                 /* kernel_params.peak_fuse */
    /* fft_pack=0: R2C and C2R batched over all `ntiles` tiles; 1: R2C over
     * the reference's nwin windows only, and C2C each way over the npairs
     * packed arrays. */
    struct fft_plan *r2c, *c2r, *c2c_forward, *c2c_inverse;
    cl_program program;
    cl_kernel multiply;            /* spectrum_multiply or fft_pack_multiply */
    cl_kernel pack, unpack;        /* fft_pack=1 */
    cl_mem spectra;                /* ntiles half-spectra, or npairs packed arrays' spectra */
    cl_mem packed;                 /* fft_pack=1: npairs packed arrays, then the inverse's output */
    cl_mem ref_spectra;            /* nwin half-spectra of the reference */
    size_t spectrum_bytes;         /* one tile's half-spectrum */
    size_t packed_bytes;           /* one packed array: PAD_W x PAD_H complex values */
    size_t tile_bytes;             /* one prepared tile, as one correlation: PAD_W x PAD_H reals */
    size_t multiply_global[2];     /* the multiply's NDRange */
    size_t pack_global[2];         /* fft_pack's and fft_unpack's */
    int nwin, ntiles, npairs;
    cl_int spectrum_elements;      /* complex values in one tile's half-spectrum (the library's layout) */
};

/* The FFT library p names, or the default one where p names none this build has. */
static const struct fft_backend *params_backend_or_default(const struct kernel_params *p)
{
    const struct fft_backend *fft = fft_backend_named(kernel_params_fft_name(p));
    return fft ? fft : fft_default_backend();
}

/* One tile's half-spectrum, in the layout of p's FFT library. */
static size_t spectrum_bytes(const struct kernel_params *p)
{
    size_t rs = p->use_double ? sizeof(double) : sizeof(float);
    return params_backend_or_default(p)->spectrum_elements(p->pad_w, p->pad_h) * 2 * rs;
}

static size_t packed_bytes(const struct kernel_params *p)
{
    size_t rs = p->use_double ? sizeof(double) : sizeof(float);
    return (size_t)p->pad_w * p->pad_h * 2 * rs;
}

/* Global sizes rounded up to a multiple of 64 so that the driver can pick a good work-group. */
static size_t round_up_64(size_t n)
{
    return (n + 63) / 64 * 64;
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
    return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fft %d: no such FFT library", p->fft);
}

static void fft_configure(const struct device_entry *dev, struct kernel_params *p, int ntiles)
{
    /* 2w x 2h keeps the correlation linear; a larger size the FFT library
     * handles keeps it linear too. The FFT computes every shift. A library
     * this build lacks is reported by fft_create. Every backend pads to the
     * same sizes, so the layout does not depend on whether an fft=
     * override was applied before this or after (stage_create: after). */
    const struct fft_backend *fft = params_backend_or_default(p);
    p->pad_w = fft->good_size(2 * p->win_w);
    p->pad_h = fft->good_size(2 * p->win_h);
    p->corr_w = p->pad_w;
    p->corr_h = p->pad_h;
    p->store_rx = p->win_w - 1;
    p->store_ry = p->win_h - 1;
    /* fft=local keeps a work-group's lines in local memory: transforms too
     * long for that (windows of about 1,500 pixels and more) go to the
     * library, so that the shipped default never refuses a window size. */
    if (p->fft == FFT_LOCAL && !fft_local_fits(p->pad_w, p->pad_h, p->use_double, dev->info.local_memory))
        p->fft = fft_backend_named("vkfft") ? FFT_VKFFT : FFT_CLFFT;
}

static size_t fft_bytes(const struct kernel_params *p, int nwin, int ntiles)
{
    /* The spectra, the reference's spectra, and as much again as the
     * spectra for the FFT library's own scratch buffers; with fft_pack=1
     * the spectra are the pairs', and the packed arrays come on top. */
    if (p->fft_pack)
        return packed_bytes(p) * 3 * (((size_t)ntiles + 1) / 2) + spectrum_bytes(p) * nwin;
    return spectrum_bytes(p) * ((size_t)2 * ntiles + nwin);
}

static void fft_release(void *opaque)
{
    struct fft_state *st = opaque;
    if (!st)
        return;
    fft_plan_destroy(st->r2c);
    fft_plan_destroy(st->c2r);
    fft_plan_destroy(st->c2c_forward);
    fft_plan_destroy(st->c2c_inverse);
    cl_kernel kernels[] = { st->multiply, st->pack, st->unpack };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i])
            clReleaseKernel(kernels[i]);
    if (st->program)
        clReleaseProgram(st->program);
    cl_mem bufs[] = { st->spectra, st->packed, st->ref_spectra };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(st);
}

/* fft_pack=0's plans and, unless the backend fuses it into them, the multiply's kernel. */
static int create_per_tile(struct clx_context *ctx, const struct fft_backend *fft, const struct kernel_params *p,
                           struct fft_state *st)
{
    int status = fft_plan_create(ctx, fft, FFT_R2C, p->pad_w, p->pad_h, st->ntiles, p->use_double, p->win_w,
                                 p->win_h, &st->r2c);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_C2R, p->pad_w, p->pad_h, st->ntiles, p->use_double, p->pad_w,
                                 p->pad_h, &st->c2r);
    if (status == CLX_OK && !fft_plan_fuses_correlation(st->r2c) &&
        (status = program_build_params(ctx, "spectrum_multiply.cl", p, &st->program)) == CLX_OK)
        status = kernel_create(ctx, st->program, "spectrum_multiply", &st->multiply);
    if (status == CLX_OK)
        status = ctx_create_buffer(ctx, st->spectrum_bytes * st->ntiles, &st->spectra, "spectra");
    return status;
}

/* fft_pack=1's kernels, plans and buffers. */
static int create_packed(struct clx_context *ctx, const struct fft_backend *fft, const struct kernel_params *p,
                         struct fft_state *st)
{
    int status = program_build_params(ctx, "fft_pack.cl", p, &st->program);
    if (status == CLX_OK)
        status = kernel_create(ctx, st->program, "fft_pack", &st->pack);
    if (status == CLX_OK)
        status = kernel_create(ctx, st->program, "fft_pack_multiply", &st->multiply);
    if (status == CLX_OK)
        status = kernel_create(ctx, st->program, "fft_unpack", &st->unpack);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_R2C, p->pad_w, p->pad_h, st->nwin, p->use_double, p->win_w,
                                 p->win_h, &st->r2c);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_C2C_FORWARD, p->pad_w, p->pad_h, st->npairs, p->use_double,
                                 p->pad_w, p->pad_h, &st->c2c_forward);
    if (status == CLX_OK)
        status = fft_plan_create(ctx, fft, FFT_C2C_INVERSE, p->pad_w, p->pad_h, st->npairs, p->use_double,
                                 p->pad_w, p->pad_h, &st->c2c_inverse);
    if (status == CLX_OK)
        status = ctx_create_buffer(ctx, st->packed_bytes * st->npairs, &st->packed, "packed windows");
    if (status == CLX_OK)
        status = ctx_create_buffer(ctx, st->packed_bytes * st->npairs, &st->spectra, "spectra");
    return status;
}

static int fft_create(struct clx_context *ctx, const struct kernel_params *p, int nwin, int ntiles, void **out)
{
    const struct fft_backend *fft;
    int status;

    *out = NULL;
    if ((status = params_backend(ctx, p, &fft)) != CLX_OK)
        return status;
    struct fft_state *st = calloc(1, sizeof *st);
    if (!st)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    st->fft_pack = p->fft_pack;
    st->peak_fuse = p->peak_fuse;
    st->nwin = nwin;
    st->ntiles = ntiles;
    st->npairs = (ntiles + 1) / 2;
    st->spectrum_bytes = spectrum_bytes(p);
    st->packed_bytes = packed_bytes(p);
    st->tile_bytes = (size_t)p->pad_w * p->pad_h * (p->use_double ? sizeof(double) : sizeof(float));
    /* One work-item per half-spectrum element, of a tile or of a pair
     * (whose work-items serve k and -k); fft_pack's and fft_unpack's, one
     * per packed element. */
    st->spectrum_elements = (cl_int)fft->spectrum_elements(p->pad_w, p->pad_h);
    st->multiply_global[0] = round_up_64((size_t)st->spectrum_elements);
    st->multiply_global[1] = (size_t)(st->fft_pack ? st->npairs : ntiles);
    st->pack_global[0] = round_up_64((size_t)p->pad_w * p->pad_h);
    st->pack_global[1] = (size_t)st->npairs;

    status = st->fft_pack ? create_packed(ctx, fft, p, st) : create_per_tile(ctx, fft, p, st);
    if (status == CLX_OK)
        status = ctx_create_buffer(ctx, st->spectrum_bytes * nwin, &st->ref_spectra, "reference spectra");
    if (status != CLX_OK) {
        fft_release(st);
        return status;
    }
    *out = st;
    return CLX_OK;
}

static int fft_set_reference(struct clx_context *ctx, void *opaque, cl_mem prepared)
{
    struct fft_state *st = opaque;
    /* fft_pack=1's R2C plan covers the reference's windows only. */
    if (st->fft_pack)
        return fft_plan_execute(st->r2c, prepared, st->ref_spectra);
    /* A reference window per tile (pairs): the batch's transform is the reference. */
    if (st->nwin == st->ntiles)
        return fft_plan_execute(st->r2c, prepared, st->ref_spectra);
    int status = fft_plan_execute(st->r2c, prepared, st->spectra);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, st->spectra, st->ref_spectra, 0, 0,
                                     st->spectrum_bytes * st->nwin, 0, NULL, NULL));
error:
    return status;
}

/* fft_pack=1: pack, C2C forward, separate and multiply, C2C inverse, unpack. */
static int enqueue_packed(struct clx_context *ctx, struct fft_state *st, cl_mem prepared, cl_mem corr)
{
    /* Profiled bytes: what each step must read and write at least. */
    double reals = st->ntiles * (double)st->tile_bytes, packed = st->npairs * (double)st->packed_bytes;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(st->pack, 0, sizeof prepared, &prepared));
    CL_CALL(ctx, clSetKernelArg(st->pack, 1, sizeof st->packed, &st->packed));
    CL_CALL(ctx, clSetKernelArg(st->pack, 2, sizeof st->ntiles, &st->ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, st->pack, 2, NULL, st->pack_global, NULL, 0, NULL, NULL));
    ctx_profile_mark(ctx, "fft pack", reals + packed);
    if ((status = fft_plan_execute(st->c2c_forward, st->packed, st->spectra)) != CLX_OK)
        return status;
    ctx_profile_mark(ctx, "fft forward", 2 * packed);
    CL_CALL(ctx, clSetKernelArg(st->multiply, 0, sizeof st->spectra, &st->spectra));
    CL_CALL(ctx, clSetKernelArg(st->multiply, 1, sizeof st->ref_spectra, &st->ref_spectra));
    CL_CALL(ctx, clSetKernelArg(st->multiply, 2, sizeof st->nwin, &st->nwin));
    CL_CALL(ctx, clSetKernelArg(st->multiply, 3, sizeof st->ntiles, &st->ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, st->multiply, 2, NULL, st->multiply_global, NULL, 0, NULL,
                                        NULL));
    ctx_profile_mark(ctx, "multiply", 2 * packed + (double)st->nwin * st->spectrum_bytes);
    /* The packed arrays are spent: the inverse writes over them. */
    if ((status = fft_plan_execute(st->c2c_inverse, st->spectra, st->packed)) != CLX_OK)
        return status;
    ctx_profile_mark(ctx, "fft inverse", 2 * packed);
    CL_CALL(ctx, clSetKernelArg(st->unpack, 0, sizeof st->packed, &st->packed));
    CL_CALL(ctx, clSetKernelArg(st->unpack, 1, sizeof corr, &corr));
    CL_CALL(ctx, clSetKernelArg(st->unpack, 2, sizeof st->ntiles, &st->ntiles));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, st->unpack, 2, NULL, st->pack_global, NULL, 0, NULL, NULL));
    ctx_profile_mark(ctx, "fft unpack", packed + reals);
error:
    return status;
}

/* correlator.h's peak_parts: the fused correlation's, where the FFT library
 * searches as it writes (fft=local) and peak_fuse asks for it. */
static int fft_peak_parts(void *opaque)
{
    struct fft_state *st = opaque;
    if (st->fft_pack || !st->peak_fuse || !fft_plan_fuses_correlation(st->r2c))
        return 0;
    return fft_plan_peak_parts(st->c2r);
}

/* Always transforms all ntiles tiles the plans were baked for; tiles past
 * the ones asked for hold values nobody reads. */
static int fft_enqueue(struct clx_context *ctx, void *opaque, cl_mem prepared, int ntiles, cl_mem tile_ids,
                       cl_mem corr, const struct peak_parts *parts)
{
    struct fft_state *st = opaque;
    cl_kernel k = st->multiply;
    if (tile_ids)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "the FFT path correlates whole batches, not subsets");
    if (st->fft_pack)
        return enqueue_packed(ctx, st, prepared, corr);
    /* Profiled bytes: what each step must read and write at least. */
    double tiles = st->ntiles, spectra = tiles * (double)st->spectrum_bytes, reals = tiles * (double)st->tile_bytes;
    int status;
    if (fft_plan_fuses_correlation(st->r2c)) {
        status = fft_plan_correlate(st->r2c, st->c2r, prepared, st->spectra, st->ref_spectra, st->nwin, corr, parts);
        if (status == CLX_OK)
            ctx_profile_mark(ctx, "fft+multiply",
                             2 * reals + 2 * spectra + (double)st->nwin * st->spectrum_bytes);
        return status;
    }
    status = fft_plan_execute(st->r2c, prepared, st->spectra);
    if (status != CLX_OK)
        return status;
    ctx_profile_mark(ctx, "fft forward", reals + spectra);
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof st->spectra, &st->spectra));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof st->ref_spectra, &st->ref_spectra));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof st->nwin, &st->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof st->ntiles, &st->ntiles));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof st->spectrum_elements, &st->spectrum_elements));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, st->multiply_global, NULL, 0, NULL, NULL));
    ctx_profile_mark(ctx, "multiply", 2 * spectra + (double)st->nwin * st->spectrum_bytes);
    status = fft_plan_execute(st->c2r, st->spectra, corr);
    if (status == CLX_OK)
        ctx_profile_mark(ctx, "fft inverse", spectra + reals);
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
    .peak_parts = fft_peak_parts,
    .release = fft_release,
};
