/* subpixel.c - the sub-pixel estimators: least squares, three-point Gaussian and parabola, centroid. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "ops/subpixel.h"

/* Inverts the symmetric positive definite 6x6 matrix m in place by
 * Gauss-Jordan elimination with partial pivoting. Returns -1 if singular. */
static int invert6(double m[6][6])
{
    double inv[6][6] = { { 0 } };
    for (int i = 0; i < 6; i++)
        inv[i][i] = 1;
    for (int col = 0; col < 6; col++) {
        int piv = col;
        for (int r = col + 1; r < 6; r++)
            if (fabs(m[r][col]) > fabs(m[piv][col]))
                piv = r;
        if (fabs(m[piv][col]) < 1e-12)
            return -1;
        for (int c = 0; c < 6; c++) {
            double t = m[col][c]; m[col][c] = m[piv][c]; m[piv][c] = t;
            t = inv[col][c]; inv[col][c] = inv[piv][c]; inv[piv][c] = t;
        }
        double d = m[col][col];
        for (int c = 0; c < 6; c++) {
            m[col][c] /= d;
            inv[col][c] /= d;
        }
        for (int r = 0; r < 6; r++) {
            if (r == col || m[r][col] == 0)
                continue;
            double f = m[r][col];
            for (int c = 0; c < 6; c++) {
                m[r][c] -= f * m[col][c];
                inv[r][c] -= f * inv[col][c];
            }
        }
    }
    memcpy(m, inv, sizeof inv);
    return 0;
}

/* The design matrix row for offset (x, y): 1, x, y, x^2, xy, y^2. */
static void basis(double x, double y, double row[6])
{
    row[0] = 1;
    row[1] = x;
    row[2] = y;
    row[3] = x * x;
    row[4] = x * y;
    row[5] = y * y;
}

/* The least-squares pseudo-inverse for F = size. */
static int lsq_init(struct subpixel *fit, int size)
{
    int n = size * size, r = (size - 1) / 2;
    double ata[6][6] = { { 0 } }, row[6];

    for (int i = 0; i < n; i++) {
        basis(i % size - r, i / size - r, row);
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 6; b++)
                ata[a][b] += row[a] * row[b];
    }
    if (invert6(ata))
        return CLX_ERR_ARGUMENT;
    fit->pinv = malloc(sizeof(double) * 6 * n);
    if (!fit->pinv)
        return CLX_ERR_HOST_MEMORY;
    /* pinv = (A^T A)^-1 A^T */
    for (int i = 0; i < n; i++) {
        basis(i % size - r, i / size - r, row);
        for (int a = 0; a < 6; a++) {
            double s = 0;
            for (int b = 0; b < 6; b++)
                s += ata[a][b] * row[b];
            fit->pinv[a * n + i] = s;
        }
    }
    return CLX_OK;
}

static int lsq_estimate(const struct subpixel *fit, const double *nb, double *sx, double *sy)
{
    int n = fit->size * fit->size;
    double co[6];
    for (int a = 0; a < 6; a++) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += fit->pinv[a * n + i] * nb[i];
        co[a] = s;
    }
    double b = co[1], c = co[2], d = co[3], e = co[4], f = co[5];
    double det = 4 * d * f - e * e;
    double half = (fit->size - 1) / 2.0, size = 0;
    for (int i = 0; i < n; i++)
        size = fmax(size, fabs(nb[i]));
    *sx = *sy = 0;
    /* A maximum needs a negative definite Hessian: det > 0 and d < 0. A det
     * that is zero up to rounding (a ridge) has no unique maximum either,
     * nor have curvatures within rounding of the values' size (a flat
     * neighbourhood: its rounding, not its shape, would place the peak; in
     * single precision on the device, cl/peak_offsets.cl, that rounding
     * reaches 1e-6 of the values). */
    if (!(det > 1e-12 * (4 * fabs(d * f) + e * e)) || !(d < 0) ||
        !(fabs(d) + fabs(e) + fabs(f) > 64 * DBL_EPSILON * size))
        return 1;
    double x = (e * c - 2 * f * b) / det;
    double y = (e * b - 2 * d * c) / det;
    if (!(fabs(x) <= half) || !(fabs(y) <= half))
        return 1;
    *sx = x;
    *sy = y;
    return 0;
}

