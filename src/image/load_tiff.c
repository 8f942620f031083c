/*
 * load_tiff.c - TIFF files through libtiff (an image_format backend).
 *
 * Accepted: 8/16-bit unsigned and 32-bit IEEE float samples; greyscale
 * (MINISBLACK, or MINISWHITE for integers, inverted as max - v) or RGB,
 * converted to luminance; extra samples (alpha) ignored; strips or tiles,
 * contiguous or separate planes, any compression libtiff decodes. JPEG
 * compressed YCbCr is converted to RGB by libtiff. Every page (directory) of
 * a file is one image. The Orientation tag is ignored, as most readers do.
 *
 * MINISWHITE float images are refused: floats have no white level to invert
 * against, and silently negating them would flip the sign of a correlation.
 *
 * Pages whose pixels lie in the file as they lie in memory (uncompressed
 * greyscale strips, back to back) are read straight into the caller's
 * pixels by read_into; libtiff then only parses the directory.
 *
 * libtiff's errors are caught per file (tiff_io.c). A decode counts as
 * failed when libtiff says so by its return value or by any error on the
 * way: some codecs report corruption and still return data.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <unistd.h>

#include "image/loaders.h"
#include "image/tiff_io.h"
#include "runtime/message.h"

/* How one page is laid out, and what it becomes. */
struct tiff_layout {
    uint32_t width, height;
    uint16_t spp;            /* samples per pixel, extra samples included */
    unsigned sample_bytes;   /* 1, 2 or 4 */
    int separate;            /* PLANARCONFIG_SEPARATE */
    int rgb;                 /* luminance of samples 0..2, else sample 0 */
    int invert;              /* MINISWHITE */
    int tiled;
    uint32_t block_w, block_h;  /* tile size, or width x rows per strip */
    size_t row_bytes;           /* one row of one block, one plane */
    clx_pixel_type type;
};

/* One decoded block (strip or tile) and where its samples are. */
struct tiff_block {
    uint32_t x0, y0, w, h;       /* the part of the image it covers */
    const unsigned char *channel[3];
    size_t step;                 /* samples from one pixel to the next */
    size_t stride;               /* pixels from one row to the next */
};

/* libtiff's own words when it gave any (they name the cause), else `detail`. */
static int fail_corrupt(const clx_image_file *file, int page, const char *detail,
                        clx_message *msg)
{
    const struct tiff_handle *h = file->handle;
    char buf[64 + FILENAME_MAX];
    int libtiff = h && h->error[0];
    return msg_fail(msg, CLX_ERR_FORMAT, "%s: corrupt or truncated TIFF (%s%s)",
                    image_where(file, page, buf, sizeof buf), libtiff ? "libtiff: " : "",
                    libtiff ? h->error : detail);
}

static int fail_unsupported(const clx_image_file *file, int page, const char *what,
                            clx_message *msg)
{
    char buf[64 + FILENAME_MAX];
    return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s", image_where(file, page, buf, sizeof buf), what);
}

/* ------------------------------------------------------------------------ */
/* Tags                                                                      */

/* a * b, or 0 when it does not fit in a size_t (no block is ever empty). */
static size_t size_mul(size_t a, size_t b)
{
    return a != 0 && b > SIZE_MAX / a ? 0 : a * b;
}

static int layout_samples(const clx_image_file *file, int page, TIFF *tif,
                          struct tiff_layout *l, clx_message *msg)
{
    uint16_t bps = 0, format = SAMPLEFORMAT_UINT;
    char what[128];
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    if (format == SAMPLEFORMAT_INT)
        return fail_unsupported(file, page, "signed integer samples are not supported "
                                "(only 8/16-bit unsigned and 32-bit float)", msg);
    if (format == SAMPLEFORMAT_IEEEFP && bps == 32) {
        l->type = CLX_PIXEL_F32;
    } else if (format == SAMPLEFORMAT_IEEEFP) {
        snprintf(what, sizeof what, "%u-bit floating-point samples are not supported "
                 "(only 32-bit)", (unsigned)bps);
        return fail_unsupported(file, page, what, msg);
    } else if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_VOID) {
        snprintf(what, sizeof what, "sample format %u is not supported "
                 "(only 8/16-bit unsigned and 32-bit float)", (unsigned)format);
        return fail_unsupported(file, page, what, msg);
    } else if (bps == 8 || bps == 16) {
        l->type = bps == 8 ? CLX_PIXEL_U8 : CLX_PIXEL_U16;
    } else {
        snprintf(what, sizeof what, "%u-bit %ssamples are not supported "
                 "(only 8/16-bit unsigned and 32-bit float)", (unsigned)bps,
                 bps == 32 ? "integer " : "");
        return fail_unsupported(file, page, what, msg);
    }
    l->sample_bytes = bps / 8;
    return CLX_OK;
}

