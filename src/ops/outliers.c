/* outliers.c - the normalised median test over grid neighbours. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/outliers.h"

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sorted distinct values of n ints, in place; returns how many. */
static int distinct(int *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_int);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

static int index_of(const int *v, int n, int x)
{
    const int *p = bsearch(&x, v, (size_t)n, sizeof *v, compare_int);
    return p ? (int)(p - v) : -1;
}

int window_grid_detect(const clx_region *regions, int count, struct window_grid *grid)
{
    int *xs = malloc(sizeof(int) * count), *ys = malloc(sizeof(int) * count);
    int status = -1;
    memset(grid, 0, sizeof *grid);
    if (!xs || !ys)
        goto done;
    for (int i = 0; i < count; i++) {
        xs[i] = regions[i].x;
        ys[i] = regions[i].y;
    }
    int nx = distinct(xs, count), ny = distinct(ys, count);
    if ((long)nx * ny != count || !(grid->region_at = malloc(sizeof(int) * count)))
        goto done;
    for (int c = 0; c < count; c++)
        grid->region_at[c] = -1;
    for (int i = 0; i < count; i++) {
        int c = index_of(ys, ny, regions[i].y) * nx + index_of(xs, nx, regions[i].x);
        if (grid->region_at[c] >= 0)
            goto done;   /* two windows at one corner: not a grid */
        grid->region_at[c] = i;
    }
    grid->nx = nx;
    grid->ny = ny;
    status = 0;
done:
    free(xs);
    free(ys);
    if (status != 0)
        window_grid_release(grid);
    return status;
}

void window_grid_release(struct window_grid *grid)
{
    free(grid->region_at);
    memset(grid, 0, sizeof *grid);
}

/* Below this many values an insertion sort, above it qsort: the test sorts
 * eight neighbours four times per window, and qsort's calls through its
 * comparison made the test most of the accurate mode's host time per batch
 * (about 45 us per 50-window image on the GPU host). */
#define SMALL_SORT 32

