/*
 * subpixel.h - the sub-pixel estimators (internal): from the F x F
 * correlation values around an integer peak, the position of the peak
 * relative to it. One module for all of them, so that every path and mode
 * asks one place.
 *
 *   lsq        f(x,y) = a + bx + cy + dx^2 + exy + fy^2 fitted by least
 *              squares to all F x F values through a pseudo-inverse computed
 *              once per F; its stationary point (doc/conventions.md step 4)
 *   gauss3     per axis, the Gaussian through the peak and its two
 *              neighbours: s = (ln c- - ln c+) / (2 (ln c- - 2 ln c0 + ln c+))
 *   parabola3  per axis, the parabola through the same three values:
 *              s = (c- - c+) / (2 (c- - 2 c0 + c+))
 *   centroid   the centroid of the F x F values minus their minimum
 */
#ifndef CLX_SUBPIXEL_H
#define CLX_SUBPIXEL_H

#include "clxcorr.h"

struct subpixel {
    clx_estimator kind;
    int size;          /* F: nb holds F x F values, row-major, row offset -(F-1)/2 first */
    double *pinv;      /* lsq: 6 x F*F, coefficients = pinv * values */
};

int subpixel_init(struct subpixel *s, clx_estimator kind, int size);
void subpixel_release(struct subpixel *s);

/*
 * Writes the peak's position (sx, sy) relative to the centre of nb. Returns
 * 0 when the estimator found a maximum within (F-1)/2 (gauss3, parabola3:
 * within 1) in both axes; otherwise sets sx = sy = 0 and returns 1.
 */
int subpixel_estimate(const struct subpixel *s, const double *nb, double *sx, double *sy);

#endif
