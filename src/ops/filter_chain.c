/*
 * filter_chain.c - the clx_filter object and the chain on the device: each stage's
 * taps and kernels, the temporaries between stages, and enqueueing the
 * stages on the tiled (cl/filter_tiled.cl) or separable
 * (cl/filter_separable.cl) path.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl/vector_layout.h"  /* the vector form's NDRange */
#include "ops/filter_chain.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/program_build.h"
#include "runtime/handle.h"

/* The tiled kernel's fixed shape (cl/filter_tiled.cl). */
#define TILED_WI 8
#define TILED_TILE 32
/* The largest radius whose row pass keeps four outputs a work-item. */
#define ROWS_BLOCKED_MAX_RADIUS 40
/* Images per call: they go along an NDRange dimension. */
#define MAX_IMAGES 65535

void clx_filter_options_init(clx_filter_options *o)
{
    memset(o, 0, sizeof *o);
    o->border = CLX_BORDER_MIRROR;
}

int filter_smoothing(const struct clx_filter *f, double *taps, int max_radius, int *radius)
{
    /* The full kernel, -r .. r, grown stage by stage. */
    double full[2 * 256 + 1] = { 1 }, next[2 * 256 + 1];
    int r = 0;
    if (max_radius > 256)
        max_radius = 256;
    for (int s = 0; f && s < f->chain.nstages; s++) {
        const struct filter_stage *st = &f->chain.stages[s];
        if (st->epilogue != EPILOGUE_FILTERED)
            continue;
        int sr = st->radius, nr = r + sr;
        if (nr > max_radius)
            return -1;
        for (int k = 0; k <= 2 * sr; k++)
            if (fabs(st->taps[k] - st->taps[2 * sr - k]) > 1e-12 * fabs(st->taps[k]))
                return -1;
        for (int i = 0; i <= 2 * nr; i++) {
            double sum = 0;
            for (int k = 0; k <= 2 * sr; k++) {
                int j = i - k;
                if (j >= 0 && j <= 2 * r)
                    sum += full[j] * st->taps[k];
            }
            next[i] = sum;
        }
        memcpy(full, next, sizeof *full * (2 * nr + 1));
        r = nr;
    }
    for (int k = 0; k <= r; k++)
        taps[k] = full[r + k];
    *radius = r;
    return 0;
}

void filter_force_path(struct clx_filter *f, enum filter_path path)
{
    f->path = path;
}

static size_t real_size(const struct clx_filter *f)
{
    return f->opt.use_double ? sizeof(double) : sizeof(float);
}

/* The kernels stage s runs: filter_tiled.cl, filter_separable.cl or filter_vector.cl. */
enum stage_form { STAGE_TILED, STAGE_SEPARABLE, STAGE_VECTOR };

static enum stage_form stage_form_of(const struct clx_filter *f, int s)
{
    enum filter_path path = f->path;
    if (path == FILTER_PATH_AUTO)
        path = f->ctx->dev.info.type == CLX_DEVICE_CPU ? FILTER_PATH_VECTOR : FILTER_PATH_LOCAL_MEMORY;
    if (path == FILTER_PATH_VECTOR)
        return STAGE_VECTOR;
    if (path == FILTER_PATH_LOCAL_MEMORY && f->chain.stages[s].radius <= 2)
        return STAGE_TILED;
    return STAGE_SEPARABLE;
}

/* ---- create / release ---------------------------------------------------- */

static int check_options(struct clx_context *ctx, const clx_filter_options *o)
{
    if (o->border != CLX_BORDER_CLAMP && o->border != CLX_BORDER_MIRROR && o->border != CLX_BORDER_ZERO)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "unknown border rule %d", (int)o->border);
    const clx_region *rois[2] = { &o->source_roi, &o->target_roi };
    for (int i = 0; i < 2; i++)
        if (rois[i]->x < 0 || rois[i]->y < 0 || rois[i]->w < 0 || rois[i]->h < 0)
            return ctx_fail(ctx, CLX_ERR_REGION, "%s ROI %d,%d,%d,%d: negative values", i ? "target" : "source",
                            rois[i]->x, rois[i]->y, rois[i]->w, rois[i]->h);
    if (o->use_double && !ctx->dev.info.has_fp64)
        return ctx_fail(ctx, CLX_ERR_UNSUPPORTED,
                        "device %s has no double precision (cl_khr_fp64); filter without --double",
                        ctx->dev.info.name);
    return CLX_OK;
}