static int layout_colour(const clx_image_file *file, int page, TIFF *tif,
                         struct tiff_layout *l, clx_message *msg)
{
    uint16_t photometric, compression = COMPRESSION_NONE, planar = PLANARCONFIG_CONTIG;
    char what[128];
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    /* Photometric is required, but writers forget it; guess as libtiff does. */
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = l->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    l->separate = planar == PLANARCONFIG_SEPARATE;

    if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
        /* libtiff's JPEG codec converts to RGB when asked (per directory). */
        if (!TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB))
            return fail_corrupt(file, page, "libtiff cannot convert its YCbCr to RGB", msg);
        photometric = PHOTOMETRIC_RGB;
    }
    switch (photometric) {
    case PHOTOMETRIC_MINISWHITE:
        if (l->type == CLX_PIXEL_F32)
            return fail_unsupported(file, page, "MINISWHITE (inverted) floating-point images "
                                    "are not supported (floats have no white level)", msg);
        l->invert = 1;
        /* fall through */
    case PHOTOMETRIC_MINISBLACK:
        return CLX_OK;
    case PHOTOMETRIC_RGB:
        if (l->spp < 3) {
            snprintf(what, sizeof what, "RGB with %u samples per pixel", (unsigned)l->spp);
            return fail_corrupt(file, page, what, msg);
        }
        l->rgb = 1;
        return CLX_OK;
    case PHOTOMETRIC_PALETTE:
        return fail_unsupported(file, page, "palette (colour-mapped) images are not supported", msg);
    case PHOTOMETRIC_YCBCR:
        return fail_unsupported(file, page, "YCbCr images are not supported "
                                "unless JPEG-compressed", msg);
    default:
        snprintf(what, sizeof what, "photometric interpretation %u is not supported "
                 "(only greyscale and RGB)", (unsigned)photometric);
        return fail_unsupported(file, page, what, msg);
    }
}

static int layout_size(const clx_image_file *file, int page, TIFF *tif,
                       struct tiff_layout *l, clx_message *msg)
{
    uint32_t depth = 1;
    char what[160];
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l->width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l->height);
    if (l->width == 0 || l->height == 0) {
        snprintf(what, sizeof what, "image size %ux%u", (unsigned)l->width, (unsigned)l->height);
        return fail_corrupt(file, page, what, msg);
    }
    if (l->width > CLX_IMAGE_MAX_SIDE || l->height > CLX_IMAGE_MAX_SIDE
        || (uint64_t)l->width * l->height > CLX_IMAGE_MAX_PIXELS) {
        snprintf(what, sizeof what, "image of %ux%u pixels is too large "
                 "(at most %d per side and %llu pixels)", (unsigned)l->width,
                 (unsigned)l->height, CLX_IMAGE_MAX_SIDE, (unsigned long long)CLX_IMAGE_MAX_PIXELS);
        return fail_unsupported(file, page, what, msg);
    }
    if (TIFFGetField(tif, TIFFTAG_IMAGEDEPTH, &depth) && depth > 1)
        return fail_unsupported(file, page, "3-D images (ImageDepth > 1) are not supported", msg);
    return CLX_OK;
}