/* One axis's three values around the peak: c- (at -1), c0, c+ (at +1). */
static void axis_values(const struct subpixel *s, const double *nb, int axis, double c[3])
{
    int F = s->size, centre = (F * F) / 2, step = axis == 0 ? 1 : F;
    c[0] = nb[centre - step];
    c[1] = nb[centre];
    c[2] = nb[centre + step];
}

/* The vertex of the parabola through (-1, c[0]), (0, c[1]), (1, c[2]);
 * 1 when it has no maximum within one pixel. */
static int parabola_vertex(const double c[3], double *s)
{
    double curvature = c[0] - 2 * c[1] + c[2];
    *s = 0;
    if (!(curvature < 0))
        return 1;
    double v = (c[0] - c[2]) / (2 * curvature);
    if (!(fabs(v) <= 1))
        return 1;
    *s = v;
    return 0;
}

static int three_point(const struct subpixel *s, const double *nb, int gaussian, double *sx, double *sy)
{
    double shift[2];
    for (int axis = 0; axis < 2; axis++) {
        double c[3];
        axis_values(s, nb, axis, c);
        if (gaussian) {
            /* A Gaussian is a parabola in the logarithm; it needs positive values. */
            if (!(c[0] > 0 && c[1] > 0 && c[2] > 0))
                return 1;
            for (int i = 0; i < 3; i++)
                c[i] = log(c[i]);
        }
        if (parabola_vertex(c, &shift[axis]))
            return 1;
    }
    *sx = shift[0];
    *sy = shift[1];
    return 0;
}

static int centroid(const struct subpixel *s, const double *nb, double *sx, double *sy)
{
    int F = s->size, n = F * F, r = (F - 1) / 2;
    double low = nb[0];
    for (int i = 1; i < n; i++)
        low = fmin(low, nb[i]);
    double sum = 0, mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        double w = nb[i] - low;
        sum += w;
        mx += w * (i % F - r);
        my += w * (i / F - r);
    }
    if (!(sum > 0))
        return 1;
    *sx = mx / sum;
    *sy = my / sum;
    return 0;
}

int subpixel_init(struct subpixel *s, clx_estimator kind, int size)
{
    s->kind = kind;
    s->size = size;
    s->pinv = NULL;
    if (size < 3 || size % 2 == 0)
        return CLX_ERR_ARGUMENT;
    switch (kind) {
    case CLX_ESTIMATOR_DEFAULT:
        break;
    case CLX_ESTIMATOR_LSQ:
        return lsq_init(s, size);
    case CLX_ESTIMATOR_GAUSS3:
    case CLX_ESTIMATOR_PARABOLA3:
    case CLX_ESTIMATOR_CENTROID:
        return CLX_OK;
    }
    return CLX_ERR_ARGUMENT;
}

void subpixel_release(struct subpixel *s)
{
    free(s->pinv);
    s->pinv = NULL;
}

int subpixel_estimate(const struct subpixel *s, const double *nb, double *sx, double *sy)
{
    int failed;
    *sx = *sy = 0;
    switch (s->kind) {
    case CLX_ESTIMATOR_LSQ: return lsq_estimate(s, nb, sx, sy);
    case CLX_ESTIMATOR_GAUSS3: failed = three_point(s, nb, 1, sx, sy); break;
    case CLX_ESTIMATOR_PARABOLA3: failed = three_point(s, nb, 0, sx, sy); break;
    case CLX_ESTIMATOR_CENTROID: failed = centroid(s, nb, sx, sy); break;
    default: failed = 1;
    }
    if (failed)
        *sx = *sy = 0;
    return failed;
}

