/* context.h - the clx_context behind the public API (internal). */
#ifndef CLX_CONTEXT_H
#define CLX_CONTEXT_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "runtime/device.h"
#include "runtime/message.h"
#include "runtime/profile.h"

struct clx_context {
    struct device_entry dev;     /* the chosen device and what we know of it */
    cl_context cl;
    cl_command_queue queue;      /* in order */
    char kernel_dir[4096];       /* where the .cl files are read from */
    char cache_dir[4096];        /* "" when the binary cache is off */
    char tuning_path[4096];      /* the tuning file (tuning_db.h); "" when there is no cache directory */
    int ignore_tuning;           /* plans take the shipped defaults, not the tuning file's (clx_tune's own runs) */
    struct profile *profile;     /* stage times (profile.h); NULL when profiling is off */
    clx_log_fn log;
    void *log_user;
    clx_log_level log_level;
    clx_message message;         /* the last error */
};

/*
 * A second context on the same device and OpenCL context, with its own
 * in-order queue and its own last-error message: one per thread that runs
 * plans at the same time as others (src/pipeline/stream.c), so that their work can
 * overlap on the device. Release it with clx_context_release.
 */
int ctx_clone(struct clx_context *ctx, struct clx_context **out);

/* Creates the context's in-order queue, with profiling when ctx->profile is set. */
cl_command_queue ctx_queue_create(struct clx_context *ctx, cl_int *err);

/* Pinned (page-locked) host memory from the OpenCL driver: a buffer
 * allocated with CL_MEM_ALLOC_HOST_PTR and mapped for writing, from which
 * uploads run at the bus's full speed. */
struct pinned {
    cl_mem buffer;
    void *host;
    size_t bytes;
};
int ctx_pinned_alloc(struct clx_context *ctx, size_t bytes, struct pinned *out, const char *what);
void ctx_pinned_free(struct clx_context *ctx, struct pinned *p);

/* Sends one line to the context's log callback if the level is enabled. */
void ctx_log(struct clx_context *ctx, clx_log_level level, const char *fmt, ...) CLX_PRINTF(3, 4);

/* Records a one-line error in the context and returns status. */
int ctx_fail(struct clx_context *ctx, int status, const char *fmt, ...) CLX_PRINTF(3, 4);

/* A read-write device buffer; a failure names `what` (e.g. "correlations")
 * and its size. *out is NULL then. */
int ctx_create_buffer(struct clx_context *ctx, size_t bytes, cl_mem *out, const char *what);

#endif
