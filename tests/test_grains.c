/*
 * test_grains.c - grains and their references (src/strain/grains.c)
 * against orix and against maps whose grains are known:
 *
 * - clx_misorientation against orix 0.15's Orientation.angle_with, m-3m and
 *   6/mmm, for pairs near and far, symmetric equivalents (0) included;
 * - clx_orientation_refine against orix's composition g * from_matrix(R^T);
 * - clx_grains_segment on a map of two grains with orientation noise, a
 *   point not indexed, a one-point grain below the minimum and a
 *   symmetric equivalent of one grain's orientation (the same grain);
 * - clx_grains_references: the best quality near the centre, not the best
 *   quality at the border; the point nearest the centroid without quality;
 * - the Nye components from curvatures, rotation differences, and the GND
 *   density's zero, linearity in alpha and in 1/b, and refusals.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clxcorr.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define DEG (M_PI / 180)

static void check_misorientation(void)
{
    /* orix 0.15: Orientation.from_euler(deg2rad(a), Oh or D6h).angle_with(...). */
    static const struct { double a[3], b[3], cubic, hexagonal; } cases[] = {
        { { 10, 20, 30 }, { 12, 21, 33 }, 0.08768393607013376, 0.08768393607013376 },
        { { 10, 20, 30 }, { 100, 20, 30 }, 0.4923938335578622, 0.6688210430257969 },
        { { 45, 54.7356, 45 }, { 0, 0, 0 }, 0.9553164380546076, 1.079592215538927 },
        { { 200, 75, 310 }, { 15, 140, 95 }, 0.9501878199340831, 0.6495853351466624 },
        { { 0, 0, 0 }, { 60, 0, 0 }, 0.5235987755982985, 0.0 },
        { { 30, 90, 0 }, { 30, 90, 60 }, 0.5235987755982985, 0.0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double a[3], b[3];
        for (int i = 0; i < 3; i++) {
            a[i] = cases[k].a[i] * DEG;
            b[i] = cases[k].b[i] * DEG;
        }
        double c = clx_misorientation(a, b, CLX_SYMMETRY_CUBIC), h = clx_misorientation(a, b, CLX_SYMMETRY_HEXAGONAL);
        /* acos near 0 loses digits: 1e-7 rad is what a double keeps there. */
        CHECK(fabs(c - cases[k].cubic) < 1e-7 && fabs(h - cases[k].hexagonal) < 1e-7,
              "pair %zu: cubic %.12g (orix %.12g), hexagonal %.12g (orix %.12g)", k, c, cases[k].cubic, h,
              cases[k].hexagonal);
    }
    double nan3[3] = { NAN, 0, 0 }, zero[3] = { 0, 0, 0 };
    CHECK(isnan(clx_misorientation(nan3, zero, CLX_SYMMETRY_CUBIC)), "not indexed: NaN");
}

static void check_refine(void)
{
    /* orix: (Rotation.from_euler(deg2rad((32, 41, 17))) * Rotation.from_matrix(R.T)).to_euler(),
     * R = exp([w]x), w = (0.012, -0.021, 0.0053). */
    double ref[3] = { 32 * DEG, 41 * DEG, 17 * DEG }, w[3] = { 0.012, -0.021, 0.0053 }, got[3];
    static const double orix[3] = { 0.5359715835106571, 0.7149055210951989, 0.3335737469036332 };
    clx_orientation_refine(ref, w, got);
    CHECK(fabs(got[0] - orix[0]) < 1e-12 && fabs(got[1] - orix[1]) < 1e-12 && fabs(got[2] - orix[2]) < 1e-12,
          "refined (%.15g, %.15g, %.15g), orix's (%.15g, %.15g, %.15g)", got[0], got[1], got[2], orix[0], orix[1],
          orix[2]);
    double none[3] = { 0, 0, 0 };
    clx_orientation_refine(ref, none, got);
    CHECK(fabs(got[0] - ref[0]) < 1e-12 && fabs(got[1] - ref[1]) < 1e-12 && fabs(got[2] - ref[2]) < 1e-12,
          "no rotation: (%g, %g, %g)", got[0], got[1], got[2]);
    double bad[3] = { NAN, 0, 0 };
    clx_orientation_refine(bad, w, got);
    CHECK(isnan(got[0]) && isnan(got[1]) && isnan(got[2]), "not indexed: NaN");
}

