/*
 * nye.c - geometrically necessary dislocations from a map of lattice
 * rotations (clx_nye_components, clx_gnd_density).
 *
 * Nye (1953), as Pantleon (2008) writes it with the elastic strain's
 * gradients left out: with kappa_ij = d theta_i / d x_j the lattice
 * curvature (theta the rotation vector, sample frame), the dislocation
 * density tensor is alpha = kappa^T - tr(kappa) I. A map gives the
 * gradients along x and y only, which fix five components:
 *     alpha_12 = kappa_21, alpha_13 = kappa_31, alpha_21 = kappa_12,
 *     alpha_23 = kappa_32, alpha_33 = -(kappa_11 + kappa_22).
 *
 * A total density needs the dislocations that could make them: the edge
 * (line n x b) and screw (line b) dislocations of the crystal's slip
 * systems, {111}<110> for fcc (12 edge, 6 screw) and {110}<111> for bcc (12
 * edge, 4 screw), turned into the sample frame by the point's orientation.
 * alpha_ij = sum_s rho_s b b_i t_j over the five known components is
 * underdetermined; the estimate is its smallest-norm solution (L2, the
 * pseudo-inverse; Wilkinson and Randman 2010 discuss it beside L1), and the
 * total is sum_s |rho_s|.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "clxcorr.h"
#include "runtime/message.h"
#include "strain/frames.h"

void clx_nye_components(const double kappa_x[3], const double kappa_y[3], double alpha[5])
{
    /* kappa_x[i] = d theta_i / d x, kappa_y[i] = d theta_i / d y. */
    alpha[0] = kappa_x[1];                   /* alpha_12 = kappa_21 */
    alpha[1] = kappa_x[2];                   /* alpha_13 = kappa_31 */
    alpha[2] = kappa_y[0];                   /* alpha_21 = kappa_12 */
    alpha[3] = kappa_y[2];                   /* alpha_23 = kappa_32 */
    alpha[4] = -(kappa_x[0] + kappa_y[1]);   /* alpha_33 = -(kappa_11 + kappa_22) */
}

/* The dislocation types of a lattice: unit Burgers vector and unit line,
 * crystal frame. Returns their count. */
static int dislocation_types(clx_lattice lattice, double b[18][3], double t[18][3])
{
    int n = 0;
    /* Slip plane normals and directions (unnormalised). */
    static const int fcc_n[4][3] = { { 1, 1, 1 }, { -1, 1, 1 }, { 1, -1, 1 }, { 1, 1, -1 } };
    static const int fcc_b[6][3] = { { 1, -1, 0 }, { 1, 0, -1 }, { 0, 1, -1 }, { 1, 1, 0 }, { 1, 0, 1 }, { 0, 1, 1 } };
    static const int bcc_n[6][3] = { { 1, 1, 0 }, { 1, -1, 0 }, { 1, 0, 1 }, { 1, 0, -1 }, { 0, 1, 1 }, { 0, 1, -1 } };
    static const int bcc_b[4][3] = { { 1, 1, 1 }, { -1, 1, 1 }, { 1, -1, 1 }, { 1, 1, -1 } };
    const int(*normals)[3] = lattice == CLX_LATTICE_FCC ? fcc_n : bcc_n;
    const int(*dirs)[3] = lattice == CLX_LATTICE_FCC ? fcc_b : bcc_b;
    int nn = lattice == CLX_LATTICE_FCC ? 4 : 6, nb = lattice == CLX_LATTICE_FCC ? 6 : 4;
    /* Screw: one per Burgers vector. */
    for (int k = 0; k < nb; k++) {
        double len = sqrt((double)(dirs[k][0] * dirs[k][0] + dirs[k][1] * dirs[k][1] + dirs[k][2] * dirs[k][2]));
        for (int i = 0; i < 3; i++)
            b[n][i] = t[n][i] = dirs[k][i] / len;
        n++;
    }
    /* Edge: each slip system, a Burgers vector in its plane (n . b = 0). */
    for (int p = 0; p < nn; p++)
        for (int k = 0; k < nb; k++) {
            const int *np = normals[p], *bp = dirs[k];
            if (np[0] * bp[0] + np[1] * bp[1] + np[2] * bp[2] != 0)
                continue;
            double bl = sqrt((double)(bp[0] * bp[0] + bp[1] * bp[1] + bp[2] * bp[2]));
            double line[3] = { (double)(np[1] * bp[2] - np[2] * bp[1]), (double)(np[2] * bp[0] - np[0] * bp[2]),
                               (double)(np[0] * bp[1] - np[1] * bp[0]) };
            double ll = sqrt(line[0] * line[0] + line[1] * line[1] + line[2] * line[2]);
            for (int i = 0; i < 3; i++) {
                b[n][i] = bp[i] / bl;
                t[n][i] = line[i] / ll;
            }
            n++;
        }
    return n;
}

