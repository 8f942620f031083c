/*
 * fuzz_image_check.c - the image loader's promises, checked on one file
 * (fuzz_image_check.h), for the harnesses that feed it files: fuzz_image.c
 * (any bytes) and fuzz_patterns.c (the pattern files known by their names).
 *
 * Besides not crashing, every file must keep the loader's promises:
 *   - a failure leaves no pixels and a one-line message naming the file;
 *   - a success gives an image of a valid size and type whose every pixel
 *     can be read, and floats that are finite;
 *   - reading a page again, after other pages, gives the same pixels;
 *   - clx_image_load_into agrees with decoding (the straight TIFF path and
 *     the decode-and-copy path must not differ): the same pixels into an
 *     image of the page's size and type, widened ones into floats, and the
 *     size and type errors where dst does not fit. Where decoding fails,
 *     loading into an image of a fixed size must fail too.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "fuzz_file.h"
#include "fuzz_image_check.h"

/* Pages decoded per input besides the last: more only repeat the same code, slower. */
#define PAGES_MAX 4
/* dst for clx_image_load_into where the page's own size is unknown (the seeds' size). */
#define FIXED_W 16
#define FIXED_H 12

/* A failure: a status, a one-line message naming the file, and no pixels. */
static void failure_check(const char *what, const char *path, int rc, const clx_message *msg,
                          const clx_image *image)
{
    if (rc >= 0)
        fuzz_fail("%s: status %d is not an error", what, rc);
    if (strncmp(msg->text, path, strlen(path)) != 0)
        fuzz_fail("%s: message does not name the file: \"%s\"", what, msg->text);
    if (strchr(msg->text, '\n') || strchr(msg->text, '\r'))
        fuzz_fail("%s: message is not one line: \"%s\"", what, msg->text);
    if (image && (image->pixels || image->width || image->height))
        fuzz_fail("%s: failed (%s) but left a %dx%d image", what, msg->text, image->width,
                  image->height);
}

/* A success: a valid image whose every byte is readable and whose floats are finite. */
static void image_check(const char *what, const clx_image *im)
{
    if (im->width < 1 || im->height < 1 || im->width > 65536 || im->height > 65536
        || clx_pixel_size(im->type) == 0 || !im->pixels)
        fuzz_fail("%s: invalid image %dx%d, type %d", what, im->width, im->height, (int)im->type);
    size_t n = (size_t)im->width * im->height;
    /* volatile: the reads must happen, for ASan to check them. */
    volatile unsigned sum = 0;
    const unsigned char *bytes = im->pixels;
    for (size_t i = 0; i < n * clx_pixel_size(im->type); i++)
        sum += bytes[i];
    if (im->type == CLX_PIXEL_F32)
        for (size_t i = 0; i < n; i++)
            if (!isfinite(((const float *)im->pixels)[i]))
                fuzz_fail("%s: non-finite pixel %zu", what, i);
}

static int images_equal(const clx_image *a, const clx_image *b)
{
    return a->width == b->width && a->height == b->height && a->type == b->type
        && memcmp(a->pixels, b->pixels, (size_t)a->width * a->height * clx_pixel_size(a->type)) == 0;
}

static void image_make(clx_image *im, int w, int h, clx_pixel_type type)
{
    clx_message msg;
    if (clx_image_alloc(im, w, h, type, &msg) != CLX_OK)
        fuzz_fail("clx_image_alloc %dx%d: %s", w, h, msg.text);
    /* Garbage, so that pixels load_into forgets to write differ from the decoded ones. */
    memset(im->pixels, 0xa5, (size_t)w * h * clx_pixel_size(type));
}

