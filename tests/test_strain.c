/*
 * test_strain.c - the HR-EBSD strain solver (src/strain/) against shifts
 * made here from doc/hrebsd-conventions.md, written out independently of
 * the library: the frames as explicit matrices, the shifts as the exact
 * projection of F r from the test pattern's source.
 *
 * - exact shifts of pure strains, rotations of up to 5 degrees and mixtures,
 *   with and without a moved pattern centre, come back to 1e-8; tiny ones
 *   made with the doc's first-order formula come back too (its signs);
 * - 0.05 px of noise gives strain errors of order 1e-4;
 * - the robust rule drops windows 2 px off and the fit stays exact;
 * - too few windows, and windows on one line, give NaN and a flag;
 * - the traction-free full strain: a case worked by hand, and sigma_33 = 0
 *   for a rotated crystal with the stiffness rotated here as a 4th-order
 *   tensor;
 * - stiffness strings, good and bad; the pattern-centre shift; the remap
 *   homography.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clxcorr.h"
#include "test_data.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define GRID 5
#define WINDOWS (GRID * GRID)

/* The geometry of the tests: a 400 x 400 pattern, PC (0.5, 0.3, 0.6),
 * 70 degrees sample tilt, 10 degrees detector tilt. */
static const clx_detector detector = { 400, 400, 0.5, 0.3, 0.6, 70, 10 };

/* ---- independent 3x3 helpers ---------------------------------------------- */

static void mul(const double a[9], const double b[9], double out[9])
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(out, t, sizeof t);
}

static void transpose(const double a[9], double out[9])
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * j + i] = a[3 * i + j];
    memcpy(out, t, sizeof t);
}

/* R_ds, kikuchipy's EBSDDetector.sample_to_detector inverted, multiplied
 * out: with a = sigma - theta, [[0, -sin a, cos a], [1, 0, 0], [0, cos a,
 * sin a]] (test_kikuchi.c checks it against kikuchipy's own numbers). */
static void r_ds(const clx_detector *d, double r[9])
{
    double a = (d->sample_tilt - d->detector_tilt) * M_PI / 180;
    double m[9] = { 0, -sin(a), cos(a), 1, 0, 0, 0, cos(a), sin(a) };
    memcpy(r, m, sizeof m);
}

/* beta_d = R_ds^T beta_s R_ds and back. */
static void to_detector(const double beta_s[9], double beta_d[9])
{
    double r[9], rt[9];
    r_ds(&detector, r);
    transpose(r, rt);
    mul(rt, beta_s, beta_d);
    mul(beta_d, r, beta_d);
}

static void to_sample(const double beta_d[9], double beta_s[9])
{
    double r[9], rt[9];
    r_ds(&detector, r);
    transpose(r, rt);
    mul(r, beta_d, beta_s);
    mul(beta_s, rt, beta_s);
}

static double gauss(uint64_t *seed)
{
    double u1 = td_uniform(seed), u2 = td_uniform(seed);
    return sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
}

/* ---- synthetic shifts ------------------------------------------------------ */

static double wx[WINDOWS], wy[WINDOWS];

static void grid(void)
{
    for (int j = 0; j < GRID; j++)
        for (int i = 0; i < GRID; i++) {
            wx[j * GRID + i] = 40 + 80 * i;
            wy[j * GRID + i] = 40 + 80 * j;
        }
}

/*
 * The exact shifts of the windows for beta (sample frame): the feature the
 * reference sees along r = (x - xpc, ypc - y, L) (detector frame: y up the
 * pattern) is seen along F r from the test pattern's source, at pixel
 * (xpc' + L' (F r)_x / (F r)_z, ypc' - L' (F r)_y / (F r)_z).
 */
static void shifts(const double beta_s[9], const double test_pc[3], clx_result *res)
{
    double beta_d[9];
    to_detector(beta_s, beta_d);
    double xpc = detector.pcx * detector.width - 0.5, ypc = detector.pcy * detector.height - 0.5;
    double L = detector.pcz * detector.height;
    const double *pc = test_pc ? test_pc : &detector.pcx;
    double xpc1 = pc[0] * detector.width - 0.5, ypc1 = pc[1] * detector.height - 0.5, L1 = pc[2] * detector.height;
    for (int i = 0; i < WINDOWS; i++) {
        double r[3] = { wx[i] - xpc, ypc - wy[i], L }, v[3];
        for (int k = 0; k < 3; k++)
            v[k] = r[k] + beta_d[3 * k] * r[0] + beta_d[3 * k + 1] * r[1] + beta_d[3 * k + 2] * r[2];
        memset(&res[i], 0, sizeof res[i]);
        res[i].dx = xpc1 + L1 * v[0] / v[2] - wx[i];
        res[i].dy = ypc1 - L1 * v[1] / v[2] - wy[i];
        res[i].zncc = NAN;
        res[i].peak_ratio = NAN;
    }
}

