/*
 * tiff_io.h - opening TIFF files with libtiff's errors caught per file
 * (internal): shared by the reader (load_tiff.c) and the writer
 * (tiff_writer.c).
 *
 * libtiff reports problems through callbacks. Its global handlers are not
 * thread-safe and would print to stderr, so with libtiff >= 4.5 every TIFF
 * gets its own handlers, which keep the first error for the message. Older
 * libtiff only has the global handlers: they are silenced once, and
 * libtiff's wording is lost.
 */
#ifndef CLX_TIFF_IO_H
#define CLX_TIFF_IO_H

#include <tiffio.h>

/* TIFFLIB_AT_LEAST itself only exists since 4.5, hence two steps. */
#if defined(TIFFLIB_AT_LEAST)
#if TIFFLIB_AT_LEAST(4, 5, 0)
#define TIFF_OPEN_OPTIONS 1
#endif
#endif

struct tiff_handle {
    TIFF *tif;
    const char *path;
    int failed;          /* libtiff reported an error since the last reset */
    int stale;           /* reader: the current directory was decoded from or half read */
    char error[512];     /* the first of those errors, for the message */
};

/* Opens h->path with libtiff mode `mode` ("rm" to read without mmap, "w"
 * to write); errors from then on are kept in h. With libtiff >= 4.5, no
 * single allocation of libtiff's for this file may exceed what the largest
 * page needs. */
TIFF *tiff_io_open(struct tiff_handle *h, const char *mode);

/* Forgets the errors seen so far. */
void tiff_io_reset(struct tiff_handle *h);

#endif
