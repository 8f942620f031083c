/*
 * piv.h - clxcorr-samples --piv FLOW: synthetic PIV frame pairs of a known
 * flow (flow.h), and the truth.
 *
 * Particles: N = density x area over the image grown by a margin (so that
 * particles flow in across the border), each at a uniform random position,
 * with a uniform random e^-2 diameter d in [D_LO, D_HI] and peak intensity
 * in [0.5, 1] x PIV_PEAK counts: the image I(X) = PIV_BACKGROUND + sum of
 * peak exp(-8 |X - Xp|^2 / d^2) (a Gaussian of sigma d/4). Pixel (i, j) is
 * the mean of I over its square [i - 0.5, i + 0.5] x [j - 0.5, j + 0.5],
 * integrated exactly (products of erf), as a camera's pixel integrates
 * light: no aliasing however small the particle, and frames A and B are
 * sampled the same way. Each spot is summed out to 6 sigma (it is 1.5e-8 of
 * its peak there), then Gaussian noise (--noise, counts) is added and the
 * value rounded to 16 bits.
 *
 * Pair k: frameA_000k.tif with pair k's particles (their own random
 * stream), frameB_000k.tif with each particle moved along the flow over dt
 * (flow_advect: exact to 1e-9 px). truth_field.csv: for each pair
 * (image = frameB_000k.tif, as clxcorr names rows of frame B), each window
 * of the step grid (regions.txt, sample_windows.h) and its centre X, the
 * displacement of the particle that starts at X: image,region,x,y,dx,dy,
 * with 9 decimals. flow.txt: the flow (flow.h), so that a program can
 * compute the displacement at any point.
 */
#ifndef CLX_SAMPLES_PIV_H
#define CLX_SAMPLES_PIV_H

#include <stdint.h>
#include "flow.h"
#include "sample_windows.h"

#define PIV_BACKGROUND 1000.0
#define PIV_PEAK 25000.0

struct piv_options {
    const char *out;
    struct flow flow;
    int pairs;
    double density;              /* particles per pixel */
    double diameter_lo, diameter_hi;
    double noise;                /* counts */
    uint64_t seed;
    struct step_grid grid;       /* the windows of the truth, and the image size */
};

/* Writes the pairs, regions.txt, truth_field.csv and flow.txt into o->out.
 * 0, or -1 after reporting. */
int piv_write(const struct piv_options *o);

#endif
