/*
 * test_host_ref.c - checks the host reference itself (tests/host_ref.c)
 * before the rest of the suite trusts it as ground truth: direct against FFT
 * correlation, hand-computed correlations, argmax ties, neighbourhood
 * wrap-around, the least-squares fit on exact quadratics, and whole-pipeline
 * properties (a known integer shift and a known sub-pixel shift come back).
 *
 * Needs no OpenCL device and nothing from src/. Exit 0: pass, 1: fail; every
 * failed check is printed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "host_ref.h"


static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (p == NULL) {
        fprintf(stderr, "test_host_ref: out of memory\n");
        exit(1);
    }
    return p;
}

/* splitmix64: a fixed-seed generator, so every run sees the same data. */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_uniform(void)
{
    return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

/* Index of shift (ux, uy) in the 2w x 2h logical layout, spelled out by case. */
static int layout_index(int w, int h, int ux, int uy)
{
    int kx = ux >= 0 ? ux : ux + 2 * w;
    int ky = uy >= 0 ? uy : uy + 2 * h;
    return ky * 2 * w + kx;
}

static clx_image image_new(int width, int height, clx_pixel_type type)
{
    size_t size = type == CLX_PIXEL_U8 ? 1 : type == CLX_PIXEL_U16 ? 2 : 4;
    clx_image img = { width, height, type, xcalloc((size_t)width * height, size) };
    return img;
}

static void image_set(clx_image *img, int x, int y, double v)
{
    size_t i = (size_t)y * img->width + x;
    switch (img->type) {
    case CLX_PIXEL_U8: ((uint8_t *)img->pixels)[i] = (uint8_t)lround(v); break;
    case CLX_PIXEL_U16: ((uint16_t *)img->pixels)[i] = (uint16_t)lround(v); break;
    case CLX_PIXEL_F32: ((float *)img->pixels)[i] = (float)v; break;
    }
}

/* ------------------------------------------------------------------------ */

static void test_window_mean(void)
{
    /* 4 x 3 image, pixel value 10 y + x; window (1, 1, 3, 2): values 11 12 13 / 21 22 23. */
    const clx_pixel_type types[] = { CLX_PIXEL_U8, CLX_PIXEL_U16, CLX_PIXEL_F32 };
    for (int t = 0; t < 3; t++) {
        clx_image img = image_new(4, 3, types[t]);
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++)
                image_set(&img, x, y, 10 * y + x);
        clx_region r = { 1, 1, 3, 2 };
        double mean = href_window_mean(&img, &r);
        CHECK(mean == 17.0, "type %d: window mean %g, expected 17", (int)types[t], mean);
        double z[6];
        const double expect[6] = { -6, -5, -4, 4, 5, 6 };
        href_window_zero_mean(&img, &r, z);
        for (int i = 0; i < 6; i++)
            CHECK(z[i] == expect[i], "type %d: zero-mean[%d] = %g, expected %g",
                  (int)types[t], i, z[i], expect[i]);
        free(img.pixels);
    }

    /* Values beyond 8 bits and fractional floats are kept as they are. */
    clx_image u16 = image_new(2, 2, CLX_PIXEL_U16);
    image_set(&u16, 0, 0, 65535);
    image_set(&u16, 1, 1, 1);
    clx_region all = { 0, 0, 2, 2 };
    CHECK(href_window_mean(&u16, &all) == 16384.0, "U16 mean %g", href_window_mean(&u16, &all));
    free(u16.pixels);
    clx_image f32 = image_new(2, 1, CLX_PIXEL_F32);
    image_set(&f32, 0, 0, -0.5);
    image_set(&f32, 1, 0, 0.25);
    clx_region row = { 0, 0, 2, 1 };
    CHECK(href_window_mean(&f32, &row) == -0.125, "F32 mean %g", href_window_mean(&f32, &row));
    free(f32.pixels);
}

/* ------------------------------------------------------------------------ */

typedef void (*correlate_fn)(const double *, const double *, int, int, double *);

