/*
 * correlate_direct.c - the direct path: the correlation sum evaluated shift
 * by shift, for the shifts argmax searches plus the fit's neighbourhood
 * around them, so that the peak and its F x F values are those the FFT path
 * finds. The reference's windows are kept on the device and reused for
 * every image (the one-to-many form).
 *
 * Two decompositions of the same sum: shift-parallel blocks
 * (cl/correlate_direct.cl) for searches of many shifts, and pixel-parallel
 * work-groups (cl/correlate_direct_few.cl) for a handful of shifts, such as
 * the accurate mode's refinement, where a shift block would be mostly idle.
 */
#include "config.h"

#include <stdlib.h>

#include "ops/correlator.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

struct direct_state {
    struct kernel_params params;
    cl_program program;
    cl_kernel correlate, reduce;
    cl_mem refs;                   /* the reference's nwin windows */
    cl_mem partials;               /* split > 1: one slice of partial sums per split */
    cl_mem texture;                /* an image over the prepared windows (texture path) */
    cl_mem texture_of;             /* ... the buffer it was made over */
    int nwin, ntiles;
};

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static size_t real_size(const struct kernel_params *p)
{
    return p->use_double ? sizeof(double) : sizeof(float);
}

/*
 * Up to this many stored shifts, the few-shifts form: its work-items keep
 * one accumulator per shift, so the bound is set by registers. Measured
 * with 50 windows of 100 x 100: on PoCL (2 cores), 12 images with 25, 49
 * and 121 stored shifts took 0.07, 0.11, 0.17 s against 0.69, 0.70, 1.31 s
 * for the shift-parallel kernel, whose 16-shift-wide blocks are mostly idle
 * there; on an NVIDIA H200 the seed pipeline ran at 4,244 / 4,102 / 3,451
 * patterns/s with 49 / 81 / 169 stored shifts against 4,454 / 3,886 / 3,970
 * (bench/gpu-accurate.sh): a tie up to 81, a loss beyond.
 */
#define FEW_SHIFTS_MAX 49

/* Local memory the kernel declares for a shape. */
static size_t local_bytes(const struct kernel_params *p)
{
    if (p->direct_few)
        return (size_t)p->direct_few_wg * p->corr_w * p->corr_h * real_size(p);
    size_t floats = (size_t)p->direct_rows * p->win_w;
    if (p->direct_source != 1)
        floats += (size_t)p->direct_ipi * (p->direct_rows + p->direct_ty - 1) * (p->win_w + p->direct_tx * p->direct_spx - 1);
    return floats * real_size(p);
}

