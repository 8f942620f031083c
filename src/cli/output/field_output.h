/*
 * field_output.h - `offsets --format vtk` and `--format openpiv`: each
 * image's displacement field as a file of its own, in a form that field
 * tools read (ParaView, VisIt, meshio; OpenPIV's scripts), not as rows.
 *
 * Files: -o OUT.EXT names them. A run of one image writes OUT.EXT; a run of
 * several writes OUT_0001.EXT, OUT_0002.EXT, ... (the image's index in the
 * run, from 1, at least four digits), the number before the extension (or
 * at the end of a name without one). Each is written as NAME.part and
 * renamed when whole, so that a file under its final name is complete.
 *
 * vtk: VTK's legacy format (version 3.0, binary, big-endian, as that
 * format is), a STRUCTURED_GRID of the windows' centres (x, y, 0) in
 * reference pixel coordinates (y down the image; x fastest, then y), with
 * POINT_DATA: the VECTORS "displacement" (dx, dy, 0) and one SCALARS array
 * per other chosen column (--columns; by default all of the mode's but
 * image, x, y, dx and dy): region, flags and iterations as int, the others
 * double, nan where the rows say nan. Only for windows on a full grid
 * (--grid, --grid-step, or a windows file laid out so): field_output_open
 * refuses others.
 *
 * openpiv: the text that openpiv.tools.save writes: a header line
 * "# x\ty\tu\tv\tflags\tmask", then one tab-separated line per window in
 * window order (a grid's rows top of the image first, each left to right,
 * as OpenPIV flattens its fields), numbers as %.6e (OpenPIV's default is
 * %.4e; numpy.loadtxt reads both). Its conventions, which OpenPIV's own
 * scripts reach with tools.transform_coordinates before saving: y points
 * up, y = y_min + y_max - y_image over the window centres (the rows'
 * order kept), and v = -dy; x = x_image and u = dx. Units: pixels, and
 * pixels per frame pair (no scaling, dt = 1). flags: 0 valid, 1 when the
 * row has any flag but masked; mask: 1 for windows --mask left out, whose
 * u, v are 0 as OpenPIV fills masked vectors. The centres are clxcorr's,
 * x0 + (w-1)/2: OpenPIV's get_coordinates puts them half a pixel further,
 * at x0 + w/2.
 */
#ifndef CLX_FIELD_OUTPUT_H
#define CLX_FIELD_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include "clxcorr.h"
#include "output/row_format.h"

struct field_output;

/* What the files hold: the windows, in window order, and the columns. */
struct field_output_shape {
    size_t images;                   /* in the run: one file each */
    const clx_region *regions;
    size_t nregions;
    const struct row_format *format; /* kind ROW_FORMAT_VTK or ROW_FORMAT_OPENPIV, and the columns */
};

/*
 * Checks that the windows suit the format (vtk: a full grid) and keeps what
 * the files need. Errors: CLX_ERR_ARGUMENT with one line saying why,
 * CLX_ERR_HOST_MEMORY.
 */
int field_output_open(struct field_output **out, const char *path, const struct field_output_shape *shape,
                      clx_message *msg);

/* The file of image `index` (0-based in the run): its results, one per window. */
int field_output_image(struct field_output *out, size_t index, const char *name, const clx_result *results,
                       clx_message *msg);

/* Frees the writer; the files written so far stay (each is whole). */
void field_output_close(struct field_output *out);

/* The name of image `index`'s file for a run of `images` images (above)
 * into buf; -1 when it does not fit. */
int field_output_path(const char *path, size_t images, size_t index, char *buf, size_t len);

/* ---- the writers (vtk_field.c, openpiv_field.c) ---- */

/* The grid the windows form: grid_at[j * nx + i] is the window at column
 * i, row j (x and y corners ascending). */
struct field_grid {
    size_t nx, ny;
    size_t *grid_at;
};

/* 0 and the grid when the windows' corners form a full nx x ny grid, each
 * corner once; -1 otherwise (or out of memory: grid_at NULL). */
int field_grid_detect(const clx_region *regions, size_t n, struct field_grid *grid);

int vtk_field_write(FILE *f, const struct field_grid *grid, const struct field_output_shape *shape,
                    const char *name, const clx_result *results);
int openpiv_field_write(FILE *f, const struct field_output_shape *shape, const clx_result *results);

#endif
