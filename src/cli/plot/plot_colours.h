/* plot_colours.h - the colours of the pictures: a colour scale for
 * magnitudes, a diverging one for signed values, and distinct colours for
 * lines. */
#ifndef CLX_PLOT_COLOURS_H
#define CLX_PLOT_COLOURS_H

#include <stddef.h>

/* A colour of 8 bits a channel. */
struct rgb {
    unsigned char r, g, b;
};

/* The colour of t in [0, 1] (clamped): blue, cyan, green, yellow, orange,
 * red. NaN gives grey. */
struct rgb colour_scale(double t);

/* The diverging scale of t in [0, 1] (clamped): dark blue, light blue, near
 * white at 0.5, light red, dark red. NaN gives grey. */
struct rgb diverging_colour(double t);

/* The ten distinct line colours, cycled (index 10 is index 0's). */
struct rgb category_colour(size_t index);

#endif
