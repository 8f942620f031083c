/*
 * value_layer.h - a colour map of one results column under the arrows of
 * the displacement picture (quiver.h, `clxcorr plot --colour COLUMN`): each
 * window's cell, a square as wide as the windows' spacing around its
 * centre (the tiles of a regular grid), filled with the column's colour at
 * VALUE_ALPHA over the image, so that the image still shows through; the
 * colours and their limits as `clxcorr plot --map` chooses them
 * (map_plot.h: the 1st to 99th percentile, diverging about 0 for signed
 * quantities), and a colour bar with the column's name and unit.
 */
#ifndef CLX_VALUE_LAYER_H
#define CLX_VALUE_LAYER_H

#include <stddef.h>
#include "plot/canvas.h"
#include "plot/map_plot.h"

#define VALUE_ALPHA 0.65

struct value_layer {
    const double *values;        /* one per window; NaN: no cell */
    const char *column;
    struct map_scale scale;
};

/* The layer's scale from its values. CLX_OK or CLX_ERR_HOST_MEMORY. */
int value_layer_prepare(struct value_layer *v, const double *values, size_t count, const char *column);

/* Cell i centred at picture point (x[i], y[i]), `side` picture pixels wide. */
void value_layer_cells(struct canvas *c, const struct value_layer *v, const double *x, const double *y, size_t count,
                       double side);

/* The colour bar at (x, y), h high, the column's name and unit above it. */
void value_layer_bar(struct canvas *c, const struct value_layer *v, int x, int y, int h);

#endif
