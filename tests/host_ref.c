/*
 * host_ref.c - the double-precision host reference of the seed method.
 *
 * Written from doc/conventions.md alone (see host_ref.h); nothing here is shared
 * with src/ or cl/. Every step is the textbook form of its definition, in
 * double, so that it can be checked by reading.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_ref.h"

/* The reference is test code: running out of memory is not a case it handles. */
static void *href_calloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (p == NULL) {
        fprintf(stderr, "host_ref: out of memory (%zu x %zu bytes)\n", count, size);
        abort();
    }
    return p;
}

/* The non-negative remainder of a by m (m > 0): the index of shift a in a buffer of m. */
static int wrap(int a, int m)
{
    int k = a % m;
    return k < 0 ? k + m : k;
}

/* ------------------------------------------------------------------------ */
/* Windows                                                                   */
/* ------------------------------------------------------------------------ */

static double pixel_at(const clx_image *img, int x, int y)
{
    size_t i = (size_t)y * (size_t)img->width + (size_t)x;
    switch (img->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)img->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)img->pixels)[i];
    case CLX_PIXEL_F32: return ((const float *)img->pixels)[i];
    }
    fprintf(stderr, "host_ref: unknown pixel type %d\n", (int)img->type);
    abort();
}

static void check_region(const clx_image *img, const clx_region *r)
{
    assert(r->w >= 1 && r->h >= 1);
    assert(r->x >= 0 && r->y >= 0);
    assert(r->x + r->w <= img->width && r->y + r->h <= img->height);
    (void)img;
    (void)r;
}

double href_window_mean(const clx_image *img, const clx_region *r)
{
    check_region(img, r);
    double sum = 0.0;
    for (int y = 0; y < r->h; y++)
        for (int x = 0; x < r->w; x++)
            sum += pixel_at(img, r->x + x, r->y + y);
    return sum / ((double)r->w * (double)r->h);
}

void href_window_zero_mean(const clx_image *img, const clx_region *r, double *out)
{
    double mean = href_window_mean(img, r);
    for (int y = 0; y < r->h; y++)
        for (int x = 0; x < r->w; x++)
            out[y * r->w + x] = pixel_at(img, r->x + x, r->y + y) - mean;
}

/* ------------------------------------------------------------------------ */
/* Correlation, direct                                                       */
/* ------------------------------------------------------------------------ */

