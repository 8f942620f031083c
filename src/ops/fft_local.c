/*
 * fft_local.c - the "local" backend of src/ops/fft_backend.h: clxcorr's own
 * real 2-D transforms for GPUs (cl/fft_local.cl), whose correlation keeps
 * the forward transform along x, the multiply and the inverse along x in
 * local memory as one kernel, and never reads the windows' zero padding.
 *
 * Its correlation can also search each correlation for its peak while it
 * writes it (peak_parts.h): the argmax's own read of every correlation is
 * then saved.
 *
 * R2C and C2R only (the correlation's per-tile form, fft_pack=0); the
 * half-spectra are in the kernel's own layout (local_spectrum_elements),
 * which only this backend reads. Sizes are the other libraries' (even,
 * factors 2, 3, 5, 7), so that a plan's padding does not depend on which
 * library runs it. The program is built once per context and sizes, like
 * every other clxcorr kernel (and so cached on disk).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "ops/fft_backend.h"
#include "ops/fft_own_kernels.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/* Work-items per work-group, and the lines a group transforms at once
 * along each axis, at most: a group's four local buffers of lines (two
 * ping-pong pairs of real and imaginary parts) must fit the 48 KiB every
 * OpenCL GPU gives a work-group. On an H100, 128 and 8 against 64 and 256
 * work-items, 4 lines: bench/results/gpu-accurate-push-results.txt, section 10. */
#define WORK_GROUP 128
#define MAX_LINES 8
#define LOCAL_BUDGET (48 * 1024)

struct local_fft_state {
    enum fft_kind kind;
    cl_kernel columns_peaks;     /* C2R plans: fft_c2r_columns_peaks, for correlate's peak search */
    int data_w, data_h;          /* R2C: the part of the input that is not zero */
    cl_int nlines;               /* spectrum rows in the batch: batch (ny / 2 + 1) */
    struct own_fft_kernels k;    /* the program, its kernels, the twiddle tables */
    size_t columns_global[2], rows_global, local_size;
};

static size_t local_spectrum_elements(int nx, int ny)
{
    return (size_t)(ny / 2 + 1) * nx;
}

static int local_good_size(int n)
{
    return fft_backend_clfft.good_size(n);
}

static void local_destroy(void *p)
{
    struct local_fft_state *st = p;
    if (!st)
        return;
    if (st->columns_peaks)
        clReleaseKernel(st->columns_peaks);
    own_fft_kernels_release(&st->k);
    free(st);
}

/* Local bytes fft_c2r_columns_peaks adds to a C2R group's lines: its
 * reduction's (value, index) per work-item. */
static size_t peak_reduction_bytes(size_t work_group, size_t real_size)
{
    return work_group * (real_size + sizeof(cl_int));
}

/* The most lines (a power of two, up to MAX_LINES) whose four local buffers
 * of n + 2 values fit the budget less `reserved` bytes; 0 when not even one
 * does. */
static int lines_for(int n, size_t real_size, size_t local_memory, size_t reserved)
{
    size_t budget = local_memory < LOCAL_BUDGET ? local_memory : LOCAL_BUDGET;
    int lines = MAX_LINES;
    budget = budget > reserved ? budget - reserved : 0;
    while (lines > 0 && 4 * (size_t)lines * (size_t)(n + 2) * real_size > budget)
        lines /= 2;
    return lines;
}

int fft_local_fits(int nx, int ny, int use_double, unsigned long long local_memory)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    return lines_for(nx, rs, (size_t)local_memory, 0) > 0 &&
           lines_for(ny, rs, (size_t)local_memory, peak_reduction_bytes(WORK_GROUP, rs)) > 0;
}

/* FFT_PASS(R, P) for each radix pass of an n-point line, in cl/fft_local.cl's
 * order (8, 4, 2, 3, 5, 7 while they divide what is left). */
static void passes_of(int n, char *buf, size_t len)
{
    static const int radices[] = { 8, 4, 2, 3, 5, 7 };
    size_t used = 0;
    buf[0] = '\0';
    for (int p = 1, rest = n; rest > 1 && used < len;) {
        int r = 0;
        for (size_t i = 0; i < sizeof radices / sizeof radices[0] && !r; i++)
            if (rest % radices[i] == 0)
                r = radices[i];
        if (!r)
            break;   /* not a product of the radices: local_create refuses the size */
        used += (size_t)snprintf(buf + used, len - used, "FFT_PASS(%d,%d)", r, p);
        p *= r;
        rest /= r;
    }
}

