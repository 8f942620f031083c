/*
 * grains.c - grains of an indexed map and the reference point of each
 * (clx_grains_segment, clx_grains_references), and the crystal symmetry
 * their misorientations need (clx_misorientation).
 *
 * A grain is a 4-connected set of indexed points whose neighbours differ
 * by less than a misorientation angle (the threshold segmentation of
 * MTEX's calcGrains and of OpenXY, without their smoothing): two points join
 * when the smallest rotation between them, over the crystal's symmetry, is
 * below it. Grains of fewer points than a minimum are left out (0), as
 * points not indexed are.
 *
 * A grain's reference is the point of best pattern quality near its
 * centre: among the grain's points within half its equivalent radius
 * (sqrt(points / pi)) of its centroid, the one of highest quality (the
 * indexing's IQ or band contrast), ties and a map without quality to the
 * one nearest the centroid. HR-EBSD wants a reference away from the
 * boundaries, where the pattern is one crystal's, and sharp (Britton and
 * Wilkinson 2012; Jiang, Britton and Wilkinson 2013).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "runtime/message.h"
#include "strain/frames.h"

/* The proper rotations of the Laue groups m-3m (24) and 6/mmm (12), as
 * matrices in the crystal's Cartesian frame (hexagonal: c along z, a1 along
 * x, as orix has it). */
static int symmetry_operators(clx_symmetry symmetry, double ops[24][9])
{
    int n = 0;
    if (symmetry == CLX_SYMMETRY_CUBIC) {
        /* Every signed permutation matrix of determinant +1. */
        static const int perms[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
        static const int parity[6] = { 1, -1, -1, 1, 1, -1 };
        for (int p = 0; p < 6; p++)
            for (int signs = 0; signs < 8; signs++) {
                int sx = signs & 1 ? -1 : 1, sy = signs & 2 ? -1 : 1, sz = signs & 4 ? -1 : 1;
                if (parity[p] * sx * sy * sz != 1)
                    continue;
                double *m = ops[n++];
                memset(m, 0, 9 * sizeof *m);
                m[0 * 3 + perms[p][0]] = sx;
                m[1 * 3 + perms[p][1]] = sy;
                m[2 * 3 + perms[p][2]] = sz;
            }
        return n;
    }
    /* 6-fold about z, and 2-fold about the basal axes every 30 degrees. */
    for (int k = 0; k < 6; k++) {
        double a = k * M_PI / 3, c = cos(a), s = sin(a);
        double rz[9] = { c, -s, 0, s, c, 0, 0, 0, 1 };
        memcpy(ops[n++], rz, sizeof rz);
    }
    for (int k = 0; k < 6; k++) {
        double a = k * M_PI / 6, c = cos(2 * a), s = sin(2 * a);
        /* The half-turn about (cos a, sin a, 0). */
        double r2[9] = { c, s, 0, s, -c, 0, 0, 0, -1 };
        memcpy(ops[n++], r2, sizeof r2);
    }
    return n;
}

double clx_misorientation(const double a[3], const double b[3], clx_symmetry symmetry)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(a[k]) || !isfinite(b[k]))
            return NAN;
    double ga[9], gb[9], ga_t[9], delta[9], ops[24][9];
    frames_bunge(a, ga);
    frames_bunge(b, gb);
    mat3_transpose(ga, ga_t);
    /* gb ga^T takes crystal a's frame to crystal b's; its angle, smallest
     * over the symmetric equivalents S gb ga^T (the other side's operators
     * give no smaller one: conjugation keeps an angle). */
    mat3_mul(gb, ga_t, delta);
    int n = symmetry_operators(symmetry, ops);
    double best = -2;
    for (int k = 0; k < n; k++) {
        /* trace(S delta) without forming the product. */
        double t = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                t += ops[k][3 * i + j] * delta[3 * j + i];
        best = fmax(best, t);
    }
    double c = 0.5 * (best - 1);
    return acos(c > 1 ? 1 : c < -1 ? -1 : c);
}

/* Union-find over the map's points, with path halving. */
static int find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void join(int *parent, int a, int b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a != b)
        parent[a > b ? a : b] = a < b ? a : b;   /* the smaller index is the root: labels follow scan order */
}

static int indexed(const double *euler, size_t i)
{
    return isfinite(euler[3 * i]) && isfinite(euler[3 * i + 1]) && isfinite(euler[3 * i + 2]);
}

