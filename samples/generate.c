/* generate.c - clxcorr-samples: deterministic synthetic EBSD-like test data.
 *
 * What the set is for: it is what the README's quickstart runs
 * (`make sample-data`, `make run-sample`) and what clxcorr's tests measure
 * their offsets against. It holds a reference pattern, N images made from it
 * by a known sub-pixel translation plus a small homogeneous strain, a grid of
 * windows (regions.txt) and the true displacement at each window centre
 * (truth.csv), so an error in clxcorr's offsets shows up as a number.
 *
 * The model. The pattern f(X) is defined analytically at every real point
 * X = (x, y), in pixels, so that moving it by a fraction of a pixel is exact
 * and needs no interpolation:
 *
 *     f(X) = B(X) * (1 + K(X) + T(X))
 *
 * B, background: a broad, slightly elliptical Gaussian hump (sigma 0.4-0.6 of
 *   the image size) off the centre, on a floor, plus a gentle linear
 *   gradient. It dominates the intensity, as in real EBSD patterns.
 * K, Kikuchi bands: 25-40 straight bands. Most pass through one or two of a
 *   few "zone axes", so that several cross at one point as in real patterns.
 *   Each has a smooth top-hat profile (two logistic edges; full width 10-40
 *   px in a 900 px image, scaled with the size), a thin dark line just
 *   outside each edge and its own brightness. The bands multiply the
 *   background because in a real pattern both scale with the backscattered
 *   yield, so bands fade where the background is dim.
 * T, fine texture: 60 plane waves, wavelengths 3-15 px, random directions
 *   and phases, each 1-2 % of the mean band contrast (8 % all together); it
 *   gives the correlation a sharp peak.
 * f is then scaled so that its range over the reference, grown by the
 * largest possible displacement, maps to [2000, 60000] counts.
 *
 * Sampling: pixel (i, j) is f at the point (i, j), its centre; there is no
 * supersampling. Every component is smooth at the pixel scale (the shortest
 * wavelength is 3 px, band edges are at least 0.8 px soft, even after the
 * strain), so point samples do not alias, and the reference and every image
 * are sampled the same way.
 *
 * Deformation of image k: a translation t_k (each axis uniform in [-P, P],
 * --max-shift) and a symmetric strain E_k (exx, eyy, exy uniform in [-E, E],
 * --max-strain) about the image centre c = ((W-1)/2, (H-1)/2). A reference
 * point X moves to
 *
 *     x = c + (I + E_k)(X - c) + t_k,  so  image_k(x) = f(c + (I + E_k)^-1 (x - c - t_k)).
 *
 * Truth: d(X) = x - X = E_k (X - c) + t_k, the position of a feature in the
 * image minus its position in the reference (clxcorr's sign), at each window
 * centre X = (x0 + (w-1)/2, y0 + (h-1)/2).
 *
 * --kind speckle writes a PIV/DIC-like speckle set instead (the accuracy
 * benchmark's second set): f(X) = 1 + S(X), S a sum of random Gaussian spots
 * (sigma 1-2 px, about one per 16 px^2, amplitudes 0.5-1.5), no background;
 * image k is the reference moved by the translation t_k = (k - 1) * STEP
 * along both axes (--step, default 0.1 px) and, with --gradient, deformed
 * by one displacement gradient G about the centre (the deformation above
 * with G in place of E; truth.csv then gives G (X - c) + t_k). Its defaults: a
 * 512 x 512 image, 11 images (0 to 1 px), a 6 x 6 grid of 64 x 64 windows,
 * margin 16.
 *
 * Noise (--noise SIGMA): additive Gaussian, SIGMA counts, on the reference
 * and on every image, added before rounding to the nearest count.
 *
 * --kikuchi writes an HR-EBSD set instead: the patterns of one crystal seen
 * on a tilted detector, exactly as doc/hrebsd-conventions.md defines them
 * (samples/kikuchi.c holds the model and its projection). reference.tif is
 * the undeformed crystal (F = I) at the reference pattern centre (--pc);
 * image_k.tif is the crystal deformed by F_k = I + beta_k (sample frame):
 * its intensity along a direction d is the reference's along F_k^-1 d.
 * beta_k is --deform's, the same for every image, or else drawn per image
 * as F_k = R (I + E): E symmetric, each component uniform in [-S, S]
 * (--strain), R a rotation by an angle uniform in [-DEG, DEG] (--rotation)
 * about an axis uniform on the sphere. Image k sits at scan point
 * (row, col) = ((k-1) / C, (k-1) % C) of a grid C = --scan-cols wide (the
 * reference at (0, 0), image 1 there too), --step X,Y micrometres apart, so
 * its source moves and its pattern centre with it (the doc's "Pattern-centre
 * shift across the scan", pattern pixels --pixel-size micrometres wide).
 * All patterns are point-sampled at pixel centres and share one linear
 * scale: the reference's range maps to [2000, 60000] counts. --noise COUNTS
 * is Poisson noise: the pattern scaled so that the reference's mean is
 * COUNTS photons a pixel, Poisson-sampled, and scaled back. truth.csv has
 * one row per image: beta_s, the strain of the doc (deviatoric e and the
 * full sym(beta_s), f), the rotation w and the pattern centre; geometry.txt
 * the detector as "key value" lines for clxcorr strain's options. Its
 * defaults: a 300 x 300 pattern, 10 images, a 5 x 5 grid of 60 x 60
 * windows, margin 10.
 *
 * --piv FLOW writes PIV frame pairs of particle images under a known flow
 * (samples/piv.h, samples/flow.h); --dic FIELD a DIC speckle sequence under
 * a known affine or sinusoidal field (samples/dic.h). Both lay their truth's
 * windows on clxcorr's --grid-step grid (samples/sample_windows.h).
 *
 * Determinism: its own PRNG (xoshiro256**, seeded through splitmix64), never
 * rand(), so every libc gives the same files. Separate streams for the
 * pattern, for each image's deformation and for each file's noise, so
 * --count and --noise change nothing else. Every file is written under a
 * temporary name and renamed, so an interrupted run leaves no truncated file
 * under a final name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dic.h"
#include "kikuchi.h"
#include "piv.h"
#include "sample_files.h"
#include "sample_rng.h"
#include "speckle.h"

/* The scaled pattern's range in counts: headroom on both sides for noise and
 * for extremes that fall between the grid points the range is measured on. */
#define COUNTS_LO 2000.0
#define COUNTS_HI 60000.0

#define MIN_BANDS 25
#define MAX_BANDS 40
#define N_ZONES 8
#define N_WAVES 60
#define TEXTURE_RMS 0.08     /* texture RMS, relative to the mean band level */

static const double TWO_PI = 6.28318530717958647692;

/* ------------------------------------------------------------------------ */
/* The pattern f */

struct band {
    double nx, ny, rho;  /* centre line nx*x + ny*y = rho; (nx, ny) a unit normal */
    double half;         /* half width, centre line to the 50 % point of an edge */
    double soft;         /* logistic scale of the edges, px */
    double level;        /* brightness, relative to the background */
    double dark;         /* depth of the dark edge lines, relative to level */
    double dark_at;      /* distance of the dark lines from the centre line */
    double dark_k;       /* 1 / (2 sigma^2) of the dark lines */
    double reach;        /* beyond this distance the band adds < 1e-7 */
};

struct wave { double kx, ky, phase, amp; };

struct background {
    double hx, hy;       /* hump centre */
    double qa, qb, qc;   /* hump exponent: qa dx^2 + 2 qb dx dy + qc dy^2 */
    double floor, hump;  /* level far from the hump, height of the hump */
    double gx, gy;       /* linear gradient per px, zero at the image centre */
    double cx, cy;       /* image centre */
};

enum kind { KIND_KIKUCHI, KIND_SPECKLE, KIND_SPHERE, KIND_PIV, KIND_DIC };

struct pattern {
    enum kind kind;
    struct background bg;
    int nbands;
    struct band band[MAX_BANDS];
    struct wave wave[N_WAVES];
    struct speckle speckle;
    double gain, offset; /* counts = offset + gain * f */
};

static struct background background_draw(rng_t *r, int width, int height)
{
    struct background bg;
    bg.cx = 0.5 * (width - 1);
    bg.cy = 0.5 * (height - 1);
    bg.hx = bg.cx + rng_range(r, -0.15, 0.15) * width;
    bg.hy = bg.cy + rng_range(r, -0.15, 0.15) * height;
    double s1 = rng_range(r, 0.4, 0.6) * width, s2 = rng_range(r, 0.4, 0.6) * height;
    double angle = rng_range(r, 0.0, TWO_PI), co = cos(angle), si = sin(angle);
    double a1 = 0.5 / (s1 * s1), a2 = 0.5 / (s2 * s2);
    bg.qa = co * co * a1 + si * si * a2;
    bg.qb = co * si * (a1 - a2);
    bg.qc = si * si * a1 + co * co * a2;
    bg.floor = 0.3;
    bg.hump = 1.0;
    bg.gx = rng_range(r, -0.1, 0.1) / width;
    bg.gy = rng_range(r, -0.1, 0.1) / height;
    return bg;
}

