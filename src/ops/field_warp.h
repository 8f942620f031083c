/*
 * field_warp.h - images on the device deformed by displacement fields
 * (cl/field_warp.cl), for the deforming multi-pass (internal).
 */
#ifndef CLX_FIELD_WARP_H
#define CLX_FIELD_WARP_H

#include <CL/cl.h>
#include "ops/displacement_field.h"
#include "params/kernel_params.h"

struct clx_context;

struct field_warp {
    struct clx_context *ctx;
    struct kernel_params params;    /* interp (the B-splines sample coefficients), precision */
    cl_program program;
    cl_kernel kernel;
    cl_mem fields;                  /* the fields of the last enqueue, grown on demand */
    size_t fields_bytes;
    void *fields_host;
};

/* Builds the kernel for p's interpolation and precision. */
int field_warp_create(struct clx_context *ctx, const struct kernel_params *p, struct field_warp **out);

/*
 * Enqueues out[i](x) = src[i](x + scale d_i(x)) for nimages w x h images of
 * reals (their B-spline coefficients with the B-splines), d_i fields[i]
 * (all on one grid). out must not be src. Returns after enqueueing (the
 * fields are uploaded first, blocking).
 */
int field_warp_enqueue(struct field_warp *fw, cl_mem src, int w, int h, int nimages,
                       const struct displacement_field *fields, double scale, cl_mem out);

void field_warp_destroy(struct field_warp *fw);

#endif
