/*
 * refine_step.h - how far a refinement iteration moves a window (internal).
 *
 * An iteration samples the image window at offset o and measures the
 * correlation peak's position u there: the correction the estimator sees.
 * Near the answer d, u is close to linear in the distance left,
 * u = G (d - o), but G is not the identity: a sub-pixel estimator's gain
 * depends on the peak's shape (a 3 x 3 least-squares fit on the ridge of a
 * Kikuchi band crossing overshoots by a quarter, the centroid by up to
 * twice), and along a ridge the axes couple. Adding u (G taken as I)
 * converges only when the overshoot is small, and slowly near G = 2I, where
 * the iterates oscillate around d.
 *
 * So G is estimated as it goes, Broyden's way: starting from I, each new
 * (o, u) pair corrects it along the last move, and the step is G^-1 u. For
 * a linear u it lands on d in two or three iterations whatever G is, and
 * the fixed point (u = 0) is the same as plain iteration's: only the path
 * is shorter. When the estimate looks wrong (a singular or non-positive G,
 * a step much longer than u, a peak off zero, a failed fit) it falls back
 * to the plain step and starts again from I.
 */
#ifndef CLX_REFINE_STEP_H
#define CLX_REFINE_STEP_H

struct refine_step {
    double g[2][2];     /* the gain estimate */
    double o[2], u[2];  /* the last iteration's offset and measured correction */
    int have_last;      /* o, u hold an iteration the next may learn from */
};

void refine_step_reset(struct refine_step *s);

/*
 * The move after an iteration at offset o that measured correction u
 * (`usable`: a sub-pixel peak at zero shift, fit succeeded): writes the
 * step to take from o, G^-1 u or u.
 */
void refine_step_next(struct refine_step *s, const double o[2], const double u[2], int usable, double step[2]);

#endif
