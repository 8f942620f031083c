/* subpixel_lsq.c - quadratic least-squares peak fit with a precomputed pseudo-inverse. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "subpixel_lsq.h"

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

int lsq_fit_init(struct lsq_fit *fit, int size)
{
    int n = size * size, r = (size - 1) / 2;
    double ata[6][6] = { { 0 } }, row[6];

    fit->size = size;
    fit->pinv = NULL;
    if (size < 3 || size % 2 == 0)
        return CLX_ERR_ARGUMENT;
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

void lsq_fit_release(struct lsq_fit *fit)
{
    free(fit->pinv);
    fit->pinv = NULL;
}

int lsq_fit_peak(const struct lsq_fit *fit, const double *nb, double *sx, double *sy)
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
    double half = (fit->size - 1) / 2.0;
    *sx = *sy = 0;
    /* A maximum needs a negative definite Hessian: det > 0 and d < 0. A det
     * that is zero up to rounding (a ridge) has no unique maximum either. */
    if (!(det > 1e-12 * (4 * fabs(d * f) + e * e)) || !(d < 0))
        return 1;
    double x = (e * c - 2 * f * b) / det;
    double y = (e * b - 2 * d * c) / det;
    if (!(fabs(x) <= half) || !(fabs(y) <= half))
        return 1;
    *sx = x;
    *sy = y;
    return 0;
}
