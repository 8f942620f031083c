/*
 * image.c - images in memory (allocation, copies, widening) and the
 * conversions and checks every file-format backend shares (loaders.h),
 * below both the backends and image_file.c, which hands files to them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/loaders.h"
#include "runtime/message.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

size_t clx_pixel_size(clx_pixel_type type)
{
    switch (type) {
    case CLX_PIXEL_U8: return 1;
    case CLX_PIXEL_U16: return 2;
    case CLX_PIXEL_F32: return 4;
    }
    return 0;
}

/*
 * A large copy into memory that only the device reads next (a stream's
 * pinned staging): with non-temporal stores where the CPU has them, the
 * destination is not first read into the cache (the write-allocate that
 * makes memcpy cost three passes over memory instead of two) nor evicts
 * what the other loader threads work on. With several GPUs fed at once, the
 * host's memory bandwidth is what runs out first.
 */
#define STREAMING_COPY_MIN (256 * 1024)

static void copy_pixels(void *dst, const void *src, size_t bytes)
{
#ifdef __SSE2__
    if (bytes >= STREAMING_COPY_MIN) {
        char *d = dst;
        const char *p = src;
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, p, head);
        d += head;
        p += head;
        bytes -= head;
        for (; bytes >= 64; bytes -= 64, d += 64, p += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(p + 32)), e = _mm_loadu_si128((const __m128i *)(p + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
        memcpy(d, p, bytes);
        /* The streamed stores are weakly ordered: complete them before the
         * caller hands the memory on. */
        _mm_sfence();
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

int clx_image_copy_to(const clx_image *src, clx_image *dst, clx_message *msg)
{
    msg_clear(msg);
    if (!src || !dst || !src->pixels || !dst->pixels)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_copy_to: an image without pixels");
    if (src->width != dst->width || src->height != dst->height)
        return msg_fail(msg, CLX_ERR_SIZE, "an image of %dx%d copied into one of %dx%d", src->width, src->height,
                        dst->width, dst->height);
    if (src->type < CLX_PIXEL_U8 || src->type > CLX_PIXEL_F32 || dst->type < src->type ||
        dst->type > CLX_PIXEL_F32)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s pixels cannot become %s without loss", clx_pixel_type_name(src->type),
                        clx_pixel_type_name(dst->type));
    size_t n = (size_t)src->width * src->height;
    if (src->type == dst->type) {
        copy_pixels(dst->pixels, src->pixels, n * clx_pixel_size(src->type));
        return CLX_OK;
    }
    const uint8_t *u8 = src->pixels;
    const uint16_t *u16 = src->pixels;
    if (dst->type == CLX_PIXEL_U16) {
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)dst->pixels)[i] = u8[i];
    } else if (src->type == CLX_PIXEL_U8) {
        for (size_t i = 0; i < n; i++)
            ((float *)dst->pixels)[i] = u8[i];
    } else {
        for (size_t i = 0; i < n; i++)
            ((float *)dst->pixels)[i] = u16[i];
    }
    return CLX_OK;
}

int clx_image_copy_rows_to(const clx_image *src, clx_image *dst, const clx_rows *rows, size_t nrows,
                           clx_message *msg)
{
    if (!rows || !src || !dst || !src->pixels || !dst->pixels || src->type != dst->type ||
        src->width != dst->width || src->height != dst->height)
        return clx_image_copy_to(src, dst, msg);
    msg_clear(msg);
    size_t row_bytes = (size_t)src->width * clx_pixel_size(src->type);
    for (size_t k = 0; k < nrows; k++)
        if (rows[k].first < 0 || rows[k].count < 1 || rows[k].count > src->height - rows[k].first)
            return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_copy_rows_to: rows %d to %d are not inside the %d rows",
                            rows[k].first, rows[k].first + rows[k].count - 1, src->height);
    for (size_t k = 0; k < nrows; k++)
        memcpy((char *)dst->pixels + (size_t)rows[k].first * row_bytes,
               (const char *)src->pixels + (size_t)rows[k].first * row_bytes, (size_t)rows[k].count * row_bytes);
    return CLX_OK;
}

int clx_image_alloc(clx_image *image, int width, int height, clx_pixel_type type,
                    clx_message *msg)
{
    msg_clear(msg);
    if (!image)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_alloc: image is NULL");
    memset(image, 0, sizeof *image);
    size_t pixel = clx_pixel_size(type);
    if (pixel == 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_alloc: unknown pixel type %d",
                        (int)type);
    if (width < 1 || height < 1 || width > CLX_IMAGE_MAX_SIDE || height > CLX_IMAGE_MAX_SIDE
        || (uint64_t)width * (uint64_t)height > CLX_IMAGE_MAX_PIXELS)
        return msg_fail(msg, CLX_ERR_ARGUMENT,
                        "image size %dx%d is out of range (1 to %d per side, at most %llu pixels)",
                        width, height, CLX_IMAGE_MAX_SIDE, (unsigned long long)CLX_IMAGE_MAX_PIXELS);
    /* Cannot overflow: at most 2^30 pixels of at most 4 bytes. */
    size_t bytes = (size_t)width * (size_t)height * pixel;
    image->pixels = malloc(bytes);
    if (!image->pixels)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory for a %dx%d image (%zu bytes)",
                        width, height, bytes);
    image->width = width;
    image->height = height;
    image->type = type;
    return CLX_OK;
}

void clx_image_free(clx_image *image)
{
    if (!image)
        return;
    free(image->pixels);
    memset(image, 0, sizeof *image);
}

