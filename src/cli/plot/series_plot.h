/*
 * series_plot.h - the time series picture of `clxcorr plot --series`: dx
 * (upper panel) and dy (lower panel) of each window against the image's
 * index in the results file, written as PNG.
 *
 * One line per window: up to 10 windows in distinct colours named in a
 * legend, more coloured by window index on the colour scale with a colour
 * bar; one chosen window in a thicker line with its points marked. Axes
 * have round ticks and grid lines; rows the file lacks (NaN) break a line.
 *
 * Size: `width` x round(0.72 width) pixels (width 0: 1000).
 */
#ifndef CLX_SERIES_PLOT_H
#define CLX_SERIES_PLOT_H

#include "clxcorr.h"
#include "plot/results_csv.h"

#define SERIES_DEFAULT_WIDTH 1000

struct series_options {
    int width;            /* 0: SERIES_DEFAULT_WIDTH; 400 to 8192 */
    long window;          /* the one window to draw; -1: every window */
    const char *title;    /* one line above the panels; NULL: none */
};

/* The picture's height for a width (0: the default width). */
int series_height(int width);

/* Draws the series of `table` and writes it to `path` (as PATH.part, then
 * renamed). Errors name the problem in msg. */
int series_write_png(const char *path, const struct results_table *table, const struct series_options *options,
                     clx_message *msg);

#endif
