/*
 * argmax.cl - the integer peak of every correlation (seed pipeline step 3).
 *
 * Each correlation is searched over the shifts |ux| <= SEARCH_RX,
 * |uy| <= SEARCH_RY (doc/conventions.md's full range (-w, w) by default; smaller
 * with --max-shift). Ties go to the smallest logical index
 * ky * 2 WIN_W + kx (common.h), whatever the search order or the layout, so
 * the result depends neither on the work-group size, nor on the form below,
 * nor on the path that computed the correlation. NaN values never win. The
 * result is that logical index, or -1 when no value was a number.
 *
 * Every work-item scans a strided share of the correlation and a tree
 * reduction in local memory gives its work-group's best (value, index).
 * ARGMAX_FORM chooses how work-groups are given correlations:
 *  0  kernel argmax: one work-group per correlation writes the result.
 *     NDRange: global (ARGMAX_WG * ntiles), local (ARGMAX_WG).
 *  1  kernel argmax_parts: ARGMAX_PARTS work-groups share each correlation
 *     and write one partial pair each; kernel argmax_combine reduces each
 *     tile's pairs with the same rule (it also finishes the search the
 *     local FFT fuses into its inverse transform, in any form).
 *     NDRange: global (ARGMAX_WG * ARGMAX_PARTS * ntiles), local (ARGMAX_WG);
 *     then global (ntiles rounded up), any local.
 *  2  kernel argmax_atomic: ARGMAX_PARTS work-groups share each correlation
 *     and combine through atom_max on one 64-bit word per tile (zeroed by
 *     the host before), which kernel argmax_unpack turns into the index.
 *     Needs cl_khr_int64_extended_atomics and single precision.
 *     NDRange: as form 1.
 *  3  kernel argmax_rows, for CPU devices: one work-item per correlation
 *     scans it row by row with vector loads (VEC_N values at a time, SIMD
 *     within the work-item rather than across work-items, which a CPU
 *     runtime vectorises only in loop-free kernels), first for the largest
 *     value, then for the first place holding it. No local memory. Where
 *     the second peak is wanted too, kernel argmax_second_rows does both.
 *     NDRange: global (ntiles rounded up), any local.
 */
#include "common.h"
#include "peak_order.h"

#ifndef ARGMAX_WG
#define ARGMAX_WG 256   /* work-items searching one correlation (a power of two) */
#endif
#ifndef ARGMAX_FORM
#define ARGMAX_FORM 0   /* 0 one work-group per tile, 1 partial pairs + combine, 2 64-bit atomics, 3 rows (CPUs) */
#endif
#ifndef ARGMAX_PARTS
#define ARGMAX_PARTS 4  /* work-groups sharing one tile in forms 1 and 2 (1..64) */
#endif

#if ARGMAX_FORM == 0
#define GROUPS_PER_TILE 1
#else
#define GROUPS_PER_TILE ARGMAX_PARTS
#endif

/* The logical index of shift (ux, uy): the tie rule's order (common.h). */
static inline int logical_index(int ux, int uy)
{
    return (uy < 0 ? uy + LOGICAL_H : uy) * LOGICAL_W + (ux < 0 ? ux + LOGICAL_W : ux);
}

/*
 * The best (value, logical index) of the elements this work-group scans,
 * returned to every work-item: work-item lid of part `part` looks at
 * part * ARGMAX_WG + lid and every ARGMAX_WG * GROUPS_PER_TILE-th element
 * after it.
 */
static void group_best(__global const real *c, int part, __local real *best_v, __local int *best_k,
                       real *v_out, int *k_out)
{
    const int lid = get_local_id(0);
    real bv = 0;
    int bk = -1;
    for (int i = part * ARGMAX_WG + lid; i < CORR_PIXELS; i += ARGMAX_WG * GROUPS_PER_TILE) {
        const int y = i / CORR_W;
        const int ux = corr_shift_x(i - y * CORR_W);
        const int uy = corr_shift_y(y);
        if (abs(ux) > SEARCH_RX || abs(uy) > SEARCH_RY)
            continue;
        const real v = c[i];
        const int k = logical_index(ux, uy);
        if (peak_beats(v, k, bv, bk)) {
            bv = v;
            bk = k;
        }
    }
    best_v[lid] = bv;
    best_k[lid] = bk;
    peak_reduce_group(best_v, best_k, ARGMAX_WG);
    *v_out = best_v[0];
    *k_out = best_k[0];
}

#if ARGMAX_FORM == 0

