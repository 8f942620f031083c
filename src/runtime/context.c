/*
 * context.c - opening a device: OpenCL context, queue, program table, kernel
 * and cache directories; the context's log, errors, buffers and stage marks.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_source.h"
#include "runtime/program_table.h"

void clx_context_options_init(clx_context_options *o)
{
    memset(o, 0, sizeof *o);
    o->log_level = CLX_LOG_WARNING;
}

void ctx_log(struct clx_context *ctx, clx_log_level level, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    if (!ctx->log || level > ctx->log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, line);
}

int ctx_fail(struct clx_context *ctx, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_vfail(&ctx->message, status, fmt, ap);
    va_end(ap);
    return status;
}

int ctx_cl_fail(struct clx_context *ctx, cl_int code, const char *call, const char *file, int line)
{
    /* Name the function, not the whole call expression. */
    int name_len = (int)strcspn(call, "(");
    int status = cl_status(code);
    if (status == CLX_ERR_DEVICE_MEMORY)
        return ctx_fail(ctx, status,
                        "out of device memory or resources on %s (%.*s: %s at %s:%d); try a smaller batch",
                        ctx->dev.info.name, name_len, call, cl_errstr(code), file, line);
    return ctx_fail(ctx, status, "%.*s failed on %s: %s (%s:%d)", name_len, call,
                    ctx->dev.info.name, cl_errstr(code), file, line);
}

int ctx_create_buffer(struct clx_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        return CLX_OK;
    *out = NULL;
    if (cl_status(err) == CLX_ERR_DEVICE_MEMORY)
        return ctx_fail(ctx, CLX_ERR_DEVICE_MEMORY,
                        "out of device memory or resources on %s allocating the %s (%.1f MiB: %s); try a smaller "
                        "batch", ctx->dev.info.name, what, bytes / 1048576.0, cl_errstr(err));
    return ctx_fail(ctx, cl_status(err), "clCreateBuffer for the %s (%.1f MiB) failed on %s: %s", what,
                    bytes / 1048576.0, ctx->dev.info.name, cl_errstr(err));
}

int ctx_create_reals(struct clx_context *ctx, const double *values, size_t n, int use_double, cl_mem *out,
                     const char *what)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    float *narrowed = NULL;
    cl_int err;
    *out = NULL;
    if (!use_double) {
        if (!(narrowed = malloc(n * sizeof *narrowed)))
            return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
        for (size_t i = 0; i < n; i++)
            narrowed[i] = (float)values[i];
    }
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * rs,
                          use_double ? (void *)values : (void *)narrowed, &err);
    free(narrowed);
    if (err == CL_SUCCESS)
        return CLX_OK;
    *out = NULL;
    return ctx_fail(ctx, cl_status(err), "clCreateBuffer for the %s (%zu values) failed on %s: %s", what, n,
                    ctx->dev.info.name, cl_errstr(err));
}

int ctx_float_image_over(struct clx_context *ctx, cl_mem buffer, size_t texels, cl_mem *image, cl_mem *image_of,
                         const char *what)
{
    cl_image_format format = { CL_R, CL_FLOAT };
    cl_image_desc desc;
    cl_int err;
    if (*image && *image_of == buffer)
        return CLX_OK;
    if (*image)
        clReleaseMemObject(*image);
    *image_of = NULL;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    desc.image_width = texels;
    desc.buffer = buffer;
    *image = clCreateImage(ctx->cl, CL_MEM_READ_ONLY, &format, &desc, NULL, &err);
    if (err == CL_SUCCESS) {
        *image_of = buffer;
        return CLX_OK;
    }
    *image = NULL;
    return ctx_fail(ctx, cl_status(err), "clCreateImage for the %s (%zu texels over a buffer) failed on %s: %s", what,
                    texels, ctx->dev.info.name, cl_errstr(err));
}

int ctx_pinned_alloc(struct clx_context *ctx, size_t bytes, struct pinned *out, const char *what)
{
    cl_int err;
    memset(out, 0, sizeof *out);
    out->buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err == CL_SUCCESS) {
        out->host = clEnqueueMapBuffer(ctx->queue, out->buffer, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        if (err == CL_SUCCESS) {
            out->bytes = bytes;
            return CLX_OK;
        }
        clReleaseMemObject(out->buffer);
        out->buffer = NULL;
    }
    return ctx_fail(ctx, cl_status(err), "cannot allocate %.1f MiB of pinned host memory for the %s on %s: %s",
                    bytes / 1048576.0, what, ctx->dev.info.name, cl_errstr(err));
}

