/*
 * peak_parts.h - the first half of a peak search that a correlator does
 * while it writes its correlations (internal).
 *
 * The argmax (peak_search.h) reads every correlation once more after the
 * correlator wrote it. A correlator that can (the FFT path on the "local"
 * backend, cl/fft_local.cl) searches the values as it stores them instead
 * and leaves a few (value, logical index) pairs per tile, by the same rule
 * and over the same shifts as the argmax (cl/peak_order.h); the peak
 * finder then only combines them (cl/argmax.cl's argmax_combine).
 */
#ifndef CLX_PEAK_PARTS_H
#define CLX_PEAK_PARTS_H

#include <CL/cl.h>

struct peak_parts {
    cl_mem values, indices;      /* per tile, the correlator's pairs (reals, ints) */
    int search_rx, search_ry;    /* the shifts searched: |ux| <= search_rx, |uy| <= search_ry */
    int win_w, win_h;            /* the windows, whose 2w x 2h logical layout numbers the shifts */
};

#endif
