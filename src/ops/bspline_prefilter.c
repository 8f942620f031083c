/*
 * bspline_prefilter.c - the B-spline coefficients of a batch of device
 * images, by a separable FIR: the exact inverse filter's impulse response,
 * computed here once. Unser's recursion (the gain, then per pole a causal
 * and an anticausal first-order recursion) runs in double on a long unit
 * impulse, truncated at the radius where the neglected tail falls below
 * TAIL_TOL of the centre tap, and normalised so that a constant image gives
 * back the constant (the B-spline's samples sum to 1, so the taps must
 * too). The recursion itself, one work-item per row or column stepping
 * serially along the line, left GPUs nearly idle.
 *
 * Where the FIR runs:
 *   GPUs: on the pre-filter's separable kernels (filter_create_taps,
 *   cl/filter_separable.cl: rows staged in local memory, columns register
 *   blocked), the whole batch at once. The one-work-item-per-output
 *   FIR it replaced read every tap from the cache and took 6.65 ms per 256
 *   ebsd-900 coefficient images on an H100.
 *   CPUs: cl/bspline_prefilter.cl's vector forms, the rows into a scratch
 *   buffer and the columns from there, a chunk at a time; for the cubic
 *   B-spline the columns by the recursion in place instead.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "cl/vector_layout.h"    /* the vector forms' NDRanges */
#include "ops/bspline_prefilter.h"
#include "ops/filter_chain.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/* The tail left out of the FIR, relative to the centre tap: below float's
 * resolution, or in double far below test_bspline's 1e-10 of the image's
 * largest value (double's own 1e-16 would take the quintic to 89 taps a
 * pass for nothing measurable). */
#define TAIL_TOL_FLOAT 1e-8
#define TAIL_TOL_DOUBLE 1e-13

/* Samples per chunk of images the CPU forms' scratch buffer holds (at
 * least one image). */
#define CHUNK_SAMPLES_CPU ((size_t)1 << 22)

/* The impulse's half length for the taps' recursion: z^IMPULSE_HALF is
 * far below double's resolution for every pole (|z| <= 0.431). */
#define IMPULSE_HALF 256
#define MAX_RADIUS 128

/*
 * The inverse filter's taps, h[0..*radius] (h[k] weights the samples k
 * either side), for the B-spline `interp`, truncated at tolerance `tol`
 * and normalised. Returns 0, or -1 if the radius would pass MAX_RADIUS.
 */
static int inverse_taps(int interp, double tol, double h[MAX_RADIUS + 1], int *radius)
{
    static const double cubic[] = { -0.267949192431122706472553658494 }; /* sqrt(3) - 2 */
    static const double quintic[] = { -0.430575347099973791851434783493520, -0.043096288203264653822712376822550 };
    const double *poles = interp == INTERP_BSPLINE3 ? cubic : quintic;
    const int npoles = interp == INTERP_BSPLINE3 ? 1 : 2;
    const double gain = interp == INTERP_BSPLINE3 ? 6 : 120;
    enum { N = 2 * IMPULSE_HALF + 1 };
    double c[N] = { 0 };
    c[IMPULSE_HALF] = gain;
    for (int p = 0; p < npoles; p++) {
        const double z = poles[p];
        /* Both ends are zero to double precision: plain starts suffice. */
        for (int k = 1; k < N; k++)
            c[k] += z * c[k - 1];
        c[N - 1] = z / (z * z - 1) * (z * c[N - 2] + c[N - 1]);
        for (int k = N - 2; k >= 0; k--)
            c[k] = z * (c[k + 1] - c[k]);
    }
    /* The radius: the tail beyond it, both sides, below tol of the centre. */
    double tail = 0;
    int r = IMPULSE_HALF;
    while (r > 0 && tail + 2 * fabs(c[IMPULSE_HALF + r]) <= tol * fabs(c[IMPULSE_HALF])) {
        tail += 2 * fabs(c[IMPULSE_HALF + r]);
        r--;
    }
    if (r > MAX_RADIUS)
        return -1;
    double sum = c[IMPULSE_HALF];
    for (int k = 1; k <= r; k++)
        sum += 2 * c[IMPULSE_HALF + k];
    for (int k = 0; k <= r; k++)
        h[k] = c[IMPULSE_HALF + k] / sum;
    *radius = r;
    return 0;
}

