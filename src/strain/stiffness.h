/*
 * stiffness.h - Hooke's law in the sample frame for a stiffness given in
 * the crystal frame (internal; clx_stiffness_parse reads one).
 */
#ifndef CLX_STRAIN_STIFFNESS_H
#define CLX_STRAIN_STIFFNESS_H

/*
 * The stress (sample frame, row-major 3x3, GPa) of the strain e (sample
 * frame, tensor shears) in a crystal whose Voigt stiffness c (GPa, order 11
 * 22 33 23 13 12, engineering shears) is given in the crystal frame, g the
 * rotation from sample into crystal components (frames_bunge): the strain
 * is taken into the crystal frame (g e g^T), Hooke's law applied there, and
 * the stress brought back (g^T sigma g), which is the stiffness rotated
 * into the sample frame without forming it.
 */
void stiffness_stress(const double c[36], const double g[9], const double e[9], double sigma[9]);

#endif
