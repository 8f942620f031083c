/*
 * test_image_io.c - reading image files (src/image/image.c, load_tiff.c,
 * load_stb.c).
 *
 * Every file is written here, into a fresh temporary directory, from a
 * pattern whose value is known at every pixel, sample and page; every pixel
 * read back is compared exactly (JPEG, being lossy, within JPEG_TOLERANCE).
 * Each error case is checked for its status, for the words of its message,
 * and for leaving the image empty. KEEP=1 keeps the directory for a look.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

#include "check.h"
#include "png_stored.h"
#include "clxcorr.h"

#include "stb_write_impl.h"

/*
 * Before libtiff 4.5 the library can only silence libtiff's global handlers,
 * so libtiff's wording is lost, and errors that it reports without failing
 * the call (libjpeg's warnings, a broken link between pages) go unseen.
 */
#if defined(TIFFLIB_AT_LEAST)
#if TIFFLIB_AT_LEAST(4, 5, 0)
#define TIFF_REPORTS_ALL_ERRORS 1
#endif
#endif
#ifdef TIFF_REPORTS_ALL_ERRORS
#define TIFF_CORRUPT "%s: corrupt or truncated TIFF (libtiff: "
#else
#define TIFF_CORRUPT "%s: corrupt or truncated TIFF ("
#endif

/* Largest difference allowed between a JPEG pixel and what was written (smooth content, quality 95-100). */
#define JPEG_TOLERANCE 3

/* The odd size makes 16x16 tiles overhang on the right and at the bottom. */
#define W 37
#define H 23

static char dir[1024];   /* short enough that every path built on it fits in 4200 */

static void die(const char *what, const char *path)
{
    printf("FAIL: cannot write %s (%s)\n", path, what);
    exit(1);
}

static void path_make(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
}

/* ------------------------------------------------------------------------ */
/* The pattern: distinct in x, y, sample and page, covering each type's range */

static unsigned pattern_u8(int x, int y, int s, int p)
{
    return (unsigned)(x * 7 + y * 13 + s * 85 + p * 31) & 0xffu;
}

static unsigned pattern_u16(int x, int y, int s, int p)
{
    return (unsigned)(x * 1031 + y * 9973 + s * 21841 + p * 4099) & 0xffffu;
}

static float pattern_f32(int x, int y, int s, int p)
{
    return (float)(x * 0.25 - y * 1.5 + s * 100.0 + p * 1000.0 - 3.0);
}

/* The expected luminance, written out independently of the library's code. */
static unsigned luma_int(unsigned r, unsigned g, unsigned b)
{
    return (299u * r + 587u * g + 114u * b + 500u) / 1000u;
}

static float luma_float(float r, float g, float b)
{
    return (float)(0.299 * r + 0.587 * g + 0.114 * b);
}

/* ------------------------------------------------------------------------ */
/* Writing TIFF files with libtiff                                          */

struct tiff_spec {
    int width, height;
    int spp, bps, format, photometric, planar, compression, predictor;
    int tile;            /* tile side, 0 for strips */
    int rows_per_strip;
    int nan_x, nan_y;    /* a non-finite float there when nan_x >= 0 */
    float nan_value;
    int fill_order;      /* 0: libtiff's default (MSB2LSB) */
};

static struct tiff_spec spec_grey(int bps, int format)
{
    struct tiff_spec s = { W, H, 1, bps, format, PHOTOMETRIC_MINISBLACK, PLANARCONFIG_CONTIG,
                           COMPRESSION_NONE, 0, 0, 5, -1, -1, 0.0f, 0 };
    return s;
}

static int spec_is_float(const struct tiff_spec *sp)
{
    return sp->format == SAMPLEFORMAT_IEEEFP;
}

static double spec_value(const struct tiff_spec *sp, int x, int y, int s, int p)
{
    if (spec_is_float(sp) && x == sp->nan_x && y == sp->nan_y)
        return sp->nan_value;
    if (spec_is_float(sp))
        return pattern_f32(x, y, s, p);
    return sp->bps == 8 ? pattern_u8(x, y, s, p) : pattern_u16(x, y, s, p);
}

static void sample_store(unsigned char *dst, const struct tiff_spec *sp, double v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    float f = (float)v;
    if (sp->bps == 8)
        memcpy(dst, &u8, 1);
    else if (sp->bps == 16)
        memcpy(dst, &u16, 2);
    else if (sp->bps == 32 && spec_is_float(sp))
        memcpy(dst, &f, 4);
    else if (sp->bps == 32)
        memcpy(dst, &u32, 4);
    else if (sp->bps == 64)
        memcpy(dst, &v, 8);
}

/* Fills a block of bw x bh pixels at (x0, y0), plane `plane` (-1: all samples, contiguous). */
static void block_fill(unsigned char *buf, const struct tiff_spec *sp, int page, int x0, int y0,
                       int bw, int bh, int plane)
{
    size_t bytes = (size_t)sp->bps / 8, per_pixel = plane < 0 ? (size_t)sp->spp : 1;
    memset(buf, 0xab, (size_t)bw * bh * per_pixel * bytes);   /* overhang: junk that must not show */
    for (int y = 0; y < bh && y0 + y < sp->height; y++)
        for (int x = 0; x < bw && x0 + x < sp->width; x++)
            for (size_t s = 0; s < per_pixel; s++) {
                int sample = plane < 0 ? (int)s : plane;
                sample_store(buf + (((size_t)y * bw + x) * per_pixel + s) * bytes, sp,
                             spec_value(sp, x0 + x, y0 + y, sample, page));
            }
}

static void tiff_tags(TIFF *tif, const struct tiff_spec *sp)
{
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)sp->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)sp->height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, sp->spp);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, sp->bps);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, sp->format);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, sp->photometric);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, sp->planar);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, sp->compression);
    if (sp->predictor)
        TIFFSetField(tif, TIFFTAG_PREDICTOR, sp->predictor);
    if (sp->fill_order)
        TIFFSetField(tif, TIFFTAG_FILLORDER, sp->fill_order);
    if (sp->spp == 4 || sp->spp == 2) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (sp->photometric == PHOTOMETRIC_PALETTE) {
        static uint16_t map[3][256];
        for (int i = 0; i < 256; i++)
            map[0][i] = map[1][i] = map[2][i] = (uint16_t)(i * 257);
        TIFFSetField(tif, TIFFTAG_COLORMAP, map[0], map[1], map[2]);
    }
    if (sp->compression == COMPRESSION_JPEG) {
        TIFFSetField(tif, TIFFTAG_JPEGQUALITY, 95);
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    if (sp->tile) {
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)sp->tile);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)sp->tile);
    } else {
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)sp->rows_per_strip);
    }
}

static void tiff_page_write(TIFF *tif, const struct tiff_spec *sp, int page, const char *path)
{
    int planes = sp->planar == PLANARCONFIG_SEPARATE ? sp->spp : 1;
    if (sp->bps % 8 != 0) {
        /* Refused before any decoding: the content does not matter. */
        tmsize_t n = TIFFScanlineSize(tif);
        unsigned char *row = calloc(1, (size_t)n);
        for (int y = 0; y < sp->height; y++)
            if (!row || TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0)
                die("scanline", path);
        free(row);
    } else if (sp->tile) {
        unsigned char *buf = malloc((size_t)TIFFTileSize(tif));
        for (int y0 = 0; y0 < sp->height; y0 += sp->tile)
            for (int x0 = 0; x0 < sp->width; x0 += sp->tile)
                for (int p = 0; p < planes; p++) {
                    if (!buf)
                        die("memory", path);
                    block_fill(buf, sp, page, x0, y0, sp->tile, sp->tile, planes > 1 ? p : -1);
                    uint32_t t = TIFFComputeTile(tif, (uint32_t)x0, (uint32_t)y0, 0, (uint16_t)p);
                    if (TIFFWriteEncodedTile(tif, t, buf, TIFFTileSize(tif)) < 0)
                        die("tile", path);
                }
        free(buf);
    } else {
        unsigned char *row = malloc((size_t)TIFFScanlineSize(tif));
        for (int p = 0; p < planes; p++)
            for (int y = 0; y < sp->height; y++) {
                if (!row)
                    die("memory", path);
                block_fill(row, sp, page, 0, y, sp->width, 1, planes > 1 ? p : -1);
                if (TIFFWriteScanline(tif, row, (uint32_t)y, (uint16_t)p) < 0)
                    die("scanline", path);
            }
        free(row);
    }
}

/* Writes `pages` pages, page p from specs[p]. mode: "w", "w8" (BigTIFF), "wb" (big-endian). */
static void tiff_write(const char *path, const struct tiff_spec *specs, int pages, const char *mode)
{
    TIFF *tif = TIFFOpen(path, mode);
    if (!tif)
        die("TIFFOpen", path);
    for (int p = 0; p < pages; p++) {
        tiff_tags(tif, &specs[p]);
        if (pages > 1) {
            TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(tif, TIFFTAG_PAGENUMBER, p, pages);
        }
        tiff_page_write(tif, &specs[p], p, path);
        if (!TIFFWriteDirectory(tif))
            die("TIFFWriteDirectory", path);
    }
    TIFFClose(tif);
}

/* ------------------------------------------------------------------------ */
/* Comparing                                                                 */

static clx_pixel_type spec_type(const struct tiff_spec *sp)
{
    return spec_is_float(sp) ? CLX_PIXEL_F32 : sp->bps == 8 ? CLX_PIXEL_U8 : CLX_PIXEL_U16;
}

static double expected(const struct tiff_spec *sp, int x, int y, int page)
{
    int rgb = sp->photometric == PHOTOMETRIC_RGB || sp->photometric == PHOTOMETRIC_YCBCR;
    if (rgb && spec_is_float(sp))
        return luma_float((float)spec_value(sp, x, y, 0, page), (float)spec_value(sp, x, y, 1, page),
                          (float)spec_value(sp, x, y, 2, page));
    if (rgb)
        return luma_int((unsigned)spec_value(sp, x, y, 0, page),
                        (unsigned)spec_value(sp, x, y, 1, page),
                        (unsigned)spec_value(sp, x, y, 2, page));
    double v = spec_value(sp, x, y, 0, page);
    if (sp->photometric == PHOTOMETRIC_MINISWHITE)
        v = (sp->bps == 8 ? 255 : 65535) - v;
    return v;
}

static double pixel_at(const clx_image *im, int x, int y)
{
    size_t i = (size_t)y * im->width + x;
    switch (im->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)im->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)im->pixels)[i];
    case CLX_PIXEL_F32: return ((const float *)im->pixels)[i];
    }
    return NAN;
}

/* Every pixel against `sp`'s pattern, exactly when tolerance is 0. */
static void image_compare(const char *what, const clx_image *im, const struct tiff_spec *sp,
                          int page, double tolerance)
{
    CHECK(im->width == sp->width && im->height == sp->height, "%s: size %dx%d, want %dx%d", what,
          im->width, im->height, sp->width, sp->height);
    CHECK(im->type == spec_type(sp), "%s: type %d, want %d", what, (int)im->type, (int)spec_type(sp));
    if (im->width != sp->width || im->height != sp->height || im->type != spec_type(sp))
        return;
    int bad = 0;
    double worst = 0;
    for (int y = 0; y < sp->height; y++)
        for (int x = 0; x < sp->width; x++) {
            double got = pixel_at(im, x, y), want = expected(sp, x, y, page);
            double diff = fabs(got - want);
            if (diff > worst)
                worst = diff;
            if (!(diff <= tolerance) && bad++ < 3)
                printf("  %s: pixel (%d, %d) is %.9g, want %.9g\n", what, x, y, got, want);
        }
    CHECK(bad == 0, "%s: %d pixels differ (largest difference %g)", what, bad, worst);
}

