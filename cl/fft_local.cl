/*
 * fft_local.cl - clxcorr's own 2D real FFT for GPUs, with the correlation's
 * multiply fused between its passes (src/ops/fft_local.c is its host side).
 *
 * Why: a 2D transform by a library is two passes over memory each way, and
 * the correlation adds a multiply between them: five reads and five writes
 * of every spectrum. Here the middle three (the forward transform along x,
 * the multiply by the reference's conjugate, the inverse along x) are one
 * kernel that keeps its lines in local memory, and the transforms along y
 * read only the windows' data (the correlation's zero padding is never
 * read) and write only the columns that hold it. On the default EBSD
 * windows that is 5.4 GB of traffic per 6,400 windows against 9.5 GB.
 *
 * The transforms (N_X, N_Y even, products of 2, 3, 5 and 7):
 *   R2C: B real N_X x N_Y arrays (rows of N_X) to their half-spectra:
 *     fft_r2c_columns   along y, LINES_Y complex lines per work-group,
 *                       columns x0 + l (real part) and x0 + LINES_Y + l
 *                       (imaginary part) sharing line l, separated after
 *                       the transform. Reads the top-left rows x cols
 *                       only; stores frequencies 0..N_Y/2 of the columns
 *                       below cols, and nothing for the others.
 *     fft_rows          then along x, LINES_X spectrum rows per
 *                       work-group, columns at or past `cols` taken as
 *                       zeros without being read, in place.
 *   C2R: fft_rows (inverse, every column read), then fft_c2r_columns,
 *   which rebuilds each column pair's whole line from the half-spectra,
 *   transforms it back and writes the two real columns, scaled by
 *   1 / (N_X N_Y).
 *   The correlation (fft_backend.h's correlate): fft_r2c_columns, then
 *   fft_rows_correlate (fft_rows forward, the multiply, fft_rows inverse,
 *   in local memory), then fft_c2r_columns, or fft_c2r_columns_peaks,
 *   which also searches the values it writes for the correlation's peak,
 *   one (value, index) pair per column group (cl/argmax.cl finishes it).
 *
 * Spectrum layout (only this backend and its own multiply read it): per
 * array, N_Y / 2 + 1 rows of N_X complex values, row ky holding
 * frequencies kx = 0..N_X-1 along x of frequency ky along y. The rows of a
 * batch are contiguous, so fft_rows treats them as one list of lines.
 *
 * Each 1D transform is Stockham's autosort FFT, as in fft_cpu.cl: radix 8,
 * 4, 2, 3, 5, 7 passes (listed by the host, PASSES_X and PASSES_Y below)
 * ping-ponging between two local buffers, a barrier after each, the
 * butterflies of all the group's lines shared out among its work-items (a
 * line's butterflies on neighbouring work-items, so that neighbours read
 * neighbouring local words). Twiddles come from the host's
 * tables of exp(-2 pi i t / N), computed in double precision.
 *
 * NDRange, local size FFT_WG: fft_r2c_columns and fft_c2r_columns(_peaks): global
 * (FFT_WG x column groups, B), a column group being 2 LINES_Y columns;
 * fft_rows, fft_rows_correlate: global (FFT_WG x row groups), a row group
 * being LINES_X of the batch's B (N_Y / 2 + 1) spectrum rows.
 */
#ifndef USE_DOUBLE
#define USE_DOUBLE 0    /* 1: double precision (needs cl_khr_fp64) */
#endif
#ifndef N_X
#error "define N_X (array row length)"
#endif
#ifndef N_Y
#error "define N_Y (array rows)"
#endif
#ifndef LINES_Y
#define LINES_Y 8       /* complex lines (column pairs) per work-group along y */
#endif
#ifndef LINES_X
#define LINES_X 8       /* spectrum rows per work-group along x */
#endif
#ifndef FFT_WG
#define FFT_WG 128      /* work-items per work-group */
#endif

