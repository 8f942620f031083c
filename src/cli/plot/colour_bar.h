/*
 * colour_bar.h - the colour bar beside a map or a field of arrows: the
 * scale's colours from its top (hi) to its bottom (lo) in a frame, round
 * ticks on its right with their labels, and a triangle on an end beyond
 * which values lie, in that end's colour.
 *
 * Its label names the quantity with the labels' scale factor and the unit,
 * as a published figure has it: "e11 (×10⁻³)" over ticks 1.0, 0.5, ...
 * (not -0.0010, -0.0005), "w3 (°)", "dx (px)". The caller places it, above
 * the bar (map_plot, quiver, tensor_plot).
 */
#ifndef CLX_COLOUR_BAR_H
#define CLX_COLOUR_BAR_H

#include <cairo.h>
#include "plot/map_scale.h"

#define COLOUR_BAR_W 20          /* the colours' width */
#define COLOUR_BAR_TRIANGLE 13   /* an end triangle's height */

struct colour_bar {
    struct map_scale scale;
    double step;                 /* between ticks */
    long first, last;            /* the ticks are k * step, k = first ... last */
    int exponent;                /* tick labels in units of 10^exponent */
    char label[160];
    double ticks_width;          /* the widest tick label, in pixels */
};

/* The bar of scale s for a quantity (`unit` "" for none), `height` pixels
 * high: ticks at least about 40 pixels apart. */
void colour_bar_plan(struct colour_bar *b, const struct map_scale *s, const char *name, const char *unit, int height);

/* The room the bar takes right of its left edge: colours, ticks and labels. */
int colour_bar_width(const struct colour_bar *b);

/* Draws the bar with its colours' top-left corner at (x, y), h high, and
 * its triangles beyond (COLOUR_BAR_TRIANGLE above and below, where values
 * lie beyond). The label is not drawn. */
void colour_bar_draw(cairo_t *cr, const struct colour_bar *b, int x, int y, int h);

#endif
