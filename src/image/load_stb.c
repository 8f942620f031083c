/*
 * load_stb.c - PNG, JPEG and BMP through stb_image (an image_format
 * backend; one page per file).
 *
 * PNG keeps 8 or 16 bits; JPEG and BMP give 8 bits. Colour becomes
 * luminance (image_luma_uint); alpha is ignored.
 *
 * stb_image is compiled here (Debian's libstb is not linked) and kept static
 * so that it cannot clash with another copy in the application. Its failure
 * reason is thread-local under C11, so two threads may decode at once.
 * Files are fed to it through callbacks that notice when it reads past the
 * end: its BMP and JPEG decoders fill a truncated file with zeros and report
 * success, and a zero-filled image must not pass as data. What stb does
 * not check in a JPEG's structure or a BMP's palette is checked before it
 * decodes them (stb_check.c).
 * stb_image is not hardened against hostile files, whatever is done here.
 *
 * PGM and PPM are read by load_pnm.c, not by stb_image 2.27, whose loader
 * neither checks for truncated pixel data nor byte-swaps 16-bit samples.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image/loaders.h"
#include "image/stb_check.h"
#include "runtime/message.h"

/*
 * stb_image allocates as a file says, before reading the data that would
 * bear it out: a PNG chunk may claim a gigabyte in a file of a hundred
 * bytes. Its allocations come here, and anything larger than the decode in
 * progress can need is refused (the limit is set per decode, per thread).
 * What malloc gives is zeroed: stb leaves parts of its buffers unwritten on
 * some corrupt files, and its output must still depend on the file alone.
 */
static _Thread_local size_t stb_alloc_limit;
static _Thread_local size_t stb_alloc_refused;   /* the size of a refused allocation, or 0 */

static void *stb_malloc(size_t size)
{
    if (size <= stb_alloc_limit)
        return calloc(1, size);
    stb_alloc_refused = size;
    return NULL;
}

static void *stb_realloc(void *p, size_t size)
{
    if (size <= stb_alloc_limit)
        return realloc(p, size);
    stb_alloc_refused = size;
    return NULL;
}

/* What parsing a header needs (a JPEG's decoder state is about 20 KB). */
#define STB_HEADER_ALLOC ((size_t)1 << 20)

#define STBI_MALLOC(size) stb_malloc(size)
#define STBI_REALLOC(p, size) stb_realloc(p, size)
#define STBI_FREE(p) free(p)
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_NO_LINEAR
#define STBI_FAILURE_USERMSG
#define STBI_MAX_DIMENSIONS CLX_IMAGE_MAX_SIDE

/*
 * Third-party code: its warnings are not ours to fix. -Wunused-function
 * stays off for the whole file: GCC checks it at the end of the file, after
 * the pop, and with STBI_ONLY_* stb declares static functions it never
 * defines.
 */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image.h>
#pragma GCC diagnostic pop

/* ------------------------------------------------------------------------ */
/* Recognising the formats                                                   */

static const unsigned char png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

struct image_kind {
    const char *name;     /* for messages */
    /*
     * The most pixels one byte of the file can code, whatever the content;
     * more is a corrupt or lying header. PNG: deflate codes at most 258
     * bytes in 2 bits, of samples of 1 bit at the least. JPEG: every 8x8
     * block costs at least 1 bit (its DC code; jpeg_check refuses a
     * component without a scan). BMP: stb reads it uncompressed, 1 bit per
     * pixel at the least.
     */
    unsigned pixels_per_byte;
};

static const struct image_kind kind_png = { "PNG", 1032 * 8 }, kind_jpeg = { "JPEG", 64 * 8 },
                               kind_bmp = { "BMP", 8 };