void fft_local_build_options(int nx, int ny, int use_double, int lines_y, int lines_x, size_t work_group, char *buf,
                             size_t len)
{
    char passes_x[256], passes_y[256];
    passes_of(nx, passes_x, sizeof passes_x);
    passes_of(ny, passes_y, sizeof passes_y);
    snprintf(buf, len, "-cl-std=CL1.2 -D N_X=%d -D N_Y=%d -D USE_DOUBLE=%d -D LINES_Y=%d -D LINES_X=%d -D FFT_WG=%zu "
             "-D PASSES_X=%s -D PASSES_Y=%s", nx, ny, use_double, lines_y, lines_x, work_group, passes_x, passes_y);
}

static int local_create(struct clx_context *ctx, enum fft_kind kind, int nx, int ny, int batch, int use_double,
                        int data_w, int data_h, void **out)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    *out = NULL;
    if (!fft_kind_real(kind))
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED,
                        "fft=local makes real transforms only; fft_pack=1 (complex pairs) needs fft=clfft or vkfft");
    if (nx % 2 || ny % 2 || local_good_size(nx) != nx || local_good_size(ny) != ny)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fft=local: %dx%d is not an even product of 2, 3, 5 and 7", nx, ny);
    /* A power of two, with 2 lines_y <= wg: each work-item of
     * fft_c2r_columns stores one column (cl/fft_local.cl). */
    size_t wg = WORK_GROUP;
    while (wg > 1 && wg > ctx->dev.max_work_group_size)
        wg /= 2;
    int lines_y = lines_for(ny, rs, ctx->dev.info.local_memory, kind == FFT_C2R ? peak_reduction_bytes(wg, rs) : 0);
    int lines_x = lines_for(nx, rs, ctx->dev.info.local_memory, 0);
    if ((size_t)lines_y > wg / 2)
        lines_y = (int)(wg / 2);
    if (lines_y == 0 || lines_x == 0)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED,
                        "fft=local: a %dx%d %s transform's lines do not fit %s's %llu bytes of local memory; use "
                        "fft=clfft or vkfft", nx, ny, use_double ? "double" : "float", ctx->dev.info.name,
                        ctx->dev.info.local_memory);
    struct local_fft_state *st = calloc(1, sizeof *st);
    if (!st)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    st->kind = kind;
    st->data_w = kind == FFT_R2C ? data_w : nx;
    st->data_h = kind == FFT_R2C ? data_h : ny;
    st->nlines = (cl_int)(batch * (ny / 2 + 1));
    st->local_size = wg;
    /* R2C: only the column groups that hold data; C2R: all of them. */
    st->columns_global[0] = wg * (size_t)((st->data_w + 2 * lines_y - 1) / (2 * lines_y));
    st->columns_global[1] = (size_t)batch;
    st->rows_global = wg * (size_t)((st->nlines + lines_x - 1) / lines_x);

    char options[768];
    fft_local_build_options(nx, ny, use_double, lines_y, lines_x, wg, options, sizeof options);
    int status = own_fft_kernels_create(ctx, "fft_local.cl", options, kind, nx, ny, use_double, &st->k);
    if (status == CLX_OK && kind == FFT_C2R)
        status = kernel_create(ctx, st->k.program, "fft_c2r_columns_peaks", &st->columns_peaks);
    if (status != CLX_OK) {
        local_destroy(st);
        return status;
    }
    ctx_log(ctx, CLX_LOG_DEBUG, "local FFT %s plan %dx%d x %d (%s), data %dx%d, lines %d/%d, work-groups of %zu",
            fft_kind_name(kind), nx, ny, batch, use_double ? "double" : "float", data_w, data_h, lines_y, lines_x,
            wg);
    *out = st;
    return CLX_OK;
}

/* The spectrum rows along x, in place; columns from `cols` on are zeros. */
static int enqueue_rows(struct clx_context *ctx, struct local_fft_state *st, cl_mem spectra, cl_int cols, cl_int dir)
{
    cl_kernel k = st->k.rows;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof spectra, &spectra));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof st->k.twiddles_x, &st->k.twiddles_x));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof st->nlines, &st->nlines));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof cols, &cols));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof dir, &dir));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &st->rows_global, &st->local_size, 0, NULL, NULL));
