/* lzf_filter.c - LZF decoding and HDF5 filter 32000 (lzf_filter.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "image/lzf_filter.h"


/*
 * LZF's format: a control byte, then either ctrl + 1 literal bytes
 * (ctrl < 32), or a back reference of length (ctrl >> 5) + 2 (7 meaning
 * "7 plus the next byte"), to the bytes ((ctrl & 31) << 8) + next byte + 1
 * before the output's end. A reference may overlap what it produces (a
 * run of a short pattern): those are copied byte by byte.
 */
size_t lzf_decode(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len, int *too_small)
{
    const unsigned char *ip = in, *in_end = in + in_len;
    unsigned char *op = out, *out_end = out + out_len;
    *too_small = 0;
    while (ip < in_end) {
        unsigned ctrl = *ip++;
        if (ctrl < 32) {
            size_t n = ctrl + 1;
            if ((size_t)(in_end - ip) < n)
                return 0;
            if ((size_t)(out_end - op) < n) {
                *too_small = 1;
                return 0;
            }
            /* Runs of at most 32 literals: a fixed 32-byte copy (two vector moves)
             * where both buffers have the room, which is most of a pattern. */
            if ((size_t)(out_end - op) >= 32 && (size_t)(in_end - ip) >= 32)
                memcpy(op, ip, 32);
            else
                memcpy(op, ip, n);
            op += n;
            ip += n;
            continue;
        }
        size_t len = ctrl >> 5;
        if (ip >= in_end)
            return 0;
        if (len == 7) {
            len += *ip++;
            if (ip >= in_end)
                return 0;
        }
        size_t back = ((size_t)(ctrl & 31) << 8) + *ip++ + 1;
        len += 2;
        if (back > (size_t)(op - out))
            return 0;
        if ((size_t)(out_end - op) < len) {
            *too_small = 1;
            return 0;
        }
        const unsigned char *ref = op - back;
        if (back >= 16 && (size_t)(out_end - op) >= len + 16) {
            /* 16 bytes at a time, a little past the end: each step reads
             * only bytes that are written already (back >= 16). */
            for (size_t k = 0; k < len; k += 16)
                memcpy(op + k, ref + k, 16);
        } else {
            for (size_t k = 0; k < len; k++)
                op[k] = ref[k];
        }
        op += len;
    }
    return (size_t)(op - out);
}

/*
 * The HDF5 filter callback, reading only. h5py stores the chunk's
 * uncompressed size in cd_values[2]; without it, the output grows until
 * the chunk fits. Returns the decoded size, 0 on failure (HDF5's rule).
 */
static size_t lzf_hdf5_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                              size_t *buf_size, void **buf)
{
    if (!(flags & H5Z_FLAG_REVERSE))
        return 0;   /* clxcorr reads H5OINA files; it never writes LZF */
    size_t size = cd_nelmts >= 3 && cd_values[2] != 0 ? cd_values[2] : 2 * *buf_size;
    for (int tries = 0; tries < 24; tries++) {
        unsigned char *out = malloc(size ? size : 1);
        int too_small;
        if (!out)
            return 0;
        size_t got = lzf_decode(*buf, nbytes, out, size, &too_small);
        if (got > 0) {
            free(*buf);
            *buf = out;
            *buf_size = size;
            return got;
        }
        free(out);
        if (!too_small)
            return 0;
        size *= 2;
    }
    return 0;
}

static const H5Z_class2_t lzf_class = {
    H5Z_CLASS_T_VERS, (H5Z_filter_t)LZF_FILTER_ID, 0 /* no encoder */, 1 /* decoder */, "lzf (clxcorr)",
    NULL, NULL, lzf_hdf5_filter,
};

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void register_once(void)
{
    if (H5Zfilter_avail((H5Z_filter_t)LZF_FILTER_ID) <= 0)
        H5Zregister(&lzf_class);
}

void lzf_filter_register(void)
{
    pthread_once(&registered, register_once);
}
