/*
 * csv_output.h - where the offsets' rows go (formatted by row_format.h as
 * CSV, TSV or JSON lines): standard output, or a file that is written as
 * FILE.part and renamed to FILE only when the run completes, so an
 * interrupted run never leaves a file that looks complete.
 */
#ifndef CLX_CSV_OUTPUT_H
#define CLX_CSV_OUTPUT_H

#include <stdio.h>
#include "clxcorr.h"

/* The flags column's bit for an image that could not be read (--skip-bad):
 * set by the command, never by the library (clxcorr.h's CLX_FLAG_* take
 * the bits below it). */
#define ROW_FLAG_UNREADABLE 64u
/* The bit for a window that --mask left out (window_mask.h): not measured,
 * its offsets nan. Also the command's own. */
#define ROW_FLAG_MASKED 128u

struct csv_output {
    FILE *f;
    char *path;        /* NULL for standard output */
    char *part_path;
};

/* path NULL or "-": standard output; otherwise PATH.part, renamed to PATH
 * when the output is closed complete. Writes `header` (whole lines: the
 * column names, a shard's comment line, or "" for JSON lines) first. */
int csv_output_open(struct csv_output *out, const char *path, const char *header, clx_message *msg);
/* Appends to PATH.part, which --resume prepared (resume.h); renamed to PATH
 * when complete, like a new output. */
int csv_output_open_append(struct csv_output *out, const char *path, clx_message *msg);

/* One image's rows as text, formatted apart from the writing so that
 * several threads can format while one writes in input order. */
struct csv_text {
    char *text;
    size_t len, cap;
    size_t rows;
};
/* Writes formatted rows and flushes them. */
int csv_output_write(struct csv_output *out, const struct csv_text *t, clx_message *msg);
void csv_text_free(struct csv_text *t);

/* complete: flush, close and rename FILE.part to FILE. Otherwise close and
 * leave FILE.part with the complete rows written so far. */
int csv_output_close(struct csv_output *out, int complete, clx_message *msg);

#endif