void bspline_prefilter_destroy(struct bspline_prefilter *b)
{
    if (!b)
        return;
    filter_destroy(b->fir);
    if (b->rows)
        clReleaseKernel(b->rows);
    if (b->columns)
        clReleaseKernel(b->columns);
    if (b->program)
        clReleaseProgram(b->program);
    if (b->taps)
        clReleaseMemObject(b->taps);
    free(b->taps_host);
    if (b->scratch)
        clReleaseMemObject(b->scratch);
    free(b);
}

/* The CPU form's kernel for a pass: the vector FIR along rows, and along
 * columns the recursion for the cubic B-spline, else the vector FIR. */
static const char *kernel_name(const struct bspline_prefilter *b, int columns)
{
    if (!columns)
        return "bspline_rows_vector";
    return b->recursive ? "bspline_columns_recursive" : "bspline_columns_vector";
}

int bspline_prefilter_create(struct clx_context *ctx, const struct kernel_params *p, struct bspline_prefilter **out)
{
    int status;
    *out = NULL;
    if (!INTERP_IS_BSPLINE(p->interp))
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "B-spline prefilter for interpolation %d, which is no B-spline",
                        p->interp);
    double h[MAX_RADIUS + 1];
    int radius;
    if (inverse_taps(p->interp, p->use_double ? TAIL_TOL_DOUBLE : TAIL_TOL_FLOAT, h, &radius) != 0)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "B-spline prefilter: taps beyond radius %d", MAX_RADIUS);
    struct bspline_prefilter *b = calloc(1, sizeof *b);
    if (!b)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    b->ctx = ctx;
    b->real_size = p->use_double ? sizeof(double) : sizeof(float);
    b->radius = radius;
    b->recursive = p->bspline_form == 1 && p->interp == INTERP_BSPLINE3;
    if (!(b->taps_host = malloc(sizeof *b->taps_host * (radius + 1)))) {
        free(b);
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    for (int k = 0; k <= radius; k++)
        b->taps_host[k] = h[k];
    if (p->bspline_form == 0) {
        /* Mirrored about the edge samples, as interp.h's tap_index reads
         * coefficients outside the image. */
        if ((status = filter_create_taps(ctx, h, radius, CLX_BORDER_MIRROR, p->use_double, &b->fir)) != CLX_OK)
            goto error;
        *out = b;
        return CLX_OK;
    }
    if ((status = program_build_params(ctx, "bspline_prefilter.cl", p, &b->program)) != CLX_OK ||
        (status = kernel_create(ctx, b->program, kernel_name(b, 0), &b->rows)) != CLX_OK ||
        (status = kernel_create(ctx, b->program, kernel_name(b, 1), &b->columns)) != CLX_OK ||
        (status = ctx_create_reals(ctx, h, (size_t)radius + 1, p->use_double, &b->taps, "B-spline prefilter taps")) !=
            CLX_OK)
        goto error;
    *out = b;
    return CLX_OK;
error:
    bspline_prefilter_destroy(b);
    return status;
}

/* The row pass over rows [first_row, first_row + rows) of `images` into
 * `out` from its start, one work-item per row, in work-groups of one:
 * PoCL's own choice of several work-items, which it interleaves, ran the
 * vector passes at half speed. */
static int enqueue_rows(struct bspline_prefilter *b, cl_mem images, cl_mem out, int w, int rows, int first_row)
{
    struct clx_context *ctx = b->ctx;
    int status = CLX_OK;
    size_t global[2] = { 1, (size_t)rows }, local[2] = { 1, 1 };
    CL_CALL(ctx, clSetKernelArg(b->rows, 0, sizeof images, &images));
    CL_CALL(ctx, clSetKernelArg(b->rows, 1, sizeof out, &out));
    CL_CALL(ctx, clSetKernelArg(b->rows, 2, sizeof b->taps, &b->taps));
    CL_CALL(ctx, clSetKernelArg(b->rows, 3, sizeof b->radius, &b->radius));
    CL_CALL(ctx, clSetKernelArg(b->rows, 4, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(b->rows, 5, sizeof rows, &rows));
    CL_CALL(ctx, clSetKernelArg(b->rows, 6, sizeof first_row, &first_row));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, b->rows, 2, NULL, global, local, 0, NULL, NULL));
error:
    return status;
}

/* The cubic B-spline on a CPU: the rows from images into coeffs, then the
 * columns in place by the recursion, every image at once (no scratch). */
