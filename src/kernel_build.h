/*
 * kernel_build.h - compiling the OpenCL C kernels at run time (internal).
 *
 * Every -D macro a kernel sees comes from one struct kernel_params, turned
 * into the option string by one function (kernel_options_format), so the
 * options are in one place, logged at debug level, printed in full when a
 * build fails and part of the binary cache key.
 */
#ifndef CLX_KERNEL_BUILD_H
#define CLX_KERNEL_BUILD_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"
#include "device.h"

struct clx_context;

struct kernel_params {
    int use_double;           /* USE_DOUBLE: every stage in double */
    clx_pixel_type pixel;     /* PIXEL_T: the uploaded image's pixel type */
    int win_w, win_h;         /* WIN_W, WIN_H: window size */
    int pad_w, pad_h;         /* PAD_W, PAD_H: FFT layout, >= 2 WIN_W x 2 WIN_H */
    int fit_size;             /* FIT_SIZE: F of the F x F neighbourhood */
    int sums_wg;              /* SUMS_WG: work-items reducing one window (power of 2) */
    int argmax_wg;            /* ARGMAX_WG: work-items searching one correlation (power of 2) */
    int prepare_tx, prepare_ty; /* PREP_TX x PREP_TY: prepare's work-group */
    enum device_vendor vendor;  /* CLX_VENDOR: for cl/vendor.h's predicates */
};

/* Work-group sizes that suit the device (everything else zeroed). */
void kernel_params_defaults(struct kernel_params *p, const struct device_entry *dev);

/* The build options for p. Returns 0, or -1 if len is too small. */
int kernel_options_format(const struct kernel_params *p, char *buf, size_t len);

/* Builds cl/<file> for the context's device with p's options (from the
 * binary cache when possible). On failure the build log goes to the log. */
int program_build(struct clx_context *ctx, const char *file, const struct kernel_params *p,
                  cl_program *program);

/* clCreateKernel with the context's error reporting. */
int kernel_create(struct clx_context *ctx, cl_program program, const char *name, cl_kernel *kernel);

#endif
