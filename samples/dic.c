/* dic.c - speckle under a known affine or sinusoidal field, and its truth (dic.h). */
#include "dic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample_files.h"
#include "sample_rng.h"
#include "speckle.h"

#define COUNTS_LO 2000.0
#define COUNTS_HI 60000.0

static const double TWO_PI = 6.28318530717958647692;

int dic_field_parse(const char *name, enum dic_field *field)
{
    if (strcmp(name, "affine") == 0)
        *field = DIC_AFFINE;
    else if (strcmp(name, "sine") == 0)
        *field = DIC_SINE;
    else
        return -1;
    return 0;
}

/* Image k's field: the options' scaled by k / N. */
struct load { const struct dic_options *o; double s, cx, cy; };

static struct load load_of(const struct dic_options *o, int image)
{
    struct load l = { o, o->count > 0 ? (double)image / o->count : 0.0, 0.5 * (o->grid.width - 1),
                      0.5 * (o->grid.height - 1) };
    return l;
}

/* u at the reference point (X, Y) and its gradient g = [dudx dudy dvdx dvdy]. */
static void field_at(const struct load *l, double x, double y, double u[2], double g[4])
{
    const struct dic_options *o = l->o;
    if (o->field == DIC_AFFINE) {
        for (int i = 0; i < 4; i++)
            g[i] = l->s * o->gradient[i];
        u[0] = l->s * o->translation[0] + g[0] * (x - l->cx) + g[1] * (y - l->cy);
        u[1] = l->s * o->translation[1] + g[2] * (x - l->cx) + g[3] * (y - l->cy);
        return;
    }
    double k = TWO_PI / o->wavelength, a = l->s * o->amplitude;
    u[0] = a * sin(k * y);
    u[1] = 0.0;
    g[0] = g[2] = g[3] = 0.0;
    g[1] = a * k * cos(k * y);
}

/* The reference point that lands on image pixel (x, y). */
static void field_inverse(const struct load *l, double x, double y, double *rx, double *ry)
{
    const struct dic_options *o = l->o;
    if (o->field == DIC_SINE) {
        *rx = x - l->s * o->amplitude * sin(TWO_PI / o->wavelength * y);
        *ry = y;
        return;
    }
    double a = 1.0 + l->s * o->gradient[0], b = l->s * o->gradient[1];
    double c = l->s * o->gradient[2], e = 1.0 + l->s * o->gradient[3], det = a * e - b * c;
    double qx = x - l->cx - l->s * o->translation[0], qy = y - l->cy - l->s * o->translation[1];
    *rx = l->cx + (e * qx - b * qy) / det;
    *ry = l->cy + (-c * qx + a * qy) / det;
}

/* What a row of image k needs: the field, the speckle and its scale. */
struct dic_rows {
    struct load load;
    const struct speckle *speckle;
    double gain, offset;
    int width;
};

static void dic_row(void *user, int j, double *out)
{
    const struct dic_rows *d = user;
    for (int i = 0; i < d->width; i++) {
        double x, y;
        field_inverse(&d->load, i, j, &x, &y);
        out[i] = d->offset + d->gain * (1.0 + speckle_at(d->speckle, x, y));
    }
}

/* gain and offset: 1 + S over the reference grown by margin px spans [COUNTS_LO, COUNTS_HI]. */
static void scale_set(struct dic_rows *d, int height, int margin)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int j = -margin; j < height + margin; j++)
        for (int i = -margin; i < d->width + margin; i++) {
            double v = 1.0 + speckle_at(d->speckle, i, j);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    d->gain = (COUNTS_HI - COUNTS_LO) / (hi - lo);
    d->offset = COUNTS_LO - d->gain * lo;
}

