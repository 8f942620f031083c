/*
 * interp.h - the interpolation weights of the refinement's window sampling
 * (sample_windows.cl), shared with the pattern warp (warp_pattern.cl):
 * Lanczos-3 (INTERP 1, the default, 6 taps) or Keys' cubic convolution
 * (INTERP 0, a = -0.5, 4 taps). Include after common.h.
 */
#ifndef CLX_INTERP_H
#define CLX_INTERP_H

#ifndef INTERP
#define INTERP 1            /* fractional offsets: 0 Keys' cubic (4 taps), 1 Lanczos-3 (6 taps) */
#endif

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
#else
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
#endif

/* Weight i of the TAPS around a fraction f in [0, 1): exactly one 1 and
 * zeros when f is 0, so an integer move copies pixels bit for bit. */
static inline real tap_weight(real f, int i)
{
    if (f == 0)
        return i == TAPS / 2 - 1 ? 1 : 0;
    return weight(f - (i - TAPS / 2 + 1));
}

#endif
