/*
 * fft_pack.cl - the FFT path with two tiles per complex FFT (FFT_PACK=1,
 * seed pipeline step 2): the prepared tiles 2p and 2p + 1 are the real and
 * imaginary parts of complex array p, so that one C2C transform each way
 * does the work of two R2C and two C2R ones. The host runs
 *   fft_pack           prepared tiles a, b -> z = a + i b
 *   C2C forward        Z = FFT(z)
 *   fft_pack_multiply  Z -> Q = conj(R_a) A + i conj(R_b) B, in place
 *   C2C inverse        IFFT(Q) = corr_a + i corr_b (both real)
 *   fft_unpack         real parts to tile 2p's correlation, imaginary parts
 *                      to tile 2p + 1's
 * with R_a, R_b the reference's half-spectra (R2C, as with FFT_PACK=0) of
 * tile 2p's and tile 2p + 1's windows. An odd tile count leaves the last
 * array's imaginary part zero and its imaginary result unwritten.
 *
 * NDRange of every kernel: global (elements, npairs), npairs = ceil(ntiles /
 * 2); elements is PAD_PIXELS, or SPEC_PIXELS for the multiply (rounded up
 * to the work-group).
 */
#include "common.h"

#if !FFT_PACK
#error "fft_pack.cl is the FFT path's FFT_PACK=1 form"
#endif
/* Correlations are left where the inverse FFT puts them. */
#if CORR_W != PAD_W || CORR_H != PAD_H
#error "the FFT path needs CORR_W = PAD_W and CORR_H = PAD_H"
#endif

__kernel void fft_pack(__global const real *prepared, __global real2 *packed, int ntiles)
{
    const int i = get_global_id(0);
    const int pair = get_global_id(1);
    if (i >= PAD_PIXELS || 2 * pair >= ntiles)
        return;
    const size_t a = (size_t)2 * pair * PAD_PIXELS + i;
    packed[(size_t)pair * PAD_PIXELS + i] = (real2)(prepared[a], 2 * pair + 1 < ntiles ? prepared[a + PAD_PIXELS] : 0);
}

/* conj(r) x d: the sign of C(u) = sum_p r(p) d(p + u) (spectrum_multiply.cl). */
static inline real2 conj_multiply(real2 r, real2 d)
{
    return (real2)(r.x * d.x + r.y * d.y, r.x * d.y - r.y * d.x);
}

/*
 * A and B, the spectra of the real tiles a and b, are Hermitian
 * (A[-k] = conj(A[k]), indices mod (PAD_W, PAD_H)), so Z = A + i B gives
 *   A[k] = (Z[k] + conj(Z[-k])) / 2,   B[k] = (Z[k] - conj(Z[-k])) / (2i).
 * The reference spectra are Hermitian too, so the products P_a = conj(R_a) A
 * and P_b = conj(R_b) B are, and Q = P_a + i P_b at k and at -k follows
 * from k's values alone:
 *   Q[k] = P_a[k] + i P_b[k],   Q[-k] = conj(P_a[k]) + i conj(P_b[k]).
 * So one work-item serves each pair {k, -k}, taking k in the half-spectrum
 * (kx <= PAD_W / 2), where R[k] is stored; that R[-k] = conj(R[k]) is how
 * the full spectrum's other half enters. It reads both Z values before it
 * writes both Q values, so the product can replace Z in place. Columns 0
 * and PAD_W / 2 are their own mirror images: there only rows up to their
 * mirror row work, and an element that is its own mirror is written once.
 */
__kernel void fft_pack_multiply(__global real2 *spectra, __global const real2 *ref_spectra, int nwin, int ntiles)
{
    const int k = get_global_id(0);
    const int pair = get_global_id(1);
    if (k >= SPEC_PIXELS || 2 * pair >= ntiles)
        return;
    const int kx = k % SPEC_W, ky = k / SPEC_W;
    const int mx = (PAD_W - kx) % PAD_W, my = (PAD_H - ky) % PAD_H;   /* -k */
    if (mx == kx && my < ky)
        return;
    const size_t base = (size_t)pair * PAD_PIXELS;
    const size_t at = base + (size_t)ky * PAD_W + kx, mirror_at = base + (size_t)my * PAD_W + mx;
    const real2 z = spectra[at], zm = spectra[mirror_at];
    const real2 a = (real)0.5 * (real2)(z.x + zm.x, z.y - zm.y);
    const real2 b = (real)0.5 * (real2)(z.y + zm.y, zm.x - z.x);
    const real2 pa = conj_multiply(ref_spectra[(size_t)(2 * pair % nwin) * SPEC_PIXELS + k], a);
    const real2 pb = conj_multiply(ref_spectra[(size_t)((2 * pair + 1) % nwin) * SPEC_PIXELS + k], b);
    spectra[at] = (real2)(pa.x - pb.y, pa.y + pb.x);
    if (mirror_at != at)
        spectra[mirror_at] = (real2)(pa.x + pb.y, pb.x - pa.y);
}

__kernel void fft_unpack(__global const real2 *packed, __global real *corr, int ntiles)
{
    const int i = get_global_id(0);
    const int pair = get_global_id(1);
    if (i >= CORR_PIXELS || 2 * pair >= ntiles)
        return;
    const real2 c = packed[(size_t)pair * PAD_PIXELS + i];
    const size_t a = (size_t)2 * pair * CORR_PIXELS + i;
    corr[a] = c.x;
    if (2 * pair + 1 < ntiles)
        corr[a + CORR_PIXELS] = c.y;
}
