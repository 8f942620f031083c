/* context.c - opening a device: OpenCL context, queue, kernel and cache dirs. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/tuning_db.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_source.h"

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

cl_command_queue ctx_queue_create(struct clx_context *ctx, cl_int *err)
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
    c->queue = ctx_queue_create(c, &err);
    if (err != CL_SUCCESS) {
        free(c);
        return ctx_fail(ctx, cl_status(err), "cannot create another command queue on %s: %s",
                        ctx->dev.info.name, cl_errstr(err));
    }
    /* The clone holds its own reference: the two are released in any order. */
    clRetainContext(c->cl);
    if (handle_add(c, HANDLE_CONTEXT, NULL) != CLX_OK) {
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

int clx_context_open(const clx_context_options *opt, clx_context **out, clx_message *msg)
{
    clx_context_options defaults;
    struct device_entry *entries = NULL;
    size_t count = 0, chosen = 0;
    struct clx_context *ctx = NULL;
    cl_int err;
    int status;

    msg_clear(msg);
    if (!out)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_context_open: NULL context pointer");
    *out = NULL;
    if (!opt) {
        clx_context_options_init(&defaults);
        opt = &defaults;
    }
    const char *spec = opt->device;
    if (!spec || !*spec)
        spec = getenv("CLXCORR_DEVICE");

    status = devices_enumerate(&entries, &count, msg);
    if (status != CLX_OK)
        return status;
    struct skip_log skip = { opt->log, opt->log_user };
    status = device_select(entries, count, spec, opt->need_fp64, log_device_skip, &skip, &chosen, msg);
    if (status != CLX_OK)
        goto fail;

    ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto fail;
    }
    ctx->dev = entries[chosen];
    ctx->log = opt->log;
    ctx->log_user = opt->log_user;
    ctx->log_level = opt->log_level;

    status = kernel_dir_find(opt->kernel_dir, ctx->kernel_dir, sizeof ctx->kernel_dir, msg);
    if (status != CLX_OK)
        goto fail;
    if (!opt->no_cache)
        kernel_cache_dir(opt->cache_dir, ctx->cache_dir, sizeof ctx->cache_dir);
    /* The tuning file is read even without the kernel cache: it holds
     * measurements, not binaries that a new driver could invalidate. */
    if (opt->no_tuning || tuning_path(opt->cache_dir, ctx->tuning_path, sizeof ctx->tuning_path) != 0)
        ctx->tuning_path[0] = '\0';
    if (opt->profile && !(ctx->profile = calloc(1, sizeof *ctx->profile))) {
        status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto fail;
    }

    cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->dev.platform, 0
    };
    ctx->cl = clCreateContext(props, 1, &ctx->dev.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        status = msg_fail(msg, cl_status(err), "cannot create an OpenCL context on %s: %s",
                          ctx->dev.info.name, cl_errstr(err));
        goto fail;
    }
    ctx->queue = ctx_queue_create(ctx, &err);
    if (err != CL_SUCCESS) {
        status = msg_fail(msg, cl_status(err), "cannot create a command queue on %s: %s",
                          ctx->dev.info.name, cl_errstr(err));
        goto fail;
    }
    ctx_log(ctx, CLX_LOG_INFO, "device %d:%d: %s (%s, %s, driver %s)", ctx->dev.info.platform_index,
            ctx->dev.info.device_index, ctx->dev.info.name, ctx->dev.info.platform_name,
            clx_device_type_name(ctx->dev.info.type), ctx->dev.info.driver_version);
    ctx_log(ctx, CLX_LOG_DEBUG, "kernels from %s; binary cache %s", ctx->kernel_dir,
            ctx->cache_dir[0] ? ctx->cache_dir : "off");
    if (handle_add(ctx, HANDLE_CONTEXT, NULL) != CLX_OK) {
        status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        goto fail;
    }
    free(entries);
    *out = ctx;
    return CLX_OK;

fail:
    free(entries);
    context_free(ctx);
    return status;
}

/* Releases the objects of `kind` still open on ctx, which would otherwise
 * point into a freed context; returns how many there were. */
static size_t release_owned(struct clx_context *ctx, enum handle_kind kind)
{
    void *left[16];
    size_t total = 0, n;
    while ((n = handle_owned(ctx, kind, left, 16)) > 0) {
        size_t now = n < 16 ? n : 16;
        for (size_t i = 0; i < now; i++)
            if (kind == HANDLE_PLAN)
                clx_plan_release(left[i]);
            else
                clx_filter_release(left[i]);
        total += now;
    }
    return total;
}

void clx_context_release(clx_context *ctx)
{
    /* A context released twice, or never opened, is left alone. */
    if (!ctx || !handle_remove(ctx, HANDLE_CONTEXT))
        return;
    /* Plans first: they release the filters they made themselves. */
    size_t plans = release_owned(ctx, HANDLE_PLAN);
    size_t filters = release_owned(ctx, HANDLE_FILTER);
    if (plans || filters)
        ctx_log(ctx, CLX_LOG_WARNING,
                "clx_context_release: %zu plan(s) and %zu filter(s) were still open on the context and were "
                "released with it (release them first)", plans, filters);
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
