/*
 * fft_cpu.c - the "cpu" backend of src/ops/fft_backend.h: clxcorr's own
 * real 2-D transforms (cl/fft_cpu.cl), written for CPU OpenCL devices, where
 * the libraries' GPU-shaped kernels run scalar (cl/fft_cpu.cl says why).
 *
 * R2C and C2R only (the correlation's per-tile form, fft_pack=0); the
 * half-spectra are in the kernel's own layout (cpu_spectrum_elements),
 * which only this backend and the element-wise multiply read. Sizes are the
 * other libraries' (even, factors 2, 3, 5, 7), so that a plan's padding does
 * not depend on which library runs it. An R2C plan reads only the top-left
 * data_w x data_h part of its input, the rest being the correlation's zero
 * padding. The program is built once per context and sizes, like every
 * other clxcorr kernel (and so cached on disk).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "ops/fft_backend.h"
#include "ops/fft_own_kernels.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"

#define VEC 8   /* cl/fft_cpu.cl's lines per work-item */

/* One work-item per work-group: its private arrays are the largest a CPU
 * runtime would otherwise hold for every work-item of a group at once. */
static const size_t one_item[2] = { 1, 1 };

struct cpu_fft_state {
    enum fft_kind kind;
    int data_w, data_h;          /* R2C: the part of the input that is not zero */
    struct own_fft_kernels k;    /* the program, its kernels, the twiddle tables */
    size_t columns_global[2], rows_global[2];
};

void fft_cpu_build_options(int nx, int ny, int use_double, char *buf, size_t len)
{
    snprintf(buf, len, "-cl-std=CL1.2 -D N_X=%d -D N_Y=%d -D USE_DOUBLE=%d", nx, ny, use_double);
}

static int spectrum_pitch(int ny)
{
    return (ny / 2 + 1 + VEC - 1) / VEC * VEC;
}

static size_t cpu_spectrum_elements(int nx, int ny)
{
    return (size_t)nx * spectrum_pitch(ny);
}

static int cpu_good_size(int n)
{
    return fft_backend_clfft.good_size(n);
}

static void cpu_destroy(void *p)
{
    struct cpu_fft_state *st = p;
    if (!st)
        return;
    own_fft_kernels_release(&st->k);
    free(st);
}

static int cpu_create(struct clx_context *ctx, enum fft_kind kind, int nx, int ny, int batch, int use_double,
                      int data_w, int data_h, void **out)
{
    *out = NULL;
    if (!fft_kind_real(kind))
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED,
                        "fft=cpu makes real transforms only; fft_pack=1 (complex pairs) needs fft=clfft or vkfft");
    if (nx % 2 || ny % 2 || cpu_good_size(nx) != nx || cpu_good_size(ny) != ny)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fft=cpu: %dx%d is not an even product of 2, 3, 5 and 7", nx, ny);
    struct cpu_fft_state *st = calloc(1, sizeof *st);
    if (!st)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    st->kind = kind;
    st->data_w = data_w;
    st->data_h = data_h;
    st->columns_global[0] = (size_t)(nx + 2 * VEC - 1) / (2 * VEC);
    st->columns_global[1] = (size_t)batch;
    st->rows_global[0] = (size_t)spectrum_pitch(ny) / VEC;
    st->rows_global[1] = (size_t)batch;

    char options[128];
    fft_cpu_build_options(nx, ny, use_double, options, sizeof options);
    int status = own_fft_kernels_create(ctx, "fft_cpu.cl", options, kind, nx, ny, use_double, &st->k);
    if (status != CLX_OK) {
        cpu_destroy(st);
        return status;
    }
    ctx_log(ctx, CLX_LOG_DEBUG, "cpu FFT %s plan %dx%d x %d (%s), data %dx%d", fft_kind_name(kind), nx, ny, batch,
            use_double ? "double" : "float", data_w, data_h);
    *out = st;
    return CLX_OK;
}

static int enqueue_rows(struct clx_context *ctx, struct cpu_fft_state *st, cl_mem spectra, cl_int dir)
{
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(st->k.rows, 0, sizeof spectra, &spectra));
    CL_CALL(ctx, clSetKernelArg(st->k.rows, 1, sizeof st->k.twiddles_x, &st->k.twiddles_x));
    CL_CALL(ctx, clSetKernelArg(st->k.rows, 2, sizeof dir, &dir));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, st->k.rows, 2, NULL, st->rows_global, one_item, 0, NULL, NULL));
error:
    return status;
}

/* The columns along y (fft_own_kernels.h), over this plan's column groups. */
static int enqueue_columns(struct clx_context *ctx, struct cpu_fft_state *st, cl_mem in, cl_mem out)
{
    return own_fft_enqueue_columns(ctx, &st->k, st->kind, st->data_w, st->data_h, in, out, st->columns_global,
                                   one_item);
}

static int cpu_execute(struct clx_context *ctx, void *p, cl_mem in, cl_mem out)
{
    struct cpu_fft_state *st = p;
    int status;
    if (st->kind == FFT_R2C)
        return (status = enqueue_columns(ctx, st, in, out)) != CLX_OK ? status : enqueue_rows(ctx, st, out, 1);
    /* C2R: the rows in place (the input is overwritten, as fft_backend.h allows), then the columns. */
    return (status = enqueue_rows(ctx, st, in, -1)) != CLX_OK ? status : enqueue_columns(ctx, st, in, out);
}

/* fft_backend.h's correlate: the R2C's columns, fft_rows_correlate (its rows
 * forward, the multiply and the C2R's rows inverse in one pass), the C2R's
 * columns. No peak search (no peak_parts_per_array): `parts` is NULL. */
static int cpu_correlate(struct clx_context *ctx, void *forward, void *inverse, cl_mem in, cl_mem spectra,
                         cl_mem ref_spectra, int nwin, cl_mem out, const struct peak_parts *parts)
{
    (void)parts;
    struct cpu_fft_state *f = forward;
    cl_kernel k = f->k.rows_correlate;
    cl_int n = nwin;
    int status = enqueue_columns(ctx, f, in, spectra);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof spectra, &spectra));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof ref_spectra, &ref_spectra));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof f->k.twiddles_x, &f->k.twiddles_x));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof n, &n));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, f->rows_global, one_item, 0, NULL, NULL));
    return enqueue_columns(ctx, inverse, spectra, out);
error:
    return status;
}

const struct fft_backend fft_backend_cpu = {
    .name = "cpu",
    .good_size = cpu_good_size,
    .spectrum_elements = cpu_spectrum_elements,
    .create = cpu_create,
    .execute = cpu_execute,
    .correlate = cpu_correlate,
    .destroy = cpu_destroy,
};