static void check_known_2x2(const char *name, correlate_fn correlate)
{
    /*
     * ref = 1 2    img = 5 6      C(ux, uy) = sum_p ref(p) img(p + u), by hand:
     *       3 4          7 8      (0,0): 1*5+2*6+3*7+4*8 = 70
     *  (1,0): 1*6+3*8 = 30     (-1,0): 2*5+4*7 = 38
     *  (0,1): 1*7+2*8 = 23     (0,-1): 3*5+4*6 = 39
     *  (1,1): 1*8 = 8          (-1,-1): 4*5 = 20
     *  (1,-1): 3*6 = 18        (-1,1): 2*7 = 14
     * Layout 4 x 4: kx = 0, 1, (2 = no overlap), 3 = ux -1.
     */
    const double ref[4] = { 1, 2, 3, 4 }, img[4] = { 5, 6, 7, 8 };
    const double expect[16] = {
        70, 30, 0, 38,      /* uy = 0 */
        23, 8, 0, 14,       /* uy = 1 */
        0, 0, 0, 0,         /* uy = +-2 */
        39, 18, 0, 20,      /* uy = -1 */
    };
    double C[16];
    correlate(ref, img, 2, 2, C);
    for (int k = 0; k < 16; k++)
        CHECK(fabs(C[k] - expect[k]) <= 1e-12, "%s 2x2: C[%d] = %.17g, expected %g",
              name, k, C[k], expect[k]);
}

static void check_known_3x2(const char *name, correlate_fn correlate)
{
    /*
     * ref = 1 0 2    img = 0 1 0
     *       0 0 0          3 0 0
     * C(u) = sum_p ref(p) img(p + u); ref is non-zero at (0,0) = 1 and (2,0) = 2,
     * img at (1,0) = 1 and (0,1) = 3. Each pair (p, q) adds ref(p) img(q) at u = q - p:
     * (0,0)->(1,0): u (1,0) += 1;   (0,0)->(0,1): u (0,1) += 3;
     * (2,0)->(1,0): u (-1,0) += 2;  (2,0)->(0,1): u (-2,1) += 6.
     */
    const double ref[6] = { 1, 0, 2, 0, 0, 0 }, img[6] = { 0, 1, 0, 3, 0, 0 };
    double C[24], expect[24] = { 0 };
    expect[layout_index(3, 2, 1, 0)] = 1;
    expect[layout_index(3, 2, 0, 1)] = 3;
    expect[layout_index(3, 2, -1, 0)] = 2;
    expect[layout_index(3, 2, -2, 1)] = 6;
    correlate(ref, img, 3, 2, C);
    for (int k = 0; k < 24; k++)
        CHECK(fabs(C[k] - expect[k]) <= 1e-12, "%s 3x2: C[%d] = %.17g, expected %g",
              name, k, C[k], expect[k]);
}

/* An impulse in each window: C is one impulse at the difference of the positions. */
static void check_impulses(const char *name, correlate_fn correlate, int w, int h)
{
    double *ref = xcalloc((size_t)w * h, sizeof *ref);
    double *img = xcalloc((size_t)w * h, sizeof *img);
    double *C = xcalloc((size_t)4 * w * h, sizeof *C);
    const int pos[4][4] = { { 0, 0, w - 1, h - 1 }, { w - 1, h - 1, 0, 0 },
                            { w - 1, 0, 0, h - 1 }, { w / 2, h / 3, w / 3, h / 2 } };
    for (int t = 0; t < 4; t++) {
        memset(ref, 0, sizeof *ref * w * h);
        memset(img, 0, sizeof *img * w * h);
        ref[pos[t][1] * w + pos[t][0]] = 1;
        img[pos[t][3] * w + pos[t][2]] = 1;
        correlate(ref, img, w, h, C);
        int peak = layout_index(w, h, pos[t][2] - pos[t][0], pos[t][3] - pos[t][1]);
        for (int k = 0; k < 4 * w * h; k++) {
            double expect = k == peak ? 1.0 : 0.0;
            CHECK(fabs(C[k] - expect) <= 1e-12, "%s %dx%d impulse case %d: C[%d] = %g, expected %g",
                  name, w, h, t, k, C[k], expect);
        }
    }
    free(C);
    free(img);
    free(ref);
}

static void test_correlate_known(void)
{
    check_known_2x2("direct", href_correlate_direct);
    check_known_2x2("fft", href_correlate_fft);
    check_known_3x2("direct", href_correlate_direct);
    check_known_3x2("fft", href_correlate_fft);
    const int sizes[][2] = { { 2, 2 }, { 3, 5 }, { 8, 8 }, { 9, 4 } };
    for (int i = 0; i < 4; i++) {
        check_impulses("direct", href_correlate_direct, sizes[i][0], sizes[i][1]);
        check_impulses("fft", href_correlate_fft, sizes[i][0], sizes[i][1]);
    }
}

