/*
 * strain_fit.c - beta from one pattern's window shifts by least squares
 * (clx_strain_fit), and what is reported from it in the sample frame.
 *
 * The fit solves for F = I + beta (detector frame) with beta_33 = 0. The
 * shifts fix F only up to a factor (a dilatation does not move a gnomonic
 * pattern), so beta_33 = 0 means F_33 = 1: the doc's "beta + lambda I" is the
 * first-order form of that freedom.
 *
 * The model is the exact one, not the first-order
 * q = beta r - ((beta r) . n / (r . n)) r of doc/hrebsd-conventions.md. In
 * screen coordinates (detector.h: pixel (u, v) at (u, -v), the source at
 * (x0, y0, -L)), the feature the reference sees along r = (X - x0, Y - y0,
 * L) is seen along F r from the test pattern's source (x0', y0', -L'), so at
 *     (x0', y0') + L' ((F r)_x, (F r)_y) / (F r)_z
 * and its shift is that minus (X, Y). With F = I this is the doc's
 * pattern-centre shift s(r) exactly; to first order in beta and in the
 * source's displacement it is s(r) + beta r - ((beta r) . n / (r . n)) r, the
 * doc's formula. The exact form is what patterns made as the doc says (a
 * test pattern of centre pc' whose intensity along d is the reference's
 * along F^-1 d; kikuchipy's projection, tests/data/hrebsd) give, so that
 * they are recovered to rounding, rotations of several degrees included.
 * Gauss-Newton on it from beta = 0 (the first step is the linear fit)
 * converges in 3-5 steps.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/message.h"
#include "strain/detector.h"
#include "strain/frames.h"
#include "strain/stiffness.h"

#define UNKNOWNS 8          /* beta_11 .. beta_32 row-major: beta_33 = 0 */
#define MAX_STEPS 30        /* Gauss-Newton steps (3-5 are usual) */
#define STEP_TOLERANCE 1e-12 /* a step whose largest component is below ends the iteration */
/* A pivot of the column-scaled, pivoted QR factor below this times the first
 * one: the windows do not fix beta (reciprocal condition number). */
#define RCOND_MIN 1e-9

void clx_strain_options_init(clx_strain_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->min_zncc = 0.2;
    o->min_peak_ratio = 1.0;
    o->residual_factor = 3;
    o->max_residual = 0.1;
    o->min_windows = 4;
    o->stiffness = NULL;
}

struct window {
    double r[3];      /* direction from the reference's source, px */
    double x, y;      /* centre in the reference, screen coordinates, px */
    double q[2];      /* measured shift, screen coordinates, px */
    double residual;  /* |q - model| of the last fit, px */
    int used;
};

struct fit {
    struct screen ref, test;
    struct window *w;
    size_t n;
    double *a, *b;    /* 2 used x UNKNOWNS (column-major) and 2 used, the solver's scratch */
};

/* The predicted shift of window w for beta (UNKNOWNS components), and its
 * derivatives (row-major 2 x UNKNOWNS) when jac is not NULL. Returns -1 when
 * F r points away from the screen (a step gone wild). */
static int model(const struct fit *fit, const double *beta, const struct window *w, double f[2], double *jac)
{
    const double *r = w->r;
    double v[3];
    for (int i = 0; i < 3; i++)
        v[i] = r[i] + beta[3 * i] * r[0] + beta[3 * i + 1] * r[1] + (i < 2 ? beta[3 * i + 2] * r[2] : 0);
    if (!(v[2] > 0))
        return -1;
    double L1 = fit->test.L;
    f[0] = fit->test.x0 + L1 * v[0] / v[2] - w->x;
    f[1] = fit->test.y0 + L1 * v[1] / v[2] - w->y;
    if (jac) {
        memset(jac, 0, 2 * UNKNOWNS * sizeof *jac);
        for (int k = 0; k < 3; k++) {
            jac[k] = L1 * r[k] / v[2];                  /* d f_x / d beta_1k */
            jac[UNKNOWNS + 3 + k] = L1 * r[k] / v[2];   /* d f_y / d beta_2k */
        }
        for (int k = 0; k < 2; k++) {
            jac[6 + k] = -L1 * v[0] * r[k] / (v[2] * v[2]);             /* d f_x / d beta_3k */
            jac[UNKNOWNS + 6 + k] = -L1 * v[1] * r[k] / (v[2] * v[2]);  /* d f_y / d beta_3k */
        }
    }
    return 0;
}

