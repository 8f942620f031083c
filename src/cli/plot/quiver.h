/*
 * quiver.h - the displacement picture: the reference image in grey with one
 * arrow per window, from the window's centre along its offset (dx, dy),
 * written as PNG. `clxcorr plot` draws it from a results file; `clxcorr
 * offsets` can draw it from its results (quiver_arrows_from_results).
 *
 * What it shows:
 *   - the reference, scaled to the picture's width, its grey levels
 *     stretched between the 0.5 % and 99.5 % quantiles of its pixels and
 *     lightened so that the arrows stand out;
 *   - one arrow per window, as matplotlib's quiver draws them (a shaft and a
 *     head, with a thin dark outline), scaled as matplotlib's and PIVlab's
 *     are to the windows' grid: the longest arrow as long as the distance
 *     between neighbouring arrows (the median distance from a window's
 *     centre to its nearest neighbour's), whatever the offsets' size; its
 *     colour the offset's magnitude |d| = hypot(dx, dy) on the colour scale,
 *     its shaft 0.08 of that distance wide (1.2 to 3 pixels);
 *   - where the windows are less than QUIVER_MIN_SPACING picture pixels
 *     apart (a dense PIV field in a small picture), the arrows of every
 *     k-th window along each axis of their grid only, k the least that
 *     makes them that far apart (quiver_options.arrow_step sets k): an
 *     arrow needs room to be read;
 *   - a colour bar on the right from 0 to a whole number of round steps
 *     (1, 2 or 5 times a power of ten, about a quarter of the largest |d|)
 *     at or above the largest |d|, its ticks labelled; under it a scale
 *     arrow of a round offset, with its length in px;
 *   - below the image, what the arrows' length is: "arrows 2.03x the
 *     offset: the longest (7.9 px) as long as their spacing";
 *   - windows with flags != 0 drawn in grey, no longer than the longest
 *     other arrow, and left out of the scales (an outlier of 40 px would
 *     shrink every other arrow to a dot), counted in the caption; windows
 *     with a NaN offset are not drawn;
 *   - arrows kept inside the image part (clipped at its border);
 *   - with quiver_options' values, a column's colour map under the arrows
 *     (value_layer.h), the arrows white and the colour bar the column's.
 *
 * Size: the image part is `width` pixels wide (0: the reference's width,
 * but 640 to 1600) and as high as the reference's aspect asks (at most 1600
 * pixels, the width then shrinking to match). Around it: QUIVER_MARGIN on
 * every side, QUIVER_TITLE_HEIGHT above, QUIVER_CAPTION_HEIGHT below and
 * QUIVER_LEGEND_WIDTH (plus a margin) on the right:
 *   PNG width  = image width  + 3 * QUIVER_MARGIN + QUIVER_LEGEND_WIDTH
 *   PNG height = image height + 2 * QUIVER_MARGIN + QUIVER_TITLE_HEIGHT + QUIVER_CAPTION_HEIGHT
 * or, for an image part less than about 210 pixels high, as high as the
 * legend needs.
 */
#ifndef CLX_QUIVER_H
#define CLX_QUIVER_H

#include <stddef.h>
#include "clxcorr.h"

#define QUIVER_MARGIN 16
#define QUIVER_TITLE_HEIGHT 30
#define QUIVER_CAPTION_HEIGHT 48
#define QUIVER_LEGEND_WIDTH 130
#define QUIVER_MIN_SPACING 18

/* One window's arrow, in reference pixel coordinates. */
struct quiver_arrow {
    double x, y;        /* the window's centre: x0 + (w - 1) / 2, y0 + (h - 1) / 2 */
    double dx, dy;      /* its offset (NaN: not drawn) */
    unsigned flags;     /* CLX_FLAG_*; not 0: drawn grey, capped, outside the scales */
};

struct quiver_options {
    int width;           /* the image part's width in pixels; 0: from the reference */
    const char *title;   /* one line above the picture; NULL: none */
    /* A colour map of a column under the arrows (value_layer.h), NULL for
     * none: values[i] is arrow i's window's. The arrows are then white
     * (flagged ones grey) and the colour bar is the column's. */
    const double *values;
    const char *column;
    /* Every arrow_step-th window's arrow along each axis of the windows'
     * grid is drawn; 0: the least step that puts the drawn arrows at
     * least QUIVER_MIN_SPACING picture pixels apart; 1: every window's. */
    int arrow_step;
};

/*
 * Draws the picture of `count` arrows over `reference` and writes it to
 * `path` as PNG (written as PATH.part, then renamed). options may be NULL.
 * Errors: CLX_ERR_ARGUMENT (an empty reference, a width out of 64..8192),
 * CLX_ERR_IO (the file), CLX_ERR_HOST_MEMORY; msg (not NULL) says which in
 * one line, naming the file.
 */
int quiver_write_png(const char *path, const clx_image *reference, const struct quiver_arrow *arrows, size_t count,
                     const struct quiver_options *options, clx_message *msg);

/* The arrows of one image's results: arrows[i] from regions[i] and results[i]. */
void quiver_arrows_from_results(const clx_region *regions, const clx_result *results, size_t count,
                                struct quiver_arrow *arrows);

/*
 * Each window's mean offset over many images, gathered image by image (as
 * `clxcorr offsets` delivers them, or as `clxcorr plot` reads them). The
 * mean leaves out the rows with flags where the window has rows without;
 * a window flagged in every image gets the mean of all its rows and the
 * union of their flags (so it is drawn grey); NaN offsets are skipped.
 */
struct quiver_mean {
    size_t windows;
    double *sum;        /* [window * 4]: dx, dy of the unflagged rows, then of the flagged */
    size_t *rows;       /* [window * 2]: unflagged rows, flagged rows */
    unsigned *flags;    /* [window]: the union of the flagged rows' flags */
};

/* CLX_OK, or CLX_ERR_HOST_MEMORY. */
int quiver_mean_init(struct quiver_mean *mean, size_t windows);
/* Adds one row: window `window`'s offset in one image. */
void quiver_mean_add(struct quiver_mean *mean, size_t window, double dx, double dy, unsigned flags);
/* Adds one image's results, windows in plan order (mean->windows of them). */
void quiver_mean_add_results(struct quiver_mean *mean, const clx_result *results);
/* Sets each arrow's dx, dy and flags to its window's mean (x and y are the caller's). */
void quiver_mean_arrows(const struct quiver_mean *mean, struct quiver_arrow *arrows);
void quiver_mean_free(struct quiver_mean *mean);

#endif