static void test_direct_vs_fft(void)
{
    const int sizes[][2] = { { 4, 4 }, { 5, 5 }, { 7, 4 }, { 8, 8 }, { 13, 11 }, { 40, 40 },
                             { 2, 2 }, { 3, 9 }, { 24, 25 }, { 33, 17 } };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        double *ref = xcalloc((size_t)w * h, sizeof *ref);
        double *img = xcalloc((size_t)w * h, sizeof *img);
        double *Cd = xcalloc((size_t)4 * w * h, sizeof *Cd);
        double *Cf = xcalloc((size_t)4 * w * h, sizeof *Cf);
        for (int i = 0; i < w * h; i++) {
            ref[i] = 200.0 * rng_uniform() - 100.0;
            img[i] = 200.0 * rng_uniform() - 100.0;
        }
        href_correlate_direct(ref, img, w, h, Cd);
        href_correlate_fft(ref, img, w, h, Cf);

        double peak = 0.0, diff = 0.0;
        for (int k = 0; k < 4 * w * h; k++) {
            peak = fmax(peak, fabs(Cd[k]));
            diff = fmax(diff, fabs(Cd[k] - Cf[k]));
        }
        CHECK(peak > 0.0 && diff <= 1e-9 * peak, "%dx%d: direct vs fft max difference %g, peak %g",
              w, h, diff, peak);
        /* the no-overlap column and row are exactly 0 in both */
        for (int ky = 0; ky < 2 * h; ky++)
            for (int kx = 0; kx < 2 * w; kx++)
                if (kx == w || ky == h) {
                    int k = ky * 2 * w + kx;
                    CHECK(Cd[k] == 0.0 && Cf[k] == 0.0, "%dx%d: C[%d,%d] not 0 (%g, %g)",
                          w, h, kx, ky, Cd[k], Cf[k]);
                }
        free(Cf);
        free(Cd);
        free(img);
        free(ref);
    }
}

