/*
 * map_plot.h - the scan map of `clxcorr plot --map`: one column of a scan's
 * results (scan_grid.h) over the scan grid, as a PNG heat map.
 *
 * What it shows:
 *   - one cell per scan point, placed by its scan row and column (rows
 *     downwards, as in the scan), in the colour of its value; a point
 *     without a value in a neutral grey (MAP_NO_VALUE), which the legend
 *     names;
 *   - a colour bar on the right with round ticks and the column's name and
 *     unit above it. Signed quantities (dx, dy, strains, rotations, and any
 *     column whose points take both signs) get a diverging scale, blue
 *     through white at 0 to red, between symmetric limits; others the
 *     sequential colour_scale. The limits are the 1st and 99th percentiles
 *     (nearest rank) of the points' values, so that one outlier does not
 *     flatten the map, unless fixed; points beyond a limit take its colour,
 *     and a triangle at that end of the bar says there are such points;
 *   - axes in µm when the grid has positions (scan_x, scan_y), else in scan
 *     columns and rows, with round ticks at the cells' centres;
 *   - the caller's title above, and below a caption: the limits and where
 *     they come from, the rows left out.
 *
 * Size: cells as wide as high when the steps are equal (else in the steps'
 * ratio). By default a cell is a whole number of pixels, at least
 * MAP_MIN_CELL, making the map's longer side about MAP_TARGET_SIDE, but
 * that side at most MAP_MAX_SIDE (smaller cells then); `width` sets the
 * map's width instead (its height at most MAP_MAX_HEIGHT). Neither side is
 * less than MAP_MIN_SIDE: a line scan's cells are stretched across it.
 * Axes, legend and text add their room around the map; the title and the
 * caption are wrapped to the picture's width.
 */
#ifndef CLX_MAP_PLOT_H
#define CLX_MAP_PLOT_H

#include <stddef.h>
#include "clxcorr.h"
#include "plot/canvas.h"
#include "plot/scan_grid.h"

#define MAP_MIN_CELL 4
#define MAP_TARGET_SIDE 640
#define MAP_MAX_SIDE 4096
#define MAP_MAX_HEIGHT 8192
#define MAP_MIN_SIDE 48

/* The colour of a point without a value. */
#define MAP_NO_VALUE ((struct rgb){ 128, 128, 128 })

enum map_scale_kind { MAP_SCALE_AUTO, MAP_SCALE_DIVERGING, MAP_SCALE_SEQUENTIAL };

struct map_options {
    const char *column;         /* the mapped column: names the bar, picks unit and scale */
    const char *title;          /* one line above (wrapped where long); NULL: none */
    int width;                  /* the map's width in pixels; 0: from the grid */
    enum map_scale_kind scale;
    int fixed_range;            /* 1: lo and hi are the limits */
    double lo, hi;
};

/* The colour scale of a map. */
struct map_scale {
    int diverging;
    double lo, hi;              /* the colours' limits (diverging: white at their midpoint) */
    int fixed;                  /* the caller's limits, not percentiles */
    size_t below, above;        /* points beyond each limit */
};

/* The unit of a results column: "px", "µm", "rad", or "" (unitless). */
const char *map_column_unit(const char *column);

/* The scale of a map of these values (NaN: no value). CLX_OK, or
 * CLX_ERR_HOST_MEMORY. */
int map_scale_choose(const double *values, size_t count, const struct map_options *options, struct map_scale *scale);

/* The colour of value v on the scale (NaN: MAP_NO_VALUE). */
struct rgb map_colour(const struct map_scale *scale, double v);

/* The map's size in pixels (without axes, legend and text). */
void map_size(const struct scan_grid *grid, int width, int *map_w, int *map_h);

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