/* The polar decomposition a = R U, by Newton's iteration R <- (R + R^-T) / 2. */
static void polar(const double a[9], double r[9], double u[9])
{
    memcpy(r, a, 9 * sizeof *a);
    for (int it = 0; it < 60; it++) {
        double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
                     r[2] * (r[3] * r[7] - r[4] * r[6]);
        /* R^-T: the cofactor matrix over the determinant. */
        double cof[9] = { r[4] * r[8] - r[5] * r[7], r[5] * r[6] - r[3] * r[8], r[3] * r[7] - r[4] * r[6],
                          r[2] * r[7] - r[1] * r[8], r[0] * r[8] - r[2] * r[6], r[1] * r[6] - r[0] * r[7],
                          r[1] * r[5] - r[2] * r[4], r[2] * r[3] - r[0] * r[5], r[0] * r[4] - r[1] * r[3] };
        for (int i = 0; i < 9; i++)
            r[i] = 0.5 * (r[i] + cof[i] / det);
    }
    double rt[9];
    transpose(r, rt);
    mul(rt, a, u);
}

/*
 * What the fit must return for beta (sample frame): the shifts fix
 * F = I + beta_d only up to a factor, and the fit takes the one with
 * F_d33 = 1, so beta_d' = F_d / F_d33 - I. In the sample frame F = R U:
 * e = 3 U / tr U - I (deviatoric, whatever F's scale), w R's rotation
 * vector (angle times axis).
 */
static void expected(const double beta_s[9], double beta_d_out[9], double e[9], double w[3])
{
    double beta_d[9], b[9], f[9], r[9], u[9];
    to_detector(beta_s, beta_d);
    double f33 = 1 + beta_d[8];
    for (int i = 0; i < 9; i++)
        beta_d_out[i] = ((i % 4 == 0 ? 1 : 0) + beta_d[i]) / f33 - (i % 4 == 0 ? 1 : 0);
    to_sample(beta_d_out, b);
    for (int i = 0; i < 9; i++)
        f[i] = b[i] + (i % 4 == 0 ? 1 : 0);
    polar(f, r, u);
    double tr = (u[0] + u[4] + u[8]) / 3;
    for (int i = 0; i < 9; i++)
        e[i] = u[i] / tr - (i % 4 == 0);
    double a[3] = { 0.5 * (r[7] - r[5]), 0.5 * (r[2] - r[6]), 0.5 * (r[3] - r[1]) };
    double sn = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), angle = atan2(sn, 0.5 * (r[0] + r[4] + r[8] - 1));
    for (int i = 0; i < 3; i++)
        w[i] = sn > 0 ? a[i] * angle / sn : 0;
}

static double max_diff(const double *a, const double *b, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return isnan(m) ? INFINITY : m;
}

/* A rotation by angle (radians) about the unit axis, as beta = R - I. */
static void rotation(const double axis[3], double angle, double beta[9])
{
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double x = axis[0] / n, y = axis[1] / n, z = axis[2] / n, c = cos(angle), s = sin(angle), t = 1 - c;
    double r[9] = { t * x * x + c,     t * x * y - s * z, t * x * z + s * y,
                    t * x * y + s * z, t * y * y + c,     t * y * z - s * x,
                    t * x * z - s * y, t * y * z + s * x, t * z * z + c };
    for (int i = 0; i < 9; i++)
        beta[i] = r[i] - (i % 4 == 0 ? 1 : 0);
}

static double exact_worst; /* the largest error of check_exact, reported */

/* Fits exact shifts of beta_s and compares with the expected answer. */
static void check_exact(const char *what, const double beta_s[9], const double test_pc[3])
{
    clx_result res[WINDOWS];
    clx_strain out;
    clx_message msg;
    double beta_d[9], e[9], w[3];
    shifts(beta_s, test_pc, res);
    expected(beta_s, beta_d, e, w);
    int status = clx_strain_fit(&detector, test_pc, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, &msg);
    CHECK(status == CLX_OK, "%s: status %d (%s)", what, status, msg.text);
    double de = max_diff(out.e, e, 9), dw = max_diff(out.w, w, 3), db = max_diff(out.beta_detector, beta_d, 9);
    CHECK(de < 1e-8 && dw < 1e-8 && db < 1e-8, "%s: errors e %.3g, w %.3g, beta_d %.3g", what, de, dw, db);
    exact_worst = fmax(exact_worst, fmax(de, fmax(dw, db)));
    CHECK(out.flags == CLX_STRAIN_DEVIATORIC && out.windows == WINDOWS && out.residual < 1e-8,
          "%s: flags %u, windows %d, residual %g", what, out.flags, out.windows, out.residual);
    CHECK(fabs(out.e[0] + out.e[4] + out.e[8]) < 1e-15, "%s: deviatoric strain has trace %g", what,
          out.e[0] + out.e[4] + out.e[8]);
}

