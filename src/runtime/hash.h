/* hash.h - a small non-cryptographic 64-bit hash (FNV-1a) for cache keys (internal). */
#ifndef CLX_HASH_H
#define CLX_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_INIT UINT64_C(0xcbf29ce484222325)

/* Continues hash h over n bytes. Start with HASH_INIT. */
uint64_t hash_bytes(uint64_t h, const void *data, size_t n);
/* Continues over a NUL-terminated string, including its terminator, so that
 * ("ab","c") and ("a","bc") hash differently. */
uint64_t hash_string(uint64_t h, const char *s);

#endif