void ctx_pinned_free(struct clx_context *ctx, struct pinned *p)
{
    if (!p->buffer)
        return;
    clEnqueueUnmapMemObject(ctx->queue, p->buffer, p->host, 0, NULL, NULL);
    clFinish(ctx->queue);
    clReleaseMemObject(p->buffer);
    memset(p, 0, sizeof *p);
}

void ctx_profile_mark(struct clx_context *ctx, const char *name, double bytes)
{
    profile_mark(ctx->profile, ctx->queue, name, bytes);
}

void ctx_profile_begin(struct clx_context *ctx)
{
    profile_mark(ctx->profile, ctx->queue, NULL, 0);
}

/* The context's in-order queue, with profiling when ctx->profile is set. */
static cl_command_queue queue_create(struct clx_context *ctx, cl_int *err)
{
    cl_command_queue_properties props = ctx->profile ? CL_QUEUE_PROFILING_ENABLE : 0;
    return clCreateCommandQueue(ctx->cl, ctx->dev.device, props, err);
}

/* Frees what the context holds; for contexts that are not (or no longer) in the handle table. */
static void context_free(struct clx_context *ctx)
{
    if (!ctx)
        return;
    profile_release(ctx->profile);
    program_table_release(ctx->programs);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl)
        clReleaseContext(ctx->cl);
    free(ctx);
}

