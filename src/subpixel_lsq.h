/*
 * subpixel_lsq.h - the seed's sub-pixel step on the host: a quadratic
 * f(x,y) = a + bx + cy + dx^2 + exy + fy^2 fitted by least squares to the
 * F x F correlation values around the integer peak, through a pseudo-inverse
 * computed once per F (internal).
 */
#ifndef CLX_SUBPIXEL_LSQ_H
#define CLX_SUBPIXEL_LSQ_H

struct lsq_fit {
    int size;          /* F */
    double *pinv;      /* 6 x F*F: coefficients = pinv * values */
};

int lsq_fit_init(struct lsq_fit *fit, int size);
void lsq_fit_release(struct lsq_fit *fit);

/*
 * Fits the F x F values nb (row-major, row offset -(F-1)/2 first) and writes
 * the stationary point (sx, sy) relative to the centre. Returns 0 when f has
 * a maximum there within (F-1)/2 in both axes; otherwise sets sx = sy = 0 and
 * returns 1 (ALGORITHM.md step 4).
 */
int lsq_fit_peak(const struct lsq_fit *fit, const double *nb, double *sx, double *sy);

#endif
