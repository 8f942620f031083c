/*
 * profile.h - per-stage device times from OpenCL profiling events (internal),
 * for `clxcorr bench` and clx_context_stage_times.
 *
 * The pipelines mark where each stage of a batch ends (profile_mark after
 * its last enqueue); a mark is a marker command on the in-order queue, which
 * completes when everything enqueued before it has, so a stage's device time
 * is its mark's end minus the previous mark's end, and profile_begin puts a
 * mark where a batch starts. This needs no event from the FFT libraries
 * (VkFFT gives none) and nothing from a stage but its name and the bytes
 * it must move, which bench turns into achieved bandwidth. Without
 * clx_context_options.profile every call is a no-op.
 */
#ifndef CLX_PROFILE_H
#define CLX_PROFILE_H

#include <CL/cl.h>
#include "clxcorr.h"

struct clx_context;

#define PROFILE_MARKS 64       /* marks pending before they are read */
#define PROFILE_STAGES 32      /* distinct stage names */

struct profile {
    cl_event pending[PROFILE_MARKS];
    const char *names[PROFILE_MARKS];   /* NULL: a batch's start */
    double bytes[PROFILE_MARKS];
    int npending;
    cl_ulong last_end;                  /* the end of the last mark read (0: none) */
    clx_stage_time totals[PROFILE_STAGES];
    int ntotals;
    int failed;                         /* a mark or its timestamp could not be had */
};

/* A batch starts here. */
void profile_begin(struct clx_context *ctx);

/* The stage `name` (a string literal) ends here, having moved `bytes` (0: not modelled). */
void profile_mark(struct clx_context *ctx, const char *name, double bytes);

/* Reads every pending mark into the totals (waits for them). */
int profile_collect(struct clx_context *ctx);

void profile_release(struct profile *p);

/* A monotonic clock in seconds, for host-side timing. */
double profile_seconds(void);

#endif
