/* event_wait.c - waiting for a command by asking for its status, asleep in between. */
#include "config.h"

#include <time.h>

#include "runtime/context.h"
#include "runtime/event_wait.h"

/* Sleep between two questions: short against a batch (milliseconds), so
 * that a lane learns of its batch's end late by a few percent of it at
 * most, with its other lanes' batches keeping the device busy meanwhile. */
#define POLL_NS 50000L
/* After this long, the runtime's own wait: one that progresses its queue
 * only inside a wait would otherwise never finish. */
#define POLL_LIMIT_S 2.0

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The runtime's own wait, then the command's status. */
static int wait_blocking(struct clx_context *ctx, cl_event event)
{
    cl_int run_status = CL_COMPLETE;
    int status = CLX_OK;
    cl_int err = clWaitForEvents(1, &event);
    if (err != CL_SUCCESS && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        return ctx_cl_fail(ctx, err, "clWaitForEvents", __FILE__, __LINE__);
    CL_CALL(ctx, clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof run_status, &run_status, NULL));
    if (run_status < 0)
        status = ctx_cl_fail(ctx, run_status, "device execution", __FILE__, __LINE__);
error:
    return status;
}

int event_wait(struct clx_context *ctx, cl_event event)
{
    const struct timespec pause = { 0, POLL_NS };
    cl_command_queue queue = NULL;
    cl_int run_status = CL_QUEUED;
    int status = CLX_OK;

    /* A CPU runtime (PoCL) sleeps in its own wait, and questions every
     * 50 us would take time from the worker threads that run the kernels. */
    if (ctx->dev.info.type == CLX_DEVICE_CPU)
        return wait_blocking(ctx, event);
    /* The command must be submitted to finish (clWaitForEvents flushes too). */
    CL_CALL(ctx, clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL));
    if (queue)
        CL_CALL(ctx, clFlush(queue));
    const double start = seconds_now();
    for (;;) {
        CL_CALL(ctx, clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof run_status, &run_status, NULL));
        if (run_status == CL_COMPLETE || run_status < 0)
            break;
        if (seconds_now() - start >= POLL_LIMIT_S)
            return wait_blocking(ctx, event);
        nanosleep(&pause, NULL);
    }
    if (run_status < 0)
        status = ctx_cl_fail(ctx, run_status, "device execution", __FILE__, __LINE__);
error:
    return status;
}
