/*
 * peak_search.h - finding each correlation's integer peak and copying its F x F
 * neighbourhood for the host fit: the argmax and neighbourhood kernels
 * (internal).
 */
#ifndef CLX_PEAK_SEARCH_H
#define CLX_PEAK_SEARCH_H

#include <CL/cl.h>
#include "params/kernel_params.h"

struct clx_context;

struct peak_finder {
    cl_program argmax_program, neighbourhood_program;
    /* argmax_form 0: argmax; 1: argmax_parts then argmax_combine; 2:
     * argmax_atomic then argmax_unpack; 3: argmax_rows (cl/argmax.cl).
     * second_peak: the second_peak kernel, or with form 3
     * argmax_second_rows, which finds the peak too. */
    cl_kernel argmax, argmax_finish, second_peak, neighbourhood;
    cl_mem part_values, part_indices; /* form 1: per tile, argmax_parts' pairs */
    cl_mem packed;                    /* form 2: per tile, the atomically combined (value, index) word */
    struct kernel_params params;
};

/* Builds the kernels for p and the scratch space of up to max_tiles tiles per enqueue. */
int peak_finder_build(struct clx_context *ctx, const struct kernel_params *p, int max_tiles,
                      struct peak_finder *pf);

/*
 * For the first ntiles (at most max_tiles) correlations in `corr`: writes
 * each peak's logical index (ky * 2w + kx, or -1 if none; see cl/common.h)
 * into `peaks` (int), its F x F neighbourhood into `neighbourhoods` (reals)
 * and, when `second` is not NULL, the highest other local maximum into
 * `second` (reals).
 */
int peak_finder_enqueue(struct clx_context *ctx, struct peak_finder *pf, cl_mem corr, int ntiles,
                        cl_mem peaks, cl_mem neighbourhoods, cl_mem second);

/* The shift (ux, uy) of a logical peak index for w x h windows. */
void peak_index_to_shift(int index, int w, int h, int *ux, int *uy);

void peak_finder_release(struct peak_finder *pf);

#endif
