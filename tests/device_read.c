/* device_read.c - device buffers read back for the stage tests (device_read.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>

#include "device_read.h"
#include "pipeline/pipeline_seed.h"
#include "pipeline/plan.h"
#include "runtime/context.h"

static void read_failed(void)
{
    fprintf(stderr, "reading a device buffer failed\n");
    exit(1);
}

double *device_read_reals(struct clx_context *ctx, cl_mem buf, size_t count, int use_double)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    void *raw = malloc(rs * count);
    double *out = malloc(sizeof(double) * count);
    if (!raw || !out || clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, 0, rs * count, raw, 0, NULL, NULL) != CL_SUCCESS)
        read_failed();
    for (size_t i = 0; i < count; i++)
        out[i] = use_double ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    return out;
}

struct seed_pipeline *seed_of(const clx_plan *plan)
{
    if (plan->pipeline != &pipeline_seed) {
        fprintf(stderr, "not a seed-mode plan\n");
        exit(1);
    }
    return plan->state;
}

double *read_reals(const clx_plan *plan, cl_mem buf, size_t count)
{
    return device_read_reals(plan->ctx, buf, count, seed_of(plan)->stage.params.use_double);
}

int *read_ints(const clx_plan *plan, cl_mem buf, size_t count)
{
    int *out = malloc(sizeof(int) * count);
    if (!out || clEnqueueReadBuffer(plan->ctx->queue, buf, CL_TRUE, 0, sizeof(int) * count, out, 0, NULL, NULL) !=
                    CL_SUCCESS)
        read_failed();
    return out;
}
