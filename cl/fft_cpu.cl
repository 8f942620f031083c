/*
 * fft_cpu.cl - clxcorr's own 2D real FFT, written for CPU devices
 * (src/ops/fft_cpu.c is its host side).
 *
 * Why: the FFT libraries' kernels are made for GPUs: many work-items per
 * line, exchanging values through local memory between barriers. A CPU
 * OpenCL runtime runs a work-group's work-items one after another on one
 * core and vectorises across them only where a kernel has no inner loops,
 * so those kernels run scalar there (PoCL: 72 % of seed mode's time). Here
 * one work-item transforms VEC lines at once, one line per vector lane, with
 * explicit vector types: every butterfly is VEC-wide SIMD whatever the
 * runtime's vectoriser does, the twiddles are shared by the lanes (scalar),
 * and a line lives in the work-item's private arrays (the core's cache)
 * from its load to its store. No local memory, no barriers.
 *
 * The transforms (N_X, N_Y even, products of 2, 3, 5 and 7):
 *   R2C: B real N_X x N_Y arrays (rows of N_X) to their half-spectra:
 *     fft_r2c_columns   the columns along y. Columns c and c + VEC share a
 *                       lane's complex line (c real, c + VEC imaginary) and
 *                       are separated after the transform, so a real line
 *                       costs half a complex one. Frequencies 0..N_Y/2 of
 *                       each column are stored, column-major.
 *     fft_rows          then along x, VEC of those frequencies per work-item
 *                       (contiguous in the column-major layout), in place.
 *   C2R: the reverse: fft_rows (inverse), then fft_c2r_columns, which
 *   rebuilds each column pair's full complex line from the half-spectra,
 *   transforms it back, and writes column c from the real parts and column
 *   c + VEC from the imaginary ones, scaled by 1 / (N_X N_Y).
 *   The correlation (fft_backend.h's correlate): fft_r2c_columns, then
 *   fft_rows_correlate (fft_rows forward, the multiply by the reference's
 *   conjugate, fft_rows inverse, in one pass), then fft_c2r_columns.
 *
 * Spectrum layout (the multiply only needs it to be the same for the image
 * and the reference): per array, N_X rows of SPEC_PITCH complex values,
 * row kx holding frequencies ky = 0..N_Y/2 along y of frequency kx along x;
 * the last SPEC_PITCH - (N_Y/2 + 1) values of a row are padding.
 *
 * Each 1D transform is Stockham's autosort FFT (E. Bainville's "OpenCL Fast
 * Fourier Transform" form): pass after pass of radix R butterflies,
 * ping-ponging between two private arrays, in radix 8, 4, 2, 3, 5, 7 order.
 * Twiddles come from a table of exp(-2 pi i t / N), t = 0..N-1, the host
 * computes in double precision.
 *
 * NDRange: fft_r2c_columns and fft_c2r_columns: global (ceil(N_X / (2 VEC)),
 * B); fft_rows: global (SPEC_PITCH / VEC, B). Any work-group size.
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

#if USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double8 vreal;
typedef double16 vreal2;
#else
typedef float real;
typedef float2 real2;
typedef float8 vreal;
typedef float16 vreal2;
#endif

#define VEC 8                                          /* lines per work-item: the vector width */
#define HALF_Y (N_Y / 2 + 1)                           /* frequencies kept along y */
#define SPEC_PITCH ((HALF_Y + VEC - 1) / VEC * VEC)    /* a spectrum row, padded to whole vectors */

/* ---- lanes ------------------------------------------------------------- */

#define LANES(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)

/* (re, im) of VEC lanes, interleaved as VEC complex values. */
static inline vreal2 interleave(vreal re, vreal im)
{
    return (vreal2)(re.s0, im.s0, re.s1, im.s1, re.s2, im.s2, re.s3, im.s3,
                    re.s4, im.s4, re.s5, im.s5, re.s6, im.s6, re.s7, im.s7);
}

/* ---- one radix-R pass over VEC lines ------------------------------------ */

#define FFT_T vreal
#include "fft_radix.h"

/*
 * One Stockham pass of radix R over n-point lines: butterfly i (of n / R)
 * reads x[i + r n / R], r = 0..R-1, twiddles input r by w^(r k) with
 * k = i mod p and w = exp(-2 pi i dir / (p R)), transforms them and writes
 * y[(i - k) R + k + r p]. p is the product of the earlier passes' radices.
 */