static void check_exact_shifts(void)
{
    double test_pc[3];
    clx_message msg;
    /* 5 um along x_s and y_s on 50 um pattern pixels: 0.1 px of source motion. */
    CHECK(clx_detector_shift(&detector, 5, -5, 50, test_pc, &msg) == CLX_OK, "detector shift: %s", msg.text);
    const double *pcs[2] = { NULL, test_pc };
    for (int p = 0; p < 2; p++) {
        char what[160];
        /* Pure strains, 1e-4 .. 2e-3, sample frame, with shears. */
        const double strains[] = { 1e-4, 5e-4, 1e-3, 2e-3 };
        for (int k = 0; k < 4; k++) {
            double s = strains[k];
            double beta[9] = { s, 0.3 * s, -0.2 * s, 0.3 * s, -0.6 * s, 0.5 * s, -0.2 * s, 0.5 * s, 0.25 * s };
            snprintf(what, sizeof what, "strain %g%s", s, p ? ", moved PC" : "");
            check_exact(what, beta, pcs[p]);
        }
        /* Pure rotations, 0.01 .. 5 degrees, as beta = R - I (a finite
         * rotation: sym(beta) is the second-order (cos - 1) part) and as
         * beta = W (antisymmetric). */
        const double angles[] = { 0.01, 0.1, 1, 3, 5 };
        const double axes[][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, -2, 0.5 } };
        for (int k = 0; k < 5; k++)
            for (int a = 0; a < 4; a++) {
                double beta[9];
                rotation(axes[a], angles[k] * M_PI / 180, beta);
                snprintf(what, sizeof what, "rotation %g deg about (%g, %g, %g)%s", angles[k], axes[a][0], axes[a][1],
                         axes[a][2], p ? ", moved PC" : "");
                check_exact(what, beta, pcs[p]);
                double th = angles[k] * M_PI / 180, n = sqrt(axes[a][0] * axes[a][0] + axes[a][1] * axes[a][1] +
                                                               axes[a][2] * axes[a][2]);
                double x = th * axes[a][0] / n, y = th * axes[a][1] / n, z = th * axes[a][2] / n;
                double wbeta[9] = { 0, -z, y, z, 0, -x, -y, x, 0 };
                snprintf(what, sizeof what, "W %g deg about (%g, %g, %g)%s", angles[k], axes[a][0], axes[a][1],
                         axes[a][2], p ? ", moved PC" : "");
                check_exact(what, wbeta, pcs[p]);
                /* The reported rotation vector of the rotation itself: w = (x, y, z). */
                if (k == 4 && a == 3) {
                    clx_result res[WINDOWS];
                    clx_strain out;
                    shifts(beta, pcs[p], res);
                    clx_strain_fit(&detector, pcs[p], NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, NULL);
                    double wexp[3] = { x, y, z };
                    CHECK(max_diff(out.w, wexp, 3) < 1e-8, "w of W: (%g, %g, %g)", out.w[0], out.w[1], out.w[2]);
                }
            }
        /* Mixtures: strain and rotation together. */
        for (int k = 0; k < 4; k++) {
            double beta[9];
            const double axis[3] = { 0.3, 1, -0.7 };
            rotation(axis, (1 + k) * 1.2 * M_PI / 180, beta);
            double s = strains[k];
            double strain[9] = { -s, 0.4 * s, 0.1 * s, 0.4 * s, 0.7 * s, -0.3 * s, 0.1 * s, -0.3 * s, 0.5 * s };
            double f[9], r[9];
            for (int i = 0; i < 9; i++) {
                r[i] = beta[i] + (i % 4 == 0 ? 1 : 0);
                strain[i] += i % 4 == 0 ? 1 : 0;
            }
            mul(r, strain, f); /* F = R (I + e) */
            for (int i = 0; i < 9; i++)
                beta[i] = f[i] - (i % 4 == 0 ? 1 : 0);
            snprintf(what, sizeof what, "strain %g with %g deg%s", s, (1 + k) * 1.2, p ? ", moved PC" : "");
            check_exact(what, beta, pcs[p]);
        }
    }

    printf("exact shifts: largest error %.3g (e, w, beta_d)\n", exact_worst);

    /* The doc's first-order formula q = beta r - ((beta r) . n / (r . n)) r
     * with beta_d33 = 0 for a tiny beta: the fit returns beta to first order
     * (second-order terms ~ |beta|^2). This ties the signs to the document. */
    double beta_d[9] = { 2e-6, -1e-6, 3e-6, 1.5e-6, -2.5e-6, 1e-6, 0.5e-6, -1.5e-6, 0 };
    double xpc = detector.pcx * detector.width - 0.5, ypc = detector.pcy * detector.height - 0.5;
    double L = detector.pcz * detector.height;
    clx_result res[WINDOWS];
    for (int i = 0; i < WINDOWS; i++) {
        double r[3] = { wx[i] - xpc, ypc - wy[i], L }, br[3];
        for (int k = 0; k < 3; k++)
            br[k] = beta_d[3 * k] * r[0] + beta_d[3 * k + 1] * r[1] + beta_d[3 * k + 2] * r[2];
        memset(&res[i], 0, sizeof res[i]);
        res[i].dx = br[0] - br[2] / r[2] * r[0];
        res[i].dy = -(br[1] - br[2] / r[2] * r[1]);   /* q's y is up the pattern */
    }
    clx_strain out;
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, NULL);
    CHECK(max_diff(out.beta_detector, beta_d, 9) < 1e-10, "first-order shifts: beta_d off by %g",
          max_diff(out.beta_detector, beta_d, 9));
}

/* ---- the pattern-centre shift --------------------------------------------- */