#if USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

#define FFT_T real
#include "fft_radix.h"
#include "peak_order.h"

#define HALF_Y (N_Y / 2 + 1)       /* frequencies kept along y */
/* The host makes FFT_WG a power of two and 2 LINES_Y at most FFT_WG, so that
 * each work-item of fft_c2r_columns keeps to one column. */
#if FFT_WG % (2 * LINES_Y) != 0
#error "FFT_WG must be a multiple of 2 LINES_Y"
#endif
#define ROW_STEP (FFT_WG / (2 * LINES_Y))   /* rows between a work-item's stores in fft_c2r_columns */
/* A line's place in local memory: N + 2 words apart, so that LINES lines'
 * same element fall in different banks, with room for two half-spectra
 * (fft_c2r_columns). */
#define PITCH_Y (N_Y + 2)
#define PITCH_X (N_X + 2)

/*
 * One Stockham pass of radix R over `lines` n-point lines (line l at
 * l * pitch): butterfly i (of n / R) reads x[i + r n / R], r = 0..R-1,
 * twiddles input r by w^(r k) with k = i mod p and w = exp(-2 pi i dir /
 * (p R)), transforms them and writes y[(i - k) R + k + r p]. p is the
 * product of the earlier passes' radices.
 */
#define DEFINE_PASS(R, DFT_CALL)                                                                        \
    static inline void pass##R(__local const real *xr, __local const real *xi, __local real *yr, __local real *yi, \
                        int n, int pitch, int lines, int p, __global const real2 *tw, real dir)           \
    {                                                                                                   \
        const int m = n / R, step = n / (p * R);                                                        \
        for (int b = get_local_id(0); b < lines * m; b += FFT_WG) {                                     \
            const int line = b / m, i = b - line * m, k = i % p, at = line * pitch;                     \
            real ar[R], ai[R];                                                                          \
            ar[0] = xr[at + i];                                                                         \
            ai[0] = xi[at + i];                                                                         \
            for (int r = 1; r < R; r++) {                                                               \
                const real u = xr[at + i + r * m], v = xi[at + i + r * m];                              \
                const real2 w = tw[r * k * step];                                                       \
                const real wy = dir * w.y;                                                              \
                ar[r] = u * w.x - v * wy;                                                               \
                ai[r] = u * wy + v * w.x;                                                               \
            }                                                                                           \
            DFT_CALL;                                                                                   \
            const int j = at + (i - k) * R + k;                                                         \
            for (int r = 0; r < R; r++) {                                                               \
                yr[j + r * p] = ar[r];                                                                  \
                yi[j + r * p] = ai[r];                                                                  \
            }                                                                                           \
        }                                                                                               \
    }

DEFINE_PASS(2, dft2(ar, ai))
DEFINE_PASS(3, dft3(ar, ai, dir))
DEFINE_PASS(4, dft4(ar, ai, dir))
DEFINE_PASS(8, dft8(ar, ai, dir))
DEFINE_PASS(5, dft5(ar, ai, dir))
DEFINE_PASS(7, dft7(ar, ai, dir))

/*
 * The radix passes of each axis, as the host lists them (fft_local.c):
 * PASSES_X and PASSES_Y are sequences of FFT_PASS(R, P), P the product of
 * the earlier radices, so that every pass's sizes are constants and its
 * index arithmetic compiles to shifts and multiplies.
 */
#ifndef PASSES_X
#error "define PASSES_X (FFT_PASS(R, P) for each radix pass along x)"
#endif
#ifndef PASSES_Y
#error "define PASSES_Y (FFT_PASS(R, P) for each radix pass along y)"
#endif

/* One pass of the line set LINE_N, LINE_PITCH, LINE_COUNT, then the
 * barrier, and the buffers swap roles. */
