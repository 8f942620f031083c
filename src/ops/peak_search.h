/*
 * peak_search.h - finding each correlation's integer peak and copying its F x F
 * neighbourhood for the host fit: the argmax and neighbourhood kernels
 * (internal).
 */
#ifndef CLX_PEAK_SEARCH_H
#define CLX_PEAK_SEARCH_H

#include <CL/cl.h>
#include "ops/peak_parts.h"
#include "params/kernel_params.h"

struct clx_context;

struct peak_finder {
    cl_program argmax_program, neighbourhood_program;
    /* argmax_form 0: argmax; 1: argmax_parts then argmax_combine; 2:
     * argmax_atomic then argmax_unpack; 3: argmax_rows (cl/argmax.cl).
     * second_peak: the second_peak kernel, or with form 3
     * argmax_second_rows, which finds the peak too. */
    cl_kernel argmax, argmax_finish, second_peak, neighbourhood;
    cl_kernel combine;                /* parts_per_tile > 0: argmax_combine over the correlator's pairs */
    cl_mem part_values, part_indices; /* form 1: per tile, argmax_parts' pairs; or the correlator's */
    cl_mem packed;                    /* form 2: per tile, the atomically combined (value, index) word */
    int parts_per_tile;               /* > 0: the correlator searches (peak_parts.h), the argmax only combines */
    struct kernel_params params;
};

/*
 * Builds the kernels for p and the scratch space of up to max_tiles tiles
 * per enqueue. parts_per_tile > 0: the correlator will search each tile
 * and leave that many pairs (its peak_parts); the peak finder keeps them
 * (peak_finder_parts) and only combines them. Not with argmax_form 3,
 * whose scan of each tile by one work-item is for CPUs, which the
 * correlators that search do not run on: pf->parts_per_tile is then 0.
 */
int peak_finder_build(struct clx_context *ctx, const struct kernel_params *p, int max_tiles, int parts_per_tile,
                      struct peak_finder *pf);

/* Where the correlator leaves its pairs (pf->parts_per_tile > 0), and the shifts to search. */
void peak_finder_parts(const struct peak_finder *pf, struct peak_parts *parts);

/*
 * For the first ntiles (at most max_tiles) correlations in `corr`: writes
 * each peak's logical index (ky * 2w + kx, or -1 if none; see cl/common.h)
 * into `peaks` (int), its F x F neighbourhood into `neighbourhoods` (reals)
 * and, when `second` is not NULL, the highest other local maximum into
 * `second` (reals). `searched`: the correlator has left its pairs in
 * peak_finder_parts' buffers (pf->parts_per_tile > 0), which are combined
 * instead of searching `corr`.
 */
int peak_finder_enqueue(struct clx_context *ctx, struct peak_finder *pf, cl_mem corr, int ntiles, int searched,
                        cl_mem peaks, cl_mem neighbourhoods, cl_mem second);

/* The shift (ux, uy) of a logical peak index for w x h windows. */
void peak_index_to_shift(int index, int w, int h, int *ux, int *uy);

void peak_finder_release(struct peak_finder *pf);

#endif