#define DEFINE_PASS(R, DFT_CALL)                                                                 \
    static void pass##R(const vreal *xr, const vreal *xi, vreal *yr, vreal *yi, int n, int p,   \
                        __global const real2 *tw, real dir)                                      \
    {                                                                                            \
        const int m = n / R, step = n / (p * R);                                                 \
        for (int i = 0; i < m; i++) {                                                            \
            const int k = i % p;                                                                 \
            vreal ar[R], ai[R];                                                                  \
            ar[0] = xr[i];                                                                       \
            ai[0] = xi[i];                                                                       \
            for (int r = 1; r < R; r++) {                                                        \
                const vreal u = xr[i + r * m], v = xi[i + r * m];                                \
                if (k == 0) { /* w = 1: the first pass's every butterfly, 1 / p of the others */ \
                    ar[r] = u;                                                                   \
                    ai[r] = v;                                                                   \
                    continue;                                                                    \
                }                                                                                \
                const real2 w = tw[r * k * step];                                                \
                const real wy = dir * w.y;                                                       \
                ar[r] = u * w.x - v * wy;                                                        \
                ai[r] = u * wy + v * w.x;                                                        \
            }                                                                                    \
            DFT_CALL;                                                                            \
            const int j = (i - k) * R + k;                                                       \
            for (int r = 0; r < R; r++) {                                                        \
                yr[j + r * p] = ar[r];                                                           \
                yi[j + r * p] = ai[r];                                                           \
            }                                                                                    \
        }                                                                                        \
    }

DEFINE_PASS(2, dft2(ar, ai))
DEFINE_PASS(3, dft3(ar, ai, dir))
DEFINE_PASS(4, dft4(ar, ai, dir))
DEFINE_PASS(8, dft8(ar, ai, dir))
DEFINE_PASS(5, dft5(ar, ai, dir))
DEFINE_PASS(7, dft7(ar, ai, dir))

/*
 * Transforms VEC n-point lines held in (re0, im0); the result is left in
 * (re0, im0) or (re1, im1): the return value says which (0 or 1).
 */
static int fft_lines(vreal *re0, vreal *im0, vreal *re1, vreal *im1, int n, __global const real2 *tw, real dir)
{
    vreal *xr = re0, *xi = im0, *yr = re1, *yi = im1;
    int in_second = 0;
    for (int p = 1, rest = n; rest > 1;) {
        int radix;
        if (rest % 8 == 0) {
            radix = 8;
            pass8(xr, xi, yr, yi, n, p, tw, dir);
        } else if (rest % 4 == 0) {
            radix = 4;
            pass4(xr, xi, yr, yi, n, p, tw, dir);
        } else if (rest % 2 == 0) {
            radix = 2;
            pass2(xr, xi, yr, yi, n, p, tw, dir);
        } else if (rest % 3 == 0) {
            radix = 3;
            pass3(xr, xi, yr, yi, n, p, tw, dir);
        } else if (rest % 5 == 0) {
            radix = 5;
            pass5(xr, xi, yr, yi, n, p, tw, dir);
        } else {
            radix = 7;
            pass7(xr, xi, yr, yi, n, p, tw, dir);
        }
        p *= radix;
        rest /= radix;
        vreal *t = xr;
        xr = yr;
        yr = t;
        t = xi;
        xi = yi;
        yi = t;
        in_second = !in_second;
    }
    return in_second;
}

/* ---- the kernels -------------------------------------------------------- */

/* VEC reals of row `row` from column x0 on; columns at or past N_X read 0. */
static inline vreal load_row(__global const real *a, int x0)
{
    if (x0 + VEC <= N_X)
        return vload8(0, a + x0);
    real v[VEC];
    for (int j = 0; j < VEC; j++)
        v[j] = x0 + j < N_X ? a[x0 + j] : 0;
    return vload8(0, v);
}

static inline void store_row(__global real *a, int x0, vreal v)
{
    if (x0 + VEC <= N_X) {
        vstore8(v, 0, a + x0);
        return;
    }
    real t[VEC];
    vstore8(v, 0, t);
    for (int j = 0; j < VEC && x0 + j < N_X; j++)
        a[x0 + j] = t[j];
}

/*
 * R2C, step 1: columns x0 .. x0 + VEC - 1 (lanes' real parts) and
 * x0 + VEC .. x0 + 2 VEC - 1 (imaginary parts) along y, x0 = 2 VEC g.
 * Only the first `rows` rows and `cols` columns are read; the rest are
 * taken as zeros (the correlation's padding), and columns at or past
 * `cols` get zero spectra without a transform.
 */
