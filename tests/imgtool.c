/*
 * imgtool.c - writes test images for the shell tests from existing ones:
 *
 *   imgtool pages OUT.tif IN...    a multi-page 16-bit TIFF, one page per input
 *   imgtool tiff8 OUT.tif IN       an 8-bit TIFF of IN's pixels divided by 256
 *   imgtool png8 OUT.png IN        the same pixels as an 8-bit PNG
 *   imgtool resize OUT.tif IN W H  the top-left W x H pixels of IN
 *   imgtool argmax IN.tif          per page of a float TIFF: "page width height x y value"
 *                                  of its largest pixel (the first one on ties)
 *   imgtool values IN.tif          every pixel of a float TIFF: "page,x,y,value" (CSV, with
 *                                  that header), for comparisons with clxcorr-ref --surface
 *   imgtool paste OUT.tif DST SRC X Y W H SX SY
 *                                  16-bit DST with its W x H pixels at (X, Y) replaced by
 *                                  SRC's at (SX, SY): one window made to move otherwise
 *   imgtool stats IN.tif           per page (any pixel type): "page width height bits min max mean"
 *   imgtool fill OUT.tif W H V     a 16-bit W x H image of the value V everywhere
 *   imgtool float OUT.tif IN [clean]  IN as 32-bit float with a NaN, +Inf and -Inf pixel near
 *                                  its centre (none with "clean")
 *   imgtool bighead OUT.tif W H    a 16-bit TIFF whose header says W x H, with one
 *                                  strip of 16 bytes: a header that lies about its size
 *   imgtool h5gzip OUT.h5 IN.h5 DATASET PER_CHUNK LEVEL
 *                                  (builds with HDF5) IN.h5 with DATASET's patterns in
 *                                  gzip-compressed chunks of PER_CHUNK; exit 77 when this
 *                                  libhdf5 has no gzip
 *   imgtool h5retype OUT.h5 IN.h5 DATASET TYPE PAGE X Y VALUE
 *                                  (builds with HDF5) IN.h5 with DATASET's patterns
 *                                  stored as TYPE (f32, f64, i32, i16), pattern PAGE's
 *                                  pixel (X, Y) set to VALUE (nan, inf, 1e300; PAGE -1: none)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "clxcorr.h"
#ifdef HAVE_HDF5
#include "h5_rechunk.h"
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_WINDOWS_UTF8
#include "stb_image_write.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void load(const char *path, clx_image *img)
{
    clx_message msg;
    if (clx_image_load(path, 0, img, &msg) != CLX_OK || img->type != CLX_PIXEL_U16) {
        fprintf(stderr, "imgtool: %s: %s\n", path, msg.text);
        exit(1);
    }
}

static uint16_t pixel(const clx_image *img, int x, int y)
{
    return ((const uint16_t *)img->pixels)[(size_t)y * img->width + x];
}

/* Appends one page of w x h pixels (8 or 16 bits) to an open TIFF. */
static void write_page(TIFF *t, const clx_image *img, int w, int h, int bits)
{
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 8);
    unsigned char *row = malloc((size_t)w * 2);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            if (bits == 8)
                row[x] = (unsigned char)(pixel(img, x, y) >> 8);
            else
                ((uint16_t *)row)[x] = pixel(img, x, y);
        }
        if (TIFFWriteScanline(t, row, (uint32_t)y, 0) < 0) {
            fprintf(stderr, "imgtool: write error\n");
            exit(1);
        }
    }
    free(row);
    TIFFWriteDirectory(t);
}

static double value_at(const clx_image *img, size_t i)
{
    switch (img->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)img->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)img->pixels)[i];
    case CLX_PIXEL_F32: return ((const float *)img->pixels)[i];
    }
    return 0;
}

/* Per page: "page width height bits min max mean". */
static int stats(const char *path)
{
    clx_image_file *f;
    clx_image img;
    clx_message msg;
    if (clx_image_file_open(path, &f, &msg) != CLX_OK) {
        fprintf(stderr, "imgtool: %s\n", msg.text);
        return 1;
    }
    for (int page = 0; page < clx_image_file_pages(f); page++) {
        if (clx_image_file_read(f, page, &img, &msg) != CLX_OK) {
            fprintf(stderr, "imgtool: %s page %d: %s\n", path, page, msg.text);
            clx_image_file_close(f);
            return 1;
        }
        size_t n = (size_t)img.width * img.height;
        double lo = value_at(&img, 0), hi = lo, sum = 0;
        for (size_t i = 0; i < n; i++) {
            double v = value_at(&img, i);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum += v;
        }
        printf("%d %d %d %d %.9g %.9g %.9g\n", page, img.width, img.height, (int)clx_pixel_size(img.type) * 8, lo, hi,
               sum / n);
        clx_image_free(&img);
    }
    clx_image_file_close(f);
    return 0;
}