static void test_fft_speed(void)
{
    int w = 100, h = 100;
    double *ref = xcalloc((size_t)w * h, sizeof *ref);
    double *img = xcalloc((size_t)w * h, sizeof *img);
    double *C = xcalloc((size_t)4 * w * h, sizeof *C);
    for (int i = 0; i < w * h; i++) {
        ref[i] = rng_uniform();
        img[i] = rng_uniform();
    }
    clock_t t0 = clock();
    href_correlate_fft(ref, img, w, h, C);
    double ms = 1e3 * (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* Informational: the suite runs this for every large window. */
    printf("href_correlate_fft 100x100: %.1f ms\n", ms);
    free(C);
    free(img);
    free(ref);
}

/* ------------------------------------------------------------------------ */

static void check_argmax(const double *C, int w, int h, int ex, int ey, double ev, const char *what)
{
    int ux, uy;
    double v;
    href_argmax(C, w, h, &ux, &uy, &v);
    CHECK(ux == ex && uy == ey && v == ev, "argmax %s (%dx%d): got (%d, %d) = %g, expected (%d, %d) = %g",
          what, w, h, ux, uy, v, ex, ey, ev);
}

static void test_argmax(void)
{
    int w = 5, h = 4, n = 4 * w * h;
    double *C = xcalloc((size_t)n, sizeof *C);

    /* a single maximum at each corner of the searched range */
    const int corners[4][2] = { { w - 1, h - 1 }, { -(w - 1), h - 1 }, { w - 1, -(h - 1) },
                                { -(w - 1), -(h - 1) } };
    for (int i = 0; i < 4; i++) {
        memset(C, 0, sizeof *C * n);
        C[layout_index(w, h, corners[i][0], corners[i][1])] = 3.5;
        check_argmax(C, w, h, corners[i][0], corners[i][1], 3.5, "corner");
    }

    /* ties: ux = 0 (kx = 0) beats ux = -1 (kx = 2w - 1) */
    memset(C, 0, sizeof *C * n);
    C[layout_index(w, h, -1, 0)] = 2;
    C[layout_index(w, h, 0, 0)] = 2;
    check_argmax(C, w, h, 0, 0, 2, "tie (0,0) vs (-1,0)");

    /* ties: (-1, 0) (row 0) beats (0, -1) (last row) */
    memset(C, 0, sizeof *C * n);
    C[layout_index(w, h, 0, -1)] = 2;
    C[layout_index(w, h, -1, 0)] = 2;
    check_argmax(C, w, h, -1, 0, 2, "tie (-1,0) vs (0,-1)");

    /* ties in one row: (2, 1) beats (-3, 1); both beat (1, 2) and (-1, -1) */
    memset(C, 0, sizeof *C * n);
    C[layout_index(w, h, -1, -1)] = 7;
    C[layout_index(w, h, -3, 1)] = 7;
    C[layout_index(w, h, 1, 2)] = 7;
    C[layout_index(w, h, 2, 1)] = 7;
    check_argmax(C, w, h, 2, 1, 7, "tie in a row");

    /* all equal: the first index, (0, 0) */
    for (int k = 0; k < n; k++)
        C[k] = -1.25;
    check_argmax(C, w, h, 0, 0, -1.25, "all equal");

    /* the no-overlap column and row are not searched, even when they hold the maximum */
    for (int k = 0; k < n; k++)
        C[k] = -10.0 - k;
    for (int ky = 0; ky < 2 * h; ky++)
        C[ky * 2 * w + w] = 100;
    for (int kx = 0; kx < 2 * w; kx++)
        C[h * 2 * w + kx] = 100;
    check_argmax(C, w, h, 0, 0, -10.0, "all negative, +-w column and +-h row excluded");

    free(C);
}

/* ------------------------------------------------------------------------ */

/*
 * Checks href_neighbourhood at (ux, uy) against hand-listed layout indices:
 * kxs[i] is the column expected for column offset i - r, kys[j] the row for
 * row offset j - r, -1 where the no-overlap column/row (value 0) is expected.
 */
static void check_neighbourhood(int w, int h, int ux, int uy, int F, const int *kxs, const int *kys)
{
    int n = 4 * w * h;
    double *C = xcalloc((size_t)n, sizeof *C);
    double *nb = xcalloc((size_t)F * F, sizeof *nb);
    /* distinct values everywhere, garbage in the no-overlap column and row, which must read as 0 */
    for (int k = 0; k < n; k++)
        C[k] = 1000.0 + k;
    href_neighbourhood(C, w, h, ux, uy, F, nb);
    for (int j = 0; j < F; j++) {
        for (int i = 0; i < F; i++) {
            double expect = (kxs[i] < 0 || kys[j] < 0) ? 0.0 : C[kys[j] * 2 * w + kxs[i]];
            double got = nb[j * F + i];
            CHECK(got == expect, "neighbourhood %dx%d at (%d, %d), F %d, offset (%d, %d): %g, expected %g",
                  w, h, ux, uy, F, i - F / 2, j - F / 2, got, expect);
        }
    }
    free(nb);
    free(C);
}

static void test_neighbourhood(void)
{
    /* w = 4, h = 3: layout 8 x 6, no-overlap column kx = 4, row ky = 3. */
    {   /* centre: (0, 0) wraps to the negative side on the left and top */
        const int kx[5] = { 6, 7, 0, 1, 2 }, ky[5] = { 4, 5, 0, 1, 2 };
        check_neighbourhood(4, 3, 0, 0, 5, kx, ky);
    }
    {   /* right border ux = 3: +1 is the no-overlap column, +2 wraps to ux = -3 (kx 5) */
        const int kx[5] = { 1, 2, 3, -1, 5 }, ky[5] = { 4, 5, 0, 1, 2 };
        check_neighbourhood(4, 3, 3, 0, 5, kx, ky);
    }
    {   /* left border ux = -3 (kx 5): -1 is the no-overlap column, -2 wraps to ux = 3 */
        const int kx[5] = { 3, -1, 5, 6, 7 }, ky[5] = { 4, 5, 0, 1, 2 };
        check_neighbourhood(4, 3, -3, 0, 5, kx, ky);
    }
    {   /* bottom border uy = 2: +1 is the no-overlap row, +2 wraps to uy = -2 (ky 4) */
        const int kx[5] = { 6, 7, 0, 1, 2 }, ky[5] = { 0, 1, 2, -1, 4 };
        check_neighbourhood(4, 3, 0, 2, 5, kx, ky);
    }
    {   /* top border uy = -2 (ky 4): -1 is the no-overlap row, -2 wraps to uy = 2 */
        const int kx[5] = { 6, 7, 0, 1, 2 }, ky[5] = { 2, -1, 4, 5, 0 };
        check_neighbourhood(4, 3, 0, -2, 5, kx, ky);
    }
    {   /* corner (3, -2) */
        const int kx[5] = { 1, 2, 3, -1, 5 }, ky[5] = { 2, -1, 4, 5, 0 };
        check_neighbourhood(4, 3, 3, -2, 5, kx, ky);
    }
    {   /* F = 3 at (-1, 1) */
        const int kx[3] = { 6, 7, 0 }, ky[3] = { 0, 1, 2 };
        check_neighbourhood(4, 3, -1, 1, 3, kx, ky);
    }
    {   /* 2 x 2 window (layout 4 x 4), F = 7 wraps more than once around it */
        const int kx[7] = { -1, 3, 0, 1, -1, 3, 0 }, ky[7] = { 0, 1, -1, 3, 0, 1, -1 };
        check_neighbourhood(2, 2, 1, -1, 7, kx, ky);
    }
}

/* ------------------------------------------------------------------------ */

/*
 * Fills nb with the quadratic peak
 *   v(x, y) = A - (a (x - x0)^2 + 2 b (x - x0)(y - y0) + c (y - y0)^2)
 * (a maximum at (x0, y0) when a > 0 and ac - b^2 > 0).
 */
static void fill_quadratic(double *nb, int F, double A, double a, double b, double c,
                           double x0, double y0)
{
    int r = F / 2;
    for (int y = -r; y <= r; y++) {
        for (int x = -r; x <= r; x++) {
            double px = x - x0, py = y - y0;
            nb[(y + r) * F + (x + r)] = A - (a * px * px + 2 * b * px * py + c * py * py);
        }
    }
}

static void check_fit(const double *nb, int F, int expect_fail, double x0, double y0, double tol,
                      const char *what)
{
    double sx = 99, sy = 99;
    int failed = href_fit_lsq(nb, F, &sx, &sy);
    if (expect_fail) {
        CHECK(failed == 1 && sx == 0.0 && sy == 0.0, "fit %s (F %d): returned %d, (%g, %g); expected failure",
              what, F, failed, sx, sy);
    } else {
        CHECK(failed == 0 && fabs(sx - x0) <= tol && fabs(sy - y0) <= tol,
              "fit %s (F %d): returned %d, (%.15g, %.15g); expected (%g, %g)", what, F, failed, sx, sy, x0, y0);
    }
}

static void test_fit(void)
{
    double nb[81];
    const struct {
        double A, a, b, c, x0, y0;
        const char *what;
    } peaks[] = {
        { 100, 3, 0, 2, 0.3, -0.2, "axis-aligned (0.3, -0.2)" },
        { 100, 3, 0, 2, 0.0, 0.0, "axis-aligned at 0" },
        { 40, 4, 1.5, 2, -0.7, 0.45, "tilted (-0.7, 0.45)" },
        { 1, 1, -0.8, 1, 0.12, 0.9, "tilted, negative xy (0.12, 0.9)" },
        { -50, 0.5, 0.2, 0.3, -0.33, -0.61, "negative values (-0.33, -0.61)" },
        { 10, 2, 1, 1.5, 0.95, -0.99, "near the edge of F 3 (0.95, -0.99)" },
    };
    const int sizes[] = { 3, 5, 7, 9 };
    for (size_t p = 0; p < sizeof peaks / sizeof peaks[0]; p++) {
        for (int s = 0; s < 4; s++) {
            int F = sizes[s];
            fill_quadratic(nb, F, peaks[p].A, peaks[p].a, peaks[p].b, peaks[p].c, peaks[p].x0, peaks[p].y0);
            check_fit(nb, F, 0, peaks[p].x0, peaks[p].y0, 1e-12, peaks[p].what);
        }
    }

    /* a maximum further out is found when it lies within (F-1)/2, and refused beyond */
    fill_quadratic(nb, 5, 10, 1, 0.3, 1, 1.9, -1.6);
    check_fit(nb, 5, 0, 1.9, -1.6, 1e-12, "inside F 5 (1.9, -1.6)");
    fill_quadratic(nb, 3, 10, 1, 0.3, 1, 1.9, -0.6);
    check_fit(nb, 3, 1, 0, 0, 0, "outside F 3 in x (1.9, -0.6)");
    fill_quadratic(nb, 5, 10, 1, 0.0, 1, 0.5, -2.4);
    check_fit(nb, 5, 1, 0, 0, 0, "outside F 5 in y (0.5, -2.4)");
    fill_quadratic(nb, 5, 10, 1, 0.0, 1, -2.01, 0);
    check_fit(nb, 5, 1, 0, 0, 0, "outside F 5 in x (-2.01, 0)");

    /*
     * No maximum: saddles, minima, flat. (A ridge, det = 0 exactly, is left
     * out: rounding makes det and the numerators +-tiny, and whether the 0/0
     * lands inside the neighbourhood depends on the compiler.)
     */
    fill_quadratic(nb, 5, 10, 1, 0, -1, 0.2, 0.1);
    check_fit(nb, 5, 1, 0, 0, 0, "saddle");
    fill_quadratic(nb, 5, 10, 1, 2, 1, 0.2, 0.1);
    check_fit(nb, 5, 1, 0, 0, 0, "saddle with xy term");
    fill_quadratic(nb, 5, 10, -1, 0, 2, 0.2, 0.1);
    check_fit(nb, 5, 1, 0, 0, 0, "saddle, d > 0");
    fill_quadratic(nb, 5, 10, -1, 0.3, -2, 0.2, 0.1);
    check_fit(nb, 5, 1, 0, 0, 0, "minimum");
    fill_quadratic(nb, 3, 10, -1, -0.3, -2, -0.4, 0.3);
    check_fit(nb, 3, 1, 0, 0, 0, "minimum, F 3");
    memset(nb, 0, sizeof nb);
    check_fit(nb, 5, 1, 0, 0, 0, "flat");

    /*
     * It is a least-squares fit over all F x F values: adding p3(x) g(y), with
     * p3 the degree-3 polynomial orthogonal to 1, x, x^2 on the grid, leaves
     * the fit unchanged (every basis function has degree <= 2 in x), while an
     * interpolating fit through fewer points would move.
     */
    for (int F = 5; F <= 9; F += 2) {
        int r = F / 2;
        double s2 = 0, s4 = 0;
        for (int x = -r; x <= r; x++) {
            s2 += (double)x * x;
            s4 += (double)x * x * x * x;
        }
        fill_quadratic(nb, F, 20, 2, 0.5, 1, 0.3, -0.2);
        for (int y = -r; y <= r; y++) {
            for (int x = -r; x <= r; x++) {
                double p3x = (double)x * x * x - x * s4 / s2, p3y = (double)y * y * y - y * s4 / s2;
                nb[(y + r) * F + (x + r)] += 0.2 * p3x * (1 + y + y * y) + 0.1 * p3y * (2 - x);
            }
        }
        check_fit(nb, F, 0, 0.3, -0.2, 1e-12, "quadratic plus orthogonal cubic terms");
    }
}

/* ------------------------------------------------------------------------ */

/*
 * A random texture: uniform noise blurred once by a 3 x 3 box. Its fine grain
 * keeps the correlation peak narrow; a coarse texture would let the
 * zero-padded correlation's shrinking overlap pull the sub-pixel part toward
 * zero by about (correlation length)^2 / w (doc/conventions.md, "Why the accurate
 * mode is the default").
 */
static double *texture_new(int width, int height)
{
    double *a = xcalloc((size_t)width * height, sizeof *a);
    double *b = xcalloc((size_t)width * height, sizeof *b);
    for (int i = 0; i < width * height; i++)
        a[i] = rng_uniform();
    for (int pass = 0; pass < 1; pass++) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                double s = 0;
                int n = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        if (x + dx >= 0 && x + dx < width && y + dy >= 0 && y + dy < height) {
                            s += a[(y + dy) * width + x + dx];
                            n++;
                        }
                b[y * width + x] = s / n;
            }
        }
        memcpy(a, b, sizeof *a * width * height);
    }
    free(b);
    return a;
}