static double background_at(const struct background *bg, double x, double y)
{
    double dx = x - bg->hx, dy = y - bg->hy;
    double q = bg->qa * dx * dx + 2.0 * bg->qb * dx * dy + bg->qc * dy * dy;
    return bg->floor + bg->hump * exp(-q) + bg->gx * (x - bg->cx) + bg->gy * (y - bg->cy);
}

/* Sets the line through (x, y) with normal direction angle. */
static void line_through(struct band *b, double x, double y, double angle)
{
    b->nx = cos(angle);
    b->ny = sin(angle);
    b->rho = b->nx * x + b->ny * y;
}

/* Whether b lies along one of the others (two zone axes picked twice, say):
 * stacked bands would make one implausibly bright band. */
static int band_overlaps(const struct band *b, const struct band *others, int nothers)
{
    for (int k = 0; k < nothers; k++) {
        const struct band *o = &others[k];
        double cosine = b->nx * o->nx + b->ny * o->ny;
        double apart = fabs(b->rho - (cosine < 0.0 ? -o->rho : o->rho));
        if (fabs(cosine) > cos(3.0 * TWO_PI / 360.0) && apart < b->half + o->half)
            return 1;
    }
    return 0;
}

/*
 * A band's centre line: mostly through two zone axes (so bands meet in stars),
 * else through one at a random angle, else anywhere; always crossing the
 * middle of the image and not along another band.
 */
static void band_line_draw(rng_t *r, struct band *b, const double zone[N_ZONES][2],
                           const struct band *others, int nothers, int width, int height)
{
    double cx = 0.5 * (width - 1), cy = 0.5 * (height - 1);
    double size = width < height ? width : height;
    for (int attempt = 0; attempt < 100; attempt++) {
        double kind = rng_uniform(r);
        int a = rng_int(r, 0, N_ZONES - 1), c = rng_int(r, 0, N_ZONES - 1);
        double angle = rng_range(r, 0.0, TWO_PI);
        if (kind < 0.4) {
            double ex = zone[c][0] - zone[a][0], ey = zone[c][1] - zone[a][1];
            if (hypot(ex, ey) < 0.15 * size)
                continue;
            line_through(b, zone[a][0], zone[a][1], atan2(ex, -ey));
        } else if (kind < 0.85) {
            line_through(b, zone[a][0], zone[a][1], angle);
        } else {
            line_through(b, cx, cy, angle);
            b->rho += rng_range(r, -0.45, 0.45) * size;
        }
        if (fabs(b->nx * cx + b->ny * cy - b->rho) <= 0.45 * size
            && !band_overlaps(b, others, nothers))
            return;
    }
    line_through(b, cx, cy, rng_range(r, 0.0, TWO_PI));
}

static void band_profile_draw(rng_t *r, struct band *b, double scale)
{
    b->half = 0.5 * rng_range(r, 10.0, 40.0) * scale;
    b->soft = rng_range(r, 0.8, 1.6);
    double u = rng_uniform(r);
    b->level = 0.03 + 0.12 * u * u;     /* a few strong bands, many weak ones */
    b->dark = rng_range(r, 0.25, 0.5);
    double sigma = rng_range(r, 0.8, 1.5);
    b->dark_at = b->half + b->soft + rng_range(r, 0.5, 1.5);
    b->dark_k = 0.5 / (sigma * sigma);
    double edge = 17.0 * b->soft, line = b->dark_at - b->half + 6.0 * sigma;
    b->reach = b->half + (edge > line ? edge : line);
}

/* K contribution of one band at signed distance d from its centre line. The
 * symmetric forms keep the profile smooth at d = 0, even for narrow bands. */
static double band_value(const struct band *b, double d)
{
    double s2 = 2.0 * b->soft;
    double top = 0.5 * (tanh((b->half - d) / s2) + tanh((b->half + d) / s2));
    double e1 = d - b->dark_at, e2 = d + b->dark_at;
    double lines = exp(-b->dark_k * e1 * e1) + exp(-b->dark_k * e2 * e2);
    return b->level * (top - b->dark * lines);
}

static void bands_draw(rng_t *r, struct pattern *p, int width, int height)
{
    double zone[N_ZONES][2];
    for (int z = 0; z < N_ZONES; z++) {
        zone[z][0] = rng_range(r, -0.2, 1.2) * width;
        zone[z][1] = rng_range(r, -0.2, 1.2) * height;
    }
    double scale = (width < height ? width : height) / 900.0;
    scale = scale < 0.25 ? 0.25 : scale > 4.0 ? 4.0 : scale;
    p->nbands = rng_int(r, MIN_BANDS, MAX_BANDS);
    for (int k = 0; k < p->nbands; k++) {
        band_profile_draw(r, &p->band[k], scale);
        band_line_draw(r, &p->band[k], (const double (*)[2])zone, p->band, k, width, height);
    }
}

static void waves_draw(rng_t *r, struct pattern *p)
{
    double mean_level = 0.0, power = 0.0;
    for (int k = 0; k < p->nbands; k++)
        mean_level += p->band[k].level / p->nbands;
    for (int w = 0; w < N_WAVES; w++) {
        struct wave *wv = &p->wave[w];
        double length = rng_range(r, 3.0, 15.0), angle = rng_range(r, 0.0, TWO_PI);
        wv->kx = TWO_PI / length * cos(angle);
        wv->ky = TWO_PI / length * sin(angle);
        wv->phase = rng_range(r, 0.0, TWO_PI);
        wv->amp = rng_range(r, 0.5, 1.0);
        power += 0.5 * wv->amp * wv->amp;
    }
    double norm = TEXTURE_RMS * mean_level / sqrt(power);
    for (int w = 0; w < N_WAVES; w++)
        p->wave[w].amp *= norm;
}

static void pattern_free(struct pattern *p)
{
    speckle_free(&p->speckle);
}

