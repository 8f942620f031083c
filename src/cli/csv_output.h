/*
 * csv_output.h - the offsets CSV (ALGORITHM.md's columns), to standard output
 * or to a file that is written as FILE.part and renamed to FILE only when the
 * run completes, so an interrupted run never leaves a file that looks complete.
 */
#ifndef CLX_CSV_OUTPUT_H
#define CLX_CSV_OUTPUT_H

#include <stdio.h>
#include "clxcorr.h"

struct csv_output {
    FILE *f;
    int quality;       /* the accurate mode's columns too */
    char *path;        /* NULL for standard output */
    char *part_path;
    size_t rows;
};

/* path NULL or "-": standard output. Writes the header; `quality` adds the
 * accurate mode's columns zncc,peak_ratio,iterations. A `comment` (NULL:
 * none), a whole line with its newline, comes before the header. */
int csv_output_open(struct csv_output *out, const char *path, int quality, const char *comment,
                    clx_message *msg);
/* The same with the header lines given whole (`clxcorr merge`). */
int csv_output_open_header(struct csv_output *out, const char *path, const char *header, clx_message *msg);

/* One row per window of one image; flushed so that rows on disk are whole. */
int csv_output_image(struct csv_output *out, const char *image_name, const clx_region *regions,
                     size_t nregions, const clx_result *results, clx_message *msg);

/* One image's rows as text, formatted apart from the writing so that
 * several threads can format while one writes in input order. */
struct csv_text {
    char *text;
    size_t len, cap;
    size_t rows;
};
int csv_format_image(struct csv_text *t, int quality, const char *image_name, const clx_region *regions,
                     size_t nregions, const clx_result *results);
/* Writes formatted rows and flushes them. */
int csv_output_write(struct csv_output *out, const struct csv_text *t, clx_message *msg);
void csv_text_free(struct csv_text *t);

/* complete: flush, close and rename FILE.part to FILE. Otherwise close and
 * leave FILE.part with the complete rows written so far. */
int csv_output_close(struct csv_output *out, int complete, clx_message *msg);

#endif