static const struct image_kind *kind_of(const unsigned char *head, size_t length)
{
    if (length >= 8 && memcmp(head, png_magic, 8) == 0)
        return &kind_png;
    if (length >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff)
        return &kind_jpeg;
    /* "BM" alone is too weak (a text file may start so): check the DIB header size too. */
    if (length >= 16 && head[0] == 'B' && head[1] == 'M' && head[15] == 0
        && (head[14] == 12 || head[14] == 40 || head[14] == 52 || head[14] == 56
            || head[14] == 108 || head[14] == 124))
        return &kind_bmp;
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* stb_image: PNG, JPEG, BMP                                                 */

struct stb_source {
    FILE *f;
    int past_end;   /* stb wanted bytes after the end of the file */
    int error;      /* errno of a failed read or seek, 0 if none */
};

static int source_read(void *user, char *data, int size)
{
    struct stb_source *s = user;
    size_t n = fread(data, 1, (size_t)size, s->f);
    if (n == 0 && size > 0) {
        if (ferror(s->f))
            s->error = errno ? errno : EIO;
        else
            s->past_end = 1;
    }
    return (int)n;
}

static void source_skip(void *user, int n)
{
    struct stb_source *s = user;
    if (fseek(s->f, n, SEEK_CUR) != 0)
        s->error = errno;
}

static int source_eof(void *user)
{
    struct stb_source *s = user;
    int c = getc(s->f);
    if (c == EOF)
        return 1;
    ungetc(c, s->f);
    return 0;
}

static const stbi_io_callbacks source_io = { source_read, source_skip, source_eof };

/* Each stb call parses the file from its start. */
static void source_rewind(struct stb_source *s)
{
    s->past_end = 0;
    if (fseek(s->f, 0, SEEK_SET) != 0)
        s->error = errno;
}

static int stb_fail(const char *path, const char *kind, const struct stb_source *src,
                    clx_message *msg)
{
    if (src->error)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(src->error));
    if (stb_alloc_refused)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: corrupt %s (stb_image asked for %zu bytes, more than "
                        "its image can need)", path, kind, stb_alloc_refused);
    const char *reason = stbi_failure_reason();
    return msg_fail(msg, CLX_ERR_FORMAT, "%s: cannot decode %s (stb_image: %s)", path, kind,
                    reason && *reason ? reason : "unknown error");
}

/* The size of the file; UINT64_MAX when it is not a regular file (no limit can be known). */
static uint64_t file_bytes(FILE *f)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
        return UINT64_MAX;
    return (uint64_t)st.st_size;
}

/*
 * Before stb allocates: the file must be large enough to hold the image its
 * header claims, and the decoded samples (stb keeps every channel, at 8 or
 * 16 bits) no larger than the largest image clxcorr takes.
 */
static int stb_size_check(const char *path, const struct image_kind *k, FILE *f, int width, int height,
                          int channels, clx_message *msg)
{
    uint64_t pixels = (uint64_t)width * (uint64_t)height, bytes = file_bytes(f);
    if (bytes < UINT64_MAX / k->pixels_per_byte && pixels > bytes * k->pixels_per_byte)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: corrupt or truncated %s (an image of %dx%d pixels "
                        "cannot be coded in %llu bytes)", path, k->name, width, height,
                        (unsigned long long)bytes);
    if (channels < 1 || channels > 4 || pixels * (uint64_t)channels * 2 > CLX_IMAGE_MAX_BYTES)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s of %dx%d pixels with %d channels is too large to "
                        "decode (at most %llu bytes)", path, k->name, width, height, channels,
                        (unsigned long long)CLX_IMAGE_MAX_BYTES);
    return CLX_OK;
}

/*
 * The largest allocation stb needs to decode a width x height image from f:
 * its buffers hold at most 8 bytes per pixel (4 channels of 16 bits) plus
 * the padding of 32x32 JPEG blocks, twice that while its inflate output
 * grows, and up to twice the file while its PNG data is gathered.
 */