static void test_integer_shift(void)
{
    int W = 192, H = 144;
    double *tex = texture_new(W, H);
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < W * H; i++) {
        lo = fmin(lo, tex[i]);
        hi = fmax(hi, tex[i]);
    }
    /* img(x, y) = ref(x - 3, y - 1): the reference moved 3 px right and 1 px down */
    clx_image ref = image_new(W, H, CLX_PIXEL_U16), img = image_new(W, H, CLX_PIXEL_U16);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            double v = 1000 + 60000 * (tex[y * W + x] - lo) / (hi - lo);
            image_set(&ref, x, y, v);
            double s = (x >= 3 && y >= 1) ? 1000 + 60000 * (tex[(y - 1) * W + x - 3] - lo) / (hi - lo)
                                          : 30000;
            image_set(&img, x, y, s);
        }
    }

    /*
     * The integer peak must be exact. The sub-pixel part is not 0: the seed
     * method's shrinking overlap pulls it toward zero shift and the fit of a
     * narrow peak picks up the texture's noise, both falling as the window
     * grows, hence a tolerance per size.
     */
    const struct {
        int w, h;
        double tol;
    } sizes[] = { { 20, 27, 0.5 }, { 32, 32, 0.2 }, { 48, 40, 0.1 }, { 64, 48, 0.1 } };
    double worst[4] = { 0 };
    for (int s = 0; s < 4; s++) {
        int w = sizes[s].w, h = sizes[s].h;
        double tol = sizes[s].tol;
        for (int y0 = 12; y0 + h <= H - 12; y0 += h + 7) {
            for (int x0 = 12; x0 + w <= W - 12; x0 += w + 5) {
                clx_region r = { x0, y0, w, h };
                clx_result direct, fft;
                href_offset(&ref, &img, &r, 5, 0, &direct);
                href_offset(&ref, &img, &r, 5, 1, &fft);
                CHECK(direct.ix == 3 && direct.iy == 1 && direct.flags == 0 &&
                      fabs(direct.dx - 3) < tol && fabs(direct.dy - 1) < tol,
                      "shift (3, 1), window (%d %d %d %d): ix %d iy %d dx %.4f dy %.4f flags %u",
                      x0, y0, w, h, direct.ix, direct.iy, direct.dx, direct.dy, direct.flags);
                worst[s] = fmax(worst[s], fmax(fabs(direct.dx - 3), fabs(direct.dy - 1)));
                CHECK(fft.ix == direct.ix && fft.iy == direct.iy && fft.flags == direct.flags &&
                      fabs(fft.dx - direct.dx) < 1e-9 && fabs(fft.dy - direct.dy) < 1e-9 &&
                      fabs(fft.peak - direct.peak) <= 1e-9 * direct.peak,
                      "window (%d %d %d %d): fft (%.12f, %.12f, %.12g) differs from direct (%.12f, %.12f, %.12g)",
                      x0, y0, w, h, fft.dx, fft.dy, fft.peak, direct.dx, direct.dy, direct.peak);
                CHECK(direct.peak > 0, "window (%d %d %d %d): peak %g", x0, y0, w, h, direct.peak);
            }
        }
    }

    printf("integer shift (3, 1): largest sub-pixel part %.3f (20x27), %.3f (32x32), %.3f (48x40), %.3f (64x48)\n",
           worst[0], worst[1], worst[2], worst[3]);

    /* the reference against itself: exactly zero */
    clx_region r = { 40, 30, 32, 32 };
    clx_result self;
    href_offset(&ref, &ref, &r, 5, 0, &self);
    CHECK(self.ix == 0 && self.iy == 0 && fabs(self.dx) < 1e-9 && fabs(self.dy) < 1e-9 && self.flags == 0,
          "self-correlation: ix %d iy %d dx %g dy %g flags %u", self.ix, self.iy, self.dx, self.dy, self.flags);

    free(img.pixels);
    free(ref.pixels);
    free(tex);
}

