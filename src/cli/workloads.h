/*
 * workloads.h - the standard workloads of `clxcorr bench` and `clxcorr tune`:
 * an image size, a window grid and synthetic images made for them, so that
 * both commands run anywhere without data and measure the same shapes on
 * every device.
 */
#ifndef CLX_WORKLOADS_H
#define CLX_WORKLOADS_H

#include <stddef.h>
#include "clxcorr.h"

struct workload {
    const char *name;          /* "ebsd-900" */
    const char *description;   /* "900x900 16-bit, 50 windows of 100x100" */
    int image_w, image_h;
    int grid_x, grid_y;        /* the window grid (clx_regions_grid) */
    int win_w, win_h;
    int margin;
};

/* The standard workloads, in the order bench runs them; NULL-name terminated. */
extern const struct workload standard_workloads[];

/* The workload called `name`, or NULL. */
const struct workload *workload_named(const char *name);

/* The workload's windows (malloc'd), or an error in msg. */
int workload_regions(const struct workload *w, clx_region **regions, size_t *count, clx_message *msg);

/*
 * A 16-bit reference and `count` images of the same synthetic texture moved
 * by known sub-pixel offsets of up to 3 px (deterministic for a seed). The
 * texture is a sum of plane waves, each evaluated exactly at the moved
 * position, so the offsets hold to rounding. images[] must have room for
 * count; free each with clx_image_free.
 */
int workload_images(const struct workload *w, size_t count, unsigned seed, clx_image *reference, clx_image *images,
                    clx_message *msg);

#endif