static int enqueue_recursive(struct bspline_prefilter *b, cl_mem images, int w, int h, int nimages, cl_mem coeffs)
{
    struct clx_context *ctx = b->ctx;
    const int first = 0;
    size_t columns_global[2] = { ((size_t)w + 7) / 8, (size_t)nimages };
    int status = enqueue_rows(b, images, coeffs, w, nimages * h, 0);
    if (status != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(b->columns, 0, sizeof coeffs, &coeffs));
    CL_CALL(ctx, clSetKernelArg(b->columns, 1, sizeof b->radius, &b->radius));
    CL_CALL(ctx, clSetKernelArg(b->columns, 2, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(b->columns, 3, sizeof h, &h));
    CL_CALL(ctx, clSetKernelArg(b->columns, 4, sizeof nimages, &nimages));
    CL_CALL(ctx, clSetKernelArg(b->columns, 5, sizeof first, &first));
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, b->columns, 2, NULL, columns_global, NULL, 0, NULL, NULL));
error:
    return status;
}

/* Images per chunk of the CPU forms' scratch: at least one, at most all. */
static int chunk_images(int w, int h, int nimages)
{
    const size_t image = (size_t)w * h;
    int chunk = image >= CHUNK_SAMPLES_CPU ? 1 : (int)(CHUNK_SAMPLES_CPU / image);
    return chunk < nimages ? chunk : nimages;
}

/* GPUs: the separable filter over the whole batch (its row pass's
 * temporary is a batch of reals, which the plans' memory estimate counts;
 * chunks would put image offsets past an int on large batches). */
static int enqueue_separable(struct bspline_prefilter *b, cl_mem images, int w, int h, int nimages, cl_mem coeffs)
{
    const struct filter_layout whole = { 0, w, w * h };
    return filter_run(b->fir, images, CLX_PIXEL_F32, whole, coeffs, whole, w, h, nimages);
}

int bspline_prefilter_enqueue(struct bspline_prefilter *b, cl_mem images, int w, int h, int nimages, cl_mem coeffs)
{
    struct clx_context *ctx = b->ctx;
    int status = CLX_OK;
    if (nimages <= 0 || w <= 0 || h <= 0)
        return CLX_OK;
    if (b->fir)
        return enqueue_separable(b, images, w, h, nimages, coeffs);
    if (b->recursive)
        return enqueue_recursive(b, images, w, h, nimages, coeffs);
    const size_t image = (size_t)w * h;
    const int chunk = chunk_images(w, h, nimages);
    const size_t bytes = b->real_size * image * chunk;
    if (bytes > b->scratch_bytes) {
        if (b->scratch) {
            clFinish(ctx->queue);
            clReleaseMemObject(b->scratch);
            b->scratch = NULL;
            b->scratch_bytes = 0;
        }
        if ((status = ctx_create_buffer(ctx, bytes, &b->scratch, "B-spline prefilter scratch")) != CLX_OK)
            return status;
        b->scratch_bytes = bytes;
    }
    CL_CALL(ctx, clSetKernelArg(b->columns, 0, sizeof b->scratch, &b->scratch));
    CL_CALL(ctx, clSetKernelArg(b->columns, 1, sizeof coeffs, &coeffs));
    CL_CALL(ctx, clSetKernelArg(b->columns, 2, sizeof b->taps, &b->taps));
    CL_CALL(ctx, clSetKernelArg(b->columns, 3, sizeof b->radius, &b->radius));
    CL_CALL(ctx, clSetKernelArg(b->columns, 4, sizeof w, &w));
    CL_CALL(ctx, clSetKernelArg(b->columns, 5, sizeof h, &h));
    for (int first = 0; first < nimages; first += chunk) {
        const int count = nimages - first < chunk ? nimages - first : chunk;
        const int rows = count * h, first_row = first * h;
        if ((status = enqueue_rows(b, images, b->scratch, w, rows, first_row)) != CLX_OK)
            return status;
        CL_CALL(ctx, clSetKernelArg(b->columns, 6, sizeof rows, &rows));
        CL_CALL(ctx, clSetKernelArg(b->columns, 7, sizeof first, &first));
        /* Strips of VECTOR_STRIP columns by VECTOR_STRIP_ROWS rows, groups of one. */
        size_t global[2] = { ((size_t)w + VECTOR_STRIP - 1) / VECTOR_STRIP,
                             ((size_t)rows + VECTOR_STRIP_ROWS - 1) / VECTOR_STRIP_ROWS }, local[2] = { 1, 1 };
        CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, b->columns, 2, NULL, global, local, 0, NULL, NULL));
    }
error:
    return status;
}
