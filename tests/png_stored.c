/* png_stored.c - PNG files written by hand for the tests; see png_stored.h. */
#include <stdlib.h>
#include <string.h>

#include "png_stored.h"

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}

void be32_put(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

void png_chunk(FILE *f, const char *type, const unsigned char *data, size_t n)
{
    unsigned char word[4];
    be32_put(word, (uint32_t)n);
    fwrite(word, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (n)   /* IEND has no data (and data is NULL) */
        fwrite(data, 1, n, f);
    be32_put(word, crc32_update(crc32_update(0, (const unsigned char *)type, 4), data, n));
    fwrite(word, 1, 4, f);
}

unsigned char *zlib_stored(const unsigned char *raw, size_t n, size_t *out_n)
{
    size_t blocks = n / 65535 + 1;
    unsigned char *z = malloc(2 + n + 5 * blocks + 4), *p = z;
    if (!z)
        return NULL;
    *p++ = 0x78;
    *p++ = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + raw[i]) % 65521;
        b = (b + a) % 65521;
    }
    size_t done = 0;
    do {
        size_t len = n - done < 65535 ? n - done : 65535;
        *p++ = done + len == n ? 1 : 0;   /* BFINAL, stored */
        *p++ = (unsigned char)len;
        *p++ = (unsigned char)(len >> 8);
        *p++ = (unsigned char)~len;
        *p++ = (unsigned char)(~len >> 8);
        memcpy(p, raw + done, len);
        p += len;
        done += len;
    } while (done < n);
    be32_put(p, b << 16 | a);
    *out_n = (size_t)(p + 4 - z);
    return z;
}