/*
 * Least squares min |a x - b| for m x UNKNOWNS a (column-major, destroyed)
 * and b (destroyed), by Householder QR with column pivoting on the columns
 * scaled to unit length. Returns -1 when the reciprocal condition estimate
 * |R_kk| / |R_00| falls below RCOND_MIN.
 */
static int least_squares(double *a, double *b, size_t m, double x[UNKNOWNS])
{
    double scale[UNKNOWNS], rdiag[UNKNOWNS];
    int perm[UNKNOWNS];
    for (int j = 0; j < UNKNOWNS; j++) {
        double s = 0;
        for (size_t i = 0; i < m; i++)
            s += a[j * m + i] * a[j * m + i];
        if (!(s > 0) || !isfinite(s))
            return -1;
        scale[j] = 1 / sqrt(s);
        for (size_t i = 0; i < m; i++)
            a[j * m + i] *= scale[j];
        perm[j] = j;
    }
    for (int k = 0; k < UNKNOWNS; k++) {
        /* Pivot: the remaining column longest below row k. */
        int p = k;
        double best = -1;
        for (int j = k; j < UNKNOWNS; j++) {
            double s = 0;
            for (size_t i = (size_t)k; i < m; i++)
                s += a[j * m + i] * a[j * m + i];
            if (s > best) {
                best = s;
                p = j;
            }
        }
        if (p != k) {
            for (size_t i = 0; i < m; i++) {
                double t = a[k * m + i];
                a[k * m + i] = a[p * m + i];
                a[p * m + i] = t;
            }
            int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        double *col = a + (size_t)k * m;
        double norm = sqrt(best);
        if (!(norm > 0) || (k > 0 && norm < RCOND_MIN * fabs(rdiag[0])))
            return -1;
        double alpha = col[k] > 0 ? -norm : norm;
        /* v = x - alpha e_k in col[k..m); H = I - v v^T / (v^T v / ...): tau form. */
        col[k] -= alpha;
        double vtv = 0;
        for (size_t i = (size_t)k; i < m; i++)
            vtv += col[i] * col[i];
        for (int j = k + 1; j < UNKNOWNS; j++) {
            double *cj = a + (size_t)j * m, s = 0;
            for (size_t i = (size_t)k; i < m; i++)
                s += col[i] * cj[i];
            s *= 2 / vtv;
            for (size_t i = (size_t)k; i < m; i++)
                cj[i] -= s * col[i];
        }
        double s = 0;
        for (size_t i = (size_t)k; i < m; i++)
            s += col[i] * b[i];
        s *= 2 / vtv;
        for (size_t i = (size_t)k; i < m; i++)
            b[i] -= s * col[i];
        rdiag[k] = alpha;
    }
    double z[UNKNOWNS];
    for (int k = UNKNOWNS - 1; k >= 0; k--) {
        double s = b[k];
        for (int j = k + 1; j < UNKNOWNS; j++)
            s -= a[(size_t)j * m + (size_t)k] * z[j];
        z[k] = s / rdiag[k];
    }
    for (int k = 0; k < UNKNOWNS; k++)
        x[perm[k]] = z[k] * scale[perm[k]];
    return 0;
}

/* Gauss-Newton over the used windows from beta = 0; fills each window's
 * residual and *rms. Returns -1 when the windows do not fix beta. */
static int fit_solve(struct fit *fit, double beta[UNKNOWNS], double *rms)
{
    size_t used = 0;
    for (size_t i = 0; i < fit->n; i++)
        used += (size_t)fit->w[i].used;
    size_t m = 2 * used;
    for (int j = 0; j < UNKNOWNS; j++)
        beta[j] = 0;
    int converged = 0;
    for (int step = 0; step < MAX_STEPS && !converged; step++) {
        size_t row = 0;
        for (size_t i = 0; i < fit->n; i++) {
            const struct window *w = &fit->w[i];
            if (!w->used)
                continue;
            double f[2], jac[2 * UNKNOWNS];
            if (model(fit, beta, w, f, jac))
                return -1;
            for (int c = 0; c < 2; c++) {
                for (int j = 0; j < UNKNOWNS; j++)
                    fit->a[(size_t)j * m + row] = jac[c * UNKNOWNS + j];
                fit->b[row] = w->q[c] - f[c];
                row++;
            }
        }
        double delta[UNKNOWNS], largest = 0;
        if (least_squares(fit->a, fit->b, m, delta))
            return -1;
        for (int j = 0; j < UNKNOWNS; j++) {
            beta[j] += delta[j];
            largest = fmax(largest, fabs(delta[j]));
        }
        if (!isfinite(largest))
            return -1;
        converged = largest < STEP_TOLERANCE;
    }
    double ss = 0;
    for (size_t i = 0; i < fit->n; i++) {
        struct window *w = &fit->w[i];
        double f[2];
        if (!w->used)
            continue;
        if (model(fit, beta, w, f, NULL))
            return -1;
        w->residual = hypot(w->q[0] - f[0], w->q[1] - f[1]);
        ss += w->residual * w->residual;
    }
    *rms = sqrt(ss / (double)used);
    return 0;
}

static void strain_nan(clx_strain *out)
{
    for (int i = 0; i < 9; i++)
        out->e[i] = out->beta[i] = out->beta_detector[i] = NAN;
    for (int i = 0; i < 3; i++)
        out->w[i] = NAN;
    out->residual = NAN;
}

/* The rotation vector (axis times angle, radians) of the rotation r. */
static void rotation_vector(const double r[9], double w[3])
{
    double a[3] = { 0.5 * (r[7] - r[5]), 0.5 * (r[2] - r[6]), 0.5 * (r[3] - r[1]) };   /* sin(angle) axis */
    double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), c = 0.5 * (r[0] + r[4] + r[8] - 1);
    double angle = atan2(s, c), scale = s > 1e-300 ? angle / s : 1;
    for (int i = 0; i < 3; i++)
        w[i] = a[i] * scale;
}

