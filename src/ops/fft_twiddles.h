/*
 * fft_twiddles.h - the twiddle tables of clxcorr's own FFT kernels
 * (internal; fft_cpu.c and fft_local.c).
 */
#ifndef CLX_FFT_TWIDDLES_H
#define CLX_FFT_TWIDDLES_H

#include <CL/cl.h>

struct clx_context;

/* exp(-2 pi i t / n), t = 0..n-1, computed in double and stored on the
 * device in the plan's precision (complex values, interleaved). */
int fft_twiddles_create(struct clx_context *ctx, int n, int use_double, cl_mem *out);

#endif
