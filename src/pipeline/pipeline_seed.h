/*
 * pipeline_seed.h - the seed mode's steps for a batch (internal):
 * ALGORITHM.md's seed method, step for step.
 */
#ifndef CLX_PIPELINE_SEED_H
#define CLX_PIPELINE_SEED_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "ops/correlation_stage.h"
#include "ops/prepare_windows.h"

struct clx_plan;

struct seed_pipeline {
    /* prepare[t - 1] serves pixel type t; built when an image of that type
     * first arrives. */
    struct prepare_windows prepare[3];
    cl_mem means;                     /* per tile: mean of the window's pixels */
    struct stage stage;               /* correlate, peak, neighbourhood, estimate */
    cl_event done;                    /* the last push's results are on the host */
};

int seed_create(struct clx_plan *plan);
/* The plan's uploaded images (pixel type `type`) hold the reference. */
int seed_set_reference(struct clx_plan *plan, clx_pixel_type type);
/* The plan's uploaded images hold `count` images: enqueue everything. */
int seed_push(struct clx_plan *plan, clx_pixel_type type, size_t count);
/* Waits for the push and fills count * nwin results. */
int seed_read(struct clx_plan *plan, clx_result *results);
/* Waits for the push and copies its surfaces (see clx_plan_read_surfaces). */
int seed_read_surfaces(struct clx_plan *plan, float *surfaces);
void seed_release(struct clx_plan *plan);

#endif
