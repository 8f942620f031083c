/*
 * test_subpixel.c - the sub-pixel estimators (src/ops/subpixel.c) on analytic
 * peaks with known maxima: the least-squares fit on exact quadratics (and
 * against the host reference's independent fit), the three-point Gaussian
 * on sampled Gaussians, the three-point parabola on separable parabolas, the
 * centroid on bilinearly spread impulses; and every case without a usable
 * maximum refused with a zero shift.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "host_ref.h"
#include "ops/subpixel.h"
#include "test_data.h"

/* f(x, y) = peak - a (x - x0)^2 - b (x - x0)(y - y0) - c (y - y0)^2 sampled on the F x F grid. */
static void quadratic(int F, double x0, double y0, double a, double b, double c, double *nb)
{
    int r = (F - 1) / 2;
    for (int y = -r; y <= r; y++)
        for (int x = -r; x <= r; x++) {
            double dx = x - x0, dy = y - y0;
            nb[(y + r) * F + (x + r)] = 50 - a * dx * dx - b * dx * dy - c * dy * dy;
        }
}

/* F x F samples of a function of (x, y) around the centre. */
static void sample(int F, double (*f)(double, double, const double *), const double *a, double *nb)
{
    int r = (F - 1) / 2;
    for (int y = -r; y <= r; y++)
        for (int x = -r; x <= r; x++)
            nb[(y + r) * F + (x + r)] = f(x, y, a);
}

/* a = { x0, y0, sigma_x, sigma_y } */
static double gaussian(double x, double y, const double *a)
{
    double dx = (x - a[0]) / a[2], dy = (y - a[1]) / a[3];
    return 80 * exp(-0.5 * (dx * dx + dy * dy));
}

/* a = { x0, y0, kx, ky }: separable parabola, no cross term */
static double parabola(double x, double y, const double *a)
{
    return 100 - a[2] * (x - a[0]) * (x - a[0]) - a[3] * (y - a[1]) * (y - a[1]);
}

/* An impulse of weight 1 at (x0, y0) spread bilinearly onto its 4 pixels, on zero. */
static void bilinear_impulse(int F, double x0, double y0, double *nb)
{
    int r = (F - 1) / 2;
    int ix = (int)floor(x0), iy = (int)floor(y0);
    double fx = x0 - ix, fy = y0 - iy;
    for (int i = 0; i < F * F; i++)
        nb[i] = 0;
    nb[(iy + r) * F + ix + r] = (1 - fx) * (1 - fy);
    nb[(iy + r) * F + ix + 1 + r] = fx * (1 - fy);
    nb[(iy + 1 + r) * F + ix + r] = (1 - fx) * fy;
    nb[(iy + 1 + r) * F + ix + 1 + r] = fx * fy;
}

static void check_three_point_and_centroid(void)
{
    double nb[9 * 9], sx, sy;
    struct subpixel g, p, c;
    const double peaks[][2] = { { 0, 0 }, { 0.3, -0.2 }, { -0.49, 0.45 }, { 0.1, 0.0 }, { -0.25, -0.35 } };
    for (int F = 3; F <= 7; F += 2) {
        if (subpixel_init(&g, CLX_ESTIMATOR_GAUSS3, F) || subpixel_init(&p, CLX_ESTIMATOR_PARABOLA3, F) ||
            subpixel_init(&c, CLX_ESTIMATOR_CENTROID, F)) {
            CHECK(0, "subpixel_init F=%d", F);
            return;
        }
        for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++) {
            double ga[4] = { peaks[i][0], peaks[i][1], 1.3, 0.9 };
            sample(F, gaussian, ga, nb);
            CHECK(!subpixel_estimate(&g, nb, &sx, &sy) && fabs(sx - ga[0]) < 1e-12 && fabs(sy - ga[1]) < 1e-12,
                  "gauss3 F=%d on a Gaussian at (%g, %g): (%.15g, %.15g)", F, ga[0], ga[1], sx, sy);
            double pa[4] = { peaks[i][0], peaks[i][1], 2.0, 0.7 };
            sample(F, parabola, pa, nb);
            CHECK(!subpixel_estimate(&p, nb, &sx, &sy) && fabs(sx - pa[0]) < 1e-12 && fabs(sy - pa[1]) < 1e-12,
                  "parabola3 F=%d on a parabola at (%g, %g): (%.15g, %.15g)", F, pa[0], pa[1], sx, sy);
            bilinear_impulse(F, peaks[i][0], peaks[i][1], nb);
            CHECK(!subpixel_estimate(&c, nb, &sx, &sy) && fabs(sx - peaks[i][0]) < 1e-12 &&
                      fabs(sy - peaks[i][1]) < 1e-12,
                  "centroid F=%d on an impulse at (%g, %g): (%.15g, %.15g)", F, peaks[i][0], peaks[i][1], sx, sy);
        }
        /* Refusals: a non-positive value (gauss3), a minimum, a flat patch. */
        double ga[4] = { 0.2, 0.1, 1.0, 1.0 };
        sample(F, gaussian, ga, nb);
        nb[(F * F) / 2 + 1] = -1;
        CHECK(subpixel_estimate(&g, nb, &sx, &sy) == 1 && sx == 0 && sy == 0, "gauss3 refuses a negative neighbour");
        double pa[4] = { 0.2, 0.1, -1.0, -1.0 };
        sample(F, parabola, pa, nb);
        CHECK(subpixel_estimate(&p, nb, &sx, &sy) == 1 && sx == 0, "parabola3 refuses a minimum");
        for (int i = 0; i < F * F; i++)
            nb[i] = 5;
        CHECK(subpixel_estimate(&p, nb, &sx, &sy) == 1, "parabola3 refuses a flat patch");
        CHECK(subpixel_estimate(&c, nb, &sx, &sy) == 1, "centroid refuses a flat patch");
        CHECK(subpixel_estimate(&g, nb, &sx, &sy) == 1, "gauss3 refuses a flat patch");
        subpixel_release(&g);
        subpixel_release(&p);
        subpixel_release(&c);
        printf("F=%d: gauss3, parabola3 and centroid exact on their analytic peaks\n", F);
    }
    CHECK(strcmp(clx_estimator_name(CLX_ESTIMATOR_GAUSS3), "gauss3") == 0, "estimator names");
}

