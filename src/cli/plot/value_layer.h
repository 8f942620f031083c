/*
 * value_layer.h - a colour map of one results column under the arrows of
 * the displacement picture (quiver.h, `clxcorr plot --colour COLUMN`): each
 * window's cell, a square as wide as the windows' spacing around its
 * centre (the tiles of a regular grid), filled with the column's colour at
 * VALUE_ALPHA over the image, so that the image still shows through; the
 * colours and their limits as `clxcorr plot --map` chooses them
 * (map_scale.h: the 1st to 99th percentile, diverging about 0 for signed
 * quantities), and a colour bar with the column's name and unit.
 */
#ifndef CLX_VALUE_LAYER_H
#define CLX_VALUE_LAYER_H

#include <stddef.h>
#include "plot/colour_bar.h"
#include "plot/figure.h"

#define VALUE_ALPHA 0.65

struct value_layer {
    const double *values;        /* one per window; NaN: no cell */
    const char *column;
    struct map_scale scale;
};

/* The layer's scale from its values. CLX_OK or CLX_ERR_HOST_MEMORY. */
int value_layer_prepare(struct value_layer *v, const double *values, size_t count, const char *column);

/* Cell i centred at picture point (x[i], y[i]), `side` picture pixels
 * wide, its edges on whole pixels (neighbours meet without a seam or an
 * overlap). */
void value_layer_cells(cairo_t *cr, const struct value_layer *v, const double *x, const double *y, size_t count,
                       double side);

/* The colour bar of the layer's scale, `height` pixels high, named by the
 * column and its unit. */
void value_layer_bar(const struct value_layer *v, int height, struct colour_bar *bar);

#endif