__kernel void fft_r2c_columns(__global const real *in, __global real2 *spec, __global const real2 *tw_y,
                              int rows, int cols)
{
    const int x0 = get_global_id(0) * 2 * VEC;
    const size_t array = get_global_id(1);
    if (x0 >= N_X)
        return;
    __global const real *a = in + array * N_X * N_Y;
    __global real2 *s = spec + array * N_X * SPEC_PITCH;
    vreal re0[N_Y], im0[N_Y], re1[N_Y], im1[N_Y];

    int in_second = 0;
    if (x0 < cols) {
        for (int y = 0; y < N_Y; y++) {
            re0[y] = y < rows ? load_row(a + (size_t)y * N_X, x0) : (vreal)0;
            im0[y] = y < rows && x0 + VEC < cols ? load_row(a + (size_t)y * N_X, x0 + VEC) : (vreal)0;
        }
        in_second = fft_lines(re0, im0, re1, im1, N_Y, tw_y, 1);
    } else {
        for (int y = 0; y < N_Y; y++)
            re0[y] = im0[y] = (vreal)0;
    }
    const vreal *zr = in_second ? re1 : re0, *zi = in_second ? im1 : im0;

    /* Z = A + i B with A, B the two columns' spectra: A(k) = (Z(k) + conj(Z(-k))) / 2,
     * B(k) = -i (Z(k) - conj(Z(-k))) / 2. */
    for (int k = 0; k < HALF_Y; k++) {
        const int nk = k ? N_Y - k : 0;
        const vreal ar = (zr[k] + zr[nk]) * (real)0.5, ai = (zi[k] - zi[nk]) * (real)0.5;
        const vreal br = (zi[k] + zi[nk]) * (real)0.5, bi = (zr[nk] - zr[k]) * (real)0.5;
        __global real2 *col = s + (size_t)x0 * SPEC_PITCH + k;
#define STORE_A(j) if (x0 + j < N_X) col[j * SPEC_PITCH] = (real2)(ar.s##j, ai.s##j);
#define STORE_B(j) if (x0 + VEC + j < N_X) col[(VEC + j) * SPEC_PITCH] = (real2)(br.s##j, bi.s##j);
        LANES(STORE_A)
        LANES(STORE_B)
#undef STORE_A
#undef STORE_B
    }
    /* The rows' padding: zeros, so that the transforms along x see numbers. */
    for (int k = HALF_Y; k < SPEC_PITCH; k++)
        for (int j = 0; j < 2 * VEC && x0 + j < N_X; j++)
            s[(size_t)(x0 + j) * SPEC_PITCH + k] = (real2)(0, 0);
}

/* The VEC spectrum rows' lines along x from s (frequency ky0's place in
 * the array's first row) into (re, im), and back. */
static inline void load_lines(__global const real *s, vreal *re, vreal *im)
{
    for (int x = 0; x < N_X; x++) {
        const vreal2 v = vload16(0, s + (size_t)x * 2 * SPEC_PITCH);
        re[x] = v.even;
        im[x] = v.odd;
    }
}

static inline void store_lines(__global real *s, const vreal *re, const vreal *im)
{
    for (int x = 0; x < N_X; x++)
        vstore16(interleave(re[x], im[x]), 0, s + (size_t)x * 2 * SPEC_PITCH);
}

/*
 * Both directions, step 2 of R2C and step 1 of C2R: frequencies
 * ky0 .. ky0 + VEC - 1 of every spectrum row along x, in place.
 * dir: 1 forward, -1 inverse.
 */
__kernel void fft_rows(__global real2 *spec, __global const real2 *tw_x, int dir)
{
    const int ky0 = get_global_id(0) * VEC;
    const size_t array = get_global_id(1);
    if (ky0 >= SPEC_PITCH)
        return;
    __global real *s = (__global real *)(spec + array * N_X * SPEC_PITCH + ky0);
    vreal re0[N_X], im0[N_X], re1[N_X], im1[N_X];
    load_lines(s, re0, im0);
    const int in_second = fft_lines(re0, im0, re1, im1, N_X, tw_x, (real)dir);
    const vreal *zr = in_second ? re1 : re0, *zi = in_second ? im1 : im0;
    store_lines(s, zr, zi);
}

