/*
 * measure.c - what a context measures for `clxcorr bench`: the stage times
 * its profile collected (runtime/profile.h) and the peak bandwidths of its
 * device (clx_context_stage_times, clx_context_bandwidth).
 */
#include "config.h"

#include <string.h>

#include "runtime/context.h"
#include "runtime/handle.h"

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
    cl_int err = profile_collect(ctx->profile);
    if (err != CL_SUCCESS)
        return ctx_cl_fail(ctx, err, "clGetEventProfilingInfo(stage marks)", __FILE__, __LINE__);
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
    profile_collect(ctx->profile);
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
