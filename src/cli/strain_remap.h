/*
 * strain_remap.h - `clxcorr strain --remap` (Britton and Wilkinson 2012):
 * every pattern is correlated, fitted, remapped on the device by the map
 * its fit gives (clx_remap_map, clx_warp), and correlated again, pass after
 * pass, until its rotation changes by less than the tolerance; the last
 * pass, with the settled maps, writes the rows. The passes before it write
 * nothing: a run stopped there leaves no rows.
 */
#ifndef CLX_STRAIN_REMAP_H
#define CLX_STRAIN_REMAP_H

#include <pthread.h>
#include <stddef.h>
#include "clxcorr.h"

struct offsets_run;

struct strain_remap {
    clx_warp *warp;
    pthread_mutex_t lock;        /* one warp, used by one loader at a time */
    double (*map)[9];            /* image j is remapped by map[j] (the identity before its first fit) */
    double (*w)[3];              /* its last fit's rotation */
    unsigned char *settled;      /* the rotation changed by less than tol in the last pass */
    size_t settled_count;
    int whole;                   /* remap by the whole measured F, not its rotation alone */
    double tol;                  /* radians */
    int passes;
};

/* Before the first pass: the maps, the warp on the first device, and the
 * reference as floats (the remapped patterns are floats). -1 after reporting. */
int strain_remap_setup(struct offsets_run *r, int passes, double tol_degrees, int whole);
void strain_remap_free(struct strain_remap *m);

/* Loads image j remapped by its map into the staging memory (a loader thread). */
int strain_remap_load(struct offsets_run *r, size_t j, clx_image *staged, clx_message *msg);

/* The passes before the last: returns 0, or -1 with why->text set. */
int strain_remap_passes(struct offsets_run *r, const clx_plan_options *plan, const clx_stream_options *stream,
                        clx_message *why);

#endif
