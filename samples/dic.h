/*
 * dic.h - clxcorr-samples --dic FIELD: a DIC sequence, a speckle reference
 * and images of it deformed by a known displacement field, with the truth
 * per window: the displacement, its gradient and its Green-Lagrange strain.
 *
 * The speckle is --kind speckle's (speckle.h: Gaussian spots defined at
 * every real point), point-sampled at the pixel centres as that set is,
 * f scaled so that the reference grown by the largest displacement spans
 * [2000, 60000] counts. Image k of N (--count) is loaded k/N of the way:
 * the field u_k = (k/N) u, so the sequence ramps up like a loading test.
 * A point X of the reference is at x = X + u_k(X) in image k, so image k's
 * pixel x samples f at X = the inverse map of x, in closed form:
 *
 *   affine  u(X) = t + G (X - c), c the image centre, t --translation,
 *           G --gradient: X = c + (I + G_k)^-1 (x - c - t_k)
 *   sine    u(X) = (A sin(2 pi Y / L), 0), A --amplitude, L --wavelength:
 *           a shear wave along y; X = x - A_k sin(2 pi y / L), Y = y
 *
 * truth.csv: image,region,x,y,dx,dy,dudx,dudy,dvdx,dvdy,exx,eyy,exy per
 * image and window of the step grid (regions.txt): u_k and its gradient at
 * the window centre (reference coordinates, clxcorr's columns of the same
 * names), and E = 1/2 (F^T F - I) with F = I + grad u_k, exy the tensor
 * shear. field.txt: the field as "key value" lines.
 */
#ifndef CLX_SAMPLES_DIC_H
#define CLX_SAMPLES_DIC_H

#include <stdint.h>
#include "sample_windows.h"

enum dic_field { DIC_AFFINE, DIC_SINE };

struct dic_options {
    const char *out;
    enum dic_field field;
    int count;
    double translation[2];       /* affine: t, px */
    double gradient[4];          /* affine: G11, G12, G21, G22 */
    double amplitude, wavelength;    /* sine: A, L (px) */
    double noise;
    uint64_t seed;
    struct step_grid grid;       /* the windows of the truth, and the image size */
};

/* "affine" or "sine": 0, or -1 for another name. */
int dic_field_parse(const char *name, enum dic_field *field);

/* Writes reference.tif, image_000k.tif, regions.txt, truth.csv and
 * field.txt into o->out. 0, or -1 after reporting. */
int dic_write(const struct dic_options *o);

#endif
