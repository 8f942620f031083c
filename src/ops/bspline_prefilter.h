/*
 * bspline_prefilter.h - the B-spline coefficients of images already on the
 * device, for the B-spline interpolations (kernel_params.interp
 * INTERP_BSPLINE3, INTERP_BSPLINE5): sample_windows then weights
 * coefficients, not pixels, and the spline it evaluates passes through
 * every pixel. A separable FIR (the exact inverse filter's impulse response
 * truncated where it falls below the precision), data-parallel: on GPUs
 * through the pre-filter's separable kernels, on CPU devices through
 * cl/bspline_prefilter.cl's vector forms, for the cubic B-spline's columns
 * the recursive filter. Run once per image, before any window is sampled
 * at a fractional offset (internal).
 */
#ifndef CLX_BSPLINE_PREFILTER_H
#define CLX_BSPLINE_PREFILTER_H

#include <CL/cl.h>
#include "params/kernel_params.h"

struct clx_context;

struct clx_filter;

struct bspline_prefilter {
    struct clx_context *ctx;
    size_t real_size;           /* sizeof(float), or sizeof(double) with use_double */
    int radius;                 /* the FIR's taps to either side of the centre */
    double *taps_host;          /* taps[0 .. radius] on the host, in double: the centre tap, then outwards */
    /* GPUs: the FIR on the pre-filter's separable kernels. */
    struct clx_filter *fir;
    /* CPUs: cl/bspline_prefilter.cl's forms. */
    int recursive;              /* 1: the cubic B-spline's columns by the recursion, in place */
    cl_program program;
    cl_kernel rows, columns;
    cl_mem taps;                /* taps_host as reals */
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
