/*
 * h5_output.h - `offsets --format h5`: the results as an HDF5 file, one
 * dataset per column, for h5py, kikuchipy-style tools and MATLAB.
 *
 * A run over a whole scan, in scan order, makes every per-window column a
 * (rows, columns, windows) array and every per-image one (image, scan_row,
 * scan_col, scan_x, scan_y) a (rows, columns) one; any other run makes them
 * (images, windows) and (images).
 * The windows' columns (region, x, y) are (windows). `clxcorr strain`'s
 * columns (e11 ... flags) are per image. Each dataset carries
 * "units" and "description" attributes; the root carries the clxcorr
 * version, the command, the mode and the scan's geometry. Floating-point
 * values not yet written read as NaN, flags as 4294967295.
 *
 * Like the text outputs, the file is written as FILE.part and renamed to
 * FILE only when the run completes; rows are written a block of images at
 * a time (a scan row, or 256 images), so that a run of 100,000 images makes
 * a few hundred writes per column, not 100,000.
 */
#ifndef CLX_H5_OUTPUT_H
#define CLX_H5_OUTPUT_H

#include <stddef.h>
#include "clxcorr.h"
#include "output/row_format.h"

struct h5_output;

/* What the file holds. */
struct h5_output_shape {
    size_t images;                   /* in the run */
    const clx_scan_info *scan;       /* the one pattern file's scan the images come from, or NULL */
    int grid;                        /* the images are that whole scan in scan order: grid-shaped datasets */
    const clx_region *regions;
    size_t nregions;
    const struct row_format *format; /* its columns (scan_x, scan_y only with the scan's step) */
    const char *mode;                /* "seed" or "accurate" */
};

/* Whether this build writes HDF5 (configure found libhdf5). */
int h5_output_available(void);

/*
 * Called first in main, before any HDF5 call: HDF5's clean-up at exit is
 * turned off. A file whose writes failed (a full disk) fails to close, and
 * HDF5 1.10 then frees it but keeps its ID (its slist flag is left set, so
 * no later flush or close can succeed either): the clean-up at exit closes
 * that ID again and crashes. Every file clxcorr opens is closed by clxcorr,
 * so the clean-up has nothing else to do before the process ends.
 */
void h5_output_init(void);

/* Creates PATH.part with every dataset; `argc`/`argv` become the command attribute. */
int h5_output_open(struct h5_output **out, const char *path, const struct h5_output_shape *shape, int argc,
                   char **argv, clx_message *msg);

/* Image `index` (0-based, in run order; each once, in increasing order)
 * named `name`, at scan point `point` (NULL without a scan), with one
 * result per window. */
int h5_output_image(struct h5_output *out, size_t index, const char *name, const struct row_scan_point *point,
                    const clx_result *results, clx_message *msg);

/* `clxcorr strain`'s image `index`, as h5_output_image: one pattern's strain
 * (the format's columns are strain ones, each a (rows, cols) or (images) array). */
int h5_output_pattern(struct h5_output *out, size_t index, const char *name, const struct row_scan_point *point,
                      const clx_strain_row *strain, clx_message *msg);

/* complete: the last block written, PATH.part renamed PATH. Otherwise what
 * was written stays in PATH.part. A file HDF5 could not complete (a full
 * disk) is no HDF5 file: PATH.part is removed and an error returned,
 * complete or not. Frees the writer either way. */
int h5_output_close(struct h5_output *out, int complete, clx_message *msg);

#endif
