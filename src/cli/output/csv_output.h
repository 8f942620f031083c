/*
 * csv_output.h - where the rows of text go (formatted by row_format.h as
 * CSV, TSV or JSON lines): standard output, or -o FILE through clx_output,
 * so that a regular FILE is written as FILE.part and renamed only when the
 * run completes, and a FIFO or device is written as it is, never replaced.
 *
 * A run's output (given a fingerprint) is also resumable: rows are written
 * in whole images, and at checkpoints (every CLXCORR_CHECKPOINT_SECONDS,
 * default 1, and when the run stops) FILE.part is synced and FILE.resume
 * records how far it is (resume.h).
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

struct run_fingerprint;

struct csv_output {
    FILE *f;                   /* standard output, or NULL */
    clx_output *file;          /* -o FILE */
    char *path;
    /* checkpoints of a resumable output (fp non-NULL) */
    const struct run_fingerprint *fp;
    size_t rows_per_image;
    size_t rows;               /* rows in the file */
    long long bytes;           /* its length */
    double last_checkpoint, interval;
};

/* path NULL or "-": standard output; otherwise FILE (see above). Writes
 * `header` (whole lines: the column names, a shard's comment line, or ""
 * for JSON lines) first. fp: checkpoints for --resume (NULL: none). */
int csv_output_open(struct csv_output *out, const char *path, const char *header, const struct run_fingerprint *fp,
                    size_t rows_per_image, clx_message *msg);
/* Continues FILE.part, which --resume checked and cut after `kept` images
 * (`bytes` long; 0: before its header, which is then written). Takes part. */
int csv_output_continue(struct csv_output *out, const char *path, clx_output *part, const char *header,
                        size_t kept, long long bytes, const struct run_fingerprint *fp, size_t rows_per_image,
                        clx_message *msg);

/* One image's rows as text, formatted apart from the writing so that
 * several threads can format while one writes in input order. */
struct csv_text {
    char *text;
    size_t len, cap;
    size_t rows;
};
/* Writes formatted rows (whole images) and flushes them. */
int csv_output_write(struct csv_output *out, const struct csv_text *t, clx_message *msg);
void csv_text_free(struct csv_text *t);

/* complete: sync and rename FILE.part to FILE (and FILE.resume goes).
 * Otherwise a last checkpoint, and FILE.part keeps the complete rows
 * written so far. */
int csv_output_close(struct csv_output *out, int complete, clx_message *msg);

#endif
