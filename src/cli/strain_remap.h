/*
 * strain_remap.h - `clxcorr strain --remap` (Britton and Wilkinson 2012)
 * over the run's own stream: every pattern is correlated, fitted, remapped
 * on the device by the map its fit gives, and correlated again, pass after
 * pass, until its rotation changes by less than the tolerance; the last
 * pass, with the settled maps, writes the rows. The passes before it write
 * nothing: a run stopped there leaves no rows. The maps, the fits and the
 * warp are the library's job's (clx_strain_job_remap_estimate,
 * clx_strain_job_warp); this file runs the passes through the shards and
 * devices of the run.
 */
#ifndef CLX_STRAIN_REMAP_H
#define CLX_STRAIN_REMAP_H

#include <pthread.h>
#include <stddef.h>
#include "clxcorr.h"

struct offsets_run;

struct strain_remap {
    clx_warp *warp;              /* on the first device, made by the first remapped pattern */
    pthread_mutex_t lock;        /* one loader at a time in the warp */
    size_t settled_count;        /* in the pass under way */
    double tol_degrees;
    int passes;
};

/* Before the first pass: the reference as floats (the remapped patterns
 * are floats). -1 after reporting. */
int strain_remap_setup(struct offsets_run *r, int passes, double tol_degrees);
void strain_remap_free(struct strain_remap *m);

/* Loads image j remapped by its map into the staging memory (a loader thread). */
int strain_remap_load(struct offsets_run *r, size_t j, clx_image *staged, clx_message *msg);

/* The passes before the last: returns 0, or -1 with why->text set. */
int strain_remap_passes(struct offsets_run *r, const clx_plan_options *plan, const clx_stream_options *stream,
                        clx_message *why);

#endif
