/*
 * vector_layout.h - how the CPU forms of the separable passes
 * (cl/filter_vector.cl, and bspline_prefilter.cl's vector kernels) divide
 * their work among work-items: plain C, included by the kernels and by
 * their host side (src/ops/filter_chain.c, src/ops/bspline_prefilter.c),
 * which sizes the NDRanges from it.
 *
 *  - a row pass: one work-item per row of one image;
 *  - a column pass: one work-item per strip of VECTOR_STRIP columns (the
 *    last strip of a row narrower) and a few rows (FILTER_K for the
 *    pre-filter, VECTOR_STRIP_ROWS for the B-spline prefilter).
 *
 * Why this shape on a CPU: a CPU runtime pays for every work-item it
 * starts (a 7-tap pass of one output per work-item spent more time there
 * than in arithmetic), and one chain of dependent multiply-adds waits on
 * each one's latency, so a work-item keeps VECTOR_ACCUMULATORS independent
 * vector sums. The kernels unroll their loops over those sums (#pragma
 * unroll): left as loops, PoCL kept the sums in memory, a load and a store
 * around every add.
 */
#ifndef CLX_VECTOR_LAYOUT_H
#define CLX_VECTOR_LAYOUT_H

#define VECTOR_WIDTH 16                                 /* reals per vector */
#define VECTOR_ACCUMULATORS 4                           /* independent sums a work-item keeps */
#define VECTOR_STRIP (VECTOR_WIDTH * VECTOR_ACCUMULATORS)  /* columns per column-pass work-item */
#define VECTOR_CHUNK 128                                /* row-pass outputs per staged piece of a row */
#define VECTOR_STRIP_ROWS 8                             /* rows per B-spline column-pass work-item */

#endif