#define ROWS 6
#define COLS 8

static void check_segment(void)
{
    /* Columns 0-3: grain A near (10, 20, 30); 4-7: grain B near (50, 35, 10),
     * whose point (5, 7) is written as a cubic equivalent (phi1 + 90 at Phi 0
     * would be; here B's own angles turned by a symmetry operator, computed
     * by clx_misorientation being 0). Point (0, 0) not indexed; point (2, 2)
     * a lone orientation: a grain of one point. */
    double euler[ROWS * COLS * 3];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            double *e = euler + 3 * (r * COLS + c);
            double noise = 0.2 * ((r * 7 + c * 3) % 5 - 2);   /* +-0.4 degrees */
            e[0] = (c < 4 ? 10 : 50) * DEG + noise * DEG;
            e[1] = (c < 4 ? 20 : 35) * DEG;
            e[2] = (c < 4 ? 30 : 10) * DEG - noise * DEG;
        }
    euler[0] = euler[1] = euler[2] = NAN;
    double *lone = euler + 3 * (2 * COLS + 2);
    lone[0] = 100 * DEG, lone[1] = 60 * DEG, lone[2] = 5 * DEG;
    /* B at (5, 7) as phi2 + 90 degrees: the cubic 4-fold about the crystal's z. */
    euler[3 * (5 * COLS + 7) + 2] += 90 * DEG;
    CHECK(clx_misorientation(euler + 3 * (5 * COLS + 6), euler + 3 * (5 * COLS + 7), CLX_SYMMETRY_CUBIC) < 1 * DEG,
          "the equivalent is near its neighbour");

    int grain[ROWS * COLS], count = -1;
    clx_message msg;
    CHECK(clx_grains_segment(ROWS, COLS, euler, CLX_SYMMETRY_CUBIC, 5 * DEG, 2, grain, &count, &msg) == CLX_OK,
          "%s", msg.text);
    CHECK(count == 2, "%d grains, expected 2", count);
    int wrong = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            int want = (r == 0 && c == 0) || (r == 2 && c == 2) ? 0 : c < 4 ? 1 : 2;
            wrong += grain[r * COLS + c] != want;
        }
    CHECK(wrong == 0, "%d points in the wrong grain", wrong);
    /* Without the symmetry (hexagonal's has no 4-fold), the equivalent is apart. */
    CHECK(clx_grains_segment(ROWS, COLS, euler, CLX_SYMMETRY_HEXAGONAL, 5 * DEG, 1, grain, &count, &msg) == CLX_OK &&
              count == 4 && grain[5 * COLS + 7] == 4,
          "hexagonal: %d grains, point (5, 7) in %d", count, grain[5 * COLS + 7]);
    CHECK(clx_grains_segment(ROWS, COLS, euler, CLX_SYMMETRY_CUBIC, 0, 1, grain, &count, &msg) == CLX_ERR_ARGUMENT &&
              strstr(msg.text, "threshold"),
          "a threshold of 0: %s", msg.text);
}

static void check_references(void)
{
    /* One grain of 5 x 5 points: the best quality sits at the border, the
     * second best next to the centre. */
    int grain[25];
    double quality[25];
    for (int i = 0; i < 25; i++) {
        grain[i] = 1;
        quality[i] = 10;
    }
    quality[0] = 99;            /* (0, 0): the border */
    quality[2 * 5 + 3] = 50;    /* (2, 3): next to the centre (2, 2) */
    int ref = -1;
    clx_message msg;
    CHECK(clx_grains_references(5, 5, grain, 1, quality, &ref, &msg) == CLX_OK && ref == 2 * 5 + 3,
          "best near the centre: point %d, expected 13", ref);
    CHECK(clx_grains_references(5, 5, grain, 1, NULL, &ref, &msg) == CLX_OK && ref == 12,
          "no quality: point %d, expected the centre 12", ref);
    grain[3] = 7;
    CHECK(clx_grains_references(5, 5, grain, 1, NULL, &ref, &msg) == CLX_ERR_ARGUMENT, "a grain past the count");
}

