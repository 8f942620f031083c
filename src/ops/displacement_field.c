/* displacement_field.c - a grid's displacement field between passes (see displacement_field.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/displacement_field.h"

void field_validation_defaults(struct field_validation *v)
{
    v->median_threshold = 2.0;
    v->median_epsilon = 0.1;
    v->min_peak_ratio = 0;
    v->min_zncc = -1;
    v->max_displacement = 0;
}

int field_create(struct displacement_field *f, int nx, int ny, double x0, double y0, double step_x, double step_y)
{
    size_t n = (size_t)nx * ny;
    memset(f, 0, sizeof *f);
    f->nx = nx;
    f->ny = ny;
    f->x0 = x0;
    f->y0 = y0;
    f->step_x = step_x;
    f->step_y = step_y;
    f->u = calloc(n, sizeof *f->u);
    f->v = calloc(n, sizeof *f->v);
    f->valid = calloc(n, sizeof *f->valid);
    if (!f->u || !f->v || !f->valid) {
        field_free(f);
        return CLX_ERR_HOST_MEMORY;
    }
    return CLX_OK;
}

void field_free(struct displacement_field *f)
{
    free(f->u);
    free(f->v);
    free(f->valid);
    memset(f, 0, sizeof *f);
}

void field_from_results(struct displacement_field *f, const clx_result *results)
{
    for (int k = 0; k < f->nx * f->ny; k++) {
        int ok = isfinite(results[k].dx) && isfinite(results[k].dy);
        f->u[k] = ok ? results[k].dx : 0;
        f->v[k] = ok ? results[k].dy : 0;
        f->valid[k] = (unsigned char)ok;
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The valid neighbours of point (i, j): their offsets in grid steps (di,
 * dj) and components into nu, nv; returns how many. */
static int neighbours(const struct displacement_field *f, int i, int j, int *di_out, int *dj_out, double *nu,
                      double *nv)
{
    int n = 0;
    for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++) {
            int a = i + di, b = j + dj;
            if ((di || dj) && a >= 0 && a < f->nx && b >= 0 && b < f->ny && f->valid[b * f->nx + a]) {
                di_out[n] = di;
                dj_out[n] = dj;
                nu[n] = f->u[b * f->nx + a];
                nv[n] = f->v[b * f->nx + a];
                n++;
            }
        }
    return n;
}

/*
 * What the neighbours say the point's value is: the least-squares plane
 * through them, at the point (its intercept), and into res their
 * residuals from that plane; the median and its deviations where too few
 * or too aligned neighbours fix no plane. Why a plane and not the usual
 * median: at a border, or beside a gap, the neighbours lie on one side,
 * and in a field with a gradient their median is off the point's value by
 * a grid step's worth of it (on a gentle flow, 0.4 px): the median test
 * then rejects good border vectors and the median replaces them badly.
 * Inside a full neighbourhood of a linear field the plane is the
 * neighbours' mean, which is the median.
 */
static double neighbourhood_value(const int *di, const int *dj, const double *val, int n, double *res)
{
    double s[3][3] = { { 0 } }, t[3] = { 0 };
    for (int k = 0; k < n; k++) {
        double x[3] = { 1, di[k], dj[k] };
        for (int a = 0; a < 3; a++) {
            t[a] += x[a] * val[k];
            for (int b = 0; b < 3; b++)
                s[a][b] += x[a] * x[b];
        }
    }
    double det = s[0][0] * (s[1][1] * s[2][2] - s[1][2] * s[2][1]) - s[0][1] * (s[1][0] * s[2][2] - s[1][2] * s[2][0]) +
                 s[0][2] * (s[1][0] * s[2][1] - s[1][1] * s[2][0]);
    if (n >= 3 && fabs(det) > 1e-9) {
        /* Cramer's rule for the plane a + bx di + by dj. */
        double c[3];
        for (int col = 0; col < 3; col++) {
            double m[3][3];
            memcpy(m, s, sizeof m);
            for (int r = 0; r < 3; r++)
                m[r][col] = t[r];
            c[col] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                      m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                      m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
        }
        for (int k = 0; k < n; k++)
            res[k] = val[k] - (c[0] + c[1] * di[k] + c[2] * dj[k]);
        return c[0];
    }
    double sorted[8];
    memcpy(sorted, val, sizeof *val * n);
    double m = median(sorted, n);
    for (int k = 0; k < n; k++)
        res[k] = val[k] - m;
    return m;
}

/* The normalised median test's residual of one component at a point:
 * its distance from the neighbourhood's value over the median of the
 * neighbours' own distances from it, plus eps. */
static double median_residual(double x, const int *di, const int *dj, const double *nb, int n, double eps)
{
    double res[8];
    double predicted = neighbourhood_value(di, dj, nb, n, res);
    for (int k = 0; k < n; k++)
        res[k] = fabs(res[k]);
    return fabs(x - predicted) / (median(res, n) + eps);
}

