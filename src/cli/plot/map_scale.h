/*
 * map_scale.h - how a column of results is coloured: its unit, whether it
 * is signed, and the colour scale of its values.
 *
 * Signed quantities (dx, dy, their gradients and strains, the strain
 * tensor's components e11 ... e33, the rotations w1 ... w3, and any column
 * whose values take both signs) get a diverging scale, blue through white
 * at 0 to red, between limits symmetric about 0; others the sequential
 * colour_scale. The limits are the 1st and 99th percentiles (nearest rank)
 * of the values, so that one outlier does not flatten the picture, unless
 * fixed; values beyond a limit take its colour.
 *
 * Angles (the rotations w1, w2, w3 and the refined orientation phi1, Phi,
 * phi2) are written in radians and drawn in degrees unless asked for
 * radians: map_column_factor gives the factor, map_column_unit the unit.
 */
#ifndef CLX_MAP_SCALE_H
#define CLX_MAP_SCALE_H

#include <stddef.h>
#include "plot/plot_colours.h"

/* The colour of a point without a value. */
#define MAP_NO_VALUE ((struct rgb){ 128, 128, 128 })

enum map_scale_kind { MAP_SCALE_AUTO, MAP_SCALE_DIVERGING, MAP_SCALE_SEQUENTIAL };

/* What the scale is chosen from besides the values. */
struct map_scale_options {
    const char *column;         /* picks signed or not */
    enum map_scale_kind kind;
    int fixed;                  /* 1: lo and hi are the limits */
    double lo, hi;
};

/* The colour scale of a picture. */
struct map_scale {
    int diverging;
    double lo, hi;              /* the colours' limits (diverging: white at their midpoint) */
    int fixed;                  /* the caller's limits, not percentiles */
    size_t below, above;        /* values beyond each limit */
};

/* Whether the column is an angle, written in radians. */
int map_column_angle(const char *column);

/* What the column's values are multiplied by to be drawn: 180 / pi for an
 * angle unless `radians`, else 1. */
double map_column_factor(const char *column, int radians);

/* The unit the column is drawn in: "px", "µm", "°" or "rad" (angles),
 * "µm⁻¹" (Nye's tensor, alpha12 ...), "m⁻²" (rho_gnd), or "" (unitless). */
const char *map_column_unit(const char *column, int radians);

/* The scale of these values (NaN: no value). CLX_OK, or CLX_ERR_HOST_MEMORY. */
int map_scale_choose(const double *values, size_t count, const struct map_scale_options *options,
                     struct map_scale *scale);

/* The colour of value v on the scale (NaN: MAP_NO_VALUE). */
struct rgb map_colour(const struct map_scale *scale, double v);

#endif