static int pattern_draw(struct pattern *p, enum kind kind, uint64_t seed, int width, int height, int margin)
{
    rng_t r;
    rng_seed(&r, seed, STREAM_PATTERN, 0);
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->gain = 1.0;
    p->offset = 0.0;
    if (kind == KIND_SPECKLE)
        return speckle_draw(&r, &p->speckle, width, height, margin);
    p->bg = background_draw(&r, width, height);
    bands_draw(&r, p, width, height);
    waves_draw(&r, p);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Sampling f along rows of an affine grid */

/* Pixel (i, j) of an image samples f at X(i, j) = p + i u + j v. */
struct affine { double px, py, ux, uy, vx, vy; };

static const struct affine IDENTITY = { 0.0, 0.0, 1.0, 0.0, 0.0, 1.0 };

/*
 * Evaluates f for columns i0 .. i0 + n - 1 of one row at a time. Since X is
 * affine in (i, j), a band's distance is linear along a row, so only the
 * columns within its reach are visited, and each plane wave splits into
 * cos(qi i) and sin(qi i) tables (once per image) and one cos/sin per row.
 */
struct sampler {
    const struct pattern *pat;
    struct affine map;
    int i0, n;
    double qj[N_WAVES], psi[N_WAVES];
    double *cos_i, *sin_i;  /* N_WAVES rows of n */
    double *k, *t;          /* the row's band and texture sums */
};

static void sampler_free(struct sampler *s)
{
    free(s->cos_i);
    free(s->sin_i);
    free(s->k);
    free(s->t);
}

static int sampler_init(struct sampler *s, const struct pattern *pat,
                        const struct affine *map, int i0, int n)
{
    s->pat = pat;
    s->map = *map;
    s->i0 = i0;
    s->n = n;
    s->cos_i = malloc(sizeof(double) * N_WAVES * n);
    s->sin_i = malloc(sizeof(double) * N_WAVES * n);
    s->k = malloc(sizeof(double) * n);
    s->t = malloc(sizeof(double) * n);
    if (!s->cos_i || !s->sin_i || !s->k || !s->t) {
        sampler_free(s);
        report("out of memory for a row of %d pixels", n);
        return -1;
    }
    for (int w = 0; w < N_WAVES; w++) {
        const struct wave *wv = &pat->wave[w];
        double qi = wv->kx * map->ux + wv->ky * map->uy;
        s->qj[w] = wv->kx * map->vx + wv->ky * map->vy;
        s->psi[w] = wv->kx * map->px + wv->ky * map->py + wv->phase;
        for (int c = 0; c < n; c++) {
            s->cos_i[w * n + c] = wv->amp * cos(qi * (i0 + c));
            s->sin_i[w * n + c] = wv->amp * sin(qi * (i0 + c));
        }
    }
    return 0;
}

/* First and last column (relative to i0) where |d0 + i dd| < reach; empty
 * when *first > *last. */
static void band_columns(const struct sampler *s, double d0, double dd, double reach,
                         int *first, int *last)
{
    double lo = s->i0, hi = s->i0 + s->n - 1;
    if (fabs(dd) < 1e-12) {
        *first = 0;
        *last = fabs(d0 + lo * dd) < reach ? s->n - 1 : -1;
        return;
    }
    double a = (-reach - d0) / dd, b = (reach - d0) / dd;
    if (a > b) {
        double swap = a;
        a = b;
        b = swap;
    }
    a = a < lo ? lo : ceil(a);
    b = b > hi ? hi : floor(b);
    *first = a > hi ? s->n : (int)a - s->i0;
    *last = b < lo ? -1 : (int)b - s->i0;
}

static void bands_row(struct sampler *s, int j)
{
    const struct affine *m = &s->map;
    double x0 = m->px + j * m->vx, y0 = m->py + j * m->vy;
    memset(s->k, 0, sizeof(double) * s->n);
    for (int b = 0; b < s->pat->nbands; b++) {
        const struct band *bd = &s->pat->band[b];
        double d0 = bd->nx * x0 + bd->ny * y0 - bd->rho;
        double dd = bd->nx * m->ux + bd->ny * m->uy;
        int first, last;
        band_columns(s, d0, dd, bd->reach, &first, &last);
        for (int c = first; c <= last; c++)
            s->k[c] += band_value(bd, d0 + (s->i0 + c) * dd);
    }
}

static void texture_row(struct sampler *s, int j)
{
    int n = s->n;
    memset(s->t, 0, sizeof(double) * n);
    for (int w = 0; w < N_WAVES; w++) {
        double phase = s->qj[w] * j + s->psi[w];
        double cj = cos(phase), sj = sin(phase);
        const double *ci = s->cos_i + w * n, *si = s->sin_i + w * n;
        for (int c = 0; c < n; c++)
            s->t[c] += cj * ci[c] - sj * si[c];
    }
}

/* out[c] = offset + gain * f(X(i0 + c, j)). */
static void sampler_row(struct sampler *s, int j, double *out)
{
    const struct affine *m = &s->map;
    const struct pattern *p = s->pat;
    if (p->kind == KIND_SPECKLE) {
        for (int c = 0; c < s->n; c++) {
            int i = s->i0 + c;
            double x = m->px + i * m->ux + j * m->vx, y = m->py + i * m->uy + j * m->vy;
            out[c] = p->offset + p->gain * (1.0 + speckle_at(&p->speckle, x, y));
        }
        return;
    }
    bands_row(s, j);
    texture_row(s, j);
    for (int c = 0; c < s->n; c++) {
        int i = s->i0 + c;
        double x = m->px + i * m->ux + j * m->vx, y = m->py + i * m->uy + j * m->vy;
        double f = background_at(&p->bg, x, y) * (1.0 + s->k[c] + s->t[c]);
        out[c] = p->offset + p->gain * f;
    }
}

/*
 * Sets gain and offset so that f over the reference grown by margin pixels on
 * every side (which covers every point an image samples) spans
 * [COUNTS_LO, COUNTS_HI].
 */
static int pattern_scale(struct pattern *p, int width, int height, int margin)
{
    struct sampler s;
    int n = width + 2 * margin;
    double *row = malloc(sizeof(double) * n);
    if (!row || sampler_init(&s, p, &IDENTITY, -margin, n) != 0) {
        if (!row)
            report("out of memory for a row of %d pixels", n);
        free(row);
        return -1;
    }
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int j = -margin; j < height + margin; j++) {
        sampler_row(&s, j, row);
        for (int c = 0; c < n; c++) {
            lo = row[c] < lo ? row[c] : lo;
            hi = row[c] > hi ? row[c] : hi;
        }
    }
    sampler_free(&s);
    free(row);
    p->gain = (COUNTS_HI - COUNTS_LO) / (hi - lo);
    p->offset = COUNTS_LO - p->gain * lo;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Deformations */

/* x = c + (I + G)(X - c) + t: a translation t and a displacement gradient G. */
struct deform { double tx, ty, g11, g12, g21, g22; };

/* Speckle sets: a translation of (k - 1) steps along both axes, and the
 * same gradient G (--gradient; 0 by default) in every image. */
static struct deform deform_step(int image, double step, const double g[4])
{
    struct deform d = { step * (image - 1), step * (image - 1), g[0], g[1], g[2], g[3] };
    return d;
}

static struct deform deform_draw(uint64_t seed, int image, double max_shift, double max_strain)
{
    rng_t r;
    struct deform d;
    rng_seed(&r, seed, STREAM_DEFORM, (uint64_t)image);
    d.tx = max_shift * rng_range(&r, -1.0, 1.0);
    d.ty = max_shift * rng_range(&r, -1.0, 1.0);
    d.g11 = max_strain * rng_range(&r, -1.0, 1.0);   /* exx */
    d.g22 = max_strain * rng_range(&r, -1.0, 1.0);   /* eyy */
    d.g12 = d.g21 = max_strain * rng_range(&r, -1.0, 1.0);   /* exy */
    return d;
}

/* The grid an image samples f on: X = c + (I + G)^-1 (x - c - t). */
static struct affine deform_sample_map(const struct deform *d, double cx, double cy)
{
    double a = 1.0 + d->g11, b = d->g12, c = d->g21, e = 1.0 + d->g22;
    double det = a * e - b * c;
    double m00 = e / det, m01 = -b / det, m10 = -c / det, m11 = a / det;
    double qx = cx + d->tx, qy = cy + d->ty;
    struct affine map = {
        cx - (m00 * qx + m01 * qy), cy - (m10 * qx + m11 * qy),
        m00, m10, m01, m11,
    };
    return map;
}

/* d(X) = G (X - c) + t. */
static void deform_displacement(const struct deform *d, double cx, double cy,
                                double x, double y, double *dx, double *dy)
{
    *dx = d->g11 * (x - cx) + d->g12 * (y - cy) + d->tx;
    *dy = d->g21 * (x - cx) + d->g22 * (y - cy) + d->ty;
}

/* ------------------------------------------------------------------------ */
/* Files */

static void sampler_row_fn(void *user, int j, double *out)
{
    sampler_row(user, j, out);
}

/* Writes dir/name: f sampled on map, plus noise from stream file_index. */
static int image_write(const char *dir, const char *name, const struct pattern *pat,
                       const struct affine *map, int width, int height,
                       double noise, uint64_t seed, int file_index)
{
    struct sampler s;
    if (sampler_init(&s, pat, map, 0, width) != 0)
        return -1;
    int status = tiff_image_write(dir, name, width, height, sampler_row_fn, &s, noise, seed, file_index);
    sampler_free(&s);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Windows and truth */

struct options {
    const char *out;
    enum kind kind;
    int width, height, count;
    int grid_x, grid_y, win_w, win_h, margin;
    uint64_t seed;
    double max_shift, max_strain, noise, step;
    double gradient[4];     /* speckle: --gradient G11,G12,G21,G22 */
    /* --kikuchi */
    double pc[3], sample_tilt, detector_tilt, euler[3], strain, rotation;
    double step_x, step_y, pixel_size;
    int scan_cols;          /* 0: --count */
    int has_deform;
    double deform[9];
    /* --piv and --dic (piv.h, dic.h) */
    int grid_step;
    struct flow flow;
    int has_centre;
    double density, diameter[2];
    enum dic_field field;
    double translation[2], amplitude, wavelength;
    uint64_t given;         /* OPTION_BIT of each option given */
};

static struct deform deform_of(const struct options *o, int image)
{
    return o->kind == KIND_SPECKLE ? deform_step(image, o->step, o->gradient)
                                   : deform_draw(o->seed, image, o->max_shift, o->max_strain);
}

/* Origin of window index of count along an axis of extent pixels: evenly from
 * margin to extent - margin - size, rounded to nearest (halves up); centred
 * when it is the only one. */
static int window_origin(int index, int count, int extent, int size, int margin)
{
    if (count == 1)
        return (extent - size) / 2;
    long span = extent - 2L * margin - size, den = 2L * (count - 1);
    return margin + (int)((2L * index * span + (count - 1)) / den);
}

static void window_at(const struct options *o, int region, int *x, int *y)
{
    *x = window_origin(region % o->grid_x, o->grid_x, o->width, o->win_w, o->margin);
    *y = window_origin(region / o->grid_x, o->grid_y, o->height, o->win_h, o->margin);
}

static int regions_write(const struct options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "regions.txt", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "# clxcorr-samples windows: x y w h (top-left corner and size, pixels)\n");
    fprintf(f, "# %d x %d grid of %d x %d windows in a %d x %d image, margin %d\n",
            o->grid_x, o->grid_y, o->win_w, o->win_h, o->width, o->height, o->margin);
    for (int r = 0; r < o->grid_x * o->grid_y; r++) {
        int x, y;
        window_at(o, r, &x, &y);
        fprintf(f, "%d %d %d %d\n", x, y, o->win_w, o->win_h);
    }
    return text_commit(f, tmp, final);
}

static void truth_rows(FILE *f, const struct options *o, int image)
{
    struct deform d = deform_of(o, image);
    double cx = 0.5 * (o->width - 1), cy = 0.5 * (o->height - 1);
    for (int r = 0; r < o->grid_x * o->grid_y; r++) {
        int x0, y0;
        window_at(o, r, &x0, &y0);
        double x = x0 + 0.5 * (o->win_w - 1), y = y0 + 0.5 * (o->win_h - 1), dx, dy;
        deform_displacement(&d, cx, cy, x, y, &dx, &dy);
        fprintf(f, "image_%04d.tif,%d,%.1f,%.1f,%.6f,%.6f\n",
                image, r, x, y, tidy(dx), tidy(dy));
    }
}

static int truth_write(const struct options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "truth.csv", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "image,region,x,y,dx,dy\n");
    for (int k = 1; k <= o->count; k++)
        truth_rows(f, o, k);
    return text_commit(f, tmp, final);
}