int field_validate(struct displacement_field *f, const struct field_validation *val,
                   const struct displacement_field *trend, clx_result *results)
{
    int n = f->nx * f->ny, rejected = 0;
    unsigned char *fail = calloc((size_t)n, 1);
    /* What the median test sees: the field, or what is left of it beyond the trend. */
    struct displacement_field left = *f;
    if (trend) {
        left.u = malloc(sizeof *left.u * n);
        left.v = malloc(sizeof *left.v * n);
    }
    if (!fail || !left.u || !left.v) {
        free(fail);
        if (trend) {
            free(left.u);
            free(left.v);
        }
        return 0;
    }
    for (int k = 0; trend && k < n; k++) {
        left.u[k] = f->u[k] - trend->u[k];
        left.v[k] = f->v[k] - trend->v[k];
    }
    for (int j = 0; j < f->ny; j++)
        for (int i = 0; i < f->nx; i++) {
            int k = j * f->nx + i;
            if (!f->valid[k])
                continue;
            const clx_result *r = results ? &results[k] : NULL;
            int bad = 0;
            if (r && val->min_peak_ratio > 0 && !(r->peak_ratio >= val->min_peak_ratio))
                bad = 1;
            if (r && val->min_zncc > -1 && !(r->zncc >= val->min_zncc))
                bad = 1;
            if (val->max_displacement > 0 && hypot(f->u[k], f->v[k]) > val->max_displacement)
                bad = 1;
            double nu[8], nv[8];
            int di[8], dj[8];
            int m = val->median_threshold > 0 ? neighbours(&left, i, j, di, dj, nu, nv) : 0;
            /* Fewer than 3 valid neighbours tell nothing. */
            if (!bad && m >= 3 &&
                (median_residual(left.u[k], di, dj, nu, m, val->median_epsilon) > val->median_threshold ||
                 median_residual(left.v[k], di, dj, nv, m, val->median_epsilon) > val->median_threshold))
                bad = 1;
            fail[k] = (unsigned char)bad;
        }
    /* Rejected all at once: a bad vector must not make its neighbour look bad first. */
    for (int k = 0; k < n; k++)
        if (fail[k]) {
            f->valid[k] = 0;
            rejected++;
            if (results)
                results[k].flags |= CLX_FLAG_OUTLIER;
        }
    free(fail);
    if (trend) {
        free(left.u);
        free(left.v);
    }
    return rejected;
}

int field_replace(struct displacement_field *f)
{
    int n = f->nx * f->ny, replaced = 0, any = 0;
    for (int k = 0; k < n; k++)
        any |= f->valid[k];
    if (!any) {
        memset(f->u, 0, sizeof *f->u * n);
        memset(f->v, 0, sizeof *f->v * n);
        return -1;
    }
    unsigned char *fill = malloc((size_t)n);
    if (!fill)
        return 0;
    /* Sweep by sweep, from the gaps' edges inwards: a point takes the median
     * of the neighbours valid at the sweep's start. */
    for (;;) {
        int left = 0;
        memset(fill, 0, (size_t)n);
        for (int j = 0; j < f->ny; j++)
            for (int i = 0; i < f->nx; i++) {
                int k = j * f->nx + i;
                double nu[8], nv[8], res[8];
                int di[8], dj[8];
                if (f->valid[k])
                    continue;
                int m = neighbours(f, i, j, di, dj, nu, nv);
                if (m == 0) {
                    left++;
                    continue;
                }
                f->u[k] = neighbourhood_value(di, dj, nu, m, res);
                f->v[k] = neighbourhood_value(di, dj, nv, m, res);
                fill[k] = 1;
            }
        for (int k = 0; k < n; k++)
            if (fill[k]) {
                f->valid[k] = 1;
                replaced++;
            }
        if (left == 0)
            break;
    }
    free(fill);
    return replaced;
}

void field_smooth(struct displacement_field *f)
{
    int n = f->nx * f->ny;
    double *su = malloc(sizeof *su * n), *sv = malloc(sizeof *sv * n);
    if (!su || !sv) {
        free(su);
        free(sv);
        return;
    }
    static const double w[3] = { 0.25, 0.5, 0.25 };
    for (int j = 0; j < f->ny; j++)
        for (int i = 0; i < f->nx; i++) {
            double a = 0, b = 0, s = 0;
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    int x = i + di, y = j + dj;
                    if (x < 0 || x >= f->nx || y < 0 || y >= f->ny)
                        continue;
                    double ww = w[di + 1] * w[dj + 1];
                    a += ww * f->u[y * f->nx + x];
                    b += ww * f->v[y * f->nx + x];
                    s += ww;
                }
            su[j * f->nx + i] = a / s;
            sv[j * f->nx + i] = b / s;
        }
    memcpy(f->u, su, sizeof *su * n);
    memcpy(f->v, sv, sizeof *sv * n);
    free(su);
    free(sv);
}

/* Catmull-Rom weights of the points -1 .. 2 around a fraction t. */
static void catmull_rom(double t, double w[4])
{
    double t2 = t * t, t3 = t2 * t;
    w[0] = 0.5 * (-t3 + 2 * t2 - t);
    w[1] = 0.5 * (3 * t3 - 5 * t2 + 2);
    w[2] = 0.5 * (-3 * t3 + 4 * t2 + t);
    w[3] = 0.5 * (t3 - t2);
}

static int clampi(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

void field_at(const struct displacement_field *f, double x, double y, double *u, double *v)
{
    double gx = f->nx > 1 ? (x - f->x0) / f->step_x : 0, gy = f->ny > 1 ? (y - f->y0) / f->step_y : 0;
    gx = gx < 0 ? 0 : gx > f->nx - 1 ? f->nx - 1 : gx;
    gy = gy < 0 ? 0 : gy > f->ny - 1 ? f->ny - 1 : gy;
    int i0 = (int)floor(gx), j0 = (int)floor(gy);
    double wx[4], wy[4];
    catmull_rom(gx - i0, wx);
    catmull_rom(gy - j0, wy);
    double su = 0, sv = 0;
    for (int b = 0; b < 4; b++) {
        int j = clampi(j0 - 1 + b, f->ny);
        for (int a = 0; a < 4; a++) {
            int k = j * f->nx + clampi(i0 - 1 + a, f->nx);
            su += wx[a] * wy[b] * f->u[k];
            sv += wx[a] * wy[b] * f->v[k];
        }
    }
    *u = su;
    *v = sv;
}
