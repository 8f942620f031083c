/*
 * filter_tiled.cl - the fast path for 3x3 and 5x5 separable stages
 * (FILTER_R 1 or 2): the tiled convolution of
 * shared/seeds/tiled-separable-convolution-opencl.md.
 *
 *  - A work-group of 8 x 8 work-items computes a 32 x 32 tile of outputs,
 *    each work-item a 4 x 4 block.
 *  - A work-item filters its block's 4 rows horizontally (4 + 2R raw pixels
 *    each), keeps them in registers and shares through local memory the rows
 *    its vertical neighbours need (its top R and bottom R rows); the top and
 *    bottom rows of work-items also filter the R rows above and below the
 *    tile. After a barrier each work-item reads the R rows above and below
 *    its block and filters its 16 pixels vertically: each horizontal
 *    filter is computed once per tile.
 *  - Work-groups are classified by their tile's place in the ROI, from the
 *    group id alone, so every decision is uniform across a work-group:
 *    reads: a tile whose raw pixels (R beyond each side) all lie inside the
 *      source ROI reads global memory without any bounds checks; another
 *      loads its (32 + 2R)^2 raw pixels cooperatively into local memory
 *      under the border rule and does the same work from there (that local
 *      memory then holds the filtered rows);
 *    writes: a tile inside the target ROI writes its rows without checks;
 *      in another, a pixel outside the ROI writes the tile's top-left output
 *      (always inside: the NDRange covers the ROI from its corner) to that
 *      output's own place instead, so the stores need no branch and nothing
 *      outside the ROI is touched.
 *
 * Layouts and arguments: filter_common.h. `taps` holds 2 FILTER_R + 1
 * values; taps[0] weights the pixel FILTER_R left of (above) the output.
 *
 * NDRange: global (8 ceil(w / 32), 8 ceil(h / 32), images), local (8, 8, 1).
 */
#include "filter_common.h"

#if FILTER_R != 1 && FILTER_R != 2
#error "the tiled path is for FILTER_R 1 (3x3) and 2 (5x5)"
#endif

#define TILE_WI 8                       /* work-items along each side of a work-group */
#define TILE_PX 4                       /* outputs along each side of a work-item's block */
#define TILE (TILE_WI * TILE_PX)        /* outputs along each side of a tile */
#define RAW (TILE + 2 * FILTER_R)       /* raw pixels along each side of what a tile reads */
#define SPAN (TILE_PX + 2 * FILTER_R)   /* raw pixels one block row reads */

/* Filtered row y (tile coordinates, -R <= y < TILE + R) in local memory. */
#define SHARED_ROW(y) (((y) + FILTER_R) * TILE)

static inline void row_from_global(__global const in_t *p, real *raw)
{
    for (int i = 0; i < SPAN; i++)
        raw[i] = (real)p[i];
}

static inline void row_from_local(__local const real *p, real *raw)
{
    for (int i = 0; i < SPAN; i++)
        raw[i] = p[i];
}

/* The horizontal filter of one block row from its SPAN raw pixels. */
static inline void filter_row(const real *raw, __constant real *taps, real *row)
{
    for (int j = 0; j < TILE_PX; j++) {
        real acc = 0;
        for (int k = 0; k < FILTER_TAPS; k++)
            acc = mad(taps[k], raw[j + k], acc);
        row[j] = acc;
    }
}

/* The first of the R halo rows (tile coordinates) that the top row of
 * work-items filters (those above the tile) or the bottom row (below it). */
static inline int halo_row(int ly)
{
    return ly == 0 ? -FILTER_R : TILE;
}