error:
    return status;
}

/* The columns along y (fft_own_kernels.h), over this plan's column groups. */
static int enqueue_columns(struct clx_context *ctx, struct local_fft_state *st, cl_mem in, cl_mem out)
{
    const size_t local[2] = { st->local_size, 1 };
    return own_fft_enqueue_columns(ctx, &st->k, st->kind, st->data_w, st->data_h, in, out, st->columns_global, local);
}

static int local_execute(struct clx_context *ctx, void *p, cl_mem in, cl_mem out)
{
    struct local_fft_state *st = p;
    int status;
    if (st->kind == FFT_R2C)
        return (status = enqueue_columns(ctx, st, in, out)) != CLX_OK ? status
                                                                      : enqueue_rows(ctx, st, out, st->data_w, 1);
    /* C2R: the rows in place (the input is overwritten, as fft_backend.h allows), then the columns. */
    return (status = enqueue_rows(ctx, st, in, st->data_w, -1)) != CLX_OK ? status : enqueue_columns(ctx, st, in, out);
}

/* The C2R's columns with the peak search (fft_c2r_columns_peaks): one
 * (value, index) pair per column group and array into `parts`. */
static int enqueue_columns_peaks(struct clx_context *ctx, struct local_fft_state *st, cl_mem spectra, cl_mem out,
                                 const struct peak_parts *parts)
{
    const size_t local[2] = { st->local_size, 1 };
    const cl_int logical_w = 2 * parts->win_w, logical_h = 2 * parts->win_h;
    cl_kernel k = st->columns_peaks;
    cl_uint arg = 0;
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof spectra, &spectra));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof out, &out));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof st->k.twiddles_y, &st->k.twiddles_y));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof parts->values, &parts->values));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof parts->indices, &parts->indices));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof parts->search_rx, &parts->search_rx));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof parts->search_ry, &parts->search_ry));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof logical_w, &logical_w));
    CL_CALL(ctx, clSetKernelArg(k, arg++, sizeof logical_h, &logical_h));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, st->columns_global, local, 0, NULL, NULL));
error:
    return status;
}

/* fft_backend.h's peak_parts_per_array: one pair per column group. */
static int local_peak_parts_per_array(const void *inverse)
{
    const struct local_fft_state *st = inverse;
    return st->kind == FFT_C2R ? (int)(st->columns_global[0] / st->local_size) : 0;
}

/* fft_backend.h's correlate: the R2C's columns, fft_rows_correlate (its rows
 * forward, the multiply and the C2R's rows inverse in one pass), the C2R's
 * columns, with the peak search's first half when `parts` is given. */
static int local_correlate(struct clx_context *ctx, void *forward, void *inverse, cl_mem in, cl_mem spectra,
                           cl_mem ref_spectra, int nwin, cl_mem out, const struct peak_parts *parts)
{
    struct local_fft_state *f = forward;
    cl_kernel k = f->k.rows_correlate;
    cl_int n = nwin, cols = f->data_w;
    int status = enqueue_columns(ctx, f, in, spectra);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(k, 0, sizeof spectra, &spectra));
    CL_CALL(ctx, clSetKernelArg(k, 1, sizeof ref_spectra, &ref_spectra));
    CL_CALL(ctx, clSetKernelArg(k, 2, sizeof f->k.twiddles_x, &f->k.twiddles_x));
    CL_CALL(ctx, clSetKernelArg(k, 3, sizeof f->nlines, &f->nlines));
    CL_CALL(ctx, clSetKernelArg(k, 4, sizeof cols, &cols));
    CL_CALL(ctx, clSetKernelArg(k, 5, sizeof n, &n));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &f->rows_global, &f->local_size, 0, NULL, NULL));
    if (parts)
        return enqueue_columns_peaks(ctx, inverse, spectra, out, parts);
    return enqueue_columns(ctx, inverse, spectra, out);
error:
    return status;
}

const struct fft_backend fft_backend_local = {
    .name = "local",
    .good_size = local_good_size,
    .spectrum_elements = local_spectrum_elements,
    .create = local_create,
    .execute = local_execute,
    .correlate = local_correlate,
    .peak_parts_per_array = local_peak_parts_per_array,
    .destroy = local_destroy,
};
