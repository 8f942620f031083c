/*
 * load_pnm.c - binary PGM (P5) and PPM (P6), 8 or 16 bits (an image_format
 * backend; one page per file).
 *
 * Read here rather than by stb_image 2.27, whose loader neither checks for
 * truncated pixel data nor byte-swaps 16-bit samples. Samples are kept as
 * stored, not rescaled to the maxval; PPM colour becomes luminance
 * (image_luma_uint). ASCII P2/P3 are not supported.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image/loaders.h"
#include "runtime/message.h"

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * The next header number, after whitespace and '#' comments. Returns the
 * character that ended it (the caller checks it), or EOF when there is no
 * number. Values above 2^24 are refused early, which also rules out overflow.
 */
static int pnm_number(FILE *f, unsigned long *value)
{
    int c = getc(f);
    for (;;) {
        if (c == '#')
            while (c != '\n' && c != '\r' && c != EOF)
                c = getc(f);
        else if (is_space(c))
            c = getc(f);
        else
            break;
    }
    if (c < '0' || c > '9')
        return EOF;
    for (*value = 0; c >= '0' && c <= '9'; c = getc(f)) {
        *value = *value * 10 + (unsigned long)(c - '0');
        if (*value > (1ul << 24))
            return EOF;
    }
    return c;
}

static int pnm_header(FILE *f, unsigned long *width, unsigned long *height, unsigned long *maxval)
{
    getc(f);   /* 'P', checked by pnm_probe */
    getc(f);   /* '5' or '6' */
    int c = pnm_number(f, width);
    if (c == '#')
        ungetc(c, f);
    else if (!is_space(c))
        return 0;
    c = pnm_number(f, height);
    if (c == '#')
        ungetc(c, f);
    else if (!is_space(c))
        return 0;
    /* Exactly one whitespace character separates the maxval from the pixels. */
    c = pnm_number(f, maxval);
    return is_space(c) && *maxval >= 1 && *maxval <= 65535;
}

static int pnm_decode(const char *path, const char *kind, int channels, FILE *f, clx_image *image,
                      clx_message *msg)
{
    unsigned long width, height, maxval;
    if (!pnm_header(f, &width, &height, &maxval))
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: cannot decode %s (bad header: expected "
                        "width, height and a maxval of 1 to 65535)", path, kind);
    int rc = image_size_check(path, kind, (long long)width, (long long)height, msg);
    if (rc != CLX_OK)
        return rc;
    int wide = maxval > 255;
    size_t samples = (size_t)width * channels, bytes = samples * (wide ? 2 : 1);
    /* The pixels are stored as they are: a file too short for them is refused before allocating. */
    struct stat st;
    long here = ftell(f);
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && here >= 0 && st.st_size >= here) {
        uint64_t left = (uint64_t)st.st_size - (uint64_t)here;
        if (left < (uint64_t)bytes * height)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated %s (pixel data ends in row %llu of %lu)", path,
                            kind, (unsigned long long)(left / bytes), height);
    }
    rc = image_make(path, (int)width, (int)height, wide ? CLX_PIXEL_U16 : CLX_PIXEL_U8,
                    image, msg);
    if (rc != CLX_OK)
        return rc;

    unsigned char *row = malloc(bytes);
    uint16_t *row16 = wide ? malloc(samples * sizeof *row16) : NULL;
    if (!row || (wide && !row16))
        rc = msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
    for (unsigned long y = 0; rc == CLX_OK && y < height; y++) {
        if (fread(row, 1, bytes, f) != bytes) {
            if (ferror(f))
                rc = msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
            else
                rc = msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated %s (pixel data ends in "
                              "row %lu of %lu)", path, kind, y, height);
            break;
        }
        /* 16-bit samples are big-endian whatever the machine. */
        for (size_t i = 0; wide && i < samples; i++)
            row16[i] = (uint16_t)(row[2 * i] << 8 | row[2 * i + 1]);
        image_row_from_samples(wide ? (const void *)row16 : row, channels, (int)y, image);
    }
    free(row16);
    free(row);
    return rc;
}

static int pnm_probe(const char *path, const unsigned char *head, size_t length)
{
    return length >= 3 && head[0] == 'P' && (head[1] == '5' || head[1] == '6') && is_space(head[2]);
}

static int pnm_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    file->pages = 1;
    file->handle = NULL;
    return CLX_OK;
}

static int pnm_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    const char *path = file->path;
    unsigned char head[3];
    FILE *f = fopen(path, "rb");
    if (!f)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    int rc;
    if (fread(head, 1, sizeof head, f) != sizeof head || !pnm_probe(NULL, head, sizeof head))
        rc = msg_fail(msg, CLX_ERR_FORMAT, "%s: not a PGM or PPM file any more", path);
    else if (fseek(f, 0, SEEK_SET) != 0)
        rc = msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    else
        rc = pnm_decode(path, head[1] == '5' ? "PGM" : "PPM", head[1] == '5' ? 1 : 3, f, image, msg);
    fclose(f);
    return rc;
}

static void pnm_close(clx_image_file *file)
{
}

const struct image_format image_format_pnm = {
    .name = "pnm",
    .probe = pnm_probe,
    .open = pnm_open,
    .read = pnm_read,
    .close = pnm_close,
};