static double median(double *v, int n)
{
    if (n <= SMALL_SORT) {
        for (int i = 1; i < n; i++) {
            const double x = v[i];
            int j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
    } else {
        qsort(v, (size_t)n, sizeof *v, compare_double);
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The test's normalised residual of `value` against its neighbours'. */
static double residual(double value, const double *neighbours, int n)
{
    double v[8], dev[8];
    memcpy(v, neighbours, sizeof(double) * n);
    double um = median(v, n);
    for (int i = 0; i < n; i++)
        dev[i] = fabs(neighbours[i] - um);
    double rm = median(dev, n);
    return fabs(value - um) / (rm + OUTLIER_EPSILON);
}

/*
 * The least-squares plane v = c[0] + c[1] x + c[2] y through the values
 * with use[i] set; c = 0 when there are too few or they are collinear.
 */
static void plane_fit(const double *x, const double *y, const double *v, const int *use, int n, double c[3])
{
    double m[3][4] = { { 0 } };
    c[0] = c[1] = c[2] = 0;
    int used = 0;
    for (int i = 0; i < n; i++) {
        if (!use[i])
            continue;
        double row[3] = { 1, x[i], y[i] };
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++)
                m[a][b] += row[a] * row[b];
            m[a][3] += row[a] * v[i];
        }
        used++;
    }
    if (used < 3)
        return;
    /* Gaussian elimination with partial pivoting on the 3 x 3 normal equations. */
    for (int col = 0; col < 3; col++) {
        int piv = col;
        for (int r = col + 1; r < 3; r++)
            if (fabs(m[r][col]) > fabs(m[piv][col]))
                piv = r;
        if (fabs(m[piv][col]) < 1e-12)
            return;
        for (int k = 0; k < 4; k++) {
            double t = m[col][k];
            m[col][k] = m[piv][k];
            m[piv][k] = t;
        }
        for (int r = 0; r < 3; r++) {
            if (r == col)
                continue;
            double f = m[r][col] / m[col][col];
            for (int k = col; k < 4; k++)
                m[r][k] -= f * m[col][k];
        }
    }
    for (int a = 0; a < 3; a++)
        c[a] = m[a][3] / m[a][a];
}

/*
 * The affine trend of the finite values, robust to the outliers the test is
 * there to find: a plain least-squares fit lets one wild window tilt the
 * plane and push a whole row of good neighbours past the threshold. So:
 * fit, drop the values further from the plane than 3 median absolute
 * deviations (at least 2 OUTLIER_EPSILON), fit the rest again, until the
 * set stops changing (a few rounds).
 */
static void affine_fit(const double *x, const double *y, const double *v, int n, double c[3])
{
    int *use = malloc(sizeof(int) * n);
    double *dev = malloc(sizeof(double) * n);
    c[0] = c[1] = c[2] = 0;
    if (!use || !dev)
        goto done;
    for (int i = 0; i < n; i++)
        use[i] = isfinite(v[i]);
    for (int round = 0; round < 5; round++) {
        plane_fit(x, y, v, use, n, c);
        int m = 0, changed = 0;
        for (int i = 0; i < n; i++)
            if (use[i])
                dev[m++] = fabs(v[i] - (c[0] + c[1] * x[i] + c[2] * y[i]));
        if (m == 0)
            break;
        double cut = 3 * 1.4826 * median(dev, m);
        if (cut < 2 * OUTLIER_EPSILON)
            cut = 2 * OUTLIER_EPSILON;
        for (int i = 0; i < n; i++) {
            int keep = isfinite(v[i]) && fabs(v[i] - (c[0] + c[1] * x[i] + c[2] * y[i])) <= cut;
            changed |= keep != use[i];
            use[i] = keep;
        }
        if (!changed)
            break;
    }
done:
    free(use);
    free(dev);
}

void outliers_flag(const struct window_grid *grid, const clx_region *regions, clx_result *results)
{
    int n = grid->nx * grid->ny;
    double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
    double *rdx = calloc((size_t)n, sizeof(double)), *rdy = calloc((size_t)n, sizeof(double));
    double cx[3], cy[3];
    if (!x || !y || !rdx || !rdy)
        goto done;
    /* The offsets minus their affine fit, window by window. */
    for (int i = 0; i < n; i++) {
        x[i] = regions[i].x + (regions[i].w - 1) / 2.0;
        y[i] = regions[i].y + (regions[i].h - 1) / 2.0;
        int ok = isfinite(results[i].dx) && isfinite(results[i].dy);
        rdx[i] = ok ? results[i].dx : NAN;
        rdy[i] = ok ? results[i].dy : NAN;
    }
    affine_fit(x, y, rdx, n, cx);
    affine_fit(x, y, rdy, n, cy);
    for (int i = 0; i < n; i++) {
        rdx[i] -= cx[0] + cx[1] * x[i] + cx[2] * y[i];
        rdy[i] -= cy[0] + cy[1] * x[i] + cy[2] * y[i];
    }
    for (int gy = 0; gy < grid->ny; gy++)
        for (int gx = 0; gx < grid->nx; gx++) {
            int me = grid->region_at[gy * grid->nx + gx];
            double ndx[8], ndy[8];
            int k = 0;
            if (!isfinite(rdx[me]))
                continue;
            for (int j = gy - 1; j <= gy + 1; j++)
                for (int i = gx - 1; i <= gx + 1; i++) {
                    if (i < 0 || j < 0 || i >= grid->nx || j >= grid->ny || (i == gx && j == gy))
                        continue;
                    int nb = grid->region_at[j * grid->nx + i];
                    if (isfinite(rdx[nb])) {
                        ndx[k] = rdx[nb];
                        ndy[k++] = rdy[nb];
                    }
                }
            if (k >= 3 &&
                (residual(rdx[me], ndx, k) > OUTLIER_THRESHOLD || residual(rdy[me], ndy, k) > OUTLIER_THRESHOLD))
                results[me].flags |= CLX_FLAG_OUTLIER;
        }
done:
    free(x);
    free(y);
    free(rdx);
    free(rdy);
}
