/*
 * host_ref.h - the double-precision host reference of the seed method
 * (doc/conventions.md, "The steps"), the ground truth of the test suite.
 *
 * It is written from doc/conventions.md alone and shares no code with src/ or cl/,
 * so that a test comparing the library with it compares two independent
 * readings of the specification. Clarity over speed throughout.
 *
 * The correlation C of a w x h window is stored in the "logical FFT layout":
 * a 2w x 2h row-major array whose element [ky * 2w + kx] holds C(ux, uy) with
 * kx = ux mod 2w, ky = uy mod 2h (non-negative modulus), for ux in (-w, w),
 * uy in (-h, h). Column kx = w and row ky = h are shifts of +-w, +-h, where the
 * windows do not overlap: they hold 0. This is what an unshifted 2w x 2h FFT
 * buffer holds.
 */
#ifndef CLX_HOST_REF_H
#define CLX_HOST_REF_H

#include "clxcorr.h"

/* The mean of the pixels of window r of img (any pixel type, raw values). */
double href_window_mean(const clx_image *img, const clx_region *r);

/* The window minus its mean: r->w * r->h values, row-major, into out. */
void href_window_zero_mean(const clx_image *img, const clx_region *r, double *out);

/*
 * Linear (zero-padded) cross-correlation C(u) = sum over p of ref(p) img(p + u)
 * of two w x h windows, summed directly, into C (2w * 2h values, logical FFT
 * layout).
 */
void href_correlate_direct(const double *ref, const double *img, int w, int h, double *C);

/*
 * The same as href_correlate_direct, computed as IFFT(conj(FFT(ref)) FFT(img))
 * on a power-of-two grid of at least 2w x 2h (radix-2 FFT in double).
 */
void href_correlate_fft(const double *ref, const double *img, int w, int h, double *C);

/*
 * The largest C(ux, uy) over ux in (-w, w), uy in (-h, h); ties go to the
 * smallest index ky * 2w + kx of the logical layout (so ux = 0 beats ux = -1).
 */
void href_argmax(const double *C, int w, int h, int *ux, int *uy, double *value);

/* The same over the bounded search |ux| <= rx, |uy| <= ry (--max-shift). */
void href_argmax_within(const double *C, int w, int h, int rx, int ry, int *ux, int *uy, double *value);

/*
 * The F x F values of C around (ux, uy) into nb, row-major with the row offset
 * outer: nb[(oy + r) * F + (ox + r)] = C at kx = (ux + ox) mod 2w,
 * ky = (uy + oy) mod 2h, for ox, oy in [-r, r], r = (F - 1) / 2. Indices wrap
 * as in an unshifted FFT buffer; elements at kx = w or ky = h are 0.
 */
void href_neighbourhood(const double *C, int w, int h, int ux, int uy, int F, double *nb);

/*
 * Least-squares fit of a + b x + c y + d x^2 + e x y + f y^2 to the F x F
 * values nb (x = column offset, y = row offset, both in [-r, r]) and its
 * stationary point (sx, sy). Returns 0 when that is a maximum within the
 * neighbourhood (4df - e^2 > 0, d < 0, |sx|, |sy| <= r); otherwise sets
 * sx = sy = 0 and returns 1.
 */
int href_fit_lsq(const double *nb, int F, double *sx, double *sy);

/*
 * The whole seed pipeline for window r of ref and img: zero-mean, correlate
 * (FFT when use_fft, else direct), argmax, F x F neighbourhood, fit.
 * Fills out->ix, iy, peak, dx = ix + sx, dy = iy + sy and flags:
 * CLX_FLAG_FIT_FAILED when the fit failed, CLX_FLAG_EDGE when |ix| = w - 1 or
 * |iy| = h - 1 (the border of the searched shifts), CLX_FLAG_NO_PEAK when the
 * peak is not positive.
 */
void href_offset(const clx_image *ref, const clx_image *img, const clx_region *r, int F,
                 int use_fft, clx_result *out);

/* The same with the search bounded to |ux|, |uy| <= max_shift (0: no bound);
 * CLX_FLAG_EDGE then marks a peak at that bound. */
void href_offset_within(const clx_image *ref, const clx_image *img, const clx_region *r, int F,
                        int use_fft, int max_shift, clx_result *out);

/*
 * The other sub-pixel estimators of `clxcorr offsets --estimator`, as
 * doc/accurate-mode.md and clxcorr.h name them, on the F x F values nb
 * (layout of href_neighbourhood), c-, c0, c+ being the peak and its two
 * neighbours along one axis:
 *   CLX_ESTIMATOR_PARABOLA3  per axis, the vertex of the parabola through
 *                            c-, c0, c+: s = (c- - c+) / (2 (c- - 2 c0 + c+))
 *   CLX_ESTIMATOR_GAUSS3     the same through ln c-, ln c0, ln c+ (all > 0)
 *   CLX_ESTIMATOR_CENTROID   the centroid of the F x F values minus their minimum
 *   CLX_ESTIMATOR_LSQ        href_fit_lsq
 * Returns 0 when that is a maximum (parabola3, gauss3: curvature < 0 and
 * |s| <= 1 on both axes; centroid: a positive sum); otherwise sets
 * sx = sy = 0 and returns 1.
 */
int href_estimate(clx_estimator kind, const double *nb, int F, double *sx, double *sy);

/* href_offset_within with the sub-pixel estimator `kind` (a failed one flags
 * CLX_FLAG_FIT_FAILED, as a failed fit). */
void href_offset_estimator(const clx_image *ref, const clx_image *img, const clx_region *r, int F,
                           int use_fft, int max_shift, clx_estimator kind, clx_result *out);

/*
 * The correlation C(ux, uy) of window r of ref and img (zero-mean, direct
 * or FFT as href_offset) for |ux| <= rx, |uy| <= ry, into S row-major:
 * S[(uy + ry) * (2 rx + 1) + (ux + rx)], the layout of `clxcorr correlate`'s
 * pages. rx < w, ry < h.
 */
void href_surface(const clx_image *ref, const clx_image *img, const clx_region *r, int use_fft, int rx, int ry,
                  double *S);

#endif