int main(void)
{
    double nb[31 * 31], sx, sy;
    struct subpixel fit;
    uint64_t seed = 11;

    CHECK(subpixel_init(&fit, CLX_ESTIMATOR_LSQ, 4) != CLX_OK, "an even size is refused");
    CHECK(subpixel_init(&fit, CLX_ESTIMATOR_LSQ, 1) != CLX_OK, "size 1 is refused");

    for (int F = 3; F <= 11; F += 2) {
        if (subpixel_init(&fit, CLX_ESTIMATOR_LSQ, F) != CLX_OK) {
            CHECK(0, "subpixel_init(lsq, %d)", F);
            continue;
        }
        double r = (F - 1) / 2.0;
        /* Maxima at known sub-pixel positions, with and without an xy term. */
        const double cases[][5] = {
            { 0.0, 0.0, 1.0, 0.0, 1.0 },  { 0.3, -0.2, 1.0, 0.0, 2.0 }, { -0.45, 0.49, 0.5, 0.3, 0.7 },
            { 0.9, 0.1, 2.0, -1.0, 1.5 }, { -0.7, -0.8, 1.0, 0.9, 1.0 },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            quadratic(F, cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4], nb);
            int failed = subpixel_estimate(&fit, nb, &sx, &sy);
            CHECK(!failed && fabs(sx - cases[i][0]) < 1e-12 && fabs(sy - cases[i][1]) < 1e-12,
                  "F=%d maximum at (%g, %g): fit (%.15g, %.15g) failed=%d", F, cases[i][0], cases[i][1], sx, sy,
                  failed);
        }
        /* No maximum: a saddle, a minimum, a valley; and a maximum outside. */
        quadratic(F, 0.1, 0.1, 1.0, 0.0, -1.0, nb);
        CHECK(subpixel_estimate(&fit, nb, &sx, &sy) == 1 && sx == 0 && sy == 0, "F=%d saddle refused", F);
        quadratic(F, 0.1, 0.1, -1.0, 0.0, -1.0, nb);
        CHECK(subpixel_estimate(&fit, nb, &sx, &sy) == 1, "F=%d minimum refused", F);
        quadratic(F, 0.1, 0.1, 1.0, 2.0, 1.0, nb); /* 4ac - b^2 = 0: a ridge */
        CHECK(subpixel_estimate(&fit, nb, &sx, &sy) == 1, "F=%d ridge refused", F);
        quadratic(F, r + 0.5, 0.0, 1.0, 0.0, 1.0, nb);
        CHECK(subpixel_estimate(&fit, nb, &sx, &sy) == 1 && sx == 0, "F=%d maximum beyond the neighbourhood refused", F);
        for (int i = 0; i < F * F; i++)
            nb[i] = NAN;
        CHECK(subpixel_estimate(&fit, nb, &sx, &sy) == 1, "F=%d NaN values refused", F);

        /* Arbitrary neighbourhoods: the same answer as the host reference. */
        int compared = 0;
        for (int trial = 0; trial < 200; trial++) {
            for (int i = 0; i < F * F; i++)
                nb[i] = td_uniform(&seed) * 10;
            nb[F * F / 2] = 20 + td_uniform(&seed) * 5;
            double rx, ry;
            int ref_failed = href_fit_lsq(nb, F, &rx, &ry);
            int failed = subpixel_estimate(&fit, nb, &sx, &sy);
            CHECK(failed == ref_failed && fabs(sx - rx) < 1e-9 && fabs(sy - ry) < 1e-9,
                  "F=%d trial %d: (%.12f, %.12f) failed=%d, reference (%.12f, %.12f) failed=%d", F, trial, sx, sy,
                  failed, rx, ry, ref_failed);
            compared += !failed;
        }
        printf("F=%d: analytic peaks exact; %d fits agree with the reference\n", F, compared);
        subpixel_release(&fit);
    }
    check_three_point_and_centroid();
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
