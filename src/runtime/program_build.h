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

/* A program from OpenCL C text made elsewhere (VkFFT's generated kernels),
 * built with `options` through the same binary cache; `name` is what the
 * messages call it (its part after the last '/' in the first-run line).
 * *from_cache, when not NULL, says whether the cache held it. Not kept in
 * the context's program table: the caller owns the program. */
int program_build_source(struct clx_context *ctx, const char *name, const char *source, const char *options,
                         cl_program *program, int *from_cache);

/* clCreateKernel with the context's error reporting. */
int kernel_create(struct clx_context *ctx, cl_program program, const char *name, cl_kernel *kernel);

#endif
