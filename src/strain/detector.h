/*
 * detector.h - the pattern centre in pattern pixels, and the checks of a
 * clx_detector (internal).
 */
#ifndef CLX_STRAIN_DETECTOR_H
#define CLX_STRAIN_DETECTOR_H

#include "clxcorr.h"

/* The pattern centre in pixels: the source is at (xpc, ypc, -L) with the
 * screen the plane z = 0 of the detector frame. */
struct screen {
    double xpc, ypc, L;
};

/* CLX_ERR_ARGUMENT with msg for sizes that are not positive or a pattern
 * centre or tilts that are not finite, or pcz <= 0. */
int detector_check(const clx_detector *detector, clx_message *msg);

/* xpc = pcx W - 0.5, ypc = pcy H - 0.5, L = pcz H; pc NULL: the detector's. */
void screen_from_pc(const clx_detector *detector, const double pc[3], struct screen *screen);
void screen_to_pc(const clx_detector *detector, const struct screen *screen, double pc[3]);

#endif
