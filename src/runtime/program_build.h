/*
 * program_build.h - compiling the OpenCL C kernels at run time (internal):
 * the sources with their includes expanded, the options from
 * kernel_params.h, the binary cache, and a full report when a build fails.
 */
#ifndef CLX_PROGRAM_BUILD_H
#define CLX_PROGRAM_BUILD_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"
#include "params/kernel_params.h"
#include "runtime/device.h"

struct clx_context;

/* Builds cl/<file> for the context's device with p's options (from the
 * binary cache when possible). On failure the build log goes to the log. */
int program_build(struct clx_context *ctx, const char *file, const struct kernel_params *p,
                  cl_program *program);

/* clCreateKernel with the context's error reporting. */
int kernel_create(struct clx_context *ctx, cl_program program, const char *name, cl_kernel *kernel);

#endif
