/*
 * plan.h - the clx_plan behind the public API (internal; the tests read its
 * pipeline's device buffers, through `state`, to check each stage against
 * the host reference).
 */
#ifndef CLX_PLAN_H
#define CLX_PLAN_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "params/kernel_params.h"
#include "pipeline/pipeline.h"
#include "pipeline/upload_crop.h"
#include "runtime/context.h"

struct clx_plan {
    struct clx_context *ctx;
    clx_plan_options opt;             /* resolved; opt.params is parsed into `overrides` and not kept */
    clx_region *regions;
    int nwin;
    int image_w, image_h;             /* the images' size (the reference's) */
    struct upload_crop crop;          /* what of each image goes up: the device copy's layout */
    int batch;                        /* images per push, at most */
    struct kernel_params params;      /* window, search radius, precision, F, overrides: before any layout */
    struct kernel_overrides overrides; /* the tuning's values, then the caller's, parsed once */
    int tuned_batch;                  /* the tuning's largest automatic batch (0: none) */
    char tuning[512];                 /* where the tuning came from, in words */
    char parameters[4096];            /* the main stage's kernel parameters, one per line (--explain) */

    cl_mem corners;                   /* int2 top-left corner per window, in the device copy */
    cl_mem images;                    /* the pushed images' device copies (crop) */
    size_t images_bytes;
    struct pinned staging;            /* pinned host memory clx_plan_push copies the images into */
    cl_mem references;                /* with opt.pairs: the pushed pairs' references, likewise */
    size_t references_bytes;
    struct pinned reference_staging;

    /* The mode's pipeline (pipeline.h) and its state: struct seed_pipeline
     * (pipeline_seed.h) or struct accurate_pipeline (pipeline_accurate.h). */
    const struct pipeline_ops *pipeline;
    void *state;

    size_t pushed;                    /* images of the push in flight (0: none) */
};

/*
 * For the library's own passes (multipass.c): a plan made for pairs takes
 * `count` pairs already on its context's device, references and images of
 * one pixel type back to back in two buffers, as clx_plan_push_pairs would
 * have uploaded them. The buffers must stay untouched until the read.
 */
int plan_push_device_pairs(struct clx_plan *plan, cl_mem references, cl_mem images, clx_pixel_type type,
                           size_t count);

#endif
