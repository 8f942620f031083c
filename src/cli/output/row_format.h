/*
 * row_format.h - one image's offsets as rows of text: CSV (the default),
 * TSV or JSON lines, with all of the mode's columns or a chosen subset in a
 * chosen order (`clxcorr offsets --format F --columns LIST`); or, for
 * `clxcorr strain`, one row per pattern with its strain and rotation.
 *
 *   csv    a header line of column names, then one line per window;
 *          an image name holding a comma, quote or line break is quoted
 *          (RFC 4180). Byte for byte what csv_format_image writes when all
 *          columns are chosen: that function goes once offsets uses this.
 *   tsv    the same with tabs; a tab, line break or backslash in an image
 *          name is written \t, \n, \r or \\ (TSV has no quoting).
 *   jsonl  no header; one JSON object per line, keys in column order,
 *          numbers as numbers, NaN or infinity as null, the image name as
 *          a JSON string (bytes that are not UTF-8 become U+FFFD).
 *
 * Numbers have the CSV's precision: x, y 1 decimal; dx, dy, zncc 6;
 * peak 9 significant digits; peak_ratio, sigma_dx, sigma_dy 4; znssd 6;
 * the gradients dudx ... dvdy and the strains exx, eyy, exy 7.
 *
 * The strains are Green-Lagrange's, E = 1/2 (F^T F - I) with F = I + grad u
 * in reference coordinates (u = (dx, dy), grad u = [dudx dudy; dvdx dvdy]):
 * exx = dudx + (dudx^2 + dvdx^2) / 2, eyy = dvdy + (dudy^2 + dvdy^2) / 2 and
 * the tensor shear exy = (dudy + dvdx + dudx dudy + dvdx dvdy) / 2 (half
 * the engineering shear), as DIC codes report them (Ncorr, DICe); y is
 * down the image, so a positive exy closes the angle between +x and +y
 * (right and down).
 */
#ifndef CLX_ROW_FORMAT_H
#define CLX_ROW_FORMAT_H

#include <stddef.h>
#include "clxcorr.h"
#include "output/csv_output.h"

enum row_format_kind {
    ROW_FORMAT_CSV = 0,
    ROW_FORMAT_TSV = 1,
    ROW_FORMAT_JSONL = 2,
    ROW_FORMAT_H5 = 3,           /* not rows of text: output/h5_output.h writes it */
    ROW_FORMAT_VTK = 4,          /* nor these: a field file per image (output/field_output.h) */
    ROW_FORMAT_OPENPIV = 5
};

/* Every column: the default order, the accurate mode's three, IC-GN's
 * three and its shape function's four with their strains, then the scan point's (runs over
 * one EBSD pattern file with a scan grid). */
enum row_column {
    ROW_COLUMN_IMAGE,
    ROW_COLUMN_REFERENCE,        /* pairs and sequences: each image's own reference */
    ROW_COLUMN_REGION,
    ROW_COLUMN_X,
    ROW_COLUMN_Y,
    ROW_COLUMN_DX,
    ROW_COLUMN_DY,
    ROW_COLUMN_TOTAL_DX,         /* sequences: dx summed over the images so far */
    ROW_COLUMN_TOTAL_DY,
    ROW_COLUMN_PEAK,
    ROW_COLUMN_FLAGS,
    ROW_COLUMN_ZNCC,
    ROW_COLUMN_PEAK_RATIO,
    ROW_COLUMN_ITERATIONS,
    ROW_COLUMN_ZNSSD,
    ROW_COLUMN_SIGMA_DX,
    ROW_COLUMN_SIGMA_DY,
    ROW_COLUMN_DUDX,
    ROW_COLUMN_DUDY,
    ROW_COLUMN_DVDX,
    ROW_COLUMN_DVDY,
    ROW_COLUMN_EXX,
    ROW_COLUMN_EYY,
    ROW_COLUMN_EXY,
    ROW_COLUMN_SCAN_ROW,
    ROW_COLUMN_SCAN_COL,
    ROW_COLUMN_SCAN_X,
    ROW_COLUMN_SCAN_Y,
    /* clxcorr strain's (one row per pattern; see row_format_init_strain). */
    ROW_COLUMN_E11,
    ROW_COLUMN_E12,
    ROW_COLUMN_E13,
    ROW_COLUMN_E22,
    ROW_COLUMN_E23,
    ROW_COLUMN_E33,
    ROW_COLUMN_W1,
    ROW_COLUMN_W2,
    ROW_COLUMN_W3,
    ROW_COLUMN_RESIDUAL,
    ROW_COLUMN_WINDOWS,
    ROW_COLUMN_STRAIN_FLAGS,     /* named "flags" too: the strain's CLX_STRAIN_* bits */
    /* strain's columns that a run has only with --grains, or with the
     * reference's orientation (row_format_strain_extras). */
    ROW_COLUMN_GRAIN,
    ROW_COLUMN_REF_ROW,
    ROW_COLUMN_REF_COL,
    ROW_COLUMN_PHI1,             /* the pattern's refined orientation, Bunge, radians */
    ROW_COLUMN_PHI,
    ROW_COLUMN_PHI2,
    ROW_COLUMN_COUNT
};