static int layout_blocks(const clx_image_file *file, int page, TIFF *tif,
                         struct tiff_layout *l, clx_message *msg)
{
    uint64_t libtiff_row;
    char what[160];
    l->tiled = TIFFIsTiled(tif);
    if (l->tiled) {
        l->block_w = l->block_h = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &l->block_w);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &l->block_h);
        libtiff_row = TIFFTileRowSize64(tif);
    } else {
        uint32_t rows = UINT32_MAX;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        l->block_w = l->width;
        l->block_h = rows < l->height ? rows : l->height;
        libtiff_row = TIFFScanlineSize64(tif);
    }
    if (l->block_w == 0 || l->block_h == 0 || l->block_w > CLX_IMAGE_MAX_SIDE
        || l->block_h > CLX_IMAGE_MAX_SIDE) {
        snprintf(what, sizeof what, "invalid %s size %ux%u", l->tiled ? "tile" : "strip",
                 (unsigned)l->block_w, (unsigned)l->block_h);
        return fail_corrupt(file, page, what, msg);
    }
    l->row_bytes = size_mul(size_mul(l->block_w, l->separate ? 1 : l->spp), l->sample_bytes);
    /* Where libtiff disagrees (subsampling, odd packing), our indexing would be wrong. */
    if (l->row_bytes == 0 || libtiff_row != l->row_bytes) {
        snprintf(what, sizeof what, "unsupported sample layout (rows of %llu bytes, "
                 "expected %zu)", (unsigned long long)libtiff_row, l->row_bytes);
        return fail_unsupported(file, page, what, msg);
    }
    /* A block is decoded whole, and libtiff counts its bytes in a signed size. */
    if (size_mul(l->row_bytes, l->block_h) == 0 || l->row_bytes * l->block_h > SIZE_MAX >> 1)
        return fail_unsupported(file, page, "strips or tiles too large", msg);
    return CLX_OK;
}

/*
 * The most bytes one stored byte decodes to, by compression: PackBits codes
 * a run of 128 bytes in 2; an LZW code (9 bits at the least) stands for at
 * most 4096 bytes; deflate codes 258 bytes in 2 bits; JPEG spends at least
 * 1 bit on each 8x8 block of its first component, whatever the others
 * (`pixel_bytes` bytes per pixel in all). ZSTD, LZMA and the rest have no
 * useful bound (ZSTD's RLE blocks already reach 2^15): they get 2^16, which
 * no real image needs.
 */
static uint64_t expansion_max(uint16_t compression, uint64_t pixel_bytes)
{
    switch (compression) {
    case COMPRESSION_NONE: return 1;
    case COMPRESSION_PACKBITS: return 64;
    case COMPRESSION_LZW: return 4096 * 8 / 9 + 1;
    case COMPRESSION_DEFLATE:
    case COMPRESSION_ADOBE_DEFLATE: return 1032;
    case COMPRESSION_JPEG: return 512 * pixel_bytes;
    default: return 1u << 16;
    }
}

/* Pages up to this size are decoded whatever their strips hold: allocating
 * them costs little, and libtiff then says precisely what is missing. */
#define STORED_CHECK_FROM ((uint64_t)1 << 20)

/*
 * A tiny file may claim a huge page; the page is refused here, before its
 * pixels are allocated, when its strips or tiles cannot hold it: the bytes
 * they take in the file (none counted past its end), expanded as much as
 * their compression can, must cover what they decode to.
 */
