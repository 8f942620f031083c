/* kikuchi.c - the Kikuchi-sphere model of clxcorr-samples --kikuchi and its
 * projection onto the detector (doc/hrebsd-conventions.md's frames).
 *
 * The crystal. Cubic, face-centred: every reflection hkl with h, k, l all
 * odd or all even and N = h^2 + k^2 + l^2 <= 40 ({111} {200} {220} {311}
 * {222} {400} {331} {420} {422} {333}/{511} {440} {531} {600}/{442} {620}),
 * one band per +-g pair: 141 bands. Higher orders of a plane ({222} on
 * {111}) are bands of their own, nested in the first, as in real patterns.
 * The lattice parameter does not matter: widths are set by |g| directly.
 *
 * A band. For a unit crystal direction c, x = asin(c . n) is the angle from
 * the plane (n the unit plane normal). The band hkl has the Bragg half-width
 * theta = 0.012 sqrt(N) rad (proportional to |g|, as Bragg's law has it for
 * small angles) and contributes
 *
 *     A (top(x) - DARK (line(x - xd) + line(x + xd))),
 *     top(x)  = (tanh((theta - x) / SOFT) + tanh((theta + x) / SOFT)) / 2,
 *     line(y) = exp(-y^2 / (2 LINE^2)),  xd = theta + SOFT + 1.2 LINE:
 *
 * a flat-topped bright band with soft edges and a thin dark line outside
 * each edge, A = 0.9 / N (so {111} 0.3, {620} 0.0225). The edges and lines
 * have fixed angular widths (SOFT = 0.0045 rad, LINE = 0.005 rad), about
 * one pixel at the pattern centre of a 300 px pattern at PCz 0.65 and more
 * everywhere else, so that point samples do not alias; the many narrow
 * edges and lines of the weak high-order bands are the fine structure that
 * gives the correlation a sharp peak. The sum is a smooth function of c.
 *
 * The background: a broad elliptical Gaussian on a floor, centred a fifth of
 * the height below the reference's pattern centre, in detector pixels. It is
 * fixed to the detector (a property of the geometry), so it neither deforms
 * nor follows a pattern centre that moves across the scan.
 *
 * The projection. Pixel (u, v) of a pattern with centre (xpc, ypc, L)
 * (pixels) looks along r = (u - xpc, ypc - v, L) (kikuchipy's detector
 * frame: x right, y up the pattern, z from the sample through the screen,
 * the pattern seen from behind the screen); in the sample frame R_ds r; the deformed crystal F = I + beta_s shows there what
 * the reference shows along F^-1 R_ds r; the crystal sees it along
 * c = g F^-1 R_ds r / |g F^-1 R_ds r|, g Bunge's passive rotation. So the
 * reference (F = I) and the deformed patterns come from the same function
 * of c, exactly, with no interpolation.
 */
#include "kikuchi.h"

#include <math.h>
#include <stdlib.h>

#define MAX_N 40            /* the largest h^2 + k^2 + l^2 */
#define THETA_PER_G 0.012   /* Bragg half-width per unit |g| (|g| = sqrt(N)), rad */
#define AMP_111 0.3         /* {111}'s amplitude; A = AMP_111 * 3 / N */
#define SOFT 0.0045         /* tanh scale of the band edges, rad */
#define LINE 0.005          /* sigma of the dark edge lines, rad */
#define DARK 0.35           /* depth of the dark lines, relative to A */
#define REACH_LINES 6.0     /* a band is evaluated to xd + this many LINE */

#define BG_FLOOR 0.35       /* background far from the hump, relative to its top */
#define BG_BELOW 0.2        /* hump centre below the pattern centre, in heights */
#define BG_SIGMA_X 0.55     /* hump sigma across, in widths */
#define BG_SIGMA_Y 0.45     /* ... and down, in heights */

static const double DEG = 3.14159265358979323846 / 180.0;

struct kikuchi_model {
    double g[9];            /* sample -> crystal */
    int nbands;
    /* Structure of arrays: the per-pixel loop over all bands is dot products. */
    double *nx, *ny, *nz;   /* unit plane normals, crystal frame */
    double *theta, *amp, *line_at, *reach_sin;
};

/* ------------------------------------------------------------------------ */
/* 3x3 helpers */

void kikuchi_multiply(const double a[9], const double b[9], double out[9])
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    for (int i = 0; i < 9; i++)
        out[i] = t[i];
}

void kikuchi_transpose(const double a[9], double out[9])
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * j + i] = a[3 * i + j];
    for (int i = 0; i < 9; i++)
        out[i] = t[i];
}

double kikuchi_inverse(const double a[9], double out[9])
{
    double c[9] = {
        a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
        a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
        a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3],
    };
    double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
    if (det == 0.0)
        return 0.0;
    for (int i = 0; i < 9; i++)
        out[i] = c[i] / det;
    return det;
}