int main(int argc, char **argv)
{
    clx_image img;
    if (argc >= 4 && strcmp(argv[1], "pages") == 0) {
        TIFF *t = TIFFOpen(argv[2], "w");
        if (!t)
            return 1;
        for (int i = 3; i < argc; i++) {
            load(argv[i], &img);
            write_page(t, &img, img.width, img.height, 16);
            clx_image_free(&img);
        }
        TIFFClose(t);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "tiff8") == 0) {
        TIFF *t = TIFFOpen(argv[2], "w");
        load(argv[3], &img);
        if (!t)
            return 1;
        write_page(t, &img, img.width, img.height, 8);
        TIFFClose(t);
        clx_image_free(&img);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "png8") == 0) {
        load(argv[3], &img);
        unsigned char *p = malloc((size_t)img.width * img.height);
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width; x++)
                p[(size_t)y * img.width + x] = (unsigned char)(pixel(&img, x, y) >> 8);
        int ok = stbi_write_png(argv[2], img.width, img.height, 1, p, img.width);
        free(p);
        clx_image_free(&img);
        return ok ? 0 : 1;
    }
    if (argc == 6 && strcmp(argv[1], "resize") == 0) {
        TIFF *t = TIFFOpen(argv[2], "w");
        load(argv[3], &img);
        int w = atoi(argv[4]), h = atoi(argv[5]);
        if (!t || w > img.width || h > img.height)
            return 1;
        write_page(t, &img, w, h, 16);
        TIFFClose(t);
        clx_image_free(&img);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "argmax") == 0) {
        clx_image_file *f;
        clx_message msg;
        if (clx_image_file_open(argv[2], &f, &msg) != CLX_OK) {
            fprintf(stderr, "imgtool: %s\n", msg.text);
            return 1;
        }
        for (int page = 0; page < clx_image_file_pages(f); page++) {
            if (clx_image_file_read(f, page, &img, &msg) != CLX_OK || img.type != CLX_PIXEL_F32) {
                fprintf(stderr, "imgtool: %s page %d: %s\n", argv[2], page, msg.text);
                clx_image_free(&img);
                clx_image_file_close(f);
                return 1;
            }
            const float *p = img.pixels;
            size_t best = 0;
            for (size_t i = 1; i < (size_t)img.width * img.height; i++)
                if (p[i] > p[best])
                    best = i;
            printf("%d %d %d %d %d %.9g\n", page, img.width, img.height, (int)(best % img.width),
                   (int)(best / img.width), p[best]);
            clx_image_free(&img);
        }
        clx_image_file_close(f);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "values") == 0) {
        clx_image_file *f;
        clx_message msg;
        if (clx_image_file_open(argv[2], &f, &msg) != CLX_OK) {
            fprintf(stderr, "imgtool: %s\n", msg.text);
            return 1;
        }
        printf("page,x,y,value\n");
        for (int page = 0; page < clx_image_file_pages(f); page++) {
            if (clx_image_file_read(f, page, &img, &msg) != CLX_OK || img.type != CLX_PIXEL_F32) {
                fprintf(stderr, "imgtool: %s page %d: not a float page: %s\n", argv[2], page, msg.text);
                clx_image_free(&img);
                clx_image_file_close(f);
                return 1;
            }
            const float *p = img.pixels;
            for (size_t i = 0; i < (size_t)img.width * img.height; i++)
                printf("%d,%d,%d,%.9g\n", page, (int)(i % img.width), (int)(i / img.width), p[i]);
            clx_image_free(&img);
        }
        clx_image_file_close(f);
        return 0;
    }
    if (argc == 11 && strcmp(argv[1], "paste") == 0) {
        clx_image src;
        load(argv[3], &img);
        load(argv[4], &src);
        int x = atoi(argv[5]), y = atoi(argv[6]), w = atoi(argv[7]), h = atoi(argv[8]);
        int sx = atoi(argv[9]), sy = atoi(argv[10]);
        if (x < 0 || y < 0 || w < 1 || h < 1 || sx < 0 || sy < 0 || x + w > img.width || y + h > img.height ||
            sx + w > src.width || sy + h > src.height) {
            fprintf(stderr, "imgtool paste: the rectangle leaves an image\n");
            return 1;
        }
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++)
                ((uint16_t *)img.pixels)[(size_t)(y + j) * img.width + x + i] = pixel(&src, sx + i, sy + j);
        TIFF *t = TIFFOpen(argv[2], "w");
        if (!t)
            return 1;
        write_page(t, &img, img.width, img.height, 16);
        TIFFClose(t);
        clx_image_free(&img);
        clx_image_free(&src);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "stats") == 0)
        return stats(argv[2]);
