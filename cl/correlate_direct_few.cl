/*
 * correlate_direct_few.cl - the direct path for a handful of shifts (the
 * refinement's: one pixel either way plus the fit's neighbourhood), where
 * correlate_direct's shift-parallel blocks would leave most work-items
 * without a shift. Same sum, other decomposition: the pixels are split,
 * not the shifts.
 *
 * One work-group per tile. Work-item l takes pixels l, l + DIRECT_FEW_WG,
 * ... of the reference window (neighbours take neighbouring pixels: loads
 * coalesce) and accumulates every stored shift for them in registers; the
 * work-items' partial sums are then added in work-item order, a fixed
 * order, so the result is the same on every run.
 *
 * Layouts as correlate_direct.cl: compact windows (PAD_W = WIN_W), compact
 * correlation (CORR_W = 2 STORE_RX + 1). Slot s holds tile s, or tile
 * tile_ids[s] when the slots are a subset (the refinement's open tiles);
 * tile t uses reference window t % nwin.
 * NDRange: global (DIRECT_FEW_WG * slots), local (DIRECT_FEW_WG).
 */
#include "common.h"
#include "direct_layout.h"

#ifndef DIRECT_FEW_WG
#define DIRECT_FEW_WG 64    /* work-items per tile */
#endif

__kernel __attribute__((reqd_work_group_size(DIRECT_FEW_WG, 1, 1)))
void correlate_direct_few(__global const real *refs, __global const real *tiles, __global const int *tile_ids,
                          int nwin, __global real *out)
{
    /* [work-item][shift]: writes and the final reads both fall on
     * consecutive addresses across work-items. */
    __local real part[DIRECT_FEW_WG][CORR_PIXELS];
    const int slot = get_group_id(0), lid = get_local_id(0);
    const int tile = tile_ids ? tile_ids[slot] : slot;
    __global const real *r = refs + (size_t)(tile % nwin) * WIN_PIXELS;
    __global const real *d = tiles + (size_t)slot * WIN_PIXELS;

    /* acc[j][i]: shift (i - STORE_RX, j - STORE_RY). */
    real acc[CORR_H][CORR_W];
    for (int j = 0; j < CORR_H; j++)
        for (int i = 0; i < CORR_W; i++)
            acc[j][i] = 0;
    for (int p = lid; p < WIN_PIXELS; p += DIRECT_FEW_WG) {
        const int y = p / WIN_W, x = p - y * WIN_W;
        const real rv = r[p];
#pragma unroll
        for (int j = 0; j < CORR_H; j++) {
            const int yy = y + j - STORE_RY;
            if (yy < 0 || yy >= WIN_H)
                continue;
#pragma unroll
            for (int i = 0; i < CORR_W; i++) {
                const int xx = x + i - STORE_RX;
                if (xx >= 0 && xx < WIN_W)
                    acc[j][i] += rv * d[yy * WIN_W + xx];
            }
        }
    }
    for (int j = 0; j < CORR_H; j++)
        for (int i = 0; i < CORR_W; i++)
            part[lid][j * CORR_W + i] = acc[j][i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = lid; s < CORR_PIXELS; s += DIRECT_FEW_WG) {
        real sum = 0;
        for (int k = 0; k < DIRECT_FEW_WG; k++)
            sum += part[k][s];
        const int j = s / CORR_W, i = s - j * CORR_W;
        out[(size_t)slot * CORR_PIXELS + corr_index(i - STORE_RX, j - STORE_RY)] = sum;
    }
}
