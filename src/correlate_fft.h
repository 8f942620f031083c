/*
 * correlate_fft.h - the FFT path: C = IFFT(conj(FFT(r)) * FFT(d)) for every
 * tile, with the reference's spectra computed once (internal).
 */
#ifndef CLX_CORRELATE_FFT_H
#define CLX_CORRELATE_FFT_H

#include <CL/cl.h>
#include "kernel_build.h"

struct clx_context;
struct fft_plan;

struct correlate_fft {
    struct fft_plan *r2c, *c2r;    /* batched over all `ntiles` tiles */
    cl_program program;
    cl_kernel multiply;
    cl_mem spectra;                /* ntiles half-spectra */
    cl_mem ref_spectra;            /* nwin half-spectra of the reference */
    size_t spectrum_bytes;         /* one tile's half-spectrum */
    size_t multiply_global[2];     /* spectrum_multiply's NDRange */
    int nwin, ntiles;
};

/* Device bytes correlate_fft_create allocates for ntiles tiles (for batch sizing). */
size_t correlate_fft_bytes(const struct kernel_params *p, int nwin, int ntiles);

/* Bakes the FFT plans for p's layout over ntiles tiles and allocates the spectra. */
int correlate_fft_create(struct clx_context *ctx, const struct kernel_params *p, int nwin,
                         int ntiles, struct correlate_fft *cf);

/* Transforms the reference's nwin padded tiles (the first nwin tiles of
 * `padded`) and keeps their spectra. */
int correlate_fft_set_reference(struct clx_context *ctx, struct correlate_fft *cf, cl_mem padded);

/* Correlates the padded tiles with the reference: writes `corr` (PAD_W x PAD_H
 * reals per tile). Always transforms all ntiles tiles (the plans are baked
 * for that count); tiles past the pushed images hold values nobody reads. */
int correlate_fft_enqueue(struct clx_context *ctx, struct correlate_fft *cf, cl_mem padded,
                          cl_mem corr);

void correlate_fft_release(struct correlate_fft *cf);

#endif