static int next_pow2(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/*
 * The kernel's shape for a job. The defaults were chosen by measurement
 * (bench/gpu-host.sh); `clxcorr tune` will search them per device.
 */
static void choose_shape(const struct device_entry *dev, struct kernel_params *p, int ntiles)
{
    size_t maxwg = dev->max_work_group_size;
    int nwin_images = ntiles;   /* tiles: the (image, window) pairs of a batch */

    p->direct_spx = p->use_double ? 2 : 4;
    p->direct_ipi = 1;
    p->direct_rows = 8;
    p->direct_source = 0;
    p->direct_broadcast = 0;
    p->direct_hybrid_tex = 1;
    p->direct_hybrid_den = 2;
    p->direct_few = p->corr_w * p->corr_h <= FEW_SHIFTS_MAX;
    /* Enough columns of work-items to cover the shift columns, at most 16. */
    p->direct_tx = next_pow2((p->corr_w + p->direct_spx - 1) / p->direct_spx);
    p->direct_tx = p->direct_tx < 4 ? 4 : p->direct_tx > 16 ? 16 : p->direct_tx;
    p->direct_ty = 64 / p->direct_tx;
    while (p->direct_ty > 1 && p->direct_ty / 2 >= p->corr_h)
        p->direct_ty /= 2;
    while ((size_t)p->direct_tx * p->direct_ty > maxwg && p->direct_ty > 1)
        p->direct_ty /= 2;

    /* Fit the local memory, leaving room for the driver's own use. */
    size_t budget = dev->info.local_memory > 4096 ? dev->info.local_memory - 1024 : dev->info.local_memory;
    while (local_bytes(p) > budget && p->direct_rows > 1)
        p->direct_rows /= 2;
    while (local_bytes(p) > budget && p->direct_ty > 1)
        p->direct_ty /= 2;
    while (local_bytes(p) > budget && p->direct_spx > 1)
        p->direct_spx /= 2;

    /* Split the overlap rows when the shift blocks alone leave the device
     * idle (few tiles, few shifts): each split keeps at least 8 rows. */
    int nbx = (p->corr_w + p->direct_tx * p->direct_spx - 1) / (p->direct_tx * p->direct_spx);
    int nby = (p->corr_h + p->direct_ty - 1) / p->direct_ty;
    long groups = (long)nbx * nby * nwin_images;
    long target = (long)dev->info.compute_units * (dev->info.type == CLX_DEVICE_GPU ? 8 : 2);
    p->direct_split = 1;
    if (groups < target)
        p->direct_split = (int)imin((int)((target + groups - 1) / groups), imin(p->win_h / 8, 64));
    if (p->direct_split < 1)
        p->direct_split = 1;
}

static void direct_configure(const struct device_entry *dev, struct kernel_params *p, int ntiles)
{
    int r = (p->fit_size - 1) / 2;
    /* Compact windows; the searched shifts plus the fit's neighbourhood
     * (everything, once that reaches the window's edge: the neighbourhood
     * then wraps, and every wrapped shift must be there too). */
    p->pad_w = p->win_w;
    p->pad_h = p->win_h;
    p->store_rx = imin(p->search_rx + r, p->win_w - 1);
    p->store_ry = imin(p->search_ry + r, p->win_h - 1);
    p->corr_w = 2 * p->store_rx + 1;
    p->corr_h = 2 * p->store_ry + 1;
    choose_shape(dev, p, ntiles);
}

static size_t direct_bytes(const struct kernel_params *p, int nwin, int ntiles)
{
    size_t rs = real_size(p);
    size_t partials = 0;
    if (p->direct_split > 1 && !p->direct_few)
        partials = (size_t)p->direct_split * ntiles * p->corr_w * p->corr_h;
    return rs * ((size_t)nwin * p->win_w * p->win_h + partials);
}

static void direct_release(void *opaque)
{
    struct direct_state *st = opaque;
    if (!st)
        return;
    if (st->correlate)
        clReleaseKernel(st->correlate);
    if (st->reduce)
        clReleaseKernel(st->reduce);
    if (st->program)
        clReleaseProgram(st->program);
    cl_mem bufs[] = { st->refs, st->partials, st->texture };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(st);
}

/* Can this device run this shape? (Overrides may have asked for any.) */
static int check_variant(struct clx_context *ctx, const struct kernel_params *p, int ntiles)
{
    const char *dev = ctx->dev.info.name;
    size_t local = local_bytes(p);
    if (local > ctx->dev.info.local_memory)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "the direct kernel's shape needs %zu bytes of local memory; %s "
                        "has %llu (use %s)", local, dev, ctx->dev.info.local_memory,
                        p->direct_few ? "a smaller direct_few_wg, or direct_few=0"
                               : "fewer direct_rows, direct_ty or direct_ipi");
    if (p->direct_few)
        return CLX_OK;   /* the other options shape the shift-parallel kernel only */
    if (p->direct_source != 0 && p->use_double)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "the direct path's texture variant reads floats: not with --double");
    if (p->direct_source != 0 && (!ctx->dev.image_support || (size_t)ntiles * p->win_w * p->win_h > ctx->dev.image_max_buffer))
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "the direct path's texture variant needs images over buffers of "
                        "%zu texels; %s offers %zu", (size_t)ntiles * p->win_w * p->win_h, dev,
                        ctx->dev.image_max_buffer);
    if (p->direct_broadcast == 1 && !ctx->dev.has_subgroups)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "%s has no sub-groups (cl_khr_subgroups) for direct_broadcast=1",
                        dev);
    if (p->direct_broadcast == 2 && ctx->dev.vendor != VENDOR_NVIDIA)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "direct_broadcast=2 is NVIDIA PTX; %s is not an NVIDIA device", dev);
    if (p->direct_broadcast != 0 && ((size_t)p->direct_tx * p->direct_ty) % 32 != 0)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "direct_broadcast needs work-groups of a multiple of 32 work-items");
    return CLX_OK;
}

static int direct_create(struct clx_context *ctx, const struct kernel_params *p, int nwin, int ntiles,
                         void **out)
{
    size_t rs = real_size(p);
    int status;
    cl_int err;

    *out = NULL;
    struct direct_state *st = calloc(1, sizeof *st);
    if (!st)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    st->params = *p;
    st->nwin = nwin;
    st->ntiles = ntiles;
    if ((status = check_variant(ctx, p, ntiles)) != CLX_OK)
        goto error;

    if (p->direct_few) {
        status = program_build_params(ctx, "correlate_direct_few.cl", p, &st->program);
        if (status == CLX_OK)
            status = kernel_create(ctx, st->program, "correlate_direct_few", &st->correlate);
    } else {
        status = program_build_params(ctx, "correlate_direct.cl", p, &st->program);
        if (status == CLX_OK)
            status = kernel_create(ctx, st->program, "correlate_direct", &st->correlate);
        if (status == CLX_OK)
            status = kernel_create(ctx, st->program, "direct_reduce", &st->reduce);
    }
    if (status != CLX_OK)
        goto error;

    st->refs = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, rs * nwin * p->win_w * p->win_h, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer(reference windows)", err);
    if (p->direct_split > 1 && !p->direct_few) {
        st->partials = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                                      rs * p->direct_split * ntiles * p->corr_w * p->corr_h, NULL, &err);
        CL_CHECK_RESULT(ctx, "clCreateBuffer(partial sums)", err);
    }
    *out = st;
    return CLX_OK;

