/* piv.c - particle images of a known flow, and their truth (piv.h). */
#include "piv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample_files.h"
#include "sample_rng.h"

struct particle { double x, y, sigma, peak; };

/* One frame: the image, as a buffer of counts. */
struct frame { int width, height; double *counts; };

/* The particles of pair `pair` over the image grown by margin px. */
static struct particle *particles_draw(const struct piv_options *o, int pair, double margin, size_t *count)
{
    double w = o->grid.width + 2.0 * margin, h = o->grid.height + 2.0 * margin;
    size_t n = (size_t)(o->density * w * h);
    struct particle *p = malloc((n ? n : 1) * sizeof *p);
    rng_t r;
    if (!p) {
        report("out of memory for %zu particles", n);
        return NULL;
    }
    rng_seed(&r, o->seed, STREAM_PARTICLES, (uint64_t)pair);
    for (size_t i = 0; i < n; i++) {
        p[i].x = -margin + w * rng_uniform(&r);
        p[i].y = -margin + h * rng_uniform(&r);
        p[i].sigma = 0.25 * rng_range(&r, o->diameter_lo, o->diameter_hi);
        p[i].peak = PIV_PEAK * rng_range(&r, 0.5, 1.0);
    }
    *count = n;
    return p;
}

/* Integrals of exp(-(t - c)^2 / (2 sigma^2)) over the pixels [i - 0.5,
 * i + 0.5] for i = first .. first + n - 1. */
static void pixel_integrals(double c, double sigma, int first, int n, double *out)
{
    double scale = 1.0 / (sigma * sqrt(2.0)), norm = sigma * sqrt(3.14159265358979323846 / 2.0);
    double below = erf((first - 0.5 - c) * scale);
    for (int k = 0; k < n; k++) {
        double above = erf((first + k + 0.5 - c) * scale);
        out[k] = norm * (above - below);
        below = above;
    }
}

/* Adds one particle's pixel means to the frame. */
static void particle_add(struct frame *f, const struct particle *p)
{
    double reach = 6.0 * p->sigma + 1.0, ix[64], iy[64];
    int x0 = (int)ceil(p->x - reach), x1 = (int)floor(p->x + reach);
    int y0 = (int)ceil(p->y - reach), y1 = (int)floor(p->y + reach);
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 >= f->width ? f->width - 1 : x1;
    y1 = y1 >= f->height ? f->height - 1 : y1;
    if (x1 < x0 || y1 < y0)
        return;
    pixel_integrals(p->x, p->sigma, x0, x1 - x0 + 1, ix);
    pixel_integrals(p->y, p->sigma, y0, y1 - y0 + 1, iy);
    for (int j = y0; j <= y1; j++)
        for (int i = x0; i <= x1; i++)
            f->counts[(size_t)j * f->width + i] += p->peak * ix[i - x0] * iy[j - y0];
}

static void frame_row(void *user, int j, double *out)
{
    const struct frame *f = user;
    memcpy(out, f->counts + (size_t)j * f->width, sizeof(double) * f->width);
}

/* Renders the particles and writes the frame as `name`. */
static int frame_write(const struct piv_options *o, struct frame *f, const struct particle *p, size_t n,
                       const char *name, int file_index)
{
    size_t pixels = (size_t)f->width * f->height;
    for (size_t i = 0; i < pixels; i++)
        f->counts[i] = PIV_BACKGROUND;
    for (size_t i = 0; i < n; i++)
        particle_add(f, &p[i]);
    return tiff_image_write(o->out, name, f->width, f->height, frame_row, f, o->noise, o->seed, file_index);
}

/* How far outside the image particles start: what the flow brings in over
 * dt from there, and a particle's reach. */
static double particles_margin(const struct piv_options *o)
{
    double w = o->grid.width, h = o->grid.height, m = 0.0;
    for (int k = 0; k < 3; k++)
        m = flow_displacement_bound(&o->flow, -m, -m, w + m, h + m) + 1.5 * o->diameter_hi + 2.0;
    return ceil(m);
}

static int pair_write(const struct piv_options *o, struct frame *f, int pair, double margin)
{
    size_t n;
    char name[32];
    struct particle *p = particles_draw(o, pair, margin, &n);
    if (!p)
        return -1;
    snprintf(name, sizeof name, "frameA_%04d.tif", pair);
    int status = frame_write(o, f, p, n, name, 2 * pair - 1);
    for (size_t i = 0; i < n && status == 0; i++)
        flow_advect(&o->flow, p[i].x, p[i].y, &p[i].x, &p[i].y);
    snprintf(name, sizeof name, "frameB_%04d.tif", pair);
    if (status == 0)
        status = frame_write(o, f, p, n, name, 2 * pair);
    free(p);
    return status;
}

static int truth_write(const struct piv_options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "truth_field.csv", tmp, final);
    if (!f)
        return -1;
    int windows = step_grid_nx(&o->grid) * step_grid_ny(&o->grid);
    fprintf(f, "image,region,x,y,dx,dy\n");
    for (int pair = 1; pair <= o->pairs; pair++)
        for (int k = 0; k < windows; k++) {
            double x, y, x1, y1;
            step_grid_centre(&o->grid, k, &x, &y);
            flow_advect(&o->flow, x, y, &x1, &y1);
            fprintf(f, "frameB_%04d.tif,%d,%.1f,%.1f,%.9f,%.9f\n", pair, k, x, y, x1 - x == 0.0 ? 0.0 : x1 - x,
                    y1 - y == 0.0 ? 0.0 : y1 - y);
        }
    return text_commit(f, tmp, final);
}

static int flow_file_write(const struct piv_options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "flow.txt", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "# clxcorr-samples --piv: the flow of frameA_k -> frameB_k, pixels and frames, x right, y down\n"
               "# (samples/flow.h has the formulas); a point X of frame A is at Phi_dt(X) in frame B:\n"
               "# integrate dX/dt = v(X) from X over dt\n");
    fprintf(f, "width %d\nheight %d\n", o->grid.width, o->grid.height);
    flow_write(f, &o->flow);
    return text_commit(f, tmp, final);
}

int piv_write(const struct piv_options *o)
{
    struct frame f = { o->grid.width, o->grid.height, NULL };
    double margin = particles_margin(o);
    int status = 0;
    f.counts = malloc(sizeof(double) * (size_t)f.width * f.height);
    if (!f.counts) {
        report("out of memory for a %d x %d frame", f.width, f.height);
        return -1;
    }
    for (int pair = 1; pair <= o->pairs && status == 0; pair++)
        status = pair_write(o, &f, pair, margin);
    free(f.counts);
    if (status == 0)
        status = step_grid_write(&o->grid, o->out) != 0 || truth_write(o) != 0 || flow_file_write(o) != 0 ? -1 : 0;
    return status;
}
