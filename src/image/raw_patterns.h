/*
 * raw_patterns.h - what the backends of the binary EBSD pattern files
 * (load_up.c, load_nordif.c, load_ebsp.c) share (internal): the file opened
 * once for pread, little-endian fields read byte by byte (the headers are
 * packed and unaligned), and a pattern read straight into the caller's
 * pixels.
 *
 * Sizes and offsets are unsigned long long throughout: the files reach tens
 * of gigabytes, and a header's 32-bit fields multiplied together must not
 * wrap before they are compared with the file's size.
 */
#ifndef CLX_RAW_PATTERNS_H
#define CLX_RAW_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

#include "image/loaders.h"

/* Whether path ends in `ending` (".up2"), in any case. */
int raw_name_ends(const char *path, const char *ending);

/* Opens path for reading with pread: *fd and the file's size in bytes. */
int raw_file_open(const char *path, int *fd, unsigned long long *size, clx_message *msg);

/* Reads up to n bytes at offset `at`, retrying after signals: the bytes
 * read (fewer at the end of the file), or -1 with errno set. */
long long raw_read_at(int fd, void *buf, size_t n, unsigned long long at);

/* Little-endian fields at p. */
uint32_t raw_u32(const unsigned char *p);
int32_t raw_i32(const unsigned char *p);
int64_t raw_i64(const unsigned char *p);
double raw_f64(const unsigned char *p);

/*
 * Reads the width x height pattern of `type` (8 or 16-bit, little-endian)
 * at `at` in fd into dst: size and type checked with image_fit_check, the
 * bytes read straight into dst's pixels, then widened to dst's type. Safe
 * in several threads on one fd. A file shorter than the pattern is an
 * error naming the file and page.
 */
int raw_pattern_read(const clx_image_file *file, int page, int fd, unsigned long long at, int width,
                     int height, clx_pixel_type type, clx_image *dst, clx_message *msg);

#endif