/* Loads page `page` of path and compares it with sp. */
static void load_compare(const char *what, const char *path, int page, const struct tiff_spec *sp,
                         double tolerance)
{
    clx_image im;
    clx_message msg;
    int rc = clx_image_load(path, page, &im, &msg);
    CHECK(rc == CLX_OK, "%s: %s: %s", what, clx_status_name(rc), msg.text);
    if (rc == CLX_OK)
        image_compare(what, &im, sp, page, tolerance);
    clx_image_free(&im);
}

static void tiff_case(const char *name, const struct tiff_spec *sp)
{
    if (!TIFFIsCODECConfigured((uint16_t)sp->compression)) {
        printf("SKIP %s: libtiff lacks compression %d\n", name, sp->compression);
        return;
    }
    char path[4200];
    path_make(path, sizeof path, name);
    tiff_write(path, sp, 1, "w");
    load_compare(name, path, 0, sp, sp->compression == COMPRESSION_JPEG ? JPEG_TOLERANCE : 0);
}

/* One failing load: status, message (with %s for the path) and an empty image. */
static void expect_fail(const char *path, int page, int status, const char *expect_fmt)
{
    clx_image im = { 5, 5, CLX_PIXEL_U8, &im };   /* stale contents must be cleared */
    clx_message msg;
    char want[4400];
    snprintf(want, sizeof want, expect_fmt, path);
    int rc = clx_image_load(path, page, &im, &msg);
    CHECK(rc == status, "%s: status %s, want %s (%s)", path, clx_status_name(rc),
          clx_status_name(status), msg.text);
    CHECK(strstr(msg.text, want) != NULL, "message \"%s\" lacks \"%s\"", msg.text, want);
    CHECK(strchr(msg.text, '\n') == NULL, "message has a newline: \"%s\"", msg.text);
    printf("ok: %s: %s\n", clx_status_name(rc), msg.text);   /* for the log: what users will read */
    CHECK(im.pixels == NULL && im.width == 0 && im.height == 0, "%s: image not empty after failure",
          path);
    if (rc == CLX_OK)
        clx_image_free(&im);
}

/* ------------------------------------------------------------------------ */
/* TIFF: types, layouts, compressions, pages                                */

static void test_tiff_grey(void)
{
    struct tiff_spec s;
    s = spec_grey(8, SAMPLEFORMAT_UINT);
    tiff_case("u8_strips.tif", &s);
    s.rows_per_strip = 100;   /* one strip, taller than the image */
    tiff_case("u8_one_strip.tif", &s);
    s.tile = 16;
    tiff_case("u8_tiles.tif", &s);
    s.compression = COMPRESSION_PACKBITS;
    tiff_case("u8_tiles_packbits.tif", &s);

    s = spec_grey(16, SAMPLEFORMAT_UINT);
    tiff_case("u16_strips.tif", &s);
    s.compression = COMPRESSION_LZW;
    s.predictor = PREDICTOR_HORIZONTAL;
    tiff_case("u16_strips_lzw.tif", &s);
    s.tile = 16;
    tiff_case("u16_tiles_lzw.tif", &s);
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    s.predictor = 0;
    tiff_case("u16_tiles_deflate.tif", &s);

    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    tiff_case("f32_strips.tif", &s);
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    s.predictor = PREDICTOR_FLOATINGPOINT;
    tiff_case("f32_strips_deflate.tif", &s);
    s.tile = 16;
    tiff_case("f32_tiles_deflate.tif", &s);
    s.compression = COMPRESSION_LZW;
    s.predictor = 0;
    tiff_case("f32_tiles_lzw.tif", &s);

    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.compression = COMPRESSION_LZW;
    tiff_case("u8_strips_lzw.tif", &s);
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    tiff_case("u8_strips_deflate.tif", &s);
}

static void test_tiff_variants(void)
{
    char path[4200];
    struct tiff_spec s = spec_grey(16, SAMPLEFORMAT_UINT);
    /* Big-endian: libtiff must swap the samples for us. */
    path_make(path, sizeof path, "u16_big_endian.tif");
    tiff_write(path, &s, 1, "wb");
    load_compare("u16_big_endian.tif", path, 0, &s, 0);
    /* BigTIFF: "II+\0". */
    s.tile = 16;
    path_make(path, sizeof path, "u16_bigtiff.tif");
    tiff_write(path, &s, 1, "w8");
    load_compare("u16_bigtiff.tif", path, 0, &s, 0);
    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    path_make(path, sizeof path, "f32_big_endian.tif");
    tiff_write(path, &s, 1, "wb");
    load_compare("f32_big_endian.tif", path, 0, &s, 0);

    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.photometric = PHOTOMETRIC_MINISWHITE;
    tiff_case("u8_miniswhite.tif", &s);
    s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.photometric = PHOTOMETRIC_MINISWHITE;
    s.tile = 16;
    tiff_case("u16_miniswhite_tiles.tif", &s);
}

static void test_tiff_rgb(void)
{
    struct tiff_spec s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    tiff_case("rgb8_contig.tif", &s);
    s.planar = PLANARCONFIG_SEPARATE;
    tiff_case("rgb8_separate.tif", &s);
    s.tile = 16;
    tiff_case("rgb8_separate_tiles.tif", &s);
    s.planar = PLANARCONFIG_CONTIG;
    s.compression = COMPRESSION_LZW;
    tiff_case("rgb8_contig_tiles_lzw.tif", &s);

    s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    s.planar = PLANARCONFIG_SEPARATE;
    s.tile = 16;
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    tiff_case("rgb16_separate_tiles_deflate.tif", &s);
    s.spp = 4;   /* RGBA: alpha ignored */
    s.planar = PLANARCONFIG_CONTIG;
    s.tile = 0;
    tiff_case("rgba16_contig.tif", &s);
    s.planar = PLANARCONFIG_SEPARATE;
    tiff_case("rgba16_separate.tif", &s);

    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    tiff_case("rgbf32_contig.tif", &s);
    s.planar = PLANARCONFIG_SEPARATE;
    s.tile = 16;
    tiff_case("rgbf32_separate_tiles.tif", &s);

}

/* A few luminance values worked out by hand, halves rounding up. */
static void test_tiff_rgb_known(void)
{
    static const uint8_t rgb[5][3] = { { 255, 0, 0 }, { 10, 20, 30 }, { 0, 0, 250 },
                                       { 255, 255, 255 }, { 1, 1, 1 } };
    static const uint8_t want[5] = { 76, 18, 29, 255, 1 };   /* 76.245, 18.15, 28.5, 255, 1 */
    char path[4200];
    path_make(path, sizeof path, "rgb_known.tif");
    TIFF *tif = TIFFOpen(path, "w");
    if (!tif)
        die("TIFFOpen", path);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, 5u);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 1u);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (TIFFWriteScanline(tif, (void *)rgb, 0, 0) < 0)
        die("scanline", path);
    TIFFClose(tif);
    clx_image im;
    clx_message msg;
    int rc = clx_image_load(path, 0, &im, &msg);
    CHECK(rc == CLX_OK && im.type == CLX_PIXEL_U8 && im.width == 5, "%s", msg.text);
    for (int i = 0; rc == CLX_OK && i < 5; i++)
        CHECK(((uint8_t *)im.pixels)[i] == want[i], "RGB %u %u %u gives %u, want %u", rgb[i][0],
              rgb[i][1], rgb[i][2], ((uint8_t *)im.pixels)[i], want[i]);
    clx_image_free(&im);

    /* 16 bits: 0.299 * 65535 = 19594.965 -> 19595. */
    uint16_t rgb16[3] = { 65535, 0, 0 };
    tif = TIFFOpen(path, "w");
    if (!tif)
        die("TIFFOpen", path);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, 1u);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 1u);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (TIFFWriteScanline(tif, rgb16, 0, 0) < 0)
        die("scanline", path);
    TIFFClose(tif);
    rc = clx_image_load(path, 0, &im, &msg);
    CHECK(rc == CLX_OK && im.type == CLX_PIXEL_U16 && ((uint16_t *)im.pixels)[0] == 19595,
          "16-bit red: %s %u", msg.text, rc == CLX_OK ? ((uint16_t *)im.pixels)[0] : 0u);
    clx_image_free(&im);
}

/* Smooth content, which JPEG keeps within a few levels. */
static void test_tiff_jpeg(void)
{
    if (!TIFFIsCODECConfigured(COMPRESSION_JPEG)) {
        printf("SKIP JPEG-compressed TIFF: libtiff lacks JPEG\n");
        return;
    }
    char path[4200];
    path_make(path, sizeof path, "ycbcr_jpeg.tif");
    TIFF *tif = TIFFOpen(path, "w");
    if (!tif)
        die("TIFFOpen", path);
    struct tiff_spec s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_YCBCR;
    s.compression = COMPRESSION_JPEG;
    s.rows_per_strip = 16;
    tiff_tags(tif, &s);
    uint8_t row[W * 3];
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = (uint8_t)(100 + x + y);
        if (TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0)
            die("scanline", path);
    }
    TIFFClose(tif);
    clx_image im;
    clx_message msg;
    int rc = clx_image_load(path, 0, &im, &msg);
    CHECK(rc == CLX_OK && im.type == CLX_PIXEL_U8 && im.width == W && im.height == H,
          "JPEG TIFF: %s %s", clx_status_name(rc), msg.text);
    int worst = 0;
    for (int y = 0; rc == CLX_OK && y < H; y++)
        for (int x = 0; x < W; x++) {
            int d = abs(((uint8_t *)im.pixels)[y * W + x] - (100 + x + y));
            worst = d > worst ? d : worst;
        }
    CHECK(worst <= JPEG_TOLERANCE, "JPEG TIFF: largest difference %d", worst);
    clx_image_free(&im);
}

