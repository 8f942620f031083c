/*
 * test_kikuchi.c - the projection of clxcorr-samples --kikuchi
 * (samples/kikuchi.c) against doc/hrebsd-conventions.md, computed here the
 * other way round: forward through F, where the model goes back through
 * F^-1.
 *
 * - The frames: R_ds against kikuchipy's own matrices (its
 *   EBSDDetector.sample_to_detector, inverted, read off kikuchipy 0.13.1),
 *   and Bunge's g.
 * - Exactness: a feature the reference shows along r shows in the deformed
 *   pattern where F r meets the screen (its own, moved, centre), to 1e-9:
 *   the same crystal direction, the same intensity.
 * - The doc's pattern-centre shift: with F = I the feature moves by
 *   s(r) = (Dx - Dz r_x / L, Dy - Dz r_y / L).
 * - The doc's first-order shift q = beta r - ((beta r) . n / (r . n)) r
 *   agrees with the exact one to second order.
 * - The rendered pattern is background * (1 + bands) of those directions,
 *   and each band is symmetric (one per +-g pair).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "kikuchi.h"

static const double PI = 3.14159265358979323846;

static const struct kikuchi_geometry GEOMETRY = { 120, 100, 0.48, 0.37, 0.66, 70.0, 10.0 };

static double max_abs_diff(const double *a, const double *b, int n)
{
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(a[i] - b[i]));
    return worst;
}

static void apply(const double m[9], const double v[3], double out[3])
{
    double t[3];
    for (int i = 0; i < 3; i++)
        t[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
    for (int i = 0; i < 3; i++)
        out[i] = t[i];
}

static void test_frames(void)
{
    /* (~EBSDDetector(sample_tilt=70, tilt=T).sample_to_detector).to_matrix(),
     * kikuchipy 0.13.1, for T = -10, 0 and 10. */
    static const struct { double tilt, m[9]; } kikuchipy[] = {
        { -10, { 0, -0.98480775301220802, 0.17364817766693058, 1, 0, 0, 0, 0.17364817766693058, 0.98480775301220802 } },
        { 0, { 0, -0.93969262078590843, 0.34202014332566893, 1, 0, 0, 0, 0.34202014332566893, 0.93969262078590843 } },
        { 10, { 0, -0.86602540378443860, 0.50000000000000033, 1, 0, 0, 0, 0.50000000000000033, 0.86602540378443849 } },
    };
    for (int k = 0; k < 3; k++) {
        double rds[9];
        kikuchi_detector_to_sample(70.0, kikuchipy[k].tilt, rds);
        CHECK(max_abs_diff(rds, kikuchipy[k].m, 9) < 1e-15, "tilt %g: R_ds differs from kikuchipy's by %g",
              kikuchipy[k].tilt, max_abs_diff(rds, kikuchipy[k].m, 9));
    }

    /* Bunge: identity at zero; phi1 = 90 deg alone takes x_s to -y_c. */
    double g[9], id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    kikuchi_bunge((double[3]){ 0, 0, 0 }, g);
    CHECK(max_abs_diff(g, id, 9) < 1e-15, "g(0, 0, 0) is not I");
    kikuchi_bunge((double[3]){ PI / 2, 0, 0 }, g);
    double xs[3] = { 1, 0, 0 }, xc[3];
    apply(g, xs, xc);
    CHECK(fabs(xc[0]) < 1e-15 && fabs(xc[1] + 1.0) < 1e-15 && fabs(xc[2]) < 1e-15,
          "g(90, 0, 0) x_s = (%g, %g, %g), expected (0, -1, 0)", xc[0], xc[1], xc[2]);
    /* Phi alone: R_x(Phi) passive, y_s -> (0, cos, -sin). */
    kikuchi_bunge((double[3]){ 0, 0.3, 0 }, g);
    double ys[3] = { 0, 1, 0 }, yc[3];
    apply(g, ys, yc);
    CHECK(fabs(yc[1] - cos(0.3)) < 1e-15 && fabs(yc[2] + sin(0.3)) < 1e-15,
          "g(0, Phi, 0) y_s = (%g, %g, %g)", yc[0], yc[1], yc[2]);
}

/* Where reference pixel (u, v) shows in the view: the reference direction
 * r, F_d r (F_d = R_ds^T F_s R_ds), met by the view's screen. */
