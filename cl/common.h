/*
 * common.h - what every clxcorr kernel shares: the working precision and the
 * window and FFT-layout geometry.
 *
 * Layout conventions (all kernels):
 *  - images: B images of IMAGE_W x IMAGE_H pixels (kernel arguments),
 *    row-major, one after another;
 *  - a "tile" is one (image, window) pair, tile = image * nwin + window;
 *  - padded windows and correlations: PAD_W x PAD_H reals per tile, row-major;
 *    in a correlation, element (x, y) holds the shift ux = x for x < WIN_W and
 *    ux = x - PAD_W for x > PAD_W - WIN_W (likewise uy), as an unshifted FFT
 *    leaves it;
 *  - spectra: (PAD_W / 2 + 1) x PAD_H complex values per tile (R2C layout).
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

#define WIN_PIXELS (WIN_W * WIN_H)
#define PAD_PIXELS (PAD_W * PAD_H)
#define SPEC_W (PAD_W / 2 + 1)
#define SPEC_PIXELS (SPEC_W * PAD_H)

/*
 * The logical correlation layout of ALGORITHM.md is 2 WIN_W x 2 WIN_H, however
 * far the FFT layout was padded: argmax ties and the fit neighbourhood's wrap
 * are defined on it. A logical index is ky * (2 WIN_W) + kx, kx = ux mod 2 WIN_W.
 */
#define LOGICAL_W (2 * WIN_W)
#define LOGICAL_H (2 * WIN_H)

#endif