/*
 * e, w and the scale of F from f_d, the deformation gradient the shifts fix
 * (detector frame, any scale: the fit's has F_33 = 1). In the sample frame
 * F_s = R U (polar decomposition): the strain is U - I (the stretch, free
 * of the rotation however large: sym(F - I) would carry a rotation's
 * second-order part, 1.5e-4 at 1 degree) and w is R's rotation vector.
 * The shifts do not fix F's scale c: by default e = 3 U / tr U - I, the
 * deviatoric strain whatever c; with a stiffness and an orientation, c takes sigma_33(c U - I) to zero
 * (a traction-free surface, sample frame), and e = c U - I.
 */
static int strain_report(const clx_detector *d, const double f_d[9], const double euler[3], const double *stiffness,
                         clx_strain *out)
{
    double r_ds[9], f_s[9], rot[9], rot_t[9], u[9], id[9];
    frames_detector_to_sample(d->sample_tilt, d->detector_tilt, r_ds);
    mat3_rotate(r_ds, f_d, f_s);
    if (mat3_polar_rotation(f_s, rot) != 0)
        return -1;
    mat3_transpose(rot, rot_t);
    mat3_mul(rot_t, f_s, u);
    /* U is symmetric up to rounding: make it so. */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            u[3 * i + j] = u[3 * j + i] = 0.5 * (u[3 * i + j] + u[3 * j + i]);
    mat3_identity(id);
    double scale = NAN;
    if (stiffness && euler && isfinite(euler[0]) && isfinite(euler[1]) && isfinite(euler[2])) {
        double g[9], s_u[9], s_i[9];
        frames_bunge(euler, g);
        stiffness_stress(stiffness, g, u, s_u);
        stiffness_stress(stiffness, g, id, s_i);
        if (s_u[8] != 0 && isfinite(s_u[8]) && isfinite(s_i[8]))
            scale = s_i[8] / s_u[8];
    }
    double e[9];
    if (isfinite(scale) && scale > 0) {
        for (int i = 0; i < 9; i++)
            e[i] = scale * u[i] - id[i];
    } else {
        /* U's scale is not known: the deviatoric strain of U scaled to a
         * mean stretch of 1, 3 U / tr U - I (trace 0, the same for any c). */
        double mean = 3 / (u[0] + u[4] + u[8]);
        for (int i = 0; i < 9; i++)
            e[i] = mean * u[i] - id[i];
        scale = 1;   /* beta as fitted: F_33 = 1 in the detector frame */
        out->flags |= CLX_STRAIN_DEVIATORIC;
    }
    memcpy(out->e, e, sizeof e);
    rotation_vector(rot, out->w);
    for (int i = 0; i < 9; i++) {
        out->beta_detector[i] = scale * f_d[i] - id[i];
        out->beta[i] = scale * f_s[i] - id[i];
    }
    return 0;
}

