/*
 * outliers.h - flagging offsets that disagree with their neighbours: the
 * normalised median test of Westerweel and Scarano (Exp. Fluids 39, 2005),
 * for windows laid out on a grid (internal).
 *
 * The test runs on the offsets minus their affine fit over the image's
 * windows (u - (a + b x + c y) per component; least squares, refitted
 * without the values far from the plane so that a wild window cannot tilt
 * it): a homogeneous strain or rotation, the usual state of an EBSD map,
 * then leaves no gradient for the border windows, whose neighbours all lie
 * on one side, to be mistaken for an outlier (with the plain test, 0.2 %
 * strain flagged most of a 10 x 5 grid's top and bottom rows).
 *
 * For each window and each component: u_m, the median of its up to 8 grid
 * neighbours' (detrended) values; r_m, the median of |u_i - u_m| over those
 * neighbours; the window fails when |u - u_m| / (r_m + EPSILON) exceeds
 * THRESHOLD in either component. Neighbours without a finite offset are
 * left out; a window with fewer than 3 usable neighbours is not tested.
 */
#ifndef CLX_OUTLIERS_H
#define CLX_OUTLIERS_H

#include "clxcorr.h"

#define OUTLIER_THRESHOLD 2.0   /* the test's usual threshold */
#define OUTLIER_EPSILON 0.1     /* px: the expected noise of the offsets */

/* Where each window sits on the grid the windows form, if they form one. */
struct window_grid {
    int nx, ny;
    int *region_at;     /* nx * ny: the window at grid cell (i, j), row by row */
};

/* 0 and a grid when the windows' corners form a full nx x ny grid (every
 * combination of their distinct x and y corners used once); -1 otherwise. */
int window_grid_detect(const clx_region *regions, int count, struct window_grid *grid);
void window_grid_release(struct window_grid *grid);

/* Sets CLX_FLAG_OUTLIER in the results (one per window, in window order) of
 * one image that fail the test. */
void outliers_flag(const struct window_grid *grid, const clx_region *regions, clx_result *results);

#endif