static size_t stb_decode_alloc(FILE *f, int width, int height)
{
    uint64_t bytes = file_bytes(f);
    if (bytes > UINT64_MAX / 4)
        return SIZE_MAX;
    uint64_t limit = 16 * ((uint64_t)width + 32) * ((uint64_t)height + 32) + 2 * bytes + STB_HEADER_ALLOC;
    return limit < SIZE_MAX ? (size_t)limit : SIZE_MAX;
}

static int stb_decode(const char *path, const struct image_kind *k, struct stb_source *src,
                      clx_image *image, clx_message *msg)
{
    const char *kind = k->name;
    int width, height, channels;
    const char *why = k == &kind_jpeg ? jpeg_check(src->f) : k == &kind_bmp ? bmp_check(src->f) : NULL;
    if (why)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: cannot decode %s (%s)", path, kind, why);
    source_rewind(src);
    stb_alloc_limit = STB_HEADER_ALLOC;
    stb_alloc_refused = 0;
    if (!stbi_info_from_callbacks(&source_io, src, &width, &height, &channels))
        return stb_fail(path, kind, src, msg);
    /* stb 2.27 gives a top-down BMP's height as stored, negative; its loader flips the sign. */
    if (k == &kind_bmp && height < 0 && height > INT_MIN)
        height = -height;
    int rc = image_size_check(path, kind, width, height, msg);
    if (rc == CLX_OK)
        rc = stb_size_check(path, k, src->f, width, height, channels, msg);
    if (rc != CLX_OK)
        return rc;
    source_rewind(src);
    int wide = stbi_is_16_bit_from_callbacks(&source_io, src);

    int w, h;
    source_rewind(src);
    stb_alloc_limit = stb_decode_alloc(src->f, width, height);
    void *data = wide ? (void *)stbi_load_16_from_callbacks(&source_io, src, &w, &h, &channels, 0)
                      : (void *)stbi_load_from_callbacks(&source_io, src, &w, &h, &channels, 0);
    stb_alloc_limit = 0;
    if (!data || src->error) {
        stbi_image_free(data);
        return stb_fail(path, kind, src, msg);
    }
    if (src->past_end)
        rc = msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated %s (data ends before the image does)",
                      path, kind);
    else if (w != width || h != height || channels < 1 || channels > 4)
        rc = msg_fail(msg, CLX_ERR_FORMAT, "%s: cannot decode %s (stb_image: header and data "
                      "disagree)", path, kind);
    else
        rc = image_make(path, w, h, wide ? CLX_PIXEL_U16 : CLX_PIXEL_U8, image, msg);
    size_t row = (size_t)w * channels * (wide ? 2 : 1);
    for (int y = 0; rc == CLX_OK && y < h; y++)
        image_row_from_samples((const unsigned char *)data + (size_t)y * row, channels, y, image);
    stbi_image_free(data);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The backend                                                               */

static int stb_probe(const char *path, const unsigned char *head, size_t length)
{
    return kind_of(head, length) != NULL;
}

static int stb_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    /* Everything is decided when reading: a file is one image, and cheap to reopen. */
    file->pages = 1;
    file->handle = NULL;
    return CLX_OK;
}

static int stb_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    const char *path = file->path;
    struct stb_source src = { fopen(path, "rb"), 0, 0 };
    if (!src.f)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    unsigned char head[16];
    size_t length = fread(head, 1, sizeof head, src.f);
    const struct image_kind *kind = kind_of(head, length);
    int rc;
    if (!kind)   /* it changed since it was opened */
        rc = msg_fail(msg, CLX_ERR_FORMAT, "%s: unsupported image format (not TIFF, PNG, "
                      "JPEG, BMP, PGM or an EBSD pattern file)", path);
    else if (fseek(src.f, 0, SEEK_SET) != 0)
        rc = msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    else
        rc = stb_decode(path, kind, &src, image, msg);
    fclose(src.f);
    return rc;
}

static void stb_close(clx_image_file *file)
{
}

const struct image_format image_format_stb = {
    .name = "stb_image",
    .probe = stb_probe,
    .open = stb_open,
    .read = stb_read,
    .close = stb_close,
};