int ctx_clone(struct clx_context *ctx, struct clx_context **out)
{
    cl_int err;
    struct clx_context *c = malloc(sizeof *c);
    *out = NULL;
    if (!c)
        return CLX_ERR_HOST_MEMORY;
    *c = *ctx;
    msg_clear(&c->message);
    /* Stage times are taken on the context's own queue only (one plan at a
     * time, so that stages do not overlap); clones run unprofiled. */
    c->profile = NULL;
    c->queue = queue_create(c, &err);
    if (err != CL_SUCCESS) {
        free(c);
        return ctx_fail(ctx, cl_status(err), "cannot create another command queue on %s: %s",
                        ctx->dev.info.name, cl_errstr(err));
    }
    /* The clone holds its own references: the two are released in any order. */
    clRetainContext(c->cl);
    program_table_retain(c->programs);
    if (handle_add(c, HANDLE_CONTEXT, NULL, NULL) != CLX_OK) {
        context_free(c);
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    *out = c;
    return CLX_OK;
}

/* The device layer's skip messages go to the caller's log as warnings: a
 * skipped device changes where the job runs. */
struct skip_log {
    clx_log_fn log;
    void *user;
};

static void log_device_skip(void *user, const char *line)
{
    struct skip_log *s = user;
    if (s->log)
        s->log(s->user, CLX_LOG_WARNING, line);
}

/* The device `opt` names (or $CLXCORR_DEVICE, or the default), into dev. */
static int choose_device(const clx_context_options *opt, struct device_entry *dev, clx_message *msg)
{
    struct device_entry *entries = NULL;
    size_t count = 0, chosen = 0;
    const char *spec = opt->device;
    if (!spec || !*spec)
        spec = getenv("CLXCORR_DEVICE");
    int status = devices_enumerate(&entries, &count, msg);
    if (status != CLX_OK)
        return status;
    struct skip_log skip = { opt->log, opt->log_user };
    status = device_select(entries, count, spec, opt->need_fp64, log_device_skip, &skip, &chosen, msg);
    if (status == CLX_OK)
        *dev = entries[chosen];
    free(entries);
    return status;
}

/* Where kernels, binaries and the tuning file are, and the profile. */
static int set_places(struct clx_context *ctx, const clx_context_options *opt, clx_message *msg)
{
    int status = kernel_dir_find(opt->kernel_dir, ctx->kernel_dir, sizeof ctx->kernel_dir, msg);
    if (status != CLX_OK)
        return status;
    if (!opt->no_cache)
        kernel_cache_dir(opt->cache_dir, ctx->cache_dir, sizeof ctx->cache_dir);
    /* The tuning file is read even without the kernel cache: it holds
     * measurements, not binaries that a new driver could invalidate. */
    if (!opt->no_tuning)
        kernel_cache_dir(opt->cache_dir, ctx->tuning_dir, sizeof ctx->tuning_dir);
    if (opt->profile && !(ctx->profile = calloc(1, sizeof *ctx->profile)))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    return CLX_OK;
}

/* The OpenCL context, its queue and its program table. */
static int create_cl_objects(struct clx_context *ctx, clx_message *msg)
{
    cl_int err;
    cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->dev.platform, 0
    };
    ctx->cl = clCreateContext(props, 1, &ctx->dev.device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return msg_fail(msg, cl_status(err), "cannot create an OpenCL context on %s: %s", ctx->dev.info.name,
                        cl_errstr(err));
    ctx->queue = queue_create(ctx, &err);
    if (err != CL_SUCCESS)
        return msg_fail(msg, cl_status(err), "cannot create a command queue on %s: %s", ctx->dev.info.name,
                        cl_errstr(err));
    if (!(ctx->programs = program_table_create()))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    return CLX_OK;
}

int clx_context_open(const clx_context_options *opt, clx_context **out, clx_message *msg)
{
    clx_context_options defaults;
    struct clx_context *ctx = NULL;
    int status;

    msg_clear(msg);
    if (!out)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_context_open: NULL context pointer");
    *out = NULL;
    if (!opt) {
        clx_context_options_init(&defaults);
        opt = &defaults;
    }
    if (!(ctx = calloc(1, sizeof *ctx)))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    ctx->log = opt->log;
    ctx->log_user = opt->log_user;
    ctx->log_level = opt->log_level;
    if ((status = choose_device(opt, &ctx->dev, msg)) != CLX_OK || (status = set_places(ctx, opt, msg)) != CLX_OK ||
        (status = create_cl_objects(ctx, msg)) != CLX_OK)
        goto fail;
    ctx_log(ctx, CLX_LOG_INFO, "device %d:%d: %s (%s, %s, driver %s)", ctx->dev.info.platform_index,
            ctx->dev.info.device_index, ctx->dev.info.name, ctx->dev.info.platform_name,
            clx_device_type_name(ctx->dev.info.type), ctx->dev.info.driver_version);
    ctx_log(ctx, CLX_LOG_DEBUG, "kernels from %s; binary cache %s", ctx->kernel_dir,
            ctx->cache_dir[0] ? ctx->cache_dir : "off");
    if (handle_add(ctx, HANDLE_CONTEXT, NULL, NULL) != CLX_OK) {
        status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto fail;
    }
    *out = ctx;
    return CLX_OK;

fail:
    context_free(ctx);
    return status;
}

void clx_context_release(clx_context *ctx)
{
    /* A context released twice, or never opened, is left alone. */
    if (!ctx || !handle_remove(ctx, HANDLE_CONTEXT))
        return;
    /* Objects still open on it would point into a freed context. Plans
     * first: they release the filters they made themselves. */
    /* A multi-pass before the plans it made. */
    size_t multipasses = handle_free_owned(ctx, HANDLE_MULTIPASS);
    size_t plans = handle_free_owned(ctx, HANDLE_PLAN);
    size_t filters = handle_free_owned(ctx, HANDLE_FILTER);
    size_t warps = handle_free_owned(ctx, HANDLE_WARP);
    plans += multipasses;
    if (plans || filters || warps)
        ctx_log(ctx, CLX_LOG_WARNING,
                "clx_context_release: %zu plan(s), %zu filter(s) and %zu warp(s) were still open on the context "
                "and were released with it (release them first)", plans, filters, warps);
    context_free(ctx);
}

const clx_device_info *clx_context_device(const clx_context *ctx)
{
    return handle_check(ctx, HANDLE_CONTEXT) == CLX_OK ? &ctx->dev.info : NULL;
}

const char *clx_context_message(const clx_context *ctx)
{
    int status = handle_check(ctx, HANDLE_CONTEXT);
    if (status == CLX_ERR_STATE)
        return "not an open context (released already, or never opened)";
    return status == CLX_OK ? ctx->message.text : "";
}

int ctx_buffer_reserve(struct clx_context *ctx, cl_mem *buf, size_t *have, size_t bytes, const char *owner,
                       const char *what)
{
    int status = CLX_OK;
    cl_int err;
    if (*buf && *have >= bytes)
        return CLX_OK;
    if (*buf)
        clReleaseMemObject(*buf);
    *buf = NULL;
    *have = 0;
    if (bytes > ctx->dev.info.max_allocation)
        return ctx_fail(ctx, CLX_ERR_DEVICE_MEMORY, "the %s's %s need %zu bytes; %s allows at most %llu in one buffer",
                        owner, what, bytes, ctx->dev.info.name, ctx->dev.info.max_allocation);
    *buf = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateBuffer", err);
    *have = bytes;
error:
    return status;
}