#define FFT_PASS(R, P)                                                                         \
    pass##R(xr, xi, yr, yi, LINE_N, LINE_PITCH, LINE_COUNT, P, tw, dir);                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    t = xr;                                                                                    \
    xr = yr;                                                                                   \
    yr = t;                                                                                    \
    t = xi;                                                                                    \
    xi = yi;                                                                                   \
    yi = t;                                                                                    \
    in_second = !in_second;

/*
 * Transforms the group's lines along y (fft_lines_y) or x (fft_lines_x)
 * held in (re0, im0); the result is in (re0, im0) or (re1, im1): the return
 * value says which (0 or 1). Every work-item of the group calls it; it ends
 * with a barrier.
 */
static int fft_lines_y(__local real *re0, __local real *im0, __local real *re1, __local real *im1,
                       __global const real2 *tw, real dir)
{
    __local real *xr = re0, *xi = im0, *yr = re1, *yi = im1, *t;
    int in_second = 0;
#define LINE_N N_Y
#define LINE_PITCH PITCH_Y
#define LINE_COUNT LINES_Y
    PASSES_Y
#undef LINE_N
#undef LINE_PITCH
#undef LINE_COUNT
    return in_second;
}

static int fft_lines_x(__local real *re0, __local real *im0, __local real *re1, __local real *im1,
                       __global const real2 *tw, real dir)
{
    __local real *xr = re0, *xi = im0, *yr = re1, *yi = im1, *t;
    int in_second = 0;
#define LINE_N N_X
#define LINE_PITCH PITCH_X
#define LINE_COUNT LINES_X
    PASSES_X
#undef LINE_N
#undef LINE_PITCH
#undef LINE_COUNT
    return in_second;
}

/* ---- along y ------------------------------------------------------------ */

/*
 * R2C, step 1: the column pairs of group get_group_id(0) of array
 * get_group_id(1) along y. Only the first `rows` rows and `cols` columns
 * are read; the rest are zeros (the correlation's padding). Columns at or
 * past `cols` are not stored: fft_rows takes them as zeros.
 */
