/*
 * interp.h - the interpolation weights of the refinement's window sampling
 * (sample_windows.cl), shared with the pattern warp (warp_pattern.cl):
 *   INTERP 0  Keys' cubic convolution (a = -0.5), 4 taps;
 *   INTERP 1  Lanczos-3, 6 taps (the default);
 *   INTERP 2  cubic B-spline, 4 taps;
 *   INTERP 3  quintic B-spline, 6 taps.
 * The B-splines do not interpolate pixels: they weight the coefficients
 * bspline_prefilter.cl computes from them, and their sum at whole pixels
 * gives the pixels back. Include after common.h.
 */
#ifndef CLX_INTERP_H
#define CLX_INTERP_H

#ifndef INTERP
#define INTERP 1            /* 0 Keys' cubic, 1 Lanczos-3, 2 cubic B-spline, 3 quintic B-spline */
#endif

/* The B-splines read coefficients, which no integer move may copy. */
#define INTERP_IS_BSPLINE (INTERP == 2 || INTERP == 3)

#define PI_REAL ((real)3.14159265358979323846)

#if INTERP == 0
#define TAPS 4
/* Keys' cubic convolution kernel, a = -0.5, at distance t >= 0. */
static inline real weight(real t)
{
    t = fabs(t);
    if (t <= 1)
        return ((real)1.5 * t - (real)2.5) * t * t + 1;
    if (t < 2)
        return (((real)-0.5 * t + (real)2.5) * t - 4) * t + 2;
    return 0;
}
#elif INTERP == 1
#define TAPS 6
/* Lanczos-3: sinc(t) sinc(t / 3) for |t| < 3. Its pass band is flatter
 * than the cubic's, so its phase error, which biases a refined offset
 * toward half a pixel, is several times smaller. */
static inline real weight(real t)
{
    t = fabs(t);
    if (t < (real)1e-6)
        return 1;
    if (t >= 3)
        return 0;
    const real a = PI_REAL * t, b = a / 3;
    return sinpi(t) * sinpi(t / 3) / (a * b);
}
#elif INTERP == 2
#define TAPS 4
/* The cubic B-spline beta3: support (-2, 2), 2/3 at 0 and 1/6 at +-1. */
static inline real weight(real t)
{
    t = fabs(t);
    if (t < 1)
        return (real)2 / 3 - t * t + t * t * t / 2;
    if (t < 2) {
        const real u = 2 - t;
        return u * u * u / 6;
    }
    return 0;
}
#elif INTERP == 3
#define TAPS 6
/* The quintic B-spline beta5: support (-3, 3), 66/120 at 0, 26/120 at
 * +-1 and 1/120 at +-2 (Horner form of its three polynomial pieces). */
static inline real weight(real t)
{
    t = fabs(t);
    if (t < 1) {
        const real t2 = t * t;
        return (real)11 / 20 + t2 * ((real)-0.5 + t2 * ((real)0.25 - t / 12));
    }
    if (t < 2)
        return (real)17 / 40 +
               t * ((real)5 / 8 + t * ((real)-7 / 4 + t * ((real)5 / 4 + t * ((real)-3 / 8 + t / 24))));
    if (t < 3) {
        const real u = 3 - t, u2 = u * u;
        return u2 * u2 * u / 120;
    }
    return 0;
}
#else
#error "INTERP must be 0 (Keys), 1 (Lanczos-3), 2 (cubic B-spline) or 3 (quintic B-spline)"
#endif

/*
 * The kernel's derivative dw/dt at a signed distance t, for gradients of
 * the interpolated image (cl/icgn.cl): the image's slope at x is the sum of
 * its taps weighted by weight_deriv(x - tap).
 */
static inline real weight_deriv(real t)
{
    const real s = t < 0 ? -1 : 1;
    t = fabs(t);
#if INTERP == 0
    if (t <= 1)
        return s * ((real)4.5 * t - 5) * t;
    if (t < 2)
        return s * (((real)-1.5 * t + 5) * t - 4);
    return 0;
#elif INTERP == 1
    /* d/dt sinc(t) sinc(t / 3), sinc' (t) = (cos(pi t) - sinc(t)) / t. */
    if (t < (real)1e-6 || t >= 3)
        return 0;
    const real a = PI_REAL * t, b = a / 3;
    const real s1 = sinpi(t) / a, s3 = sinpi(t / 3) / b;
    const real d1 = (cospi(t) - s1) / t, d3 = (cospi(t / 3) - s3) / t;
    return s * (d1 * s3 + s1 * d3);
#elif INTERP == 2
    if (t < 1)
        return s * ((real)1.5 * t - 2) * t;
    if (t < 2) {
        const real u = 2 - t;
        return -s * u * u / 2;
    }
    return 0;
#else
    if (t < 1) {
        const real t2 = t * t;
        return s * t * (-1 + t2 * (1 - (real)5 / 12 * t));
    }
    if (t < 2)
        return s * ((real)5 / 8 + t * ((real)-7 / 2 + t * ((real)15 / 4 + t * ((real)-3 / 2 + (real)5 / 24 * t))));
    if (t < 3) {
        const real u = 3 - t, u2 = u * u;
        return -s * u2 * u2 / 24;
    }
    return 0;
#endif
}