#ifdef HAVE_HDF5
    if (argc == 7 && strcmp(argv[1], "h5gzip") == 0) {
        char err[2048];
        if (!h5_gzip_available()) {
            fprintf(stderr, "imgtool: this libhdf5 has no gzip filter\n");
            return 77;
        }
        if (h5_copy_rechunked(argv[3], argv[2], argv[4], atoi(argv[5]), atoi(argv[6]), err, sizeof err) != 0) {
            fprintf(stderr, "imgtool: %s\n", err);
            return 1;
        }
        return 0;
    }
    if (argc == 10 && strcmp(argv[1], "h5retype") == 0) {
        char err[2048];
        if (h5_copy_retyped(argv[3], argv[2], argv[4], argv[5], atol(argv[6]), atoi(argv[7]), atoi(argv[8]),
                            strtod(argv[9], NULL), err, sizeof err) != 0) {
            fprintf(stderr, "imgtool: %s\n", err);
            return 1;
        }
        return 0;
    }
#endif
    if (argc == 6 && strcmp(argv[1], "fill") == 0) {
        TIFF *t = TIFFOpen(argv[2], "w");
        int w = atoi(argv[3]), h = atoi(argv[4]), v = atoi(argv[5]);
        clx_message msg;
        if (!t || clx_image_alloc(&img, w, h, CLX_PIXEL_U16, &msg) != CLX_OK || v < 0 || v > 65535)
            return 1;
        for (size_t i = 0; i < (size_t)w * h; i++)
            ((uint16_t *)img.pixels)[i] = (uint16_t)v;
        write_page(t, &img, w, h, 16);
        TIFFClose(t);
        clx_image_free(&img);
        return 0;
    }
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "float") == 0) {
        TIFF *t = TIFFOpen(argv[2], "w");
        load(argv[3], &img);
        float *p = malloc((size_t)img.width * img.height * sizeof *p);
        if (!t || !p)
            return 1;
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width; x++)
                p[(size_t)y * img.width + x] = (float)pixel(&img, x, y);
        size_t c = (size_t)(img.height / 2) * img.width + img.width / 2;
        if (argc == 4) {
            p[c] = NAN;
            p[c + 1] = INFINITY;
            p[c + 2] = -INFINITY;
        }
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)img.width);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)img.height);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, (uint32_t)img.height);
        int ok = TIFFWriteEncodedStrip(t, 0, p, (tmsize_t)((size_t)img.width * img.height * sizeof *p)) >= 0;
        TIFFClose(t);
        free(p);
        clx_image_free(&img);
        return ok ? 0 : 1;
    }
    if (argc == 5 && strcmp(argv[1], "bighead") == 0) {
        /* Little-endian TIFF: header, 9 IFD entries, then a 16-byte strip. */
        uint32_t w = (uint32_t)strtoul(argv[3], NULL, 10), h = (uint32_t)strtoul(argv[4], NULL, 10);
        unsigned char b[256] = { 'I', 'I', 42, 0, 8, 0, 0, 0 };
        size_t at = 8;
        uint16_t n = 9;
        const uint32_t data = 8 + 2 + 9 * 12 + 4;
        const uint16_t tags[9][2] = { { 256, 4 }, { 257, 4 }, { 258, 3 }, { 259, 3 }, { 262, 3 },
                                      { 273, 4 }, { 277, 3 }, { 278, 4 }, { 279, 4 } };
        const uint32_t values[9] = { w, h, 16, 1, 1, data, 1, h, 16 };
        memcpy(b + at, &n, 2);
        at += 2;
        for (int k = 0; k < 9; k++) {
            uint32_t count = 1;
            memcpy(b + at, &tags[k][0], 2);
            memcpy(b + at + 2, &tags[k][1], 2);
            memcpy(b + at + 4, &count, 4);
            memcpy(b + at + 8, &values[k], 4);
            at += 12;
        }
        at += 4 + 16;   /* no next IFD; the strip's 16 bytes of zeros */
        FILE *f = fopen(argv[2], "wb");
        int ok = f && fwrite(b, 1, at, f) == at;
        if (f)
            ok &= fclose(f) == 0;
        return ok ? 0 : 1;
    }
    fprintf(stderr, "usage: imgtool pages OUT IN... | tiff8 OUT IN | png8 OUT IN | resize OUT IN W H | argmax IN"
                    " | values IN | paste OUT DST SRC X Y W H SX SY | stats IN | fill OUT W H V | float OUT IN | bighead OUT W H"
#ifdef HAVE_HDF5
                    " | h5gzip OUT IN DATASET PER_CHUNK LEVEL | h5retype OUT IN DATASET TYPE PAGE X Y VALUE"
#endif
                    "\n");
    return 2;
}