/* ------------------------------------------------------------------------ */
/* Frames */

void kikuchi_detector_to_sample(double sample_tilt_deg, double detector_tilt_deg, double r[9])
{
    /* kikuchipy's EBSDDetector.sample_to_detector, transposed (columns x_d,
     * y_d, z_d in the sample frame), a = sigma - theta. */
    double a = (sample_tilt_deg - detector_tilt_deg) * DEG, c = cos(a), s = sin(a);
    double m[9] = { 0, -s, c, 1, 0, 0, 0, c, s };
    for (int i = 0; i < 9; i++)
        r[i] = m[i];
}

void kikuchi_ray(const double pc_pixels[3], double u, double v, double r[3])
{
    r[0] = u - pc_pixels[0];
    r[1] = pc_pixels[1] - v;
    r[2] = pc_pixels[2];
}

void kikuchi_bunge(const double euler_rad[3], double g[9])
{
    double c1 = cos(euler_rad[0]), s1 = sin(euler_rad[0]);
    double c = cos(euler_rad[1]), s = sin(euler_rad[1]);
    double c2 = cos(euler_rad[2]), s2 = sin(euler_rad[2]);
    double z1[9] = { c1, s1, 0, -s1, c1, 0, 0, 0, 1 };
    double x[9] = { 1, 0, 0, 0, c, s, 0, -s, c };
    double z2[9] = { c2, s2, 0, -s2, c2, 0, 0, 0, 1 };
    kikuchi_multiply(z2, x, g);
    kikuchi_multiply(g, z1, g);
}

void kikuchi_pc_pixels(const struct kikuchi_geometry *geometry, double pcx, double pcy, double pcz,
                       double *xpc, double *ypc, double *distance)
{
    *xpc = pcx * geometry->width - 0.5;
    *ypc = pcy * geometry->height - 0.5;
    *distance = pcz * geometry->height;
}

void kikuchi_pc_shift(const struct kikuchi_geometry *geometry, double x_um, double y_um,
                      double pixel_um, double pc[3])
{
    double rds[9], xpc, ypc, distance;
    kikuchi_detector_to_sample(geometry->sample_tilt, geometry->detector_tilt, rds);
    kikuchi_pc_pixels(geometry, geometry->pcx, geometry->pcy, geometry->pcz, &xpc, &ypc, &distance);
    /* The map's columns run along -y_s, its rows along -x_s (kikuchipy's
     * extrapolate_pc): p has sample components (-Y, -X, 0); p_d = R_ds^T p,
     * and the centre moves by p_d's x right and its y up the pattern. */
    double pd[3];
    for (int i = 0; i < 3; i++)
        pd[i] = -(rds[i] * y_um + rds[3 + i] * x_um) / pixel_um;
    pc[0] = (xpc + pd[0] + 0.5) / geometry->width;
    pc[1] = (ypc - pd[1] + 0.5) / geometry->height;
    pc[2] = (distance - pd[2]) / geometry->height;
}

/* ------------------------------------------------------------------------ */
/* The crystal */

/* FCC reflections: h, k, l all odd or all even. */
static int fcc_allowed(int h, int k, int l)
{
    int odd = (h & 1) + (k & 1) + (l & 1);
    return odd == 0 || odd == 3;
}

/* One of each +-g pair: the first non-zero index positive. */
static int canonical(int h, int k, int l)
{
    return h > 0 || (h == 0 && (k > 0 || (k == 0 && l > 0)));
}

struct kikuchi_model *kikuchi_model_create(const double euler_deg[3])
{
    struct kikuchi_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    double euler[3] = { euler_deg[0] * DEG, euler_deg[1] * DEG, euler_deg[2] * DEG };
    kikuchi_bunge(euler, m->g);
    int lim = (int)sqrt((double)MAX_N), cap = (2 * lim + 1) * (2 * lim + 1) * (2 * lim + 1);
    double **arrays[] = { &m->nx, &m->ny, &m->nz, &m->theta, &m->amp, &m->line_at, &m->reach_sin };
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) {
        *arrays[a] = malloc(sizeof(double) * cap);
        if (!*arrays[a]) {
            kikuchi_model_free(m);
            return NULL;
        }
    }
    for (int h = -lim; h <= lim; h++)
        for (int k = -lim; k <= lim; k++)
            for (int l = -lim; l <= lim; l++) {
                int n2 = h * h + k * k + l * l;
                if (n2 == 0 || n2 > MAX_N || !fcc_allowed(h, k, l) || !canonical(h, k, l))
                    continue;
                double len = sqrt((double)n2);
                int b = m->nbands++;
                m->nx[b] = h / len;
                m->ny[b] = k / len;
                m->nz[b] = l / len;
                m->theta[b] = THETA_PER_G * len;
                m->amp[b] = AMP_111 * 3.0 / n2;
                m->line_at[b] = m->theta[b] + SOFT + 1.2 * LINE;
                m->reach_sin[b] = sin(m->line_at[b] + REACH_LINES * LINE);
            }
    return m;
}