/* The derivative weight of tap i around a fraction f (see tap_weight). */
static inline real tap_deriv(real f, int i)
{
    return weight_deriv(f - (i - TAPS / 2 + 1));
}

/*
 * Weight i of the TAPS around a fraction f in [0, 1): tap i sits at
 * floor(x) + i - (TAPS / 2 - 1), so TAPS / 2 - 1 taps lie left of floor(x).
 * For the interpolating kernels, exactly one 1 and zeros when f is 0, so
 * an integer move copies pixels bit for bit. Not for the B-splines: at
 * f = 0 their weights (1/6, 2/3, 1/6, 0 for the cubic) are what turns
 * coefficients back into pixels.
 */
static inline real tap_weight(real f, int i)
{
#if !INTERP_IS_BSPLINE
    if (f == 0)
        return i == TAPS / 2 - 1 ? 1 : 0;
#endif
    return weight(f - (i - TAPS / 2 + 1));
}

/*
 * Where tap index i of a row or column of n values is read from. Pixels
 * outside repeat the edge pixel; coefficients outside are mirrored about
 * the edge ("101": -1 -> 1, n -> n - 2), the boundary rule the prefilter
 * assumed when it computed them, so that the spline still passes through
 * the edge pixels.
 */
static inline int tap_index(int i, int n)
{
#if INTERP_IS_BSPLINE
    if (n == 1)
        return 0;
    const int period = 2 * (n - 1);
    i = (i < 0 ? -i : i) % period;
    return i < n ? i : period - i;
#else
    return clamp(i, 0, n - 1);
#endif
}

/* The TAPS weights around fraction f into wt (tap_weight's); their sum. */
static inline real weights_at(real f, real *wt)
{
    real sum = 0;
    for (int k = 0; k < TAPS; k++) {
        wt[k] = tap_weight(f, k);
        sum += wt[k];
    }
    return sum;
}

/* The interpolant at (x, y) of a w x h image of values or coefficients
 * (the B-splines': the prefiltered image), TAPS x TAPS taps around it.
 * The row weights are computed as the rows are read, not by weights_at
 * beforehand: IC-GN's iterations, which sample here, ran 12 % slower that
 * way on an H200. */
static inline real sample_at(__global const real *src, int w, int h, real x, real y)
{
    const real x0 = floor(x), y0 = floor(y), fx = x - x0, fy = y - y0;
    const int ix = (int)x0 - TAPS / 2 + 1, iy = (int)y0 - TAPS / 2 + 1;
    real wx[TAPS], v = 0, sy = 0;
    const real sx = weights_at(fx, wx);
    if (ix >= 0 && iy >= 0 && ix <= w - TAPS && iy <= h - TAPS) {
        /* Every tap inside the image, as for all but the pixels near its
         * edge: no index to fold (tap_index's modulo, two per tap, was
         * most of a B-spline sample's integer work), the same sum. */
        __global const real *row = src + (size_t)iy * w + ix;
        for (int m = 0; m < TAPS; m++, row += w) {
            const real wy = tap_weight(fy, m);
            real r = 0;
            for (int k = 0; k < TAPS; k++)
                r += wx[k] * row[k];
            v += wy * r;
            sy += wy;
        }
        return v / (sx * sy);
    }
    for (int m = 0; m < TAPS; m++) {
        const real wy = tap_weight(fy, m);
        __global const real *row = src + (size_t)tap_index(iy + m, h) * w;
        real r = 0;
        for (int k = 0; k < TAPS; k++)
            r += wx[k] * row[tap_index(ix + k, w)];
        v += wy * r;
        sy += wy;
    }
    /* Normalised as sample_windows.cl does (Lanczos weights sum to 1 only
     * approximately; the others exactly). */
    return v / (sx * sy);
}

#endif
