/*
 * flow.h - the steady flows of clxcorr-samples --piv, and where they carry
 * a particle: in pixels and frames, x to the right, y down the image.
 *
 *   uniform   v = (U, V)
 *   rotation  solid body about the centre c: v = omega (-(y - cy), x - cx)
 *   shear     simple shear: v = (G (y - cy), 0)
 *   vortex    Lamb-Oseen about c: tangential speed
 *             v_theta(r) = P / K (rc / r) (1 - exp(-r^2 / rc^2)), P the peak
 *             speed (reached at r = 1.1209 rc), rc the core radius, K the
 *             peak of (1 - exp(-s^2)) / s (0.6382); the same turning sense
 *             as a positive omega
 *
 * A positive omega turns +x towards +y: clockwise on the screen, where y
 * points down. Speeds are in px per unit time; frame B is frame A after dt.
 * A particle's displacement over dt is its trajectory, dX/dt = v(X) from X,
 * integrated by RK4 with substeps fine enough (the flow's largest velocity
 * gradient times a substep at most 0.01) that it is exact to 1e-9 px for
 * the displacements of a PIV pair; flow_advect_exact is the closed form
 * (each flow's streamlines are lines or circles) that the tests hold it to.
 *
 * flow.txt describes a flow for other programs as "key value" lines (keys
 * below; '#' lines are comments), numbers with 17 significant digits:
 *   flow uniform|rotation|shear|vortex
 *   dt, centre_x, centre_y, velocity_x, velocity_y, omega, shear_rate,
 *   core_radius, peak_speed
 */
#ifndef CLX_SAMPLES_FLOW_H
#define CLX_SAMPLES_FLOW_H

#include <stddef.h>
#include <stdio.h>

enum flow_kind { FLOW_UNIFORM, FLOW_ROTATION, FLOW_SHEAR, FLOW_VORTEX };

struct flow {
    enum flow_kind kind;
    double dt;               /* frame B is frame A after dt */
    double cx, cy;           /* the centre of rotation, shear and vortex, px */
    double u, v;             /* uniform: px per unit time */
    double omega;            /* rotation: rad per unit time */
    double shear_rate;       /* shear: du/dy per unit time */
    double core_radius;      /* vortex: rc, px */
    double peak_speed;       /* vortex: the largest tangential speed, px per unit time */
};

/* "uniform", "rotation", "shear", "vortex": 0, or -1 for another name. */
int flow_kind_parse(const char *name, enum flow_kind *kind);
const char *flow_kind_name(enum flow_kind kind);

/* The velocity at (x, y). */
void flow_velocity(const struct flow *f, double x, double y, double *u, double *v);

/* Where the particle at (x, y) is dt later: RK4 in substeps. */
void flow_advect(const struct flow *f, double x, double y, double *x1, double *y1);
/* The same in closed form. */
void flow_advect_exact(const struct flow *f, double x, double y, double *x1, double *y1);

/* A bound on the displacement over dt of a point of the rectangle
 * [x0, x1] x [y0, y1]: how far outside the image particles must start. */
double flow_displacement_bound(const struct flow *f, double x0, double y0, double x1, double y1);

/* Writes flow.txt's lines; reads them back (0, or -1 with why). */
void flow_write(FILE *out, const struct flow *f);
int flow_read(const char *path, struct flow *f, char *why, size_t len);

#endif
