/*
 * vector_fir.h - the CPU forms' FIR along a row staged in private memory,
 * shared by filter_vector.cl's row pass and bspline_prefilter.cl's vector
 * rows: n outputs, out[x] = sum_k taps[k] staged[x + k] over k = 0 ..
 * ntaps - 1 added left to right, VECTOR_ACCUMULATORS vectors of
 * VECTOR_WIDTH outputs at a time (vector_layout.h), the rest one by one.
 * The taps are private too: read from there they ran faster than from
 * constant memory. Needs filter_common.h (real, USE_DOUBLE) and
 * vector_layout.h.
 */
#ifndef CLX_VECTOR_FIR_H
#define CLX_VECTOR_FIR_H

#if VECTOR_WIDTH != 16
#error "vector_fir.h loads and stores vectors of 16"
#endif
#if USE_DOUBLE
typedef double16 vfir;
#else
typedef float16 vfir;
#endif

/* The tap loop's unrolling: PoCL unrolls it whole, and needs to (left a
 * loop it ran at half the speed); AMD's compiler, unrolling it with 16-wide
 * doubles, spilled past its 128 KiB stack limit from radius 17 on (these
 * CPU forms reach a GPU only in tests that force them). */
#ifdef __AMDGCN__
#define TAP_LOOP _Pragma("unroll 1")
#else
#define TAP_LOOP
#endif

static inline void fir_staged_row(const real *staged, int n, const real *taps, int ntaps, __global real *out)
{
    int x = 0;
    for (; x + VECTOR_ACCUMULATORS * VECTOR_WIDTH <= n; x += VECTOR_ACCUMULATORS * VECTOR_WIDTH) {
        vfir acc[VECTOR_ACCUMULATORS];
        #pragma unroll
        for (int j = 0; j < VECTOR_ACCUMULATORS; j++)
            acc[j] = 0;
        TAP_LOOP
        for (int k = 0; k < ntaps; k++) {
            const vfir tap = (vfir)taps[k];
            #pragma unroll
            for (int j = 0; j < VECTOR_ACCUMULATORS; j++)
                acc[j] = mad(tap, vload16(0, staged + x + j * VECTOR_WIDTH + k), acc[j]);
        }
        #pragma unroll
        for (int j = 0; j < VECTOR_ACCUMULATORS; j++)
            vstore16(acc[j], 0, out + x + j * VECTOR_WIDTH);
    }
    for (; x < n; x++) {
        real acc = 0;
        for (int k = 0; k < ntaps; k++)
            acc = mad(taps[k], staged[x + k], acc);
        out[x] = acc;
    }
}

#endif
