/* hash.c - FNV-1a, 64 bits. */
#include "config.h"

#include <string.h>

#include "runtime/hash.h"

uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

uint64_t hash_string(uint64_t h, const char *s)
{
    return hash_bytes(h, s, strlen(s) + 1);
}