/*
 * A smooth analytic pattern: Gaussian spots of random position, height and
 * width (sigma 1.5 to 2.5 px), evaluated exactly at any point, so that an image
 * shifted by a fraction of a pixel is sampled rather than interpolated.
 */
#define SPOT_COUNT 2000

typedef struct spot {
    double x, y, a, s;
} spot;

/* Adds every spot, moved by (sx, sy), to the F32 image: img(x, y) += g(x - sx, y - sy). */
static void pattern_draw(clx_image *img, const spot *spots, int count, double sx, double sy)
{
    float *px = img->pixels;
    for (int i = 0; i < count; i++) {
        double cx = spots[i].x + sx, cy = spots[i].y + sy, s = spots[i].s;
        int reach = (int)ceil(7 * s);   /* exp(-49/2): below float resolution */
        for (int y = (int)floor(cy) - reach; y <= (int)ceil(cy) + reach; y++) {
            for (int x = (int)floor(cx) - reach; x <= (int)ceil(cx) + reach; x++) {
                if (x < 0 || y < 0 || x >= img->width || y >= img->height)
                    continue;
                double dx = x - cx, dy = y - cy;
                px[(size_t)y * img->width + x] += (float)(spots[i].a * exp(-(dx * dx + dy * dy) / (2 * s * s)));
            }
        }
    }
}

