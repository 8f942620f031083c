/*
 * remap.h - the rotation a pattern is remapped by (internal; remap.c).
 */
#ifndef CLX_STRAIN_REMAP_H
#define CLX_STRAIN_REMAP_H

/* The rotation of I + beta_detector's polar decomposition; the identity
 * for a beta that has none (NaN, singular). */
void remap_rotation(const double beta_detector[9], double rot[9]);

#endif
