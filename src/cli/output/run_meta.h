/*
 * run_meta.h - `offsets --meta FILE.json`: what a result needs to be
 * reproduced or trusted. The clxcorr version and build features, the
 * command line, host and start time, the inputs, every option that shapes
 * the result, each device (name, vendor, platform, driver, OpenCL C), the
 * method it used and why, the tuning values and batch, how many images it
 * correlated, and the timings (for strain, the fit's); written at the end of the run, complete or
 * not ("status" says which, "error" why).
 */
#ifndef CLX_RUN_META_H
#define CLX_RUN_META_H

#include <stddef.h>
#include "clxcorr.h"

#define RUN_META_MAX_DEVICES 64

struct run_meta_device {
    clx_device_info info;
    char method[16], fft[16];
    char explanation[1024];
    char tuning[512];
    int batch;
    size_t images;
};

struct run_meta {
    int argc;
    char **argv;
    char started[40];            /* ISO 8601, local time */
    double t_start, t_ready, t_end;   /* now_seconds(): start, plans ready, end */
    const char *reference;
    size_t images, windows;
    const char *output;
    const clx_plan_options *plan;
    int lanes, loaders;
    const char *shard;           /* "K/N" or NULL */
    const clx_scan_info *scan;   /* the pattern file's scan the images come from, or NULL */
    int mpi_ranks;               /* 0: not under MPI */
    struct run_meta_device devices[RUN_META_MAX_DEVICES];
    size_t ndevices;
    /* `clxcorr strain`: the host time in the fits, summed over the lanes
     * and --remap's passes (seconds.strain_fit), and its share of the
     * run's wall time, seconds.total (strain_fit_share). */
    int strain;
    double strain_fit_seconds;
};

/* The clock and the start time; argv is kept, not copied. */
void run_meta_begin(struct run_meta *m, int argc, char **argv);
/* Device d's plan, once the plans exist (before the plan is released). */
void run_meta_device(struct run_meta *m, size_t d, const clx_context *ctx, const clx_plan *plan);
/* Writes the JSON; `error` NULL for a complete run. Returns 0, or -1 after
 * reporting why the file could not be written. */
int run_meta_write(const struct run_meta *m, const char *path, size_t images_done, const char *error);

#endif