static void test_subpixel_shift(void)
{
    int W = 224, H = 224;
    spot *spots = xcalloc(SPOT_COUNT, sizeof *spots);
    for (int i = 0; i < SPOT_COUNT; i++) {
        spots[i].x = -12 + (W + 24) * rng_uniform();
        spots[i].y = -12 + (H + 24) * rng_uniform();
        spots[i].a = 0.5 + rng_uniform();
        spots[i].s = 1.5 + rng_uniform();
    }
    /* img(x, y) = g(x - 0.25, y + 0.4): features move by (+0.25, -0.4) */
    clx_image ref = image_new(W, H, CLX_PIXEL_F32), img = image_new(W, H, CLX_PIXEL_F32);
    pattern_draw(&ref, spots, SPOT_COUNT, 0, 0);
    pattern_draw(&img, spots, SPOT_COUNT, 0.25, -0.4);

    /*
     * 96 x 96 windows: the seed method's biases toward zero shift (shrinking
     * overlap, ~sigma_c^2 / w, and the quadratic fit's peak locking) stay
     * below 0.1 px here; they reach it with 48 px windows.
     */
    double worst = 0;
    int windows = 0;
    for (int y0 = 16; y0 + 96 <= H - 16; y0 += 40) {
        for (int x0 = 16; x0 + 96 <= W - 16; x0 += 40) {
            clx_region r = { x0, y0, 96, 96 };
            clx_result res;
            href_offset(&ref, &img, &r, 5, 1, &res);
            double ex = fabs(res.dx - 0.25), ey = fabs(res.dy + 0.4);
            worst = fmax(worst, fmax(ex, ey));
            CHECK(res.ix == 0 && res.iy == 0 && res.flags == 0 && ex < 0.1 && ey < 0.1,
                  "sub-pixel shift (0.25, -0.4), window (%d %d 96 96): dx %.4f dy %.4f flags %u",
                  x0, y0, res.dx, res.dy, res.flags);
            windows++;
        }
    }
    printf("sub-pixel shift (0.25, -0.4): %d windows of 96 x 96, largest error %.4f px\n", windows, worst);

    /* the direct path agrees (one window: it is slow at this size) */
    clx_region r = { 56, 56, 96, 96 };
    clx_result direct, fft;
    href_offset(&ref, &img, &r, 5, 0, &direct);
    href_offset(&ref, &img, &r, 5, 1, &fft);
    CHECK(fabs(direct.dx - fft.dx) < 1e-9 && fabs(direct.dy - fft.dy) < 1e-9,
          "sub-pixel shift: direct (%.12f, %.12f) vs fft (%.12f, %.12f)", direct.dx, direct.dy, fft.dx, fft.dy);

    free(img.pixels);
    free(ref.pixels);
    free(spots);
}

