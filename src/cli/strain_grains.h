/*
 * strain_grains.h - `clxcorr strain --grains`: the scan's grains, its
 * patterns put in order grain by grain, and each grain's reference
 * pattern (clx_grains_segment and clx_grains_references over the
 * orientations, or a grain map the user made).
 *
 * The patterns are reordered before anything else splits the list
 * (shards, MPI ranks, --resume), so that every process sees the same
 * order: each grain's points in scan order, grain after grain, the points
 * in no grain last. A stream then measures each grain against its own
 * reference (clx_stream_options.references) with no reference switch
 * inside a grain.
 */
#ifndef CLX_STRAIN_GRAINS_H
#define CLX_STRAIN_GRAINS_H

#include <stddef.h>
#include "clxcorr.h"
#include "image_list.h"

struct strain_options;

struct strain_grains {
    int count;                  /* grains; 0: no --grains */
    int *item_grain;            /* per item, in the new order: 1..count, 0 in no grain */
    size_t *reference_item;     /* per grain: the item of its reference pattern */
    const char *from;           /* how they were found, for --explain */
};

/*
 * With o->grains: the grains of items' scan, items reordered in place
 * grain by grain, and each grain's reference. Reports what is wrong (one
 * line, naming the option) and returns -1; 0 also without --grains (count 0).
 */
int strain_grains_assign(const struct strain_options *o, struct image_items *items, struct strain_grains *grains);
void strain_grains_free(struct strain_grains *grains);

#endif
