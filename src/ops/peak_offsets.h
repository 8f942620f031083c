/*
 * peak_offsets.h - a correlation stage's offsets (integer peak plus the
 * sub-pixel estimator's part) computed on the device (internal), from the
 * peaks and neighbourhoods the stage left there, with the host's estimators
 * (subpixel.h) ported to cl/peak_offsets.cl. What the host reads from a
 * stage is unchanged; this is for a next step on the device that starts
 * where the stage's peaks are (the accurate mode's IC-GN), so that no host
 * round trip stands between them.
 */
#ifndef CLX_PEAK_OFFSETS_H
#define CLX_PEAK_OFFSETS_H

#include <CL/cl.h>
#include "ops/subpixel.h"
#include "params/kernel_params.h"

struct clx_context;

struct peak_offsets {
    cl_program program;
    cl_kernel kernel;
    int kind, fallback;               /* clx_estimator values (fallback 0: none) */
    cl_mem pinv, fallback_pinv;       /* lsq's pseudo-inverses (6 x F*F reals), else a 1-real stand-in */
};

/* Builds the kernel for p (window size, F, precision) and uploads what the
 * estimator and the fallback (kind CLX_ESTIMATOR_DEFAULT: none) need. */
int peak_offsets_create(struct clx_context *ctx, const struct kernel_params *p, const struct subpixel *estimator,
                        const struct subpixel *fallback, struct peak_offsets *out);

/* Enqueues, for the first ntiles tiles, the offset (ix + sx, iy + sy) that
 * stage_peak_of would give from `peaks` and `neighbourhoods` (NaN, NaN
 * where a tile has no peak) into `offsets`, a real2 per tile. */
int peak_offsets_enqueue(struct clx_context *ctx, struct peak_offsets *po, cl_mem peaks, cl_mem neighbourhoods,
                         int ntiles, cl_mem offsets);

void peak_offsets_release(struct peak_offsets *po);

#endif
