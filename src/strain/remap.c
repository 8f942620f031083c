/*
 * remap.c - the projective map that takes the rotation out of a test
 * pattern (clx_remap_homography).
 *
 * The test pattern's intensity along direction d is the reference's along
 * F^-1 d (F = I + beta, detector frame). With Rot the rotation of F's polar
 * decomposition F = Rot U, the remapped pattern T'(d) = T(Rot d) =
 * S(F^-1 Rot d) = S(U^-1 d) (U = Rot^T F): the reference seen through a pure
 * stretch, whose shifts are small however large the rotation, so a second
 * correlation against the reference measures them well (Britton and
 * Wilkinson's remapping). The remapped pattern is drawn from the
 * reference's pattern centre, so that a test pattern taken elsewhere on the
 * scan loses the shift of its own centre too (the reference is remapped so
 * in de-ebsd and in Britton and Wilkinson's code): its pixels look along
 * directions from the reference's source and take the test pattern's
 * intensity along M d, seen from the test pattern's source. In pixels, with
 * K = [[L, 0, x0], [0, L, y0], [0, 0, 1]] taking a direction (scaled to
 * z = 1) to the screen point it meets from a source, and P = diag(1, -1, 1)
 * taking screen coordinates to pixels and back (detector.h), output pixel p
 * looks along d = K_ref^-1 P p and samples the test pattern at
 * P K_test M d: h = P K_test M K_ref^-1 P. The fit of the remapped pattern
 * takes the reference's centre as its own.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "strain/detector.h"
#include "strain/frames.h"
#include "strain/remap.h"

void remap_rotation(const double beta_detector[9], double rot[9])
{
    double f[9];
    mat3_identity(rot);
    if (!beta_detector)
        return;
    for (int i = 0; i < 9; i++)
        f[i] = rot[i] + beta_detector[i];
    /* No usable beta (a failed fit's NaN): no rotation. */
    if (mat3_polar_rotation(f, rot))
        mat3_identity(rot);
}

void clx_remap_map(const double beta_detector[9], int whole, double m[9])
{
    if (!m)
        return;
    remap_rotation(beta_detector, m);
    if (!whole || !beta_detector)
        return;
    double f[9];
    for (int i = 0; i < 9; i++) {
        f[i] = (i % 4 == 0 ? 1 : 0) + beta_detector[i];
        if (!isfinite(f[i]))
            return;   /* a failed fit: its rotation, the identity */
    }
    memcpy(m, f, sizeof f);
}

void clx_remap_homography(const clx_detector *detector, const double pc[3], const double map[9], double h[9])
{
    double rot[9];
    if (!h)
        return;
    if (!detector) {
        mat3_identity(h);
        return;
    }
    mat3_identity(rot);
    if (map)
        memcpy(rot, map, sizeof rot);
    struct screen ref, test;
    screen_from_pc(detector, NULL, &ref);
    screen_from_pc(detector, pc, &test);
    /* P K_test and K_ref^-1 P. */
    double pk[9] = { test.L, 0, test.x0, 0, -test.L, -test.y0, 0, 0, 1 };
    double k_inv_p[9] = { 1 / ref.L, 0, -ref.x0 / ref.L, 0, -1 / ref.L, -ref.y0 / ref.L, 0, 0, 1 };
    double t[9];
    mat3_mul(rot, k_inv_p, t);
    mat3_mul(pk, t, h);
}
