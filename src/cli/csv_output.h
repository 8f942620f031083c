/*
 * csv_output.h - the offsets CSV (ALGORITHM.md's columns), to standard output
 * or to a file that is written as FILE.part and renamed to FILE only when the
 * run completes, so an interrupted run never leaves a file that looks complete.
 */
#ifndef CLX_CSV_OUTPUT_H
#define CLX_CSV_OUTPUT_H

#include <stdio.h>
#include "clxcorr.h"

/* The flags column's bit for an image that could not be read (--skip-bad):
 * set by the command, never by the library (clxcorr.h's CLX_FLAG_* take
 * the bits below it). */
#define ROW_FLAG_UNREADABLE 64u

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
/* The header lines csv_output_open writes, into buf. */
void csv_header(char *buf, size_t len, int quality, const char *comment);
/* The same with the header lines given whole (`clxcorr merge`). */
int csv_output_open_header(struct csv_output *out, const char *path, const char *header, clx_message *msg);
/* Appends to PATH.part, which --resume prepared (resume.h); renamed to PATH
 * when complete, like a new output. */
int csv_output_open_append(struct csv_output *out, const char *path, clx_message *msg);
/* How the row of image_name's window `region` starts ("name,region,", the
 * name quoted as a row quotes it) into buf; its length, or -1 when it does
 * not fit in len. */
int csv_row_start(char *buf, size_t len, const char *image_name, size_t region);

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