/* load_into must give what decoding gave: the same pixels, or widened ones into floats. */
static void into_agrees(const char *path, int page, const clx_image *decoded)
{
    clx_image dst, wide;
    clx_message msg;
    char what[64];
    int w = decoded->width, h = decoded->height;

    snprintf(what, sizeof what, "load_into page %d, same type", page);
    image_make(&dst, w, h, decoded->type);
    int rc = clx_image_load_into(path, page, &dst, &msg);
    if (rc != CLX_OK)
        fuzz_fail("%s: failed (%s) though decoding worked", what, msg.text);
    if (!images_equal(&dst, decoded))
        fuzz_fail("%s: pixels differ from the decoded ones", what);
    clx_image_free(&dst);

    if (decoded->type != CLX_PIXEL_F32) {
        snprintf(what, sizeof what, "load_into page %d, float", page);
        image_make(&dst, w, h, CLX_PIXEL_F32);
        image_make(&wide, w, h, CLX_PIXEL_F32);
        if (clx_image_copy_to(decoded, &wide, &msg) != CLX_OK)
            fuzz_fail("clx_image_copy_to: %s", msg.text);
        rc = clx_image_load_into(path, page, &dst, &msg);
        if (rc != CLX_OK)
            fuzz_fail("%s: failed (%s) though decoding worked", what, msg.text);
        if (!images_equal(&dst, &wide))
            fuzz_fail("%s: pixels differ from the decoded ones, widened", what);
        clx_image_free(&dst);
        clx_image_free(&wide);
    }

    if (decoded->type != CLX_PIXEL_U8) {
        snprintf(what, sizeof what, "load_into page %d, narrower type", page);
        image_make(&dst, w, h, decoded->type == CLX_PIXEL_F32 ? CLX_PIXEL_U16 : CLX_PIXEL_U8);
        rc = clx_image_load_into(path, page, &dst, &msg);
        if (rc != CLX_ERR_FORMAT)
            fuzz_fail("%s: status %d, not CLX_ERR_FORMAT (%s)", what, rc, msg.text);
        failure_check(what, path, rc, &msg, NULL);
        clx_image_free(&dst);
    }

    snprintf(what, sizeof what, "load_into page %d, other size", page);
    image_make(&dst, w == 1 && h == 1 ? 2 : 1, 1, CLX_PIXEL_F32);
    rc = clx_image_load_into(path, page, &dst, &msg);
    if (rc != CLX_ERR_SIZE)
        fuzz_fail("%s: status %d, not CLX_ERR_SIZE (%s)", what, rc, msg.text);
    failure_check(what, path, rc, &msg, NULL);
    clx_image_free(&dst);
}

/* Where decoding failed, so must loading into a fixed-size image. */
static void into_fails(const char *path, int page)
{
    clx_image dst;
    clx_message msg;
    char what[64];
    snprintf(what, sizeof what, "load_into page %d (decoding failed)", page);
    image_make(&dst, FIXED_W, FIXED_H, CLX_PIXEL_F32);
    int rc = clx_image_load_into(path, page, &dst, &msg);
    if (rc == CLX_OK)
        fuzz_fail("%s: succeeded", what);
    failure_check(what, path, rc, &msg, NULL);
    clx_image_free(&dst);
}

static void report(const char *path, int page, int rc, const clx_image *im, const clx_message *msg)
{
    if (!fuzz_reporting())
        return;
    if (rc == CLX_OK)
        printf("page %d: %dx%d, %zu-byte pixels\n", page, im->width, im->height, clx_pixel_size(im->type));
    else
        /* Without the path, which changes from run to run. */
        printf("page %d: %s: %s\n", page, clx_status_name(rc), msg->text + strlen(path));
}

static void pages_read(const char *path, clx_image_file *file)
{
    int pages = clx_image_file_pages(file);
    clx_image first = { 0 };
    int first_rc = CLX_ERR_STATE;
    char what[64];
    if (pages < 1)
        fuzz_fail("an open file with %d pages", pages);
    for (int k = 0; k < pages && k <= PAGES_MAX; k++) {
        /* The first PAGES_MAX pages, then the last: pattern files find each page at its own offset. */
        int p = k < PAGES_MAX ? k : pages - 1;
        clx_image im;
        clx_message msg;
        snprintf(what, sizeof what, "read page %d of %d", p, pages);
        int rc = clx_image_file_read(file, p, &im, &msg);
        if (rc == CLX_OK)
            image_check(what, &im);
        else
            failure_check(what, path, rc, &msg, &im);
        report(path, p, rc, &im, &msg);
        if (rc == CLX_OK)
            into_agrees(path, p, &im);
        else
            into_fails(path, p);
        if (p == 0) {
            first = im;
            first_rc = rc;
        } else {
            clx_image_free(&im);
        }
    }

    /* Page 0 again, after the others: libtiff's directory and codec state are switched back. */
    clx_image again;
    clx_message msg;
    int rc = clx_image_file_read(file, 0, &again, &msg);
    if (rc != first_rc)
        fuzz_fail("page 0 read again: status %d, first %d (%s)", rc, first_rc, msg.text);
    if (rc == CLX_OK && !images_equal(&first, &again))
        fuzz_fail("page 0 read again: other pixels");
    clx_image_free(&again);
    clx_image_free(&first);

    rc = clx_image_file_read(file, pages, &again, &msg);
    if (rc != CLX_ERR_ARGUMENT)
        fuzz_fail("page %d of %d: status %d, not CLX_ERR_ARGUMENT", pages, pages, rc);
    failure_check("page out of range", path, rc, &msg, &again);
}

void fuzz_image_file_check(const char *path)
{
    clx_image_file *file;
    clx_message msg;
    int rc = clx_image_file_open(path, &file, &msg);
    if (rc != CLX_OK) {
        if (file)
            fuzz_fail("open failed but gave a file");
        failure_check("open", path, rc, &msg, NULL);
        if (fuzz_reporting())
            printf("open: %s: %s\n", clx_status_name(rc), msg.text + strlen(path));
        into_fails(path, 0);
        return;
    }
    pages_read(path, file);
    clx_image_file_close(file);
}
