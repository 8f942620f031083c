/*
 * detector.h - the pattern centre on the screen, and the checks of a
 * clx_detector (internal).
 *
 * The detector frame is kikuchipy's (doc/hrebsd-conventions.md): x_d to the
 * right on the pattern, y_d up it, z_d = x_d x y_d from the sample through
 * the screen, so that the pattern is seen from behind the screen, as
 * kikuchipy and the vendors store it. A pixel (u, v) (column, row; centres
 * at integers) lies at screen coordinates (u, -v) in the plane z_d = 0; every
 * position and shift of the fit is in screen coordinates.
 */
#ifndef CLX_STRAIN_DETECTOR_H
#define CLX_STRAIN_DETECTOR_H

#include "clxcorr.h"

/* The pattern centre in screen coordinates: the source is at (x0, y0, -L). */
struct screen {
    double x0, y0, L;
};

/* Screen coordinates of pixel (u, v), and of a shift (du, dv) in pixels. */
static inline void screen_point(double u, double v, double out[2])
{
    out[0] = u;
    out[1] = -v;
}

/* CLX_ERR_ARGUMENT with msg for sizes that are not positive, a pattern
 * centre or tilts that are not finite or out of range (a centre far off
 * the screen, as percentages given for fractions make it; PCz not in
 * (0, 10]; tilts beyond +-90 degrees). */
int detector_check(const clx_detector *detector, clx_message *msg);

/* x0 = pcx W - 0.5, y0 = -(pcy H - 0.5), L = pcz H; pc NULL: the detector's. */
void screen_from_pc(const clx_detector *detector, const double pc[3], struct screen *screen);
void screen_to_pc(const clx_detector *detector, const struct screen *screen, double pc[3]);

#endif
