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

/*
 * ColorBrewer's RdBu (11 classes) reversed: dark blue for the most
 * negative, near white at 0, dark red for the most positive, of even
 * lightness steps on both sides, and without greys, so that a neutral grey
 * stays apart from every value.
 */
static const struct rgb diverging_points[] = {
    { 5, 48, 97 },     { 33, 102, 172 },  { 67, 147, 195 }, { 146, 197, 222 }, { 209, 229, 240 }, { 247, 247, 247 },
    { 253, 219, 199 }, { 244, 165, 130 }, { 214, 96, 77 },  { 178, 24, 43 },   { 103, 0, 31 },
};
#define DIVERGING_POINTS (sizeof diverging_points / sizeof diverging_points[0])

/* t in [0, 1] (clamped) along the points, linearly between neighbours. */
static struct rgb interpolate(const struct rgb *points, size_t count, double t)
{
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double at = t * (count - 1);
    size_t i = (size_t)at;
    if (i >= count - 1)
        return points[count - 1];
    double f = at - i;
    struct rgb a = points[i], b = points[i + 1];
    return (struct rgb){ (unsigned char)lround(a.r + (b.r - a.r) * f), (unsigned char)lround(a.g + (b.g - a.g) * f),
                         (unsigned char)lround(a.b + (b.b - a.b) * f) };
}

struct rgb colour_scale(double t)
{
    if (isnan(t))
        return (struct rgb){ 160, 160, 160 };
    return interpolate(scale_points, SCALE_POINTS, t);
}

struct rgb diverging_colour(double t)
{
    if (isnan(t))
        return (struct rgb){ 160, 160, 160 };
    return interpolate(diverging_points, DIVERGING_POINTS, t);
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
