/*
 * results_csv.h - reading a results file that `clxcorr offsets` wrote, for
 * `clxcorr plot`.
 *
 * The file is CSV, TSV or JSON lines (record_reader.h) with a header naming
 * its columns; image, region, x, y, dx and dy are needed, flags is used when
 * present, others (peak, zncc, ...) are skipped, in any order. CSV fields
 * may be quoted as RFC 4180 says (the command quotes image names that hold a
 * comma or a quote). Consecutive rows with one image name are one image;
 * images are numbered in file order.
 */
#ifndef CLX_RESULTS_CSV_H
#define CLX_RESULTS_CSV_H

#include <stddef.h>
#include "clxcorr.h"

struct results_table {
    size_t images;          /* number of images */
    size_t windows;         /* 1 + the largest region index */
    char **image_names;     /* [images] */
    double *x, *y;          /* [windows]: each window's centre; NaN for a window no row names */
    double *dx, *dy;        /* [image * windows + window]; NaN where the file has no row */
    unsigned *flags;        /* [image * windows + window]; 0 without a flags column */
    double *value;          /* [image * windows + window]: results_read_column's column; NaN where missing */
};

/*
 * Reads the file. Errors name the file and, for a bad row, its line:
 * "out.csv:7: field 'dx' is 'abc', not a number". CLX_ERR_IO when it cannot
 * be read, CLX_ERR_FORMAT for bad content (no header, a missing column, a
 * row with too few fields, a window twice for one image, a window whose
 * centre moves between images, no rows).
 */
int results_read(const char *path, struct results_table *table, clx_message *msg);
/* The same, and the values of one more column (a number or nan in every
 * row) into table->value. "speed" when the file has no such column is
 * hypot(dx, dy). An error names the column when the file lacks it. */
int results_read_column(const char *path, const char *column, struct results_table *table, clx_message *msg);
void results_free(struct results_table *table);

#endif
