/*
 * program_build.h - the OpenCL C kernels compiled at run time (internal):
 * each program once per OpenCL context (program_table.h), from the binary
 * cache on disk when it holds it (kernel_cache.h), else from the source with
 * its includes expanded (kernel_source.h), and a full report when a build
 * fails. The build options come from the layer above (params/kernel_params.h).
 */
#ifndef CLX_PROGRAM_BUILD_H
#define CLX_PROGRAM_BUILD_H

#include <CL/cl.h>

struct clx_context;

/* cl/<file> built for the context's device with `options`, with a
 * reference of the caller's own. On failure the build log goes to the log. */
int program_build(struct clx_context *ctx, const char *file, const char *options, cl_program *program);

/* clCreateKernel with the context's error reporting. */
int kernel_create(struct clx_context *ctx, cl_program program, const char *name, cl_kernel *kernel);

#endif