static void test_tiff_pages(void)
{
    char path[4200];
    struct tiff_spec pages[3] = { spec_grey(16, SAMPLEFORMAT_UINT), spec_grey(16, SAMPLEFORMAT_UINT),
                                  spec_grey(8, SAMPLEFORMAT_UINT) };
    pages[1].tile = 16;
    pages[1].compression = COMPRESSION_LZW;
    pages[2].width = 10;   /* pages need not share a size or type */
    pages[2].height = 5;
    path_make(path, sizeof path, "three_pages.tif");
    tiff_write(path, pages, 3, "w");

    clx_image_file *file = NULL;
    clx_message msg;
    int rc = clx_image_file_open(path, &file, &msg);
    CHECK(rc == CLX_OK, "open: %s", msg.text);
    if (rc != CLX_OK)
        return;
    CHECK(clx_image_file_pages(file) == 3, "pages %d", clx_image_file_pages(file));
    static const int order[4] = { 2, 0, 1, 2 };   /* out of order and again */
    for (int i = 0; i < 4; i++) {
        int p = order[i];
        char what[64];
        clx_image im;
        snprintf(what, sizeof what, "page %d", p);
        rc = clx_image_file_read(file, p, &im, &msg);
        CHECK(rc == CLX_OK, "%s: %s", what, msg.text);
        if (rc == CLX_OK)
            image_compare(what, &im, &pages[p], p, 0);
        clx_image_free(&im);
    }
    clx_image im = { 1, 1, CLX_PIXEL_U8, &im };
    rc = clx_image_file_read(file, 3, &im, &msg);
    char want[4400];
    snprintf(want, sizeof want, "%s: page 3 is out of range (the file has 3 pages)", path);
    CHECK(rc == CLX_ERR_ARGUMENT && strcmp(msg.text, want) == 0, "page 3: %s \"%s\"",
          clx_status_name(rc), msg.text);
    CHECK(im.pixels == NULL, "page 3: image not cleared");
    rc = clx_image_file_read(file, -1, &im, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT && strstr(msg.text, "page -1 is out of range"), "page -1: %s",
          msg.text);
    clx_image_file_close(file);
    expect_fail(path, 3, CLX_ERR_ARGUMENT, "%s: page 3 is out of range (the file has 3 pages)");
}

/* Image names (clx_image_name_split, clx_image_name_open) on the three-page
 * file test_tiff_pages wrote: PATH#N one page, PATH all of them, a page it
 * does not have refused by name, and a file whose literal name has "#2". */
static void test_image_names(void)
{
    char path[4200], name[4300];
    clx_image_file *file = NULL;
    clx_message msg;
    int first = -1, last = -1;
    path_make(path, sizeof path, "three_pages.tif");

    char *split;
    int page, row, col;
    snprintf(name, sizeof name, "%s#12,3", path);
    CHECK(clx_image_name_split(name, &split, &page, &row, &col) == CLX_OK && strcmp(split, path) == 0 &&
          page == -1 && row == 12 && col == 3, "split %s: %s page %d point %d,%d", name, split, page, row, col);
    free(split);

    snprintf(name, sizeof name, "%s#1", path);
    int rc = clx_image_name_open(name, NULL, &file, &first, &last, &msg);
    CHECK(rc == CLX_OK && first == 1 && last == 1, "%s: %s, pages %d to %d", name, msg.text, first, last);
    clx_image_file_close(file);
    rc = clx_image_name_open(path, NULL, &file, &first, &last, &msg);
    CHECK(rc == CLX_OK && first == 0 && last == 2, "%s: %s, pages %d to %d", path, msg.text, first, last);
    clx_image_file_close(file);

    snprintf(name, sizeof name, "%s#3", path);
    char want[4400];
    snprintf(want, sizeof want, "%s has 3 pages (from 0); page 3 does not exist", path);
    rc = clx_image_name_open(name, NULL, &file, &first, &last, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT && file == NULL && strcmp(msg.text, want) == 0, "%s: %s \"%s\"", name,
          clx_status_name(rc), msg.text);
    snprintf(name, sizeof name, "%s#0,0", path);
    rc = clx_image_name_open(name, NULL, &file, &first, &last, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT && file == NULL && strstr(msg.text, "has no scan grid"), "%s: %s", name, msg.text);

    /* A literal "#2" in an existing file's name is part of its name. */
    path_make(name, sizeof name, "literal#2");
    struct tiff_spec one = spec_grey(8, SAMPLEFORMAT_UINT);
    tiff_write(name, &one, 1, "w");
    rc = clx_image_name_open(name, NULL, &file, &first, &last, &msg);
    CHECK(rc == CLX_OK && first == 0 && last == 0, "%s: %s", name, msg.text);
    clx_image_file_close(file);
}

/* ------------------------------------------------------------------------ */
/* Other formats                                                             */

static unsigned char *pattern_rgb8(int channels)
{
    unsigned char *p = malloc((size_t)W * H * channels);
    if (!p)
        die("memory", "pattern");
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++)
                p[(y * W + x) * channels + c] = (unsigned char)pattern_u8(x, y, c, 0);
    return p;
}

/* The spec that describes what stb-written 8-bit files of `channels` decode to. */
static struct tiff_spec spec_channels(int bps, int channels)
{
    struct tiff_spec s = spec_grey(bps, SAMPLEFORMAT_UINT);
    s.spp = channels;
    s.photometric = channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    return s;
}

static void test_png_bmp(void)
{
    char path[4200];
    for (int channels = 1; channels <= 4; channels++) {
        char name[32];
        unsigned char *p = pattern_rgb8(channels);
        struct tiff_spec s = spec_channels(8, channels);
        snprintf(name, sizeof name, "png8_%dch.png", channels);
        path_make(path, sizeof path, name);
        if (!stbi_write_png(path, W, H, channels, p, W * channels))
            die("stbi_write_png", path);
        load_compare(name, path, 0, &s, 0);
        free(p);
    }
    /* BMP stores RGB; a grey BMP comes back as R = G = B, whose luminance is exact. */
    unsigned char *p = pattern_rgb8(3);
    struct tiff_spec s = spec_channels(8, 3);
    path_make(path, sizeof path, "rgb.bmp");
    if (!stbi_write_bmp(path, W, H, 3, p))
        die("stbi_write_bmp", path);
    load_compare("rgb.bmp", path, 0, &s, 0);
    free(p);
    p = pattern_rgb8(1);
    s = spec_channels(8, 1);
    path_make(path, sizeof path, "grey.bmp");
    if (!stbi_write_bmp(path, W, H, 1, p))
        die("stbi_write_bmp", path);
    load_compare("grey.bmp", path, 0, &s, 0);
    free(p);
}

static void test_jpeg(void)
{
    char path[4200];
    unsigned char p[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            p[y * W + x] = (unsigned char)(60 + 2 * x + 3 * y);
    path_make(path, sizeof path, "grey.jpg");
    if (!stbi_write_jpg(path, W, H, 1, p, 100))
        die("stbi_write_jpg", path);
    clx_image im;
    clx_message msg;
    int rc = clx_image_load(path, 0, &im, &msg);
    CHECK(rc == CLX_OK && im.type == CLX_PIXEL_U8 && im.width == W && im.height == H,
          "JPEG: %s %s", clx_status_name(rc), msg.text);
    int worst = 0;
    for (int i = 0; rc == CLX_OK && i < W * H; i++) {
        int d = abs(((uint8_t *)im.pixels)[i] - p[i]);
        worst = d > worst ? d : worst;
    }
    CHECK(worst <= JPEG_TOLERANCE, "JPEG: largest difference %d > %d", worst, JPEG_TOLERANCE);
    clx_image_free(&im);
}

/* P5/P6 by hand; `header` is printf'd with width and height; 16 bits are big-endian. */
static void pnm_write(const char *path, const char *header, int channels, int bps, size_t keep)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("fopen", path);
    fprintf(f, header, W, H);
    size_t written = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++) {
                unsigned v = bps == 8 ? pattern_u8(x, y, c, 0) : pattern_u16(x, y, c, 0);
                if (bps == 16 && written++ < keep)
                    putc((int)(v >> 8), f);
                if (written++ < keep)
                    putc((int)(v & 0xff), f);
            }
    if (fclose(f) != 0)
        die("fclose", path);
}

static void test_pnm(void)
{
    char path[4200];
    struct tiff_spec s = spec_channels(8, 1);
    path_make(path, sizeof path, "grey8.pgm");
    pnm_write(path, "P5\n%d %d\n255\n", 1, 8, SIZE_MAX);
    load_compare("grey8.pgm", path, 0, &s, 0);
    path_make(path, sizeof path, "grey8_comments.pgm");
    pnm_write(path, "P5 # made by hand\n%d\t%d # size\n# maxval next\n255\r", 1, 8, SIZE_MAX);
    load_compare("grey8_comments.pgm", path, 0, &s, 0);
    s = spec_channels(16, 1);
    path_make(path, sizeof path, "grey16.pgm");
    pnm_write(path, "P5\n%d %d\n65535\n", 1, 16, SIZE_MAX);
    load_compare("grey16.pgm", path, 0, &s, 0);
    s = spec_channels(8, 3);
    path_make(path, sizeof path, "rgb8.ppm");
    pnm_write(path, "P6\n%d %d\n255\n", 3, 8, SIZE_MAX);
    load_compare("rgb8.ppm", path, 0, &s, 0);
    s = spec_channels(16, 3);
    path_make(path, sizeof path, "rgb16.ppm");
    pnm_write(path, "P6\n%d %d\n65535\n", 3, 16, SIZE_MAX);
    load_compare("rgb16.ppm", path, 0, &s, 0);

    /* Samples are kept as stored, not scaled to the maxval. */
    path_make(path, sizeof path, "grey_maxval1023.pgm");
    FILE *f = fopen(path, "wb");
    if (!f)
        die("fopen", path);
    fputs("P5 2 1 1023\n", f);
    fwrite("\x03\xff\x01\x02", 1, 4, f);
    fclose(f);
    clx_image im;
    clx_message msg;
    int rc = clx_image_load(path, 0, &im, &msg);
    CHECK(rc == CLX_OK && im.type == CLX_PIXEL_U16 && ((uint16_t *)im.pixels)[0] == 1023
          && ((uint16_t *)im.pixels)[1] == 258, "maxval 1023: %s", msg.text);
    clx_image_free(&im);
}

/* ---- 16-bit PNG by hand: stored (uncompressed) deflate blocks, no zlib ---- */

static void png16_write(const char *path, int channels)
{
    size_t row = 1 + (size_t)W * channels * 2, raw_n = row * H;
    unsigned char *raw = malloc(raw_n);
    if (!raw)
        die("memory", path);
    for (int y = 0; y < H; y++) {
        unsigned char *r = raw + y * row;
        r[0] = 0;   /* filter: none */
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++) {
                unsigned v = pattern_u16(x, y, c, 0);
                r[1 + (x * channels + c) * 2] = (unsigned char)(v >> 8);
                r[2 + (x * channels + c) * 2] = (unsigned char)v;
            }
    }
    size_t zn;
    unsigned char *z = zlib_stored(raw, raw_n, &zn);
    if (!z)
        die("memory", path);
    unsigned char ihdr[13];
    be32_put(ihdr, W);
    be32_put(ihdr + 4, H);
    ihdr[8] = 16;
    ihdr[9] = channels == 1 ? 0 : 2;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    FILE *f = fopen(path, "wb");
    if (!f)
        die("fopen", path);
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    png_chunk(f, "IHDR", ihdr, sizeof ihdr);
    png_chunk(f, "IDAT", z, zn);
    png_chunk(f, "IEND", NULL, 0);
    if (fclose(f) != 0)
        die("fclose", path);
    free(raw);
    free(z);
}

static void test_png16(void)
{
    char path[4200];
    struct tiff_spec s = spec_channels(16, 1);
    path_make(path, sizeof path, "grey16.png");
    png16_write(path, 1);
    load_compare("grey16.png", path, 0, &s, 0);
    s = spec_channels(16, 3);
    path_make(path, sizeof path, "rgb16.png");
    png16_write(path, 3);
    load_compare("rgb16.png", path, 0, &s, 0);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

/* A string literal's bytes without its terminating NUL, for bytes_write. */
#define LITERAL(s) s, sizeof s - 1

static void bytes_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
        die("bytes", path);
}

