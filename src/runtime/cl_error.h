/*
 * cl_error.h - naming OpenCL error codes and the one checking macro (internal).
 *
 * Every OpenCL call in the library goes through CL_CALL (calls that return a
 * cl_int) or CL_CHECK_RESULT (object-creating calls that report through an
 * errcode_ret). On failure they record "clFoo failed: CL_OUT_OF_RESOURCES
 * (src/pipeline/plan.c:123)" in the context, set the local `status` and jump to the
 * function's `error:` cleanup label.
 */
#ifndef CLX_CL_ERROR_H
#define CLX_CL_ERROR_H

#include <CL/cl.h>

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), never NULL. */
const char *cl_errstr(cl_int code);

/* The clx_status an OpenCL error code maps to (memory errors are told apart). */
int cl_status(cl_int code);

struct clx_context;
/* Records the failure in the context's message; returns the clx_status. */
int ctx_cl_fail(struct clx_context *ctx, cl_int code, const char *call,
                const char *file, int line);

/*
 * A fault for tests: with CLXCORR_FAULT_ENQUEUE=N in the environment, the
 * N-th clEnqueue* call of the process (counted from 1, over all threads)
 * reports CL_OUT_OF_RESOURCES, as an exhausted or lost device would, so
 * that a test can see what a run does then. Otherwise returns err as is.
 */
cl_int cl_fault(cl_int err, const char *call);

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