static int images_write(const struct options *o)
{
    struct pattern pat;
    double cx = 0.5 * (o->width - 1), cy = 0.5 * (o->height - 1);
    double largest_g = fmax(fmax(fabs(o->gradient[0]), fabs(o->gradient[1])),
                            fmax(fabs(o->gradient[2]), fabs(o->gradient[3])));
    double reach = o->kind == KIND_SPECKLE
                       ? o->step * (o->count > 0 ? o->count - 1 : 0) + largest_g * (o->width + o->height)
                       : o->max_shift + o->max_strain * (o->width + o->height);
    int margin = (int)ceil(reach) + 2, status = -1;
    if (pattern_draw(&pat, o->kind, o->seed, o->width, o->height, margin) != 0 ||
        pattern_scale(&pat, o->width, o->height, margin) != 0)
        goto done;
    if (image_write(o->out, "reference.tif", &pat, &IDENTITY, o->width, o->height,
                    o->noise, o->seed, 0) != 0)
        goto done;
    for (int k = 1; k <= o->count; k++) {
        char name[32];
        struct deform d = deform_of(o, k);
        struct affine map = deform_sample_map(&d, cx, cy);
        snprintf(name, sizeof name, "image_%04d.tif", k);
        if (image_write(o->out, name, &pat, &map, o->width, o->height,
                        o->noise, o->seed, k) != 0)
            goto done;
    }
    status = 0;
done:
    pattern_free(&pat);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Kikuchi-sphere sets (--kikuchi) */

static const double DEGREE = 3.14159265358979323846 / 180.0;

/* Poisson deviate of mean lambda: multiplication of uniforms below 10, else
 * Hormann's transformed rejection (PTRS, 1993), exact for any mean. */
static double poisson_next(rng_t *r, double lambda)
{
    if (lambda <= 0.0)
        return 0.0;
    if (lambda < 10.0) {
        double limit = exp(-lambda), product = rng_uniform(r);
        int k = 0;
        while (product > limit) {
            product *= rng_uniform(r);
            k++;
        }
        return k;
    }
    double slam = sqrt(lambda), loglam = log(lambda);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        double u = rng_uniform(r) - 0.5, v = rng_uniform(r), us = 0.5 - fabs(u);
        double k = floor((2.0 * a / us + b) * u + lambda + 0.43);
        if (us >= 0.07 && v <= vr)
            return k;
        if (k < 0.0 || (us < 0.013 && v > us))
            continue;
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lambda + k * loglam - lgamma(k + 1.0))
            return k;
    }
}

static struct kikuchi_geometry sphere_geometry(const struct options *o)
{
    struct kikuchi_geometry g = {
        o->width, o->height, o->pc[0], o->pc[1], o->pc[2], o->sample_tilt, o->detector_tilt,
    };
    return g;
}

/* Image k's scan point, micrometres from the reference's along x_s, y_s. */
static void sphere_scan_point(const struct options *o, int image, double *x_um, double *y_um)
{
    int cols = o->scan_cols > 0 ? o->scan_cols : (o->count > 0 ? o->count : 1);
    *x_um = ((image - 1) % cols) * o->step_x;
    *y_um = ((image - 1) / cols) * o->step_y;
}

/* Image k's view: its pattern centre and beta_s (--deform's, or drawn from
 * stream STREAM_DEFORM k; always the same nine draws, so --strain does not
 * change the rotation's axis). */
static struct kikuchi_view sphere_view(const struct options *o, int image)
{
    struct kikuchi_view view;
    struct kikuchi_geometry g = sphere_geometry(o);
    double x_um, y_um, pc[3];
    sphere_scan_point(o, image, &x_um, &y_um);
    kikuchi_pc_shift(&g, x_um, y_um, o->pixel_size, pc);
    view.pcx = pc[0];
    view.pcy = pc[1];
    view.pcz = pc[2];
    if (o->has_deform) {
        memcpy(view.beta_s, o->deform, sizeof view.beta_s);
        return view;
    }
    rng_t r;
    rng_seed(&r, o->seed, STREAM_DEFORM, (uint64_t)image);
    double e[6];
    for (int i = 0; i < 6; i++)
        e[i] = o->strain * rng_range(&r, -1.0, 1.0);
    double z = rng_range(&r, -1.0, 1.0), phi = rng_range(&r, 0.0, TWO_PI);
    double angle = o->rotation * DEGREE * rng_range(&r, -1.0, 1.0);
    double rho = sqrt(1.0 - z * z), n[3] = { rho * cos(phi), rho * sin(phi), z };
    /* Rodrigues: R = cos a I + sin a [n]x + (1 - cos a) n n^T. */
    double c = cos(angle), si = sin(angle), rot[9];
    double cross[9] = { 0, -n[2], n[1], n[2], 0, -n[0], -n[1], n[0], 0 };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rot[3 * i + j] = (i == j ? c : 0.0) + si * cross[3 * i + j] + (1.0 - c) * n[i] * n[j];
    double stretch[9] = {
        1.0 + e[0], e[1], e[2],
        e[1], 1.0 + e[3], e[4],
        e[2], e[4], 1.0 + e[5],
    };
    kikuchi_multiply(rot, stretch, view.beta_s);
    for (int i = 0; i < 9; i += 4)
        view.beta_s[i] -= 1.0;
    return view;
}

/* Row j of a whole image of values, already in counts. */
struct value_rows { const double *values; int width; };

static void value_row(void *user, int j, double *out)
{
    const struct value_rows *v = user;
    memcpy(out, v->values + (long)j * v->width, sizeof(double) * v->width);
}

/* Scales values to counts, adds Poisson noise (stream file_index) and writes dir/name. */
static int sphere_file_write(const struct options *o, const char *name, double *values,
                             double gain, double offset, double photons_per_count, int file_index)
{
    rng_t r;
    rng_seed(&r, o->seed, STREAM_NOISE, (uint64_t)file_index);
    long n = (long)o->width * o->height;
    for (long i = 0; i < n; i++) {
        double v = offset + gain * values[i];
        if (photons_per_count > 0.0)
            v = poisson_next(&r, v > 0.0 ? v * photons_per_count : 0.0) / photons_per_count;
        values[i] = v;
    }
    struct value_rows rows = { values, o->width };
    return tiff_image_write(o->out, name, o->width, o->height, value_row, &rows, 0.0, o->seed, file_index);
}

static int sphere_images_write(const struct options *o)
{
    struct kikuchi_geometry g = sphere_geometry(o);
    struct kikuchi_model *model = kikuchi_model_create(o->euler);
    long n = (long)o->width * o->height;
    double *values = malloc(sizeof(double) * n);
    int status = -1;
    if (!model || !values) {
        report("out of memory for a %d x %d pattern", o->width, o->height);
        goto done;
    }
    struct kikuchi_view reference = { o->pc[0], o->pc[1], o->pc[2], { 0 } };
    kikuchi_render(model, &g, &reference, values);
    double lo = HUGE_VAL, hi = -HUGE_VAL, sum = 0.0;
    for (long i = 0; i < n; i++) {
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
        sum += values[i];
    }
    /* One scale for every file, fixed by the reference. */
    double gain = hi > lo ? (COUNTS_HI - COUNTS_LO) / (hi - lo) : 0.0;
    double offset = COUNTS_LO - gain * lo;
    double mean = offset + gain * sum / n;
    double photons_per_count = o->noise > 0.0 ? o->noise / mean : 0.0;
    if (sphere_file_write(o, "reference.tif", values, gain, offset, photons_per_count, 0) != 0)
        goto done;
    for (int k = 1; k <= o->count; k++) {
        char name[32];
        struct kikuchi_view view = sphere_view(o, k);
        snprintf(name, sizeof name, "image_%04d.tif", k);
        kikuchi_render(model, &g, &view, values);
        if (sphere_file_write(o, name, values, gain, offset, photons_per_count, k) != 0)
            goto done;
    }
    status = 0;
done:
    free(values);
    kikuchi_model_free(model);
    return status;
}

