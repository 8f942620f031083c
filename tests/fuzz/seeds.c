/*
 * seeds.c - writes the image fuzzer's seed corpus (`make fuzz-seeds`):
 * small valid files of every layout the loader accepts, so that the fuzzer
 * starts from inside each decoder rather than at its magic number.
 *
 *   clxcorr-fuzz-seeds DIR
 *
 * Images are 16x12 (the size fuzz_image.c loads into), a few 20x12 so that
 * 16x16 tiles overhang. TIFF through libtiff, in each layout and codec it
 * is configured with; PNG and BMP written here byte by byte, to reach the
 * colour types, bit depths and interlacing no small writer offers; JPEG and
 * compressed PNG through stb_image_write; PGM and PPM by hand. Pixel values
 * are a smooth pattern, so that the compressed files stay small.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#include "png_stored.h"

#include "stb_write_impl.h"

#define W 16
#define H 12

static const char *dir;

static void die(const char *what, const char *name)
{
    fprintf(stderr, "clxcorr-fuzz-seeds: %s: %s\n", name, what);
    exit(1);
}

static const char *path_of(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* Sample s of pixel (x, y) on a scale of 0..max. */
static unsigned value(int x, int y, int s, unsigned max)
{
    return (unsigned)(((x * 5 + y * 9 + s * 40) % 256) * (unsigned long)max / 255);
}

/* ------------------------------------------------------------------------ */
/* TIFF                                                                      */

struct tiff_seed {
    const char *name;
    const char *mode;          /* "w", "wb" (big-endian), "w8" (BigTIFF) */
    int width, bps, spp, format, photometric, planar, compression, predictor;
    int tile;                  /* tile side, or 0 for strips */
    int rows_per_strip;        /* 0: the whole image in one strip */
};

static void tiff_sample(unsigned char *p, const struct tiff_seed *t, unsigned v255)
{
    if (t->format == SAMPLEFORMAT_IEEEFP) {
        float f = (float)v255 / 8.0f - 3.0f;
        memcpy(p, &f, 4);
    } else if (t->bps == 16) {
        uint16_t u = (uint16_t)(v255 * 257u);
        memcpy(p, &u, 2);
    } else {
        *p = (unsigned char)v255;
    }
}

/* One block (strip or tile) of plane `plane` starting at (x0, y0), bw x bh pixels. */
static void tiff_block(unsigned char *buf, const struct tiff_seed *t, int page, int x0, int y0, int bw, int bh,
                       int plane)
{
    int bytes = t->bps / 8, per_pixel = t->planar == PLANARCONFIG_SEPARATE ? 1 : t->spp;
    for (int y = 0; y < bh; y++)
        for (int x = 0; x < bw; x++)
            for (int s = 0; s < per_pixel; s++) {
                int sample = t->planar == PLANARCONFIG_SEPARATE ? plane : s;
                unsigned v = value(x0 + x + page * 3, y0 + y, sample, 255);
                tiff_sample(buf + ((size_t)(y * bw + x) * per_pixel + s) * bytes, t, v);
            }
}

static void tiff_page(TIFF *tif, const struct tiff_seed *t, int page)
{
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, t->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, H);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, t->bps);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, t->spp);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, t->format);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, t->photometric);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, t->planar);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, t->compression);
    if (t->predictor)
        TIFFSetField(tif, TIFFTAG_PREDICTOR, t->predictor);
    if (t->spp == 2 || t->spp == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (t->compression == COMPRESSION_JPEG && t->photometric == PHOTOMETRIC_YCBCR)
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    int planes = t->planar == PLANARCONFIG_SEPARATE ? t->spp : 1;
    if (t->tile) {
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, t->tile);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, t->tile);
        unsigned char *buf = calloc(1, (size_t)TIFFTileSize(tif));
        for (int p = 0; p < planes; p++)
            for (int y = 0; y < H; y += t->tile)
                for (int x = 0; x < t->width; x += t->tile) {
                    tiff_block(buf, t, page, x, y, t->tile, t->tile, p);
                    if (TIFFWriteTile(tif, buf, (uint32_t)x, (uint32_t)y, 0, (uint16_t)p) < 0)
                        die("cannot write a tile", t->name);
                }
        free(buf);
    } else {
        int rows = t->rows_per_strip ? t->rows_per_strip : H;
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows);
        unsigned char *buf = calloc(1, (size_t)TIFFStripSize(tif));
        for (int p = 0; p < planes; p++)
            for (int y = 0; y < H; y += rows) {
                int h = H - y < rows ? H - y : rows;
                tiff_block(buf, t, page, 0, y, t->width, h, p);
                tmsize_t size = (tmsize_t)t->width * h * (t->bps / 8) * (t->planar == PLANARCONFIG_SEPARATE ? 1 : t->spp);
                if (TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, (uint32_t)y, (uint16_t)p), buf, size) < 0)
                    die("cannot write a strip", t->name);
            }
        free(buf);
    }
    if (!TIFFWriteDirectory(tif))
        die("cannot write a directory", t->name);
}