__kernel __attribute__((reqd_work_group_size(FFT_WG, 1, 1))) void
fft_r2c_columns(__global const real *in, __global real2 *spec, __global const real2 *tw_y, int rows, int cols)
{
    __local real re0[LINES_Y * PITCH_Y], im0[LINES_Y * PITCH_Y], re1[LINES_Y * PITCH_Y], im1[LINES_Y * PITCH_Y];
    const int x0 = get_group_id(0) * 2 * LINES_Y, lid = get_local_id(0);
    const size_t array = get_group_id(1);
    if (x0 >= cols)
        return;   /* the whole group: no barrier is passed */
    __global const real *a = in + array * N_X * N_Y;
    __global real2 *s = spec + array * HALF_Y * N_X;

    /* Neighbouring work-items read neighbouring columns of a row. */
    for (int e = lid; e < N_Y * 2 * LINES_Y; e += FFT_WG) {
        const int y = e / (2 * LINES_Y), c = e - y * 2 * LINES_Y, x = x0 + c;
        const int at = (c % LINES_Y) * PITCH_Y + y;
        const real v = y < rows && x < cols ? a[(size_t)y * N_X + x] : 0;
        if (c < LINES_Y)
            re0[at] = v;
        else
            im0[at] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int in_second = fft_lines_y(re0, im0, re1, im1, tw_y, 1);
    __local const real *zr = in_second ? re1 : re0, *zi = in_second ? im1 : im0;

    /* Z = A + i B with A, B the two columns' spectra: A(k) = (Z(k) + conj(Z(-k))) / 2,
     * B(k) = -i (Z(k) - conj(Z(-k))) / 2. Neighbouring work-items store neighbouring columns. */
    for (int e = lid; e < HALF_Y * 2 * LINES_Y; e += FFT_WG) {
        const int k = e / (2 * LINES_Y), c = e - k * 2 * LINES_Y, x = x0 + c;
        if (x >= cols)
            continue;
        const int at = (c % LINES_Y) * PITCH_Y, nk = k ? N_Y - k : 0;
        const real pr = zr[at + k], pi_ = zi[at + k], qr = zr[at + nk], qi = zi[at + nk];
        s[(size_t)k * N_X + x] = c < LINES_Y ? (real2)((pr + qr) * (real)0.5, (pi_ - qi) * (real)0.5)
                                             : (real2)((pi_ + qi) * (real)0.5, (qr - pr) * (real)0.5);
    }
}

/*
 * C2R, step 2: the column pairs of group get_group_id(0) of array
 * get_group_id(1) back along y, from their half-spectra (after fft_rows'
 * inverse), scaled by 1 / (N_X N_Y). With `search` (a constant at each
 * call, so that the plain kernel carries none of it), each work-item also
 * keeps the best (value, logical index) of the values it stores whose
 * shifts are within (search_rx, search_ry), by peak_order.h's rule, in
 * (*best_v, *best_k): fft_c2r_columns_peaks.
 */
static inline void c2r_columns(__global const real2 *spec, __global real *out, __global const real2 *tw_y,
                               __local real *re0, __local real *im0, __local real *re1, __local real *im1,
                               const int search, int search_rx, int search_ry, int logical_w, int logical_h,
                               real *best_v, int *best_k)
{
    const int x0 = get_group_id(0) * 2 * LINES_Y, lid = get_local_id(0);
    const size_t array = get_group_id(1);
    __global const real2 *s = spec + array * HALF_Y * N_X;
    __global real *o = out + array * N_X * N_Y;

    /* The half-spectra into (re1, im1): line l's A (column x0 + l) at
     * 0..N_Y/2, its B (column x0 + LINES_Y + l) after it. */
    for (int e = lid; e < HALF_Y * 2 * LINES_Y; e += FFT_WG) {
        const int k = e / (2 * LINES_Y), c = e - k * 2 * LINES_Y, x = x0 + c;
        const real2 v = x < N_X ? s[(size_t)k * N_X + x] : (real2)(0, 0);
        const int at = (c % LINES_Y) * PITCH_Y + (c < LINES_Y ? 0 : HALF_Y) + k;
        re1[at] = v.x;
        im1[at] = v.y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Z(k) = A(k) + i B(k) over the whole line, A and B Hermitian: for
     * k > N_Y/2, A(k) = conj(A(N_Y - k)), and the same for B. */
    for (int e = lid; e < LINES_Y * N_Y; e += FFT_WG) {
        const int line = e / N_Y, k = e - line * N_Y, at = line * PITCH_Y;
        const int h = k < HALF_Y ? k : N_Y - k;
        real ar = re1[at + h], ai = im1[at + h], br = re1[at + HALF_Y + h], bi = im1[at + HALF_Y + h];
        if (h == 0 || 2 * h == N_Y)
            ai = bi = 0;   /* real for a real column: what is left is rounding */
        if (k < HALF_Y) {
            re0[at + k] = ar - bi;
            im0[at + k] = ai + br;
        } else {
            re0[at + k] = ar + bi;
            im0[at + k] = br - ai;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int in_second = fft_lines_y(re0, im0, re1, im1, tw_y, -1);
    __local const real *zr = in_second ? re1 : re0, *zi = in_second ? im1 : im0;
    const real scale = (real)1 / ((real)N_X * N_Y);
    /* Work-item lid stores one column, x0 + lid % (2 LINES_Y), from row
     * lid / (2 LINES_Y) down, every ROW_STEP rows: neighbouring work-items
     * store neighbouring columns of a row. */
    const int c = lid % (2 * LINES_Y), x = x0 + c;
    __local const real *z = (c < LINES_Y ? zr : zi) + (c % LINES_Y) * PITCH_Y;
    if (x >= N_X)
        return;
    /* Shift (ux, uy) lies at (ux mod N_X, uy mod N_Y), as common.h's
     * corr_shift_x says for CORR_W = N_X. Down one column the searched
     * shifts come in increasing logical index, so that the first of equal
     * values is the one the tie rule picks: a strict > is the whole rule
     * within a column, and the index is worked out once at the end. */
    const int searched_column = search && (x <= search_rx || x >= N_X - search_rx);
    real bv = 0;
    int by = -1;
    for (int y = lid / (2 * LINES_Y); y < N_Y; y += ROW_STEP) {
        const real v = z[y] * scale;
        o[(size_t)y * N_X + x] = v;
        if (searched_column && (y <= search_ry || y >= N_Y - search_ry) && (by < 0 ? !isnan(v) : v > bv)) {
            bv = v;
            by = y;
        }
    }
    if (by >= 0) {
        const int ux = x <= search_rx ? x : x - N_X, uy = by <= search_ry ? by : by - N_Y;
        *best_v = bv;
        *best_k = (uy < 0 ? uy + logical_h : uy) * logical_w + (ux < 0 ? ux + logical_w : ux);
    }
}

__kernel __attribute__((reqd_work_group_size(FFT_WG, 1, 1))) void
fft_c2r_columns(__global const real2 *spec, __global real *out, __global const real2 *tw_y)
{
    __local real re0[LINES_Y * PITCH_Y], im0[LINES_Y * PITCH_Y], re1[LINES_Y * PITCH_Y], im1[LINES_Y * PITCH_Y];
    real unused_v = 0;
    int unused_k = -1;
    if (get_group_id(0) * 2 * LINES_Y >= N_X)
        return;   /* the whole group: no barrier is passed */
    c2r_columns(spec, out, tw_y, re0, im0, re1, im1, 0, 0, 0, 0, 0, &unused_v, &unused_k);
}

/*
 * fft_c2r_columns and the first half of the correlation's peak search (the
 * argmax, cl/argmax.cl), while the values are at hand: the best (value,
 * logical index) of the group's columns among the shifts |ux| <= search_rx,
 * |uy| <= search_ry of windows (logical_w / 2) x (logical_h / 2), reduced
 * across the work-group and stored as pair get_group_id(0) of array
 * get_group_id(1)'s get_num_groups(0) pairs (index -1: none). argmax.cl's
 * argmax_combine finishes the search. Saves the argmax's read of every
 * correlation, a tenth of the seed mode's device time on an H100.
 */
__kernel __attribute__((reqd_work_group_size(FFT_WG, 1, 1))) void
fft_c2r_columns_peaks(__global const real2 *spec, __global real *out, __global const real2 *tw_y,
                      __global real *part_values, __global int *part_indices, int search_rx, int search_ry,
                      int logical_w, int logical_h)
{
    __local real re0[LINES_Y * PITCH_Y], im0[LINES_Y * PITCH_Y], re1[LINES_Y * PITCH_Y], im1[LINES_Y * PITCH_Y];
    __local real best_v[FFT_WG];
    __local int best_k[FFT_WG];
    const int lid = get_local_id(0);
    real bv = 0;
    int bk = -1;
    if (get_group_id(0) * 2 * LINES_Y >= N_X)
        return;
    c2r_columns(spec, out, tw_y, re0, im0, re1, im1, 1, search_rx, search_ry, logical_w, logical_h, &bv, &bk);
    best_v[lid] = bv;
    best_k[lid] = bk;
    peak_reduce_group(best_v, best_k, FFT_WG);   /* FFT_WG: a power of two (the host makes it one) */
    if (lid == 0) {
        const size_t part = get_group_id(1) * get_num_groups(0) + get_group_id(0);
        part_values[part] = best_v[0];
        part_indices[part] = best_k[0];
    }
}

/* ---- along x ------------------------------------------------------------ */

/* The group's spectrum rows (of `nlines` in the batch) into (re, im);
 * columns at or past `cols`, and rows past the batch's, are zeros. */
static void load_rows(__global const real2 *spec, __local real *re, __local real *im, int first, int nlines, int cols)
{
    for (int e = get_local_id(0); e < LINES_X * N_X; e += FFT_WG) {
        const int l = e / N_X, x = e - l * N_X;
        const real2 v = first + l < nlines && x < cols ? spec[(size_t)(first + l) * N_X + x] : (real2)(0, 0);
        re[l * PITCH_X + x] = v.x;
        im[l * PITCH_X + x] = v.y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

static void store_rows(__global real2 *spec, __local const real *re, __local const real *im, int first, int nlines)
{
    for (int e = get_local_id(0); e < LINES_X * N_X; e += FFT_WG) {
        const int l = e / N_X, x = e - l * N_X;
        if (first + l < nlines)
            spec[(size_t)(first + l) * N_X + x] = (real2)(re[l * PITCH_X + x], im[l * PITCH_X + x]);
    }
}

/*
 * Both directions, step 2 of R2C and step 1 of C2R: LINES_X of the batch's
 * `nlines` spectrum rows along x, in place; columns at or past `cols` are
 * zeros. dir: 1 forward, -1 inverse.
 */
__kernel __attribute__((reqd_work_group_size(FFT_WG, 1, 1))) void
fft_rows(__global real2 *spec, __global const real2 *tw_x, int nlines, int cols, int dir)
{
    __local real re0[LINES_X * PITCH_X], im0[LINES_X * PITCH_X], re1[LINES_X * PITCH_X], im1[LINES_X * PITCH_X];
    const int first = get_group_id(0) * LINES_X;
    load_rows(spec, re0, im0, first, nlines, cols);
    const int in_second = fft_lines_x(re0, im0, re1, im1, tw_x, (real)dir);
    store_rows(spec, in_second ? re1 : re0, in_second ? im1 : im0, first, nlines);
}

/*
 * The correlation's middle in one pass: fft_rows forward, each value times
 * the conjugate of the reference spectrum's (array % nwin: the tiles of a
 * batch cycle through the nwin windows, as spectrum_multiply.cl reads
 * them), then fft_rows inverse, the lines staying in local memory.
 */
__kernel __attribute__((reqd_work_group_size(FFT_WG, 1, 1))) void
fft_rows_correlate(__global real2 *spec, __global const real2 *ref_spectra, __global const real2 *tw_x, int nlines,
                   int cols, int nwin)
{
    __local real re0[LINES_X * PITCH_X], im0[LINES_X * PITCH_X], re1[LINES_X * PITCH_X], im1[LINES_X * PITCH_X];
    const int first = get_group_id(0) * LINES_X;
    load_rows(spec, re0, im0, first, nlines, cols);
    int in_second = fft_lines_x(re0, im0, re1, im1, tw_x, 1);
    __local real *dr = in_second ? re1 : re0, *di = in_second ? im1 : im0;
    /* conj(r) d, as spectrum_multiply.cl, in place. */
    for (int e = get_local_id(0); e < LINES_X * N_X; e += FFT_WG) {
        const int l = e / N_X, x = e - l * N_X, line = first + l;
        if (line >= nlines)
            continue;
        const int array = line / HALF_Y, ky = line - array * HALF_Y;
        const real2 r = ref_spectra[((size_t)(array % nwin) * HALF_Y + ky) * N_X + x];
        const int at = l * PITCH_X + x;
        const real px = dr[at], py = di[at];
        dr[at] = r.x * px + r.y * py;
        di[at] = r.x * py - r.y * px;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    in_second = fft_lines_x(dr, di, in_second ? re0 : re1, in_second ? im0 : im1, tw_x, -1)
                    ? !in_second : in_second;
    store_rows(spec, in_second ? re1 : re0, in_second ? im1 : im0, first, nlines);
}
