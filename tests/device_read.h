/*
 * device_read.h - reading device buffers back in the tests that check a
 * stage's buffers against the host reference (test_stages, test_variants,
 * test_fft_backends). Every function exits the test on failure.
 */
#ifndef CLX_TEST_DEVICE_READ_H
#define CLX_TEST_DEVICE_READ_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"

struct clx_context;
struct seed_pipeline;

/* `count` reals (floats, or doubles with use_double) as doubles; malloc'd. */
double *device_read_reals(struct clx_context *ctx, cl_mem buf, size_t count, int use_double);

/* The seed pipeline of a seed-mode plan (its state), whose buffers the tests read. */
struct seed_pipeline *seed_of(const clx_plan *plan);

/* A seed-mode plan's buffer of `count` reals in the plan's precision, or of ints; malloc'd. */
double *read_reals(const clx_plan *plan, cl_mem buf, size_t count);
int *read_ints(const clx_plan *plan, cl_mem buf, size_t count);

#endif
