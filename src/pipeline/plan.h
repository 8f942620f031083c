/*
 * plan.h - the clx_plan behind the public API (internal; the tests read its
 * pipelines' device buffers to check each stage against the host reference).
 */
#ifndef CLX_PLAN_H
#define CLX_PLAN_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "params/kernel_params.h"
#include "pipeline/pipeline_accurate.h"
#include "pipeline/pipeline_seed.h"
#include "runtime/context.h"

struct clx_plan {
    struct clx_context *ctx;
    clx_plan_options opt;
    clx_region *regions;
    int nwin;
    int image_w, image_h;
    int batch;                        /* images per push, at most */
    struct kernel_params params;      /* window, search radius, precision, F: before any layout */
    struct kernel_overrides overrides;/* the tuning's values, then the caller's (opt.params), parsed once */
    int tuned_batch;                  /* the tuning's largest automatic batch (0: none) */
    char tuning[512];                 /* where the tuning came from, in words */

    cl_mem corners;                   /* int2 top-left corner per window */
    cl_mem images;                    /* the pushed images, as uploaded */
    size_t images_bytes;
    struct pinned staging;            /* pinned host memory clx_plan_push copies the images into */

    /* One of these runs the images through, by mode. */
    struct seed_pipeline *seed;
    struct accurate_pipeline *accurate;

    size_t pushed;                    /* images of the push in flight (0: none) */
};

#endif
