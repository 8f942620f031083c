/* speckle.c - random Gaussian spots, found by cell (speckle.h). */
#include <math.h>
#include <stdlib.h>

#include "sample_files.h"
#include "speckle.h"

#define SPECKLE_CELL 8.0       /* px; spots reach at most 4 sigma = 8 px */
#define SPECKLE_AREA 16.0      /* px^2 per spot */

int speckle_draw(rng_t *r, struct speckle *sp, int width, int height, int margin)
{
    double w = width + 2.0 * margin, h = height + 2.0 * margin;
    sp->x0 = -margin - SPECKLE_CELL;
    sp->y0 = -margin - SPECKLE_CELL;
    sp->cells_x = (int)ceil(w / SPECKLE_CELL) + 2;
    sp->cells_y = (int)ceil(h / SPECKLE_CELL) + 2;
    sp->nspots = (int)(w * h / SPECKLE_AREA);
    int ncells = sp->cells_x * sp->cells_y;
    sp->spot = malloc(sizeof *sp->spot * sp->nspots);
    sp->cell_first = calloc((size_t)ncells + 1, sizeof *sp->cell_first);
    sp->cell_spot = malloc(sizeof *sp->cell_spot * sp->nspots);
    int *fill = calloc((size_t)ncells, sizeof *fill);
    if (!sp->spot || !sp->cell_first || !sp->cell_spot || !fill) {
        free(fill);
        report("out of memory for %d speckle spots", sp->nspots);
        return -1;
    }
    for (int i = 0; i < sp->nspots; i++) {
        struct spot *o = &sp->spot[i];
        double sigma = rng_range(r, 1.0, 2.0);
        o->x = -margin + rng_uniform(r) * w;
        o->y = -margin + rng_uniform(r) * h;
        o->amp = rng_range(r, 0.5, 1.5);
        o->k = 0.5 / (sigma * sigma);
    }
    /* Counting sort of the spots into cells. */
    for (int i = 0; i < sp->nspots; i++) {
        int cx = (int)((sp->spot[i].x - sp->x0) / SPECKLE_CELL), cy = (int)((sp->spot[i].y - sp->y0) / SPECKLE_CELL);
        sp->cell_first[cy * sp->cells_x + cx + 1]++;
    }
    for (int c = 0; c < ncells; c++)
        sp->cell_first[c + 1] += sp->cell_first[c];
    for (int i = 0; i < sp->nspots; i++) {
        int cx = (int)((sp->spot[i].x - sp->x0) / SPECKLE_CELL), cy = (int)((sp->spot[i].y - sp->y0) / SPECKLE_CELL);
        int c = cy * sp->cells_x + cx;
        sp->cell_spot[sp->cell_first[c] + fill[c]++] = i;
    }
    free(fill);
    return 0;
}

/* The spots of the 3 x 3 cells around the point. */
double speckle_at(const struct speckle *sp, double x, double y)
{
    int cx = (int)floor((x - sp->x0) / SPECKLE_CELL), cy = (int)floor((y - sp->y0) / SPECKLE_CELL);
    double v = 0;
    for (int j = cy - 1; j <= cy + 1; j++) {
        if (j < 0 || j >= sp->cells_y)
            continue;
        for (int i = cx - 1; i <= cx + 1; i++) {
            if (i < 0 || i >= sp->cells_x)
                continue;
            int c = j * sp->cells_x + i;
            for (int n = sp->cell_first[c]; n < sp->cell_first[c + 1]; n++) {
                const struct spot *o = &sp->spot[sp->cell_spot[n]];
                double dx = x - o->x, dy = y - o->y, q = o->k * (dx * dx + dy * dy);
                if (q < 8.0)
                    v += o->amp * exp(-q);
            }
        }
    }
    return v;
}

void speckle_free(struct speckle *sp)
{
    free(sp->spot);
    free(sp->cell_first);
    free(sp->cell_spot);
}