__kernel __attribute__((reqd_work_group_size(ARGMAX_WG, 1, 1)))
void argmax(__global const real *corr, __global int *peaks)
{
    __local real best_v[ARGMAX_WG];
    __local int best_k[ARGMAX_WG];
    const int tile = get_group_id(0);
    real v;
    int k;
    group_best(corr + (size_t)tile * CORR_PIXELS, 0, best_v, best_k, &v, &k);
    if (get_local_id(0) == 0)
        peaks[tile] = k;
}

#elif ARGMAX_FORM == 1

__kernel __attribute__((reqd_work_group_size(ARGMAX_WG, 1, 1)))
void argmax_parts(__global const real *corr, __global real *part_values, __global int *part_indices)
{
    __local real best_v[ARGMAX_WG];
    __local int best_k[ARGMAX_WG];
    const int group = get_group_id(0);
    const int tile = group / ARGMAX_PARTS;
    real v;
    int k;
    group_best(corr + (size_t)tile * CORR_PIXELS, group - tile * ARGMAX_PARTS, best_v, best_k, &v, &k);
    if (get_local_id(0) == 0) {
        part_values[group] = v;
        part_indices[group] = k;
    }
}

#elif ARGMAX_FORM == 2

#if USE_DOUBLE
#error "ARGMAX_FORM 2 packs single-precision values: not with USE_DOUBLE"
#endif
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/*
 * (v, k) as one word whose unsigned order is peak_beats()'s: v's bits made to
 * order as unsigned integers (sign bit flipped for positives, every bit
 * inverted for negatives; -0 first made +0, which peak_beats() deems equal) in
 * the high half, 0xFFFFFFFF - k in the low half so that the smaller index
 * is the larger word. A valid pair is never 0, the reset value: -inf's high
 * half is 0x007FFFFF.
 */
static inline ulong pack(float v, int k)
{
    const uint bits = as_uint(v == 0 ? 0.0f : v);
    const uint ordered = bits & 0x80000000u ? ~bits : bits | 0x80000000u;
    return (ulong)ordered << 32 | (0xFFFFFFFFu - (uint)k);
}

__kernel __attribute__((reqd_work_group_size(ARGMAX_WG, 1, 1)))
void argmax_atomic(__global const real *corr, volatile __global ulong *packed)
{
    __local real best_v[ARGMAX_WG];
    __local int best_k[ARGMAX_WG];
    const int group = get_group_id(0);
    const int tile = group / ARGMAX_PARTS;
    real v;
    int k;
    group_best(corr + (size_t)tile * CORR_PIXELS, group - tile * ARGMAX_PARTS, best_v, best_k, &v, &k);
    if (get_local_id(0) == 0 && k >= 0)
        atom_max(&packed[tile], pack(v, k));
}

__kernel void argmax_unpack(__global const ulong *packed, __global int *peaks, int ntiles)
{
    const int tile = get_global_id(0);
    if (tile >= ntiles)
        return;
    const ulong word = packed[tile];
    peaks[tile] = word ? (int)(0xFFFFFFFFu - (uint)word) : -1;
}

#elif ARGMAX_FORM == 3

#define VEC_N 8              /* values per vector (common.h's vreal) */

/* Rows (columns) whose shifts are searched: 0..SEARCH_RY and, for the
 * negative shifts, CORR_H - SEARCH_RY..CORR_H - 1 (common.h's layout). In
 * memory order these are in logical-index order too, so the first place
 * holding the largest value in a row-major scan is the tie rule's. */
#define FIRST_NEGATIVE_ROW (CORR_H - SEARCH_RY)
#define FIRST_NEGATIVE_COL (CORR_W - SEARCH_RX)
/* The searched row after row y: 0 .. SEARCH_RY, then the negative ones. */
#define NEXT_ROW(y) ((y) == SEARCH_RY ? FIRST_NEGATIVE_ROW : (y) + 1)

/* The largest number among row[x0 .. x1 - 1] and m (fmax: NaN never wins). */
static inline real run_max(__global const real *row, int x0, int x1, real m)
{
    vreal mv = (vreal)m;
    int x = x0;
    for (; x + VEC_N <= x1; x += VEC_N)
        mv = fmax(mv, vload8(0, row + x));
    for (; x < x1; x++)
        m = fmax(m, row[x]);
    const vreal4 m4 = fmax(mv.lo, mv.hi);
    const real2 m2 = fmax(m4.lo, m4.hi);
    return fmax(m, fmax(m2.x, m2.y));
}

