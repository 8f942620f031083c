/* kikuchi.h - the Kikuchi-sphere model of clxcorr-samples --kikuchi and its
 * projection onto the detector, in the frames of doc/hrebsd-conventions.md.
 *
 * A pattern is a function of direction only (the "Kikuchi sphere" of a
 * crystal, seen from the source point), times a brightness that is fixed to
 * the detector. Matrices are 3x3, row-major, double.
 */
#ifndef CLX_SAMPLES_KIKUCHI_H
#define CLX_SAMPLES_KIKUCHI_H

/* The detector and the reference pattern centre (Bruker fractions). */
struct kikuchi_geometry {
    int width, height;          /* pattern size, px */
    double pcx, pcy, pcz;       /* the reference's pattern centre */
    double sample_tilt;         /* degrees */
    double detector_tilt;       /* degrees */
};

/* One pattern: where its source is and how its crystal is deformed. */
struct kikuchi_view {
    double pcx, pcy, pcz;       /* this pattern's centre (Bruker fractions) */
    double beta_s[9];           /* displacement gradient, sample frame: F = I + beta_s */
};

/* The crystal: its orientation and its bands (opaque). */
struct kikuchi_model;

/* A cubic (FCC) crystal with Bunge angles euler (degrees). NULL when out of memory. */
struct kikuchi_model *kikuchi_model_create(const double euler_deg[3]);
void kikuchi_model_free(struct kikuchi_model *model);
int kikuchi_model_bands(const struct kikuchi_model *model);

/* The bands' part of the intensity along the unit crystal-frame direction c
 * (the pattern is background * (1 + this)). */
double kikuchi_bands_at(const struct kikuchi_model *model, const double c[3]);

/* The detector-fixed background at pixel (u, v): it does not deform. */
double kikuchi_background_at(const struct kikuchi_geometry *geometry, double u, double v);

/*
 * Renders one pattern: out[v * width + u] = background(u, v) *
 * (1 + bands(c(u, v))), c the crystal direction seen through pixel (u, v)
 * (kikuchi_direction). Pixel values are point samples at the pixel centres.
 */
void kikuchi_render(const struct kikuchi_model *model, const struct kikuchi_geometry *geometry,
                    const struct kikuchi_view *view, double *out);

/*
 * The unit crystal-frame direction c seen through pixel (u, v) of the view:
 * r = (u - xpc, ypc - v, L) from the view's centre, c = g F^-1 R_ds r,
 * normalised (the test pattern's intensity along d is the reference's
 * along F^-1 d).
 */
void kikuchi_direction(const struct kikuchi_model *model, const struct kikuchi_geometry *geometry,
                       const struct kikuchi_view *view, double u, double v, double c[3]);

/* R_ds, kikuchipy's: detector-frame components to sample-frame ones. */
void kikuchi_detector_to_sample(double sample_tilt_deg, double detector_tilt_deg, double r[9]);

/* The detector-frame direction r = (u - xpc, ypc - v, L) through pixel
 * (u, v) from a centre in pixels (kikuchi_pc_pixels: xpc, ypc, L). */
void kikuchi_ray(const double pc_pixels[3], double u, double v, double r[3]);

/* Bunge's passive g = R_z(phi2) R_x(Phi) R_z(phi1), sample to crystal (radians). */
void kikuchi_bunge(const double euler_rad[3], double g[9]);

/* The pattern centre (Bruker fractions) of the point x_um along the map's
 * columns and y_um along its rows from the reference's, pattern pixels
 * pixel_um wide (kikuchipy's extrapolate_pc). */
void kikuchi_pc_shift(const struct kikuchi_geometry *geometry, double x_um, double y_um,
                      double pixel_um, double pc[3]);

/* Pixel coordinates of a Bruker centre: xpc = PCx W - 0.5, ypc = PCy H - 0.5, L = PCz H. */
void kikuchi_pc_pixels(const struct kikuchi_geometry *geometry, double pcx, double pcy, double pcz,
                       double *xpc, double *ypc, double *distance);

/* Small 3x3 helpers, row-major. kikuchi_inverse returns the determinant (0: singular, out untouched). */
void kikuchi_multiply(const double a[9], const double b[9], double out[9]);
void kikuchi_transpose(const double a[9], double out[9]);
double kikuchi_inverse(const double a[9], double out[9]);

#endif