static int upload_taps(struct clx_filter *f)
{
    int status = CLX_OK;
    for (int s = 0; s < f->chain.nstages && status == CLX_OK; s++) {
        const struct filter_stage *st = &f->chain.stages[s];
        status = ctx_create_reals(f->ctx, st->taps, 2 * (size_t)st->radius + 1, f->opt.use_double, &f->taps[s],
                                  "filter taps");
    }
    return status;
}

/* The end of both creations: f (its chain filled in) keeps its own copy
 * of `spec` and its taps on the device, and is *out; or it is destroyed. */
static int filter_finish(struct clx_filter *f, const char *spec, struct clx_filter **out)
{
    int status = CLX_OK;
    if (!(f->spec = strdup(spec)))
        status = ctx_fail(f->ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    if (status == CLX_OK) {
        f->opt.spec = f->spec;
        status = upload_taps(f);
    }
    if (status != CLX_OK) {
        filter_destroy(f);
        return status;
    }
    *out = f;
    return CLX_OK;
}

/* A new filter of `options` for ctx, its chain still empty. */
static int filter_new(struct clx_context *ctx, const clx_filter_options *options, struct clx_filter **f)
{
    int status = check_options(ctx, options);
    if (status != CLX_OK)
        return status;
    if (!(*f = calloc(1, sizeof **f)))
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    (*f)->ctx = ctx;
    (*f)->opt = *options;
    return CLX_OK;
}

int filter_create(struct clx_context *ctx, const clx_filter_options *options, struct clx_filter **out)
{
    struct clx_filter *f;
    *out = NULL;
    int status = filter_new(ctx, options, &f);
    if (status != CLX_OK)
        return status;
    if ((status = filter_spec_parse(options->spec, &f->chain, &ctx->message)) != CLX_OK) {
        filter_destroy(f);
        return status;
    }
    return filter_finish(f, options->spec, out);
}

int filter_create_taps(struct clx_context *ctx, const double *taps, int radius, clx_border border, int use_double,
                       struct clx_filter **out)
{
    clx_filter_options o;
    clx_filter_options_init(&o);
    o.border = border;
    o.use_double = use_double;
    struct clx_filter *f;
    *out = NULL;
    if (radius < 1 || radius > CLX_FILTER_MAX_RADIUS)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "filter taps of radius %d: from 1 to %d", radius,
                        CLX_FILTER_MAX_RADIUS);
    int status = filter_new(ctx, &o, &f);
    if (status != CLX_OK)
        return status;
    f->input_real = 1;
    struct filter_stage *st = &f->chain.stages[0];
    f->chain.nstages = 1;
    st->kind = FILTER_TAPS;
    st->radius = radius;
    st->epilogue = EPILOGUE_FILTERED;
    for (int k = 0; k <= radius; k++)
        st->taps[radius - k] = st->taps[radius + k] = taps[k];
    return filter_finish(f, "taps", out);
}

/* The handle table's way to free a filter whose context goes first. */
static void filter_destroy_handle(void *f)
{
    filter_destroy(f);
}

int clx_filter_create(clx_context *ctx, const clx_filter_options *options, clx_filter **out)
{
    int status = handle_check(ctx, HANDLE_CONTEXT);
    if (status != CLX_OK)
        return status;
    if (!options || !out)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "clx_filter_create: NULL argument");
    if ((status = filter_create(ctx, options, out)) != CLX_OK)
        return status;
    if (handle_add(*out, HANDLE_FILTER, ctx, filter_destroy_handle) != CLX_OK) {
        filter_destroy(*out);
        *out = NULL;
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    return CLX_OK;
}

static void kernels_release(struct filter_kernels *k)
{
    cl_kernel kernels[] = { k->tiled, k->rows, k->columns };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i])
            clReleaseKernel(kernels[i]);
    if (k->program)
        clReleaseProgram(k->program);
    memset(k, 0, sizeof *k);
}

void clx_filter_release(clx_filter *f)
{
    /* A filter released twice, or never created, is left alone. */
    if (f && handle_remove(f, HANDLE_FILTER))
        filter_destroy(f);
}

