/* speckle.h - the speckle of clxcorr-samples --kind speckle and --dic: S(X)
 * a sum of random Gaussian spots (sigma 1-2 px, about one per 16 px^2,
 * amplitudes 0.5-1.5), defined at every real point X so that a deformed
 * image samples it exactly, with a grid of cells that finds the spots near
 * a point. */
#ifndef CLX_SAMPLES_SPECKLE_H
#define CLX_SAMPLES_SPECKLE_H

#include "sample_rng.h"

struct spot { double x, y, amp, k; };   /* k = 1 / (2 sigma^2) */

struct speckle {
    int nspots;
    struct spot *spot;
    int cells_x, cells_y;
    double x0, y0;       /* the grid's corner */
    int *cell_first;     /* cells_x * cells_y + 1 offsets into cell_spot */
    int *cell_spot;      /* spot indices, cell by cell */
};

/* Spots over the image grown by `margin` px, drawn from r. 0, or -1 after
 * reporting (out of memory). */
int speckle_draw(rng_t *r, struct speckle *sp, int width, int height, int margin);
/* S(x, y). */
double speckle_at(const struct speckle *sp, double x, double y);
void speckle_free(struct speckle *sp);

#endif