/* Full precision, and no "-0". */
static void csv_number(FILE *f, double v)
{
    fprintf(f, ",%.10g", v == 0.0 ? 0.0 : v);
}

static int sphere_truth_write(const struct options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "truth.csv", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "image,b11,b12,b13,b21,b22,b23,b31,b32,b33,"
               "e11,e12,e13,e22,e23,e33,f11,f12,f13,f22,f23,f33,w1,w2,w3,pcx,pcy,pcz\n");
    static const int UPPER[6] = { 0, 1, 2, 4, 5, 8 };   /* 11 12 13 22 23 33 */
    for (int k = 1; k <= o->count; k++) {
        struct kikuchi_view view = sphere_view(o, k);
        const double *b = view.beta_s;
        double e[9], trace = (b[0] + b[4] + b[8]) / 3.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                e[3 * i + j] = 0.5 * (b[3 * i + j] + b[3 * j + i]);
        fprintf(f, "image_%04d.tif", k);
        for (int i = 0; i < 9; i++)
            csv_number(f, b[i]);
        for (int i = 0; i < 6; i++)
            csv_number(f, e[UPPER[i]] - (UPPER[i] % 4 == 0 ? trace : 0.0));
        for (int i = 0; i < 6; i++)
            csv_number(f, e[UPPER[i]]);
        csv_number(f, 0.5 * (b[7] - b[5]));     /* W32 */
        csv_number(f, 0.5 * (b[2] - b[6]));     /* W13 */
        csv_number(f, 0.5 * (b[3] - b[1]));     /* W21 */
        csv_number(f, view.pcx);
        csv_number(f, view.pcy);
        csv_number(f, view.pcz);
        fputc('\n', f);
    }
    return text_commit(f, tmp, final);
}

static int sphere_geometry_write(const struct options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "geometry.txt", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "width %d\nheight %d\n", o->width, o->height);
    fprintf(f, "pcx %.10g\npcy %.10g\npcz %.10g\n", o->pc[0], o->pc[1], o->pc[2]);
    fprintf(f, "sample_tilt %.10g\ndetector_tilt %.10g\n", o->sample_tilt, o->detector_tilt);
    fprintf(f, "step_x %.10g\nstep_y %.10g\npixel_size %.10g\n", o->step_x, o->step_y, o->pixel_size);
    fprintf(f, "scan_cols %d\n", o->scan_cols > 0 ? o->scan_cols : (o->count > 0 ? o->count : 1));
    fprintf(f, "euler_deg %.10g,%.10g,%.10g\n", o->euler[0], o->euler[1], o->euler[2]);
    return text_commit(f, tmp, final);
}

/* ------------------------------------------------------------------------ */
/* Options */

static void usage(FILE *f)
{
    fprintf(f,
"Usage: " PROG " --out DIR [options]\n"
"Writes a deterministic synthetic EBSD-like data set for clxcorr into DIR:\n"
"reference.tif, image_0001.tif ... (16-bit TIFF), regions.txt (x y w h per\n"
"window) and truth.csv (image,region,x,y,dx,dy: the true displacement at each\n"
"window centre, image minus reference).\n"
"\n"
"  --out DIR          output directory, created if missing (required)\n"
"  --kind K           kikuchi (default) or speckle: a PIV/DIC-like speckle set\n"
"                     moved by pure translations of (k-1) * STEP px (defaults\n"
"                     512x512, 11 images, a 6x6 grid of 64x64 windows, margin 16)\n"
"  --step STEP        speckle: the translation step per image (default 0.1 px)\n"
"  --gradient G11,G12,G21,G22  speckle: every image also deformed by this\n"
"                     displacement gradient about the image centre, x = c +\n"
"                     (I + G)(X - c) + t (default 0; each within +-0.1; e.g. a\n"
"                     rotation by a: cos a - 1, -sin a, sin a, cos a - 1)\n"
"  --size WxH         image size in pixels (default 900x900, 16 to 16384)\n"
"  --count N          number of deformed images (default 24, 0 to 9999)\n"
"  --seed S           random seed, an unsigned 64-bit integer (default 1)\n"
"  --max-shift P      translations uniform in [-P, P] px per axis (default 6.0)\n"
"  --max-strain E     strain components uniform in [-E, E] (default 0.002, at most 0.1)\n"
"  --noise SIGMA      additive Gaussian noise, in counts (default 0)\n"
"  --grid NXxNY       windows across and down (default 10x5)\n"
"  --window WxH       window size in pixels (default 100x100)\n"
"  --margin M         distance from the image edge to the outer windows (default 20)\n"
"  --help             show this help\n"
"\n"
"  --kikuchi          an HR-EBSD set instead: one cubic crystal's Kikuchi-sphere\n"
"                     patterns on a tilted detector (doc/hrebsd-conventions.md),\n"
"                     image k deformed by a known F_k = I + beta_k. truth.csv:\n"
"                     image, beta_s (b11..b33), deviatoric strain e11..e33,\n"
"                     full strain f11..f33, rotation w1..w3 and the image's\n"
"                     pattern centre pcx,pcy,pcz; geometry.txt: the detector\n"
"                     (key value). Defaults 300x300, 10 images, a 5x5 grid of\n"
"                     60x60 windows, margin 10. Its own options:\n"
"  --pc X,Y,Z         reference pattern centre, Bruker fractions\n"
"                     (default 0.5,0.35,0.65)\n"
"  --sample-tilt DEG  sample tilt (default 70)\n"
"  --detector-tilt DEG  detector tilt, the camera's elevation (default 10)\n"
"  --euler P1,P,P2    orientation, Bunge angles in degrees (default 30,40,50)\n"
"  --strain S         random symmetric strain, components in [-S, S] (default 0)\n"
"  --rotation DEG     random rotation about a random axis, angle in [-DEG, DEG]\n"
"                     (default 0)\n"
"  --deform B11,B12,...,B33  one displacement gradient beta_s (sample frame,\n"
"                     row-major) for every image, instead of random ones\n"
"  --step X,Y         scan step in micrometres along x_s, y_s (default 0,0):\n"
"                     image k is at scan point ((k-1) / C, (k-1) mod C), the\n"
"                     reference at (0, 0); its pattern centre moves with it\n"
"  --scan-cols C      scan points per row (default: --count)\n"
"  --pixel-size UM    pattern pixel size in micrometres (default 50)\n"
"  --noise COUNTS     Poisson noise: the reference's mean scaled to COUNTS\n"
"                     photons per pixel (default 0: none)\n"
"\n"
"\n"
"  --piv FLOW         PIV frame pairs instead (samples/piv.h): frameA_000k.tif,\n"
"                     frameB_000k.tif of particles (Gaussian spots of random\n"
"                     position, e^-2 diameter and brightness, integrated over\n"
"                     each pixel), frame B the particles of A carried by FLOW\n"
"                     over --dt (RK4, exact to 1e-9 px); truth_field.csv\n"
"                     (image,region,x,y,dx,dy per pair and window centre),\n"
"                     regions.txt, flow.txt (the flow, key value). FLOW:\n"
"                     uniform, rotation (solid body), shear (u = G (y - cy)),\n"
"                     vortex (Lamb-Oseen). Defaults 1024x1024, 1 pair, 32x32\n"
"                     windows every 16 px from margin 0. Its own options:\n"
"  --velocity U,V     uniform: px per unit time (default 3.3,-1.7)\n"
"  --omega W          rotation: rad per unit time, + turns +x to +y (0.01)\n"
"  --shear-rate G     shear: du/dy per unit time (default 0.01)\n"
"  --core-radius R    vortex: core radius in px (default 64)\n"
"  --peak-speed P     vortex: largest tangential speed, px per unit time (8)\n"
"  --centre X,Y       rotation, shear, vortex: the centre (default the image's)\n"
"  --dt DT            time from frame A to frame B (default 1)\n"
"  --density D        particles per pixel (default 0.02)\n"
"  --diameter LO,HI   particle e^-2 diameters, uniform in px (default 2,4)\n"
"  --grid-step S      windows every S px (--window, --margin) for the truth\n"
"                     and regions.txt, as clxcorr offsets --grid-step S\n"
"\n"
"  --dic FIELD        a DIC sequence instead (samples/dic.h): reference.tif and\n"
"                     image_000k.tif of speckle (as --kind speckle) carrying\n"
"                     k/N of FIELD; truth.csv with the displacement, its\n"
"                     gradient dudx,dudy,dvdx,dvdy and the Green-Lagrange\n"
"                     strains exx,eyy,exy per image and window centre;\n"
"                     regions.txt, field.txt. FIELD: affine (u = t + G (X - c))\n"
"                     or sine (u = A sin(2 pi y / L), v = 0). Defaults\n"
"                     512x512, 5 images, 64x64 windows every 32 px, margin 24.\n"
"                     --grid-step as for --piv, and:\n"
"  --translation TX,TY  affine: t in px (default 1.5,-0.75)\n"
"  --gradient G11,G12,G21,G22  affine: G (default 0.02,0.005,-0.005,-0.01)\n"
"  --amplitude A      sine: A in px (default 1)\n"
"  --wavelength L     sine: L in px (default 256)\n"
"\n"
"The same options always give byte-identical files.\n");
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || x < lo || x > hi) {
        report("%s: '%s' is not an integer in [%ld, %ld]", opt, s, lo, hi);
        return -1;
    }
    *v = x;
    return 0;
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *v)
{
    long x;
    if (parse_long(opt, s, lo, hi, &x) != 0)
        return -1;
    *v = (int)x;
    return 0;
}

