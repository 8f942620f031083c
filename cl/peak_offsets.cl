/*
 * peak_offsets.cl - each tile's offset from its integer peak and F x F
 * neighbourhood, on the device: the same estimators as the host's
 * src/ops/subpixel.c, so that a refinement can start from the first pass
 * without a round trip through the host (the accurate mode's IC-GN).
 *
 * kind and fallback are clx_estimator values (1 lsq, 2 gauss3,
 * 3 parabola3, 4 centroid; 0 for the fallback: none). The fallback is tried
 * when the estimator finds no maximum; where neither does, the offset is
 * the integer peak, as on the host. A tile without a peak (argmax gave -1)
 * gets NaN, NaN: no start. lsq's pseudo-inverse (6 x F*F, row-major) is
 * the host's, computed once per F. The sums are in `real`, where the host
 * sums in double: the offsets agree to the precision's rounding.
 *
 * NDRange: global (ntiles rounded up), any local.
 */
#include "common.h"

#ifndef FIT_SIZE
#define FIT_SIZE 5
#endif
#define FIT_N (FIT_SIZE * FIT_SIZE)
#define FIT_R ((FIT_SIZE - 1) / 2)

/* Curvatures within this many roundings of the values' size are no
 * curvature (subpixel.c's lsq_estimate says why). */
#if USE_DOUBLE
#define REAL_EPSILON DBL_EPSILON
#else
#define REAL_EPSILON FLT_EPSILON
#endif

#define EST_LSQ 1
#define EST_GAUSS3 2
#define EST_PARABOLA3 3
#define EST_CENTROID 4

/* The quadratic surface's maximum; 1 when it has none within FIT_R. */
static int lsq(const real *nb, __global const real *pinv, real2 *s)
{
    real co[6];
    for (int a = 0; a < 6; a++) {
        real sum = 0;
        for (int i = 0; i < FIT_N; i++)
            sum += pinv[a * FIT_N + i] * nb[i];
        co[a] = sum;
    }
    const real b = co[1], c = co[2], d = co[3], e = co[4], f = co[5];
    const real det = 4 * d * f - e * e;
    real size = 0;
    for (int i = 0; i < FIT_N; i++)
        size = fmax(size, fabs(nb[i]));
    if (!(det > (real)1e-12 * (4 * fabs(d * f) + e * e)) || !(d < 0) ||
        !(fabs(d) + fabs(e) + fabs(f) > 64 * REAL_EPSILON * size))
        return 1;
    const real x = (e * c - 2 * f * b) / det, y = (e * b - 2 * d * c) / det;
    if (!(fabs(x) <= (real)FIT_R) || !(fabs(y) <= (real)FIT_R))
        return 1;
    *s = (real2)(x, y);
    return 0;
}

/* The vertex of the parabola through (-1, c0), (0, c1), (1, c2). */
static int vertex(real c0, real c1, real c2, real *v)
{
    const real curvature = c0 - 2 * c1 + c2;
    if (!(curvature < 0))
        return 1;
    *v = (c0 - c2) / (2 * curvature);
    return !(fabs(*v) <= 1);
}

static int three_point(const real *nb, int gaussian, real2 *s)
{
    real shift[2];
    for (int axis = 0; axis < 2; axis++) {
        const int step = axis == 0 ? 1 : FIT_SIZE;
        real c0 = nb[FIT_N / 2 - step], c1 = nb[FIT_N / 2], c2 = nb[FIT_N / 2 + step];
        if (gaussian) {
            if (!(c0 > 0 && c1 > 0 && c2 > 0))
                return 1;
            c0 = log(c0);
            c1 = log(c1);
            c2 = log(c2);
        }
        if (vertex(c0, c1, c2, &shift[axis]))
            return 1;
    }
    *s = (real2)(shift[0], shift[1]);
    return 0;
}

static int centroid(const real *nb, real2 *s)
{
    real low = nb[0], sum = 0, mx = 0, my = 0;
    for (int i = 1; i < FIT_N; i++)
        low = fmin(low, nb[i]);
    for (int i = 0; i < FIT_N; i++) {
        const real w = nb[i] - low;
        sum += w;
        mx += w * (i % FIT_SIZE - FIT_R);
        my += w * (i / FIT_SIZE - FIT_R);
    }
    if (!(sum > 0))
        return 1;
    *s = (real2)(mx / sum, my / sum);
    return 0;
}

/* 0 with *s set when estimator `kind` found a maximum. */
static int estimate(int kind, const real *nb, __global const real *pinv, real2 *s)
{
    switch (kind) {
    case EST_LSQ: return lsq(nb, pinv, s);
    case EST_GAUSS3: return three_point(nb, 1, s);
    case EST_PARABOLA3: return three_point(nb, 0, s);
    case EST_CENTROID: return centroid(nb, s);
    }
    return 1;
}

__kernel void peak_offsets(__global const int *peaks, __global const real *neighbourhoods, int ntiles, int kind,
                           __global const real *pinv, int fallback, __global const real *fallback_pinv,
                           __global real2 *offsets)
{
    const int tile = get_global_id(0);
    if (tile >= ntiles)
        return;
    const int key = peaks[tile];
    if (key < 0) {
        offsets[tile] = (real2)(NAN, NAN);
        return;
    }
    real nb[FIT_N];
    for (int i = 0; i < FIT_N; i++)
        nb[i] = neighbourhoods[(size_t)tile * FIT_N + i];
    const int kx = key % LOGICAL_W, ky = key / LOGICAL_W;
    const real2 integer = (real2)(kx < WIN_W ? kx : kx - LOGICAL_W, ky < WIN_H ? ky : ky - LOGICAL_H);
    real2 s = (real2)(0, 0);
    if (estimate(kind, nb, pinv, &s) && (fallback == 0 || estimate(fallback, nb, fallback_pinv, &s)))
        s = (real2)(0, 0);
    offsets[tile] = integer + s;
}
