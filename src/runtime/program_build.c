/* program_build.c - a program compiled, or loaded from the binary cache, once per OpenCL context. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_source.h"
#include "runtime/program_build.h"
#include "runtime/program_table.h"

/* Sends the build log to the context's log, one line per call. */
static void log_build_failure(struct clx_context *ctx, cl_program prog, const char *file,
                              const char *options)
{
    size_t len = 0;
    ctx_log(ctx, CLX_LOG_WARNING, "building %s for %s failed", file, ctx->dev.info.name);
    ctx_log(ctx, CLX_LOG_WARNING, "build options: %s", options);
    if (clGetProgramBuildInfo(prog, ctx->dev.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS)
        return;
    char *log = malloc(len + 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(prog, ctx->dev.device, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
        log[len] = '\0';
        ctx_log(ctx, CLX_LOG_WARNING, "build log:");
        /* Line by line, in place (strtok's hidden state is not for a
         * library whose contexts run in several threads). */
        for (char *line = log, *end; *line; line = end) {
            end = line + strcspn(line, "\n");
            if (*end)
                *end++ = '\0';
            if (*line)
                ctx_log(ctx, CLX_LOG_WARNING, "  %s", line);
        }
    }
    free(log);
}

static cl_program build_from_cache(struct clx_context *ctx, uint64_t key, const char *options)
{
    size_t size = 0;
    unsigned char *bin = kernel_cache_load(ctx->cache_dir, key, &size);
    if (!bin)
        return NULL;
    const unsigned char *bins[1] = { bin };
    cl_int err, bin_status;
    cl_program prog = clCreateProgramWithBinary(ctx->cl, 1, &ctx->dev.device, &size, bins,
                                                &bin_status, &err);
    free(bin);
    if (err == CL_SUCCESS && bin_status == CL_SUCCESS &&
        clBuildProgram(prog, 1, &ctx->dev.device, options, NULL, NULL) == CL_SUCCESS)
        return prog;
    /* A binary the driver no longer accepts: compile from source instead. */
    if (err == CL_SUCCESS)
        clReleaseProgram(prog);
    ctx_log(ctx, CLX_LOG_DEBUG, "cached binary %016llx rejected; compiling", (unsigned long long)key);
    return NULL;
}

static void store_in_cache(struct clx_context *ctx, cl_program prog, uint64_t key)
{
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0)
        return;
    unsigned char *bin = malloc(size);
    if (!bin)
        return;
    unsigned char *bins[1] = { bin };
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS &&
        kernel_cache_store(ctx->cache_dir, key, bin, size) != 0)
        ctx_log(ctx, CLX_LOG_DEBUG, "could not write the kernel cache in %s", ctx->cache_dir);
    free(bin);
}

int program_build_source(struct clx_context *ctx, const char *name, const char *source, const char *options,
                         cl_program *program, int *from_cache)
{
    cl_program prog = NULL;
    cl_int err;
    int status;

    *program = NULL;
    if (from_cache)
        *from_cache = 0;
    uint64_t key = kernel_cache_key(source, options, ctx->dev.info.name, ctx->dev.info.driver_version,
                                    ctx->dev.platform_version);
    if (ctx->cache_dir[0]) {
        prog = build_from_cache(ctx, key, options);
        if (prog) {
            if (from_cache)
                *from_cache = 1;
            *program = prog;
            return CLX_OK;
        }
    }

    /* What makes a first run slower, said as it happens (the command shows
     * it on a terminal while it prepares). */
    const char *slash = strrchr(name, '/');
    ctx_log(ctx, CLX_LOG_INFO, "%s: compiling %s for this device (%s)",
            ctx->cache_dir[0] ? "first run" : "no kernel cache", slash ? slash + 1 : name,
            ctx->cache_dir[0] ? "later runs load it from the kernel cache" : "every run compiles it");
    const char *sources[1] = { source };
    prog = clCreateProgramWithSource(ctx->cl, 1, sources, NULL, &err);
    CL_CHECK_RESULT(ctx, "clCreateProgramWithSource", err);
    err = clBuildProgram(prog, 1, &ctx->dev.device, options, NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS) {
        log_build_failure(ctx, prog, name, options);
        status = ctx_fail(ctx, CLX_ERR_BUILD,
                          "kernel %s failed to compile for %s with options '%s' (build log in the log output)",
                          name, ctx->dev.info.name, options);
        goto error;
    }
    CL_CHECK_RESULT(ctx, "clBuildProgram", err);
    if (ctx->cache_dir[0])
        store_in_cache(ctx, prog, key);
    *program = prog;
    return CLX_OK;

error:
    if (prog)
        clReleaseProgram(prog);
    return status;
}

/* Makes one program for the table (program_make_fn): cl/<file>'s text,
 * from the binary cache when it holds it, else compiled (and stored there). */
static int make_program(void *user, const char *file, const char *options, cl_program *program)
{
    struct clx_context *ctx = user;
    char *source = NULL;
    char path[sizeof ctx->kernel_dir + 256];

    int status = kernel_source_read(ctx->kernel_dir, file, &source, &ctx->message);
    if (status != CLX_OK)
        return status;
    ctx_log(ctx, CLX_LOG_DEBUG, "build %s: %s", file, options);
    snprintf(path, sizeof path, "%s/%s", ctx->kernel_dir, file);
    status = program_build_source(ctx, path, source, options, program, NULL);
    free(source);
    return status;
}

int program_build(struct clx_context *ctx, const char *file, const char *options, cl_program *program)
{
    int made;
    int status = program_table_get(ctx->programs, file, options, make_program, ctx, program, &made);
    if (status == CLX_ERR_HOST_MEMORY && !ctx->message.text[0])
        return ctx_fail(ctx, status, "out of host memory");
    if (status == CLX_OK && !made)
        ctx_log(ctx, CLX_LOG_DEBUG, "program %s: already built on this OpenCL context", file);
    return status;
}

int kernel_create(struct clx_context *ctx, cl_program program, const char *name, cl_kernel *kernel)
{
    char call[128];
    cl_int err;
    *kernel = clCreateKernel(program, name, &err);
    if (err == CL_SUCCESS)
        return CLX_OK;
    *kernel = NULL;
    snprintf(call, sizeof call, "clCreateKernel(%s)", name);
    return ctx_cl_fail(ctx, err, call, __FILE__, __LINE__);
}