/*
 * The correlation's middle in one pass, for src/ops/correlate_fft.c:
 * fft_rows forward, each value times the conjugate of the reference
 * spectrum's (array % nwin: the tiles of a batch cycle through the nwin
 * windows, as spectrum_multiply.cl reads them), then fft_rows inverse,
 * while the lines stay in the work-item's private arrays. Separately, those
 * three passes each read and wrote every spectrum once more.
 */
__kernel void fft_rows_correlate(__global real2 *spec, __global const real2 *ref_spectra, __global const real2 *tw_x,
                                 int nwin)
{
    const int ky0 = get_global_id(0) * VEC;
    const size_t array = get_global_id(1);
    if (ky0 >= SPEC_PITCH)
        return;
    __global real *s = (__global real *)(spec + array * N_X * SPEC_PITCH + ky0);
    __global const real *r = (__global const real *)(ref_spectra + (array % nwin) * N_X * SPEC_PITCH + ky0);
    vreal re0[N_X], im0[N_X], re1[N_X], im1[N_X];
    load_lines(s, re0, im0);
    int in_second = fft_lines(re0, im0, re1, im1, N_X, tw_x, 1);
    const vreal *dr = in_second ? re1 : re0, *di = in_second ? im1 : im0;
    /* conj(r) d, as spectrum_multiply.cl; the product back into the first arrays. */
    for (int x = 0; x < N_X; x++) {
        const vreal2 v = vload16(0, r + (size_t)x * 2 * SPEC_PITCH);
        const vreal rx = v.even, ry = v.odd, px = dr[x], py = di[x];
        re0[x] = rx * px + ry * py;
        im0[x] = rx * py - ry * px;
    }
    in_second = fft_lines(re0, im0, re1, im1, N_X, tw_x, -1);
    const vreal *zr = in_second ? re1 : re0, *zi = in_second ? im1 : im0;
    store_lines(s, zr, zi);
}

/*
 * C2R, step 2: the columns x0 .. x0 + 2 VEC - 1 back along y, from their
 * half-spectra (after fft_rows' inverse), scaled by 1 / (N_X N_Y).
 */
__kernel void fft_c2r_columns(__global const real2 *spec, __global real *out, __global const real2 *tw_y)
{
    const int x0 = get_global_id(0) * 2 * VEC;
    const size_t array = get_global_id(1);
    if (x0 >= N_X)
        return;
    __global const real2 *s = spec + array * N_X * SPEC_PITCH;
    __global real *o = out + array * N_X * N_Y;
    vreal re0[N_Y], im0[N_Y], re1[N_Y], im1[N_Y];

    /* Z(k) = A(k) + i B(k) over the whole line, A and B Hermitian: for
     * k > N_Y/2, A(k) = conj(A(N_Y - k)), and the same for B. */
    for (int k = 0; k < HALF_Y; k++) {
        __global const real2 *col = s + (size_t)x0 * SPEC_PITCH + k;
        real2 a[VEC], b[VEC];
        for (int j = 0; j < VEC; j++) {
            a[j] = x0 + j < N_X ? col[j * SPEC_PITCH] : (real2)(0, 0);
            b[j] = x0 + VEC + j < N_X ? col[(VEC + j) * SPEC_PITCH] : (real2)(0, 0);
        }
        vreal ar, ai, br, bi;
#define GATHER(j) ar.s##j = a[j].x; ai.s##j = a[j].y; br.s##j = b[j].x; bi.s##j = b[j].y;
        LANES(GATHER)
#undef GATHER
        if (k == 0 || 2 * k == N_Y)
            ai = bi = (vreal)0;   /* real for a real column: what is left is rounding */
        re0[k] = ar - bi;
        im0[k] = ai + br;
        if (k > 0 && k < N_Y - k) {
            re0[N_Y - k] = ar + bi;
            im0[N_Y - k] = br - ai;
        }
    }
    const int in_second = fft_lines(re0, im0, re1, im1, N_Y, tw_y, -1);
    const vreal *zr = in_second ? re1 : re0, *zi = in_second ? im1 : im0;
    const real scale = (real)1 / ((real)N_X * N_Y);
    for (int y = 0; y < N_Y; y++) {
        __global real *row = o + (size_t)y * N_X;
        store_row(row, x0, zr[y] * scale);
        if (x0 + VEC < N_X)
            store_row(row, x0 + VEC, zi[y] * scale);
    }
}
