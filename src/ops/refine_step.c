/* refine_step.c - quasi-Newton (Broyden) steps for the refinement; see refine_step.h. */
#include "config.h"

#include <math.h>

#include "ops/refine_step.h"

/* A gain estimate further from I than this is not trusted: the estimators'
 * gains lie well inside (0.25, 4) on every peak seen so far. */
#define MIN_DET 0.05
#define MAX_STEP_RATIO 4.0
/* Moves shorter than this (px) carry no information about G. */
#define MIN_MOVE 1e-6

void refine_step_reset(struct refine_step *s)
{
    s->g[0][0] = s->g[1][1] = 1;
    s->g[0][1] = s->g[1][0] = 0;
    s->have_last = 0;
}

void refine_step_next(struct refine_step *s, const double o[2], const double u[2], int usable, double step[2])
{
    step[0] = u[0];
    step[1] = u[1];
    if (!usable) {
        refine_step_reset(s);
        return;
    }
    if (s->have_last) {
        /* The last move m and what it did to u: u_last - u = G m. */
        double m[2] = { o[0] - s->o[0], o[1] - s->o[1] };
        double y[2] = { s->u[0] - u[0], s->u[1] - u[1] };
        double mm = m[0] * m[0] + m[1] * m[1];
        if (mm > MIN_MOVE * MIN_MOVE) {
            /* G += (y - G m) m^T / (m^T m): the least change to G that
             * explains the move. */
            double r[2] = { y[0] - (s->g[0][0] * m[0] + s->g[0][1] * m[1]),
                            y[1] - (s->g[1][0] * m[0] + s->g[1][1] * m[1]) };
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    s->g[i][j] += r[i] * m[j] / mm;
        }
    }
    double det = s->g[0][0] * s->g[1][1] - s->g[0][1] * s->g[1][0];
    int trusted = det > MIN_DET && s->g[0][0] > 0 && s->g[1][1] > 0;
    if (trusted) {
        double sx = (s->g[1][1] * u[0] - s->g[0][1] * u[1]) / det;
        double sy = (s->g[0][0] * u[1] - s->g[1][0] * u[0]) / det;
        trusted = hypot(sx, sy) <= MAX_STEP_RATIO * hypot(u[0], u[1]);
        if (trusted) {
            step[0] = sx;
            step[1] = sy;
        }
    }
    if (!trusted)
        refine_step_reset(s);
    s->o[0] = o[0];
    s->o[1] = o[1];
    s->u[0] = u[0];
    s->u[1] = u[1];
    s->have_last = 1;
}