/* "AxB" with both in [lo, hi]. */
static int parse_pair(const char *opt, const char *s, int lo, int hi, int *a, int *b)
{
    char *end, *end2 = NULL;
    errno = 0;
    long x = strtol(s, &end, 10);
    long y = (*end == 'x' || *end == 'X') ? strtol(end + 1, &end2, 10) : 0;
    if (end == s || (*end != 'x' && *end != 'X') || end2 == end + 1 || *end2 != '\0'
        || errno != 0 || x < lo || x > hi || y < lo || y > hi) {
        report("%s: '%s' is not AxB with integers in [%d, %d]", opt, s, lo, hi);
        return -1;
    }
    *a = (int)x;
    *b = (int)y;
    return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(x) || x < lo || x > hi) {
        report("%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
        return -1;
    }
    *v = x;
    return 0;
}

static int parse_seed(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || s[strspn(s, " \t")] == '-') {
        report("--seed: '%s' is not an unsigned 64-bit integer", s);
        return -1;
    }
    *v = (uint64_t)x;
    return 0;
}

enum { OPT_OUT = 256, OPT_SIZE, OPT_COUNT, OPT_SEED, OPT_SHIFT, OPT_STRAIN, OPT_NOISE,
       OPT_GRID, OPT_WINDOW, OPT_MARGIN, OPT_KIND, OPT_STEP,
       OPT_KIKUCHI, OPT_PC, OPT_SAMPLE_TILT, OPT_DETECTOR_TILT, OPT_EULER, OPT_SPHERE_STRAIN,
       OPT_ROTATION, OPT_DEFORM, OPT_SCAN_COLS, OPT_PIXEL_SIZE, OPT_GRADIENT,
       OPT_PIV, OPT_VELOCITY, OPT_OMEGA, OPT_SHEAR_RATE, OPT_CORE_RADIUS, OPT_PEAK_SPEED, OPT_CENTRE, OPT_DT,
       OPT_DENSITY, OPT_DIAMETER, OPT_GRID_STEP, OPT_DIC, OPT_TRANSLATION, OPT_AMPLITUDE, OPT_WAVELENGTH, OPT_END };

#define OPTION_BIT(opt) (UINT64_C(1) << ((opt) - OPT_OUT))
/* The options of --kikuchi only, and those it does not take. */
#define SPHERE_ONLY (OPTION_BIT(OPT_PC) | OPTION_BIT(OPT_SAMPLE_TILT) | OPTION_BIT(OPT_DETECTOR_TILT) \
                     | OPTION_BIT(OPT_EULER) | OPTION_BIT(OPT_SPHERE_STRAIN) | OPTION_BIT(OPT_ROTATION) \
                     | OPTION_BIT(OPT_DEFORM) | OPTION_BIT(OPT_SCAN_COLS) | OPTION_BIT(OPT_PIXEL_SIZE))
#define NOT_SPHERE (OPTION_BIT(OPT_SHIFT) | OPTION_BIT(OPT_STRAIN) | OPTION_BIT(OPT_KIND) | OPTION_BIT(OPT_GRADIENT))
/* The options of --piv and of --dic only, and those of neither. */
#define PIV_ONLY (OPTION_BIT(OPT_PIV) | OPTION_BIT(OPT_VELOCITY) | OPTION_BIT(OPT_OMEGA) | OPTION_BIT(OPT_SHEAR_RATE) \
                  | OPTION_BIT(OPT_CORE_RADIUS) | OPTION_BIT(OPT_PEAK_SPEED) | OPTION_BIT(OPT_CENTRE) \
                  | OPTION_BIT(OPT_DT) | OPTION_BIT(OPT_DENSITY) | OPTION_BIT(OPT_DIAMETER))
#define DIC_ONLY (OPTION_BIT(OPT_DIC) | OPTION_BIT(OPT_TRANSLATION) | OPTION_BIT(OPT_AMPLITUDE) \
                  | OPTION_BIT(OPT_WAVELENGTH))
#define NOT_FIELD (OPTION_BIT(OPT_SHIFT) | OPTION_BIT(OPT_STRAIN) | OPTION_BIT(OPT_KIND) | OPTION_BIT(OPT_GRID) \
                   | OPTION_BIT(OPT_STEP) | SPHERE_ONLY)

static const struct option LONG_OPTIONS[] = {
    { "out", required_argument, NULL, OPT_OUT },
    { "size", required_argument, NULL, OPT_SIZE },
    { "count", required_argument, NULL, OPT_COUNT },
    { "seed", required_argument, NULL, OPT_SEED },
    { "max-shift", required_argument, NULL, OPT_SHIFT },
    { "max-strain", required_argument, NULL, OPT_STRAIN },
    { "noise", required_argument, NULL, OPT_NOISE },
    { "grid", required_argument, NULL, OPT_GRID },
    { "window", required_argument, NULL, OPT_WINDOW },
    { "margin", required_argument, NULL, OPT_MARGIN },
    { "kind", required_argument, NULL, OPT_KIND },
    { "step", required_argument, NULL, OPT_STEP },
    { "gradient", required_argument, NULL, OPT_GRADIENT },
    { "kikuchi", no_argument, NULL, OPT_KIKUCHI },
    { "pc", required_argument, NULL, OPT_PC },
    { "sample-tilt", required_argument, NULL, OPT_SAMPLE_TILT },
    { "detector-tilt", required_argument, NULL, OPT_DETECTOR_TILT },
    { "euler", required_argument, NULL, OPT_EULER },
    { "strain", required_argument, NULL, OPT_SPHERE_STRAIN },
    { "rotation", required_argument, NULL, OPT_ROTATION },
    { "deform", required_argument, NULL, OPT_DEFORM },
    { "scan-cols", required_argument, NULL, OPT_SCAN_COLS },
    { "pixel-size", required_argument, NULL, OPT_PIXEL_SIZE },
    { "piv", required_argument, NULL, OPT_PIV },
    { "velocity", required_argument, NULL, OPT_VELOCITY },
    { "omega", required_argument, NULL, OPT_OMEGA },
    { "shear-rate", required_argument, NULL, OPT_SHEAR_RATE },
    { "core-radius", required_argument, NULL, OPT_CORE_RADIUS },
    { "peak-speed", required_argument, NULL, OPT_PEAK_SPEED },
    { "centre", required_argument, NULL, OPT_CENTRE },
    { "dt", required_argument, NULL, OPT_DT },
    { "density", required_argument, NULL, OPT_DENSITY },
    { "diameter", required_argument, NULL, OPT_DIAMETER },
    { "grid-step", required_argument, NULL, OPT_GRID_STEP },
    { "dic", required_argument, NULL, OPT_DIC },
    { "translation", required_argument, NULL, OPT_TRANSLATION },
    { "amplitude", required_argument, NULL, OPT_AMPLITUDE },
    { "wavelength", required_argument, NULL, OPT_WAVELENGTH },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* n comma-separated numbers, each in [lo, hi]. */
static int parse_list(const char *opt, const char *s, int n, double lo, double hi, double *v)
{
    const char *p = s;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        int last = i == n - 1;
        if (end == p || errno != 0 || !isfinite(x) || x < lo || x > hi
            || *end != (last ? '\0' : ',')) {
            report("%s: '%s' is not %d comma-separated numbers in [%g, %g]", opt, s, n, lo, hi);
            return -1;
        }
        v[i] = x;
        p = end + 1;
    }
    return 0;
}

static int parse_deform(const char *s, struct options *o)
{
    if (parse_list("--deform", s, 9, -0.5, 0.5, o->deform) != 0)
        return -1;
    double f[9], inverse[9];
    for (int i = 0; i < 9; i++)
        f[i] = o->deform[i] + (i % 4 == 0 ? 1.0 : 0.0);
    if (kikuchi_inverse(f, inverse) <= 0.1) {
        report("--deform: I + beta ('%s') is singular or turns the crystal inside out", s);
        return -1;
    }
    o->has_deform = 1;
    return 0;
}