static void check_detector_shift(void)
{
    double pc[3];
    clx_message msg;
    /* kikuchipy 0.13.1's extrapolate_pc for this detector (px_size 50), the
     * centre at map point (0, 0) of a 2 x 2 map with 10 um steps: (0, 1) and
     * (1, 0) get these centres. */
    static const double next_column[3] = { 0.4995, 0.3, 0.6 }, next_row[3] = { 0.5, 0.29956698729810778, 0.60025 };
    CHECK(clx_detector_shift(&detector, 10, 0, 50, pc, &msg) == CLX_OK, "%s", msg.text);
    CHECK(max_diff(pc, next_column, 3) < 1e-15, "a column on: (%.15g, %.15g, %.15g)", pc[0], pc[1], pc[2]);
    CHECK(clx_detector_shift(&detector, 0, 10, 50, pc, &msg) == CLX_OK, "%s", msg.text);
    CHECK(max_diff(pc, next_row, 3) < 1e-15, "a row on: (%.15g, %.15g, %.15g)", pc[0], pc[1], pc[2]);
    CHECK(clx_detector_shift(&detector, 0, 10, 0, pc, &msg) == CLX_ERR_ARGUMENT && strstr(msg.text, "pixel size"),
          "zero pixel size: %s", msg.text);
    clx_detector bad = detector;
    bad.pcz = 0;
    CHECK(clx_detector_shift(&bad, 0, 10, 50, pc, &msg) == CLX_ERR_ARGUMENT && strstr(msg.text, "PCz"),
          "PCz 0: %s", msg.text);
}

/* ---- noise, the robust rule, too few windows ------------------------------- */

static void check_noise(void)
{
    uint64_t seed = 12345;
    double ss = 0;
    int count = 0, trials = 200;
    for (int t = 0; t < trials; t++) {
        double beta[9];
        for (int i = 0; i < 9; i++)
            beta[i] = 2e-3 * (td_uniform(&seed) - 0.5);
        clx_result res[WINDOWS];
        clx_strain out;
        double beta_d[9], e[9], w[3];
        shifts(beta, NULL, res);
        expected(beta, beta_d, e, w);
        for (int i = 0; i < WINDOWS; i++) {
            res[i].dx += 0.05 * gauss(&seed);
            res[i].dy += 0.05 * gauss(&seed);
        }
        clx_strain_options opt;
        clx_strain_options_init(&opt);
        opt.max_residual = INFINITY; /* every window: the noise alone */
        clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, &opt, &out, NULL);
        for (int i = 0; i < 9; i++) {
            ss += (out.e[i] - e[i]) * (out.e[i] - e[i]);
            count++;
        }
    }
    double rms = sqrt(ss / count);
    printf("0.05 px noise: strain error %.3g RMS over %d fits\n", rms, trials);
    CHECK(rms < 3e-4 && rms > 1e-6, "strain error %g RMS with 0.05 px noise", rms);
}

static void check_robust(void)
{
    double beta[9] = { 1e-3, 2e-4, 0, 2e-4, -5e-4, 1e-4, 0, 1e-4, -3e-4 };
    double axis[3] = { 1, 1, 0 }, rot[9];
    rotation(axis, 2 * M_PI / 180, rot);
    for (int i = 0; i < 9; i++)
        beta[i] += rot[i];
    clx_result res[WINDOWS];
    clx_strain out;
    double beta_d[9], e[9], w[3];
    shifts(beta, NULL, res);
    expected(beta, beta_d, e, w);
    /* Three windows 2 px off in different directions. */
    res[3].dx += 2;
    res[12].dy -= 2;
    res[21].dx += sqrt(2);
    res[21].dy += sqrt(2);
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, NULL);
    CHECK(out.flags == (CLX_STRAIN_DEVIATORIC | CLX_STRAIN_DROPPED) && out.windows == WINDOWS - 3,
          "robust: flags %u, windows %d", out.flags, out.windows);
    CHECK(max_diff(out.e, e, 9) < 1e-8 && max_diff(out.w, w, 3) < 1e-8 && out.residual < 1e-8,
          "robust: errors e %g, w %g, residual %g", max_diff(out.e, e, 9), max_diff(out.w, w, 3), out.residual);

    /* Windows flagged, or screened out by zncc and peak ratio, are not used. */
    shifts(beta, NULL, res);
    res[0].flags = 4;
    res[0].dx = 100;
    res[1].zncc = 0.1;
    res[1].dx = 100;
    res[2].peak_ratio = 0.5;
    res[2].dx = 100;
    res[3].zncc = 0.9;
    res[3].peak_ratio = 3;
    res[4].dy = NAN;
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, NULL);
    CHECK(out.flags == CLX_STRAIN_DEVIATORIC && out.windows == WINDOWS - 4 && max_diff(out.e, e, 9) < 1e-8,
          "screened: flags %u, windows %d, error %g", out.flags, out.windows, max_diff(out.e, e, 9));
}

