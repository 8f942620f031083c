/* frames.c - rotation matrices of the HR-EBSD frames and 3x3 helpers (frames.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "strain/frames.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void mat3_identity(double a[9])
{
    static const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    memcpy(a, id, sizeof id);
}

void mat3_mul(const double a[9], const double b[9], double out[9])
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(out, t, sizeof t);
}

void mat3_transpose(const double a[9], double out[9])
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * j + i] = a[3 * i + j];
    memcpy(out, t, sizeof t);
}

void mat3_apply(const double a[9], const double v[3], double out[3])
{
    double t[3];
    for (int i = 0; i < 3; i++)
        t[i] = a[3 * i] * v[0] + a[3 * i + 1] * v[1] + a[3 * i + 2] * v[2];
    memcpy(out, t, sizeof t);
}

void mat3_apply_transpose(const double a[9], const double v[3], double out[3])
{
    double t[3];
    for (int i = 0; i < 3; i++)
        t[i] = a[i] * v[0] + a[3 + i] * v[1] + a[6 + i] * v[2];
    memcpy(out, t, sizeof t);
}

void mat3_rotate(const double r[9], const double t[9], double out[9])
{
    double rt[9], tmp[9];
    mat3_transpose(r, rt);
    mat3_mul(r, t, tmp);
    mat3_mul(tmp, rt, out);
}

void mat3_rotate_back(const double r[9], const double t[9], double out[9])
{
    double rt[9], tmp[9];
    mat3_transpose(r, rt);
    mat3_mul(rt, t, tmp);
    mat3_mul(tmp, r, out);
}

int mat3_inverse(const double a[9], double out[9])
{
    double c[9];
    c[0] = a[4] * a[8] - a[5] * a[7];
    c[1] = a[2] * a[7] - a[1] * a[8];
    c[2] = a[1] * a[5] - a[2] * a[4];
    c[3] = a[5] * a[6] - a[3] * a[8];
    c[4] = a[0] * a[8] - a[2] * a[6];
    c[5] = a[2] * a[3] - a[0] * a[5];
    c[6] = a[3] * a[7] - a[4] * a[6];
    c[7] = a[1] * a[6] - a[0] * a[7];
    c[8] = a[0] * a[4] - a[1] * a[3];
    double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
    if (det == 0 || !isfinite(det))
        return -1;
    for (int i = 0; i < 9; i++)
        out[i] = c[i] / det;
    return 0;
}

int mat3_polar_rotation(const double a[9], double r[9])
{
    double x[9], inv[9], inv_t[9];
    memcpy(x, a, sizeof x);
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                 a[2] * (a[3] * a[7] - a[4] * a[6]);
    if (!(det > 0) || !isfinite(det))
        return -1;
    /* Quadratic convergence from a near-orthogonal start (a = I + beta with
     * small beta): a handful of steps; far from it, up to a few dozen. */
    for (int it = 0; it < 100; it++) {
        if (mat3_inverse(x, inv))
            return -1;
        mat3_transpose(inv, inv_t);
        double change = 0;
        for (int i = 0; i < 9; i++) {
            double next = 0.5 * (x[i] + inv_t[i]);
            change = fmax(change, fabs(next - x[i]));
            x[i] = next;
        }
        if (change < 1e-15)
            break;
    }
    memcpy(r, x, sizeof x);
    return 0;
}

void frames_detector_to_sample(double sample_tilt, double detector_tilt, double r_ds[9])
{
    /* kikuchipy's EBSDDetector.sample_to_detector, transposed, with no
     * azimuthal or twist angle: the columns are x_d = (0, 1, 0) (rightwards
     * on the pattern is the sample's y), y_d = (-sin a, 0, cos a) and z_d =
     * (cos a, 0, sin a), a = sigma - theta (kikuchipy's alpha = 90 - sigma +
     * theta is the angle between y_d and -x_s). */
    double a = (sample_tilt - detector_tilt) * M_PI / 180, c = cos(a), s = sin(a);
    double m[9] = { 0, -s, c, 1, 0, 0, 0, c, s };
    memcpy(r_ds, m, sizeof m);
}

void frames_bunge(const double euler[3], double g[9])
{
    double c1 = cos(euler[0]), s1 = sin(euler[0]);
    double c = cos(euler[1]), s = sin(euler[1]);
    double c2 = cos(euler[2]), s2 = sin(euler[2]);
    /* The passive rotations of the conventions document. */
    double z1[9] = { c1, s1, 0, -s1, c1, 0, 0, 0, 1 };
    double x[9] = { 1, 0, 0, 0, c, s, 0, -s, c };
    double z2[9] = { c2, s2, 0, -s2, c2, 0, 0, 0, 1 };
    double t[9];
    mat3_mul(x, z1, t);
    mat3_mul(z2, t, g);
}

void frames_bunge_from_matrix(const double g[9], double euler[3])
{
    /* g = R_z(phi2) R_x(Phi) R_z(phi1), passive: g33 = cos Phi, (g31, g32) =
     * sin Phi (sin phi1, -cos phi1), (g13, g23) = sin Phi (sin phi2, cos phi2). */
    double c = g[8] > 1 ? 1 : g[8] < -1 ? -1 : g[8];
    double phi = acos(c), phi1, phi2;
    if (fabs(sin(phi)) > 1e-12) {
        phi1 = atan2(g[6], -g[7]);
        phi2 = atan2(g[2], g[5]);
    } else {
        /* Phi 0 or pi: only phi1 +- phi2 is fixed; phi2 = 0. */
        phi1 = atan2(g[1], g[0]);
        phi2 = 0;
    }
    euler[0] = phi1 < 0 ? phi1 + 2 * M_PI : phi1;
    euler[1] = phi;
    euler[2] = phi2 < 0 ? phi2 + 2 * M_PI : phi2;
}
