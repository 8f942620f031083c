/* context.h - the clx_context behind the public API (internal). */
#ifndef CLX_CONTEXT_H
#define CLX_CONTEXT_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "runtime/cl_error.h"
#include "runtime/device.h"
#include "runtime/message.h"
#include "runtime/profile.h"

struct program_table;

struct clx_context {
    struct device_entry dev;     /* the chosen device and what we know of it */
    cl_context cl;
    cl_command_queue queue;      /* in order */
    struct program_table *programs; /* the OpenCL context's programs, shared with clones (program_table.h) */
    char kernel_dir[4096];       /* where the .cl files are read from */
    char cache_dir[4096];        /* "" when the binary cache is off */
    char tuning_dir[4096];       /* where the tuning file is (params/tuning_db.h): clxcorr's cache directory
                                    even when the binary cache is off; "" when there is none or no_tuning */
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
 * overlap on the device. It shares the programs. Release it with
 * clx_context_release.
 */
int ctx_clone(struct clx_context *ctx, struct clx_context **out);

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

/*
 * Grows *buf, a device buffer of *have bytes, to at least `bytes` (its old
 * contents are not kept; *have is updated). An allocation larger than the
 * device allows, or one it refuses, fails naming the buffer: "the OWNER's
 * WHAT need N bytes; DEVICE allows at most M in one buffer".
 */
int ctx_buffer_reserve(struct clx_context *ctx, cl_mem *buf, size_t *have, size_t bytes, const char *owner,
                       const char *what);

/* Records a failed OpenCL call ("clFoo failed on DEVICE: CL_OUT_OF_RESOURCES
 * (src/pipeline/plan.c:123)") in the context; returns the clx_status. */
int ctx_cl_fail(struct clx_context *ctx, cl_int code, const char *call, const char *file, int line);

/* A read-write device buffer; a failure names `what` (e.g. "correlations")
 * and its size. *out is NULL then. */
int ctx_create_buffer(struct clx_context *ctx, size_t bytes, cl_mem *out, const char *what);

/* A read-only device buffer holding values[0 .. n - 1] as the kernels'
 * reals (double, or rounded to float): taps, fits, small tables. A failure
 * names `what`; *out is NULL then. */
int ctx_create_reals(struct clx_context *ctx, const double *values, size_t n, int use_double, cl_mem *out,
                     const char *what);

/* *image: a read-only 1D image of `texels` floats (CL_R) over `buffer`, no
 * copy, for reads through the texture units. Kept while *image_of is
 * `buffer`, else released and made again over it. A failure names `what`;
 * *image and *image_of are NULL then. */
int ctx_float_image_over(struct clx_context *ctx, cl_mem buffer, size_t texels, cl_mem *image, cl_mem *image_of,
                         const char *what);

/* Stage times (profile.h) on the context's queue: the stage `name` (a
 * string literal) ends here, having moved `bytes`; ctx_profile_begin marks
 * where a batch starts. No-ops unless the context profiles. */
void ctx_profile_mark(struct clx_context *ctx, const char *name, double bytes);
void ctx_profile_begin(struct clx_context *ctx);

/*
 * Every OpenCL call in the library goes through CL_CALL (calls that return a
 * cl_int) or CL_CHECK_RESULT (object-creating calls that report through an
 * errcode_ret). On failure they record the call, its error's name and
 * file:line in the context (ctx_cl_fail), set the local `status` and jump to
 * the function's `error:` cleanup label.
 */
#define CL_CALL(ctx, call)                                                   \
    do {                                                                     \
        cl_int cl_call_err_ = cl_fault((call), #call);                       \
        if (cl_call_err_ != CL_SUCCESS) {                                    \
            status = ctx_cl_fail((ctx), cl_call_err_, #call, __FILE__, __LINE__); \
            goto error;                                                      \
        }                                                                    \
    } while (0)

#define CL_CHECK_RESULT(ctx, name, err)                                      \
    do {                                                                     \
        if ((err) != CL_SUCCESS) {                                           \
            status = ctx_cl_fail((ctx), (err), name, __FILE__, __LINE__);    \
            goto error;                                                      \
        }                                                                    \
    } while (0)

#endif
