/*
 * bspline_prefilter.h - the B-spline coefficients of images already on the
 * device (cl/bspline_prefilter.cl), for the B-spline interpolations
 * (kernel_params.interp INTERP_BSPLINE3, INTERP_BSPLINE5): sample_windows
 * then weights coefficients, not pixels, and the spline it evaluates passes
 * through every pixel. A separable FIR (the exact inverse filter's impulse
 * response truncated where it falls below the precision), data-parallel;
 * on CPU devices, for the cubic B-spline, the recursive filter. Run once per image, before any window is sampled
 * at a fractional offset (internal).
 */
#ifndef CLX_BSPLINE_PREFILTER_H
#define CLX_BSPLINE_PREFILTER_H

#include <CL/cl.h>
#include "params/kernel_params.h"

struct clx_context;

struct bspline_prefilter {
    struct clx_context *ctx;
    cl_program program;
    cl_kernel rows, columns;
    size_t group;               /* work-items per work-group, both passes */
    size_t real_size;           /* sizeof(float), or sizeof(double) with use_double */
    int radius;                 /* the FIR's taps to either side of the centre */
    int vector;                 /* 1: the vector kernels (CPU devices) */
    int recursive;              /* 1: the recursive kernels (CPU devices, cubic B-spline) */
    cl_mem taps;                /* radius + 1 reals: the centre tap, then outwards */
    double *taps_host;          /* the same on the host, in double */
    cl_mem scratch;             /* the row pass's output for a chunk of images; grown on demand */
    size_t scratch_bytes;
};

/*
 * Builds the prefilter for p's interpolation (p->interp a B-spline, else
 * CLX_ERR_ARGUMENT) and precision (p->use_double). Returns CLX_OK with
 * *out set, or an error with *out NULL.
 */
int bspline_prefilter_create(struct clx_context *ctx, const struct kernel_params *p, struct bspline_prefilter **out);

/*
 * Enqueues the coefficients of `nimages` w x h images of reals (float, or
 * double with use_double; rows tightly packed, images one after another)
 * into `coeffs`, same layout, which must not be `images`. Returns after
 * enqueueing on the context's in-order queue.
 */
int bspline_prefilter_enqueue(struct bspline_prefilter *b, cl_mem images, int w, int h, int nimages, cl_mem coeffs);

/* Releases the prefilter (NULL allowed). */
void bspline_prefilter_destroy(struct bspline_prefilter *b);

#endif