/* --diameter LO,HI: 0.5 <= LO <= HI <= 16 (a spot's reach stays within 51 px). */
static int parse_diameter(const char *s, double d[2])
{
    if (parse_list("--diameter", s, 2, 0.5, 16.0, d) != 0)
        return -1;
    if (d[0] > d[1]) {
        report("--diameter: '%s' is not LO,HI with LO <= HI", s);
        return -1;
    }
    return 0;
}

/* The options of --piv and --dic: 1 not one of them, else 0 or -1 as option_set. */
static int field_option_set(struct options *o, int opt, const char *arg)
{
    switch (opt) {
    case OPT_PIV:
        if (flow_kind_parse(arg, &o->flow.kind) == 0)
            return 0;
        report("--piv: '%s' is not uniform, rotation, shear or vortex", arg);
        return -1;
    case OPT_DIC:
        if (dic_field_parse(arg, &o->field) == 0)
            return 0;
        report("--dic: '%s' is not affine or sine", arg);
        return -1;
    case OPT_VELOCITY: {
        double v[2];
        int status = parse_list("--velocity", arg, 2, -1000.0, 1000.0, v);
        o->flow.u = v[0];
        o->flow.v = v[1];
        return status;
    }
    case OPT_OMEGA: return parse_double("--omega", arg, -1.0, 1.0, &o->flow.omega);
    case OPT_SHEAR_RATE: return parse_double("--shear-rate", arg, -1.0, 1.0, &o->flow.shear_rate);
    case OPT_CORE_RADIUS: return parse_double("--core-radius", arg, 1.0, 1e5, &o->flow.core_radius);
    case OPT_PEAK_SPEED: return parse_double("--peak-speed", arg, -1000.0, 1000.0, &o->flow.peak_speed);
    case OPT_CENTRE: {
        double c[2];
        int status = parse_list("--centre", arg, 2, -1e5, 1e5, c);
        o->flow.cx = c[0];
        o->flow.cy = c[1];
        o->has_centre = 1;
        return status;
    }
    case OPT_DT: return parse_double("--dt", arg, 0.0, 1000.0, &o->flow.dt);
    case OPT_DENSITY: return parse_double("--density", arg, 0.0, 1.0, &o->density);
    case OPT_DIAMETER: return parse_diameter(arg, o->diameter);
    case OPT_GRID_STEP: return parse_int("--grid-step", arg, 1, 16384, &o->grid_step);
    case OPT_TRANSLATION: return parse_list("--translation", arg, 2, -1000.0, 1000.0, o->translation);
    case OPT_AMPLITUDE: return parse_double("--amplitude", arg, -1000.0, 1000.0, &o->amplitude);
    case OPT_WAVELENGTH: return parse_double("--wavelength", arg, 2.0, 1e6, &o->wavelength);
    }
    return 1;
}

/* One option's value; -1 after reporting a bad one. */
static int option_set(struct options *o, int opt, const char *arg)
{
    if (opt >= OPT_OUT && opt < OPT_END)
        o->given |= OPTION_BIT(opt);
    int field = field_option_set(o, opt, arg);
    if (field != 1)
        return field;
    switch (opt) {
    case OPT_OUT: o->out = arg; return 0;
    case OPT_SIZE: return parse_pair("--size", arg, 16, 16384, &o->width, &o->height);
    case OPT_COUNT: return parse_int("--count", arg, 0, 9999, &o->count);
    case OPT_SEED: return parse_seed(arg, &o->seed);
    case OPT_SHIFT: return parse_double("--max-shift", arg, 0.0, 1000.0, &o->max_shift);
    case OPT_STRAIN: return parse_double("--max-strain", arg, 0.0, 0.1, &o->max_strain);
    case OPT_NOISE:
        if (o->kind == KIND_SPHERE)
            return parse_double("--noise", arg, 0.0, 1e6, &o->noise);
        return parse_double("--noise", arg, 0.0, 10000.0, &o->noise);
    case OPT_GRID: return parse_pair("--grid", arg, 1, 1000, &o->grid_x, &o->grid_y);
    case OPT_WINDOW: return parse_pair("--window", arg, 1, 16384, &o->win_w, &o->win_h);
    case OPT_MARGIN: return parse_int("--margin", arg, 0, 16384, &o->margin);
    case OPT_STEP:
        if (o->kind == KIND_SPHERE) {
            double step[2];
            if (parse_list("--step", arg, 2, -1e4, 1e4, step) != 0)
                return -1;
            o->step_x = step[0];
            o->step_y = step[1];
            return 0;
        }
        return parse_double("--step", arg, 0.0, 10.0, &o->step);
    case OPT_GRADIENT:
        return parse_list("--gradient", arg, 4, o->kind == KIND_DIC ? -0.5 : -0.1, o->kind == KIND_DIC ? 0.5 : 0.1,
                          o->gradient);
    case OPT_KIKUCHI: return 0;    /* kind_requested saw it */
    case OPT_PC:
        if (parse_list("--pc", arg, 3, -10.0, 10.0, o->pc) != 0)
            return -1;
        if (o->pc[2] <= 0.0) {
            report("--pc: the detector distance PCz ('%s') must be positive", arg);
            return -1;
        }
        return 0;
    case OPT_SAMPLE_TILT: return parse_double("--sample-tilt", arg, -90.0, 90.0, &o->sample_tilt);
    case OPT_DETECTOR_TILT: return parse_double("--detector-tilt", arg, -90.0, 90.0, &o->detector_tilt);
    case OPT_EULER: return parse_list("--euler", arg, 3, -720.0, 720.0, o->euler);
    case OPT_SPHERE_STRAIN: return parse_double("--strain", arg, 0.0, 0.1, &o->strain);
    case OPT_ROTATION: return parse_double("--rotation", arg, 0.0, 30.0, &o->rotation);
    case OPT_DEFORM: return parse_deform(arg, o);
    case OPT_SCAN_COLS: return parse_int("--scan-cols", arg, 1, 9999, &o->scan_cols);
    case OPT_PIXEL_SIZE:
        if (parse_double("--pixel-size", arg, 0.0, 1e4, &o->pixel_size) != 0)
            return -1;
        if (o->pixel_size <= 0.0) {
            report("--pixel-size: '%s' is not positive", arg);
            return -1;
        }
        return 0;
    case OPT_KIND:
        if (o->kind == KIND_SPHERE)
            return 0;              /* refused by sphere_options_check */
        if (strcmp(arg, "kikuchi") == 0)
            o->kind = KIND_KIKUCHI;
        else if (strcmp(arg, "speckle") == 0)
            o->kind = KIND_SPECKLE;
        else {
            report("--kind: '%s' is not kikuchi or speckle", arg);
            return -1;
        }
        return 0;
    }
    return -1;
}

/* The long name of the lowest option in bits. */
static const char *option_name(uint64_t bits)
{
    for (const struct option *opt = LONG_OPTIONS; opt->name; opt++)
        if (opt->val >= OPT_OUT && opt->val < OPT_END && (bits & OPTION_BIT(opt->val))) {
            static char name[32];
            snprintf(name, sizeof name, "--%s", opt->name);
            return name;
        }
    return "an option";
}

static int sphere_options_check(const struct options *o)
{
    if (o->given & NOT_SPHERE) {
        report("%s is not an option of --kikuchi", option_name(o->given & NOT_SPHERE));
        return -1;
    }
    /* Every source must stay in front of the screen. */
    struct kikuchi_geometry g = sphere_geometry(o);
    for (int k = 1; k <= o->count; k++) {
        double x_um, y_um, pc[3];
        sphere_scan_point(o, k, &x_um, &y_um);
        kikuchi_pc_shift(&g, x_um, y_um, o->pixel_size, pc);
        if (pc[2] <= 0.05) {
            report("--step %g,%g with --pixel-size %g moves image %d's source behind the screen (PCz %g)",
                   o->step_x, o->step_y, o->pixel_size, k, pc[2]);
            return -1;
        }
    }
    return 0;
}