void filter_destroy(struct clx_filter *f)
{
    if (!f)
        return;
    for (int s = 0; s < CLX_FILTER_MAX_STAGES; s++) {
        for (int t = 0; t < 3; t++)
            kernels_release(&f->kernels[s][t]);
        if (f->taps[s])
            clReleaseMemObject(f->taps[s]);
    }
    cl_mem bufs[] = { f->rows, f->between[0], f->between[1], f->input, f->output };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(f->spec);
    free(f);
}

/* ---- kernels ------------------------------------------------------------- */

/* Stage s's build options: its radius, border, epilogue and input. */
static void stage_params(const struct clx_filter *f, int s, clx_pixel_type type, struct kernel_params *p)
{
    const struct filter_stage *st = &f->chain.stages[s];
    kernel_params_defaults(p, &f->ctx->dev);
    p->use_double = f->opt.use_double;
    /* Later stages read reals: one program whatever the input's type. */
    const int reads_real = s > 0 || f->input_real;
    p->pixel = reads_real ? CLX_PIXEL_F32 : type;
    p->filter_input_real = reads_real;
    p->filter_r = st->radius;
    p->filter_border = (int)f->opt.border;
    p->filter_epilogue = (int)st->epilogue;
    /* The separable row pass's register blocking (cl/filter_separable.cl):
     * four outputs a work-item, up to a radius whose 4 + 2 r values a
     * work-item holds without spilling. */
    p->filter_rows_k = stage_form_of(f, s) == STAGE_SEPARABLE && st->radius <= ROWS_BLOCKED_MAX_RADIUS ? 4 : 1;
}

/* Stage s's kernels for input `type`, built on first use. */
static int stage_kernels(struct clx_filter *f, int s, clx_pixel_type type, struct filter_kernels **out)
{
    struct filter_kernels *k = &f->kernels[s][s == 0 && !f->input_real ? type - 1 : 0];
    struct kernel_params p;
    int status;
    *out = k;
    if (k->program)
        return CLX_OK;
    stage_params(f, s, type, &p);
    enum stage_form form = stage_form_of(f, s);
    if (form == STAGE_TILED) {
        if ((status = program_build_params(f->ctx, "filter_tiled.cl", &p, &k->program)) == CLX_OK)
            status = kernel_create(f->ctx, k->program, "filter_tiled", &k->tiled);
    } else if (form == STAGE_VECTOR) {
        if ((status = program_build_params(f->ctx, "filter_vector.cl", &p, &k->program)) == CLX_OK &&
            (status = kernel_create(f->ctx, k->program, "filter_rows_vector", &k->rows)) == CLX_OK)
            status = kernel_create(f->ctx, k->program, "filter_columns_vector", &k->columns);
    } else {
        if ((status = program_build_params(f->ctx, "filter_separable.cl", &p, &k->program)) == CLX_OK &&
            (status = kernel_create(f->ctx, k->program, "filter_rows", &k->rows)) == CLX_OK)
            status = kernel_create(f->ctx, k->program, "filter_columns", &k->columns);
    }
    if (status != CLX_OK)
        kernels_release(k);
    return status;
}

/* ---- temporaries ----------------------------------------------------------- */

/* Grows *buf to at least `bytes` (the old contents are not kept). */
static int reserve(struct clx_filter *f, cl_mem *buf, size_t *have, size_t bytes, const char *what)
{
    return ctx_buffer_reserve(f->ctx, buf, have, bytes, "filter", what);
}

int filter_reserve_images(struct clx_filter *f, size_t input_bytes, size_t output_bytes)
{
    int status = reserve(f, &f->input, &f->input_bytes, input_bytes, "input images");
    if (status == CLX_OK)
        status = reserve(f, &f->output, &f->output_bytes, output_bytes, "output images");
    return status;
}

