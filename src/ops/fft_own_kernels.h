/*
 * fft_own_kernels.h - what clxcorr's own FFT backends, "cpu" (fft_cpu.c)
 * and "local" (fft_local.c), hold alike (internal): one program whose
 * kernels have the same names and roles in cl/fft_cpu.cl and
 * cl/fft_local.cl, and the twiddle tables of both axes.
 */
#ifndef CLX_FFT_OWN_KERNELS_H
#define CLX_FFT_OWN_KERNELS_H

#include <CL/cl.h>
#include "ops/fft_backend.h"

struct clx_context;

struct own_fft_kernels {
    cl_program program;
    cl_kernel columns;           /* fft_r2c_columns (R2C plans) or fft_c2r_columns (C2R) */
    cl_kernel rows;              /* fft_rows, both directions */
    cl_kernel rows_correlate;    /* R2C plans: fft_rows_correlate, for the backend's correlate */
    cl_mem twiddles_x, twiddles_y;   /* exp(-2 pi i t / n), t = 0..n-1, n = nx and ny */
};

/* Builds `file` with `options` and makes kind's kernels and the nx and ny
 * twiddle tables; on failure releases what it made. */
int own_fft_kernels_create(struct clx_context *ctx, const char *file, const char *options, enum fft_kind kind,
                           int nx, int ny, int use_double, struct own_fft_kernels *k);
void own_fft_kernels_release(struct own_fft_kernels *k);

/* The columns along y, whose kernels take the same arguments in both
 * programs: R2C's step 1, the top-left data_w x data_h of `in` into the
 * half-spectra `out`; C2R's step 2, the half-spectra `in`, their rows
 * already transformed back, into the columns of `out`. */
int own_fft_enqueue_columns(struct clx_context *ctx, const struct own_fft_kernels *k, enum fft_kind kind,
                            int data_w, int data_h, cl_mem in, cl_mem out, const size_t global[2],
                            const size_t local[2]);

#endif