static void forward(const struct kikuchi_view *view, double u, double v, double *tu, double *tv)
{
    double rds[9], rds_t[9], f[9], fd[9];
    kikuchi_detector_to_sample(GEOMETRY.sample_tilt, GEOMETRY.detector_tilt, rds);
    kikuchi_transpose(rds, rds_t);
    for (int i = 0; i < 9; i++)
        f[i] = view->beta_s[i] + (i % 4 == 0 ? 1.0 : 0.0);
    kikuchi_multiply(rds_t, f, fd);
    kikuchi_multiply(fd, rds, fd);
    double xpc, ypc, l, txpc, typc, tl;
    kikuchi_pc_pixels(&GEOMETRY, GEOMETRY.pcx, GEOMETRY.pcy, GEOMETRY.pcz, &xpc, &ypc, &l);
    kikuchi_pc_pixels(&GEOMETRY, view->pcx, view->pcy, view->pcz, &txpc, &typc, &tl);
    double r[3] = { u - xpc, ypc - v, l }, fr[3];
    apply(fd, r, fr);
    *tu = txpc + tl * fr[0] / fr[2];
    *tv = typc - tl * fr[1] / fr[2];
}

static void test_exact(const struct kikuchi_model *model)
{
    struct kikuchi_view ref = { GEOMETRY.pcx, GEOMETRY.pcy, GEOMETRY.pcz, { 0 } };
    struct kikuchi_view view = {
        0, 0, 0,
        { 0.012, -0.02, 0.007, 0.015, -0.009, 0.011, -0.006, 0.018, 0.004 },
    };
    double pc[3];
    kikuchi_pc_shift(&GEOMETRY, 37.0, -21.0, 40.0, pc);
    view.pcx = pc[0];
    view.pcy = pc[1];
    view.pcz = pc[2];
    double worst_c = 0.0, worst_i = 0.0;
    for (double v = -10.0; v <= GEOMETRY.height + 10.0; v += 7.3)
        for (double u = -10.0; u <= GEOMETRY.width + 10.0; u += 6.1) {
            double tu, tv, c_ref[3], c_test[3];
            forward(&view, u, v, &tu, &tv);
            kikuchi_direction(model, &GEOMETRY, &ref, u, v, c_ref);
            kikuchi_direction(model, &GEOMETRY, &view, tu, tv, c_test);
            worst_c = fmax(worst_c, max_abs_diff(c_ref, c_test, 3));
            worst_i = fmax(worst_i, fabs(kikuchi_bands_at(model, c_ref) - kikuchi_bands_at(model, c_test)));
        }
    CHECK(worst_c < 1e-12, "deformed: the feature along r is not where F r meets the screen (%g)", worst_c);
    CHECK(worst_i < 1e-9, "deformed: intensities differ by %g", worst_i);
}

static void test_pc_shift(const struct kikuchi_model *model)
{
    /* kikuchi_pc_shift against kikuchipy 0.13.1's extrapolate_pc: this
     * detector with px_size 25, the centre at map point (1, 2) of a 4 x 3 map
     * with steps (14.5, 6.5) um gives point (3, 0) the centre below. */
    double x_um = -13.0, y_um = 29.0, pixel = 25.0, pc[3];
    kikuchi_pc_shift(&GEOMETRY, x_um, y_um, pixel, pc);
    static const double kikuchipy[3] = { 0.48433333333333334, 0.3599541053161005, 0.6658000000000001 };
    CHECK(max_abs_diff(pc, kikuchipy, 3) < 1e-12, "moved pattern centre (%.15g, %.15g, %.15g), kikuchipy's "
          "(%.15g, %.15g, %.15g)", pc[0], pc[1], pc[2], kikuchipy[0], kikuchipy[1], kikuchipy[2]);
    double xpc, ypc, l, txpc, typc, tl;
    kikuchi_pc_pixels(&GEOMETRY, GEOMETRY.pcx, GEOMETRY.pcy, GEOMETRY.pcz, &xpc, &ypc, &l);
    kikuchi_pc_pixels(&GEOMETRY, pc[0], pc[1], pc[2], &txpc, &typc, &tl);
    CHECK(fabs(l - tl) > 0.1, "the step does not move L (%g): the test is weak", l - tl);

    /* F = I: the feature along r moves by s(r). */
    struct kikuchi_view ref = { GEOMETRY.pcx, GEOMETRY.pcy, GEOMETRY.pcz, { 0 } };
    struct kikuchi_view moved = { pc[0], pc[1], pc[2], { 0 } };
    /* The source moved by (dx, dy, dz) in the detector frame (y up the pattern). */
    double dx = txpc - xpc, dy = ypc - typc, dz = l - tl, worst = 0.0;
    for (double v = 0.0; v < GEOMETRY.height; v += 9.0)
        for (double u = 0.0; u < GEOMETRY.width; u += 11.0) {
            double rx = u - xpc, ry = ypc - v, c_ref[3], c_test[3];
            double su = dx - dz * rx / l, sv = -(dy - dz * ry / l);
            kikuchi_direction(model, &GEOMETRY, &ref, u, v, c_ref);
            kikuchi_direction(model, &GEOMETRY, &moved, u + su, v + sv, c_test);
            worst = fmax(worst, max_abs_diff(c_ref, c_test, 3));
        }
    CHECK(worst < 1e-12, "moved source: the feature is not moved by s(r) (%g)", worst);
}