static void check_few_and_singular(void)
{
    double beta[9] = { 1e-3, 0, 0, 0, -1e-3, 0, 0, 0, 0 };
    clx_result res[WINDOWS];
    clx_strain out;
    clx_message msg;
    shifts(beta, NULL, res);
    int status = clx_strain_fit(&detector, NULL, NULL, wx, wy, res, 3, NULL, NULL, &out, &msg);
    CHECK(status == CLX_OK && out.flags == CLX_STRAIN_FEW_WINDOWS && out.windows == 3 && isnan(out.e[0]) &&
              isnan(out.w[0]) && isnan(out.beta[0]) && isnan(out.beta_detector[0]) && isnan(out.residual),
          "3 windows: status %d, flags %u, windows %d, e11 %g", status, out.flags, out.windows, out.e[0]);
    /* The four corners: the fewest windows that fix beta, exactly. */
    {
        const int corners[4] = { 0, GRID - 1, WINDOWS - GRID, WINDOWS - 1 };
        double cx[4], cy[4], e[9], w[3], bd[9];
        clx_result cres[4];
        for (int i = 0; i < 4; i++) {
            cx[i] = wx[corners[i]];
            cy[i] = wy[corners[i]];
            cres[i] = res[corners[i]];
        }
        expected(beta, bd, e, w);
        clx_strain_fit(&detector, NULL, NULL, cx, cy, cres, 4, NULL, NULL, &out, NULL);
        CHECK(out.flags == CLX_STRAIN_DEVIATORIC && out.windows == 4 && max_diff(out.e, e, 9) < 1e-9,
              "4 corners: flags %u, error %g", out.flags, max_diff(out.e, e, 9));
    }
    /* 25 windows, 22 of them flagged. */
    for (int i = 3; i < WINDOWS; i++)
        res[i].flags = 1;
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, NULL);
    CHECK(out.flags == CLX_STRAIN_FEW_WINDOWS && out.windows == 3, "22 of 25 flagged: flags %u, windows %d",
          out.flags, out.windows);
    /* One row of the grid: y the same for every window. */
    shifts(beta, NULL, res);
    status = clx_strain_fit(&detector, NULL, NULL, wx, wy, res, GRID, NULL, NULL, &out, &msg);
    CHECK(status == CLX_OK && out.flags == CLX_STRAIN_SINGULAR && out.windows == GRID && isnan(out.e[4]),
          "one row: status %d, flags %u, windows %d, e22 %g", status, out.flags, out.windows, out.e[4]);
    /* One column. */
    double cx[GRID], cy[GRID];
    clx_result cres[GRID];
    for (int j = 0; j < GRID; j++) {
        cx[j] = wx[j * GRID + 2];
        cy[j] = wy[j * GRID + 2];
        cres[j] = res[j * GRID + 2];
    }
    clx_strain_fit(&detector, NULL, NULL, cx, cy, cres, GRID, NULL, NULL, &out, NULL);
    CHECK(out.flags == CLX_STRAIN_SINGULAR && isnan(out.w[0]), "one column: flags %u", out.flags);
    /* A diagonal line. */
    for (int j = 0; j < GRID; j++) {
        cx[j] = wx[j * GRID + j];
        cy[j] = wy[j * GRID + j];
        cres[j] = res[j * GRID + j];
    }
    clx_strain_fit(&detector, NULL, NULL, cx, cy, cres, GRID, NULL, NULL, &out, NULL);
    CHECK(out.flags == CLX_STRAIN_SINGULAR, "diagonal: flags %u", out.flags);

    /* Bad arguments. */
    clx_detector bad = detector;
    bad.pcz = -1;
    status = clx_strain_fit(&bad, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, &msg);
    CHECK(status == CLX_ERR_ARGUMENT && strstr(msg.text, "PCz") && isnan(out.e[0]), "PCz < 0: %d %s", status,
          msg.text);
    bad = detector;
    bad.width = 0;
    status = clx_strain_fit(&bad, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, &msg);
    CHECK(status == CLX_ERR_ARGUMENT && strstr(msg.text, "size"), "width 0: %d %s", status, msg.text);
    double pc[3] = { 0.5, NAN, 0.6 };
    status = clx_strain_fit(&detector, pc, NULL, wx, wy, res, WINDOWS, NULL, NULL, &out, &msg);
    CHECK(status == CLX_ERR_ARGUMENT && strstr(msg.text, "test pattern centre"), "NaN test PC: %d %s", status,
          msg.text);
    clx_strain_options opt;
    clx_strain_options_init(&opt);
    opt.min_windows = 3;
    status = clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, &opt, &out, &msg);
    CHECK(status == CLX_ERR_ARGUMENT && strstr(msg.text, "min_windows 3"), "min_windows 3: %d %s", status, msg.text);
    double nx[WINDOWS];
    memcpy(nx, wx, sizeof nx);
    nx[7] = INFINITY;
    status = clx_strain_fit(&detector, NULL, NULL, nx, wy, res, WINDOWS, NULL, NULL, &out, &msg);
    CHECK(status == CLX_ERR_ARGUMENT && strstr(msg.text, "window 7"), "infinite x: %d %s", status, msg.text);
}

/* ---- traction-free full strain --------------------------------------------- */

/* sigma_33 (sample frame) of strain e for the Voigt stiffness c in the crystal
 * frame and the sample-to-crystal rotation g: the 4th-order tensor rotated
 * into the sample frame, C_s ijkl = g_pi g_qj g_rk g_sl C_pqrs. */
static double sigma33(const double c[36], const double g[9], const double e[9])
{
    static const int voigt[3][3] = { { 0, 5, 4 }, { 5, 1, 3 }, { 4, 3, 2 } };
    double s = 0;
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) {
            double cs = 0;
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++)
                    for (int r = 0; r < 3; r++)
                        for (int t = 0; t < 3; t++)
                            cs += g[3 * p + 2] * g[3 * q + 2] * g[3 * r + k] * g[3 * t + l] *
                                  c[6 * voigt[p][q] + voigt[r][t]];
            s += cs * e[3 * k + l];
        }
    return s;
}

/* g = R_z(phi2) R_x(Phi) R_z(phi1), the passive rotations multiplied out. */
static void bunge(const double eu[3], double g[9])
{
    double c1 = cos(eu[0]), s1 = sin(eu[0]), c = cos(eu[1]), s = sin(eu[1]), c2 = cos(eu[2]), s2 = sin(eu[2]);
    double m[9] = { c1 * c2 - s1 * s2 * c,  s1 * c2 + c1 * s2 * c,  s2 * s,
                    -c1 * s2 - s1 * c2 * c, -s1 * s2 + c1 * c2 * c, c2 * s,
                    s1 * s,                 -c1 * s,                c };
    memcpy(g, m, sizeof m);
}