void href_correlate_direct(const double *ref, const double *img, int w, int h, double *C)
{
    int W2 = 2 * w, H2 = 2 * h;
    for (int k = 0; k < W2 * H2; k++)
        C[k] = 0.0;     /* also the no-overlap column kx = w and row ky = h */

    for (int uy = -(h - 1); uy <= h - 1; uy++) {
        for (int ux = -(w - 1); ux <= w - 1; ux++) {
            /* p runs over the positions where both p and p + u lie in the window */
            int y0 = uy < 0 ? -uy : 0, y1 = uy > 0 ? h - uy : h;
            int x0 = ux < 0 ? -ux : 0, x1 = ux > 0 ? w - ux : w;
            double sum = 0.0;
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++)
                    sum += ref[y * w + x] * img[(y + uy) * w + (x + ux)];
            C[wrap(uy, H2) * W2 + wrap(ux, W2)] = sum;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Correlation through a radix-2 FFT                                         */
/* ------------------------------------------------------------------------ */

typedef struct cpx {
    double re, im;
} cpx;

static int is_pow2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

static int next_pow2(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* tw[k] = exp(-2 pi i k / n), k < n / 2: the forward twiddles of a length-n FFT. */
static cpx *twiddles_create(int n)
{
    int count = n / 2 > 0 ? n / 2 : 1;
    cpx *tw = href_calloc((size_t)count, sizeof *tw);
    const double two_pi = 6.283185307179586476925286766559;
    for (int k = 0; k < n / 2; k++) {
        double angle = -two_pi * (double)k / (double)n;
        tw[k].re = cos(angle);
        tw[k].im = sin(angle);
    }
    return tw;
}

/*
 * In-place unnormalised DFT of a[0..n-1], n a power of two:
 * A[k] = sum_j a[j] exp(-+2 pi i j k / n) (minus: forward, plus: inverse).
 * Iterative Cooley-Tukey: bit-reversal permutation, then log2(n) stages of
 * butterflies.
 */
static void fft_1d(cpx *a, int n, const cpx *tw, int inverse)
{
    assert(is_pow2(n));

    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            cpx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    for (int len = 2; len <= n; len *= 2) {
        int half = len / 2, step = n / len;
        for (int i = 0; i < n; i += len) {
            for (int j = 0; j < half; j++) {
                cpx t = tw[j * step];
                if (inverse)
                    t.im = -t.im;
                cpx u = a[i + j], v = a[i + j + half];
                cpx vt = { v.re * t.re - v.im * t.im, v.re * t.im + v.im * t.re };
                a[i + j].re = u.re + vt.re;
                a[i + j].im = u.im + vt.im;
                a[i + j + half].re = u.re - vt.re;
                a[i + j + half].im = u.im - vt.im;
            }
        }
    }
}

/* Unnormalised 2-D DFT of an nx x ny row-major grid: every row, then every column. */
static void fft_2d(cpx *a, int nx, int ny, int inverse)
{
    cpx *tw_x = twiddles_create(nx), *tw_y = twiddles_create(ny);
    cpx *column = href_calloc((size_t)ny, sizeof *column);

    for (int y = 0; y < ny; y++)
        fft_1d(a + (size_t)y * nx, nx, tw_x, inverse);
    for (int x = 0; x < nx; x++) {
        for (int y = 0; y < ny; y++)
            column[y] = a[(size_t)y * nx + x];
        fft_1d(column, ny, tw_y, inverse);
        for (int y = 0; y < ny; y++)
            a[(size_t)y * nx + x] = column[y];
    }

    free(column);
    free(tw_y);
    free(tw_x);
}

void href_correlate_fft(const double *ref, const double *img, int w, int h, double *C)
{
    /* Padding to at least 2w x 2h makes the circular correlation linear for |u| < (w, h). */
    int nx = next_pow2(2 * w), ny = next_pow2(2 * h);
    size_t n = (size_t)nx * (size_t)ny;
    cpx *R = href_calloc(n, sizeof *R);
    cpx *D = href_calloc(n, sizeof *D);

    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            R[(size_t)y * nx + x].re = ref[y * w + x];
            D[(size_t)y * nx + x].re = img[y * w + x];
        }
    }

    fft_2d(R, nx, ny, 0);
    fft_2d(D, nx, ny, 0);
    for (size_t k = 0; k < n; k++) {
        /* conj(R) * D */
        cpx p = { R[k].re * D[k].re + R[k].im * D[k].im,
                  R[k].re * D[k].im - R[k].im * D[k].re };
        D[k] = p;
    }
    fft_2d(D, nx, ny, 1);

    int W2 = 2 * w, H2 = 2 * h;
    for (int k = 0; k < W2 * H2; k++)
        C[k] = 0.0;
    for (int uy = -(h - 1); uy <= h - 1; uy++)
        for (int ux = -(w - 1); ux <= w - 1; ux++)
            C[wrap(uy, H2) * W2 + wrap(ux, W2)] =
                D[(size_t)wrap(uy, ny) * nx + wrap(ux, nx)].re / (double)n;

    free(D);
    free(R);
}

/* ------------------------------------------------------------------------ */
/* Peak                                                                      */
/* ------------------------------------------------------------------------ */

void href_argmax(const double *C, int w, int h, int *ux, int *uy, double *value)
{
    href_argmax_within(C, w, h, w - 1, h - 1, ux, uy, value);
}

void href_argmax_within(const double *C, int w, int h, int rx, int ry, int *ux, int *uy, double *value)
{
    int W2 = 2 * w, H2 = 2 * h;
    int best = -1;

    /* Row-major order with a strict comparison: the first of equal maxima wins. */
    for (int ky = 0; ky < H2; ky++) {
        int sy = ky < h ? ky : ky - H2;
        if (ky == h || abs(sy) > ry)
            continue;
        for (int kx = 0; kx < W2; kx++) {
            int sx = kx < w ? kx : kx - W2;
            if (kx == w || abs(sx) > rx)
                continue;
            int k = ky * W2 + kx;
            if (best < 0 || C[k] > C[best])
                best = k;
        }
    }

    int kx = best % W2, ky = best / W2;
    *ux = kx < w ? kx : kx - W2;
    *uy = ky < h ? ky : ky - H2;
    *value = C[best];
}

void href_neighbourhood(const double *C, int w, int h, int ux, int uy, int F, double *nb)
{
    assert(F >= 1 && F % 2 == 1);
    int W2 = 2 * w, H2 = 2 * h, r = (F - 1) / 2;

    for (int oy = -r; oy <= r; oy++) {
        for (int ox = -r; ox <= r; ox++) {
            int kx = wrap(ux + ox, W2), ky = wrap(uy + oy, H2);
            /* shifts of +-w, +-h do not overlap: C is 0 there by definition */
            double v = (kx == w || ky == h) ? 0.0 : C[ky * W2 + kx];
            nb[(oy + r) * F + (ox + r)] = v;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Sub-pixel fit                                                             */
/* ------------------------------------------------------------------------ */

/*
 * Solves the n x n system M x = rhs (M row-major, n <= 6) by Gaussian
 * elimination with partial pivoting; M and rhs are overwritten.
 * Returns 1 when M is singular.
 */
static int solve_linear(double M[6][6], double rhs[6], int n, double x[6])
{
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int row = col + 1; row < n; row++)
            if (fabs(M[row][col]) > fabs(M[pivot][col]))
                pivot = row;
        if (M[pivot][col] == 0.0)
            return 1;
        if (pivot != col) {
            for (int k = 0; k < n; k++) {
                double t = M[col][k];
                M[col][k] = M[pivot][k];
                M[pivot][k] = t;
            }
            double t = rhs[col];
            rhs[col] = rhs[pivot];
            rhs[pivot] = t;
        }
        for (int row = col + 1; row < n; row++) {
            double factor = M[row][col] / M[col][col];
            for (int k = col; k < n; k++)
                M[row][k] -= factor * M[col][k];
            rhs[row] -= factor * rhs[col];
        }
    }
    for (int row = n - 1; row >= 0; row--) {
        double s = rhs[row];
        for (int k = row + 1; k < n; k++)
            s -= M[row][k] * x[k];
        x[row] = s / M[row][row];
    }
    return 0;
}

int href_fit_lsq(const double *nb, int F, double *sx, double *sy)
{
    assert(F >= 1 && F % 2 == 1);
    int r = (F - 1) / 2;
    double M[6][6] = { { 0 } }, rhs[6] = { 0 }, coef[6];

    *sx = 0.0;
    *sy = 0.0;

    /* Normal equations (A^T A) coef = A^T v, rows of A = (1, x, y, x^2, xy, y^2). */
    for (int y = -r; y <= r; y++) {
        for (int x = -r; x <= r; x++) {
            double phi[6] = { 1.0, x, y, (double)x * x, (double)x * y, (double)y * y };
            double v = nb[(y + r) * F + (x + r)];
            for (int i = 0; i < 6; i++) {
                for (int j = 0; j < 6; j++)
                    M[i][j] += phi[i] * phi[j];
                rhs[i] += phi[i] * v;
            }
        }
    }
    if (solve_linear(M, rhs, 6, coef))
        return 1;

    double b = coef[1], c = coef[2], d = coef[3], e = coef[4], f = coef[5];
    double det = 4.0 * d * f - e * e;
    /* Written as !(ok) so that a NaN anywhere also counts as "no maximum". */
    if (!(det > 0.0) || !(d < 0.0))
        return 1;
    double x0 = (e * c - 2.0 * f * b) / det;
    double y0 = (e * b - 2.0 * d * c) / det;
    if (!(fabs(x0) <= r) || !(fabs(y0) <= r))
        return 1;
    *sx = x0;
    *sy = y0;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The pipeline for one window                                               */
/* ------------------------------------------------------------------------ */

void href_offset(const clx_image *ref, const clx_image *img, const clx_region *r, int F,
                 int use_fft, clx_result *out)
{
    href_offset_within(ref, img, r, F, use_fft, 0, out);
}

/* The vertex of the parabola through (-1, c[0]), (0, c[1]), (1, c[2]). */
static int vertex3(const double c[3], double *s)
{
    double curvature = c[0] - 2.0 * c[1] + c[2];
    *s = 0.0;
    if (!(curvature < 0.0))
        return 1;
    double v = (c[0] - c[2]) / (2.0 * curvature);
    if (!(fabs(v) <= 1.0))
        return 1;
    *s = v;
    return 0;
}

int href_estimate(clx_estimator kind, const double *nb, int F, double *sx, double *sy)
{
    assert(F >= 3 && F % 2 == 1);
    int r = (F - 1) / 2;
    *sx = 0.0;
    *sy = 0.0;
    if (kind == CLX_ESTIMATOR_LSQ || kind == CLX_ESTIMATOR_DEFAULT)
        return href_fit_lsq(nb, F, sx, sy);
    if (kind == CLX_ESTIMATOR_CENTROID) {
        double low = nb[0];
        for (int i = 1; i < F * F; i++)
            if (nb[i] < low)
                low = nb[i];
        double sum = 0.0, mx = 0.0, my = 0.0;
        for (int y = -r; y <= r; y++)
            for (int x = -r; x <= r; x++) {
                double v = nb[(y + r) * F + (x + r)] - low;
                sum += v;
                mx += v * x;
                my += v * y;
            }
        if (!(sum > 0.0))
            return 1;
        *sx = mx / sum;
        *sy = my / sum;
        return 0;
    }
    if (kind != CLX_ESTIMATOR_GAUSS3 && kind != CLX_ESTIMATOR_PARABOLA3)
        return 1;
    /* Along x: the centre row; along y: the centre column. */
    double cx[3] = { nb[r * F + r - 1], nb[r * F + r], nb[r * F + r + 1] };
    double cy[3] = { nb[(r - 1) * F + r], nb[r * F + r], nb[(r + 1) * F + r] };
    if (kind == CLX_ESTIMATOR_GAUSS3) {
        for (int i = 0; i < 3; i++) {
            if (!(cx[i] > 0.0) || !(cy[i] > 0.0))
                return 1;
            cx[i] = log(cx[i]);
            cy[i] = log(cy[i]);
        }
    }
    double vx, vy;
    if (vertex3(cx, &vx) || vertex3(cy, &vy))
        return 1;
    *sx = vx;
    *sy = vy;
    return 0;
}

/* Window r of both images, zero-mean, correlated (2w x 2h, unnormalised)
 * into a new C (the caller frees it). */
static double *window_correlation(const clx_image *ref, const clx_image *img, const clx_region *r, int use_fft)
{
    int w = r->w, h = r->h;
    double *zr = href_calloc((size_t)w * h, sizeof *zr);
    double *zd = href_calloc((size_t)w * h, sizeof *zd);
    double *C = href_calloc((size_t)4 * w * h, sizeof *C);
    href_window_zero_mean(ref, r, zr);
    href_window_zero_mean(img, r, zd);
    if (use_fft)
        href_correlate_fft(zr, zd, w, h, C);
    else
        href_correlate_direct(zr, zd, w, h, C);
    free(zd);
    free(zr);
    return C;
}

void href_surface(const clx_image *ref, const clx_image *img, const clx_region *r, int use_fft, int rx, int ry,
                  double *S)
{
    int w = r->w, h = r->h;
    assert(rx >= 0 && rx < w && ry >= 0 && ry < h);
    double *C = window_correlation(ref, img, r, use_fft);
    for (int uy = -ry; uy <= ry; uy++)
        for (int ux = -rx; ux <= rx; ux++)
            S[(size_t)(uy + ry) * (2 * rx + 1) + (ux + rx)] = C[(size_t)wrap(uy, 2 * h) * 2 * w + wrap(ux, 2 * w)];
    free(C);
}

void href_offset_within(const clx_image *ref, const clx_image *img, const clx_region *r, int F,
                        int use_fft, int max_shift, clx_result *out)
{
    href_offset_estimator(ref, img, r, F, use_fft, max_shift, CLX_ESTIMATOR_LSQ, out);
}

void href_offset_estimator(const clx_image *ref, const clx_image *img, const clx_region *r, int F,
                           int use_fft, int max_shift, clx_estimator kind, clx_result *out)
{
    int w = r->w, h = r->h;
    int rx = max_shift > 0 && max_shift < w - 1 ? max_shift : w - 1;
    int ry = max_shift > 0 && max_shift < h - 1 ? max_shift : h - 1;
    double *C = window_correlation(ref, img, r, use_fft);
    double *nb = href_calloc((size_t)F * F, sizeof *nb);

    int ix, iy;
    double peak, sx, sy;
    href_argmax_within(C, w, h, rx, ry, &ix, &iy, &peak);
    href_neighbourhood(C, w, h, ix, iy, F, nb);
    int failed = href_estimate(kind, nb, F, &sx, &sy);

    out->ix = ix;
    out->iy = iy;
    out->peak = peak;
    out->dx = ix + sx;
    out->dy = iy + sy;
    out->flags = 0;
    if (failed)
        out->flags |= CLX_FLAG_FIT_FAILED;
    if (abs(ix) == rx || abs(iy) == ry)
        out->flags |= CLX_FLAG_EDGE;
    if (!(peak > 0.0))
        out->flags |= CLX_FLAG_NO_PEAK;

    free(nb);
    free(C);
}
