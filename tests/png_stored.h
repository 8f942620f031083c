/*
 * png_stored.h - PNG files written by hand for the tests (test_image_io, the
 * fuzz seeds): chunks with their CRC, and zlib streams of stored
 * (uncompressed) deflate blocks, so that no zlib is needed.
 */
#ifndef CLX_TEST_PNG_STORED_H
#define CLX_TEST_PNG_STORED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* v big-endian into p[0..3]. */
void be32_put(unsigned char *p, uint32_t v);
/* One chunk: length, type, data (NULL when n is 0) and CRC. */
void png_chunk(FILE *f, const char *type, const unsigned char *data, size_t n);
/* A zlib stream of stored blocks holding raw[0..n) (malloc'd; NULL when out
 * of memory), its length in *out_n. */
unsigned char *zlib_stored(const unsigned char *raw, size_t n, size_t *out_n);

#endif
