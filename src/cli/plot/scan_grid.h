/*
 * scan_grid.h - columns of a scan's results file as grids of values, for
 * `clxcorr plot --map` and `--tensor`.
 *
 * The results of a scan (`clxcorr offsets` on EBSD pattern files, where each
 * pattern is a point of the scan grid, and `clxcorr strain`) carry scan_row
 * and scan_col (0-based) in place of image, and scan_x and scan_y (µm) when
 * the pattern file gives the grid's step. A file may have a region column
 * (one row per point and window) or not (one row per point: per-pattern
 * quantities such as strain). The file is CSV, TSV or JSON lines
 * (record_reader.h; rows in any order, points may be missing), or the HDF5
 * file `--format h5` writes (output/h5_output.h: a dataset per column,
 * shaped as the scan's grid or as a list of images with scan_row and
 * scan_col), told by its signature; a build without HDF5 refuses that one
 * in one line naming it.
 *
 * A point's value is the mean of the column over its rows (its windows), or
 * with `region` that window's value alone. Left out of it: nan values, and
 * rows whose flags say the estimate is untrusted: any flag but 8 (outlier),
 * which judges a window against its neighbours, a judgement the map itself
 * lets the reader make; in strain's rows, the fits without numbers. A map
 * of flags, grain, ref_row or ref_col takes every row: they label a point,
 * they do not estimate anything. A point without a value is NaN.
 */
#ifndef CLX_SCAN_GRID_H
#define CLX_SCAN_GRID_H

#include <stddef.h>
#include "clxcorr.h"

/* The flags that leave a row out of a point's value: all but the outlier's. */
#define SCAN_UNTRUSTED_FLAGS (~CLX_FLAG_OUTLIER)
/* ... in clxcorr strain's rows: no numbers, or a remapped rotation that had
 * not settled (a deviatoric strain, windows dropped: a value as good as any). */
#define SCAN_STRAIN_UNTRUSTED_FLAGS (CLX_STRAIN_FEW_WINDOWS | CLX_STRAIN_SINGULAR | CLX_STRAIN_UNSETTLED)

/* The most columns read at once (the tensor figure's nine and the grain). */
#define SCAN_MAX_COLUMNS 16

struct scan_grid {
    size_t rows, cols;          /* 1 + the largest scan_row, scan_col of any row */
    double *values;             /* [row * cols + col]; NaN: no value */
    size_t windows;             /* 1 + the largest region; 0: no region column */
    size_t rows_read;           /* the file's rows */
    size_t rows_used;           /* rows that went into the values */
    size_t rows_flagged;        /* rows of the chosen window(s) left out for their flags */
    size_t rows_nan;            /* rows of the chosen window(s) left out for a nan value */
    size_t points_with_value;
    /* With scan_x and scan_y: point (row, col) lies at (x0 + col * step_x,
     * y0 + row * step_y) µm. Without them (or when one point gives no step),
     * positioned is 0. */
    int positioned;
    double x0, y0, step_x, step_y;
};

/* The columns to read, and who asks (named in the errors: "--map"). */
struct scan_request {
    const char *option;
    const char *const *columns;
    size_t count;               /* at most SCAN_MAX_COLUMNS */
    size_t required;            /* the first `required` must be in the file; the others are read where present */
    long region;                /* a window; -1: the mean over every window */
};

/*
 * Reads `column` of the file at `path` into g: each point's mean over its
 * windows (region -1) or window `region`'s value. Errors (one line in msg,
 * naming the file and, for a row, its line or image): CLX_ERR_IO (the
 * file), CLX_ERR_FORMAT (no scan_row and scan_col columns, no such column,
 * a value that is not a number, a point and window twice, no rows,
 * --region out of range or without a region column, an HDF5 file this
 * build cannot read), CLX_ERR_HOST_MEMORY.
 */
int scan_grid_read(const char *path, const char *column, long region, struct scan_grid *g, clx_message *msg);

/* The columns of one request at once, grids[k] column k's (grids[k].values
 * NULL for an optional column the file lacks), with scan_grid_read's errors. */
int scan_grids_read(const char *path, const struct scan_request *request, struct scan_grid *grids, clx_message *msg);

void scan_grid_free(struct scan_grid *g);

#endif
