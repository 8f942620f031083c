/*
 * gnd_map.c - Nye's components and GND densities over a map of rotations
 * (clx_gnd_map), and the map's steps from its points' positions
 * (clx_gnd_steps): `clxcorr gnd`'s computation, for the command and the
 * Python package alike.
 *
 * The map's columns run along -y_s and its rows along -x_s (kikuchipy's
 * frames, doc/hrebsd-conventions.md): a step to the next column is -step_x
 * along y_s, one to the next row -step_y along x_s. A gradient is taken
 * only between points of one grain whose rotations are known: central
 * where both neighbours are, one-sided where one is, none (NAN) where
 * neither.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>

#include "clxcorr.h"
#include "runtime/message.h"

struct gnd_grid {
    long rows, cols;
    const double *w;
    const int *grain;
};

static int grain_of(const struct gnd_grid *g, size_t i)
{
    return g->grain ? g->grain[i] : 1;
}

/* Whether point i takes part in grain's gradients. */
static int usable(const struct gnd_grid *g, size_t i, int grain)
{
    const double *w = g->w + 3 * i;
    return grain_of(g, i) == grain && grain > 0 && isfinite(w[0]) && isfinite(w[1]) && isfinite(w[2]);
}

/* d theta / d(index) along one map direction at point (r, c), from its
 * neighbours of the same grain; NANs when it has none. */
static void index_gradient(const struct gnd_grid *g, long r, long c, long dr, long dc, double out[3])
{
    size_t i = (size_t)r * (size_t)g->cols + (size_t)c;
    int grain = grain_of(g, i);
    long before = -1, after = -1;
    if (r - dr >= 0 && c - dc >= 0)
        before = (r - dr) * g->cols + (c - dc);
    if (r + dr < g->rows && c + dc < g->cols)
        after = (r + dr) * g->cols + (c + dc);
    int b = before >= 0 && usable(g, (size_t)before, grain), a = after >= 0 && usable(g, (size_t)after, grain);
    out[0] = out[1] = out[2] = NAN;
    if (a && b) {
        clx_rotation_difference(g->w + 3 * (size_t)before, g->w + 3 * (size_t)after, out);
        for (int k = 0; k < 3; k++)
            out[k] /= 2;
    } else if (a)
        clx_rotation_difference(g->w + 3 * i, g->w + 3 * (size_t)after, out);
    else if (b)
        clx_rotation_difference(g->w + 3 * (size_t)before, g->w + 3 * i, out);
}

/* A step along an axis of n points: positive and finite, or 0 with one point. */
static int step_ok(double step, long n)
{
    return (step > 0 && isfinite(step)) || (step == 0 && n < 2);
}

int clx_gnd_map(long rows, long cols, const double *w, const int *grain, const double *euler, double step_x,
                double step_y, clx_lattice lattice, double burgers_um, double *alpha, double *rho, clx_message *msg)
{
    if (rows < 0 || cols < 0 || (rows > 0 && cols > 0 && (!w || !alpha)))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "GND map: a map of %ld x %ld points needs its rotations and "
                        "room for its components", rows, cols);
    if (!step_ok(step_x, cols) || !step_ok(step_y, rows))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "GND map: steps of %g and %g um: expected positive steps", step_x,
                        step_y);
    int density = burgers_um != 0;
    if (density) {
        if (!(burgers_um > 0) || !isfinite(burgers_um))
            return msg_fail(msg, CLX_ERR_ARGUMENT, "GND map: a Burgers vector of %g um is not positive", burgers_um);
        if (lattice != CLX_LATTICE_FCC && lattice != CLX_LATTICE_BCC)
            return msg_fail(msg, CLX_ERR_ARGUMENT, "GND map: unknown lattice %d (fcc or bcc)", (int)lattice);
        if (!euler || !rho)
            return msg_fail(msg, CLX_ERR_ARGUMENT, "GND map: a density needs each point's orientation%s",
                            euler ? " and room for the densities" : "");
    }
    const struct gnd_grid g = { rows, cols, w, grain };
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++) {
            size_t i = (size_t)r * (size_t)cols + (size_t)c;
            double per_col[3], per_row[3], kx[3], ky[3];
            index_gradient(&g, r, c, 0, 1, per_col);
            index_gradient(&g, r, c, 1, 0, per_row);
            if (!usable(&g, i, grain_of(&g, i)))
                per_col[0] = per_col[1] = per_col[2] = per_row[0] = per_row[1] = per_row[2] = NAN;
            /* Rows along -x_s, columns along -y_s. */
            for (int k = 0; k < 3; k++) {
                kx[k] = -per_row[k] / step_y;
                ky[k] = -per_col[k] / step_x;
            }
            clx_nye_components(kx, ky, alpha + 5 * i);
            if (density) {
                int status = clx_gnd_density(alpha + 5 * i, euler + 3 * i, lattice, burgers_um, &rho[i], msg);
                if (status != CLX_OK)
                    return status;
            } else if (rho)
                rho[i] = NAN;
        }
    msg_clear(msg);
    return CLX_OK;
}

int clx_gnd_steps(long rows, long cols, const double *x, const double *y, double *step_x, double *step_y,
                  clx_message *msg)
{
    double sx = 0, sy = 0;
    for (long r = 0; x && r < rows; r++)
        for (long c = 0; c + 1 < cols; c++) {
            const double *a = x + r * cols + c, *b = a + 1;
            if (isfinite(*b - *a) && *b > *a && sx == 0)
                sx = *b - *a;
        }
    for (long r = 0; y && r + 1 < rows; r++)
        for (long c = 0; c < cols; c++) {
            const double *a = y + r * cols + c, *b = a + cols;
            if (isfinite(*b - *a) && *b > *a && sy == 0)
                sy = *b - *a;
        }
    *step_x = sx;
    *step_y = sy;
    if (sx > 0 && (sy > 0 || rows < 2)) {
        msg_clear(msg);
        return CLX_OK;
    }
    return msg_fail(msg, CLX_ERR_ARGUMENT, "the positions give no scan steps%s",
                    sx > 0 ? " along y" : sy > 0 || rows < 2 ? " along x" : "");
}