error:
    direct_release(st);
    return status;
}

static int direct_set_reference(struct clx_context *ctx, void *opaque, cl_mem prepared)
{
    struct direct_state *st = opaque;
    const struct kernel_params *p = &st->params;
    int status = CLX_OK;
    CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, prepared, st->refs, 0, 0,
                                     real_size(p) * st->nwin * p->win_w * p->win_h, 0, NULL, NULL));
error:
    return status;
}

/* The few-shifts form: one work-group per tile, any subset of tiles. */
static int enqueue_few(struct clx_context *ctx, struct direct_state *st, cl_mem prepared, int ntiles, cl_mem tile_ids,
                       cl_mem corr)
{
    cl_kernel k = st->correlate;
    size_t local = (size_t)st->params.direct_few_wg, global = local * ntiles;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof st->refs, &st->refs));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof prepared, &prepared));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof tile_ids, &tile_ids));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof st->nwin, &st->nwin));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof corr, &corr));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
error:
    return status;
}

static int direct_takes_subsets(const struct kernel_params *p)
{
    return p->direct_few;
}

static int enqueue_shift_parallel(struct clx_context *ctx, struct direct_state *st, cl_mem prepared, int ntiles,
                                  cl_mem tile_ids, cl_mem corr)
{
    const struct kernel_params *p = &st->params;
    cl_kernel k = st->correlate;
    cl_mem out = p->direct_split > 1 ? st->partials : corr;
    int nbx = (p->corr_w + p->direct_tx * p->direct_spx - 1) / (p->direct_tx * p->direct_spx);
    int nby = (p->corr_h + p->direct_ty - 1) / p->direct_ty;
    /* With pairs nwin is the plan's tiles, and a push of fewer pairs is
     * part of one "image": rounded up, not down to none. */
    int nimages = (ntiles + st->nwin - 1) / st->nwin;
    int nig = (nimages + p->direct_ipi - 1) / p->direct_ipi;
    int status = CLX_OK, arg = 0;

    if (tile_ids)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED, "the shift-parallel direct kernel correlates whole batches");
    /* The texture path reads the prepared windows through an image over the same buffer. */
    if (p->direct_source != 0 &&
        (status = ctx_float_image_over(ctx, prepared, (size_t)st->ntiles * st->params.win_w * st->params.win_h,
                                       &st->texture, &st->texture_of, "texture over the prepared windows")) != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof st->refs, &st->refs));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof prepared, &prepared));
    if (p->direct_source != 0)
        CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof st->texture, &st->texture));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof st->nwin, &st->nwin));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof ntiles, &ntiles));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof nbx, &nbx));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof out, &out));
    size_t local[2] = { (size_t)p->direct_tx, (size_t)p->direct_ty };
    size_t global[2] = { (size_t)p->direct_tx * nbx * p->direct_split * st->nwin * nig, (size_t)p->direct_ty * nby };
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, global, local, 0, NULL, NULL));

    if (p->direct_split > 1) {
        size_t n = ((size_t)ntiles * p->corr_w * p->corr_h + 63) / 64 * 64;
        CL_CALL(ctx, clSetKernelArg(st->reduce, 0, sizeof st->partials, &st->partials));
        CL_CALL(ctx, clSetKernelArg(st->reduce, 1, sizeof ntiles, &ntiles));
        CL_CALL(ctx, clSetKernelArg(st->reduce, 2, sizeof corr, &corr));
        CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, st->reduce, 1, NULL, &n, NULL, 0, NULL, NULL));
    }
error:
    return status;
}

/* No peak search (no peak_parts): `parts` is NULL. */
static int direct_enqueue(struct clx_context *ctx, void *opaque, cl_mem prepared, int ntiles, cl_mem tile_ids,
                          cl_mem corr, const struct peak_parts *parts)
{
    struct direct_state *st = opaque;
    (void)parts;
    const struct kernel_params *p = &st->params;
    int status = p->direct_few ? enqueue_few(ctx, st, prepared, ntiles, tile_ids, corr)
                               : enqueue_shift_parallel(ctx, st, prepared, ntiles, tile_ids, corr);
    /* Profiled bytes: each tile's two windows read, its correlation written. */
    double rs = p->use_double ? sizeof(double) : sizeof(float);
    if (status == CLX_OK)
        ctx_profile_mark(ctx, "direct",
                     ntiles * rs * (2.0 * p->pad_w * p->pad_h + (double)p->corr_w * p->corr_h));
    return status;
}

const struct correlator_ops correlator_direct = {
    .name = "direct",
    .method = CLX_METHOD_DIRECT,
    .configure = direct_configure,
    .bytes = direct_bytes,
    .create = direct_create,
    .set_reference = direct_set_reference,
    .enqueue = direct_enqueue,
    .takes_subsets = direct_takes_subsets,
    .release = direct_release,
};
