/*
 * strain_job.h - what `clxcorr strain` adds to a run of offsets: the
 * geometry (from the pattern file, overridden by the command line), each
 * pattern's centre across the scan and its orientation (the pattern file's,
 * --euler's, or an .ang / .ctf file's by scan point), and the fit of one
 * pattern's window shifts (clx_strain_fit), made by the stream's lanes as
 * soon as a pattern's offsets are in.
 *
 * The conventions are doc/hrebsd.md's and doc/hrebsd-conventions.md's.
 */
#ifndef CLX_STRAIN_JOB_H
#define CLX_STRAIN_JOB_H

#include <stddef.h>
#include "clxcorr.h"
#include "image_list.h"
#include "output/row_format.h"
#include "strain_grains.h"

/* --pattern-centres: where each pattern's centre comes from. */
enum strain_pc_mode {
    STRAIN_PC_AUTO,         /* the file's per point, else the beam shift with a real pixel size and step, else fixed */
    STRAIN_PC_FILE,         /* the pattern file's, one per point */
    STRAIN_PC_BEAM_SHIFT,   /* the reference's moved with the beam (clx_detector_shift) */
    STRAIN_PC_FIXED         /* the reference's for every pattern */
};

/* The command line's strain options (NAN, NULL or 0: not given). */
struct strain_options {
    int have_pc;
    double pc[3];                /* --pc X,Y,Z (Bruker) */
    double sample_tilt;          /* --sample-tilt DEG */
    double detector_tilt;        /* --detector-tilt DEG */
    double pixel_size;           /* --pixel-size UM: a pattern pixel on the detector */
    double step_x, step_y;       /* --step X,Y (um) */
    enum strain_pc_mode pc_mode; /* --pattern-centres MODE (default auto) */
    int explain;                 /* --explain: the geometry and where each value came from */
    int scan_cols;               /* --scan-cols C: an image list's images lie C to a scan row */
    int have_ref_point;
    long ref_row, ref_col;       /* --ref-point ROW,COL */
    int have_euler;
    double euler[3];             /* --euler PHI1,PHI,PHI2 (degrees on the command line, radians here) */
    const char *orientations;    /* --orientations FILE (.ang, .ctf) */
    const char *stiffness;       /* --stiffness SPEC */
    clx_strain_options fit;      /* --min-zncc, --min-peak-ratio, --max-residual */
    int remap;                   /* --remap */
    int remap_rotation;          /* --remap-rotation: by the measured rotation alone, not the whole F */
    double remap_tol;            /* --remap-tol DEG */
    int remap_passes;            /* --remap-passes N */
    const char *grains;          /* --grains auto|FILE: a reference per grain */
    double grain_angle;          /* --grain-angle DEG (default 5) */
    int min_grain;               /* --min-grain N points (default 10) */
    int symmetry;                /* --symmetry: clx_symmetry, -1: the orientation file's */
    const char *grain_references;    /* --grain-references FILE */
};

/* Defaults: nothing given, the fit's defaults, remap off (tolerance 0.01 degree, 4 passes). */
void strain_options_init(struct strain_options *o);

/* A reference of the run: the REFERENCE argument's, or a grain's. */
struct strain_reference {
    clx_detector detector;       /* the geometry, with its pattern's centre */
    long row, col;               /* its scan point (-1: none) */
    double euler[3];             /* its orientation (NAN: unknown) */
};

/* One run's strain: set up once, then read by the lanes at once. */
struct strain_job {
    clx_detector detector;       /* the reference pattern's */
    enum strain_pc_mode centres; /* each pattern's centre: FILE, BEAM_SHIFT or FIXED (AUTO resolved) */
    double pixel_um;             /* BEAM_SHIFT: a pattern pixel on the detector */
    double step_x, step_y;       /* um */
    /* Where the geometry came from (an option, or a file), for --explain. */
    const char *pc_from, *sample_tilt_from, *detector_tilt_from, *pixel_from, *steps_from;
    long ref_row, ref_col;       /* the reference's scan point */
    size_t scan_cols;            /* > 0: image k lies at (k / scan_cols, k % scan_cols) */
    const clx_scan_info *scan;   /* the pattern file's scan, or NULL */
    int file_euler;              /* the file gives each pattern's orientation */
    int given_euler;             /* --euler: one orientation for every pattern */
    double euler[3];             /* radians */
    /* --orientations: each pattern's from its scan point (the scan's, or
     * --scan-cols's), or else from the point of its index in the run. */
    clx_orientation_map orientations;
    double stiffness[36];
    clx_strain_options fit;
    /* The references: one, or one per grain (grains->count); each item's
     * is references[grains->item_grain[item] - 1], no grain's none. */
    struct strain_reference *references;
    size_t nreferences;
    const struct strain_grains *grains;
    clx_image *reference_images;     /* per grain, the run's staged type, for the stream */
    double *x, *y;               /* the windows' centres */
    size_t nwindows;
    const struct image_items *items;
    /* The host time in strain_job_fit, summed over the lanes that fit at
     * once (ns; added to atomically): what the fit costs the run. */
    unsigned long long fit_ns;
};

/*
 * Resolves the geometry for a run whose reference is `reference` (its
 * entry, and the image itself) over `items`, windows `regions`: reports
 * what is missing or wrong (one line, naming the option that gives it) and
 * returns -1, else 0.
 */
int strain_job_setup(struct strain_job *job, const struct strain_options *o, const char *reference,
                     const clx_image *ref, const struct image_items *items, const struct strain_grains *grains,
                     const clx_region *regions, size_t nregions);
void strain_job_free(struct strain_job *job);

/* Fits item i's window results into *out (thread-safe; its time is added
 * to job->fit_ns); remapped_by: the beta_detector its pattern was remapped
 * by, or NULL. An item in no grain gets no numbers (CLX_STRAIN_NO_GRAIN). */
int strain_job_fit(struct strain_job *job, size_t item, const double *remapped_by, const clx_result *results,
                   struct strain_row *out, clx_message *msg);
/* Item i's reference (0 for an item in no grain). */
size_t strain_job_reference_of(const struct strain_job *job, size_t item);
/* The host time the fits took so far, summed over the lanes, in seconds. */
double strain_job_fit_seconds(const struct strain_job *job);

/* Item i's pattern centre (Bruker), for remapping and the fit. */
void strain_job_pattern_centre(const struct strain_job *job, size_t item, double pc[3]);

#endif