static void check_traction_free(void)
{
    double c[36];
    clx_message msg;
    CHECK(clx_stiffness_parse("cubic:165.7,63.9,79.6", c, &msg) == CLX_OK, "Si: %s", msg.text);
    clx_strain_options opt;
    clx_strain_options_init(&opt);
    opt.stiffness = c;

    /*
     * By hand: g = I (Euler 0, 0, 0), F = c (I + e0) with e0 = diag(1e-3,
     * -5e-4, -5e-4) plus e12 = 3e-4 and no rotation, so U = c (I + e0).
     * sigma_33(I) = 2 C12 + C11 = 293.5 GPa; sigma_33(e0) = C12 e11 +
     * C12 e22 + C11 e33 = 63.9e-3 - 31.95e-3 - 82.85e-3 = -50.9e-3 GPa (e12
     * gives no normal stress in a cubic crystal along its axes); sigma_33(c
     * (I + e0) - I) = 0 gives c = 293.5 / 293.4491, c - 1 = 1.73454272e-4,
     * and e = (c - 1) I + c e0: e11 = 1.17362773e-3, e22 = e33 =
     * -3.26632455e-4, e12 = 3.00052036e-4.
     */
    double beta_s0[9] = { 1e-3, 3e-4, 0, 3e-4, -5e-4, 0, 0, 0, -5e-4 };
    clx_result res[WINDOWS];
    clx_strain out;
    shifts(beta_s0, NULL, res);   /* shifts see F's direction only: any scale c gives them */
    const double euler0[3] = { 0, 0, 0 };
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, euler0, &opt, &out, &msg);
    const double lambda = 1.734542719675769e-4, c_scale = 1 + lambda;
    double e_hand[9] = { 1.1736277262395444e-3, 3.0005203628159023e-4, 0, 3.0005203628159023e-4,
                         -3.2663245516840686e-4, 0, 0, 0, -3.2663245516840686e-4 };
    CHECK(out.flags == 0 && max_diff(out.e, e_hand, 9) < 1e-12, "by hand: flags %u, e error %g (e33 %.12g)",
          out.flags, max_diff(out.e, e_hand, 9), out.e[8]);
    double w_hand[3] = { 0, 0, 0 };
    CHECK(max_diff(out.w, w_hand, 3) < 1e-12, "by hand: w (%g, %g, %g)", out.w[0], out.w[1], out.w[2]);
    /* beta and beta_detector are the same F - I with the scale c. */
    double bs[9];
    to_sample(out.beta_detector, bs);
    CHECK(max_diff(bs, out.beta, 9) < 1e-15 && fabs(out.beta[8] - (c_scale * (1 - 5e-4) - 1)) < 1e-12,
          "beta (%g) and beta_detector agree", out.beta[8]);

    /* A rotated crystal: sigma_33 of the full strain is zero with the
     * stiffness rotated here as a 4th-order tensor, and its deviatoric part
     * is that of e0. Also hexagonal (Ti). */
    const char *specs[2] = { "cubic:165.7,63.9,79.6", "hexagonal:162.4,92,69,180.7,46.7" };
    for (int k = 0; k < 2; k++) {
        double ck[36];
        CHECK(clx_stiffness_parse(specs[k], ck, &msg) == CLX_OK, "%s: %s", specs[k], msg.text);
        opt.stiffness = ck;
        const double euler[3] = { 0.4, 1.1, -0.7 };
        double g[9];
        bunge(euler, g);
        clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, euler, &opt, &out, &msg);
        double s33 = sigma33(ck, g, out.e);
        double tr = (out.e[0] + out.e[4] + out.e[8]) / 3, dev[9], dev0[9];
        memcpy(dev, out.e, sizeof dev);
        memcpy(dev0, beta_s0, sizeof dev0);   /* e0: its deviatoric part, to first order in c - 1 */
        for (int i = 0; i < 3; i++)
            dev[4 * i] -= tr;
        double tr0 = (dev0[0] + dev0[4] + dev0[8]) / 3;
        for (int i = 0; i < 3; i++)
            dev0[4 * i] -= tr0;
        /* e = c (I + e0) - I with tr e0 = 0: c = 1 + tr(e) / 3, dev e = c dev e0. */
        for (int i = 0; i < 9; i++)
            dev0[i] *= 1 + tr;
        CHECK(out.flags == 0 && fabs(s33) < 1e-12 && max_diff(dev, dev0, 9) < 1e-12 && fabs(tr) > 1e-6,
              "%s rotated: flags %u, sigma_33 %g GPa, deviatoric error %g, mean strain %g", specs[k], out.flags, s33,
              max_diff(dev, dev0, 9), tr);
    }

    /* NaN Euler angles, or no angles: deviatoric. */
    opt.stiffness = c;
    const double nan3[3] = { NAN, NAN, NAN };
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, nan3, &opt, &out, NULL);
    CHECK(out.flags == CLX_STRAIN_DEVIATORIC, "NaN Euler angles: flags %u", out.flags);
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, &opt, &out, NULL);
    CHECK(out.flags == CLX_STRAIN_DEVIATORIC, "no Euler angles: flags %u", out.flags);
}

