/*
 * scan_rows.h - the rows of a scan's results as its readers give them to
 * scan_grid.c: each row's scan point, window and flags, and its values of
 * the columns asked for. scan_text.c reads them from CSV, TSV and JSON
 * lines (record_reader.h), scan_h5.c from the HDF5 files that `--format
 * h5` writes; scan_grid.c makes grids of them.
 */
#ifndef CLX_SCAN_ROWS_H
#define CLX_SCAN_ROWS_H

#include <stddef.h>
#include "clxcorr.h"
#include "plot/scan_grid.h"

/* Indices beyond these are taken for a corrupt field: the largest EBSD
 * scans have a few thousand points a side, and plans a few thousand windows. */
#define SCAN_MAX_SIDE 100000
#define SCAN_MAX_WINDOWS 1000000

/* One row of the chosen window(s). */
struct scan_row {
    unsigned row, col, region, flags;
    long at;                    /* the text's line, or the HDF5 file's image index */
    size_t slot;                /* its values: scan_rows.values[slot * columns] */
};

/* The positions at the smallest and the largest index seen along one axis:
 * the grid's step and origin in µm come from them. */
struct scan_axis_ends {
    unsigned lo, hi;
    double at_lo, at_hi;
    int seen;
};

struct scan_rows {
    const char *path;
    const struct scan_request *request;
    int present[SCAN_MAX_COLUMNS];  /* whether the file has each asked column */
    int hdf5;                   /* rows named by image (HDF5), not by line */
    int has_region;             /* rows per window: a region column, or per-window datasets */
    int strain;                 /* clxcorr strain's rows (an e11 column): one per pattern, its own flags */
    struct scan_row *rows;
    double *values;             /* [slot * request->count + k]: column k's value */
    size_t count, cap;
    struct scan_axis_ends x_ends, y_ends;
    unsigned max_row, max_col;
    size_t windows, rows_read;
};

/*
 * Adds a row read: the grid grows to hold its point whatever its window,
 * and a row of the chosen window (all, region -1) is kept with its values
 * (request->count of them; NaN for a column the file lacks). xy: its scan
 * position in µm, NULL without. CLX_OK or CLX_ERR_HOST_MEMORY (msg).
 */
int scan_rows_add(struct scan_rows *r, const struct scan_row *row, const double *values, const double *xy,
                  clx_message *msg);

/* The readers: every row of the file at r->path into r (the caller sets
 * path, request and hdf5, the rest zeroed). Errors name the file, and a
 * row by its line or image; a column the file lacks is named with those it
 * has. */
int scan_text_read(struct scan_rows *r, clx_message *msg);
int scan_h5_read(struct scan_rows *r, clx_message *msg);

/* Whether the file starts as an HDF5 file does (its signature at 0). */
int scan_h5_signature(const char *path);

#endif
