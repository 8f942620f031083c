/*
 * direct_layout.h - the layouts both direct-path kernels (correlate_direct.cl,
 * correlate_direct_few.cl) rely on: compact prepared windows and a compact
 * correlation, shift (ux, uy) with |ux| <= STORE_RX, |uy| <= STORE_RY only.
 */
#ifndef CLX_DIRECT_LAYOUT_H
#define CLX_DIRECT_LAYOUT_H

#if PAD_W != WIN_W || PAD_H != WIN_H
#error "the direct path reads compact windows: PAD_W = WIN_W, PAD_H = WIN_H"
#endif
#if CORR_W != 2 * STORE_RX + 1 || CORR_H != 2 * STORE_RY + 1
#error "the direct path writes a compact correlation: CORR_W = 2 STORE_RX + 1"
#endif

#endif
