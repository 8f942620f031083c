/*
 * pipeline.h - what a mode's pipeline is to the plan (internal): one small
 * table of operations, as correlator.h is for the two correlation paths.
 *
 *   seed mode      pipeline_seed.c      doc/conventions.md's steps
 *   accurate mode  pipeline_accurate.c  pre-filter, window offset, refinement
 *
 * The plan (plan.c) checks the options, sizes the batch, uploads the
 * images and hands each batch to its pipeline through these calls; a
 * pipeline sees the job (struct pipeline_job) and the batch's images on
 * the device (struct batch_view), never the plan itself.
 */
#ifndef CLX_PIPELINE_H
#define CLX_PIPELINE_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"
#include "ops/correlation_stage.h"
#include "params/kernel_params.h"

/* The job, fixed for the plan's life; the pointers are the plan's. */
struct pipeline_job {
    struct clx_context *ctx;
    const clx_plan_options *opt;      /* with the mode's defaults filled in */
    const clx_region *regions;
    int nwin;
    int image_w, image_h;             /* the device copy's (a crop of the images: upload_crop.h) */
    int batch;                        /* images per push, at most (0 while the plan sizes it) */
    int pairs;                        /* each push brings its own references (clx_plan_push_pairs) */
    int nref;                         /* reference windows: nwin, or batch * nwin with pairs (tile t's is
                                         t % nref) */
    const struct kernel_params *params;       /* window, search radius, precision, F; tuned and overridden */
    const struct kernel_overrides *overrides; /* the tuning's and the caller's, for the stages */
    cl_mem corners;                   /* int2 top-left corner per window, in the device copy */
};

/* One push's images on the device, as the plan uploaded them. */
struct batch_view {
    cl_mem images;                    /* `count` images of image_w x image_h pixels of `type`, back to back */
    clx_pixel_type type;
    size_t count;
};

struct pipeline_ops {
    const char *name;                 /* "seed", "accurate" */
    /* Whether it reads nothing of an image outside the windows, so that
     * the plan may upload only the rows they cover (upload_crop.h). */
    int reads_windows_only;
    /* Device bytes one pushed image costs (beyond its upload), and the
     * largest single buffer per image, for the plan to size the batch. */
    void (*image_bytes)(const struct pipeline_job *job, size_t *per_image, size_t *largest);
    int (*create)(const struct pipeline_job *job, void **state);
    /* The batch's one image is the reference (again). */
    int (*set_reference)(void *state, const struct batch_view *reference);
    /* Enqueues what can run without the host, and returns. */
    int (*push)(void *state, const struct batch_view *batch);
    /* The same for a batch of pairs: image i of `batch` against image i of
     * `references`. NULL where the mode has no pairs. */
    int (*push_pairs)(void *state, const struct batch_view *references, const struct batch_view *batch);
    /* Waits for the last push and fills count * nwin results. */
    int (*read)(void *state, size_t count, clx_result *results);
    /* Waits for the last push and copies its correlation surfaces (see
     * clx_plan_read_surfaces); NULL where the mode keeps none. */
    int (*read_surfaces)(void *state, size_t count, float *surfaces);
    /* The stage whose path, FFT library and choice the plan reports. */
    const struct stage *(*main_stage)(const void *state);
    void (*release)(void *state);
};

extern const struct pipeline_ops pipeline_seed;
extern const struct pipeline_ops pipeline_accurate;

#endif