static unsigned char *file_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("open", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *data = malloc(*n);
    if (!data || fread(data, 1, *n, f) != *n)
        die("read", path);
    fclose(f);
    return data;
}

static size_t file_size(const char *path)
{
    size_t n;
    free(file_slurp(path, &n));
    return n;
}

/* Writes the first `keep` bytes of `from` to `to`. */
static void file_truncate_copy(const char *from, const char *to, size_t keep)
{
    size_t n;
    unsigned char *data = file_slurp(from, &n);
    bytes_write(to, data, keep < n ? keep : n);
    free(data);
}

static void test_errors_basic(void)
{
    char path[4200];
    path_make(path, sizeof path, "no-such-file.tif");
    expect_fail(path, 0, CLX_ERR_IO, "%s: No such file or directory");
    expect_fail(dir, 0, CLX_ERR_IO, "%s: Is a directory");
    path_make(path, sizeof path, "empty.tif");
    bytes_write(path, LITERAL(""));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: empty file");
    path_make(path, sizeof path, "hello.png");
    bytes_write(path, LITERAL("hello"));
    expect_fail(path, 0, CLX_ERR_FORMAT,
                "%s: unsupported image format (not TIFF, PNG, JPEG, BMP, PGM or an EBSD pattern file)");
    path_make(path, sizeof path, "bm_text.bmp");
    bytes_write(path, LITERAL("BMW is a car, not a bitmap\n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: unsupported image format");
    path_make(path, sizeof path, "ascii.pgm");
    bytes_write(path, LITERAL("P2\n2 1\n255\n0 255\n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: unsupported image format");
    path_make(path, sizeof path, "header_only.tif");
    bytes_write(path, LITERAL("II*\0\x08\0\0\0"));
    expect_fail(path, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    path_make(path, sizeof path, "short.tif");
    bytes_write(path, LITERAL("MM"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: unsupported image format");

    /* Page out of range for a one-page format. */
    unsigned char grey[4] = { 1, 2, 3, 4 };
    path_make(path, sizeof path, "tiny.png");
    if (!stbi_write_png(path, 2, 2, 1, grey, 2))
        die("png", path);
    expect_fail(path, 1, CLX_ERR_ARGUMENT, "%s: page 1 is out of range (the file has 1 page)");
}

/*
 * An uncompressed 8- or 16-bit (little-endian) TIFF written by hand with the
 * IFD first, so that cutting the file short cuts the pixels; `keep` counts
 * pixel bytes.
 */
static void tiff_hand_write(const char *path, uint32_t w, uint32_t h, int bps, uint32_t rows_per_strip,
                            size_t keep)
{
    uint32_t bytes_per_sample = (uint32_t)bps / 8;
    uint32_t strips = (h + rows_per_strip - 1) / rows_per_strip;
    enum { ENTRIES = 9 };
    uint32_t arrays = 8 + 2 + 12 * ENTRIES + 4;   /* strip offsets, then byte counts */
    uint32_t data = arrays + (strips > 1 ? 8 * strips : 0);
    unsigned char *ifd = calloc(1, data);
    if (!ifd)
        die("memory", path);
    memcpy(ifd, "II*\0\x08\0\0\0", 8);
    ifd[8] = ENTRIES;
    static const uint16_t tags[ENTRIES] = { 256, 257, 258, 259, 262, 273, 277, 278, 279 };
    for (int i = 0; i < ENTRIES; i++) {
        unsigned char *e = ifd + 10 + 12 * i;
        uint32_t count = 1, value = 0;
        uint16_t type = 3;   /* SHORT */
        switch (tags[i]) {
        case 256: type = 4; value = w; break;
        case 257: type = 4; value = h; break;
        case 258: value = (uint32_t)bps; break;
        case 259: value = 1; break;
        case 262: value = 1; break;
        case 273: type = 4; count = strips; value = strips > 1 ? arrays : data; break;
        case 277: value = 1; break;
        case 278: type = 4; value = rows_per_strip; break;
        case 279: type = 4; count = strips; value = strips > 1 ? arrays + 4 * strips
                                                              : w * h * bytes_per_sample; break;
        }
        e[0] = (unsigned char)tags[i];
        e[1] = (unsigned char)(tags[i] >> 8);
        e[2] = (unsigned char)type;
        for (int k = 0; k < 4; k++) {
            e[4 + k] = (unsigned char)(count >> (8 * k));
            e[8 + k] = (unsigned char)(value >> (8 * k));
        }
    }
    for (uint32_t s = 0; strips > 1 && s < strips; s++) {
        uint32_t rows = h - s * rows_per_strip < rows_per_strip ? h - s * rows_per_strip : rows_per_strip;
        uint32_t offset = data + s * rows_per_strip * w * bytes_per_sample, bytes = rows * w * bytes_per_sample;
        for (int k = 0; k < 4; k++) {
            ifd[arrays + 4 * s + k] = (unsigned char)(offset >> (8 * k));
            ifd[arrays + 4 * strips + 4 * s + k] = (unsigned char)(bytes >> (8 * k));
        }
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(ifd, 1, data, f) != data)
        die("hand TIFF", path);
    size_t pixels = (size_t)w * h;
    for (size_t i = 0; i < pixels && i * bytes_per_sample < keep; i++) {
        unsigned v = bps == 8 ? pattern_u8((int)(i % w), (int)(i / w), 0, 0)
                              : pattern_u16((int)(i % w), (int)(i / w), 0, 0);
        putc((int)(v & 0xff), f);
        if (bps == 16 && i * 2 + 1 < keep)
            putc((int)(v >> 8), f);
    }
    if (fclose(f) != 0)
        die("hand TIFF", path);
    free(ifd);
}

/* Halves the StripByteCounts or TileByteCounts of a little-endian classic TIFF's first IFD. */
static void tiff_counts_halve(const char *path)
{
    size_t n;
    unsigned char *d = file_slurp(path, &n);
    uint32_t ifd = d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24;
    unsigned entries = d[ifd] | d[ifd + 1] << 8;
    for (unsigned i = 0; i < entries; i++) {
        unsigned char *e = d + ifd + 2 + 12 * i;
        unsigned tag = e[0] | e[1] << 8, type = e[2] | e[3] << 8;
        uint32_t count = e[4] | e[5] << 8 | e[6] << 16 | (uint32_t)e[7] << 24;
        if ((tag != 279 && tag != 325) || (type != 3 && type != 4))
            continue;
        unsigned size = type == 3 ? 2 : 4;   /* SHORT or LONG */
        unsigned char *v = count * size <= 4 ? e + 8
                         : d + (e[8] | e[9] << 8 | e[10] << 16 | (uint32_t)e[11] << 24);
        for (uint32_t k = 0; k < count; k++, v += size) {
            uint32_t x = 0;
            for (unsigned b = 0; b < size; b++)
                x |= (uint32_t)v[b] << (8 * b);
            for (unsigned b = 0; b < size; b++)
                v[b] = (unsigned char)((x / 2) >> (8 * b));
        }
    }
    bytes_write(path, d, n);
    free(d);
}

static void test_errors_tiff_damage(void)
{
    char path[4200], cut[4200];
    struct tiff_spec s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.width = 8;
    s.height = 8;

    /* The hand-written files are good when whole: the cuts below are what fails. */
    path_make(path, sizeof path, "hand_whole.tif");
    tiff_hand_write(path, 8, 8, 8, 2, SIZE_MAX);
    load_compare("hand_whole.tif", path, 0, &s, 0);
    path_make(path, sizeof path, "hand_whole_one_strip.tif");
    tiff_hand_write(path, 8, 8, 8, 8, SIZE_MAX);
    load_compare("hand_whole_one_strip.tif", path, 0, &s, 0);

    path_make(path, sizeof path, "hand_truncated.tif");
    tiff_hand_write(path, 8, 8, 8, 2, 29);   /* strips of 16 bytes: cut in strip 1 */
    expect_fail(path, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    path_make(path, sizeof path, "hand_truncated_one_strip.tif");
    tiff_hand_write(path, 8, 8, 8, 8, 29);
    expect_fail(path, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);

    /* Compressed strips cut short (their byte counts halved). */
    s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    path_make(path, sizeof path, "deflate_short.tif");
    tiff_write(path, &s, 1, "w");
    tiff_counts_halve(path);
    expect_fail(path, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    s.compression = COMPRESSION_LZW;
    s.tile = 16;
    path_make(path, sizeof path, "lzw_tiles_short.tif");
    tiff_write(path, &s, 1, "w");
    tiff_counts_halve(path);
    expect_fail(path, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
#ifdef TIFF_REPORTS_ALL_ERRORS
    if (TIFFIsCODECConfigured(COMPRESSION_JPEG)) {
        s = spec_grey(8, SAMPLEFORMAT_UINT);
        s.compression = COMPRESSION_JPEG;
        s.rows_per_strip = 16;
        path_make(path, sizeof path, "jpeg_short.tif");
        tiff_write(path, &s, 1, "w");
        tiff_counts_halve(path);
        expect_fail(path, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    }
#else
    printf("SKIP JPEG-compressed TIFF cut short: needs libtiff >= 4.5\n");
#endif

    /* A libtiff file cut in its pixel data: the IFD, written last, goes too. */
    s = spec_grey(16, SAMPLEFORMAT_UINT);
    path_make(path, sizeof path, "whole.tif");
    tiff_write(path, &s, 1, "w");
    path_make(cut, sizeof cut, "cut.tif");
    file_truncate_copy(path, cut, 8 + W * H);
    expect_fail(cut, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);

    /* Damaged header and IFD. */
    size_t n;
    unsigned char *d = file_slurp(path, &n);
    uint32_t ifd = d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24;
    path_make(cut, sizeof cut, "bad_ifd_offset.tif");
    memcpy(d + 4, "\x00\xff\xff\x7f", 4);
    bytes_write(cut, d, n);
    expect_fail(cut, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    memcpy(d + 4, &ifd, 4);   /* little-endian host, as the file */
    path_make(cut, sizeof cut, "bad_ifd_entries.tif");
    memset(d + ifd + 2, 0xff, n - ifd - 2 < 60 ? n - ifd - 2 : 60);
    bytes_write(cut, d, n);
    expect_fail(cut, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    path_make(cut, sizeof cut, "bad_ifd_count.tif");
    free(d);
    d = file_slurp(path, &n);
    d[ifd] = 0xff;
    d[ifd + 1] = 0xff;
    bytes_write(cut, d, n);
    expect_fail(cut, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
    free(d);

#ifdef TIFF_REPORTS_ALL_ERRORS
    /* A broken link to a second page refuses the file rather than hiding the page. */
    struct tiff_spec two[2] = { s, s };
    path_make(path, sizeof path, "two_pages.tif");
    tiff_write(path, two, 2, "w");
    d = file_slurp(path, &n);
    ifd = d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24;
    unsigned entries = d[ifd] | d[ifd + 1] << 8;
    memcpy(d + ifd + 2 + 12 * entries, "\xf0\xff\xff\x0f", 4);
    path_make(cut, sizeof cut, "two_pages_broken.tif");
    bytes_write(cut, d, n);
    free(d);
    expect_fail(cut, 0, CLX_ERR_FORMAT, TIFF_CORRUPT);
#else
    printf("SKIP broken link between pages: needs libtiff >= 4.5\n");
#endif
}

static void unsupported_case(const char *name, const struct tiff_spec *sp, const char *expect_fmt)
{
    char path[4200];
    path_make(path, sizeof path, name);
    tiff_write(path, sp, 1, "w");
    expect_fail(path, 0, CLX_ERR_FORMAT, expect_fmt);
}

static void test_errors_tiff_unsupported(void)
{
    struct tiff_spec s = spec_grey(16, SAMPLEFORMAT_INT);
    unsupported_case("signed16.tif", &s, "%s: signed integer samples are not supported");
    s = spec_grey(8, SAMPLEFORMAT_INT);
    unsupported_case("signed8.tif", &s, "%s: signed integer samples are not supported");
    s = spec_grey(1, SAMPLEFORMAT_UINT);
    unsupported_case("bilevel.tif", &s, "%s: 1-bit samples are not supported");
    s = spec_grey(4, SAMPLEFORMAT_UINT);
    unsupported_case("nibble.tif", &s, "%s: 4-bit samples are not supported");
    s = spec_grey(12, SAMPLEFORMAT_UINT);
    unsupported_case("twelve.tif", &s, "%s: 12-bit samples are not supported");
    s = spec_grey(32, SAMPLEFORMAT_UINT);
    unsupported_case("u32.tif", &s, "%s: 32-bit integer samples are not supported");
    s = spec_grey(64, SAMPLEFORMAT_IEEEFP);
    unsupported_case("f64.tif", &s, "%s: 64-bit floating-point samples are not supported");
    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.photometric = PHOTOMETRIC_PALETTE;
    unsupported_case("palette.tif", &s, "%s: palette (colour-mapped) images are not supported");
    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    s.photometric = PHOTOMETRIC_MINISWHITE;
    unsupported_case("f32_miniswhite.tif", &s, "%s: MINISWHITE (inverted) floating-point images");
    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.spp = 4;
    s.photometric = PHOTOMETRIC_SEPARATED;
    unsupported_case("cmyk.tif", &s, "%s: photometric interpretation 5 is not supported");

    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    s.nan_x = 5;
    s.nan_y = 7;
    s.nan_value = NAN;
    unsupported_case("f32_nan.tif", &s, "%s: non-finite pixel value at (5, 7)");
    s.tile = 16;
    s.nan_x = 36;
    s.nan_y = 22;
    s.nan_value = -INFINITY;
    unsupported_case("f32_inf_tiles.tif", &s, "%s: non-finite pixel value at (36, 22)");
    s.tile = 0;
    s.nan_x = 0;
    s.nan_y = 0;
    s.nan_value = INFINITY;
    struct tiff_spec two[2] = { spec_grey(32, SAMPLEFORMAT_IEEEFP), s };
    char path[4200];
    path_make(path, sizeof path, "f32_inf_page1.tif");
    tiff_write(path, two, 2, "w");
    load_compare("f32_inf_page1.tif page 0", path, 0, &two[0], 0);
    expect_fail(path, 1, CLX_ERR_FORMAT, "%s: page 1: non-finite pixel value at (0, 0)");
    /* Non-finite red, finite luminance formula or not: still refused. */
    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    s.nan_x = 2;
    s.nan_y = 3;
    s.nan_value = INFINITY;
    unsupported_case("rgbf32_inf.tif", &s, "%s: non-finite pixel value at (2, 3)");

    path_make(path, sizeof path, "too_wide.tif");
    tiff_hand_write(path, 70000, 1, 8, 1, 0);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: image of 70000x1 pixels is too large");
    path_make(path, sizeof path, "too_many_pixels.tif");
    tiff_hand_write(path, 40000, 40000, 8, 40000, 0);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: image of 40000x40000 pixels is too large");
}

static void test_errors_stb(void)
{
    char path[4200], cut[4200];

    path_make(path, sizeof path, "garbage.png");
    bytes_write(path, LITERAL("\x89PNG\r\n\x1a\nthis is not a chunk at all"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode PNG (stb_image: ");

    unsigned char *p = pattern_rgb8(3);
    path_make(path, sizeof path, "whole.png");
    if (!stbi_write_png(path, W, H, 3, p, W * 3))
        die("png", path);
    path_make(cut, sizeof cut, "truncated.png");
    file_truncate_copy(path, cut, file_size(path) / 2);
    expect_fail(cut, 0, CLX_ERR_FORMAT, "%s: cannot decode PNG (stb_image: Corrupt PNG)");

    path_make(path, sizeof path, "whole.bmp");
    if (!stbi_write_bmp(path, W, H, 3, p))
        die("bmp", path);
    path_make(cut, sizeof cut, "truncated.bmp");
    file_truncate_copy(path, cut, file_size(path) / 2);
    expect_fail(cut, 0, CLX_ERR_FORMAT, "%s: truncated BMP");

    path_make(path, sizeof path, "whole.jpg");
    if (!stbi_write_jpg(path, W, H, 3, p, 90))
        die("jpg", path);
    path_make(cut, sizeof cut, "truncated.jpg");
    file_truncate_copy(path, cut, file_size(path) / 2);
    expect_fail(cut, 0, CLX_ERR_FORMAT, "%s: cannot decode JPEG (stb_image: Corrupt JPEG)");
    path_make(cut, sizeof cut, "header_only.jpg");
    file_truncate_copy(path, cut, 4);
    expect_fail(cut, 0, CLX_ERR_FORMAT, "%s: cannot decode JPEG (stb_image: ");
    free(p);

    /* A Huffman table claiming 16 x 255 symbols: memory corruption in stb_image 2.27. */
    size_t n;
    unsigned char *d = file_slurp(path, &n);
    unsigned char *dht = NULL;
    for (size_t i = 0; i + 21 < n && !dht; i++)
        if (d[i] == 0xff && d[i + 1] == 0xc4)
            dht = d + i;
    CHECK(dht != NULL, "no DHT segment in %s", path);
    if (dht) {
        memset(dht + 5, 0xff, 16);
        path_make(cut, sizeof cut, "bad_huffman.jpg");
        bytes_write(cut, d, n);
        expect_fail(cut, 0, CLX_ERR_FORMAT,
                    "%s: cannot decode JPEG (a Huffman table has more than 256 symbols)");
    }
    free(d);

    path_make(path, sizeof path, "truncated.pgm");
    pnm_write(path, "P5\n%d %d\n255\n", 1, 8, W * 5 + 3);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: truncated PGM (pixel data ends in row 5 of 23)");
    path_make(path, sizeof path, "truncated16.ppm");
    pnm_write(path, "P6\n%d %d\n65535\n", 3, 16, 1);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: truncated PPM (pixel data ends in row 0 of 23)");
    path_make(path, sizeof path, "maxval.pgm");
    bytes_write(path, LITERAL("P5 2 2 70000\n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode PGM (bad header");
    path_make(path, sizeof path, "no_size.pgm");
    bytes_write(path, LITERAL("P5 \n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode PGM (bad header");
    path_make(path, sizeof path, "zero.pgm");
    bytes_write(path, LITERAL("P5 0 3 255\n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode PGM (image size 0x3)");
    path_make(path, sizeof path, "huge.pgm");
    bytes_write(path, LITERAL("P5 65537 2 255\n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: image of 65537x2 pixels is too large");
    path_make(path, sizeof path, "huge.pgm");
    bytes_write(path, LITERAL("P5 40000 40000 255\n"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: image of 40000x40000 pixels is too large");
}

/* ------------------------------------------------------------------------ */
/* Limits: headers that claim more than their file can hold, and what       */
/* stb_image 2.27 does not check (src/image/stb_check.c)                     */

/* The first offset of `a` (n bytes) in data, or NULL. */
static unsigned char *bytes_find(unsigned char *data, size_t size, const void *a, size_t n)
{
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, a, n) == 0)
            return data + i;
    return NULL;
}

/* Writes `data` with `patch` (n bytes) put where `at` (m bytes) first is, under `name`. */
static void patched_write(const char *name, char *path, size_t size, const unsigned char *data, size_t data_n,
                          const void *at, size_t m, const void *patch, size_t n)
{
    unsigned char *copy = malloc(data_n + n);
    unsigned char *where = copy ? bytes_find(memcpy(copy, data, data_n), data_n, at, m) : NULL;
    CHECK(where != NULL, "%s: the bytes to patch are not in its source", name);
    path_make(path, size, name);
    if (where) {
        /* Replaces m bytes by n: the rest moves. */
        memmove(where + n, where + m, data_n - (size_t)(where - copy) - m);
        memcpy(where, patch, n);
        bytes_write(path, copy, data_n - m + n);
    }
    free(copy);
}

/* Headers claiming more than their file holds, refused before the pixels are allocated. */
static void test_errors_limits(void)
{
    char path[4200];

    /* A 45-byte PNG claiming 30000 x 30000 pixels (stb itself refuses more than 2^30 bytes). */
    unsigned char ihdr[13] = { 0 };
    be32_put(ihdr, 30000);
    be32_put(ihdr + 4, 30000);
    ihdr[8] = 1;   /* 1-bit grey: the most pixels per byte PNG can code */
    path_make(path, sizeof path, "huge_claim.png");
    FILE *f = fopen(path, "wb");
    if (!f)
        die("png", path);
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    png_chunk(f, "IHDR", ihdr, sizeof ihdr);
    png_chunk(f, "IEND", NULL, 0);
    fclose(f);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: corrupt or truncated PNG (an image of 30000x30000 pixels "
                "cannot be coded in 45 bytes)");

    /* A 2 x 2 PNG whose data chunk claims a gigabyte: stb_image would allocate it before reading. */
    be32_put(ihdr, 2);
    be32_put(ihdr + 4, 2);
    ihdr[8] = 8;
    path_make(path, sizeof path, "huge_chunk.png");
    if (!(f = fopen(path, "wb")))
        die("png", path);
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    png_chunk(f, "IHDR", ihdr, sizeof ihdr);
    fwrite("\x3f\xff\0\0IDAT\x78\x01", 1, 10, f);
    fclose(f);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: corrupt PNG (stb_image asked for 1073676288 bytes, more than "
                "its image can need)");

    /* An uncompressed TIFF of 30000 x 30000 in one strip, without its pixels. */
    path_make(path, sizeof path, "huge_claim.tif");
    tiff_hand_write(path, 30000, 30000, 8, 30000, 0);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: corrupt or truncated TIFF (its strips hold 0 bytes, too few "
                "for a 30000x30000 page of 900000000 bytes)");

    /* A PGM header claiming 30000 x 30000 pixels, with a few. */
    path_make(path, sizeof path, "huge_claim.pgm");
    bytes_write(path, LITERAL("P5 30000 30000 255\n0123456789"));
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: truncated PGM (pixel data ends in row 0 of 30000)");

    unsigned char *p = pattern_rgb8(3);
    char whole[4200];
    path_make(whole, sizeof whole, "limits.jpg");
    if (!stbi_write_jpg(whole, W, H, 3, p, 90))
        die("jpg", whole);
    free(p);
    size_t n;
    unsigned char *jpg = file_slurp(whole, &n);
    /* The frame header (SOF0) claiming 30000 x 30000 pixels. */
    char want[4400];
    snprintf(want, sizeof want, "%%s: corrupt or truncated JPEG (an image of 30000x30000 pixels cannot be "
             "coded in %zu bytes)", n);
    patched_write("huge_claim.jpg", path, sizeof path, jpg, n, "\xff\xc0\0\x11\x08\0\x17\0\x25", 9,
                  "\xff\xc0\0\x11\x08\x75\x30\x75\x30", 9);
    expect_fail(path, 0, CLX_ERR_FORMAT, want);
    free(jpg);
}

/* What stb_image 2.27 would decode from memory it never wrote, refused first. */
static void test_errors_stb_structure(void)
{
    char path[4200], whole[4200];
    unsigned char *p = pattern_rgb8(3);
    path_make(whole, sizeof whole, "structure.jpg");
    if (!stbi_write_jpg(whole, W, H, 3, p, 90))
        die("jpg", whole);
    free(p);
    size_t n;
    unsigned char *jpg = file_slurp(whole, &n);
    /* stb's writer defines quantization tables 0 and 1 in one DQT; table 0 becomes table 2. */
    patched_write("undefined_dqt.jpg", path, sizeof path, jpg, n, "\xff\xdb\0\x84\0", 5, "\xff\xdb\0\x84\x02", 5);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode JPEG (a scan uses a quantization table the file "
                "does not define)");
    /* ... and its four Huffman tables in one DHT, DC table 0 first; it becomes DC table 2. */
    patched_write("undefined_dht.jpg", path, sizeof path, jpg, n, "\xff\xc4\x01\xa2\x00", 5,
                  "\xff\xc4\x01\xa2\x02", 5);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode JPEG (a scan uses a Huffman table the file does "
                "not define)");
    /* Its one scan without the third component (Cr). */
    patched_write("no_scan.jpg", path, sizeof path, jpg, n, "\xff\xda\0\x0c\x03\x01\x00\x02\x11\x03\x11", 11,
                  "\xff\xda\0\x0a\x02\x01\x00\x02\x11", 9);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode JPEG (a component has no scan)");
    free(jpg);

    /* An 8-bit BMP of 2 colours whose pixels index colour 5. */
    unsigned char bmp[14 + 40 + 8 + 4 * 2] = { 'B', 'M' };
    unsigned char *h = bmp + 14;
    bmp[10] = 14 + 40 + 8;   /* pixel data offset */
    h[0] = 40;
    h[4] = 4;               /* 4 x 2 */
    h[8] = 2;
    h[12] = 1;              /* planes */
    h[14] = 8;              /* bits per pixel */
    memset(bmp + 14 + 40, 0x80, 8);   /* two grey colours */
    memset(bmp + 14 + 40 + 8, 1, 8);
    bmp[14 + 40 + 8 + 5] = 5;
    path_make(path, sizeof path, "past_palette.bmp");
    bytes_write(path, bmp, sizeof bmp);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode BMP (a pixel's colour index is past the palette)");
    /* Within its 2 colours, the same file loads: a short palette is not an error. */
    bmp[14 + 40 + 8 + 5] = 1;
    path_make(path, sizeof path, "short_palette.bmp");
    bytes_write(path, bmp, sizeof bmp);
    clx_image im;
    clx_message msg;
    int rc = clx_image_load(path, 0, &im, &msg);
    CHECK(rc == CLX_OK && im.width == 4 && im.height == 2 && ((unsigned char *)im.pixels)[5] == 0x80,
          "%s: %s", path, rc == CLX_OK ? "other pixels" : msg.text);
    clx_image_free(&im);
    bmp[10] = 30;           /* pixel data inside the header */
    path_make(path, sizeof path, "offset_in_header.bmp");
    bytes_write(path, bmp, sizeof bmp);
    expect_fail(path, 0, CLX_ERR_FORMAT, "%s: cannot decode BMP (its pixel data starts inside its header)");
}

/* A top-down BMP (negative height) gives the pixels its bottom-up twin gives. */
static void test_bmp_top_down(void)
{
    char up[4200], down[4200];
    unsigned char *p = pattern_rgb8(3);
    path_make(up, sizeof up, "bottom_up.bmp");
    if (!stbi_write_bmp(up, W, H, 3, p))
        die("bmp", up);
    free(p);
    size_t n;
    unsigned char *d = file_slurp(up, &n);
    uint32_t offset = d[10] | d[11] << 8, row = (W * 3 + 3) / 4 * 4;
    unsigned char *flipped = malloc(n);
    if (!flipped)
        die("memory", up);
    memcpy(flipped, d, offset);
    for (uint32_t y = 0; y < H; y++)
        memcpy(flipped + offset + y * row, d + offset + (H - 1 - y) * row, row);
    int32_t height = -H;
    memcpy(flipped + 22, &height, 4);   /* little-endian, as BMP */
    path_make(down, sizeof down, "top_down.bmp");
    bytes_write(down, flipped, n);
    free(flipped);
    free(d);

    clx_image a, b;
    clx_message msg;
    int rc_a = clx_image_load(up, 0, &a, &msg);
    CHECK(rc_a == CLX_OK, "%s: %s", up, msg.text);
    int rc_b = clx_image_load(down, 0, &b, &msg);
    CHECK(rc_b == CLX_OK, "%s: %s", down, msg.text);
    if (rc_a == CLX_OK && rc_b == CLX_OK)
        CHECK(a.width == W && b.width == W && a.height == H && b.height == H
              && memcmp(a.pixels, b.pixels, (size_t)W * H) == 0, "a top-down BMP gives other pixels");
    clx_image_free(&a);
    clx_image_free(&b);
}

/* ------------------------------------------------------------------------ */
/* clx_image_load_into: clx_image_load's pixels, in the caller's buffer      */

static const char *type_label(clx_pixel_type type)
{
    return type == CLX_PIXEL_U8 ? "u8" : type == CLX_PIXEL_U16 ? "u16" : "f32";
}

/* A w x h image of `type` full of junk, which a load must overwrite entirely. */
static void junk_make(clx_image *im, int w, int h, clx_pixel_type type)
{
    size_t bytes = (size_t)w * h * clx_pixel_size(type);
    *im = (clx_image){ w, h, type, malloc(bytes) };
    if (!im->pixels)
        die("memory", "junk");
    memset(im->pixels, 0x5a, bytes);
}

/* Page `page` of path loaded into a `type` buffer, byte for byte against clx_image_load + clx_image_copy_to. */
static void into_compare(const char *what, const char *path, int page, clx_pixel_type type)
{
    clx_image ref, want, got;
    clx_message msg;
    int rc = clx_image_load(path, page, &ref, &msg);
    CHECK(rc == CLX_OK, "%s: clx_image_load: %s", what, msg.text);
    if (rc != CLX_OK)
        return;
    junk_make(&want, ref.width, ref.height, type);
    junk_make(&got, ref.width, ref.height, type);
    rc = clx_image_copy_to(&ref, &want, &msg);
    CHECK(rc == CLX_OK, "%s: clx_image_copy_to: %s", what, msg.text);
    strcpy(msg.text, "stale");
    rc = clx_image_load_into(path, page, &got, &msg);
    CHECK(rc == CLX_OK && msg.text[0] == '\0', "%s: %s \"%s\"", what, clx_status_name(rc), msg.text);
    CHECK(got.width == ref.width && got.height == ref.height && got.type == type, "%s: dst changed", what);
    size_t bytes = (size_t)ref.width * ref.height * clx_pixel_size(type);
    CHECK(rc != CLX_OK || memcmp(got.pixels, want.pixels, bytes) == 0, "%s: pixels differ from clx_image_load's",
          what);
    clx_image_free(&ref);
    clx_image_free(&want);
    clx_image_free(&got);
}

/* into_compare into every type as wide as the file's or wider. */
static void into_all_types(const char *name, const char *path, int page, clx_pixel_type narrowest)
{
    for (int t = narrowest; t <= CLX_PIXEL_F32; t++) {
        char what[128];
        snprintf(what, sizeof what, "%s page %d into %s", name, page, type_label((clx_pixel_type)t));
        into_compare(what, path, page, (clx_pixel_type)t);
    }
}

/* Writes sp (mode as tiff_write's) and loads it into every type that holds its pixels. */
static void into_case(const char *name, const struct tiff_spec *sp, const char *mode)
{
    if (!TIFFIsCODECConfigured((uint16_t)sp->compression)) {
        printf("SKIP %s: libtiff lacks compression %d\n", name, sp->compression);
        return;
    }
    char path[4200];
    path_make(path, sizeof path, name);
    tiff_write(path, sp, 1, mode);
    load_compare(name, path, 0, sp, 0);   /* the reference itself is right */
    into_all_types(name, path, 0, spec_type(sp));
}

/* One failing load_into: status, message (with %s for the path), dst's description untouched. */
static void into_fail(const char *path, int page, clx_image *dst, int status, const char *expect_fmt)
{
    clx_image before = *dst;
    clx_message msg;
    char want[4400];
    snprintf(want, sizeof want, expect_fmt, path);
    int rc = clx_image_load_into(path, page, dst, &msg);
    CHECK(rc == status, "%s: status %s, want %s (%s)", path, clx_status_name(rc), clx_status_name(status),
          msg.text);
    CHECK(strstr(msg.text, want) != NULL, "message \"%s\" lacks \"%s\"", msg.text, want);
    CHECK(strchr(msg.text, '\n') == NULL, "message has a newline: \"%s\"", msg.text);
    printf("ok: %s: %s\n", clx_status_name(rc), msg.text);
    CHECK(dst->width == before.width && dst->height == before.height && dst->type == before.type
          && dst->pixels == before.pixels, "%s: dst's description changed", path);
}

/* Moves the strips of a tiff_hand_write file (several strips of strip_bytes) into reverse order. */
static void tiff_hand_strips_reverse(const char *path, uint32_t strips, uint32_t strip_bytes)
{
    size_t n;
    unsigned char *d = file_slurp(path, &n);
    unsigned char *out = malloc(n);
    uint32_t arrays = 8 + 2 + 12 * 9 + 4, data = arrays + 8 * strips;
    if (!out || n != data + (size_t)strips * strip_bytes)
        die("strip reversal", path);
    memcpy(out, d, data);
    for (uint32_t s = 0; s < strips; s++) {
        uint32_t at = data + (strips - 1 - s) * strip_bytes;
        memcpy(out + at, d + data + s * strip_bytes, strip_bytes);
        for (int k = 0; k < 4; k++)
            out[arrays + 4 * s + k] = (unsigned char)(at >> (8 * k));
    }
    bytes_write(path, out, n);
    free(out);
    free(d);
}

/*
 * clx_image_load_rows_into with rows 2-4 and 11-14 wanted (H = 23): an
 * uncompressed 16-bit page (either byte order) gives those rows and leaves
 * the others as they were; a compressed page, and 8-bit pixels widened
 * into 16-bit ones, are read whole; a run outside the image is refused.
 */
static void rows_case(const char *name, const struct tiff_spec *sp, const char *mode, int rows_alone)
{
    const clx_rows runs[2] = { { 2, 3 }, { 11, 4 } };
    const uint16_t untouched = 0xBEEF;
    char path[4200];
    uint16_t pixels[W * H];
    clx_image dst = { W, H, CLX_PIXEL_U16, pixels };
    clx_message msg;
    path_make(path, sizeof path, name);
    tiff_write(path, sp, 1, mode);
    for (int i = 0; i < W * H; i++)
        pixels[i] = untouched;
    int rc = clx_image_load_rows_into(path, 0, &dst, runs, 2, &msg);
    CHECK(rc == CLX_OK, "%s: %s: %s", name, clx_status_name(rc), msg.text);
    int wrong = 0, left = 0;
    for (int y = 0; y < H; y++) {
        int wanted = (y >= 2 && y < 5) || (y >= 11 && y < 15);
        for (int x = 0; x < W; x++) {
            double v = pixels[y * W + x], want = expected(sp, x, y, 0);   /* widening keeps values */
            wrong += (wanted || !rows_alone) && v != want;
            left += !wanted && v == untouched;
        }
    }
    CHECK(wrong == 0, "%s: %d pixels of the rows read differ", name, wrong);
    CHECK(rows_alone ? left == W * (H - 7) : left == 0, "%s: %d pixels outside the rows left alone, want %d", name,
          left, rows_alone ? W * (H - 7) : 0);
}

static void test_rows_into_tiff(void)
{
    struct tiff_spec s = spec_grey(16, SAMPLEFORMAT_UINT);
    rows_case("rows_u16.tif", &s, "w", 1);
    rows_case("rows_u16_big_endian.tif", &s, "wb", 1);
    s.compression = COMPRESSION_LZW;
    rows_case("rows_u16_lzw.tif", &s, "w", 0);
    s = spec_grey(8, SAMPLEFORMAT_UINT);
    rows_case("rows_u8_widened.tif", &s, "w", 0);

    char path[4200];
    uint16_t pixels[W * H];
    clx_image dst = { W, H, CLX_PIXEL_U16, pixels };
    /* clx_image_copy_rows_to: the same runs from an image in memory. */
    uint16_t from_pixels[W * H];
    for (int i = 0; i < W * H; i++)
        from_pixels[i] = (uint16_t)i, pixels[i] = 0xBEEF;
    const clx_rows runs[2] = { { 2, 3 }, { 11, 4 } };
    clx_image from = { W, H, CLX_PIXEL_U16, from_pixels };
    clx_message copy_msg;
    int copy_rc = clx_image_copy_rows_to(&from, &dst, runs, 2, &copy_msg), copy_wrong = 0;
    for (int i = 0; i < W * H; i++) {
        int y = i / W, wanted = (y >= 2 && y < 5) || (y >= 11 && y < 15);
        copy_wrong += pixels[i] != (wanted ? from_pixels[i] : 0xBEEF);
    }
    CHECK(copy_rc == CLX_OK && copy_wrong == 0, "clx_image_copy_rows_to: %s, %d pixels wrong", clx_status_name(copy_rc),
          copy_wrong);
    const clx_rows outside = { H - 1, 2 };
    clx_message msg;
    path_make(path, sizeof path, "rows_u16.tif");
    int rc = clx_image_load_rows_into(path, 0, &dst, &outside, 1, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT && strstr(msg.text, "rows 22 to 23 are not inside the 23 rows") != NULL,
          "rows past the image: %s: %s", clx_status_name(rc), msg.text);
}

static void test_into_tiff(void)
{
    struct tiff_spec s = spec_grey(8, SAMPLEFORMAT_UINT);
    into_case("into_u8_strips.tif", &s, "w");
    s.rows_per_strip = 100;
    into_case("into_u8_one_strip.tif", &s, "w");
    s.photometric = PHOTOMETRIC_MINISWHITE;   /* inverted: decoded */
    into_case("into_u8_miniswhite.tif", &s, "w");
    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    into_case("into_u8_deflate.tif", &s, "w");

    s = spec_grey(16, SAMPLEFORMAT_UINT);
    into_case("into_u16_strips.tif", &s, "w");
    into_case("into_u16_big_endian.tif", &s, "wb");
    into_case("into_u16_bigtiff.tif", &s, "w8");
    s.fill_order = FILLORDER_LSB2MSB;   /* bits reversed in every byte: libtiff undoes it */
    into_case("into_u16_lsb2msb.tif", &s, "w");
    s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.compression = COMPRESSION_LZW;
    s.predictor = PREDICTOR_HORIZONTAL;
    into_case("into_u16_lzw.tif", &s, "w");
    s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.tile = 16;
    into_case("into_u16_tiles.tif", &s, "w");
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    into_case("into_u16_tiles_deflate.tif", &s, "wb");

    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    into_case("into_f32_strips.tif", &s, "w");
    into_case("into_f32_big_endian.tif", &s, "wb");
    s.compression = COMPRESSION_ADOBE_DEFLATE;
    s.predictor = PREDICTOR_FLOATINGPOINT;
    into_case("into_f32_deflate.tif", &s, "w");

    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    into_case("into_rgb8.tif", &s, "w");
    s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    s.planar = PLANARCONFIG_SEPARATE;
    into_case("into_rgb16_separate.tif", &s, "w");

    /* Pages of different layouts, sizes and types, in and out of order. */
    char path[4200];
    struct tiff_spec pages[3] = { spec_grey(16, SAMPLEFORMAT_UINT), spec_grey(16, SAMPLEFORMAT_UINT),
                                  spec_grey(8, SAMPLEFORMAT_UINT) };
    pages[1].tile = 16;
    pages[1].compression = COMPRESSION_LZW;
    pages[2].width = 10;
    pages[2].height = 5;
    path_make(path, sizeof path, "into_pages.tif");
    tiff_write(path, pages, 3, "w");
    into_all_types("into_pages.tif", path, 1, CLX_PIXEL_U16);
    into_all_types("into_pages.tif", path, 2, CLX_PIXEL_U8);
    into_all_types("into_pages.tif", path, 0, CLX_PIXEL_U16);

    /* Hand-written with the IFD first: 16-bit, and strips stored in reverse order (decoded). */
    path_make(path, sizeof path, "into_hand16.tif");
    tiff_hand_write(path, 8, 8, 16, 2, SIZE_MAX);
    into_all_types("into_hand16.tif", path, 0, CLX_PIXEL_U16);
    path_make(path, sizeof path, "into_hand_reversed.tif");
    tiff_hand_write(path, 8, 8, 8, 2, SIZE_MAX);
    tiff_hand_strips_reverse(path, 4, 16);
    s = spec_grey(8, SAMPLEFORMAT_UINT);
    s.width = s.height = 8;
    load_compare("into_hand_reversed.tif", path, 0, &s, 0);
    into_all_types("into_hand_reversed.tif", path, 0, CLX_PIXEL_U8);
}

static void test_into_other(void)
{
    char path[4200];
    unsigned char *p = pattern_rgb8(1);
    path_make(path, sizeof path, "into_grey.png");
    if (!stbi_write_png(path, W, H, 1, p, W))
        die("stbi_write_png", path);
    into_all_types("into_grey.png", path, 0, CLX_PIXEL_U8);
    free(p);
    p = pattern_rgb8(3);
    path_make(path, sizeof path, "into_rgb.bmp");
    if (!stbi_write_bmp(path, W, H, 3, p))
        die("stbi_write_bmp", path);
    into_all_types("into_rgb.bmp", path, 0, CLX_PIXEL_U8);
    free(p);
    path_make(path, sizeof path, "into_grey16.png");
    png16_write(path, 1);
    into_all_types("into_grey16.png", path, 0, CLX_PIXEL_U16);
    path_make(path, sizeof path, "into_grey8.pgm");
    pnm_write(path, "P5\n%d %d\n255\n", 1, 8, SIZE_MAX);
    into_all_types("into_grey8.pgm", path, 0, CLX_PIXEL_U8);
    path_make(path, sizeof path, "into_grey16.pgm");
    pnm_write(path, "P5\n%d %d\n65535\n", 1, 16, SIZE_MAX);
    into_all_types("into_grey16.pgm", path, 0, CLX_PIXEL_U16);
}

/* Also on files test_into_tiff and test_into_other wrote. */
static void test_into_errors(void)
{
    char path[4200], cut[4200];
    clx_image dst;
    clx_message msg;

    /* The caller's image. */
    CHECK(clx_image_load_into("x.tif", 0, NULL, &msg) == CLX_ERR_ARGUMENT, "NULL dst");
    dst = (clx_image){ W, H, CLX_PIXEL_U16, NULL };
    CHECK(clx_image_load_into("x.tif", 0, &dst, &msg) == CLX_ERR_ARGUMENT, "dst without pixels");
    junk_make(&dst, W, H, CLX_PIXEL_U16);
    dst.type = (clx_pixel_type)0;
    CHECK(clx_image_load_into("x.tif", 0, &dst, &msg) == CLX_ERR_ARGUMENT, "dst of type 0");
    dst.type = CLX_PIXEL_U16;
    path_make(path, sizeof path, "into_missing.tif");
    into_fail(path, 0, &dst, CLX_ERR_IO, "%s: No such file or directory");

    /* Sizes: the direct path, pages, and a decoded format. */
    struct tiff_spec s = spec_grey(16, SAMPLEFORMAT_UINT);
    path_make(path, sizeof path, "into_u16.tif");
    tiff_write(path, &s, 1, "w");
    into_fail(path, 1, &dst, CLX_ERR_ARGUMENT, "%s: page 1 is out of range (the file has 1 page)");
    clx_image narrow = dst;
    narrow.width = W - 1;
    into_fail(path, 0, &narrow, CLX_ERR_SIZE, "%s is 37x23, not 36x23");
    path_make(path, sizeof path, "into_pages.tif");
    into_fail(path, 2, &dst, CLX_ERR_SIZE, "%s: page 2 is 10x5, not 37x23");
    path_make(path, sizeof path, "into_grey.png");
    narrow.height = H + 1;
    into_fail(path, 0, &narrow, CLX_ERR_SIZE, "%s is 37x23, not 36x24");

    /* Types wider than dst's: refused before reading, on both paths. */
    clx_image u8 = dst;
    u8.type = CLX_PIXEL_U8;
    path_make(path, sizeof path, "into_u16.tif");
    into_fail(path, 0, &u8, CLX_ERR_FORMAT, "%s: 16-bit pixels cannot become 8-bit without loss");
    path_make(path, sizeof path, "into_grey16.png");
    into_fail(path, 0, &u8, CLX_ERR_FORMAT, "%s: 16-bit pixels cannot become 8-bit without loss");
    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    path_make(path, sizeof path, "into_f32.tif");
    tiff_write(path, &s, 1, "w");
    into_fail(path, 0, &dst, CLX_ERR_FORMAT, "%s: 32-bit float pixels cannot become 16-bit without loss");
    s.compression = COMPRESSION_LZW;
    path_make(path, sizeof path, "into_f32_lzw.tif");
    tiff_write(path, &s, 1, "w");
    into_fail(path, 0, &dst, CLX_ERR_FORMAT, "%s: 32-bit float pixels cannot become 16-bit without loss");
    clx_image_free(&dst);

    /* Non-finite floats are refused on the direct path too. */
    junk_make(&dst, W, H, CLX_PIXEL_F32);
    s = spec_grey(32, SAMPLEFORMAT_IEEEFP);
    s.nan_x = 5;
    s.nan_y = 7;
    s.nan_value = NAN;
    path_make(path, sizeof path, "into_f32_nan.tif");
    tiff_write(path, &s, 1, "wb");
    into_fail(path, 0, &dst, CLX_ERR_FORMAT, "%s: non-finite pixel value at (5, 7)");
    clx_image_free(&dst);

    /* Files cut short: a short read is an error naming the file, never a crash or stale pixels. */
    junk_make(&dst, 8, 8, CLX_PIXEL_U16);
    path_make(cut, sizeof cut, "into_cut8.tif");
    tiff_hand_write(cut, 8, 8, 8, 2, 29);
    into_fail(cut, 0, &dst, CLX_ERR_FORMAT, "%s: corrupt or truncated TIFF (its pixel data ends after 29 of 64 bytes)");
    tiff_hand_write(cut, 8, 8, 8, 8, 0);
    into_fail(cut, 0, &dst, CLX_ERR_FORMAT, "%s: corrupt or truncated TIFF (its pixel data ends after 0 of 64 bytes)");
    path_make(cut, sizeof cut, "into_cut16.tif");
    tiff_hand_write(cut, 8, 8, 16, 2, 127);
    into_fail(cut, 0, &dst, CLX_ERR_FORMAT, "%s: corrupt or truncated TIFF (its pixel data ends after 127 of 128 bytes)");
    clx_image_free(&dst);
    junk_make(&dst, W, H, CLX_PIXEL_U16);
    path_make(path, sizeof path, "into_u16.tif");
    path_make(cut, sizeof cut, "into_cut_libtiff.tif");
    file_truncate_copy(path, cut, 8 + W * H);   /* the IFD, written last, goes too */
    into_fail(cut, 0, &dst, CLX_ERR_FORMAT, TIFF_CORRUPT);
    clx_image_free(&dst);
}

/* ------------------------------------------------------------------------ */
/* The API's own checks                                                      */

static void test_api(void)
{
    CHECK(clx_pixel_size(CLX_PIXEL_U8) == 1 && clx_pixel_size(CLX_PIXEL_U16) == 2
          && clx_pixel_size(CLX_PIXEL_F32) == 4 && clx_pixel_size((clx_pixel_type)0) == 0,
          "clx_pixel_size");
    clx_image im;
    clx_message msg;
    CHECK(clx_image_alloc(&im, 3, 2, CLX_PIXEL_F32, &msg) == CLX_OK && im.pixels && im.width == 3
          && im.height == 2 && im.type == CLX_PIXEL_F32, "alloc: %s", msg.text);
    clx_image_free(&im);
    CHECK(im.pixels == NULL && im.width == 0, "free did not clear");
    clx_image_free(&im);    /* twice, and on a zeroed struct: harmless */
    clx_image_free(NULL);
    CHECK(clx_image_alloc(&im, 0, 2, CLX_PIXEL_U8, &msg) == CLX_ERR_ARGUMENT && !im.pixels,
          "alloc 0x2: %s", msg.text);
    CHECK(clx_image_alloc(&im, 65537, 1, CLX_PIXEL_U8, &msg) == CLX_ERR_ARGUMENT, "alloc wide");
    CHECK(clx_image_alloc(&im, 65536, 32768, CLX_PIXEL_U8, &msg) == CLX_ERR_ARGUMENT,
          "alloc 2^31 pixels");
    CHECK(clx_image_alloc(&im, 2, 2, (clx_pixel_type)9, NULL) == CLX_ERR_ARGUMENT, "alloc type 9");
    CHECK(clx_image_alloc(NULL, 2, 2, CLX_PIXEL_U8, &msg) == CLX_ERR_ARGUMENT, "alloc NULL");

    clx_image_file *file = (clx_image_file *)&im;
    CHECK(clx_image_file_open(NULL, &file, &msg) == CLX_ERR_ARGUMENT && file == NULL,
          "open NULL path");
    CHECK(clx_image_file_open("x", NULL, &msg) == CLX_ERR_ARGUMENT, "open NULL file");
    CHECK(clx_image_file_pages(NULL) == 0, "pages of NULL");
    clx_image_file_close(NULL);
    CHECK(clx_image_load(NULL, 0, &im, NULL) == CLX_ERR_ARGUMENT && im.pixels == NULL,
          "load NULL path");

    /* Success clears the message. */
    char path[4200];
    unsigned char grey[4] = { 1, 2, 3, 4 };
    path_make(path, sizeof path, "api.png");
    if (!stbi_write_png(path, 2, 2, 1, grey, 2))
        die("png", path);
    strcpy(msg.text, "stale");
    CHECK(clx_image_load(path, 0, &im, &msg) == CLX_OK && msg.text[0] == '\0',
          "message not cleared: %s", msg.text);
    /* Integers are finite whatever they hold. */
    strcpy(msg.text, "stale");
    CHECK(clx_image_check_finite(&im, "api.png", &msg) == CLX_OK && msg.text[0] == '\0',
          "finite check of 8-bit pixels: %s", msg.text);
    clx_image_free(&im);

    /* The first bad pixel row by row, whatever its kind, named in the loaders' words. */
    CHECK(clx_image_alloc(&im, 4, 3, CLX_PIXEL_F32, &msg) == CLX_OK, "alloc 4x3: %s", msg.text);
    float *f = im.pixels;
    for (int i = 0; i < 12; i++)
        f[i] = (float)i - 5.5f;
    CHECK(clx_image_check_finite(&im, "image 3", &msg) == CLX_OK, "finite floats: %s", msg.text);
    f[2 * 4 + 1] = -INFINITY;
    f[1 * 4 + 3] = NAN;
    CHECK(clx_image_check_finite(&im, "image 3", &msg) == CLX_ERR_FORMAT &&
          strcmp(msg.text, "image 3: non-finite pixel value at (3, 1)") == 0, "NaN at (3, 1): %s", msg.text);
    f[1 * 4 + 3] = 3.4e38f;
    CHECK(clx_image_check_finite(&im, "image 3", &msg) == CLX_ERR_FORMAT &&
          strcmp(msg.text, "image 3: non-finite pixel value at (1, 2)") == 0, "-Inf at (1, 2): %s", msg.text);
    CHECK(clx_image_check_finite(NULL, "x", &msg) == CLX_ERR_ARGUMENT, "finite check of NULL");
    clx_image_free(&im);
}

/* ------------------------------------------------------------------------ */
/* Two threads at once: per-file libtiff handlers, thread-local stb errors   */

struct thread_job {
    char good[4200], bad[4200];
    const struct tiff_spec *spec;
    int errors;
};

static void *thread_run(void *arg)
{
    struct thread_job *job = arg;
    clx_image into;
    junk_make(&into, job->spec->width, job->spec->height, CLX_PIXEL_F32);
    for (int i = 0; i < 20; i++) {
        clx_image im;
        clx_message msg;
        if (clx_image_load(job->good, 0, &im, &msg) != CLX_OK || im.width != job->spec->width)
            job->errors++;
        clx_image_free(&im);
        if (clx_image_load_into(job->good, 0, &into, &msg) != CLX_OK
            || ((float *)into.pixels)[1] != (float)pattern_u16(1, 0, 0, 0))
            job->errors++;
        if (clx_image_load(job->bad, 0, &im, &msg) != CLX_ERR_FORMAT
            || !strstr(msg.text, job->bad))
            job->errors++;
    }
    clx_image_free(&into);
    return NULL;
}

static void test_threads(void)
{
    struct tiff_spec s = spec_grey(16, SAMPLEFORMAT_UINT);
    s.compression = COMPRESSION_LZW;
    s.tile = 16;
    struct thread_job jobs[4];
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) {
        char name[64];
        jobs[t].spec = &s;
        jobs[t].errors = 0;
        snprintf(name, sizeof name, "thread%d.tif", t);
        path_make(jobs[t].good, sizeof jobs[t].good, name);
        tiff_write(jobs[t].good, &s, 1, "w");
        snprintf(name, sizeof name, "thread%d_bad.%s", t, t % 2 ? "png" : "tif");
        path_make(jobs[t].bad, sizeof jobs[t].bad, name);
        if (t % 2)
            bytes_write(jobs[t].bad, LITERAL("\x89PNG\r\n\x1a\nnot a chunk, not at all"));
        else
            bytes_write(jobs[t].bad, LITERAL("II*\0\xff\xff\x00\x00"));
    }
    for (int t = 0; t < 4; t++)
        if (pthread_create(&threads[t], NULL, thread_run, &jobs[t]) != 0)
            die("pthread_create", "");
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        CHECK(jobs[t].errors == 0, "thread %d: %d wrong results", t, jobs[t].errors);
    }
}

/* ------------------------------------------------------------------------ */

static void dir_remove(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4200];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        path_make(path, sizeof path, e->d_name);
        remove(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/*
 * clx_image_copy_to of a large image of one type (the streaming copy of
 * src/image/image.c, used above 256 KB): every byte arrives, whatever the
 * destination's alignment, and the bytes around it stay untouched.
 */
static void test_copy_large(void)
{
    clx_message msg;
    clx_image src;
    int w = 601, h = 433;      /* 520,466 bytes: not a multiple of 16 or 64 */
    CHECK(clx_image_alloc(&src, w, h, CLX_PIXEL_U16, &msg) == CLX_OK, "alloc: %s", msg.text);
    uint16_t *sp = src.pixels;
    for (size_t i = 0; i < (size_t)w * h; i++)
        sp[i] = (uint16_t)(i * 2654435761u >> 7);
    size_t bytes = (size_t)w * h * 2;
    unsigned char *buf = malloc(bytes + 64);
    for (size_t offset = 0; buf && offset < 16; offset += 2) {
        memset(buf, 0xA5, bytes + 64);
        clx_image dst = src;
        dst.pixels = buf + offset;
        int rc = clx_image_copy_to(&src, &dst, &msg);
        CHECK(rc == CLX_OK, "copy at offset %zu: %s", offset, msg.text);
        CHECK(memcmp(buf + offset, src.pixels, bytes) == 0, "copy at offset %zu: the pixels differ", offset);
        int guard_ok = 1;
        for (size_t i = 0; i < offset; i++)
            guard_ok &= buf[i] == 0xA5;
        for (size_t i = offset + bytes; i < bytes + 64; i++)
            guard_ok &= buf[i] == 0xA5;
        CHECK(guard_ok, "copy at offset %zu wrote outside the destination", offset);
    }
    free(buf);
    clx_image_free(&src);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/clxcorr-image-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: cannot create a temporary directory under %s\n", tmp && *tmp ? tmp : "/tmp");
        return 1;
    }
    /* Only for the files this test writes; the library sets its own per-file handlers. */
    TIFFSetWarningHandler(NULL);

    test_api();
    test_tiff_grey();
    test_tiff_variants();
    test_tiff_rgb();
    test_tiff_rgb_known();
    test_tiff_jpeg();
    test_tiff_pages();
    test_image_names();
    test_png_bmp();
    test_jpeg();
    test_pnm();
    test_png16();
    test_errors_basic();
    test_errors_tiff_damage();
    test_errors_tiff_unsupported();
    test_errors_stb();
    test_errors_limits();
    test_errors_stb_structure();
    test_bmp_top_down();
    test_into_tiff();
    test_rows_into_tiff();
    test_into_other();
    test_into_errors();
    test_threads();
    test_copy_large();

    if (!getenv("KEEP"))
        dir_remove();
    if (test_failures) {
        printf("%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_image_io: all checks passed\n");
    return 0;
}
