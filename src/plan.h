/*
 * plan.h - the clx_plan behind the public API (internal; the tests read its
 * device buffers to check each stage against the host reference).
 */
#ifndef CLX_PLAN_H
#define CLX_PLAN_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "correlator.h"
#include "kernel_build.h"
#include "peak.h"
#include "prepare_windows.h"
#include "subpixel.h"

struct clx_plan {
    struct clx_context *ctx;
    clx_plan_options opt;
    clx_region *regions;
    int nwin;
    int image_w, image_h;
    int batch;                        /* images per push, at most */
    struct kernel_params params;      /* window, layouts, search radius, precision, F */
    char explanation[512];            /* how the correlator was chosen */

    /* Stages, in pipeline order. prepare[t - 1] serves pixel type t and is
     * built when an image of that type first arrives. */
    struct prepare_windows prepare[3];
    const struct correlator_ops *correlator;   /* the FFT or the direct path */
    void *correlator_state;
    struct peak_finder peaks;
    struct subpixel fit;

    /* Device buffers: batch images, batch * nwin tiles. */
    cl_mem corners;                   /* int2 top-left corner per window */
    cl_mem images;                    /* the pushed images */
    size_t images_bytes;
    cl_mem staging;                   /* pinned host memory the images are copied from */
    void *staging_ptr;
    size_t staging_bytes;
    cl_mem means;                     /* per tile: mean of the window's pixels */
    cl_mem prepared;                  /* per tile: zero-mean window in the correlator's layout */
    cl_mem corr;                      /* per tile: correlation (layout: cl/common.h) */
    cl_mem peak_index;                /* per tile: logical index of the maximum */
    cl_mem neighbourhoods;            /* per tile: F x F values around it */

    /* Host copies of the last push's peaks and neighbourhoods. */
    int *peak_index_host;
    void *neighbourhoods_host;

    size_t pushed;                    /* images of the push in flight (0: none) */
    cl_event done;                    /* completes when their results are on the host */
};

#endif