static void tiff_write(const struct tiff_seed *pages, int count)
{
    if (!TIFFIsCODECConfigured((uint16_t)pages[0].compression)) {
        fprintf(stderr, "clxcorr-fuzz-seeds: %s: skipped, libtiff has no codec %d\n", pages[0].name,
                pages[0].compression);
        return;
    }
    TIFF *tif = TIFFOpen(path_of(pages[0].name), pages[0].mode);
    if (!tif)
        die("cannot create", pages[0].name);
    for (int p = 0; p < count; p++)
        tiff_page(tif, &pages[p], p);
    TIFFClose(tif);
}

#define GREY PHOTOMETRIC_MINISBLACK
#define UINT SAMPLEFORMAT_UINT
#define CONTIG PLANARCONFIG_CONTIG
#define SEPARATE PLANARCONFIG_SEPARATE

static const struct tiff_seed tiff_seeds[] = {
    { "u8-strips.tif", "w", W, 8, 1, UINT, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 4 },
    { "u16.tif", "w", W, 16, 1, UINT, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
    { "u16-bigendian.tif", "wb", W, 16, 1, UINT, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 5 },
    { "f32.tif", "w", W, 32, 1, SAMPLEFORMAT_IEEEFP, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
    { "f32-bigtiff.tif", "w8", W, 32, 1, SAMPLEFORMAT_IEEEFP, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 6 },
    { "u8-miniswhite.tif", "w", W, 8, 1, UINT, PHOTOMETRIC_MINISWHITE, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
    { "u16-lzw-predictor.tif", "w", W, 16, 1, UINT, GREY, CONTIG, COMPRESSION_LZW, PREDICTOR_HORIZONTAL, 0, 4 },
    { "f32-deflate-predictor.tif", "w", W, 32, 1, SAMPLEFORMAT_IEEEFP, GREY, CONTIG, COMPRESSION_ADOBE_DEFLATE,
      PREDICTOR_FLOATINGPOINT, 0, 0 },
    { "u8-packbits.tif", "w", W, 8, 1, UINT, GREY, CONTIG, COMPRESSION_PACKBITS, 0, 0, 3 },
    { "u16-tiles.tif", "w", 20, 16, 1, UINT, GREY, CONTIG, COMPRESSION_NONE, 0, 16, 0 },
    { "u8-rgb-separate.tif", "w", W, 8, 3, UINT, PHOTOMETRIC_RGB, SEPARATE, COMPRESSION_NONE, 0, 0, 6 },
    { "u16-rgba.tif", "w", W, 16, 4, UINT, PHOTOMETRIC_RGB, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
    { "f32-rgb-tiles-deflate.tif", "w", 20, 32, 3, SAMPLEFORMAT_IEEEFP, PHOTOMETRIC_RGB, CONTIG,
      COMPRESSION_DEFLATE, 0, 16, 0 },
    { "u8-grey-alpha.tif", "w", W, 8, 2, UINT, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
    { "u8-jpeg-ycbcr.tif", "w", W, 8, 3, UINT, PHOTOMETRIC_YCBCR, CONTIG, COMPRESSION_JPEG, 0, 0, 0 },
    { "u8-jpeg-grey.tif", "w", W, 8, 1, UINT, GREY, CONTIG, COMPRESSION_JPEG, 0, 16, 0 },
    { "u16-zstd.tif", "w", W, 16, 1, UINT, GREY, CONTIG, COMPRESSION_ZSTD, 0, 0, 0 },
    { "u8-lzma.tif", "w", W, 8, 1, UINT, GREY, CONTIG, COMPRESSION_LZMA, 0, 0, 0 },
    { "u8-rgb-webp.tif", "w", W, 8, 3, UINT, PHOTOMETRIC_RGB, CONTIG, COMPRESSION_WEBP, 0, 0, 0 },
    { "f32-lerc.tif", "w", W, 32, 1, SAMPLEFORMAT_IEEEFP, GREY, CONTIG, COMPRESSION_LERC, 0, 0, 0 },
};

/* Three pages of three types, as in a series of pattern images. */
static const struct tiff_seed tiff_pages[] = {
    { "pages-u8-u16-f32.tif", "w", W, 8, 1, UINT, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
    { "pages-u8-u16-f32.tif", "w", W, 16, 1, UINT, GREY, CONTIG, COMPRESSION_LZW, 0, 0, 6 },
    { "pages-u8-u16-f32.tif", "w", W, 32, 1, SAMPLEFORMAT_IEEEFP, GREY, CONTIG, COMPRESSION_NONE, 0, 0, 0 },
};

/* ------------------------------------------------------------------------ */
/* PNG, written with stored (uncompressed) deflate blocks                    */

struct png_seed {
    const char *name;
    int colour;     /* 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA */
    int depth;      /* 1, 2, 4, 8, 16 */
    int interlace;  /* Adam7 */
    int filter;     /* the filter byte of every row (the data stay raw; stb must still undo it) */
};

static int png_channels(int colour)
{
    return colour == 2 ? 3 : colour == 4 ? 2 : colour == 6 ? 4 : 1;
}

/* Appends the rows of a (sub)image of w x h pixels sampled from (x0 + x * dx, y0 + y * dy). */
static size_t png_rows(unsigned char *raw, const struct png_seed *s, int w, int h, int x0, int y0, int dx, int dy)
{
    int ch = png_channels(s->colour);
    size_t row_bytes = ((size_t)w * ch * s->depth + 7) / 8, n = 0;
    for (int y = 0; y < h; y++) {
        raw[n++] = (unsigned char)s->filter;
        memset(raw + n, 0, row_bytes);
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                unsigned v = value(x0 + x * dx, y0 + y * dy, c, (1u << s->depth) - 1);
                size_t bit = ((size_t)x * ch + c) * s->depth;
                if (s->depth == 16) {
                    raw[n + bit / 8] = (unsigned char)(v >> 8);
                    raw[n + bit / 8 + 1] = (unsigned char)v;
                } else {
                    raw[n + bit / 8] |= (unsigned char)(v << (8 - s->depth - bit % 8));
                }
            }
        n += row_bytes;
    }
    return n;
}

static void png_write(const struct png_seed *s)
{
    static const int adam7[7][4] = { { 0, 0, 8, 8 }, { 4, 0, 8, 8 }, { 0, 4, 4, 8 }, { 2, 0, 4, 4 },
                                     { 0, 2, 2, 4 }, { 1, 0, 2, 2 }, { 0, 1, 1, 2 } };
    unsigned char *raw = calloc(1, (size_t)W * H * 8 * 2 + 64), ihdr[13];
    size_t n = 0;
    if (!s->interlace)
        n = png_rows(raw, s, W, H, 0, 0, 1, 1);
    for (int p = 0; s->interlace && p < 7; p++) {
        int x0 = adam7[p][0], y0 = adam7[p][1], dx = adam7[p][2], dy = adam7[p][3];
        int w = (W - x0 + dx - 1) / dx, h = (H - y0 + dy - 1) / dy;
        if (w > 0 && h > 0)
            n += png_rows(raw + n, s, w, h, x0, y0, dx, dy);
    }
    size_t zn;
    unsigned char *z = zlib_stored(raw, n, &zn);
    FILE *f = fopen(path_of(s->name), "wb");
    if (!f)
        die("cannot create", s->name);
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    be32_put(ihdr, W);
    be32_put(ihdr + 4, H);
    ihdr[8] = (unsigned char)s->depth;
    ihdr[9] = (unsigned char)s->colour;
    ihdr[10] = ihdr[11] = 0;
    ihdr[12] = (unsigned char)s->interlace;
    png_chunk(f, "IHDR", ihdr, sizeof ihdr);
    if (s->colour == 3) {
        unsigned char plte[3 * 16], trns[16];
        for (int i = 0; i < 16; i++) {
            plte[3 * i] = (unsigned char)(i * 16);
            plte[3 * i + 1] = (unsigned char)(255 - i * 16);
            plte[3 * i + 2] = (unsigned char)(i * 8);
            trns[i] = (unsigned char)(255 - i);
        }
        png_chunk(f, "PLTE", plte, sizeof plte);
        png_chunk(f, "tRNS", trns, sizeof trns);
    }
    if (s->colour == 0 && s->depth == 16) {
        unsigned char trns[2] = { 0, 7 };
        png_chunk(f, "tRNS", trns, sizeof trns);
    }
    /* Two IDAT chunks: stb must join them. */
    png_chunk(f, "IDAT", z, zn / 2);
    png_chunk(f, "IDAT", z + zn / 2, zn - zn / 2);
    png_chunk(f, "IEND", NULL, 0);
    if (fclose(f) != 0)
        die("cannot write", s->name);
    free(z);
    free(raw);
}

static const struct png_seed png_seeds[] = {
    { "grey8.png", 0, 8, 0, 0 },
    { "grey16-trns.png", 0, 16, 0, 0 },
    { "grey1.png", 0, 1, 0, 0 },
    { "grey4-interlaced.png", 0, 4, 1, 0 },
    { "rgb8-filter-sub.png", 2, 8, 0, 1 },
    { "rgb16-filter-paeth.png", 2, 16, 0, 4 },
    { "palette4-trns.png", 3, 4, 0, 2 },
    { "palette2-interlaced.png", 3, 2, 1, 3 },
    { "grey-alpha8.png", 4, 8, 0, 0 },
    { "rgba16-interlaced.png", 6, 16, 1, 0 },
    { "rgba8-filter-up.png", 6, 8, 0, 2 },
};

/* ------------------------------------------------------------------------ */
/* BMP                                                                       */

static void le16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void le32(unsigned char *p, uint32_t v)
{
    le16(p, v & 0xffff);
    le16(p + 2, v >> 16);
}

/*
 * bits 1, 4, 8 (palette), 24, 16 (bit fields after a 40-byte header) or 32
 * (bit fields with alpha inside a 108-byte V4 header); top_down: a negative height.
 */
static void bmp_write(const char *name, int bits, int top_down)
{
    int header = bits == 32 ? 108 : 40, colours = bits <= 8 ? 1 << bits : 0;
    int masks = bits == 16 ? 12 : 0;
    size_t row = ((size_t)W * bits + 31) / 32 * 4;
    size_t offset = 14 + (size_t)header + (size_t)masks + 4 * (size_t)colours, size = offset + row * H;
    unsigned char *b = calloc(1, size);
    b[0] = 'B';
    b[1] = 'M';
    le32(b + 2, (uint32_t)size);
    le32(b + 10, (uint32_t)offset);
    le32(b + 14, (uint32_t)header);
    le32(b + 18, W);
    le32(b + 22, top_down ? (uint32_t)-H : H);
    le16(b + 26, 1);
    le16(b + 28, (unsigned)bits);
    le32(b + 30, bits == 16 || bits == 32 ? 3 : 0);   /* BI_BITFIELDS or BI_RGB */
    le32(b + 34, (uint32_t)(row * H));
    if (bits == 16) {
        le32(b + 54, 0x7c00);
        le32(b + 58, 0x03e0);
        le32(b + 62, 0x001f);
    } else if (bits == 32) {
        le32(b + 54, 0x00ff0000);
        le32(b + 58, 0x0000ff00);
        le32(b + 62, 0x000000ff);
        le32(b + 66, 0xff000000);
        memcpy(b + 70, "BGRs", 4);   /* LCS_sRGB, as stored */
    }
    for (int i = 0; i < colours; i++) {
        unsigned char *c = b + 14 + header + masks + 4 * i;
        c[0] = (unsigned char)(i * 255 / (colours - 1));
        c[1] = (unsigned char)(255 - c[0]);
        c[2] = (unsigned char)(c[0] / 2);
    }
    for (int y = 0; y < H; y++) {
        unsigned char *r = b + offset + row * (size_t)y;
        for (int x = 0; x < W; x++) {
            unsigned v = value(x, y, 0, 255);
            if (bits <= 8)
                r[(size_t)x * bits / 8] |= (unsigned char)((v >> (8 - bits)) << (8 - bits - x * bits % 8));
            else if (bits == 16)
                le16(r + 2 * x, (v >> 3) << 10 | (v >> 3) << 5 | (value(x, y, 1, 255) >> 3));
            else
                for (int c = 0; c < bits / 8; c++)
                    r[(size_t)x * (bits / 8) + c] = (unsigned char)value(x, y, c, 255);
        }
    }
    FILE *f = fopen(path_of(name), "wb");
    if (!f || fwrite(b, 1, size, f) != size || fclose(f) != 0)
        die("cannot write", name);
    free(b);
}

/* ------------------------------------------------------------------------ */
/* stb_image_write: JPEG, compressed PNG, 24-bit BMP                          */

static unsigned char *pattern8(int channels)
{
    unsigned char *p = malloc((size_t)W * H * channels);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++)
                p[((size_t)y * W + x) * channels + c] = (unsigned char)value(x, y, c, 255);
    return p;
}

static void stb_seeds(void)
{
    unsigned char *grey = pattern8(1), *rgb = pattern8(3), *rgba = pattern8(4);
    int ok = stbi_write_jpg(path_of("grey.jpg"), W, H, 1, grey, 90)
          && stbi_write_jpg(path_of("rgb-q95.jpg"), W, H, 3, rgb, 95)
          /* Below quality 90 stb subsamples the chroma 2x2. */
          && stbi_write_jpg(path_of("rgb-q50-subsampled.jpg"), W, H, 3, rgb, 50)
          && stbi_write_png(path_of("rgba8-zlib.png"), W, H, 4, rgba, W * 4)
          && stbi_write_bmp(path_of("rgb24.bmp"), W, H, 3, rgb);
    if (!ok)
        die("stb_image_write failed", dir);
    free(grey);
    free(rgb);
    free(rgba);
}

/* ------------------------------------------------------------------------ */
/* PGM and PPM                                                               */

static void pnm_write(const char *name, const char *magic, int channels, unsigned maxval, const char *comment)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f)
        die("cannot create", name);
    fprintf(f, "%s\n%s%d %d\n%u\n", magic, comment, W, H, maxval);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++) {
                unsigned v = value(x, y, c, maxval);
                if (maxval > 255)
                    fputc((int)(v >> 8), f);
                fputc((int)(v & 0xff), f);
            }
    if (fclose(f) != 0)
        die("cannot write", name);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: clxcorr-fuzz-seeds DIR\n");
        return 2;
    }
    dir = argv[1];
    /* libtiff warns about the legacy Deflate tag the seeds use on purpose. */
    TIFFSetWarningHandler(NULL);
    for (size_t i = 0; i < sizeof tiff_seeds / sizeof tiff_seeds[0]; i++)
        tiff_write(&tiff_seeds[i], 1);
    tiff_write(tiff_pages, 3);
    for (size_t i = 0; i < sizeof png_seeds / sizeof png_seeds[0]; i++)
        png_write(&png_seeds[i]);
    bmp_write("palette1.bmp", 1, 0);
    bmp_write("palette4.bmp", 4, 0);
    bmp_write("palette8-topdown.bmp", 8, 1);
    bmp_write("rgb555-bitfields.bmp", 16, 0);
    bmp_write("rgba32-v4.bmp", 32, 0);
    stb_seeds();
    pnm_write("grey8.pgm", "P5", 1, 255, "");
    pnm_write("grey16-comment.pgm", "P5", 1, 4095, "# a comment\n");
    pnm_write("rgb8.ppm", "P6", 3, 255, "");
    pnm_write("rgb16.ppm", "P6", 3, 65535, "");
    return 0;
}
