/*
 * filter_output.h - where `clxcorr filter` writes its pages: one multi-page
 * TIFF (-o FILE), or one TIFF per input file in a directory (--output-dir:
 * DIR/NAME.tif, NAME the input's file name without its extension, with a
 * page per page of the input). Pages are 32-bit float, or 16-bit rounded to
 * the nearest integer and clamped to 0..65535 (--out-type u16). Each file is
 * written as FILE.part and renamed when complete; a file is opened with its
 * first page, so a run that fails before it leaves nothing.
 */
#ifndef CLX_FILTER_OUTPUT_H
#define CLX_FILTER_OUTPUT_H

#include <stddef.h>
#include "clxcorr.h"
#include "image_list.h"

struct filter_output {
    const char *file;            /* -o FILE, or NULL */
    const char *dir;             /* --output-dir DIR, or NULL */
    int u16;                     /* --out-type u16 */

    clx_tiff_writer *writer;     /* the file being written */
    char *writer_path;           /* ... its name */
    const char *writer_entry;    /* --output-dir: the input entry it belongs to */
    size_t pages, files;         /* pages written in all, files completed */
    unsigned long long clamped;  /* u16: pixels clamped to 0 or 65535 ... */
    size_t clamped_pages;        /* ... in this many pages */
};

/*
 * Before anything runs: no output file may be one of the inputs, and no
 * two inputs may go to one file. Reports the conflict; returns -1 then.
 */
int filter_output_check(const struct filter_output *o, const struct image_list *inputs);

/* Appends the filtered page `name` of list entry `entry` (F32 pixels; converted
 * in place for u16). Reports errors; returns -1 then. */
int filter_output_page(struct filter_output *o, const char *entry, const char *name, clx_image *page,
                       const char *description);

/* Completes the open file (ok) or leaves it as FILE.part; warns about clamped
 * pixels. Returns -1 when completing failed. */
int filter_output_finish(struct filter_output *o, int ok);

#endif