/* ---- enqueueing ---------------------------------------------------------- */

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* Sets a kernel's arguments from `first` on: a buffer and its layout. */
static int set_layout_args(struct clx_context *ctx, cl_kernel k, cl_uint first, cl_mem buf,
                           const struct filter_layout *l)
{
    int status = CLX_OK;
    CL_CALL(ctx, clSetKernelArg(k, first, sizeof buf, &buf));
    CL_CALL(ctx, clSetKernelArg(k, first + 1, sizeof l->offset, &l->offset));
    CL_CALL(ctx, clSetKernelArg(k, first + 2, sizeof l->pitch, &l->pitch));
    CL_CALL(ctx, clSetKernelArg(k, first + 3, sizeof l->stride, &l->stride));
error:
    return status;
}

/* A stage's endpoints: what it reads and where it writes. */
struct stage_io {
    cl_mem in, out;
    struct filter_layout in_layout, out_layout;
    int w, h, nimages;
};

static int enqueue_tiled(struct clx_filter *f, int s, const struct filter_kernels *k, const struct stage_io *io)
{
    struct clx_context *ctx = f->ctx;
    cl_kernel kt = k->tiled;
    int status;
    if ((status = set_layout_args(ctx, kt, 0, io->in, &io->in_layout)) != CLX_OK ||
        (status = set_layout_args(ctx, kt, 4, io->out, &io->out_layout)) != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(kt, 8, sizeof io->w, &io->w));
    CL_CALL(ctx, clSetKernelArg(kt, 9, sizeof io->h, &io->h));
    CL_CALL(ctx, clSetKernelArg(kt, 10, sizeof f->taps[s], &f->taps[s]));
    size_t local[3] = { TILED_WI, TILED_WI, 1 };
    size_t global[3] = { TILED_WI * (((size_t)io->w + TILED_TILE - 1) / TILED_TILE),
                         TILED_WI * (((size_t)io->h + TILED_TILE - 1) / TILED_TILE), (size_t)io->nimages };
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, kt, 3, NULL, global, local, 0, NULL, NULL));
error:
    return status;
}

/* cl/filter_vector.cl's NDRange (vector_layout.h): the row pass one work-item per row, the
 * column pass one per strip of VECTOR_STRIP columns and `rows` (FILTER_K) rows; any local size. */
static void vector_range(const struct stage_io *io, int columns, int rows, size_t global[3])
{
    global[0] = ((size_t)io->w + columns - 1) / columns;
    global[1] = ((size_t)io->h + rows - 1) / rows;
    global[2] = (size_t)io->nimages;
}

static int enqueue_rows(struct clx_filter *f, int s, const struct filter_kernels *k, const struct stage_io *io,
                        const struct kernel_params *fp)
{
    struct clx_context *ctx = f->ctx;
    int status;
    if ((status = set_layout_args(ctx, k->rows, 0, io->in, &io->in_layout)) != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(k->rows, 4, sizeof f->rows, &f->rows));
    CL_CALL(ctx, clSetKernelArg(k->rows, 5, sizeof io->w, &io->w));
    CL_CALL(ctx, clSetKernelArg(k->rows, 6, sizeof io->h, &io->h));
    CL_CALL(ctx, clSetKernelArg(k->rows, 7, sizeof f->taps[s], &f->taps[s]));
    size_t local[3] = { (size_t)fp->filter_rows_tx, (size_t)fp->filter_rows_ty, 1 };
    size_t per_item = (size_t)fp->filter_rows_k;
    size_t global[3] = { round_up(((size_t)io->w + per_item - 1) / per_item, local[0]), round_up((size_t)io->h, local[1]),
                         (size_t)io->nimages };
    const int vector = stage_form_of(f, s) == STAGE_VECTOR;
    if (vector)
        vector_range(io, io->w, 1, global);
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k->rows, 3, NULL, global, vector ? NULL : local, 0, NULL, NULL));
error:
    return status;
}

