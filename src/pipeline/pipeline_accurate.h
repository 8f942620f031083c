/*
 * pipeline_accurate.h - the accurate mode's state (internal). The plan runs
 * it through pipeline_accurate (pipeline.h); what each step is for:
 * doc/conventions.md, "Why the accurate mode is the default".
 */
#ifndef CLX_PIPELINE_ACCURATE_H
#define CLX_PIPELINE_ACCURATE_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "ops/correlation_stage.h"
#include "ops/outliers.h"
#include "ops/refine_step.h"
#include "pipeline/pipeline.h"

struct clx_filter;
struct bspline_prefilter;
struct icgn;
struct icgn_result;

struct accurate_pipeline {
    struct pipeline_job job;
    struct clx_filter *prefilter;     /* NULL: no pre-filter */
    struct bspline_prefilter *bspline; /* the B-spline interpolations' coefficients; NULL for the others */
    cl_program sample_program, coarse_program, moved_program, zncc_program;
    cl_program to_real_program[3];    /* image_to_real for pixel type t - 1, built when needed */
    cl_kernel to_real[3];
    cl_kernel sample, copy, coarse_prepare, zncc_kernel;   /* copy: copy_windows (integer moves) */
    cl_kernel moved_prepare;          /* tile_prepare for the offset and refine stages' (direct) layout */
    cl_kernel window_prepare;         /* tile_form 0: the first pass's windows prepared where they are */

    struct stage coarse;              /* the first pass: the whole search range */
    struct stage offset;              /* window-offset passes: --fine-shift pixels, direct (if passes > 1) */
    struct stage refine;              /* correlation refinement: REFINE_RADIUS pixels, direct (if refine > 0) */
    struct icgn *icgn;                /* IC-GN refinement (if refine > 0 with the IC-GN refiner) */
    struct icgn_result *icgn_out;     /* per tile */

    cl_mem filtered;                  /* the batch's images, pre-filtered, as reals */
    cl_mem coefficients;              /* their B-spline coefficients (with `bspline`), same layout */
    cl_mem offsets;                   /* per tile: where its window is sampled (real2) */
    cl_mem tiles;                     /* per tile: the sampled window (WIN_W x WIN_H reals) */
    cl_mem ref_tiles;                 /* the reference's windows, sampled the same way */
    cl_mem zncc_values;               /* per tile */
    cl_mem tile_ids;                  /* a refinement pass's open tiles, slot by slot (ints) */

    /* Per tile, on the host: the estimate, its state and quality. */
    double *dx, *dy;
    double *ox, *oy;                  /* the offsets of the pass in flight */
    double *peak, *peak_ratio, *zncc;
    int *ix, *iy, *iterations, *converged;
    unsigned *flags;
    cl_int *open;                     /* the tiles of the pass in flight, slot by slot */
    struct refine_step *steps;        /* each tile's refinement state */
    void *offsets_host;               /* real2 per tile */
    void *zncc_host;

    struct window_grid grid;          /* for the outlier test; nx = 0 when the windows are no grid */
    cl_event coarse_done;             /* the first pass's peaks are on the host */
    cl_event icgn_done;               /* IC-GN's results are (when the push enqueued it) */
};

#endif