static void check_nye(void)
{
    /* kappa_x = d theta / dx, kappa_y = d theta / dy: alpha12 = k21,
     * alpha13 = k31, alpha21 = k12, alpha23 = k32, alpha33 = -(k11 + k22). */
    double kx[3] = { 1, 2, 3 }, ky[3] = { 4, 5, 6 }, alpha[5];
    clx_nye_components(kx, ky, alpha);
    CHECK(alpha[0] == 2 && alpha[1] == 3 && alpha[2] == 4 && alpha[3] == 6 && alpha[4] == -6,
          "alpha (%g, %g, %g, %g, %g)", alpha[0], alpha[1], alpha[2], alpha[3], alpha[4]);

    /* Turns about one axis add: the difference is the angle between. */
    double a[3] = { 0.01, -0.02, 0.005 }, b[3], d[3], zero[3] = { 0, 0, 0 };
    for (int k = 0; k < 3; k++)
        b[k] = 1.7 * a[k];
    clx_rotation_difference(a, b, d);
    CHECK(fabs(d[0] - 0.7 * a[0]) < 1e-15 && fabs(d[1] - 0.7 * a[1]) < 1e-15 && fabs(d[2] - 0.7 * a[2]) < 1e-15,
          "coaxial difference (%g, %g, %g)", d[0], d[1], d[2]);
    clx_rotation_difference(zero, a, d);
    CHECK(fabs(d[0] - a[0]) < 1e-15 && fabs(d[1] - a[1]) < 1e-15 && fabs(d[2] - a[2]) < 1e-15, "from none");

    double euler[3] = { 0.3, 0.6, 1.1 }, rho1, rho2, rho3, none;
    double al[5] = { 3e-5, -5e-5, 2e-5, 4e-5, -1e-5 }, al2[5], zero5[5] = { 0, 0, 0, 0, 0 };
    for (int k = 0; k < 5; k++)
        al2[k] = 2 * al[k];
    clx_message msg;
    CHECK(clx_gnd_density(al, euler, CLX_LATTICE_FCC, 2.49e-4, &rho1, &msg) == CLX_OK &&
              clx_gnd_density(al2, euler, CLX_LATTICE_FCC, 2.49e-4, &rho2, &msg) == CLX_OK &&
              clx_gnd_density(al, euler, CLX_LATTICE_FCC, 4.98e-4, &rho3, &msg) == CLX_OK &&
              clx_gnd_density(zero5, euler, CLX_LATTICE_FCC, 2.49e-4, &none, &msg) == CLX_OK,
          "%s", msg.text);
    /* alpha / b = 5e-5 / 2.49e-4 um: 2e11 per m^2, summed over the types a few times that. */
    CHECK(rho1 > 2e11 && rho1 < 1e13 && fabs(rho2 / rho1 - 2) < 1e-9 && fabs(rho1 / rho3 - 2) < 1e-9 && none == 0,
          "densities %g, %g (twice alpha), %g (twice b), %g (zero)", rho1, rho2, rho3, none);
    CHECK(clx_gnd_density(al, euler, CLX_LATTICE_BCC, 2.48e-4, &rho3, &msg) == CLX_OK && rho3 > 0, "bcc: %s",
          msg.text);
    double nan_alpha[5] = { NAN, 0, 0, 0, 0 };
    CHECK(clx_gnd_density(nan_alpha, euler, CLX_LATTICE_FCC, 2.49e-4, &rho3, &msg) == CLX_OK && isnan(rho3),
          "no gradient: NaN");
    CHECK(clx_gnd_density(al, euler, CLX_LATTICE_FCC, 0, &rho3, &msg) == CLX_ERR_ARGUMENT, "b of 0");
}

int main(void)
{
    check_misorientation();
    check_refine();
    check_segment();
    check_references();
    check_nye();
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
