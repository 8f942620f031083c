/*
 * scan_grid.h - one column of a scan's results file as a grid of values,
 * for `clxcorr plot --map`.
 *
 * The results of a scan (`clxcorr offsets` on EBSD pattern files, where each
 * pattern is a point of the scan grid) carry scan_row and scan_col (0-based)
 * in place of image, and scan_x and scan_y (µm) when the pattern file gives
 * the grid's step. A file may have a region column (one row per point and
 * window) or not (one row per point: per-pattern quantities such as
 * strain). The file is CSV, TSV or JSON lines (record_reader.h); rows may
 * come in any order and points may be missing.
 *
 * A point's value is the mean of the column over its rows (its windows), or
 * with `region` that window's value alone. Left out of it: nan values, and
 * rows whose flags say the estimate is untrusted: any flag but 8 (outlier),
 * which judges a window against its neighbours, a judgement the map itself
 * lets the reader make. A point without a value is NaN.
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

/*
 * Reads `column` of the file at `path` into g: each point's mean over its
 * windows (region -1) or window `region`'s value. Errors (one line in msg,
 * naming the file and, for a row, its line): CLX_ERR_IO (the file),
 * CLX_ERR_FORMAT (no scan_row and scan_col columns, no such column, a value
 * that is not a number, a point and window twice, no rows, --region out of
 * range or without a region column), CLX_ERR_HOST_MEMORY.
 */
int scan_grid_read(const char *path, const char *column, long region, struct scan_grid *g, clx_message *msg);
void scan_grid_free(struct scan_grid *g);

#endif