static int enqueue_columns(struct clx_filter *f, int s, const struct filter_kernels *k, const struct stage_io *io,
                           const struct kernel_params *fp)
{
    struct clx_context *ctx = f->ctx;
    int status;
    CL_CALL(ctx, clSetKernelArg(k->columns, 0, sizeof f->rows, &f->rows));
    if ((status = set_layout_args(ctx, k->columns, 1, io->in, &io->in_layout)) != CLX_OK ||
        (status = set_layout_args(ctx, k->columns, 5, io->out, &io->out_layout)) != CLX_OK)
        return status;
    CL_CALL(ctx, clSetKernelArg(k->columns, 9, sizeof io->w, &io->w));
    CL_CALL(ctx, clSetKernelArg(k->columns, 10, sizeof io->h, &io->h));
    CL_CALL(ctx, clSetKernelArg(k->columns, 11, sizeof f->taps[s], &f->taps[s]));
    size_t local[3] = { (size_t)fp->filter_cols_tx, (size_t)fp->filter_cols_ty, 1 };
    size_t global[3] = { round_up((size_t)io->w, local[0]),
                         round_up(((size_t)io->h + fp->filter_k - 1) / fp->filter_k, local[1]), (size_t)io->nimages };
    const int vector = stage_form_of(f, s) == STAGE_VECTOR;
    if (vector)
        vector_range(io, VECTOR_STRIP, fp->filter_k, global);
    CL_CALL(ctx, clEnqueueNDRangeKernel(ctx->queue, k->columns, 3, NULL, global, vector ? NULL : local, 0, NULL, NULL));
error:
    return status;
}

static int enqueue_stage(struct clx_filter *f, int s, clx_pixel_type type, const struct stage_io *io)
{
    struct filter_kernels *k;
    int status = stage_kernels(f, s, type, &k);
    if (status != CLX_OK)
        return status;
    if (stage_form_of(f, s) == STAGE_TILED)
        return enqueue_tiled(f, s, k, io);
    /* The work-group shapes the program was built with. */
    struct kernel_params p;
    stage_params(f, s, type, &p);
    size_t bytes = real_size(f) * io->w * io->h * io->nimages;
    if ((status = reserve(f, &f->rows, &f->rows_bytes, bytes, "row-pass temporaries")) != CLX_OK ||
        (status = enqueue_rows(f, s, k, io, &p)) != CLX_OK)
        return status;
    return enqueue_columns(f, s, k, io, &p);
}

static int check_run(struct clx_filter *f, clx_pixel_type type, int w, int h, int nimages)
{
    if (type < CLX_PIXEL_U8 || type > CLX_PIXEL_F32)
        return ctx_fail(f->ctx, CLX_ERR_ARGUMENT, "filter: unknown pixel type %d", (int)type);
    if (w < 1 || h < 1 || nimages < 1)
        return ctx_fail(f->ctx, CLX_ERR_ARGUMENT, "filter: nothing to filter (%dx%d, %d images)", w, h, nimages);
    if (nimages > MAX_IMAGES)
        return ctx_fail(f->ctx, CLX_ERR_ARGUMENT, "filter: %d images in one call; at most %d", nimages, MAX_IMAGES);
    if ((long long)w * h > INT_MAX)
        return ctx_fail(f->ctx, CLX_ERR_SIZE, "filter: %dx%d pixels are too many for one image", w, h);
    return CLX_OK;
}

int filter_run(struct clx_filter *f, cl_mem input, clx_pixel_type type, struct filter_layout in, cl_mem output,
               struct filter_layout out, int w, int h, int nimages)
{
    int status = check_run(f, type, w, h, nimages);
    if (status != CLX_OK)
        return status;
    const struct filter_layout compact = { 0, w, w * h };
    int n = f->chain.nstages;
    size_t between = real_size(f) * w * h * nimages;
    for (int i = 0; i < 2 && i < n - 1; i++)
        if ((status = reserve(f, &f->between[i], &f->between_bytes[i], between, "intermediate images")) != CLX_OK)
            return status;
    for (int s = 0; s < n; s++) {
        struct stage_io io = { s == 0 ? input : f->between[(s - 1) % 2], s == n - 1 ? output : f->between[s % 2],
                               s == 0 ? in : compact, s == n - 1 ? out : compact, w, h, nimages };
        if ((status = enqueue_stage(f, s, type, &io)) != CLX_OK)
            return status;
    }
    return CLX_OK;
}

int filter_enqueue(struct clx_filter *f, cl_mem input, clx_pixel_type input_type, int width, int height,
                   int nimages, cl_mem output)
{
    if ((long long)width * height > INT_MAX)
        return ctx_fail(f->ctx, CLX_ERR_SIZE, "filter: %dx%d pixels are too many for one image", width, height);
    const struct filter_layout whole = { 0, width, width * height };
    return filter_run(f, input, input_type, whole, output, whole, width, height, nimages);
}
