/*
 * frames.h - the HR-EBSD frames of doc/hrebsd-conventions.md as 3x3
 * matrices, and the few 3x3 operations the strain fit needs (internal).
 *
 * Matrices are row-major double[9]; a vector's components change frame as
 * v_s = R_ds v_d and a tensor's as T_s = R_ds T_d R_ds^T.
 */
#ifndef CLX_STRAIN_FRAMES_H
#define CLX_STRAIN_FRAMES_H

/* R_ds (degrees in): detector-frame components to sample-frame ones, as
 * kikuchipy's EBSDDetector turns them (doc/hrebsd-conventions.md). */
void frames_detector_to_sample(double sample_tilt, double detector_tilt, double r_ds[9]);

/* The passive rotation g = R_z(phi2) R_x(Phi) R_z(phi1) from the sample frame
 * into the crystal frame, from Bunge angles in radians. */
void frames_bunge(const double euler[3], double g[9]);

/* Bunge angles (radians, phi1 and phi2 in [0, 2 pi), Phi in [0, pi]) of the
 * passive rotation g (frames_bunge's inverse). */
void frames_bunge_from_matrix(const double g[9], double euler[3]);

void mat3_identity(double a[9]);
void mat3_mul(const double a[9], const double b[9], double out[9]);          /* a b */
void mat3_transpose(const double a[9], double out[9]);
void mat3_apply(const double a[9], const double v[3], double out[3]);       /* a v */
void mat3_apply_transpose(const double a[9], const double v[3], double out[3]); /* a^T v */
/* r t r^T, or r^T t r: a tensor into the frame r maps to, or back. */
void mat3_rotate(const double r[9], const double t[9], double out[9]);
void mat3_rotate_back(const double r[9], const double t[9], double out[9]);
/* The inverse; returns -1 (out untouched) for a determinant that is zero or not finite. */
int mat3_inverse(const double a[9], double out[9]);

/*
 * The rotation of a's polar decomposition a = R U (U symmetric positive
 * definite), by Higham's iteration R <- (R + R^-T) / 2 from R = a. Returns
 * -1 for a matrix that is singular, not finite, or has det a <= 0 (no proper
 * rotation).
 */
int mat3_polar_rotation(const double a[9], double r[9]);

#endif
