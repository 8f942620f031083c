/* profile.c - stage times from marker events; see profile.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

cl_int profile_collect(struct profile *p)
{
    if (!p || p->npending == 0)
        return CL_SUCCESS;
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
    if (err != CL_SUCCESS)
        p->failed = 1;
    return err;
}

void profile_mark(struct profile *p, cl_command_queue queue, const char *name, double bytes)
{
    if (!p)
        return;
    /* A full list is read first (last_end carries its end over). */
    if (p->npending == PROFILE_MARKS && profile_collect(p) != CL_SUCCESS)
        return;
    cl_event ev;
    if (clEnqueueMarkerWithWaitList(queue, 0, NULL, &ev) != CL_SUCCESS) {
        p->failed = 1;
        return;
    }
    p->pending[p->npending] = ev;
    p->names[p->npending] = name;
    p->bytes[p->npending] = bytes;
    p->npending++;
}

void profile_release(struct profile *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->npending; i++)
        clReleaseEvent(p->pending[i]);
    free(p);
}
