/*
 * displacement_field.h - a displacement field on a regular grid of windows,
 * as PIV and DIC passes measure it, and what is done to it between passes
 * (internal; host only):
 *
 *   validation   the normalised median test of Westerweel and Scarano
 *                (Exp. Fluids 39, 2005) over the 8 neighbours, measured
 *                from the plane through them (see neighbourhood_value in
 *                the .c: at a border the plain median misjudges a
 *                gradient), on the field or on what is left of it beyond
 *                a trend (a deformed pass's predictor), and the quality
 *                and range thresholds;
 *   replacement  each rejected vector by its valid neighbours' value at
 *                it (that plane, or their median where they fix none),
 *                as often as needed to fill every gap;
 *   smoothing    a 3 x 3 binomial filter (the predictor of the next pass
 *                only: the reported field is not smoothed);
 *   evaluation   at any point, by the same bicubic (Catmull-Rom)
 *                interpolation over the grid that cl/field_warp.cl uses
 *                to deform the images, so the next pass's predictor at a
 *                window centre is exactly what its images were deformed by.
 *
 * Grid point (i, j) lies at (x0 + i step_x, y0 + j step_y); u, v are
 * displacements in px (position in the image minus in the reference).
 */
#ifndef CLX_DISPLACEMENT_FIELD_H
#define CLX_DISPLACEMENT_FIELD_H

#include "clxcorr.h"

struct displacement_field {
    int nx, ny;
    double x0, y0, step_x, step_y;
    double *u, *v;              /* nx * ny, row by row */
    unsigned char *valid;       /* 1: a vector to trust (measured and not rejected) */
};

/* What validation rejects. */
struct field_validation {
    double median_threshold;    /* the normalised median test's (2 is usual; <= 0: no test) */
    double median_epsilon;      /* px: the expected noise (0.1 is usual) */
    double min_peak_ratio;      /* <= 0: not tested */
    double min_zncc;            /* <= -1: not tested */
    double max_displacement;    /* px, |d|; <= 0: not tested */
};

void field_validation_defaults(struct field_validation *v);

/* A field of nx x ny points; CLX_OK or CLX_ERR_HOST_MEMORY. */
int field_create(struct displacement_field *f, int nx, int ny, double x0, double y0, double step_x, double step_y);
void field_free(struct displacement_field *f);

/* The field from one image's results (nx * ny of them, row by row): a
 * vector is valid where the result has a finite offset. */
void field_from_results(struct displacement_field *f, const clx_result *results);

/* Marks invalid (and flags outlier in results, when not NULL) the vectors
 * that fail the tests; returns how many it rejected. The median test judges
 * f minus trend (a field on the same points; NULL: f itself), the range
 * test f. */
int field_validate(struct displacement_field *f, const struct field_validation *v,
                   const struct displacement_field *trend, clx_result *results);

/* Replaces every invalid vector by the median of its valid neighbours,
 * sweeping until none is left; returns the vectors replaced (-1 when no
 * vector at all is valid: the field is then zero). */
int field_replace(struct displacement_field *f);

/* A 3 x 3 binomial smoothing of u and v (into the field). */
void field_smooth(struct displacement_field *f);

/* The displacement at (x, y), bicubic over the grid, the grid's edge
 * values held beyond it. */
void field_at(const struct displacement_field *f, double x, double y, double *u, double *v);

#endif
