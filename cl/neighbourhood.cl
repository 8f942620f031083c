/*
 * neighbourhood.cl - copy the F x F correlation values around each peak into
 * one small buffer for the host's sub-pixel fit (seed pipeline step 4).
 *
 * Indices wrap around the logical 2 WIN_W x 2 WIN_H layout, as doc/conventions.md
 * says (a neighbour past +WIN_W - 1 is the shift on the negative side);
 * the shifts +-WIN_W, +-WIN_H have no overlap and read as 0. Every other
 * shift reached lies within STORE_RX, STORE_RY: the correlators store the
 * searched range plus (FIT_SIZE - 1) / 2, or everything. A tile without a
 * peak (argmax gave -1) gets NaN.
 *
 * NDRange: global (FIT_SIZE * FIT_SIZE, ntiles).
 */
#include "common.h"

#ifndef FIT_SIZE
#define FIT_SIZE 5      /* F: the neighbourhood is F x F (odd, < 2 min(WIN_W, WIN_H)) */
#endif
#define FIT_R ((FIT_SIZE - 1) / 2)

/* a mod m in [0, m) for any int a. */
static inline int wrap(int a, int m)
{
    const int r = a % m;
    return r < 0 ? r + m : r;
}

__kernel void neighbourhood(__global const real *corr, __global const int *peaks,
                            __global real *out, int ntiles)
{
    const int j = get_global_id(0);
    const int tile = get_global_id(1);
    if (j >= FIT_SIZE * FIT_SIZE || tile >= ntiles)
        return;

    const int key = peaks[tile];
    real v;
    if (key < 0) {
        v = NAN;
    } else {
        const int kx = wrap(key % LOGICAL_W + j % FIT_SIZE - FIT_R, LOGICAL_W);
        const int ky = wrap(key / LOGICAL_W + j / FIT_SIZE - FIT_R, LOGICAL_H);
        if (kx == WIN_W || ky == WIN_H) {
            v = 0;
        } else {
            const int ux = kx < WIN_W ? kx : kx - LOGICAL_W;
            const int uy = ky < WIN_H ? ky : ky - LOGICAL_H;
            v = corr[(size_t)tile * CORR_PIXELS + corr_index(ux, uy)];
        }
    }
    out[(size_t)tile * FIT_SIZE * FIT_SIZE + j] = v;
}
