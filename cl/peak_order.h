/*
 * peak_order.h - the order in which correlation values compete for the
 * peak, shared by every kernel that searches for it (cl/argmax.cl and the
 * search fused into cl/fft_local.cl's inverse transform), so that all of
 * them pick the same place: the largest value wins; equal values go to the
 * smaller logical index ky * 2 WIN_W + kx (common.h); NaN never wins; an
 * index below 0 means "nothing found yet".
 *
 * Needs `real` defined by the including kernel.
 */
#ifndef CLX_PEAK_ORDER_H
#define CLX_PEAK_ORDER_H

/* Does candidate (v, k) beat the best so far (bv, bk)? */
static inline int peak_beats(real v, int k, real bv, int bk)
{
    if (k < 0 || isnan(v))
        return 0;
    return bk < 0 || v > bv || (v == bv && k < bk);
}

#endif