void kikuchi_model_free(struct kikuchi_model *m)
{
    if (!m)
        return;
    free(m->nx);
    free(m->ny);
    free(m->nz);
    free(m->theta);
    free(m->amp);
    free(m->line_at);
    free(m->reach_sin);
    free(m);
}

int kikuchi_model_bands(const struct kikuchi_model *m)
{
    return m->nbands;
}

static double band_value(const struct kikuchi_model *m, int b, double t)
{
    double x = asin(t), theta = m->theta[b], xd = m->line_at[b];
    double top = 0.5 * (tanh((theta - x) / SOFT) + tanh((theta + x) / SOFT));
    double e1 = (x - xd) / LINE, e2 = (x + xd) / LINE;
    double lines = exp(-0.5 * e1 * e1) + exp(-0.5 * e2 * e2);
    return m->amp[b] * (top - DARK * lines);
}

double kikuchi_bands_at(const struct kikuchi_model *m, const double c[3])
{
    double sum = 0.0;
    for (int b = 0; b < m->nbands; b++) {
        double t = m->nx[b] * c[0] + m->ny[b] * c[1] + m->nz[b] * c[2];
        if (fabs(t) < m->reach_sin[b])
            sum += band_value(m, b, t);
    }
    return sum;
}

/* ------------------------------------------------------------------------ */
/* The projection */

double kikuchi_background_at(const struct kikuchi_geometry *geometry, double u, double v)
{
    double hx, hy, distance;
    kikuchi_pc_pixels(geometry, geometry->pcx, geometry->pcy, geometry->pcz, &hx, &hy, &distance);
    hy += BG_BELOW * geometry->height;
    double sx = BG_SIGMA_X * geometry->width, sy = BG_SIGMA_Y * geometry->height;
    double dx = (u - hx) / sx, dy = (v - hy) / sy;
    return BG_FLOOR + (1.0 - BG_FLOOR) * exp(-0.5 * (dx * dx + dy * dy));
}

/* a = g F^-1 R_ds and the view's centre in pixels; 0, or -1 for a singular F. */
static int view_matrix(const struct kikuchi_model *m, const struct kikuchi_geometry *geometry,
                       const struct kikuchi_view *view, double a[9], double pc[3])
{
    double f[9], finv[9], rds[9];
    for (int i = 0; i < 9; i++)
        f[i] = view->beta_s[i] + (i % 4 == 0 ? 1.0 : 0.0);
    if (kikuchi_inverse(f, finv) == 0.0)
        return -1;
    kikuchi_detector_to_sample(geometry->sample_tilt, geometry->detector_tilt, rds);
    kikuchi_multiply(finv, rds, a);
    kikuchi_multiply(m->g, a, a);
    kikuchi_pc_pixels(geometry, view->pcx, view->pcy, view->pcz, &pc[0], &pc[1], &pc[2]);
    return 0;
}

static void direction_of(const double a[9], const double r[3], double c[3])
{
    for (int i = 0; i < 3; i++)
        c[i] = a[3 * i] * r[0] + a[3 * i + 1] * r[1] + a[3 * i + 2] * r[2];
    double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    for (int i = 0; i < 3; i++)
        c[i] /= len;
}

void kikuchi_direction(const struct kikuchi_model *m, const struct kikuchi_geometry *geometry,
                       const struct kikuchi_view *view, double u, double v, double c[3])
{
    double a[9], pc[3];
    if (view_matrix(m, geometry, view, a, pc) != 0) {
        c[0] = c[1] = c[2] = NAN;
        return;
    }
    double r[3];
    kikuchi_ray(pc, u, v, r);
    direction_of(a, r, c);
}

void kikuchi_render(const struct kikuchi_model *m, const struct kikuchi_geometry *geometry,
                    const struct kikuchi_view *view, double *out)
{
    int w = geometry->width, h = geometry->height;
    double a[9], pc[3];
    if (view_matrix(m, geometry, view, a, pc) != 0) {
        for (long i = 0; i < (long)w * h; i++)
            out[i] = NAN;
        return;
    }
    for (int v = 0; v < h; v++) {
        double *row = out + (long)v * w;
        for (int u = 0; u < w; u++) {
            double r[3], c[3];
            kikuchi_ray(pc, u, v, r);
            direction_of(a, r, c);
            row[u] = kikuchi_background_at(geometry, u, v) * (1.0 + kikuchi_bands_at(m, c));
        }
    }
}
