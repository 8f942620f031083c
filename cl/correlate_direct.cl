/*
 * correlate_direct.cl - the direct path: C(u) = sum_p r(p) d(p + u), the sum
 * of doc/conventions.md step 2 evaluated term by term for the shifts
 * |ux| <= STORE_RX, |uy| <= STORE_RY: w h (2 STORE_RX + 1)(2 STORE_RY + 1)
 * multiply-adds per tile, so it wins for small windows or a small search.
 *
 * Work decomposition (one reference window against many image windows):
 *  - a work-group computes a block of DIRECT_TY shift rows by
 *    DIRECT_TX * DIRECT_SPX shift columns, for DIRECT_IPI image windows that
 *    share one reference window;
 *  - a work-item computes DIRECT_SPX consecutive ux of one uy for its
 *    DIRECT_IPI images: every reference value it reads serves
 *    DIRECT_SPX * DIRECT_IPI products, and image values slide through a
 *    register window, one new load per step (register blocking);
 *  - the overlap rows of the block are split across DIRECT_SPLIT work-groups
 *    (balancing the work of shifts whose overlap is tall against those whose
 *    overlap is short) and walked DIRECT_ROWS rows at a time through local
 *    memory; each split writes its own slice of partial sums and
 *    direct_reduce adds the slices in a fixed order, so no atomics are needed
 *    and the result does not depend on scheduling;
 *  - image windows come from local memory (ALU path, DIRECT_SOURCE 0), from
 *    a texture over the same buffer (image1d_buffer_t, DIRECT_SOURCE 1), or
 *    from either by work-group (hybrid, DIRECT_SOURCE 2), which spreads the
 *    loads over the texture units and the local memory at once.
 *  - reference values come from local memory (all work-items read the same
 *    address: a broadcast), or are passed between lanes with sub-group
 *    broadcasts (DIRECT_BROADCAST 1, where the device has sub-groups) or
 *    NVIDIA's shfl.sync (DIRECT_BROADCAST 2, NVIDIA only).
 * All variants add the same products in the same order: identical results.
 *
 * Layouts (common.h): prepared windows are compact, PAD_W = WIN_W and
 * PAD_H = WIN_H; the correlation layout is CORR_W = 2 STORE_RX + 1 by
 * CORR_H = 2 STORE_RY + 1. Tile t = image * nwin + window uses reference
 * window t % nwin.
 *
 * NDRange: global (DIRECT_TX * nbx * DIRECT_SPLIT * nwin * nig, DIRECT_TY * nby),
 * local (DIRECT_TX, DIRECT_TY); nbx, nby shift blocks cover the correlation,
 * nig = ceil(images / DIRECT_IPI). The many (split, window, image group)
 * combinations go in dimension 0: some drivers allow only 65535 work-groups
 * along the others.
 */
#include "common.h"
#include "direct_layout.h"

#ifndef DIRECT_TX
#define DIRECT_TX 16        /* work-items along the shift columns */
#endif
#ifndef DIRECT_TY
#define DIRECT_TY 8         /* work-items along the shift rows */
#endif
#ifndef DIRECT_SPX
#define DIRECT_SPX 4        /* consecutive ux per work-item (register blocking) */
#endif
#ifndef DIRECT_IPI
#define DIRECT_IPI 1        /* image windows per work-item, sharing each reference value */
#endif
#ifndef DIRECT_ROWS
#define DIRECT_ROWS 8       /* reference rows per pass through local memory */
#endif
#ifndef DIRECT_SPLIT
#define DIRECT_SPLIT 1      /* work-groups that share one block's overlap rows */
#endif
#ifndef DIRECT_SOURCE
#define DIRECT_SOURCE 0     /* image windows from 0 local memory, 1 a texture, 2 both (hybrid) */
#endif
#ifndef DIRECT_HYBRID_TEX
#define DIRECT_HYBRID_TEX 1 /* hybrid: this many of every DIRECT_HYBRID_DEN work-groups use the texture */
#endif
#ifndef DIRECT_HYBRID_DEN
#define DIRECT_HYBRID_DEN 2
#endif
#ifndef DIRECT_BROADCAST
#define DIRECT_BROADCAST 0  /* reference values via 0 local memory, 1 sub-group broadcast, 2 PTX shfl */
#endif

#if DIRECT_SOURCE != 0 && USE_DOUBLE
#error "the texture path reads floats: use DIRECT_SOURCE 0 in double precision"
#endif
#if DIRECT_BROADCAST == 1 && !HAS_SUBGROUPS
/* A device without sub-groups (its extensions name neither kind) gets the
 * portable path: reference values from local memory. */
