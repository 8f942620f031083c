/*
 * prepare_windows.h - from raw images to zero-mean, zero-padded windows in
 * the FFT layout: the window_sums and prepare kernels (internal).
 *
 * Who zeroes the padding of the prepared tiles is kernel_params.prep_pad:
 *  0  the prepare kernel, with the window's values (the default);
 *  1  a clEnqueueFillBuffer before every prepare;
 *  2  nobody here: correlation_stage.c's create_buffers zeroes the whole buffer once,
 *     and nothing writes the padding after that. The prepared buffer is
 *     written only by prepare (the seed mode; the accurate mode's stages
 *     write their own with tile_prepare.cl), and read by the correlators:
 *     the direct path reads it, and the FFT path's R2C transform is out of
 *     place and leaves its real input alone with both libraries (clFFT's
 *     2-D real plans read it in the row pass and work in the output and
 *     clFFT's own buffers; VkFFT reads its formatted inputBuffer and works
 *     in `buffer`). Only the C2R transform overwrites its input (fft_plan.h), and
 *     that input is the spectra, another buffer. A backend whose R2C wrote
 *     its input would need prep_pad 0 or 1.
 * The direct path's layout has no padding (pad = window), so there the
 * three are the same.
 */
#ifndef CLX_PREPARE_WINDOWS_H
#define CLX_PREPARE_WINDOWS_H

#include <CL/cl.h>
#include "params/kernel_params.h"

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
