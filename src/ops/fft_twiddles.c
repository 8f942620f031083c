/* fft_twiddles.c - the twiddle tables of clxcorr's own FFT kernels. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "ops/fft_twiddles.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"

int fft_twiddles_create(struct clx_context *ctx, int n, int use_double, cl_mem *out)
{
    size_t rs = use_double ? sizeof(double) : sizeof(float);
    void *host = malloc((size_t)n * 2 * rs);
    int status = CLX_OK;
    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int t = 0; t < n; t++) {
        double a = -2.0 * M_PI * t / n;
        if (use_double) {
            ((double *)host)[2 * t] = cos(a);
            ((double *)host)[2 * t + 1] = sin(a);
        } else {
            ((float *)host)[2 * t] = (float)cos(a);
            ((float *)host)[2 * t + 1] = (float)sin(a);
        }
    }
    status = ctx_create_buffer(ctx, (size_t)n * 2 * rs, out, "FFT twiddles");
    if (status == CLX_OK)
        CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, 0, (size_t)n * 2 * rs, host, 0, NULL, NULL));
error:
    free(host);
    return status;
}
