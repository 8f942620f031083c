/*
 * pipeline_seed.h - the seed mode's state (internal): doc/conventions.md's seed
 * method, step for step. The plan runs it through pipeline_seed
 * (pipeline.h); the tests read its device buffers to check each stage
 * against the host reference.
 */
#ifndef CLX_PIPELINE_SEED_H
#define CLX_PIPELINE_SEED_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "ops/correlation_stage.h"
#include "ops/prepare_windows.h"
#include "pipeline/pipeline.h"

struct seed_pipeline {
    struct pipeline_job job;
    /* prepare[t - 1] serves pixel type t; built when an image of that type
     * first arrives. */
    struct prepare_windows prepare[3];
    cl_mem means;                     /* per tile: mean of the window's pixels */
    struct stage stage;               /* correlate, peak, neighbourhood, estimate */
    cl_event done;                    /* the last push's results are on the host */
};

#endif