int clx_image_check_finite(const clx_image *image, const char *where, clx_message *msg)
{
    msg_clear(msg);
    if (!image || (image->type == CLX_PIXEL_F32 && !image->pixels))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_check_finite: no image");
    if (image->type != CLX_PIXEL_F32)
        return CLX_OK;
    const float *pixels = image->pixels;
    for (int y = 0; y < image->height; y++)
        for (int x = 0; x < image->width; x++)
            if (!isfinite(pixels[(size_t)y * image->width + x]))
                return msg_fail(msg, CLX_ERR_FORMAT, "%s: non-finite pixel value at (%d, %d)", where ? where : "image",
                                x, y);
    return CLX_OK;
}

/*
 * Reads the first bytes. Done here rather than in the backends so that a
 * missing or empty file gets the same message whatever its name suggests.
 */
unsigned image_luma_uint(unsigned r, unsigned g, unsigned b)
{
    return (299u * r + 587u * g + 114u * b + 500u) / 1000u;
}

void image_row_from_samples(const void *samples, int channels, int y, clx_image *image)
{
    size_t out = (size_t)y * image->width;
    for (int x = 0; x < image->width; x++, out++) {
        size_t i = (size_t)x * channels;
        if (image->type == CLX_PIXEL_U8) {
            const uint8_t *s = samples;
            ((uint8_t *)image->pixels)[out] =
                (uint8_t)(channels >= 3 ? image_luma_uint(s[i], s[i + 1], s[i + 2]) : s[i]);
        } else {
            const uint16_t *s = samples;
            ((uint16_t *)image->pixels)[out] =
                (uint16_t)(channels >= 3 ? image_luma_uint(s[i], s[i + 1], s[i + 2]) : s[i]);
        }
    }
}

const char *image_where(const clx_image_file *file, int page, char *buf, size_t size)
{
    if (page == 0)
        return file->path;
    snprintf(buf, size, "%s: page %d", file->path, page);
    return buf;
}

int image_finite_check(const clx_image_file *file, int page, const clx_image *image, clx_message *msg)
{
    char buf[64 + FILENAME_MAX];
    return clx_image_check_finite(image, image_where(file, page, buf, sizeof buf), msg);
}

int image_fit_check(const clx_image_file *file, int page, int width, int height, clx_pixel_type type,
                    const clx_image *dst, clx_message *msg)
{
    char buf[64 + FILENAME_MAX];
    if (width != dst->width || height != dst->height)
        return msg_fail(msg, CLX_ERR_SIZE, "%s is %dx%d, not %dx%d", image_where(file, page, buf, sizeof buf),
                        width, height, dst->width, dst->height);
    /* A pattern file's int32 or float64 is named as such, not as the float it reads as. */
    if (type > dst->type && file->stored[0])
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s pixels (read as %s) cannot become %s without loss",
                        image_where(file, page, buf, sizeof buf), file->stored, clx_pixel_type_name(type),
                        clx_pixel_type_name(dst->type));
    if (type > dst->type)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s pixels cannot become %s without loss",
                        image_where(file, page, buf, sizeof buf), clx_pixel_type_name(type),
                        clx_pixel_type_name(dst->type));
    return CLX_OK;
}

void image_widen(clx_image *image, clx_pixel_type from)
{
    size_t n = (size_t)image->width * image->height;
    size_t in = clx_pixel_size(from), out = clx_pixel_size(image->type);
    unsigned char *bytes = image->pixels;
    /*
     * Backwards, so that each wider pixel lands on bytes whose narrow pixels
     * are already converted; memcpy because the two types share the bytes.
     */
    for (size_t i = n; i-- > 0;) {
        uint16_t u16 = 0;
        if (in == 1)
            u16 = bytes[i];
        else
            memcpy(&u16, bytes + 2 * i, 2);
        if (out == 2) {
            memcpy(bytes + 2 * i, &u16, 2);
        } else {
            float f = u16;
            memcpy(bytes + 4 * i, &f, 4);
        }
    }
}

int image_size_check(const char *path, const char *kind, long long width, long long height,
                      clx_message *msg)
{
    if (width < 1 || height < 1)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: cannot decode %s (image size %lldx%lld)",
                        path, kind, width, height);
    if (width > CLX_IMAGE_MAX_SIDE || height > CLX_IMAGE_MAX_SIDE
        || (unsigned long long)(width * height) > CLX_IMAGE_MAX_PIXELS)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: image of %lldx%lld pixels is too large "
                        "(at most %d per side and %llu pixels)", path, width, height,
                        CLX_IMAGE_MAX_SIDE, (unsigned long long)CLX_IMAGE_MAX_PIXELS);
    return CLX_OK;
}

int image_make(const char *path, int width, int height, clx_pixel_type type,
                      clx_image *image, clx_message *msg)
{
    clx_message alloc_msg;
    int rc = clx_image_alloc(image, width, height, type, &alloc_msg);
    return rc == CLX_OK ? rc : msg_fail(msg, rc, "%s: %s", path, alloc_msg.text);
}

void image_scan_init(clx_scan_info *scan, const char *format)
{
    memset(scan, 0, sizeof *scan);
    snprintf(scan->format, sizeof scan->format, "%s", format);
    scan->sample_tilt = scan->detector_tilt = scan->azimuthal = scan->twist = NAN;
    scan->pixel_size = NAN;
    scan->symmetry = -1;
}