#undef DIRECT_BROADCAST
#define DIRECT_BROADCAST 0
#endif
#if DIRECT_BROADCAST == 2 && !IS_NV
#error "DIRECT_BROADCAST 2 uses NVIDIA PTX"
#endif

#if DIRECT_BROADCAST == 1 && CLX_SUBGROUPS == 2
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#elif DIRECT_BROADCAST == 1 && CLX_SUBGROUPS == 1
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

#define BLOCK_UX (DIRECT_TX * DIRECT_SPX)
#define DT_W (WIN_W + BLOCK_UX - 1)         /* local image tile: columns a block needs */
#define DT_H (DIRECT_ROWS + DIRECT_TY - 1)  /* ... and rows, per pass */

#if DIRECT_BROADCAST == 2
/* Lane `lane`'s value of v, from all 32 lanes of the warp (which must all
 * be here: the loops around every call are uniform across a work-group). */
static inline float shfl_idx(float v, int lane)
{
    float r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(lane));
    return r;
}
#if USE_DOUBLE
static inline double shfl_idx_real(double v, int lane)
{
    uint2 u = as_uint2(v);
    u.x = as_uint(shfl_idx(as_float(u.x), lane));
    u.y = as_uint(shfl_idx(as_float(u.y), lane));
    return as_double(u);
}
#else
#define shfl_idx_real shfl_idx
#endif
#endif

#if DIRECT_SOURCE != 0
/* Image value (ix, iy) of image window `t` through the texture, 0 outside
 * the window or past the last tile (a texture read out of range is undefined). */
static inline real texel(__read_only image1d_buffer_t tex, int t, int ntiles, int ix, int iy)
{
    if (t >= ntiles || ix < 0 || ix >= WIN_W || iy < 0 || iy >= WIN_H)
        return 0;
    return read_imagef(tex, t * WIN_PIXELS + iy * WIN_W + ix).x;
}
#endif