/* One row of `clxcorr strain` is the library's clx_strain_row (clx_strain_job_fit). */

/* What an image's rows of a pair or a sequence add (NULL: nothing): its
 * reference's name, and each window's displacement summed over the
 * sequence so far. */
struct row_extras {
    const char *reference;
    const double *total_dx, *total_dy;   /* per window; NULL: none */
};

/* Where an image lies in its scan: grid row and column (0-based), and
 * position in µm (NAN when the file gives no step). */
struct row_scan_point {
    long row, col;
    double x, y;
};

/* The groups of columns a run computes beyond seed mode's (a bit set). */
#define ROW_GROUP_ACCURATE 1u   /* zncc, peak_ratio, iterations */
#define ROW_GROUP_ICGN 2u       /* znssd, sigma_dx, sigma_dy */
#define ROW_GROUP_SHAPE 4u      /* dudx, dudy, dvdx, dvdy, exx, eyy, exy */
#define ROW_GROUP_PAIRS 8u      /* reference: each image measured against its own */
#define ROW_GROUP_TOTALS 16u    /* total_dx, total_dy: a sequence, each image against the one before */

/* The groups of a run with these options. */
unsigned row_groups_of(const clx_plan_options *plan);

/* The Green-Lagrange strains of a result's displacement gradient (above):
 * e[0] exx, e[1] eyy, e[2] exy; NaN where the gradient is. */
void row_green_lagrange(const clx_result *result, double e[3]);

struct row_format {
    enum row_format_kind kind;
    enum row_column columns[ROW_COLUMN_COUNT];   /* in output order */
    size_t ncolumns;
    int chosen;                                  /* --columns chose them */
    int strain;                                  /* one row per pattern: strain columns */
};

/* CSV with the columns of `groups` (ROW_GROUP_*) in the default order. */
void row_format_init(struct row_format *format, unsigned groups);

/* CSV of strain rows: image, e11 e12 e13 e22 e23 e33, w1 w2 w3, residual,
 * windows, flags. --columns then chooses among these and the scan's. */
void row_format_init_strain(struct row_format *format);

/* A run over a scan: unless --columns chose them, the columns are the scan
 * point's (scan_row, scan_col, and with `position` scan_x, scan_y) in
 * place of image, then the mode's others. */
void row_format_use_scan(struct row_format *format, unsigned groups, int position);

/* The chosen columns can be written: the scan's need a scan (`scan` 0:
 * none, 1: a grid, 2: a grid with its step). CLX_ERR_ARGUMENT with msg
 * otherwise. */
int row_format_check_scan(const struct row_format *format, int scan, clx_message *msg);

/* --format's value: "csv", "tsv", "jsonl", "h5", "vtk" or "openpiv". An
 * unknown name: CLX_ERR_ARGUMENT, msg "--format: unknown format 'xml'
 * (csv, tsv, jsonl, h5, vtk or openpiv)". */
int row_format_set_kind(struct row_format *format, const char *name, clx_message *msg);

/*
 * --columns' value: column names joined by commas, in the order to write
 * them ("image,dx,dy"). CLX_ERR_ARGUMENT with msg for an unknown name (the
 * message lists the known ones), a name given twice, an empty name, or a
 * column of a group not in `groups` (seed mode computes no zncc, say).
 * On failure the format is unchanged.
 */
int row_format_set_columns(struct row_format *format, const char *list, unsigned groups, clx_message *msg);

/* The column's name as in headers and JSON keys ("peak_ratio"). */
const char *row_column_name(enum row_column column);

/* The header line ("image,dx,dy\n"; "" for JSON lines) into out; returns
 * its length, or -1 when it does not fit in `len`. */
/* v as printf's "%.*g" writes it, into out (32 bytes), for digits up to 9
 * when the digits are certain without printf; returns the length, or 0
 * where only printf can say (then out is untouched). Exposed for its test. */
int row_put_general_fast(char *out, double v, int digits);

int row_format_header(const struct row_format *format, char *out, size_t len);

/*
 * Formats one image's rows (one per window, in plan order) into t, replacing
 * its text; t->rows counts them. `point` (NULL for images of no scan) gives
 * the scan columns' values, `extras` (NULL for none) a pair's or a
 * sequence's. Thread-safe for different t: the stream's
 * lanes format while the writer writes (csv_output_write writes t).
 * CLX_ERR_HOST_MEMORY when out of memory.
 */
int row_format_image(const struct row_format *format, struct csv_text *t, const char *image_name,
                     const struct row_scan_point *point, const struct row_extras *extras,
                     const clx_region *regions, size_t nregions, const clx_result *results);

/* One pattern's row of strain (a format made by row_format_init_strain)
 * into t, replacing its text. Thread-safe for different t.
 * CLX_ERR_HOST_MEMORY when out of memory. */
int row_format_pattern(const struct row_format *format, struct csv_text *t, const char *image_name,
                       const struct row_scan_point *point, const clx_strain_row *strain);

/* Unless --columns chose them, the strain's columns that only some runs
 * have: grain, ref_row, ref_col with grains, phi1, Phi, phi2 with the
 * reference's orientation. */
void row_format_strain_extras(struct row_format *format, int grains, int orientations);

#endif