/* ---- stiffness strings ----------------------------------------------------- */

static void check_stiffness(void)
{
    double c[36];
    clx_message msg;
    CHECK(clx_stiffness_parse("cubic:165.7, 63.9, 79.6", c, &msg) == CLX_OK, "cubic: %s", msg.text);
    CHECK(c[0] == 165.7 && c[7] == 165.7 && c[14] == 165.7 && c[1] == 63.9 && c[2] == 63.9 && c[8] == 63.9 &&
              c[6] == 63.9 && c[21] == 79.6 && c[28] == 79.6 && c[35] == 79.6 && c[3] == 0 && c[18] == 0,
          "cubic Voigt matrix");
    CHECK(clx_stiffness_parse("hexagonal:162.4,92,69,180.7,46.7", c, &msg) == CLX_OK, "hexagonal: %s", msg.text);
    CHECK(c[0] == 162.4 && c[1] == 92 && c[2] == 69 && c[8] == 69 && c[12] == 69 && c[14] == 180.7 &&
              c[21] == 46.7 && c[28] == 46.7 && fabs(c[35] - 35.2) < 1e-12,
          "hexagonal Voigt matrix (C66 %g)", c[35]);

    static const struct {
        const char *spec, *says;
    } bad[] = {
        { "cubic:1,2", "cubic needs 3 constants C11,C12,C44, found 2" },
        { "cubic:165.7,63.9,79.6,1", "found 4" },
        { "hexagonal:1,2,3", "hexagonal needs 5 constants C11,C12,C13,C33,C44, found 3" },
        { "cubic:165.7,abc,79.6", "C12 'abc' is not a number" },
        { "cubic:165.7,,79.6", "C12 '' is not a number" },
        { "cubic:165.7,63.9,79.6x", "C44 '79.6x' is not a number" },
        { "cubic:inf,63.9,79.6", "C11 'inf' is not a number" },
        { "tetragonal:1,2,3", "unknown symmetry 'tetragonal'" },
        { "165.7,63.9,79.6", "expected cubic:C11" },
        { "cubic:60,100,79.6", "not positive definite" },      /* C11 < C12 */
        { "cubic:165.7,63.9,-1", "not positive definite" },   /* C44 < 0 */
        { "cubic:100,-60,50", "not positive definite" },      /* C11 + 2 C12 < 0 */
        { "hexagonal:162.4,92,169,180.7,46.7", "not positive definite" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int k = 0; k < 36; k++)
            c[k] = -7;
        int status = clx_stiffness_parse(bad[i].spec, c, &msg);
        CHECK(status == CLX_ERR_ARGUMENT && strstr(msg.text, bad[i].says) && strstr(msg.text, bad[i].spec) &&
                  c[0] == -7,
              "'%s': status %d, message '%s' (wanted '%s')", bad[i].spec, status, msg.text, bad[i].says);
    }
    CHECK(clx_stiffness_parse(NULL, c, &msg) == CLX_ERR_ARGUMENT, "NULL spec");
}

/* ---- the remap homography -------------------------------------------------- */

/* h (u, v, 1), divided by its third component. */
static void apply_h(const double h[9], double u, double v, double out[2])
{
    double z = h[6] * u + h[7] * v + h[8];
    out[0] = (h[0] * u + h[1] * v + h[2]) / z;
    out[1] = (h[3] * u + h[4] * v + h[5]) / z;
}

