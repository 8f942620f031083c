/*
 * spectrum_multiply.cl - conj(reference spectrum) x image spectrum, in place
 * (seed pipeline step 2, FFT path). The inverse transform of the product is
 * C(u) = sum_p r(p) d(p + u): the sign doc/conventions.md fixes.
 *
 * A spectrum is `elements` complex values in the FFT library's own layout
 * (R2C's half-spectrum: (PAD_W / 2 + 1) x PAD_H for clFFT and VkFFT, more for
 * src/ops/fft_cpu.c's); the product is element by element, so any layout
 * the image and the reference share will do.
 *
 * NDRange: global (elements, ntiles) (x rounded up to the work-group).
 */
#include "common.h"

__kernel void spectrum_multiply(__global real2 *spectra, __global const real2 *ref_spectra,
                                int nwin, int ntiles, int elements)
{
    const int k = get_global_id(0);
    const int tile = get_global_id(1);
    if (k >= elements || tile >= ntiles)
        return;
    const size_t at = (size_t)tile * elements + k;
    const real2 r = ref_spectra[(size_t)(tile % nwin) * elements + k];
    const real2 d = spectra[at];
    spectra[at] = (real2)(r.x * d.x + r.y * d.y, r.x * d.y - r.y * d.x);
}
