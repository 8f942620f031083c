/*
 * map_plot.h - the scan map of `clxcorr plot --map`: one column of a scan's
 * results (scan_grid.h) over the scan grid, as a PNG heat map.
 *
 * What it shows:
 *   - the scan (scan_map.h): one cell per scan point, placed by its scan row
 *     and column (rows downwards, as in the scan), in the colour of its
 *     value; a point without a value in a neutral grey (MAP_NO_VALUE),
 *     which the legend names; with the grains' grid, black lines between
 *     points of different grains;
 *   - a colour bar on the right (colour_bar.h) with round ticks, and above
 *     it the column's name, its labels' scale factor and its unit; the
 *     scale as map_scale.h chooses it (diverging about 0 for signed
 *     quantities, between the 1st and 99th percentiles unless fixed), a
 *     triangle at an end of the bar saying that points lie beyond it;
 *   - axes in µm when the grid has positions (scan_x, scan_y), else in scan
 *     columns and rows, with round ticks at the cells' centres;
 *   - the caller's title above, and below a caption: the limits and where
 *     they come from, the rows left out.
 *
 * Size: the map as scan_map_size makes it, cells of whole pixels at least
 * MAP_MIN_CELL wide, its longer side about MAP_TARGET_SIDE (or `width`
 * wide). Axes, legend and text add their room around the map; the title
 * and the caption are wrapped to the picture's width.
 */
#ifndef CLX_MAP_PLOT_H
#define CLX_MAP_PLOT_H

#include <stddef.h>
#include "clxcorr.h"
#include "plot/map_scale.h"
#include "plot/scan_grid.h"

#define MAP_MIN_CELL 4
#define MAP_TARGET_SIDE 640

struct map_options {
    const char *column;         /* the mapped column: names the bar, picks unit and scale */
    const char *title;          /* one line above (wrapped where long); NULL: none */
    int width;                  /* the map's width in pixels; 0: from the grid */
    enum map_scale_kind scale;
    int fixed_range;            /* 1: lo and hi are the limits */
    double lo, hi;
    int radians;                /* angles' values are in radians (else degrees): the unit named */
    const struct scan_grid *grains;  /* the grain of each point (same grid), or NULL: no boundaries */
};

/* The map's size in pixels (without axes, legend and text). */
void map_size(const struct scan_grid *grid, int width, int *map_w, int *map_h);

/* What a caption says was left out of the grid's values ("left out: 1
 * flagged row, 2 nan rows, 2 of 384 points without a value"), "" for
 * nothing. */
void map_left_out(const struct scan_grid *grid, char *out, size_t len);

/* Where map_write_png puts the map and the colour bar (without its end
 * triangles), and the picture's size. */
struct map_frame {
    int map_x, map_y, map_w, map_h;
    int bar_x, bar_y, bar_w, bar_h;
    int width, height;
};

/* The frame of the picture map_write_png would draw; its errors. */
int map_frame_of(const struct scan_grid *grid, const struct map_options *options, struct map_frame *frame,
                 clx_message *msg);

/*
 * Draws the map of `grid` and writes it to `path` as PNG (as PATH.part,
 * then renamed). Errors: CLX_ERR_ARGUMENT (an empty grid, a width out of
 * 16..8192), CLX_ERR_IO, CLX_ERR_HOST_MEMORY, with msg.
 */
int map_write_png(const char *path, const struct scan_grid *grid, const struct map_options *options,
                  clx_message *msg);

#endif
