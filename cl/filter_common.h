/*
 * filter_common.h - what the pre-filter kernels share: the working
 * precision, the stage's input type, the border rules and the epilogue.
 *
 * Layout conventions (both filter paths):
 *  - a stage reads a w x h region of interest (ROI) of each of its images:
 *    pixel (x, y) of image i is in[i * in_stride + in_offset + y * in_pitch + x];
 *  - it treats that ROI as the whole image: reads outside it follow
 *    FILTER_BORDER, relative to the ROI's edges;
 *  - it writes the same-sized ROI of its output, at
 *    out[i * out_stride + out_offset + y * out_pitch + x], and nothing else;
 *  - images go along NDRange dimension 2 (one work-group layer per image).
 * A chain's intermediate is its w x h ROI only (offset 0, pitch w, stride
 * w h); the next stage reads it as a whole image.
 */
#ifndef CLX_FILTER_COMMON_H
#define CLX_FILTER_COMMON_H

#ifndef USE_DOUBLE
#define USE_DOUBLE 0            /* 1: filter in double precision (needs cl_khr_fp64) */
#endif
#ifndef PIXEL_T
#define PIXEL_T ushort          /* the uploaded image's pixel type: uchar, ushort or float */
#endif
#ifndef FILTER_R
#define FILTER_R 1              /* the stage's radius: 2 FILTER_R + 1 taps along x, then along y */
#endif
#ifndef FILTER_BORDER
#define FILTER_BORDER 1         /* outside the source ROI: 0 clamp (aa|abc), 1 mirror (cb|abc), 2 zero */
#endif
#ifndef FILTER_EPILOGUE
#define FILTER_EPILOGUE 0       /* written value: 0 filtered, 1 source - filtered, 2 source / filtered */
#endif
#ifndef FILTER_INPUT_REAL
#define FILTER_INPUT_REAL 0     /* 1: the stage reads reals (a previous stage's output), 0: PIXEL_T */
#endif
#ifndef FILTER_DIVIDE_MIN
#define FILTER_DIVIDE_MIN 1e-6  /* epilogue 2: where filtered <= this (zero, negative, tiny), write 0 */
#endif

#if FILTER_R < 1
#error "FILTER_R must be at least 1"
#endif

#if USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double4 real4;
#else
typedef float real;
typedef float4 real4;
#endif

#if FILTER_INPUT_REAL
typedef real in_t;
#else
typedef PIXEL_T in_t;
#endif

#define FILTER_TAPS (2 * FILTER_R + 1)

/* Index i of a row or column of n pixels, reflected about the edge pixels
 * ("101": -1 -> 1, n -> n - 2), repeatedly when the radius exceeds n. */
static inline int mirror_index(int i, int n)
{
    if (n == 1)
        return 0;
    const int period = 2 * (n - 1);
    i = (i < 0 ? -i : i) % period;
    return i < n ? i : period - i;
}

/* Where index i of a row or column of n pixels is read from under the
 * border rule; -1: nowhere, the value is 0 (zero border). */
static inline int border_index(int i, int n)
{
#if FILTER_BORDER == 0
    return clamp(i, 0, n - 1);
#elif FILTER_BORDER == 1
    return mirror_index(i, n);
#else
    return i >= 0 && i < n ? i : -1;
#endif
}

/* Pixel (x, y) of a w x h ROI whose row 0 starts at `roi`, under the border rule. */
static inline real fetch_border(__global const in_t *roi, int pitch, int x, int y, int w, int h)
{
    x = border_index(x, w);
    y = border_index(y, h);
    return x < 0 || y < 0 ? (real)0 : (real)roi[y * pitch + x];
}

/* The value written for a filtered value f at a pixel whose stage input is s. */
static inline real epilogue(real s, real f)
{
#if FILTER_EPILOGUE == 0
    return f;
#elif FILTER_EPILOGUE == 1
    return s - f;
#else
    return f > (real)FILTER_DIVIDE_MIN ? s / f : (real)0;
#endif
}

#endif
