/* flow.c - steady flows and their trajectories (flow.h). */
#include "flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "uniform", "rotation", "shear", "vortex" };

int flow_kind_parse(const char *name, enum flow_kind *kind)
{
    for (int k = 0; k < 4; k++)
        if (strcmp(name, names[k]) == 0) {
            *kind = (enum flow_kind)k;
            return 0;
        }
    return -1;
}

const char *flow_kind_name(enum flow_kind kind)
{
    return kind >= FLOW_UNIFORM && kind <= FLOW_VORTEX ? names[kind] : "?";
}

/* K = max over s of (1 - exp(-s^2)) / s, at (1 + 2 s^2) exp(-s^2) = 1
 * (Newton; once, since every velocity of a vortex needs it). */
static double lamb_oseen_peak(void)
{
    static double peak = 0.0;
    if (peak > 0.0)
        return peak;
    double s = 1.1;
    for (int i = 0; i < 50; i++) {
        double e = exp(-s * s), g = (1.0 + 2.0 * s * s) * e - 1.0;
        double dg = (4.0 * s - 2.0 * s * (1.0 + 2.0 * s * s)) * e;
        s -= g / dg;
    }
    peak = -expm1(-s * s) / s;
    return peak;
}

/* The vortex's angular velocity v_theta(r) / r, finite at r = 0. */
static double vortex_omega(const struct flow *f, double r2)
{
    double rc2 = f->core_radius * f->core_radius, q = r2 / rc2;
    double shape = q < 1e-12 ? 1.0 : -expm1(-q) / q;     /* rc^2 / r^2 (1 - exp(-r^2 / rc^2)) */
    return f->peak_speed / (lamb_oseen_peak() * f->core_radius) * shape;
}

void flow_velocity(const struct flow *f, double x, double y, double *u, double *v)
{
    double dx = x - f->cx, dy = y - f->cy, w;
    switch (f->kind) {
    case FLOW_UNIFORM: *u = f->u; *v = f->v; return;
    case FLOW_ROTATION: w = f->omega; break;
    case FLOW_SHEAR: *u = f->shear_rate * dy; *v = 0.0; return;
    default: w = vortex_omega(f, dx * dx + dy * dy); break;
    }
    *u = -w * dy;
    *v = w * dx;
}

/* A bound on the velocity gradient: it sets the RK4 substep. */
static double gradient_bound(const struct flow *f)
{
    switch (f->kind) {
    case FLOW_UNIFORM: return 0.0;
    case FLOW_ROTATION: return fabs(f->omega);
    case FLOW_SHEAR: return fabs(f->shear_rate);
    default: return 2.0 * fabs(vortex_omega(f, 0.0));     /* r d(omega)/dr stays below omega(0) */
    }
}

void flow_advect(const struct flow *f, double x, double y, double *x1, double *y1)
{
    int n = (int)ceil(fabs(f->dt) * gradient_bound(f) / 0.01);
    n = n < 8 ? 8 : n;
    double h = f->dt / n;
    for (int i = 0; i < n; i++) {
        double u1, v1, u2, v2, u3, v3, u4, v4;
        flow_velocity(f, x, y, &u1, &v1);
        flow_velocity(f, x + 0.5 * h * u1, y + 0.5 * h * v1, &u2, &v2);
        flow_velocity(f, x + 0.5 * h * u2, y + 0.5 * h * v2, &u3, &v3);
        flow_velocity(f, x + h * u3, y + h * v3, &u4, &v4);
        x += h / 6.0 * (u1 + 2.0 * u2 + 2.0 * u3 + u4);
        y += h / 6.0 * (v1 + 2.0 * v2 + 2.0 * v3 + v4);
    }
    *x1 = x;
    *y1 = y;
}

void flow_advect_exact(const struct flow *f, double x, double y, double *x1, double *y1)
{
    double dx = x - f->cx, dy = y - f->cy, angle;
    switch (f->kind) {
    case FLOW_UNIFORM: *x1 = x + f->u * f->dt; *y1 = y + f->v * f->dt; return;
    case FLOW_SHEAR: *x1 = x + f->shear_rate * dy * f->dt; *y1 = y; return;
    case FLOW_ROTATION: angle = f->omega * f->dt; break;
    default: angle = vortex_omega(f, dx * dx + dy * dy) * f->dt; break;   /* r is constant on a streamline */
    }
    *x1 = f->cx + cos(angle) * dx - sin(angle) * dy;
    *y1 = f->cy + sin(angle) * dx + cos(angle) * dy;
}

double flow_displacement_bound(const struct flow *f, double x0, double y0, double x1, double y1)
{
    double far_x = fmax(fabs(x0 - f->cx), fabs(x1 - f->cx)), far_y = fmax(fabs(y0 - f->cy), fabs(y1 - f->cy));
    switch (f->kind) {
    case FLOW_UNIFORM: return hypot(f->u, f->v) * fabs(f->dt);
    case FLOW_ROTATION: return fabs(f->omega * f->dt) * hypot(far_x, far_y);
    case FLOW_SHEAR: return fabs(f->shear_rate * f->dt) * far_y;
    default: return fabs(f->peak_speed * f->dt);
    }
}

void flow_write(FILE *out, const struct flow *f)
{
    fprintf(out, "flow %s\ndt %.17g\n", flow_kind_name(f->kind), f->dt);
    switch (f->kind) {
    case FLOW_UNIFORM: fprintf(out, "velocity_x %.17g\nvelocity_y %.17g\n", f->u, f->v); return;
    case FLOW_ROTATION: fprintf(out, "omega %.17g\n", f->omega); break;
    case FLOW_SHEAR: fprintf(out, "shear_rate %.17g\n", f->shear_rate); break;
    default: fprintf(out, "core_radius %.17g\npeak_speed %.17g\n", f->core_radius, f->peak_speed); break;
    }
    fprintf(out, "centre_x %.17g\ncentre_y %.17g\n", f->cx, f->cy);
}

/* One "key value" line into f; unknown keys are left to others. */
static int flow_line(struct flow *f, const char *key, const char *value)
{
    static const char *const keys[] = { "dt", "centre_x", "centre_y", "velocity_x", "velocity_y", "omega",
                                        "shear_rate", "core_radius", "peak_speed" };
    double *fields[] = { &f->dt, &f->cx, &f->cy, &f->u, &f->v, &f->omega, &f->shear_rate, &f->core_radius,
                         &f->peak_speed };
    if (strcmp(key, "flow") == 0)
        return flow_kind_parse(value, &f->kind);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(key, keys[k]) == 0) {
            char *end;
            *fields[k] = strtod(value, &end);
            return end == value || *end != '\0' ? -1 : 0;
        }
    return 0;
}

int flow_read(const char *path, struct flow *f, char *why, size_t len)
{
    char line[256], key[64], value[128];
    int have_kind = 0, status = 0;
    FILE *in = fopen(path, "r");
    memset(f, 0, sizeof *f);
    if (!in) {
        snprintf(why, len, "cannot open %s", path);
        return -1;
    }
    while (status == 0 && fgets(line, sizeof line, in)) {
        if (line[0] == '#' || sscanf(line, "%63s %127s", key, value) != 2)
            continue;
        have_kind |= strcmp(key, "flow") == 0;
        if (flow_line(f, key, value) != 0) {
            snprintf(why, len, "%s: bad line '%s'", path, key);
            status = -1;
        }
    }
    fclose(in);
    if (status == 0 && !have_kind) {
        snprintf(why, len, "%s: no 'flow' line", path);
        status = -1;
    }
    return status;
}