static int layout_stored(const clx_image_file *file, int page, TIFF *tif, const struct tiff_layout *l,
                         clx_message *msg)
{
    uint16_t compression = COMPRESSION_NONE;
    uint64_t *offsets = NULL, *counts = NULL, stored = 0, decoded = 0, file_size = UINT64_MAX;
    struct stat st;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (fstat(TIFFFileno(tif), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0)
        file_size = (uint64_t)st.st_size;
    uint32_t blocks = l->tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    if (!TIFFGetField(tif, l->tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) || !offsets
        || !TIFFGetField(tif, l->tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) || !counts)
        return fail_corrupt(file, page, "no strip or tile offsets", msg);
    /* The blocks blocks_walk decodes, and how much each gives. */
    int planes = l->separate && l->rgb ? 3 : 1;
    for (uint32_t y0 = 0; y0 < l->height; y0 += l->block_h) {
        uint32_t rows = l->tiled || l->height - y0 >= l->block_h ? l->block_h : l->height - y0;
        for (uint32_t x0 = 0; x0 < l->width; x0 += l->block_w)
            for (int p = 0; p < planes; p++) {
                uint32_t i = l->tiled ? TIFFComputeTile(tif, x0, y0, 0, (uint16_t)p)
                                      : TIFFComputeStrip(tif, y0, (uint16_t)p);
                if (i < blocks && offsets[i] < file_size)
                    stored += counts[i] < file_size - offsets[i] ? counts[i] : file_size - offsets[i];
                decoded += (uint64_t)l->row_bytes * rows;
            }
    }
    uint64_t ratio = expansion_max(compression, (uint64_t)(l->separate ? 1 : l->spp) * l->sample_bytes);
    if (decoded > STORED_CHECK_FROM && stored < UINT64_MAX / ratio && decoded > stored * ratio) {
        char what[192];
        snprintf(what, sizeof what, "its %s hold %llu bytes, too few for a %ux%u page of %llu bytes",
                 l->tiled ? "tiles" : "strips", (unsigned long long)stored, (unsigned)l->width,
                 (unsigned)l->height, (unsigned long long)decoded);
        return fail_corrupt(file, page, what, msg);
    }
    return CLX_OK;
}

static int layout_get(const clx_image_file *file, int page, struct tiff_layout *l,
                      clx_message *msg)
{
    TIFF *tif = ((struct tiff_handle *)file->handle)->tif;
    memset(l, 0, sizeof *l);
    int rc = layout_size(file, page, tif, l, msg);
    if (rc == CLX_OK)
        rc = layout_samples(file, page, tif, l, msg);
    if (rc == CLX_OK)
        rc = layout_colour(file, page, tif, l, msg);
    if (rc == CLX_OK)
        rc = layout_blocks(file, page, tif, l, msg);
    return rc;
}

/* Makes `page` libtiff's current directory and describes it. */
static int page_select(clx_image_file *file, int page, struct tiff_layout *l, clx_message *msg)
{
    struct tiff_handle *h = file->handle;
    tiff_io_reset(h);
    /*
     * The directory libtiff read on opening is used as it is: reading it
     * again cost a third of the time spent outside the pixels.
     */
    if (h->stale || TIFFCurrentDirectory(h->tif) != (tdir_t)page) {
        h->stale = 1;
        if (!TIFFSetDirectory(h->tif, (tdir_t)page))
            return fail_corrupt(file, page, "libtiff cannot read its directory", msg);
        h->stale = 0;
    }
    /*
     * Only errors from here on count: libtiff also reports directory
     * oddities it has worked around, and those did not stop it.
     */
    tiff_io_reset(h);
    return layout_get(file, page, l, msg);
}

/* ------------------------------------------------------------------------ */
/* Pixels                                                                    */

static unsigned sample_uint(const unsigned char *channel, size_t i, unsigned bytes)
{
    if (bytes == 1)
        return channel[i];
    uint16_t v;
    memcpy(&v, channel + 2 * i, 2);
    return v;
}

static float sample_float(const unsigned char *channel, size_t i)
{
    float v;
    memcpy(&v, channel + 4 * i, 4);
    return v;
}

static void block_to_uint(const struct tiff_block *b, const struct tiff_layout *l,
                          clx_image *image)
{
    unsigned max = l->sample_bytes == 1 ? 0xffu : 0xffffu;
    if (!l->rgb && !l->invert && b->step == 1 && l->sample_bytes == clx_pixel_size(l->type)) {
        /* Grayscale kept as it is stored, the usual pattern file: whole rows
         * at once (the per-pixel loop below made decoding 2x slower). */
        for (uint32_t y = 0; y < b->h; y++)
            memcpy((unsigned char *)image->pixels + ((size_t)(b->y0 + y) * l->width + b->x0) * l->sample_bytes,
                   b->channel[0] + (size_t)y * b->stride * l->sample_bytes, (size_t)b->w * l->sample_bytes);
        return;
    }
    for (uint32_t y = 0; y < b->h; y++) {
        size_t out = (size_t)(b->y0 + y) * l->width + b->x0;
        for (uint32_t x = 0; x < b->w; x++, out++) {
            size_t i = ((size_t)y * b->stride + x) * b->step;
            unsigned v = sample_uint(b->channel[0], i, l->sample_bytes);
            if (l->rgb)
                v = image_luma_uint(v, sample_uint(b->channel[1], i, l->sample_bytes),
                              sample_uint(b->channel[2], i, l->sample_bytes));
            else if (l->invert)
                v = max - v;
            if (l->type == CLX_PIXEL_U8)
                ((uint8_t *)image->pixels)[out] = (uint8_t)v;
            else
                ((uint16_t *)image->pixels)[out] = (uint16_t)v;
        }
    }
}

static void block_to_float(const struct tiff_block *b, const struct tiff_layout *l,
                           clx_image *image)
{
    float *pixels = image->pixels;
    for (uint32_t y = 0; y < b->h; y++) {
        size_t out = (size_t)(b->y0 + y) * l->width + b->x0;
        for (uint32_t x = 0; x < b->w; x++, out++) {
            size_t i = ((size_t)y * b->stride + x) * b->step;
            float v = sample_float(b->channel[0], i);
            /* In double: the weights sum to 1, so finite inputs stay finite. */
            if (l->rgb)
                v = (float)(0.299 * v + 0.587 * sample_float(b->channel[1], i)
                            + 0.114 * sample_float(b->channel[2], i));
            pixels[out] = v;
        }
    }
}

/* Decodes plane `plane` of the block at (x0, y0) into buf. */
static int block_decode(const clx_image_file *file, int page, const struct tiff_layout *l,
                        uint32_t x0, uint32_t y0, uint16_t plane, unsigned char *buf,
                        clx_message *msg)
{
    struct tiff_handle *h = file->handle;
    uint32_t rows = l->tiled || l->height - y0 >= l->block_h ? l->block_h : l->height - y0;
    tmsize_t want = (tmsize_t)(l->row_bytes * rows), got;
    uint32_t index;
    if (l->tiled) {
        index = TIFFComputeTile(h->tif, x0, y0, 0, plane);
        got = TIFFReadEncodedTile(h->tif, index, buf, want);
    } else {
        index = TIFFComputeStrip(h->tif, y0, plane);
        got = TIFFReadEncodedStrip(h->tif, index, buf, want);
    }
    if (got == want && !h->failed)
        return CLX_OK;
    char detail[128];
    snprintf(detail, sizeof detail, "%s %u decoded to %lld of %lld bytes",
             l->tiled ? "tile" : "strip", (unsigned)index, (long long)got, (long long)want);
    return fail_corrupt(file, page, detail, msg);
}

/* Decodes every block into buf[0..planes-1] (one block each) and converts it into image. */
static int blocks_walk(const clx_image_file *file, int page, const struct tiff_layout *l,
                       unsigned char *const *buf, int planes, clx_image *image, clx_message *msg)
{
    struct tiff_block b;
    b.step = l->separate ? 1 : l->spp;
    b.stride = l->block_w;
    for (int c = 0; c < 3; c++)
        b.channel[c] = l->separate ? buf[c < planes ? c : 0] : buf[0] + (size_t)c * l->sample_bytes;
    for (b.y0 = 0; b.y0 < l->height; b.y0 += l->block_h) {
        b.h = l->height - b.y0 < l->block_h ? l->height - b.y0 : l->block_h;
        for (b.x0 = 0; b.x0 < l->width; b.x0 += l->block_w) {
            b.w = l->width - b.x0 < l->block_w ? l->width - b.x0 : l->block_w;
            for (int p = 0; p < planes; p++) {
                int rc = block_decode(file, page, l, b.x0, b.y0, (uint16_t)p, buf[p], msg);
                if (rc != CLX_OK)
                    return rc;
            }
            if (l->type == CLX_PIXEL_F32)
                block_to_float(&b, l, image);
            else
                block_to_uint(&b, l, image);
        }
    }
    return CLX_OK;
}

static int blocks_read(const clx_image_file *file, int page, const struct tiff_layout *l,
                       clx_image *image, clx_message *msg)
{
    /* Separate planes: one block per colour used, read side by side. */
    int planes = l->separate && l->rgb ? 3 : 1;
    size_t block_bytes = l->row_bytes * l->block_h;
    unsigned char *buf[3] = { NULL, NULL, NULL };
    int rc = CLX_OK;
    for (int p = 0; p < planes && rc == CLX_OK; p++)
        if (!(buf[p] = malloc(block_bytes)))
            rc = msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory for a %zu-byte %s",
                          file->path, block_bytes, l->tiled ? "tile" : "strip");
    if (rc == CLX_OK)
        rc = blocks_walk(file, page, l, buf, planes, image, msg);
    for (int p = 0; p < 3; p++)
        free(buf[p]);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Straight into the caller's pixels                                         */

/* The largest offset pread() takes: off_t is signed, of 32 or 64 bits. */
#define OFF_T_MAX ((uint64_t)(sizeof(off_t) == 8 ? INT64_MAX : INT32_MAX))

/*
 * Whether the page's pixels lie in the file exactly as in memory, and from
 * where: uncompressed greyscale of one sample per pixel, in strips stored in
 * order and back to back, each exactly as long as its rows. Such a page (the
 * usual pattern file) is read into the caller's pixels at once, without
 * libtiff's strip buffer and the copies from it, which took most of the time.
 */
static int strips_contiguous(TIFF *tif, const struct tiff_layout *l, uint64_t *start)
{
    uint16_t compression = COMPRESSION_NONE, fill = FILLORDER_MSB2LSB;
    uint64_t *offsets = NULL, *counts = NULL;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    /* LSB2MSB: libtiff reverses the bits of every byte. */
    TIFFGetFieldDefaulted(tif, TIFFTAG_FILLORDER, &fill);
    if (compression != COMPRESSION_NONE || fill != FILLORDER_MSB2LSB || l->tiled || l->spp != 1
        || l->invert)
        return 0;
    if (!TIFFGetField(tif, TIFFTAG_STRIPOFFSETS, &offsets) || !offsets
        || !TIFFGetField(tif, TIFFTAG_STRIPBYTECOUNTS, &counts) || !counts)
        return 0;
    uint32_t strips = TIFFNumberOfStrips(tif);
    if (strips != l->height / l->block_h + (l->height % l->block_h != 0))
        return 0;
    uint64_t next = offsets[0];
    for (uint32_t s = 0; s < strips; s++) {
        uint32_t rows = l->height - s * l->block_h < l->block_h ? l->height - s * l->block_h : l->block_h;
        if (offsets[s] != next || counts[s] != (uint64_t)rows * l->row_bytes)
            return 0;
        next += counts[s];
    }
    /* Out of pread's reach: libtiff's path says what is wrong with it. */
    if (offsets[0] > OFF_T_MAX - (uint64_t)l->height * l->row_bytes)
        return 0;
    *start = offsets[0];
    return 1;
}

/* Reads bytes [start, start + size) of the file into buf; a short read is a truncated file. */
static int file_read_at(const clx_image_file *file, int page, int fd, uint64_t start, void *buf,
                        size_t size, clx_message *msg)
{
    size_t done = 0;
    while (done < size) {
        /* Several reads: one returns at most about 2 GB on Linux. */
        ssize_t n = pread(fd, (unsigned char *)buf + done, size - done, (off_t)(start + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            char buf_where[64 + FILENAME_MAX];
            return msg_fail(msg, CLX_ERR_IO, "%s: %s", image_where(file, page, buf_where, sizeof buf_where),
                            strerror(errno));
        }
        if (n == 0) {
            char detail[128];
            snprintf(detail, sizeof detail, "its pixel data ends after %zu of %zu bytes", done, size);
            return fail_corrupt(file, page, detail, msg);
        }
        done += (size_t)n;
    }
    return CLX_OK;
}

/*
 * Page `page` selected and checked against dst; where its strips lie in the
 * file as in memory, CLX_OK with *start where its pixels begin, else
 * IMAGE_READ_DECODE (or the check's error).
 */
static int page_in_place(clx_image_file *file, int page, const clx_image *dst, struct tiff_layout *l,
                         uint64_t *start, clx_message *msg)
{
    struct tiff_handle *h = file->handle;
    int rc = page_select(file, page, l, msg);
    if (rc == CLX_OK)
        rc = image_fit_check(file, page, (int)l->width, (int)l->height, l->type, dst, msg);
    if (rc == CLX_OK && !strips_contiguous(h->tif, l, start))
        rc = IMAGE_READ_DECODE;
    return rc;
}

static int tiff_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    struct tiff_handle *h = file->handle;
    struct tiff_layout l;
    uint64_t start;
    int rc = page_in_place(file, page, dst, &l, &start, msg);
    if (rc != CLX_OK)
        return rc;
    size_t n = (size_t)l.width * l.height;
    rc = file_read_at(file, page, TIFFFileno(h->tif), start, dst->pixels, n * l.sample_bytes, msg);
    if (rc != CLX_OK)
        return rc;
    if (TIFFIsByteSwapped(h->tif) && l.sample_bytes == 2)
        TIFFSwabArrayOfShort(dst->pixels, (tmsize_t)n);
    else if (TIFFIsByteSwapped(h->tif) && l.sample_bytes == 4)
        TIFFSwabArrayOfLong(dst->pixels, (tmsize_t)n);
    if (l.type != dst->type)
        image_widen(dst, l.type);
    else if (l.type == CLX_PIXEL_F32)
        rc = image_finite_check(file, page, dst, msg);
    return rc;
}

/*
 * The rows wanted alone, where the page's strips lie in the file as in
 * memory and its pixels are integers of dst's type (widening and the float
 * check look at every row): one read per run of rows. Else the whole page.
 */
static int tiff_read_rows_into(clx_image_file *file, int page, clx_image *dst, const clx_rows *rows, size_t nrows,
                               clx_message *msg)
{
    struct tiff_handle *h = file->handle;
    struct tiff_layout l;
    uint64_t start;
    int rc = page_in_place(file, page, dst, &l, &start, msg);
    if (rc != CLX_OK)
        return rc;
    if (l.type != dst->type || l.type == CLX_PIXEL_F32)
        return IMAGE_READ_DECODE;
    size_t row_bytes = (size_t)l.width * l.sample_bytes;
    /* A file cut short, even in rows nobody wants, is reported as the
     * whole page's read reports it. */
    struct stat st;
    if (fstat(TIFFFileno(h->tif), &st) != 0 || (uint64_t)st.st_size < start + (uint64_t)l.height * row_bytes)
        return IMAGE_READ_DECODE;
    for (size_t i = 0; i < nrows && rc == CLX_OK; i++) {
        unsigned char *at = (unsigned char *)dst->pixels + (size_t)rows[i].first * row_bytes;
        size_t bytes = (size_t)rows[i].count * row_bytes;
        rc = file_read_at(file, page, TIFFFileno(h->tif), start + (uint64_t)rows[i].first * row_bytes, at, bytes,
                          msg);
        if (rc == CLX_OK && TIFFIsByteSwapped(h->tif) && l.sample_bytes == 2)
            TIFFSwabArrayOfShort((uint16_t *)(void *)at, (tmsize_t)(bytes / 2));
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The backend                                                               */

static int tiff_probe(const char *path, const unsigned char *head, size_t length)
{
    if (length < 4)
        return 0;
    /* Classic TIFF (42) and BigTIFF (43), in either byte order. */
    return (head[0] == 'I' && head[1] == 'I' && (head[2] == 42 || head[2] == 43) && head[3] == 0)
        || (head[0] == 'M' && head[1] == 'M' && head[2] == 0 && (head[3] == 42 || head[3] == 43));
}

static int tiff_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    struct tiff_handle *h = calloc(1, sizeof *h);
    if (!h)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", file->path);
    h->path = file->path;
    file->handle = h;
    /* "m": read(), not mmap(): a file truncated while we read it must give an error, not SIGBUS. */
    h->tif = tiff_io_open(h, "rm");
    int rc = h->tif ? CLX_OK : fail_corrupt(file, 0, "libtiff cannot open it", msg);
    if (rc == CLX_OK) {
        /*
         * Counting walks the whole chain of directories: a broken link is
         * refused here rather than silently cutting the series short.
         */
        tiff_io_reset(h);
        uint64_t pages = TIFFNumberOfDirectories(h->tif);
        if (h->failed || pages < 1 || pages > INT_MAX)
            rc = fail_corrupt(file, 0, "libtiff cannot count its pages", msg);
        file->pages = (int)pages;
    }
    if (rc != CLX_OK) {
        if (h->tif)
            TIFFClose(h->tif);
        free(h);
        file->handle = NULL;
        return rc;
    }
    return CLX_OK;
}

static int tiff_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    struct tiff_layout l;
    int rc = page_select(file, page, &l, msg);
    if (rc == CLX_OK)
        rc = layout_stored(file, page, ((struct tiff_handle *)file->handle)->tif, &l, msg);
    if (rc != CLX_OK)
        return rc;
    clx_message alloc_msg;
    rc = clx_image_alloc(image, (int)l.width, (int)l.height, l.type, &alloc_msg);
    if (rc != CLX_OK)
        return msg_fail(msg, rc, "%s: %s", file->path, alloc_msg.text);
    ((struct tiff_handle *)file->handle)->stale = 1;   /* codec state: read it afresh next time */
    rc = blocks_read(file, page, &l, image, msg);
    if (rc == CLX_OK && l.type == CLX_PIXEL_F32)
        rc = image_finite_check(file, page, image, msg);
    return rc;
}

static void tiff_close(clx_image_file *file)
{
    struct tiff_handle *h = file->handle;
    if (!h)
        return;
    TIFFClose(h->tif);
    free(h);
    file->handle = NULL;
}

const struct image_format image_format_tiff = {
    .name = "TIFF",
    .probe = tiff_probe,
    .open = tiff_open,
    .read = tiff_read,
    .read_into = tiff_read_into,
    .read_rows_into = tiff_read_rows_into,
    .close = tiff_close,
};
