/*
 * h5_rechunk.h - a copy of an HDF5 pattern file whose pattern dataset is
 * stored again in chunks of several patterns, gzip-compressed: the layout
 * that the readers can only take through H5Dread and its chunk cache (the
 * committed fixtures are contiguous or one LZF pattern per chunk); or as
 * another type, with one pixel of one's choosing. For test_containers and,
 * through imgtool h5gzip and h5retype, the shell tests.
 */
#ifndef CLX_H5_RECHUNK_H
#define CLX_H5_RECHUNK_H

#include <stddef.h>

/* Whether this libhdf5 can write and read gzip (deflate) datasets. */
int h5_gzip_available(void);

/*
 * Copies `from` to `to` with `dataset` (count, height, width) rewritten in
 * chunks of `per_chunk` patterns compressed at gzip `level`. 0, or -1 with
 * why in err.
 */
int h5_copy_rechunked(const char *from, const char *to, const char *dataset, int per_chunk, int level, char *err,
                      size_t len);

/*
 * Copies `from` to `to` with `dataset`'s patterns stored as `type` (f32,
 * f64: IEEE floats; i32, i16: signed integers), contiguous, and pattern
 * `page`'s pixel (x, y) set to `value` (NaN, an infinity, a value beyond
 * float's range; page -1: none): a float pattern file with one bad pixel,
 * or patterns of a type that reads as float. 0, or -1 with why in err.
 */
int h5_copy_retyped(const char *from, const char *to, const char *dataset, const char *type, long page, int x, int y,
                    double value, char *err, size_t len);

#endif
