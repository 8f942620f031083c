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
 * image k is the reference moved by the pure translation t_k = (k - 1) * STEP
 * along both axes (--step, default 0.1 px), no strain. Its defaults: a
 * 512 x 512 image, 11 images (0 to 1 px), a 6 x 6 grid of 64 x 64 windows,
 * margin 16.
 *
 * Noise (--noise SIGMA): additive Gaussian, SIGMA counts, on the reference
 * and on every image, added before rounding to the nearest count.
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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <tiffio.h>

#define PROG "clxcorr-samples"

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* The scaled pattern's range in counts: headroom on both sides for noise and
 * for extremes that fall between the grid points the range is measured on. */
#define COUNTS_LO 2000.0
#define COUNTS_HI 60000.0

#define MIN_BANDS 25
#define MAX_BANDS 40
#define N_ZONES 8
#define N_WAVES 60
#define TEXTURE_RMS 0.08     /* texture RMS, relative to the mean band level */
#define ROWS_PER_STRIP 16
#define PATH_BYTES 4096

static const double TWO_PI = 6.28318530717958647692;

/* ------------------------------------------------------------------------ */
/* Messages */

static void report(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* One line on stderr, prefixed with the program's name. */
static void report(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* libtiff's own handlers print as they go; keep the last error so that it ends
 * up in our one line instead. */
static char tiff_message[256];

static void tiff_error(const char *module, const char *fmt, va_list ap)
{
    (void)module;
    vsnprintf(tiff_message, sizeof tiff_message, fmt, ap);
}

/* ------------------------------------------------------------------------ */
/* PRNG: xoshiro256** seeded through splitmix64 (Blackman and Vigna). */

typedef struct { uint64_t s[4]; } rng_t;

enum stream { STREAM_PATTERN = 1, STREAM_DEFORM = 2, STREAM_NOISE = 3 };

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed, enum stream stream, uint64_t index)
{
    uint64_t key = ((uint64_t)stream << 48) ^ index;
    uint64_t x = seed ^ splitmix64(&key);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1), 53 bits. */
static double rng_uniform(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static double rng_range(rng_t *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_uniform(r);
}

/* Uniform integer in [lo, hi]. */
static int rng_int(rng_t *r, int lo, int hi)
{
    return lo + (int)(rng_uniform(r) * (hi - lo + 1));
}

/* Standard normal deviates by Box-Muller, used in pairs. */
typedef struct { rng_t rng; double spare; int has_spare; } gauss_t;

static double gauss_next(gauss_t *g)
{
    if (g->has_spare) {
        g->has_spare = 0;
        return g->spare;
    }
    double u1 = 1.0 - rng_uniform(&g->rng);     /* (0, 1]: log(u1) is finite */
    double u2 = rng_uniform(&g->rng);
    double radius = sqrt(-2.0 * log(u1));
    g->spare = radius * sin(TWO_PI * u2);
    g->has_spare = 1;
    return radius * cos(TWO_PI * u2);
}

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

enum kind { KIND_KIKUCHI, KIND_SPECKLE };

/* A speckle spot, and the grid of cells that finds the spots near a point. */
struct spot { double x, y, amp, k; };   /* k = 1 / (2 sigma^2) */
struct speckle {
    int nspots;
    struct spot *spot;
    int cells_x, cells_y;
    double x0, y0;       /* the grid's corner */
    int *cell_first;     /* cells_x * cells_y + 1 offsets into cell_spot */
    int *cell_spot;      /* spot indices, cell by cell */
};

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

#define SPECKLE_CELL 8.0       /* px; spots reach at most 4 sigma = 8 px */
#define SPECKLE_AREA 16.0      /* px^2 per spot */

/* Spots over the image grown by `margin` px, indexed by cell. */
static int speckle_draw(rng_t *r, struct speckle *sp, int width, int height, int margin)
{
    double w = width + 2.0 * margin, h = height + 2.0 * margin;
    sp->x0 = -margin - SPECKLE_CELL;
    sp->y0 = -margin - SPECKLE_CELL;
    sp->cells_x = (int)ceil(w / SPECKLE_CELL) + 2;
    sp->cells_y = (int)ceil(h / SPECKLE_CELL) + 2;
    sp->nspots = (int)(w * h / SPECKLE_AREA);
    int ncells = sp->cells_x * sp->cells_y;
    sp->spot = malloc(sizeof *sp->spot * sp->nspots);
    sp->cell_first = calloc((size_t)ncells + 1, sizeof *sp->cell_first);
    sp->cell_spot = malloc(sizeof *sp->cell_spot * sp->nspots);
    int *fill = calloc((size_t)ncells, sizeof *fill);
    if (!sp->spot || !sp->cell_first || !sp->cell_spot || !fill) {
        free(fill);
        report("out of memory for %d speckle spots", sp->nspots);
        return -1;
    }
    for (int i = 0; i < sp->nspots; i++) {
        struct spot *o = &sp->spot[i];
        double sigma = rng_range(r, 1.0, 2.0);
        o->x = -margin + rng_uniform(r) * w;
        o->y = -margin + rng_uniform(r) * h;
        o->amp = rng_range(r, 0.5, 1.5);
        o->k = 0.5 / (sigma * sigma);
    }
    /* Counting sort of the spots into cells. */
    for (int i = 0; i < sp->nspots; i++) {
        int cx = (int)((sp->spot[i].x - sp->x0) / SPECKLE_CELL), cy = (int)((sp->spot[i].y - sp->y0) / SPECKLE_CELL);
        sp->cell_first[cy * sp->cells_x + cx + 1]++;
    }
    for (int c = 0; c < ncells; c++)
        sp->cell_first[c + 1] += sp->cell_first[c];
    for (int i = 0; i < sp->nspots; i++) {
        int cx = (int)((sp->spot[i].x - sp->x0) / SPECKLE_CELL), cy = (int)((sp->spot[i].y - sp->y0) / SPECKLE_CELL);
        int c = cy * sp->cells_x + cx;
        sp->cell_spot[sp->cell_first[c] + fill[c]++] = i;
    }
    free(fill);
    return 0;
}

/* S(x, y): the spots of the 3 x 3 cells around the point. */
static double speckle_at(const struct speckle *sp, double x, double y)
{
    int cx = (int)floor((x - sp->x0) / SPECKLE_CELL), cy = (int)floor((y - sp->y0) / SPECKLE_CELL);
    double v = 0;
    for (int j = cy - 1; j <= cy + 1; j++) {
        if (j < 0 || j >= sp->cells_y)
            continue;
        for (int i = cx - 1; i <= cx + 1; i++) {
            if (i < 0 || i >= sp->cells_x)
                continue;
            int c = j * sp->cells_x + i;
            for (int n = sp->cell_first[c]; n < sp->cell_first[c + 1]; n++) {
                const struct spot *o = &sp->spot[sp->cell_spot[n]];
                double dx = x - o->x, dy = y - o->y, q = o->k * (dx * dx + dy * dy);
                if (q < 8.0)
                    v += o->amp * exp(-q);
            }
        }
    }
    return v;
}

static void pattern_free(struct pattern *p)
{
    free(p->speckle.spot);
    free(p->speckle.cell_first);
    free(p->speckle.cell_spot);
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

struct deform { double tx, ty, exx, eyy, exy; };

/* Speckle sets: a pure translation of (k - 1) steps along both axes. */
static struct deform deform_step(int image, double step)
{
    struct deform d = { step * (image - 1), step * (image - 1), 0.0, 0.0, 0.0 };
    return d;
}

static struct deform deform_draw(uint64_t seed, int image, double max_shift, double max_strain)
{
    rng_t r;
    struct deform d;
    rng_seed(&r, seed, STREAM_DEFORM, (uint64_t)image);
    d.tx = max_shift * rng_range(&r, -1.0, 1.0);
    d.ty = max_shift * rng_range(&r, -1.0, 1.0);
    d.exx = max_strain * rng_range(&r, -1.0, 1.0);
    d.eyy = max_strain * rng_range(&r, -1.0, 1.0);
    d.exy = max_strain * rng_range(&r, -1.0, 1.0);
    return d;
}

/* The grid an image samples f on: X = c + (I + E)^-1 (x - c - t). */
static struct affine deform_sample_map(const struct deform *d, double cx, double cy)
{
    double a = 1.0 + d->exx, b = d->exy, e = 1.0 + d->eyy;
    double det = a * e - b * b;
    double m00 = e / det, m01 = -b / det, m10 = -b / det, m11 = a / det;
    double qx = cx + d->tx, qy = cy + d->ty;
    struct affine map = {
        cx - (m00 * qx + m01 * qy), cy - (m10 * qx + m11 * qy),
        m00, m10, m01, m11,
    };
    return map;
}

/* d(X) = E (X - c) + t. */
static void deform_displacement(const struct deform *d, double cx, double cy,
                                double x, double y, double *dx, double *dy)
{
    *dx = d->exx * (x - cx) + d->exy * (y - cy) + d->tx;
    *dy = d->exy * (x - cx) + d->eyy * (y - cy) + d->ty;
}

/* ------------------------------------------------------------------------ */
/* Files */

static int path_join(char *out, const char *dir, const char *name, const char *suffix)
{
    int len = snprintf(out, PATH_BYTES, "%s/%s%s", dir, name, suffix);
    if (len < 0 || len >= PATH_BYTES) {
        report("path too long: %s/%s", dir, name);
        return -1;
    }
    return 0;
}

/* mkdir -p. */
static int directory_make(const char *dir)
{
    char path[PATH_BYTES];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path) {
        report("--out: bad directory name '%s'", dir);
        return -1;
    }
    memcpy(path, dir, len + 1);
    for (size_t k = 1; k <= len; k++) {
        if (path[k] != '/' && path[k] != '\0')
            continue;
        char keep = path[k];
        path[k] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            report("cannot create directory %s: %s", path, strerror(errno));
            return -1;
        }
        path[k] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        report("%s is not a directory", dir);
        return -1;
    }
    return 0;
}

static int file_commit(const char *tmp, const char *final)
{
    if (rename(tmp, final) != 0) {
        report("cannot rename %s to %s: %s", tmp, final, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static TIFF *tiff_create(const char *path, int width, int height)
{
    TIFF *tif = TIFFOpen(path, "w");
    if (!tif)
        return NULL;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)ROWS_PER_STRIP);
    return tif;
}

/* Rounds to the nearest count after the noise; counts what had to be clamped. */
static void row_quantize(const double *row, int n, double noise, gauss_t *g,
                         uint16_t *out, long *clipped)
{
    for (int c = 0; c < n; c++) {
        double v = row[c];
        if (noise > 0.0)
            v += noise * gauss_next(g);
        if (v < 0.0 || v > 65535.0) {
            ++*clipped;
            v = v < 0.0 ? 0.0 : 65535.0;
        }
        out[c] = (uint16_t)floor(v + 0.5);
    }
}

static int tiff_rows_write(TIFF *tif, struct sampler *s, int height, double noise,
                           gauss_t *g, long *clipped)
{
    double *row = malloc(sizeof(double) * s->n);
    uint16_t *pixels = malloc(sizeof(uint16_t) * s->n);
    int status = 0;
    if (!row || !pixels) {
        strcpy(tiff_message, "out of memory");
        status = -1;
    }
    for (int j = 0; j < height && status == 0; j++) {
        sampler_row(s, j, row);
        row_quantize(row, s->n, noise, g, pixels, clipped);
        if (TIFFWriteScanline(tif, pixels, (uint32_t)j, 0) < 0)
            status = -1;
    }
    if (status == 0 && TIFFFlush(tif) != 1)
        status = -1;
    free(row);
    free(pixels);
    return status;
}

/* Writes dir/name: f sampled on map, plus noise from stream file_index. */
static int image_write(const char *dir, const char *name, const struct pattern *pat,
                       const struct affine *map, int width, int height,
                       double noise, uint64_t seed, int file_index)
{
    char final[PATH_BYTES], tmp[PATH_BYTES];
    if (path_join(final, dir, name, "") != 0 || path_join(tmp, dir, name, ".tmp") != 0)
        return -1;
    struct sampler s;
    if (sampler_init(&s, pat, map, 0, width) != 0)
        return -1;
    gauss_t g = { .has_spare = 0 };
    rng_seed(&g.rng, seed, STREAM_NOISE, (uint64_t)file_index);
    long clipped = 0;
    TIFF *tif = tiff_create(tmp, width, height);
    if (!tif) {
        report("cannot write %s: %s", tmp, strerror(errno));
        sampler_free(&s);
        return -1;
    }
    tiff_message[0] = '\0';
    int status = tiff_rows_write(tif, &s, height, noise, &g, &clipped);
    TIFFClose(tif);
    sampler_free(&s);
    if (status != 0) {
        report("cannot write %s: %s", tmp, tiff_message[0] ? tiff_message : "write failed");
        remove(tmp);
        return -1;
    }
    if (clipped > 0)
        report("warning: %s: %ld of %ld pixels clipped to [0, 65535]",
               name, clipped, (long)width * height);
    return file_commit(tmp, final);
}

/* Opens dir/name.tmp for a text file. */
static FILE *text_create(const char *dir, const char *name, char *tmp, char *final)
{
    if (path_join(final, dir, name, "") != 0 || path_join(tmp, dir, name, ".tmp") != 0)
        return NULL;
    FILE *f = fopen(tmp, "w");
    if (!f)
        report("cannot write %s: %s", tmp, strerror(errno));
    return f;
}

static int text_commit(FILE *f, const char *tmp, const char *final)
{
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        report("cannot write %s: %s", tmp, strerror(errno));
        remove(tmp);
        return -1;
    }
    return file_commit(tmp, final);
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
};

static struct deform deform_of(const struct options *o, int image)
{
    return o->kind == KIND_SPECKLE ? deform_step(image, o->step)
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

/* Keeps "-0.000000" out of the file. */
static double tidy(double v)
{
    return fabs(v) < 5e-7 ? 0.0 : v;
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
    double reach = o->kind == KIND_SPECKLE ? o->step * (o->count > 0 ? o->count - 1 : 0)
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
       OPT_GRID, OPT_WINDOW, OPT_MARGIN, OPT_KIND, OPT_STEP };

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
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* One option's value; -1 after reporting a bad one. */
static int option_set(struct options *o, int opt, const char *arg)
{
    switch (opt) {
    case OPT_OUT: o->out = arg; return 0;
    case OPT_SIZE: return parse_pair("--size", arg, 16, 16384, &o->width, &o->height);
    case OPT_COUNT: return parse_int("--count", arg, 0, 9999, &o->count);
    case OPT_SEED: return parse_seed(arg, &o->seed);
    case OPT_SHIFT: return parse_double("--max-shift", arg, 0.0, 1000.0, &o->max_shift);
    case OPT_STRAIN: return parse_double("--max-strain", arg, 0.0, 0.1, &o->max_strain);
    case OPT_NOISE: return parse_double("--noise", arg, 0.0, 10000.0, &o->noise);
    case OPT_GRID: return parse_pair("--grid", arg, 1, 1000, &o->grid_x, &o->grid_y);
    case OPT_WINDOW: return parse_pair("--window", arg, 1, 16384, &o->win_w, &o->win_h);
    case OPT_MARGIN: return parse_int("--margin", arg, 0, 16384, &o->margin);
    case OPT_STEP: return parse_double("--step", arg, 0.0, 10.0, &o->step);
    case OPT_KIND:
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
    *o = kind == KIND_SPECKLE ? speckle : kikuchi;
}

/* The --kind given, if any, before the other options are read. */
static enum kind kind_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kind=speckle") == 0 ||
            (strcmp(argv[i], "--kind") == 0 && i + 1 < argc && strcmp(argv[i + 1], "speckle") == 0))
            return KIND_SPECKLE;
    }
    return KIND_KIKUCHI;
}

int main(int argc, char **argv)
{
    struct options o;
    options_defaults(&o, kind_requested(argc, argv));
    int parsed = options_parse(&o, argc, argv);
    if (parsed != 0)
        return parsed > 0 ? 0 : 1;
    TIFFSetErrorHandler(tiff_error);
    TIFFSetWarningHandler(NULL);
    if (directory_make(o.out) != 0 || images_write(&o) != 0
        || regions_write(&o) != 0 || truth_write(&o) != 0)
        return 1;
    return 0;
}
