/* plot_colours.c - colour scale and line colours (see plot_colours.h). */
#include "config.h"

#include <math.h>

#include "plot/plot_colours.h"

/*
 * The middle of Google's Turbo colour map (t from 0.1 to 0.9 in equal
 * steps): bright and of even lightness steps, and without Turbo's near-black
 * ends, which would vanish on the dark parts of a pattern.
 */
static const struct rgb scale_points[] = {
    { 73, 88, 221 },  { 47, 158, 245 }, { 39, 215, 195 }, { 78, 249, 131 }, { 150, 250, 80 },
    { 223, 220, 50 }, { 255, 163, 35 }, { 244, 92, 23 },  { 184, 32, 8 },
};
#define SCALE_POINTS (sizeof scale_points / sizeof scale_points[0])

struct rgb colour_scale(double t)
{
    if (isnan(t))
        return (struct rgb){ 160, 160, 160 };
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double at = t * (SCALE_POINTS - 1);
    size_t i = (size_t)at;
    if (i >= SCALE_POINTS - 1)
        return scale_points[SCALE_POINTS - 1];
    double f = at - i;
    struct rgb a = scale_points[i], b = scale_points[i + 1];
    return (struct rgb){ (unsigned char)lround(a.r + (b.r - a.r) * f), (unsigned char)lround(a.g + (b.g - a.g) * f),
                         (unsigned char)lround(a.b + (b.b - a.b) * f) };
}

/* Matplotlib's "tab10": ten colours told apart easily, also in print. */
static const struct rgb categories[] = {
    { 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 },  { 214, 39, 40 },  { 148, 103, 189 },
    { 140, 86, 75 },  { 227, 119, 194 }, { 127, 127, 127 }, { 188, 189, 34 }, { 23, 190, 207 },
};

struct rgb category_colour(size_t index)
{
    return categories[index % (sizeof categories / sizeof categories[0])];
}
