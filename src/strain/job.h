/*
 * job.h - the HR-EBSD job (clx_strain_job, clxcorr.h) inside the library:
 * what its files share.
 *
 *   job.c              create and release: the steps below in order, the
 *                      references, the windows checked by a fit of the
 *                      reference against itself; the accessors
 *   job_geometry.c     the reference's own file, the pattern centre, tilts,
 *                      the reference's scan point, each pattern's centre
 *                      (file, beam shift, fixed), --explain's description
 *   job_orientations.c each pattern's orientation (--euler, --orientations,
 *                      the file's) and the stiffness
 *   job_grains.c       --grains: the scan's grains, the patterns' order and
 *                      each grain's reference point
 *   job_fit.c          a pattern's fit and row, timed; the remap estimate
 *   job_message.c      its errors and INFO lines
 *
 * src/pipeline/strain_run.c drives a job through a stream (with the warp
 * of remapped patterns); the command drives it through its own.
 */
#ifndef CLX_STRAIN_JOB_INTERNAL_H
#define CLX_STRAIN_JOB_INTERNAL_H

#include <stddef.h>
#include "clxcorr.h"

/* What the reference's name says of it, when it is a pattern of a file with a scan. */
struct job_reference_pattern {
    int known;
    clx_scan_info scan;
    int has_pc;
    double pc[3];
    long row, col;               /* its scan point; -1 without a grid */
    double euler[3];             /* its orientation in the file (NAN: none) */
};

struct clx_strain_job {
    clx_strain_job_options options;
    clx_detector detector;       /* the reference pattern's */
    clx_pattern_centres centres; /* FILE, BEAM_SHIFT or FIXED (AUTO resolved) */
    double pixel_um;             /* BEAM_SHIFT: a pattern pixel on the detector */
    double step_x, step_y;       /* um */
    /* Where the geometry came from (an option, or a file), for the description. */
    const char *pc_from, *sample_tilt_from, *detector_tilt_from, *pixel_from, *steps_from;
    long ref_row, ref_col;       /* the reference's scan point */
    size_t scan_cols;            /* > 0: pattern k lies at (k / scan_cols, k % scan_cols) */
    clx_image_file *file;        /* the patterns' file (the caller's), or NULL */
    const clx_scan_info *scan;   /* its scan, or NULL */
    size_t count;                /* patterns */
    int *pages;                  /* per pattern (the job's order), its page of file */
    size_t *order;               /* per pattern, its index in the caller's */
    int file_euler;              /* the file gives each pattern's orientation */
    /* --orientations: each pattern's from its scan point (the scan's, or
     * scan_cols'), or else from the point of its index. */
    clx_orientation_map orientations;
    double stiffness[36];
    clx_strain_options fit;
    /* Grains (count 0: none): each pattern's, 1..count or 0 in none, and
     * each grain's reference pattern. */
    int grain_count;
    const char *grains_from;
    int *pattern_grain;
    size_t *grain_pattern;
    clx_strain_reference *references;
    size_t nreferences;
    clx_region *regions;         /* the windows (for clx_strain_job_run's stream) */
    double *x, *y;               /* their centres */
    size_t nwindows;
    /* Remapping: each pattern's map, last rotation, and whether it settled. */
    double (*map)[9];
    double (*w)[3];
    unsigned char *settled;
    /* The host time in the fits, summed over the threads that fit at once
     * (ns; added to atomically). */
    unsigned long long fit_ns;
};

/* job_message.c: fills msg like snprintf; returns `status`. */
int job_fail(clx_message *msg, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An INFO line to the options' log. */
void job_info(const clx_strain_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* job_geometry.c */
void job_reference_read(const char *entry, const char *scan_name, struct job_reference_pattern *rp);
int job_geometry_resolve(clx_strain_job *job, const struct job_reference_pattern *rp, clx_message *msg);
/* Pattern k's scan point: the scan's, scan_cols', or its index's in the
 * orientation map's grid; -1 when none. */
void job_pattern_point(const clx_strain_job *job, size_t k, long *row, long *col);

/* job_orientations.c */
int job_orientations_resolve(clx_strain_job *job, clx_message *msg);
/* The orientation at scan point (row, col; -1: unknown) or of page `page`
 * of the file: --euler's, --orientations', or the file's; -1 if none. */
int job_orientation_at(const clx_strain_job *job, long row, long col, int page, double euler[3]);
int job_pattern_orientation(const clx_strain_job *job, size_t k, double euler[3]);

/* job_grains.c: with options.grains, the grains, pages reordered and
 * order[] set, each grain's reference pattern. */
int job_grains_assign(clx_strain_job *job, clx_message *msg);


#endif