static void test_flags(void)
{
    /* flat windows: no peak (C = 0 everywhere), no fit */
    clx_image flat = image_new(16, 16, CLX_PIXEL_U8);
    memset(flat.pixels, 77, 16 * 16);
    clx_region r = { 2, 3, 8, 6 };
    clx_result res;
    href_offset(&flat, &flat, &r, 5, 0, &res);
    CHECK(res.ix == 0 && res.iy == 0 && res.dx == 0 && res.dy == 0 && res.peak == 0 &&
          res.flags == (CLX_FLAG_NO_PEAK | CLX_FLAG_FIT_FAILED),
          "flat: ix %d iy %d dx %g dy %g peak %g flags %u", res.ix, res.iy, res.dx, res.dy, res.peak,
          res.flags);

    /* a bright pixel moved by (w - 1, 0) and by (0, -(h - 1)): the peak is on the edge */
    clx_image a = image_new(16, 16, CLX_PIXEL_U8), b = image_new(16, 16, CLX_PIXEL_U8);
    clx_region win = { 4, 4, 6, 5 };
    image_set(&a, 4, 6, 200);
    image_set(&b, 9, 6, 200);
    for (int use_fft = 0; use_fft <= 1; use_fft++) {
        href_offset(&a, &b, &win, 5, use_fft, &res);
        CHECK(res.ix == 5 && res.iy == 0 && (res.flags & CLX_FLAG_EDGE) && !(res.flags & CLX_FLAG_NO_PEAK),
              "edge x: ix %d iy %d flags %u", res.ix, res.iy, res.flags);
    }
    memset(a.pixels, 0, 16 * 16);
    memset(b.pixels, 0, 16 * 16);
    image_set(&a, 6, 8, 200);
    image_set(&b, 6, 4, 200);
    for (int use_fft = 0; use_fft <= 1; use_fft++) {
        href_offset(&a, &b, &win, 5, use_fft, &res);
        CHECK(res.ix == 0 && res.iy == -4 && (res.flags & CLX_FLAG_EDGE),
              "edge y: ix %d iy %d flags %u", res.ix, res.iy, res.flags);
    }

    /*
     * One flat window: C = 0 everywhere. (With zero-mean windows C sums to 0
     * over all shifts, so its maximum is positive unless C is 0 throughout.)
     */
    for (int use_fft = 0; use_fft <= 1; use_fft++) {
        href_offset(&flat, &a, &win, 5, use_fft, &res);
        CHECK(res.peak == 0 && res.ix == 0 && res.iy == 0 &&
              res.flags == (CLX_FLAG_NO_PEAK | CLX_FLAG_FIT_FAILED),
              "flat reference: ix %d iy %d peak %g flags %u", res.ix, res.iy, res.peak, res.flags);
    }

    free(b.pixels);
    free(a.pixels);
    free(flat.pixels);
}

int main(void)
{
    test_window_mean();
    test_correlate_known();
    test_direct_vs_fft();
    test_fft_speed();
    test_argmax();
    test_neighbourhood();
    test_fit();
    test_integer_shift();
    test_subpixel_shift();
    test_flags();
    if (test_failures) {
        fprintf(stderr, "test_host_ref: %d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_host_ref: all checks passed\n");
    return 0;
}
