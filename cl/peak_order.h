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

/* The best of a work-group's n pairs (best_v[i], best_k[i]), one per
 * work-item, into element 0 by peak_beats: a tree over n, a power of two.
 * Every work-item calls it after storing its pair; it ends with a barrier. */
static inline void peak_reduce_group(__local real *best_v, __local int *best_k, int n)
{
    const int lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n / 2; s > 0; s >>= 1) {
        if (lid < s && peak_beats(best_v[lid + s], best_k[lid + s], best_v[lid], best_k[lid])) {
            best_v[lid] = best_v[lid + s];
            best_k[lid] = best_k[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#endif