static void test_first_order(void)
{
    /* q = beta_d r - ((beta_d r) . n / (r . n)) r against the exact shift. */
    double beta_s[9] = { 1e-4, -2e-4, 0.5e-4, 1.5e-4, -1e-4, 0.7e-4, -1.2e-4, 0.4e-4, 2e-4 };
    struct kikuchi_view view = { GEOMETRY.pcx, GEOMETRY.pcy, GEOMETRY.pcz, { 0 } };
    for (int i = 0; i < 9; i++)
        view.beta_s[i] = beta_s[i];
    double rds[9], rds_t[9], bd[9], xpc, ypc, l, worst = 0.0, largest = 0.0;
    kikuchi_detector_to_sample(GEOMETRY.sample_tilt, GEOMETRY.detector_tilt, rds);
    kikuchi_transpose(rds, rds_t);
    kikuchi_multiply(rds_t, beta_s, bd);
    kikuchi_multiply(bd, rds, bd);
    kikuchi_pc_pixels(&GEOMETRY, GEOMETRY.pcx, GEOMETRY.pcy, GEOMETRY.pcz, &xpc, &ypc, &l);
    for (double v = 0.0; v < GEOMETRY.height; v += 13.0)
        for (double u = 0.0; u < GEOMETRY.width; u += 17.0) {
            double r[3] = { u - xpc, ypc - v, l }, br[3], tu, tv;
            apply(bd, r, br);
            /* q in the detector frame; down the pattern is -y. */
            double qx = br[0] - br[2] / l * r[0], qy = -(br[1] - br[2] / l * r[1]);
            forward(&view, u, v, &tu, &tv);
            worst = fmax(worst, fmax(fabs(tu - u - qx), fabs(tv - v - qy)));
            largest = fmax(largest, hypot(qx, qy));
        }
    CHECK(largest > 5e-3 && worst < 1e-2 * largest, "first-order shift off by %g px (shifts up to %g px)",
          worst, largest);
}

static void test_render(const struct kikuchi_model *model)
{
    CHECK(kikuchi_model_bands(model) == 141, "%d bands, expected 141", kikuchi_model_bands(model));
    struct kikuchi_view view = { 0.5, 0.4, 0.6, { 0.01, 0, 0, 0, -0.01, 0.02, 0, 0, 0 } };
    int w = GEOMETRY.width, h = GEOMETRY.height;
    double *out = malloc(sizeof(double) * w * h);
    if (!out) {
        CHECK(out != NULL, "out of memory");
        return;
    }
    kikuchi_render(model, &GEOMETRY, &view, out);
    double worst = 0.0, lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int v = 0; v < h; v++)
        for (int u = 0; u < w; u++) {
            double c[3];
            kikuchi_direction(model, &GEOMETRY, &view, u, v, c);
            double expected = kikuchi_background_at(&GEOMETRY, u, v) * (1.0 + kikuchi_bands_at(model, c));
            worst = fmax(worst, fabs(out[v * w + u] - expected));
            lo = fmin(lo, out[v * w + u]);
            hi = fmax(hi, out[v * w + u]);
        }
    CHECK(worst < 1e-12, "render differs from background * (1 + bands) by %g", worst);
    CHECK(lo > 0.0 && hi > 1.5 * lo, "pattern range [%g, %g]: not positive or no contrast", lo, hi);
    free(out);

    double worst_sym = 0.0;
    for (int i = 0; i < 500; i++) {
        double a = 0.37 * i, b = 0.011 * i;
        double c[3] = { cos(a) * sin(b * 2.9), sin(a) * sin(b * 2.9), cos(b * 2.9) }, m[3] = { -c[0], -c[1], -c[2] };
        worst_sym = fmax(worst_sym, fabs(kikuchi_bands_at(model, c) - kikuchi_bands_at(model, m)));
    }
    CHECK(worst_sym < 1e-12, "bands(c) != bands(-c) by %g", worst_sym);
}

int main(void)
{
    struct kikuchi_model *model = kikuchi_model_create((double[3]){ 30.0, 40.0, 50.0 });
    if (!model) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    test_frames();
    test_exact(model);
    test_pc_shift(model);
    test_first_order();
    test_render(model);
    kikuchi_model_free(model);
    if (test_failures == 0)
        printf("ok: frames, exact deformation, pattern-centre shift, first-order shift, render\n");
    return test_failures ? 1 : 0;
}