/* The flow options that go with one flow only. */
static int flow_options_check(const struct options *o)
{
    static const struct { int opt; enum flow_kind kind; } own[] = {
        { OPT_VELOCITY, FLOW_UNIFORM }, { OPT_OMEGA, FLOW_ROTATION }, { OPT_SHEAR_RATE, FLOW_SHEAR },
        { OPT_CORE_RADIUS, FLOW_VORTEX }, { OPT_PEAK_SPEED, FLOW_VORTEX },
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if ((o->given & OPTION_BIT(own[i].opt)) && o->flow.kind != own[i].kind) {
            report("%s is an option of --piv %s", option_name(OPTION_BIT(own[i].opt)), flow_kind_name(own[i].kind));
            return -1;
        }
    if (o->flow.kind == FLOW_UNIFORM && (o->given & OPTION_BIT(OPT_CENTRE))) {
        report("--centre is an option of --piv rotation, shear and vortex");
        return -1;
    }
    return 0;
}

/* --piv and --dic: their own options only, the windows' step grid. */
static int field_options_check(const struct options *o)
{
    uint64_t foreign = (o->given & NOT_FIELD) | (o->given & (o->kind == KIND_PIV ? DIC_ONLY : PIV_ONLY));
    if (o->kind == KIND_PIV && (o->given & OPTION_BIT(OPT_GRADIENT)))
        foreign |= OPTION_BIT(OPT_GRADIENT);
    if (foreign) {
        report("%s is not an option of %s", option_name(foreign), o->kind == KIND_PIV ? "--piv" : "--dic");
        return -1;
    }
    if (o->kind == KIND_DIC && o->field == DIC_AFFINE && (o->given & (OPTION_BIT(OPT_AMPLITUDE) | OPTION_BIT(OPT_WAVELENGTH)))) {
        report("--amplitude and --wavelength are options of --dic sine");
        return -1;
    }
    if (o->kind == KIND_DIC && o->field == DIC_SINE && (o->given & (OPTION_BIT(OPT_GRADIENT) | OPTION_BIT(OPT_TRANSLATION)))) {
        report("--gradient and --translation are options of --dic affine");
        return -1;
    }
    if (o->kind == KIND_DIC && o->field == DIC_AFFINE &&
        (1.0 + o->gradient[0]) * (1.0 + o->gradient[3]) - o->gradient[1] * o->gradient[2] <= 0.1) {
        report("--gradient: I + G is singular or turns the specimen inside out");
        return -1;
    }
    return o->kind == KIND_PIV ? flow_options_check(o) : 0;
}

/* What the options cannot check one at a time. */
static int options_check(const struct options *o)
{
    if (!o->out) {
        report("missing --out DIR (try --help)");
        return -1;
    }
    if (o->win_w + 2 * o->margin > o->width || o->win_h + 2 * o->margin > o->height) {
        report("--window %dx%d with --margin %d does not fit in a %dx%d image",
               o->win_w, o->win_h, o->margin, o->width, o->height);
        return -1;
    }
    if (o->kind == KIND_PIV || o->kind == KIND_DIC)
        return field_options_check(o);
    if (o->given & (PIV_ONLY | DIC_ONLY | OPTION_BIT(OPT_GRID_STEP))) {
        report("%s is an option of --piv or --dic", option_name(o->given & (PIV_ONLY | DIC_ONLY | OPTION_BIT(OPT_GRID_STEP))));
        return -1;
    }
    if (o->kind != KIND_SPHERE && (o->given & SPHERE_ONLY)) {
        report("%s is an option of --kikuchi only", option_name(o->given & SPHERE_ONLY));
        return -1;
    }
    if (o->kind == KIND_SPHERE)
        return sphere_options_check(o);
    if (o->kind != KIND_SPECKLE && (o->given & OPTION_BIT(OPT_GRADIENT))) {
        report("--gradient is an option of --kind speckle only");
        return -1;
    }
    int size = o->width < o->height ? o->width : o->height;
    if (o->max_shift > 0.25 * size) {
        report("--max-shift: %g is more than a quarter of the image (%d px)",
               o->max_shift, size);
        return -1;
    }
    return 0;
}

/* 0: go on, 1: done (help shown), -1: bad options (reported). */
static int options_parse(struct options *o, int argc, char **argv)
{
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", LONG_OPTIONS, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 1;
        }
        if (opt == ':') {
            report("%s needs a value", argv[optind - 1]);
            return -1;
        }
        if (opt == '?') {
            report("unknown option '%s' (try --help)", argv[optind - 1]);
            return -1;
        }
        if (option_set(o, opt, optarg) != 0)
            return -1;
    }
    if (optind < argc) {
        report("unexpected argument '%s' (try --help)", argv[optind]);
        return -1;
    }
    return options_check(o);
}

/* The defaults of a kind: options given on the command line override them. */
static void options_defaults(struct options *o, enum kind kind)
{
    struct options kikuchi = {
        .out = NULL, .kind = KIND_KIKUCHI, .width = 900, .height = 900, .count = 24,
        .grid_x = 10, .grid_y = 5, .win_w = 100, .win_h = 100, .margin = 20,
        .seed = 1, .max_shift = 6.0, .max_strain = 0.002, .noise = 0.0, .step = 0.1,
    };
    struct options speckle = {
        .out = NULL, .kind = KIND_SPECKLE, .width = 512, .height = 512, .count = 11,
        .grid_x = 6, .grid_y = 6, .win_w = 64, .win_h = 64, .margin = 16,
        .seed = 1, .max_shift = 0.0, .max_strain = 0.0, .noise = 0.0, .step = 0.1,
    };
    struct options sphere = {
        .out = NULL, .kind = KIND_SPHERE, .width = 300, .height = 300, .count = 10,
        .grid_x = 5, .grid_y = 5, .win_w = 60, .win_h = 60, .margin = 10,
        .seed = 1, .noise = 0.0,
        .pc = { 0.5, 0.35, 0.65 }, .sample_tilt = 70.0, .detector_tilt = 10.0,
        .euler = { 30.0, 40.0, 50.0 }, .pixel_size = 50.0,
    };
    struct options piv = {
        .out = NULL, .kind = KIND_PIV, .width = 1024, .height = 1024, .count = 1,
        .win_w = 32, .win_h = 32, .margin = 0, .grid_step = 16, .seed = 1, .noise = 0.0,
        .flow = { .kind = FLOW_UNIFORM, .dt = 1.0, .u = 3.3, .v = -1.7, .omega = 0.01, .shear_rate = 0.01,
                  .core_radius = 64.0, .peak_speed = 8.0 },
        .density = 0.02, .diameter = { 2.0, 4.0 },
    };
    struct options dic = {
        .out = NULL, .kind = KIND_DIC, .width = 512, .height = 512, .count = 5,
        .win_w = 64, .win_h = 64, .margin = 24, .grid_step = 32, .seed = 1, .noise = 0.0,
        .field = DIC_AFFINE, .translation = { 1.5, -0.75 }, .gradient = { 0.02, 0.005, -0.005, -0.01 },
        .amplitude = 1.0, .wavelength = 256.0,
    };
    *o = kind == KIND_SPECKLE ? speckle : kind == KIND_SPHERE ? sphere : kind == KIND_PIV ? piv
       : kind == KIND_DIC ? dic : kikuchi;
}

/* The --kind given, or --kikuchi (as getopt_long would take it, abbreviated
 * too), --piv or --dic, before the other options are read. */
static enum kind kind_requested(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--piv") == 0 || strncmp(argv[i], "--piv=", 6) == 0)
            return KIND_PIV;
        if (strcmp(argv[i], "--dic") == 0 || strncmp(argv[i], "--dic=", 6) == 0)
            return KIND_DIC;
    }
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        size_t len = strlen(argv[i]);
        if (len >= 5 && strncmp(argv[i], "--kikuchi", len) == 0)
            return KIND_SPHERE;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kind=speckle") == 0 ||
            (strcmp(argv[i], "--kind") == 0 && i + 1 < argc && strcmp(argv[i + 1], "speckle") == 0))
            return KIND_SPECKLE;
    }
    return KIND_KIKUCHI;
}

/* --piv and --dic: their sets from the options. */
static int field_set_write(const struct options *o)
{
    struct step_grid grid = { o->width, o->height, o->grid_step, o->win_w, o->win_h, o->margin };
    if (o->kind == KIND_DIC) {
        struct dic_options d = { o->out, o->field, o->count, { o->translation[0], o->translation[1] },
                                 { o->gradient[0], o->gradient[1], o->gradient[2], o->gradient[3] },
                                 o->amplitude, o->wavelength, o->noise, o->seed, grid };
        return dic_write(&d);
    }
    struct piv_options p = { o->out, o->flow, o->count, o->density, o->diameter[0], o->diameter[1], o->noise,
                             o->seed, grid };
    if (!o->has_centre) {
        p.flow.cx = 0.5 * (o->width - 1);
        p.flow.cy = 0.5 * (o->height - 1);
    }
    return piv_write(&p);
}

int main(int argc, char **argv)
{
    struct options o;
    options_defaults(&o, kind_requested(argc, argv));
    int parsed = options_parse(&o, argc, argv);
    if (parsed != 0)
        return parsed > 0 ? 0 : 1;
    tiff_handlers_install();
    if (o.kind == KIND_PIV || o.kind == KIND_DIC)
        return directory_make(o.out) != 0 || field_set_write(&o) != 0;
    if (o.kind == KIND_SPHERE) {
        if (directory_make(o.out) != 0 || sphere_images_write(&o) != 0 || regions_write(&o) != 0
            || sphere_truth_write(&o) != 0 || sphere_geometry_write(&o) != 0)
            return 1;
        return 0;
    }
    if (directory_make(o.out) != 0 || images_write(&o) != 0
        || regions_write(&o) != 0 || truth_write(&o) != 0)
        return 1;
    return 0;
}
