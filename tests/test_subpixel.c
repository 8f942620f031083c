/*
 * test_subpixel.c - the host's least-squares peak fit (src/subpixel_lsq.c):
 * exact quadratics with known maxima come back exactly, every case with no
 * usable maximum is refused, and it agrees with the independent fit of the
 * host reference on arbitrary neighbourhoods.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>

#include "check.h"
#include "host_ref.h"
#include "subpixel_lsq.h"
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

int main(void)
{
    double nb[31 * 31], sx, sy;
    struct lsq_fit fit;
    uint64_t seed = 11;

    CHECK(lsq_fit_init(&fit, 4) != CLX_OK, "an even size is refused");
    CHECK(lsq_fit_init(&fit, 1) != CLX_OK, "size 1 is refused");

    for (int F = 3; F <= 11; F += 2) {
        if (lsq_fit_init(&fit, F) != CLX_OK) {
            CHECK(0, "lsq_fit_init(%d)", F);
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
            int failed = lsq_fit_peak(&fit, nb, &sx, &sy);
            CHECK(!failed && fabs(sx - cases[i][0]) < 1e-12 && fabs(sy - cases[i][1]) < 1e-12,
                  "F=%d maximum at (%g, %g): fit (%.15g, %.15g) failed=%d", F, cases[i][0], cases[i][1], sx, sy,
                  failed);
        }
        /* No maximum: a saddle, a minimum, a valley; and a maximum outside. */
        quadratic(F, 0.1, 0.1, 1.0, 0.0, -1.0, nb);
        CHECK(lsq_fit_peak(&fit, nb, &sx, &sy) == 1 && sx == 0 && sy == 0, "F=%d saddle refused", F);
        quadratic(F, 0.1, 0.1, -1.0, 0.0, -1.0, nb);
        CHECK(lsq_fit_peak(&fit, nb, &sx, &sy) == 1, "F=%d minimum refused", F);
        quadratic(F, 0.1, 0.1, 1.0, 2.0, 1.0, nb); /* 4ac - b^2 = 0: a ridge */
        CHECK(lsq_fit_peak(&fit, nb, &sx, &sy) == 1, "F=%d ridge refused", F);
        quadratic(F, r + 0.5, 0.0, 1.0, 0.0, 1.0, nb);
        CHECK(lsq_fit_peak(&fit, nb, &sx, &sy) == 1 && sx == 0, "F=%d maximum beyond the neighbourhood refused", F);
        for (int i = 0; i < F * F; i++)
            nb[i] = NAN;
        CHECK(lsq_fit_peak(&fit, nb, &sx, &sy) == 1, "F=%d NaN values refused", F);

        /* Arbitrary neighbourhoods: the same answer as the host reference. */
        int compared = 0;
        for (int trial = 0; trial < 200; trial++) {
            for (int i = 0; i < F * F; i++)
                nb[i] = td_uniform(&seed) * 10;
            nb[F * F / 2] = 20 + td_uniform(&seed) * 5;
            double rx, ry;
            int ref_failed = href_fit_lsq(nb, F, &rx, &ry);
            int failed = lsq_fit_peak(&fit, nb, &sx, &sy);
            CHECK(failed == ref_failed && fabs(sx - rx) < 1e-9 && fabs(sy - ry) < 1e-9,
                  "F=%d trial %d: (%.12f, %.12f) failed=%d, reference (%.12f, %.12f) failed=%d", F, trial, sx, sy,
                  failed, rx, ry, ref_failed);
            compared += !failed;
        }
        printf("F=%d: analytic peaks exact; %d fits agree with the reference\n", F, compared);
        lsq_fit_release(&fit);
    }
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