static void check_remap(void)
{
    double h[9], m[9], zero[9] = { 0 };
    clx_remap_map(zero, 0, m);
    clx_remap_homography(&detector, NULL, m, h);
    double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    CHECK(max_diff(h, id, 9) < 1e-15, "identity beta: h off the identity by %g", max_diff(h, id, 9));
    double nan9[9];
    for (int i = 0; i < 9; i++)
        nan9[i] = NAN;
    for (int whole = 0; whole < 2; whole++) {
        clx_remap_map(nan9, whole, m);
        clx_remap_homography(&detector, NULL, m, h);
        CHECK(max_diff(h, id, 9) < 1e-15, "NaN beta (whole %d): h is the identity", whole);
    }
    clx_remap_homography(&detector, NULL, NULL, h);
    CHECK(max_diff(h, id, 9) < 1e-15, "no map: h is the identity");

    /* A rotation of 3 degrees, a test pattern of another centre pc: pixel
     * p looks from the reference's source along d = (u - xpc, ypc - v, L)
     * (detector frame, y up) and samples the test pattern where Rot d meets
     * the screen from the test pattern's source. */
    double pc[3] = { 0.48, 0.31, 0.62 };
    double xpc = detector.pcx * 400 - 0.5, ypc = detector.pcy * 400 - 0.5, L = detector.pcz * 400;
    double xpc1 = pc[0] * 400 - 0.5, ypc1 = pc[1] * 400 - 0.5, L1 = pc[2] * 400;
    double axis[3] = { 0.2, -1, 0.4 }, beta[9];
    rotation(axis, 3 * M_PI / 180, beta);
    clx_remap_map(beta, 0, m);
    clx_remap_homography(&detector, pc, m, h);
    double worst = 0;
    for (double u = 0; u <= 399; u += 57)
        for (double v = 0; v <= 399; v += 57) {
            double d[3] = { u - xpc, ypc - v, L }, rd[3], got[2];
            for (int i = 0; i < 3; i++)
                rd[i] = d[0] * (beta[3 * i] + (i == 0)) + d[1] * (beta[3 * i + 1] + (i == 1)) +
                        d[2] * (beta[3 * i + 2] + (i == 2));
            apply_h(h, u, v, got);
            worst = fmax(worst, fmax(fabs(got[0] - (xpc1 + L1 * rd[0] / rd[2])),
                                     fabs(got[1] - (ypc1 - L1 * rd[1] / rd[2]))));
        }
    CHECK(worst < 1e-9, "3 degree rotation: pixels off by %g", worst);

    /* Rotation and strain: K^-1 h K is the polar rotation of F = I + beta
     * (up to the scale of h): orthogonal, det 1, and Rot^T F symmetric. K
     * takes a direction to the pixel it meets: v = ypc - L d_y / d_z. */
    double f[9], strain[9] = { 1 + 2e-3, 1e-3, 0, 1e-3, 1 - 1e-3, 5e-4, 0, 5e-4, 1 };
    for (int i = 0; i < 9; i++)
        f[i] = beta[i] + (i % 4 == 0);
    mul(f, strain, f);
    double beta2[9];
    for (int i = 0; i < 9; i++)
        beta2[i] = f[i] - (i % 4 == 0);
    clx_remap_map(beta2, 0, m);
    clx_remap_homography(&detector, NULL, m, h);
    double xpc0 = 199.5, ypc0 = 119.5, L0 = 240;
    double k[9] = { L0, 0, xpc0, 0, -L0, ypc0, 0, 0, 1 }, k_inv[9] = { 1 / L0, 0, -xpc0 / L0, 0, -1 / L0, ypc0 / L0,
                                                                        0, 0, 1 };
    double rot[9], rt[9], rtr[9], u[9], ut[9];
    mul(k_inv, h, rot);
    mul(rot, k, rot);
    transpose(rot, rt);
    mul(rt, rot, rtr);
    mul(rt, f, u);
    transpose(u, ut);
    double rot_exp[9];
    for (int i = 0; i < 9; i++)
        rot_exp[i] = beta[i] + (i % 4 == 0);
    CHECK(max_diff(rtr, id, 9) < 1e-12 && max_diff(u, ut, 9) < 1e-12 && max_diff(rot, rot_exp, 9) < 1e-12,
          "strained: Rot^T Rot - I %g, Rot^T F asymmetric by %g, Rot off R by %g", max_diff(rtr, id, 9),
          max_diff(u, ut, 9), max_diff(rot, rot_exp, 9));
}

/* 4 degrees and a strain, fitted directly, then again as the pattern
 * remapped by the first fit (its rotation, then its whole F): the same e
 * and w, as the fit composes F = M F_remapped. */
static void check_remapped_fit(void)
{
    double beta[9], f_s[9], strain[9] = { 1 + 1e-3, 4e-4, -2e-4, 4e-4, 1 - 6e-4, 3e-4, -2e-4, 3e-4, 1 + 2e-4 };
    const double axis[3] = { 0.5, 1, -0.3 };
    rotation(axis, 4 * M_PI / 180, beta);
    for (int i = 0; i < 9; i++)
        f_s[i] = beta[i] + (i % 4 == 0);
    mul(f_s, strain, f_s);
    for (int i = 0; i < 9; i++)
        beta[i] = f_s[i] - (i % 4 == 0);
    double bd_exp[9], e_exp[9], w_exp[3];
    expected(beta, bd_exp, e_exp, w_exp);
    clx_result res[WINDOWS];
    clx_strain first, again;
    shifts(beta, NULL, res);
    clx_strain_fit(&detector, NULL, NULL, wx, wy, res, WINDOWS, NULL, NULL, &first, NULL);
    for (int whole = 0; whole < 2; whole++) {
        double m[9], m_inv[9], f_d[9], bd[9], f_rem[9], b_rem[9];
        clx_remap_map(first.beta_detector, whole, m);
        to_detector(beta, bd);
        for (int i = 0; i < 9; i++)
            f_d[i] = bd[i] + (i % 4 == 0);
        /* The inverse of M: M is a rotation, or F itself (I for F^-1 F). */
        if (whole) {
            double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                         m[2] * (m[3] * m[7] - m[4] * m[6]);
            double cof_t[9] = { m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                                m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                                m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3] };
            for (int i = 0; i < 9; i++)
                m_inv[i] = cof_t[i] / det;
        } else
            transpose(m, m_inv);
        mul(m_inv, f_d, f_rem);
        for (int i = 0; i < 9; i++)
            f_rem[i] -= (i % 4 == 0);
        to_sample(f_rem, b_rem);
        shifts(b_rem, NULL, res);
        clx_strain_fit(&detector, NULL, m, wx, wy, res, WINDOWS, NULL, NULL, &again, NULL);
        CHECK(max_diff(again.e, e_exp, 9) < 1e-9 && max_diff(again.w, w_exp, 3) < 1e-9,
              "remapped by the %s: e off by %g, w by %g", whole ? "whole F" : "rotation", max_diff(again.e, e_exp, 9),
              max_diff(again.w, w_exp, 3));
    }
}

int main(void)
{
    grid();
    check_detector_shift();
    check_exact_shifts();
    check_noise();
    check_robust();
    check_few_and_singular();
    check_traction_free();
    check_stiffness();
    check_remap();
    check_remapped_fit();
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