/* Solves the k x k system m x = y (Gaussian elimination, partial
 * pivoting); -1 when singular. m and y are destroyed. */
static int solve(double m[5][5], double y[5], int k, double x[5])
{
    for (int c = 0; c < k; c++) {
        int p = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(m[r][c]) > fabs(m[p][c]))
                p = r;
        if (!(fabs(m[p][c]) > 1e-14))
            return -1;
        for (int j = 0; j < k; j++) {
            double tmp = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = tmp;
        }
        double tmp = y[c];
        y[c] = y[p];
        y[p] = tmp;
        for (int r = c + 1; r < k; r++) {
            double f = m[r][c] / m[c][c];
            for (int j = c; j < k; j++)
                m[r][j] -= f * m[c][j];
            y[r] -= f * y[c];
        }
    }
    for (int r = k - 1; r >= 0; r--) {
        double s = y[r];
        for (int j = r + 1; j < k; j++)
            s -= m[r][j] * x[j];
        x[r] = s / m[r][r];
    }
    return 0;
}

int clx_gnd_density(const double alpha[5], const double euler[3], clx_lattice lattice, double burgers_um,
                    double *density, clx_message *msg)
{
    *density = NAN;
    if (lattice != CLX_LATTICE_FCC && lattice != CLX_LATTICE_BCC)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "GND density: unknown lattice %d (fcc or bcc)", (int)lattice);
    if (!(burgers_um > 0) || !isfinite(burgers_um))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "GND density: a Burgers vector of %g um is not positive", burgers_um);
    for (int k = 0; k < 5; k++)
        if (!isfinite(alpha[k]))
            return CLX_OK;   /* no gradient there: no density */
    for (int k = 0; k < 3; k++)
        if (!isfinite(euler[k]))
            return CLX_OK;
    double b[18][3], t[18][3], g[9];
    int types = dislocation_types(lattice, b, t);
    frames_bunge(euler, g);
    /* Each type's b (x) t in the sample frame (g^T turns crystal to sample),
     * at the five known components (12, 13, 21, 23, 33). */
    static const int row[5] = { 0, 0, 1, 1, 2 }, col[5] = { 1, 2, 0, 2, 2 };
    double a[5][18];
    for (int s = 0; s < types; s++) {
        double bs[3], ts[3];
        mat3_apply_transpose(g, b[s], bs);
        mat3_apply_transpose(g, t[s], ts);
        for (int k = 0; k < 5; k++)
            a[k][s] = burgers_um * bs[row[k]] * ts[col[k]];
    }
    /* rho = A^T (A A^T)^-1 alpha: the smallest-norm densities (1/um^2). */
    double aat[5][5], y[5], z[5];
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 5; j++) {
            double s = 0;
            for (int k = 0; k < types; k++)
                s += a[i][k] * a[j][k];
            aat[i][j] = s;
        }
        y[i] = alpha[i];
    }
    if (solve(aat, y, 5, z) != 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "GND density: the dislocation types do not span the known components");
    double total = 0;
    for (int s = 0; s < types; s++) {
        double rho = 0;
        for (int k = 0; k < 5; k++)
            rho += a[k][s] * z[k];
        total += fabs(rho);
    }
    *density = total * 1e12;   /* 1/um^2 to 1/m^2 */
    msg_clear(msg);
    return CLX_OK;
}

/* R = exp([w]x), Rodrigues. */
static void rotation_of(const double w[3], double r[9])
{
    double angle = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    mat3_identity(r);
    if (!(angle > 0))
        return;
    double k[3] = { w[0] / angle, w[1] / angle, w[2] / angle }, c = cos(angle), s = sin(angle);
    double kx[9] = { 0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0 };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = (i == j ? c : 0) + s * kx[3 * i + j] + (1 - c) * k[i] * k[j];
}

void clx_rotation_difference(const double w_a[3], const double w_b[3], double d[3])
{
    double ra[9], rb[9], ra_t[9], delta[9];
    for (int k = 0; k < 3; k++)
        if (!isfinite(w_a[k]) || !isfinite(w_b[k])) {
            d[0] = d[1] = d[2] = NAN;
            return;
        }
    rotation_of(w_a, ra);
    rotation_of(w_b, rb);
    mat3_transpose(ra, ra_t);
    mat3_mul(rb, ra_t, delta);
    /* delta's rotation vector: axis times angle. */
    double v[3] = { 0.5 * (delta[7] - delta[5]), 0.5 * (delta[2] - delta[6]), 0.5 * (delta[3] - delta[1]) };
    double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), c = 0.5 * (delta[0] + delta[4] + delta[8] - 1);
    double scale = s > 1e-300 ? atan2(s, c) / s : 1;
    for (int k = 0; k < 3; k++)
        d[k] = v[k] * scale;
}
