/*
 * window_mask.h - `clxcorr offsets --mask FILE --mask-max F`: windows that a
 * mask image mostly excludes are not measured.
 *
 * The mask is an image of the reference's size (any format the command
 * reads); a pixel of value 0 is excluded, any other value kept. A window's
 * masked fraction is its excluded pixels over its area, in reference
 * coordinates (the windows are the reference's). Windows whose fraction is
 * above F are left out of the run: the library never sees them, and their
 * rows carry nan offsets and ROW_FLAG_MASKED in their place, so the rows
 * keep the window order.
 */
#ifndef CLX_WINDOW_MASK_H
#define CLX_WINDOW_MASK_H

#include <stddef.h>
#include "clxcorr.h"

/* The windows a mask keeps, and where each lies in the full list. */
struct window_mask {
    clx_region *measured;       /* the kept windows, in window order */
    size_t nmeasured;
    size_t *measured_at;        /* [nmeasured]: its index in the full list */
    unsigned char *masked;      /* [nregions]: 1 where the window is left out */
    size_t nregions;
};

/*
 * Reads the mask at `path` and keeps the windows whose masked fraction is
 * at most max_fraction. Errors (CLX_ERR_*, msg naming the file): an
 * unreadable mask, one of another size than width x height, a mask that
 * leaves no window to measure.
 */
int window_mask_apply(struct window_mask *mask, const char *path, double max_fraction, int width, int height,
                      const clx_region *regions, size_t nregions, clx_message *msg);

/* Masked fraction of one window: its pixels of value 0 over its area. */
double window_mask_fraction(const clx_image *mask, const clx_region *window);

/* One image's results for every window: the measured windows' from
 * `measured` (nmeasured of them, in order), the others `left_out`. */
void window_mask_expand(const struct window_mask *mask, const clx_result *measured, const clx_result *left_out,
                        clx_result *all);

void window_mask_free(struct window_mask *mask);

#endif
