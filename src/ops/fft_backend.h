/*
 * fft_backend.h - what an FFT library is to clxcorr (internal): the
 * transforms (enum fft_kind) and the table of calls each backend fills in,
 * src/ops/fft_clfft.c and src/ops/fft_vkfft.c (when configure found VkFFT).
 * Transforms are out of place and batched:
 *   FFT_R2C: `batch` real nx x ny arrays (row length nx, contiguous) to
 *            `batch` complex (nx / 2 + 1) x ny half-spectra;
 *   FFT_C2R: the reverse, scaled by 1 / (nx ny) so that C2R(R2C(x)) = x;
 *   FFT_C2C_FORWARD: `batch` complex nx x ny arrays (interleaved (re, im),
 *            rows of nx, contiguous) to their nx x ny spectra, same layout;
 *   FFT_C2C_INVERSE: the reverse, scaled by 1 / (nx ny).
 * Forward transforms leave their input alone; the input of an inverse
 * transform may be overwritten (backends differ).
 *
 * The libraries' half-spectra are (nx / 2 + 1) x ny complex values, rows of
 * nx / 2 + 1; clxcorr's own backends, "cpu" and "local" (src/ops/fft_cpu.c,
 * src/ops/fft_local.c), keep layouts of their own.
 * Callers only multiply spectra element by element, so they need only
 * their size: spectrum_elements.
 */
#ifndef CLX_FFT_BACKEND_H
#define CLX_FFT_BACKEND_H

#include <stddef.h>
#include <CL/cl.h>
#include "ops/peak_parts.h"

struct clx_context;

enum fft_kind {
    FFT_R2C,
    FFT_C2R,
    FFT_C2C_FORWARD,
    FFT_C2C_INVERSE
};

/* "R2C", "C2R", "C2C forward", "C2C inverse": for logs and messages. */
static inline const char *fft_kind_name(enum fft_kind kind)
{
    switch (kind) {
    case FFT_R2C: return "R2C";
    case FFT_C2R: return "C2R";
    case FFT_C2C_FORWARD: return "C2C forward";
    case FFT_C2C_INVERSE: return "C2C inverse";
    }
    return "?";
}

/* 1 for R2C and C2C_FORWARD (exponent -2 pi i, unscaled), 0 for the inverses. */
static inline int fft_kind_forward(enum fft_kind kind)
{
    return kind == FFT_R2C || kind == FFT_C2C_FORWARD;
}

/* 1 for R2C and C2R, whose spectra are (nx / 2 + 1) x ny half-spectra. */
static inline int fft_kind_real(enum fft_kind kind)
{
    return kind == FFT_R2C || kind == FFT_C2R;
}

struct fft_backend {
    const char *name;
    /* Smallest even length >= n that the backend transforms. */
    int (*good_size)(int n);
    /* Complex values in one array's half-spectrum (R2C's output, C2R's input). */
    size_t (*spectrum_elements)(int nx, int ny);
    /* data_w x data_h: the part of an R2C input that is not zero (its
     * top left; nx x ny for all of it); a backend may skip the rest. */
    int (*create)(struct clx_context *ctx, enum fft_kind kind, int nx, int ny, int batch,
                  int use_double, int data_w, int data_h, void **state);
    int (*execute)(struct clx_context *ctx, void *state, cl_mem in, cl_mem out);
    /* Optional (NULL where the backend has none): the correlation's three
     * steps fused where the backend can keep data between them: the R2C
     * `forward` of `in` into `spectra`, each spectrum i times the conjugate
     * of ref_spectra[i % nwin], and the C2R `inverse` of the products into
     * `out` (`spectra` is overwritten). The same result as execute, the
     * element-wise multiply and execute again. With `parts` (NULL: none),
     * also the first half of each array's peak search (peak_parts.h):
     * peak_parts_per_array(inverse) pairs per array. */
    int (*correlate)(struct clx_context *ctx, void *forward, void *inverse, cl_mem in, cl_mem spectra,
                     cl_mem ref_spectra, int nwin, cl_mem out, const struct peak_parts *parts);
    /* Optional (NULL: 0): the (value, index) pairs per array that correlate
     * leaves in `parts` with this C2R plan; 0 where it cannot search, and
     * must then be given NULL. */
    int (*peak_parts_per_array)(const void *inverse);
    void (*destroy)(void *state);
};

extern const struct fft_backend fft_backend_clfft;
extern const struct fft_backend fft_backend_cpu;
extern const struct fft_backend fft_backend_local;
/* Whether the local backend's nx x ny transforms fit a device with
 * local_memory bytes of local memory (a work-group's lines, up to 48 KiB). */
int fft_local_fits(int nx, int ny, int use_double, unsigned long long local_memory);
/* What cl/fft_local.cl is built with for nx x ny transforms of lines_y and
 * lines_x lines per work-group of work_group items (for tests/print_kernel_options.c too). */
void fft_local_build_options(int nx, int ny, int use_double, int lines_y, int lines_x, size_t work_group, char *buf,
                             size_t len);
/* What cl/fft_cpu.cl is built with for nx x ny transforms (for tests/print_kernel_options.c too). */
void fft_cpu_build_options(int nx, int ny, int use_double, char *buf, size_t len);

/* The libraries' half-spectrum size, (nx / 2 + 1) ny. */
static inline size_t fft_library_spectrum_elements(int nx, int ny)
{
    return (size_t)(nx / 2 + 1) * ny;
}
#ifdef HAVE_VKFFT
extern const struct fft_backend fft_backend_vkfft;
#endif

#endif