/* The arguments clx_strain_fit refuses, options already defaulted. */
static int fit_arguments_check(const clx_detector *reference, const double test_pc[3], const double *x,
                               const double *y, const clx_result *results, size_t n,
                               const clx_strain_options *options, clx_message *msg)
{
    int status = detector_check(reference, msg);
    if (status)
        return status;
    if (n > 0 && (!x || !y || !results))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "strain fit: no window centres or results");
    clx_message why;
    if (test_pc && clx_detector_pc_check(test_pc, &why) != CLX_OK)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "strain fit: test %s", why.text);
    if (options->min_windows < 4)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "strain fit: min_windows %d: at least 4 windows fix beta",
                        options->min_windows);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return msg_fail(msg, CLX_ERR_ARGUMENT, "strain fit: window %zu's centre (%g, %g) is not finite", i, x[i],
                            y[i]);
    return CLX_OK;
}

/* The screens of both patterns and room for n windows and the solver. */
static int fit_alloc(struct fit *fit, const clx_detector *reference, const double test_pc[3], size_t n,
                     clx_message *msg)
{
    *fit = (struct fit){ .n = n };
    screen_from_pc(reference, NULL, &fit->ref);
    screen_from_pc(reference, test_pc, &fit->test);
    fit->w = malloc((n ? n : 1) * sizeof *fit->w);
    fit->a = malloc((n ? 2 * n : 1) * (UNKNOWNS + 1) * sizeof *fit->a);
    if (!fit->w || !fit->a) {
        free(fit->w);
        free(fit->a);
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "strain fit: out of memory for %zu windows", n);
    }
    fit->b = fit->a + 2 * n * UNKNOWNS;
    return CLX_OK;
}

static void fit_free(struct fit *fit)
{
    free(fit->w);
    free(fit->a);
}

/* Each window's direction and shift; those whose correlation the options
 * trust are used. Returns how many are. */
static int fit_windows_set(struct fit *fit, const double *x, const double *y, const clx_result *results,
                           const clx_strain_options *options)
{
    int usable = 0;
    for (size_t i = 0; i < fit->n; i++) {
        const clx_result *res = &results[i];
        struct window *w = &fit->w[i];
        double centre[2];
        screen_point(x[i], y[i], centre);
        w->x = centre[0];
        w->y = centre[1];
        w->r[0] = w->x - fit->ref.x0;
        w->r[1] = w->y - fit->ref.y0;
        w->r[2] = fit->ref.L;
        screen_point(res->dx, res->dy, w->q);
        w->residual = NAN;
        /* The median test (CLX_FLAG_OUTLIER) assumes a field that varies
         * little between neighbouring windows; a rotated pattern's shifts
         * vary by pixels across it, and the test rejects sound windows (a
         * third of them at 2 degrees). The fit's own robust rule below
         * judges each window against the projective model instead. */
        w->used = (res->flags & ~CLX_FLAG_OUTLIER) == 0 && isfinite(res->dx) && isfinite(res->dy) &&
                  !(res->zncc < options->min_zncc) && !(res->peak_ratio < options->min_peak_ratio);
        usable += w->used;
    }
    return usable;
}

