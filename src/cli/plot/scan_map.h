/*
 * scan_map.h - a scan drawn in a rectangle of a picture, as `plot --map`
 * draws one and `plot --tensor` nine: one cell per scan point in its
 * value's colour (rows downwards, as in the scan; a point without a value
 * MAP_NO_VALUE), the boundaries between points of different grains, a
 * frame, and the axes, in µm when the grid has positions (scan_x, scan_y),
 * else in scan columns and rows, with round ticks.
 *
 * Size: cells as wide as high when the steps are equal (else in the steps'
 * ratio). By default a cell is a whole number of pixels, at least
 * `min_cell`, making the map's longer side about `target`, but that side at
 * most MAP_MAX_SIDE (smaller cells then); a width sets the map's width
 * instead (its height at most MAP_MAX_HEIGHT). Neither side is less than
 * MAP_MIN_SIDE: a line scan's cells are stretched across it.
 */
#ifndef CLX_SCAN_MAP_H
#define CLX_SCAN_MAP_H

#include "plot/figure.h"
#include "plot/map_scale.h"
#include "plot/scan_grid.h"

#define MAP_MAX_SIDE 4096
#define MAP_MAX_HEIGHT 8192
#define MAP_MIN_SIDE 48

/* The map's size in pixels: `width` wide (0: cells of whole pixels, at
 * least min_cell, the longer side about `target`). */
void scan_map_size(const struct scan_grid *grid, int width, int target, int min_cell, int *map_w, int *map_h);

/* An axis of the map: the values at its two edges, the first and last
 * points' (where the ticks go), the tick step and its name ("x (µm)",
 * "scan column"). */
struct map_axis {
    double lo, hi, first, last, step;
    const char *name;
};

/* The axes of a map of w x h pixels. */
void scan_map_axes(const struct scan_grid *grid, int w, int h, struct map_axis *ax, struct map_axis *ay);

/* The widest tick label of an axis, in pixels. */
int scan_axis_label_width(const struct map_axis *axis);

/* The room under a map its x ticks and labels take, and the length of a tick. */
#define MAP_TICK 5
int scan_axis_x_height(void);

/* The cells, in the colours of their values on scale s, the map's top-left
 * pixel at (x, y), w x h pixels, and its frame around them. */
void scan_map_cells(struct figure *f, int x, int y, int w, int h, const struct scan_grid *grid,
                    const struct map_scale *s);

/* Lines between neighbouring points whose grains differ (both points with
 * a grain value; 0, no grain, is one), over the cells drawn so. */
void scan_map_boundaries(cairo_t *cr, int x, int y, int w, int h, const struct scan_grid *grains);

/* The ticks of the x axis under the map (with labels when `labels`), and of
 * the y axis on its left. */
void scan_map_x_ticks(cairo_t *cr, const struct map_axis *ax, int x, int y, int w, int h, int labels);
void scan_map_y_ticks(cairo_t *cr, const struct map_axis *ay, int x, int y, int h, int labels);

#endif
