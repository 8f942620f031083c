/* profile.c - stage times from marker events; see profile.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"
#include "runtime/profile.h"

double profile_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void add_time(struct profile *p, const char *name, double ms, double bytes)
{
    int i = 0;
    while (i < p->ntotals && strcmp(p->totals[i].name, name) != 0)
        i++;
    if (i == p->ntotals) {
        if (p->ntotals == PROFILE_STAGES)
            return;   /* more names than any pipeline has: the rest go unreported */
        memset(&p->totals[i], 0, sizeof p->totals[i]);
        snprintf(p->totals[i].name, sizeof p->totals[i].name, "%s", name);
        p->ntotals++;
    }
    p->totals[i].ms += ms;
    p->totals[i].bytes += bytes;
    p->totals[i].count++;
}

int profile_collect(struct clx_context *ctx)
{
    struct profile *p = ctx->profile;
    if (!p || p->npending == 0)
        return CLX_OK;
    cl_int err = clWaitForEvents((cl_uint)p->npending, p->pending);
    cl_ulong previous = p->last_end;
    for (int i = 0; i < p->npending; i++) {
        cl_ulong end = 0;
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(p->pending[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        if (err == CL_SUCCESS && p->names[i] && previous && end >= previous)
            add_time(p, p->names[i], (double)(end - previous) * 1e-6, p->bytes[i]);
        previous = end;
        clReleaseEvent(p->pending[i]);
    }
    p->npending = 0;
    p->last_end = previous;
    if (err != CL_SUCCESS) {
        p->failed = 1;
        return ctx_cl_fail(ctx, err, "clGetEventProfilingInfo(stage marks)", __FILE__, __LINE__);
    }
    return CLX_OK;
}

static void mark(struct clx_context *ctx, const char *name, double bytes)
{
    struct profile *p = ctx->profile;
    if (!p)
        return;
    /* A full list is read first (last_end carries its end over). */
    if (p->npending == PROFILE_MARKS && profile_collect(ctx) != CLX_OK)
        return;
    cl_event ev;
    if (clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &ev) != CL_SUCCESS) {
        p->failed = 1;
        return;
    }
    p->pending[p->npending] = ev;
    p->names[p->npending] = name;
    p->bytes[p->npending] = bytes;
    p->npending++;
}

void profile_begin(struct clx_context *ctx)
{
    mark(ctx, NULL, 0);
}

void profile_mark(struct clx_context *ctx, const char *name, double bytes)
{
    mark(ctx, name, bytes);
}

void profile_release(struct profile *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->npending; i++)
        clReleaseEvent(p->pending[i]);
    free(p);
}

int clx_context_stage_times(clx_context *ctx, clx_stage_time *times, size_t capacity, size_t *count)
{
    int status = handle_check(ctx, HANDLE_CONTEXT);
    if (status != CLX_OK)
        return status;
    if (!count)
        return CLX_ERR_ARGUMENT;
    *count = 0;
    if (!ctx->profile)
        return ctx_fail(ctx, CLX_ERR_STATE, "stage times need a context opened with profiling on");
    status = profile_collect(ctx);
    if (status != CLX_OK)
        return status;
    if (ctx->profile->failed)
        return ctx_fail(ctx, CLX_ERR_OPENCL, "%s could not time some stages (marker events failed)",
                        ctx->dev.info.name);
    size_t n = (size_t)ctx->profile->ntotals;
    *count = n < capacity ? n : capacity;
    if (times)
        memcpy(times, ctx->profile->totals, *count * sizeof *times);
    return CLX_OK;
}

void clx_context_stage_times_reset(clx_context *ctx)
{
    if (handle_check(ctx, HANDLE_CONTEXT) != CLX_OK || !ctx->profile)
        return;
    profile_collect(ctx);
    ctx->profile->ntotals = 0;
    ctx->profile->failed = 0;
}

/* ---- peak bandwidths ----------------------------------------------------- */

#define BANDWIDTH_BYTES ((size_t)256 << 20)
#define BANDWIDTH_REPEATS 5

/* The best of BANDWIDTH_REPEATS timed runs of an upload (to != NULL: a
 * device-to-device copy into `to`), in seconds. */
static int time_transfer(struct clx_context *ctx, const struct pinned *host, cl_mem from, cl_mem to, size_t bytes,
                         double *best)
{
    int status = CLX_OK;
    *best = 1e30;
    for (int r = 0; r <= BANDWIDTH_REPEATS; r++) {
        CL_CALL(ctx, clFinish(ctx->queue));
        double t0 = profile_seconds();
        if (to)
            CL_CALL(ctx, clEnqueueCopyBuffer(ctx->queue, from, to, 0, 0, bytes, 0, NULL, NULL));
        else
            CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, from, CL_FALSE, 0, bytes, host->host, 0, NULL, NULL));
        CL_CALL(ctx, clFinish(ctx->queue));
        double t = profile_seconds() - t0;
        if (r > 0 && t < *best)   /* run 0 warms up */
            *best = t;
    }
error:
    return status;
}

int clx_context_bandwidth(clx_context *ctx, double *bus_gbs, double *memory_gbs)
{
    int live = handle_check(ctx, HANDLE_CONTEXT);
    if (live != CLX_OK)
        return live;
    if (!bus_gbs || !memory_gbs)
        return CLX_ERR_ARGUMENT;
    size_t bytes = BANDWIDTH_BYTES;
    if (bytes > ctx->dev.info.max_allocation / 2)
        bytes = (size_t)(ctx->dev.info.max_allocation / 2);
    struct pinned host = { 0 };
    cl_mem a = NULL, b = NULL;
    double up, copy;
    int status;
    if ((status = ctx_pinned_alloc(ctx, bytes, &host, "bandwidth test")) != CLX_OK ||
        (status = ctx_create_buffer(ctx, bytes, &a, "bandwidth test")) != CLX_OK ||
        (status = ctx_create_buffer(ctx, bytes, &b, "bandwidth test")) != CLX_OK)
        goto done;
    memset(host.host, 1, bytes);
    if ((status = time_transfer(ctx, &host, a, NULL, bytes, &up)) != CLX_OK ||
        (status = time_transfer(ctx, &host, a, b, bytes, &copy)) != CLX_OK)
        goto done;
    *bus_gbs = bytes / up * 1e-9;
    *memory_gbs = 2.0 * bytes / copy * 1e-9;
done:
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    ctx_pinned_free(ctx, &host);
    return status;
}
