/*
 * fft_plan.h - batched 2-D FFTs behind one small interface (internal).
 *
 * The correlation code (src/ops/correlate_fft.c) sees only these calls and
 * the backend it names; the backends and the transforms are described in
 * fft_backend.h.
 */
#ifndef CLX_FFT_PLAN_H
#define CLX_FFT_PLAN_H

#include <CL/cl.h>
#include "ops/fft_backend.h"

struct clx_context;
struct fft_plan;

/* The backend used for new plans unless one is asked for (clFFT). */
const struct fft_backend *fft_default_backend(void);

/* The backend called `name` ("clfft", "cpu", "local", "vkfft"); NULL when unknown or not built in. */
const struct fft_backend *fft_backend_named(const char *name);

int fft_plan_create(struct clx_context *ctx, const struct fft_backend *backend, enum fft_kind kind,
                    int nx, int ny, int batch, int use_double, int data_w, int data_h,
                    struct fft_plan **plan);
/* Enqueues the transform on the context's queue. */
int fft_plan_execute(struct fft_plan *plan, cl_mem in, cl_mem out);
/* 1 when r2c's backend fuses the correlation's steps (fft_backend.h's correlate). */
int fft_plan_fuses_correlation(const struct fft_plan *r2c);
/* Enqueues the fused correlation: r2c of `in`, times conj(ref_spectra[i % nwin]), c2r into `out`;
 * with `parts` (NULL: none), fft_plan_peak_parts(c2r) pairs per array of its peak search too. */
int fft_plan_correlate(struct fft_plan *r2c, struct fft_plan *c2r, cl_mem in, cl_mem spectra, cl_mem ref_spectra,
                       int nwin, cl_mem out, const struct peak_parts *parts);
/* The pairs per array fft_plan_correlate leaves for the peak search with this C2R plan; 0: none. */
int fft_plan_peak_parts(const struct fft_plan *c2r);
void fft_plan_destroy(struct fft_plan *plan);

#endif
