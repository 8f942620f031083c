/*
 * prepare_windows.h - from raw images to zero-mean, zero-padded windows in
 * the FFT layout: the window_sums and prepare kernels (internal).
 */
#ifndef CLX_PREPARE_WINDOWS_H
#define CLX_PREPARE_WINDOWS_H

#include <CL/cl.h>
#include "kernel_build.h"

struct clx_context;

struct prepare_windows {
    cl_program sums_program, prepare_program;
    cl_kernel sums, prepare;
    struct kernel_params params;   /* as built: pixel type, window, layout */
};

/* Builds both kernels for p (its pixel type in particular). */
int prepare_windows_build(struct clx_context *ctx, const struct kernel_params *p,
                          struct prepare_windows *pw);

/*
 * Enqueues window sums and prepare for `nimages` images of image_w x image_h
 * pixels in `images` (of pw's pixel type), `nwin` windows each with top-left
 * corners in `corners` (int2): writes nimages * nwin means and padded tiles.
 */
int prepare_windows_enqueue(struct clx_context *ctx, struct prepare_windows *pw, cl_mem images,
                            int image_w, int image_h, cl_mem corners, int nwin, int nimages,
                            cl_mem means, cl_mem padded);

void prepare_windows_release(struct prepare_windows *pw);

#endif