int clx_grains_segment(int rows, int cols, const double *euler, clx_symmetry symmetry, double max_angle,
                       int min_points, int *grain, int *count, clx_message *msg)
{
    if (rows < 1 || cols < 1 || !euler || !grain || !count)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "grains: a map of %d x %d points, or NULL arrays", rows, cols);
    if (!(max_angle > 0) || max_angle >= M_PI)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "grains: a misorientation threshold of %g radians is not in (0, pi)",
                        max_angle);
    if (symmetry != CLX_SYMMETRY_CUBIC && symmetry != CLX_SYMMETRY_HEXAGONAL)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "grains: unknown crystal symmetry %d", (int)symmetry);
    size_t n = (size_t)rows * (size_t)cols;
    int *parent = malloc(n * sizeof *parent), *size = calloc(n, sizeof *size), *label = malloc(n * sizeof *label);
    if (!parent || !size || !label) {
        free(parent);
        free(size);
        free(label);
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "grains: out of host memory for %zu points", n);
    }
    for (size_t i = 0; i < n; i++)
        parent[i] = (int)i;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            if (!indexed(euler, i))
                continue;
            if (c + 1 < cols && indexed(euler, i + 1) &&
                clx_misorientation(euler + 3 * i, euler + 3 * (i + 1), symmetry) < max_angle)
                join(parent, (int)i, (int)(i + 1));
            if (r + 1 < rows && indexed(euler, i + cols) &&
                clx_misorientation(euler + 3 * i, euler + 3 * (i + cols), symmetry) < max_angle)
                join(parent, (int)i, (int)(i + cols));
        }
    for (size_t i = 0; i < n; i++)
        if (indexed(euler, i))
            size[find(parent, (int)i)]++;
    /* Grains numbered from 1 in the order of their first point. */
    int grains = 0;
    for (size_t i = 0; i < n; i++)
        label[i] = 0;
    for (size_t i = 0; i < n; i++) {
        int root = find(parent, (int)i);
        if (!indexed(euler, i) || size[root] < min_points)
            grain[i] = 0;
        else {
            if (label[root] == 0)
                label[root] = ++grains;
            grain[i] = label[root];
        }
    }
    free(parent);
    free(size);
    free(label);
    *count = grains;
    msg_clear(msg);
    return CLX_OK;
}

int clx_grains_references(int rows, int cols, const int *grain, int count, const double *quality, int *reference,
                          clx_message *msg)
{
    if (rows < 1 || cols < 1 || !grain || !reference || count < 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "grain references: a map of %d x %d points, or NULL arrays", rows,
                        cols);
    size_t n = (size_t)rows * (size_t)cols;
    double *sum = calloc(3 * (size_t)count + 3, sizeof *sum);   /* per grain: points, sum of rows, sum of columns */
    if (!sum)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "grain references: out of host memory");
    for (size_t i = 0; i < n; i++) {
        int g = grain[i];
        if (g < 0 || g > count) {
            free(sum);
            return msg_fail(msg, CLX_ERR_ARGUMENT, "grain references: point %zu has grain %d, of %d", i, g, count);
        }
        if (g == 0)
            continue;
        sum[3 * g] += 1;
        sum[3 * g + 1] += (double)(i / cols);
        sum[3 * g + 2] += (double)(i % cols);
    }
    for (int g = 1; g <= count; g++) {
        double points = sum[3 * g], r0 = sum[3 * g + 1] / points, c0 = sum[3 * g + 2] / points;
        double within = 0.5 * sqrt(points / M_PI), best_q = -INFINITY, best_d = INFINITY, nearest_d = INFINITY;
        int best = -1, nearest = -1;
        for (size_t i = 0; i < n; i++) {
            if (grain[i] != g)
                continue;
            double dr = (double)(i / cols) - r0, dc = (double)(i % cols) - c0, d = sqrt(dr * dr + dc * dc);
            if (d < nearest_d) {
                nearest_d = d;
                nearest = (int)i;
            }
            double q = quality && isfinite(quality[i]) ? quality[i] : 0;
            if (d <= within && (q > best_q || (q == best_q && d < best_d))) {
                best_q = q;
                best_d = d;
                best = (int)i;
            }
        }
        reference[g - 1] = best >= 0 ? best : nearest;
    }
    free(sum);
    msg_clear(msg);
    return CLX_OK;
}

void clx_orientation_refine(const double reference_euler[3], const double w[3], double euler[3])
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(reference_euler[k]) || !isfinite(w[k])) {
            euler[0] = euler[1] = euler[2] = NAN;
            return;
        }
    /* R = exp([w]x), the lattice's rotation in the sample frame (Rodrigues). */
    double angle = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double r[9];
    mat3_identity(r);
    if (angle > 0) {
        double k[3] = { w[0] / angle, w[1] / angle, w[2] / angle }, c = cos(angle), s = sin(angle);
        double kx[9] = { 0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0 };
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                r[3 * i + j] = (i == j ? c : 0) + s * kx[3 * i + j] + (1 - c) * k[i] * k[j];
    }
    /* A sample direction d meets the rotated lattice where the reference's
     * meets R^T d: g = g_ref R^T. */
    double g_ref[9], r_t[9], g[9];
    frames_bunge(reference_euler, g_ref);
    mat3_transpose(r, r_t);
    mat3_mul(g_ref, r_t, g);
    frames_bunge_from_matrix(g, euler);
}