/* The first x in [x0, x1) with row[x] == m, or -1. */
static inline int run_find(__global const real *row, int x0, int x1, real m)
{
    int x = x0;
    for (; x + VEC_N <= x1; x += VEC_N)
        if (any(vload8(0, row + x) == (vreal)m))
            break;
    for (; x < x1; x++)
        if (row[x] == m)
            return x;
    return -1;
}

static inline real row_max(__global const real *row, real m)
{
    return run_max(row, FIRST_NEGATIVE_COL, CORR_W, run_max(row, 0, SEARCH_RX + 1, m));
}

static inline int row_find(__global const real *row, real m)
{
    const int x = run_find(row, 0, SEARCH_RX + 1, m);
    return x >= 0 ? x : run_find(row, FIRST_NEGATIVE_COL, CORR_W, m);
}

/* The logical index of correlation c's peak, or -1. */
static int tile_argmax(__global const real *c)
{
    real m = -INFINITY;
    for (int y = 0; y < CORR_H; y = NEXT_ROW(y))
        m = row_max(c + y * CORR_W, m);
    int key = -1;
    for (int y = 0; y < CORR_H && key < 0; y = NEXT_ROW(y)) {
        const int x = row_find(c + y * CORR_W, m);
        if (x >= 0)
            key = logical_index(corr_shift_x(x), corr_shift_y(y));
    }
    return key;
}

__kernel void argmax_rows(__global const real *corr, __global int *peaks, int ntiles)
{
    const int tile = get_global_id(0);
    if (tile < ntiles)
        peaks[tile] = tile_argmax(corr + (size_t)tile * CORR_PIXELS);
}

#else
#error "ARGMAX_FORM must be 0, 1, 2 or 3"
#endif

/*
 * argmax_combine - each tile's peak from `parts` partial (value, index)
 * pairs, tile t's at t * parts .. (t + 1) * parts - 1, by the same rule:
 * argmax_parts' (form 1, parts ARGMAX_PARTS) or those the local FFT's
 * inverse transform leaves behind (cl/fft_local.cl's
 * fft_c2r_columns_peaks, one per column group), whatever the form.
 *
 * NDRange: global (ntiles rounded up), any local.
 */
__kernel void argmax_combine(__global const real *part_values, __global const int *part_indices,
                             __global int *peaks, int ntiles, int parts)
{
    const int tile = get_global_id(0);
    if (tile >= ntiles)
        return;
    real bv = 0;
    int bk = -1;
    for (int p = tile * parts; p < (tile + 1) * parts; p++)
        if (peak_beats(part_values[p], part_indices[p], bv, bk)) {
            bv = part_values[p];
            bk = part_indices[p];
        }
    peaks[tile] = bk;
}

#ifndef FIT_SIZE
#define FIT_SIZE 5      /* F: the primary peak's F x F neighbourhood is left out */
#endif

/* The value at shift (ux, uy), or -inf when the layout does not hold it. */
static inline real value_at(__global const real *c, int ux, int uy)
{
    if (abs(ux) > STORE_RX || abs(uy) > STORE_RY)
        return -INFINITY;
    return c[corr_index(ux, uy)];
}

/* The primary peak's shift (px, py) from its logical index; (0, 0) for none (-1). */
static inline void primary_shift(int key, int *px, int *py)
{
    *px = *py = 0;
    if (key >= 0) {
        const int kx = key % LOGICAL_W, ky = key / LOGICAL_W;
        *px = kx < WIN_W ? kx : kx - LOGICAL_W;
        *py = ky < WIN_H ? ky : ky - LOGICAL_H;
    }
}

/* Whether value v at searched shift (ux, uy) is a local maximum (at least its
 * 8 neighbours) outside the F x F neighbourhood of the primary (px, py).
 * The neighbour towards the primary is looked at first: a value on the
 * primary peak's flanks, above every secondary found so far, is most of
 * what reaches this test, and that neighbour rules it out with one load
 * instead of up to eight. */
static inline int is_secondary(__global const real *c, int ux, int uy, real v, int px, int py)
{
    const int r = (FIT_SIZE - 1) / 2;
    if (abs(ux - px) <= r && abs(uy - py) <= r)
        return 0;
    if (value_at(c, ux + (px > ux) - (px < ux), uy + (py > uy) - (py < uy)) > v)
        return 0;
    /* All eight at once: loads that wait on each other's tests cost a GPU
     * one memory latency each. */
    int larger = 0;
#pragma unroll
    for (int n = 0; n < 9; n++)
        if (n != 4)
            larger |= value_at(c, ux + n % 3 - 1, uy + n / 3 - 1) > v;
    return !larger;
}

