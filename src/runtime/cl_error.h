/*
 * cl_error.h - naming OpenCL error codes (internal).
 *
 * The checking macros that use these (CL_CALL, CL_CHECK_RESULT) report into
 * a context, so they live with it in runtime/context.h.
 */
#ifndef CLX_CL_ERROR_H
#define CLX_CL_ERROR_H

#include <CL/cl.h>

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), never NULL. */
const char *cl_errstr(cl_int code);

/* The clx_status an OpenCL error code maps to (memory errors are told apart). */
int cl_status(cl_int code);

/*
 * A fault for tests: with CLXCORR_FAULT_ENQUEUE=N in the environment, the
 * N-th clEnqueue* call of the process (counted from 1, over all threads)
 * reports CL_OUT_OF_RESOURCES, as an exhausted or lost device would, so
 * that a test can see what a run does then. Otherwise returns err as is.
 */
cl_int cl_fault(cl_int err, const char *call);

#endif
