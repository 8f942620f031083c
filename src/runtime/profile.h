/*
 * profile.h - per-stage device times from OpenCL profiling events (internal),
 * for `clxcorr bench` and clx_context_stage_times.
 *
 * The pipelines mark where each stage of a batch ends (profile_mark after
 * its last enqueue); a mark is a marker command on the in-order queue, which
 * completes when everything enqueued before it has, so a stage's device time
 * is its mark's end minus the previous mark's end, and a mark named NULL puts a
 * mark where a batch starts. This needs no event from the FFT libraries
 * (VkFFT gives none) and nothing from a stage but its name and the bytes
 * it must move, which bench turns into achieved bandwidth. The context
 * holds a profile when it was opened with clx_context_options.profile, and
 * passes it with its queue (ctx_profile_mark, runtime/context.h); a NULL
 * profile makes every call a no-op.
 */
#ifndef CLX_PROFILE_H
#define CLX_PROFILE_H

#include <CL/cl.h>
#include "clxcorr.h"

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

/* The stage `name` (a string literal; NULL: a batch starts) ends here on
 * `queue`, having moved `bytes` (0: not modelled). */
void profile_mark(struct profile *p, cl_command_queue queue, const char *name, double bytes);

/* Reads every pending mark into the totals (waits for them); CL_SUCCESS or
 * the OpenCL error that stopped it. */
cl_int profile_collect(struct profile *p);

void profile_release(struct profile *p);

/* A monotonic clock in seconds, for host-side timing. */
double profile_seconds(void);

#endif