#ifndef SECOND_SHARE
#define SECOND_SHARE 2048   /* second_peak: values scanned between two sharings of the group's best */
#endif

/*
 * second_peak - each tile's highest local maximum outside the primary peak's
 * F x F neighbourhood, within the searched shifts (for the peak ratio,
 * primary / secondary). A local maximum is at least its 8 neighbours. NaN
 * when there is none. The work-group shares its best every SECOND_SHARE
 * values, so that fewer values reach the neighbours' test.
 *
 * NDRange: global (ARGMAX_WG * ntiles), local (ARGMAX_WG).
 */
__kernel __attribute__((reqd_work_group_size(ARGMAX_WG, 1, 1)))
void second_peak(__global const real *corr, __global const int *peaks, __global real *second)
{
    __local real best[ARGMAX_WG];
    const int tile = get_group_id(0);
    const int lid = get_local_id(0);
    __global const real *c = corr + (size_t)tile * CORR_PIXELS;
    const int key = peaks[tile];
    int px, py;
    primary_shift(key, &px, &py);

    real bv = -INFINITY;
    for (int first = 0; first < CORR_PIXELS; first += SECOND_SHARE) {
        const int last = min(first + SECOND_SHARE, CORR_PIXELS);
        for (int i = first + lid; i < last; i += ARGMAX_WG) {
            const real v = c[i];
            /* Only a value above the best so far needs its place and its
             * neighbours looked at: the common case is one load and one test. */
            if (!(v > bv))
                continue;
            const int y = i / CORR_W;
            const int ux = corr_shift_x(i - y * CORR_W);
            const int uy = corr_shift_y(y);
            if (abs(ux) > SEARCH_RX || abs(uy) > SEARCH_RY)
                continue;
            if (is_secondary(c, ux, uy, v, px, py))
                bv = v;
        }
        /* The group's best so far, to every work-item: a value below it
         * cannot be the answer, and each work-item's own best alone let
         * most of its values through to the neighbours' test. */
        best[lid] = bv;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = ARGMAX_WG / 2; s > 0; s >>= 1) {
            if (lid < s && best[lid + s] > best[lid])
                best[lid] = best[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        bv = best[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        second[tile] = key >= 0 && bv > -INFINITY ? bv : NAN;
}

#if ARGMAX_FORM == 3
/*
 * argmax_second_rows - argmax_rows and second_peak for CPU devices, one
 * work-item per tile: the second scan (tile_second) reads the tile from the
 * core's cache, where as a kernel of its own it read every correlation from
 * memory again. It scans the searched rows with vector loads; only a
 * vector holding a value above the best so far is looked at value by value.
 *
 * NDRange: global (ntiles rounded up), any local.
 */
static inline real run_secondary(__global const real *c, int y, int x0, int x1, real bv, int px, int py)
{
    __global const real *row = c + y * CORR_W;
    const int uy = corr_shift_y(y);
    for (int x = x0; x < x1; x += VEC_N) {
        if (x + VEC_N <= x1 && !any(vload8(0, row + x) > (vreal)bv))
            continue;
        for (int j = x; j < x + VEC_N && j < x1; j++) {
            const real v = row[j];
            if (v > bv && is_secondary(c, corr_shift_x(j), uy, v, px, py))
                bv = v;
        }
    }
    return bv;
}

/* second_peak's value for correlation c whose peak is `key`. */
static real tile_second(__global const real *c, int key)
{
    int px, py;
    primary_shift(key, &px, &py);
    real bv = -INFINITY;
    for (int y = 0; y < CORR_H; y = NEXT_ROW(y)) {
        bv = run_secondary(c, y, 0, SEARCH_RX + 1, bv, px, py);
        bv = run_secondary(c, y, FIRST_NEGATIVE_COL, CORR_W, bv, px, py);
    }
    return key >= 0 && bv > -INFINITY ? bv : NAN;
}

__kernel void argmax_second_rows(__global const real *corr, __global int *peaks, __global real *second, int ntiles)
{
    const int tile = get_global_id(0);
    if (tile >= ntiles)
        return;
    __global const real *c = corr + (size_t)tile * CORR_PIXELS;
    const int key = tile_argmax(c);
    peaks[tile] = key;
    second[tile] = tile_second(c, key);
}
#endif