__kernel __attribute__((reqd_work_group_size(TILE_WI, TILE_WI, 1)))
void filter_tiled(__global const in_t *in, int in_offset, int in_pitch, int in_stride,
                  __global real *out, int out_offset, int out_pitch, int out_stride,
                  int w, int h, __constant real *taps)
{
    __local real shared[RAW * RAW];     /* a border tile's raw pixels, then the shared filtered rows */
    __local real corner;                /* the tile's top-left output, for border tiles' writes */
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int l = get_group_id(0) * TILE, t = get_group_id(1) * TILE;
    const int bx = lx * TILE_PX, by = ly * TILE_PX;
    const size_t img = get_group_id(2);
    __global const in_t *src = in + img * in_stride + in_offset;
    __global real *dst = out + img * out_stride + out_offset;
    const int read_free = l >= FILTER_R && t >= FILTER_R && l + TILE + FILTER_R <= w && t + TILE + FILTER_R <= h;
    const int write_free = l + TILE <= w && t + TILE <= h;
    const int has_halo = ly == 0 || ly == TILE_WI - 1;

    real rows[TILE_PX][TILE_PX];        /* the block's rows, filtered horizontally */
    real halo[FILTER_R][TILE_PX];       /* halo rows owned by this work-item */
    real centre[TILE_PX][TILE_PX];      /* the block's raw pixels, for the epilogue */
    real raw[SPAN];

    if (read_free) {
        __global const in_t *p = src + (t + by) * in_pitch + l + bx - FILTER_R;
        for (int i = 0; i < TILE_PX; i++) {
            row_from_global(p + i * in_pitch, raw);
            filter_row(raw, taps, rows[i]);
            for (int j = 0; j < TILE_PX; j++)
                centre[i][j] = raw[FILTER_R + j];
        }
        if (has_halo) {
            p = src + (t + halo_row(ly)) * in_pitch + l + bx - FILTER_R;
            for (int r = 0; r < FILTER_R; r++) {
                row_from_global(p + r * in_pitch, raw);
                filter_row(raw, taps, halo[r]);
            }
        }
    } else {
        for (int i = ly * TILE_WI + lx; i < RAW * RAW; i += TILE_WI * TILE_WI)
            shared[i] = fetch_border(src, in_pitch, l - FILTER_R + i % RAW, t - FILTER_R + i / RAW, w, h);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < TILE_PX; i++) {
            row_from_local(shared + (by + i + FILTER_R) * RAW + bx, raw);
            filter_row(raw, taps, rows[i]);
            for (int j = 0; j < TILE_PX; j++)
                centre[i][j] = raw[FILTER_R + j];
        }
        if (has_halo)
            for (int r = 0; r < FILTER_R; r++) {
                row_from_local(shared + (halo_row(ly) + r + FILTER_R) * RAW + bx, raw);
                filter_row(raw, taps, halo[r]);
            }
        /* Every raw pixel has been read: the filtered rows may overwrite them. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* Share the rows the neighbours need: the top R and the bottom R. */
    for (int r = 0; r < FILTER_R; r++) {
        for (int j = 0; j < TILE_PX; j++) {
            shared[SHARED_ROW(by + r) + bx + j] = rows[r][j];
            shared[SHARED_ROW(by + TILE_PX - FILTER_R + r) + bx + j] = rows[TILE_PX - FILTER_R + r][j];
        }
        if (has_halo)
            for (int j = 0; j < TILE_PX; j++)
                shared[SHARED_ROW(halo_row(ly) + r) + bx + j] = halo[r][j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* The vertical filter over rows by - R .. by + 3 + R. */
    real v[TILE_PX][TILE_PX];
    for (int j = 0; j < TILE_PX; j++) {
        real col[SPAN];
        for (int m = 0; m < SPAN; m++) {
            const int y = by - FILTER_R + m;
            col[m] = m >= FILTER_R && m < FILTER_R + TILE_PX ? rows[m - FILTER_R][j] : shared[SHARED_ROW(y) + bx + j];
        }
        for (int i = 0; i < TILE_PX; i++) {
            real acc = 0;
            for (int k = 0; k < FILTER_TAPS; k++)
                acc = mad(taps[k], col[i + k], acc);
            v[i][j] = epilogue(centre[i][j], acc);
        }
    }

    if (write_free) {
        __global real *q = dst + (t + by) * out_pitch + l + bx;
        for (int i = 0; i < TILE_PX; i++)
            vstore4((real4)(v[i][0], v[i][1], v[i][2], v[i][3]), 0, q + i * out_pitch);
    } else {
        if (lx == 0 && ly == 0)
            corner = v[0][0];
        barrier(CLK_LOCAL_MEM_FENCE);
        const real c = corner;
        const int corner_at = t * out_pitch + l;
        for (int i = 0; i < TILE_PX; i++)
            for (int j = 0; j < TILE_PX; j++) {
                const int x = l + bx + j, y = t + by + i;
                const int inside = x < w && y < h;
                dst[inside ? y * out_pitch + x : corner_at] = inside ? v[i][j] : c;
            }
    }
}