__kernel __attribute__((reqd_work_group_size(DIRECT_TX, DIRECT_TY, 1)))
void correlate_direct(__global const real *refs, __global const real *tiles,
#if DIRECT_SOURCE != 0
                      __read_only image1d_buffer_t tiles_tex,
#endif
                      int nwin, int ntiles, int nbx, __global real *out)
{
    __local real rl[DIRECT_ROWS * WIN_W];
#if DIRECT_SOURCE != 1
    __local real dl[DIRECT_IPI * DT_H * DT_W];
#endif
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lid = ly * DIRECT_TX + lx;
    const int bx = get_group_id(0) % nbx;
    const int gz = get_group_id(0) / nbx;
    const int split = gz % DIRECT_SPLIT;
    const int win = (gz / DIRECT_SPLIT) % nwin;
    const int igroup = gz / DIRECT_SPLIT / nwin;
    /* Whole images of nwin tiles; with pairs (nwin: the plan's tiles) a
     * push of fewer images fills only the first ntiles of one. */
    const int nimages = (ntiles + nwin - 1) / nwin;

#if DIRECT_SOURCE == 2
    const int group = get_group_id(0) + get_num_groups(0) * get_group_id(1);
    const int use_texture = group % DIRECT_HYBRID_DEN < DIRECT_HYBRID_TEX;
#elif DIRECT_SOURCE == 1
    const int use_texture = 1;
#else
    const int use_texture = 0;
#endif

    /* This block's shifts, and this work-item's. */
    const int ux_lo = -STORE_RX + bx * BLOCK_UX;
    const int uy_lo = -STORE_RY + (int)get_group_id(1) * DIRECT_TY;
    const int ux0 = ux_lo + lx * DIRECT_SPX;
    const int uy = uy_lo + ly;

    /* The reference rows any shift of the block overlaps, within this split's share. */
    const int uy_min = max(uy_lo, -STORE_RY), uy_max = min(uy_lo + DIRECT_TY - 1, STORE_RY);
    const int rows_per_split = (WIN_H + DIRECT_SPLIT - 1) / DIRECT_SPLIT;
    const int y_start = max(max(0, -uy_max), split * rows_per_split);
    const int y_end = min(min(WIN_H, WIN_H - uy_min), (split + 1) * rows_per_split);

    real acc[DIRECT_IPI][DIRECT_SPX];
    for (int i = 0; i < DIRECT_IPI; i++)
        for (int k = 0; k < DIRECT_SPX; k++)
            acc[i][k] = 0;

    for (int yp = y_start; yp < y_end; yp += DIRECT_ROWS) {
        const int nrows = min(DIRECT_ROWS, y_end - yp);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = lid; e < nrows * WIN_W; e += DIRECT_TX * DIRECT_TY)
            rl[e] = refs[(size_t)win * WIN_PIXELS + (size_t)yp * WIN_W + e];
#if DIRECT_SOURCE != 1
        if (!use_texture) {
            /* Local image tile: rows yp + uy_lo + r, columns ux_lo + c, zero outside the window. */
            for (int e = lid; e < DIRECT_IPI * (nrows + DIRECT_TY - 1) * DT_W; e += DIRECT_TX * DIRECT_TY) {
                const int i = e / ((nrows + DIRECT_TY - 1) * DT_W);
                const int rc = e - i * (nrows + DIRECT_TY - 1) * DT_W;
                const int r = rc / DT_W, c = rc - r * DT_W;
                const int iy = yp + uy_lo + r, ix = ux_lo + c;
                const int image = igroup * DIRECT_IPI + i;
                real v = 0;
                if (image * nwin + win < ntiles && ix >= 0 && ix < WIN_W && iy >= 0 && iy < WIN_H)
                    v = tiles[(size_t)(image * nwin + win) * WIN_PIXELS + iy * WIN_W + ix];
                dl[(i * DT_H + r) * DT_W + c] = v;
            }
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int yy = 0; yy < nrows; yy++) {
            /* Image value at column c of this work-item's block for image i,
             * c = x + lx * DIRECT_SPX + k: shift ux0 + k at reference column x. */
#if DIRECT_SOURCE == 0
#define D(i, c) dl[((i) * DT_H + yy + ly) * DT_W + (c)]
#elif DIRECT_SOURCE == 1
#define D(i, c) texel(tiles_tex, (igroup * DIRECT_IPI + (i)) * nwin + win, ntiles, ux_lo + (c), yp + yy + uy)
#else
#define D(i, c) (use_texture ? texel(tiles_tex, (igroup * DIRECT_IPI + (i)) * nwin + win, ntiles, ux_lo + (c), yp + yy + uy) \
                             : dl[((i) * DT_H + yy + ly) * DT_W + (c)])
#endif
            real slide[DIRECT_IPI][DIRECT_SPX];
            for (int i = 0; i < DIRECT_IPI; i++)
                for (int k = 0; k < DIRECT_SPX - 1; k++)
                    slide[i][k] = D(i, lx * DIRECT_SPX + k);

#if DIRECT_BROADCAST == 0
            for (int x = 0; x < WIN_W; x++) {
                const real rv = rl[yy * WIN_W + x];
#else
#if DIRECT_BROADCAST == 1
            const int lanes = get_sub_group_size(), lane = get_sub_group_local_id();
#else
            const int lanes = 32, lane = lid & 31;
#endif
            for (int xb = 0; xb < WIN_W; xb += lanes) {
                const real rseg = xb + lane < WIN_W ? rl[yy * WIN_W + xb + lane] : 0;
                for (int j = 0; j < lanes && xb + j < WIN_W; j++) {
#if DIRECT_BROADCAST == 1
                const real rv = sub_group_broadcast(rseg, j);
#else
                const real rv = shfl_idx_real(rseg, j);
#endif
                const int x = xb + j;
#endif
                for (int i = 0; i < DIRECT_IPI; i++) {
                    slide[i][DIRECT_SPX - 1] = D(i, x + lx * DIRECT_SPX + DIRECT_SPX - 1);
                    for (int k = 0; k < DIRECT_SPX; k++)
                        acc[i][k] += rv * slide[i][k];
                    for (int k = 0; k < DIRECT_SPX - 1; k++)
                        slide[i][k] = slide[i][k + 1];
                }
#if DIRECT_BROADCAST != 0
                }
#endif
            }
#undef D
        }
    }

    if (abs(uy) > STORE_RY)
        return;
    for (int i = 0; i < DIRECT_IPI; i++) {
        const int image = igroup * DIRECT_IPI + i;
        const size_t tile = (size_t)image * nwin + win;
        if (image >= nimages || tile >= (size_t)ntiles)
            break;
        for (int k = 0; k < DIRECT_SPX; k++) {
            const int ux = ux0 + k;
            if (ux >= -STORE_RX && ux <= STORE_RX)
                out[((size_t)split * ntiles + tile) * CORR_PIXELS + corr_index(ux, uy)] = acc[i][k];
        }
    }
}

/*
 * The sum of the DIRECT_SPLIT slices of partial sums, in slice order.
 * NDRange: global (ntiles * CORR_PIXELS) (rounded up).
 */
__kernel void direct_reduce(__global const real *partials, int ntiles, __global real *corr)
{
    const size_t e = get_global_id(0);
    const size_t n = (size_t)ntiles * CORR_PIXELS;
    if (e >= n)
        return;
    real sum = 0;
    for (int s = 0; s < DIRECT_SPLIT; s++)
        sum += partials[s * n + e];
    corr[e] = sum;
}