/* The largest displacement of the last image over the image. */
static double field_reach(const struct dic_options *o)
{
    struct load l = load_of(o, o->count);
    double corners[4][2] = { { 0, 0 }, { o->grid.width, 0 }, { 0, o->grid.height }, { o->grid.width, o->grid.height } };
    double reach = 0.0, u[2], g[4];
    for (int k = 0; k < 4; k++) {
        field_at(&l, corners[k][0], corners[k][1], u, g);
        reach = fmax(reach, hypot(u[0], u[1]));
    }
    return o->field == DIC_SINE ? fabs(o->amplitude) : reach;
}

static int images_write(const struct dic_options *o)
{
    struct speckle sp;
    rng_t r;
    int margin = (int)ceil(field_reach(o)) + 4;
    rng_seed(&r, o->seed, STREAM_PATTERN, 0);
    memset(&sp, 0, sizeof sp);
    if (speckle_draw(&r, &sp, o->grid.width, o->grid.height, margin) != 0)
        return -1;
    struct dic_rows d = { load_of(o, 0), &sp, 1.0, 0.0, o->grid.width };
    scale_set(&d, o->grid.height, margin);
    int status = tiff_image_write(o->out, "reference.tif", o->grid.width, o->grid.height, dic_row, &d, o->noise,
                                  o->seed, 0);
    for (int k = 1; k <= o->count && status == 0; k++) {
        char name[32];
        snprintf(name, sizeof name, "image_%04d.tif", k);
        d.load = load_of(o, k);
        status = tiff_image_write(o->out, name, o->grid.width, o->grid.height, dic_row, &d, o->noise, o->seed, k);
    }
    speckle_free(&sp);
    return status;
}

static int truth_write(const struct dic_options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "truth.csv", tmp, final);
    if (!f)
        return -1;
    int windows = step_grid_nx(&o->grid) * step_grid_ny(&o->grid);
    fprintf(f, "image,region,x,y,dx,dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy\n");
    for (int k = 1; k <= o->count; k++) {
        struct load l = load_of(o, k);
        for (int w = 0; w < windows; w++) {
            double x, y, u[2], g[4];
            step_grid_centre(&o->grid, w, &x, &y);
            field_at(&l, x, y, u, g);
            double exx = g[0] + 0.5 * (g[0] * g[0] + g[2] * g[2]), eyy = g[3] + 0.5 * (g[1] * g[1] + g[3] * g[3]);
            double exy = 0.5 * (g[1] + g[2] + g[0] * g[1] + g[2] * g[3]);
            fprintf(f, "image_%04d.tif,%d,%.1f,%.1f,%.9f,%.9f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", k, w, x, y,
                    tidy(u[0]), tidy(u[1]), g[0] + 0.0, g[1] + 0.0, g[2] + 0.0, g[3] + 0.0, exx + 0.0, eyy + 0.0,
                    exy + 0.0);
        }
    }
    return text_commit(f, tmp, final);
}

static int field_file_write(const struct dic_options *o)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(o->out, "field.txt", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "# clxcorr-samples --dic: image k of count carries k/count of this field (samples/dic.h);\n"
               "# affine: u(X) = t + G (X - c); sine: u(X) = (A sin(2 pi Y / L), 0); pixels, y down\n");
    fprintf(f, "field %s\ncount %d\nwidth %d\nheight %d\n", o->field == DIC_AFFINE ? "affine" : "sine", o->count,
            o->grid.width, o->grid.height);
    if (o->field == DIC_AFFINE)
        fprintf(f, "centre_x %.17g\ncentre_y %.17g\nt %.17g,%.17g\nG %.17g,%.17g,%.17g,%.17g\n",
                0.5 * (o->grid.width - 1), 0.5 * (o->grid.height - 1), o->translation[0], o->translation[1],
                o->gradient[0], o->gradient[1], o->gradient[2], o->gradient[3]);
    else
        fprintf(f, "amplitude %.17g\nwavelength %.17g\n", o->amplitude, o->wavelength);
    return text_commit(f, tmp, final);
}

int dic_write(const struct dic_options *o)
{
    if (images_write(o) != 0 || step_grid_write(&o->grid, o->out) != 0 || truth_write(o) != 0 ||
        field_file_write(o) != 0)
        return -1;
    return 0;
}