/*
 * The robust rule: drop the worst window while it stands out from the
 * others, refitting beta and *rms after each drop. Its residual is compared
 * with the RMS residual of the other windows: with its own in the RMS, k
 * similar outliers among N windows hide each other (each holds about 1/k of
 * the sum of squares, and exceeding 3 RMS needs more than 9/N of it: 3 of 25
 * windows 2 px off are never dropped). A drop that would leave windows not
 * fixing beta is taken back. Flags out and counts its windows.
 */
static void fit_outliers_drop(struct fit *fit, int usable, const clx_strain_options *options,
                              double beta[UNKNOWNS], double *rms, clx_strain *out)
{
    for (int count = usable; count > options->min_windows; count--) {
        size_t worst = 0;
        double largest = -1;
        for (size_t i = 0; i < fit->n; i++)
            if (fit->w[i].used && fit->w[i].residual > largest) {
                largest = fit->w[i].residual;
                worst = i;
            }
        double others = sqrt(fmax(0, *rms * *rms * count - largest * largest) / (count - 1));
        if (!(largest > options->residual_factor * others && largest > options->max_residual))
            break;
        double kept[UNKNOWNS], kept_rms = *rms;
        memcpy(kept, beta, sizeof kept);
        fit->w[worst].used = 0;
        if (fit_solve(fit, beta, rms)) {
            fit->w[worst].used = 1;
            memcpy(beta, kept, sizeof kept);
            *rms = kept_rms;
            break;
        }
        out->flags |= CLX_STRAIN_DROPPED;
        out->windows = count - 1;
    }
}

/* F of the test pattern from the fitted beta. F of the pattern as
 * correlated has beta_33 = 0: F_33 = 1; a pattern remapped by the map M is
 * the test pattern seen through M^-1, so the test pattern's F is M F. */
static void fit_deformation(const double beta[UNKNOWNS], const double remapped_by[9], double f_test[9])
{
    double f_d[9];
    for (int i = 0; i < 9; i++)
        f_d[i] = (i < UNKNOWNS ? beta[i] : 0) + (i % 4 == 0 ? 1 : 0);
    if (remapped_by)
        mat3_mul(remapped_by, f_d, f_test);
    else
        memcpy(f_test, f_d, sizeof f_d);
}

int clx_strain_fit(const clx_detector *reference, const double test_pc[3], const double remapped_by[9],
                   const double *x, const double *y, const clx_result *results, size_t n, const double euler[3],
                   const clx_strain_options *options, clx_strain *out, clx_message *msg)
{
    if (!out)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "strain fit: no output");
    memset(out, 0, sizeof *out);
    strain_nan(out);
    clx_strain_options defaults;
    if (!options) {
        clx_strain_options_init(&defaults);
        options = &defaults;
    }
    struct fit fit;
    int status = fit_arguments_check(reference, test_pc, x, y, results, n, options, msg);
    if (status == CLX_OK)
        status = fit_alloc(&fit, reference, test_pc, n, msg);
    if (status != CLX_OK)
        return status;

    /* Too few windows or a singular fit is a result (flags), not an error. */
    int usable = fit_windows_set(&fit, x, y, results, options);
    double beta[UNKNOWNS], rms, f_test[9];
    out->windows = usable;
    if (usable < options->min_windows)
        out->flags |= CLX_STRAIN_FEW_WINDOWS;
    else if (fit_solve(&fit, beta, &rms))
        out->flags |= CLX_STRAIN_SINGULAR;
    else {
        fit_outliers_drop(&fit, usable, options, beta, &rms, out);
        fit_deformation(beta, remapped_by, f_test);
        if (strain_report(reference, f_test, euler, options->stiffness, out) == 0) {
            out->residual = rms;
        } else {
            strain_nan(out);
            out->flags |= CLX_STRAIN_SINGULAR;
        }
    }
    fit_free(&fit);
    msg_clear(msg);
    return CLX_OK;
}
