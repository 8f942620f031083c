/*
 * tensor_plot.h - the tensor figure of `clxcorr plot --tensor`: a strain
 * results file's six strain components and three rotations over the scan
 * grid, in one picture of 3 x 3 panels, as HR-EBSD papers show them:
 *
 *   e11  e22  e33      the normal strains
 *   e12  e13  e23      the shear strains (tensor shear)
 *   w1   w2   w3       the rotations, in degrees unless radians are asked
 *
 * Each panel is a map of its component (scan_map.h), titled with its name.
 * The panels of a row share one diverging scale, white at 0, between
 * limits symmetric about 0 (the larger in size of the 1st and 99th
 * percentiles of the row's values), so that the components of a row compare
 * by their colours: e11 twice e22 is twice as deep. The row's colour bar is
 * at its right end, under a label naming the row's quantity with its
 * labels' scale factor and its unit ("normal strain (×10⁻³)" over ticks
 * 1.0, 0.5, ...; "rotation (°)"). With the grains' grid (strain --grains
 * writes a grain column), black lines between neighbouring points of
 * different grains on every panel. The panels share their axes (in µm, or
 * in scan columns and rows): the left column's carry the y labels, the
 * bottom row's the x labels, each axis named once. The caller's title
 * above; below, a caption: how the limits were chosen, the boundaries,
 * what was left out.
 *
 * Size: each panel's map as scan_map_size makes it, cells of whole pixels,
 * its longer side about TENSOR_TARGET_SIDE (or `width` wide); bars, labels
 * and text add their room.
 */
#ifndef CLX_TENSOR_PLOT_H
#define CLX_TENSOR_PLOT_H

#include "clxcorr.h"
#include "plot/map_scale.h"
#include "plot/scan_grid.h"

#define TENSOR_PANELS 9
#define TENSOR_ROWS 3
#define TENSOR_TARGET_SIDE 260

/* The panels' columns, in reading order, and the quantity of each row. */
extern const char *const tensor_columns[TENSOR_PANELS];
extern const char *const tensor_row_names[TENSOR_ROWS];

struct tensor_options {
    const char *title;                  /* above the panels (wrapped); NULL: none */
    int width;                          /* each panel's map width in pixels; 0: from the grid */
    int radians;                        /* the rotations' values are radians, not degrees: the unit named */
    const struct scan_grid *grains;     /* the grain of each point, or NULL: no boundaries */
};

/* Where tensor_write_png puts each panel's map, and each row's colour bar
 * (without its triangles), its scale and label; the picture's size. */
struct tensor_frame {
    int width, height;
    int map_w, map_h, bar_h;
    struct tensor_panel {
        int map_x, map_y;
    } panel[TENSOR_PANELS];
    struct tensor_row {
        int bar_x, bar_y;
        struct map_scale scale;
        char label[160];
    } row[TENSOR_ROWS];
};

/* The frame of the figure of grids[k] (column tensor_columns[k]'s, all of
 * one scan), as tensor_write_png would draw it. */
int tensor_frame_of(const struct scan_grid grids[TENSOR_PANELS], const struct tensor_options *options,
                    struct tensor_frame *frame, clx_message *msg);

/* Draws the figure and writes it to `path` as PNG (as PATH.part, then
 * renamed). Errors: CLX_ERR_ARGUMENT (an empty grid, a width out of
 * 16..8192), CLX_ERR_IO, CLX_ERR_HOST_MEMORY, with msg. */
int tensor_write_png(const char *path, const struct scan_grid grids[TENSOR_PANELS],
                     const struct tensor_options *options, clx_message *msg);

#endif
