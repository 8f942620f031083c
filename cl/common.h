/*
 * common.h - what every clxcorr kernel shares: the working precision and the
 * window and FFT-layout geometry.
 *
 * Layout conventions (all kernels):
 *  - images: B images of IMAGE_W x IMAGE_H pixels (kernel arguments),
 *    row-major, one after another;
 *  - a "tile" is one (image, window) pair, tile = image * nwin + window;
 *  - prepared windows: PAD_W x PAD_H reals per tile, row-major, the window's
 *    zero-mean values at the top left and zeros elsewhere (the FFT path pads
 *    to at least 2 WIN_W x 2 WIN_H, the direct path not at all);
 *  - correlations: CORR_W x CORR_H reals per tile, row-major; shift (ux, uy)
 *    with |ux| <= STORE_RX, |uy| <= STORE_RY is stored at
 *    (ux mod CORR_W, uy mod CORR_H), as an unshifted FFT leaves it; other
 *    elements (the FFT's zero band) belong to no shift;
 *  - spectra: the FFT backend's half-spectra, (PAD_W / 2 + 1) x PAD_H
 *    complex values per tile with clFFT and VkFFT (SPEC_PIXELS; fft=cpu and
 *    fft=local keep layouts of their own, which only their own fused
 *    multiplies see);
 *  - with FFT_PACK=1, packed arrays: PAD_W x PAD_H complex values per pair
 *    of tiles, row-major, tile 2p the real parts of array p and tile 2p + 1
 *    the imaginary parts; their spectra the same (C2C layout).
 */
#ifndef CLX_COMMON_H
#define CLX_COMMON_H

#include "vendor.h"

#ifndef USE_DOUBLE
#define USE_DOUBLE 0    /* 1: every stage in double precision (needs cl_khr_fp64) */
#endif

#if USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

/* The CPU forms' explicit vectors (argmax_rows, tile_prepare_vector, cl/icgn_vector.cl):
 * 8 reals, their halves, and 8 real2 interleaved. */
#if USE_DOUBLE
typedef double4 vreal4;
typedef double8 vreal;
typedef double16 vreal2;
#else
typedef float4 vreal4;
typedef float8 vreal;
typedef float16 vreal2;
#endif

/* A vector's 8 lanes summed in a fixed order (halves, then halves again). */
static inline real lane_sum(vreal a)
{
    const vreal4 b = a.lo + a.hi;
    const real2 c = b.lo + b.hi;
    return c.x + c.y;
}

#ifndef WIN_W
#error "define WIN_W (window width in pixels)"
#endif
#ifndef WIN_H
#error "define WIN_H (window height in pixels)"
#endif
#ifndef PAD_W
#define PAD_W (2 * WIN_W)   /* FFT layout width, >= 2 WIN_W */
#endif
#ifndef PAD_H
#define PAD_H (2 * WIN_H)   /* FFT layout height, >= 2 WIN_H */
#endif

#ifndef CORR_W
#define CORR_W PAD_W        /* correlation layout width (the FFT's by default) */
#endif
#ifndef CORR_H
#define CORR_H PAD_H        /* correlation layout height */
#endif
#ifndef STORE_RX
#define STORE_RX (WIN_W - 1)    /* largest |ux| the correlation layout holds */
#endif
#ifndef STORE_RY
#define STORE_RY (WIN_H - 1)    /* largest |uy| the correlation layout holds */
#endif
#ifndef SEARCH_RX
#define SEARCH_RX STORE_RX      /* largest |ux| the peak search looks at (--max-shift) */
#endif
#ifndef SEARCH_RY
#define SEARCH_RY STORE_RY      /* largest |uy| the peak search looks at */
#endif

#ifndef FFT_PACK
#define FFT_PACK 0      /* FFT path: 0 an R2C and a C2R per tile, 1 a C2C each way per pair of tiles */
#endif

#define WIN_PIXELS (WIN_W * WIN_H)
#define CORR_PIXELS (CORR_W * CORR_H)
#define PAD_PIXELS (PAD_W * PAD_H)
#define SPEC_W (PAD_W / 2 + 1)
#define SPEC_PIXELS (SPEC_W * PAD_H)

/*
 * The logical correlation layout of doc/conventions.md is 2 WIN_W x 2 WIN_H, however
 * far the FFT layout was padded: argmax ties and the fit neighbourhood's wrap
 * are defined on it. A logical index is ky * (2 WIN_W) + kx, kx = ux mod 2 WIN_W.
 */
#define LOGICAL_W (2 * WIN_W)
#define LOGICAL_H (2 * WIN_H)

/* The shift stored at column x (row y) of a correlation, or a value beyond
 * STORE_RX (STORE_RY) when the element belongs to no shift. */
static inline int corr_shift_x(int x)
{
    return x <= STORE_RX ? x : (x >= CORR_W - STORE_RX ? x - CORR_W : STORE_RX + 1);
}

static inline int corr_shift_y(int y)
{
    return y <= STORE_RY ? y : (y >= CORR_H - STORE_RY ? y - CORR_H : STORE_RY + 1);
}

/* Where shift (ux, uy), |ux| <= STORE_RX, |uy| <= STORE_RY, is stored. */
static inline int corr_index(int ux, int uy)
{
    return (uy < 0 ? uy + CORR_H : uy) * CORR_W + (ux < 0 ? ux + CORR_W : ux);
}

#endif
