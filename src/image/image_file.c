/*
 * image_file.c - image files: the format-neutral part.
 *
 * A file's format is recognised from its first bytes, or, for the binary
 * EBSD pattern files, which have no magic number, from its name, and
 * handed to the backend that claims it (load_tiff.c, load_pnm.c,
 * load_stb.c, load_up.c, load_nordif.c, load_ebsp.c, load_hdf5.c). This file owns the checks every format shares, so that a
 * backend only decodes: the file exists and is not empty, the page index is
 * in range, and a failed read leaves the caller's image empty rather than
 * half-filled.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "image/loaders.h"
#include "runtime/message.h"

/* Enough for every magic number the backends test (BMP needs 16). */
#define IMAGE_HEAD_BYTES 16

/* Tried in order; the first whose probe accepts the file wins. Formats
 * known by their magic numbers come before those known by their names. */
static const struct image_format *const image_formats[] = {
    &image_format_tiff,
    &image_format_pnm,
    &image_format_stb,
#ifdef HAVE_HDF5
    &image_format_hdf5,
#endif
    &image_format_up,
    &image_format_nordif,
    &image_format_ebsp,
};

static int head_read(const char *path, unsigned char *head, size_t *length, clx_message *msg)
{
    /* A FIFO would block the open until a writer came (forever, for a pipe
     * nobody writes), and a device has no end: only regular files are
     * images. stat() first, as the open itself is what blocks. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s, not an image file", path,
                        S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
    FILE *f = fopen(path, "rb");
    if (!f)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    *length = fread(head, 1, IMAGE_HEAD_BYTES, f);
    /* A directory opens fine on Linux and fails here with EISDIR. */
    int failed = ferror(f);
    int error = errno;
    fclose(f);
    if (failed)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(error));
    if (*length == 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: empty file", path);
    return CLX_OK;
}

static const struct image_format *format_find(const char *path, const unsigned char *head, size_t length)
{
    for (size_t i = 0; i < sizeof image_formats / sizeof image_formats[0]; i++)
        if (image_formats[i]->probe(path, head, length))
            return image_formats[i];
    return NULL;
}

/* Why a file of no known format is refused: one line naming it. */
static int unknown_format(const char *path, const unsigned char *head, size_t length, clx_message *msg)
{
#ifndef HAVE_HDF5
    static const unsigned char hdf5_magic[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    if (length >= sizeof hdf5_magic && memcmp(head, hdf5_magic, sizeof hdf5_magic) == 0)
        return msg_fail(msg, CLX_ERR_UNSUPPORTED, "%s: an HDF5 file, and this clxcorr was built without HDF5 "
                        "(configure found no libhdf5; install libhdf5-dev and build again)", path);
#endif
    /* A NORDIF Pattern.dat is known only by the Setting.txt beside it: say so, rather than only "unsupported". */
    size_t n = strlen(path);
    if (n > 4 && strcasecmp(path + n - 4, ".dat") == 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: unsupported image format (a .dat file is read as NORDIF "
                        "patterns only with the Setting.txt that NORDIF writes beside it)", path);
    return msg_fail(msg, CLX_ERR_FORMAT,
                    "%s: unsupported image format (not TIFF, PNG, JPEG, BMP, PGM or an EBSD pattern file)", path);
}

static void file_free(clx_image_file *f)
{
    free(f->pattern_centres);
    free(f->euler);
    free(f->path);
    free(f);
}

int clx_image_file_open(const char *path, clx_image_file **file, clx_message *msg)
{
    return clx_image_file_open_scan(path, NULL, file, msg);
}

int clx_image_file_open_scan(const char *path, const char *scan, clx_image_file **file, clx_message *msg)
{
    msg_clear(msg);
    if (!file)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_file_open: file is NULL");
    *file = NULL;
    if (!path || !*path)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_file_open: no path given");

    unsigned char head[IMAGE_HEAD_BYTES];
    size_t length = 0;
    int rc = head_read(path, head, &length, msg);
    if (rc != CLX_OK)
        return rc;
    const struct image_format *format = format_find(path, head, length);
    if (!format)
        return unknown_format(path, head, length, msg);

    clx_image_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
    }
    f->format = format;
    rc = format->open(f, scan, msg);
    if (rc != CLX_OK) {
        file_free(f);
        return rc;
    }
    *file = f;
    return CLX_OK;
}

int clx_image_file_pages(const clx_image_file *file)
{
    return file ? file->pages : 0;
}

static int page_check(const clx_image_file *file, int page, clx_message *msg)
{
    if (page < 0 || page >= file->pages)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "%s: page %d is out of range (the file has %d page%s)",
                        file->path, page, file->pages, file->pages == 1 ? "" : "s");
    return CLX_OK;
}

int clx_image_file_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    msg_clear(msg);
    if (!file || !image)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_file_read: %s is NULL",
                        file ? "image" : "file");
    memset(image, 0, sizeof *image);
    int rc = page_check(file, page, msg);
    if (rc != CLX_OK)
        return rc;
    /* Backends may fail after allocating; the caller must never see those pixels. */
    rc = file->format->read(file, page, image, msg);
    if (rc != CLX_OK)
        clx_image_free(image);
    return rc;
}

void clx_image_file_close(clx_image_file *file)
{
    if (!file)
        return;
    file->format->close(file);
    file_free(file);
}

const clx_scan_info *clx_image_file_scan(const clx_image_file *file)
{
    return file && file->scan.format[0] ? &file->scan : NULL;
}

/* Page `page`'s 3 values of a per-page array (NULL: the file has none). */
static int page_triple(const clx_image_file *file, const double *values, int page, double out[3])
{
    clx_message msg;
    if (!file || !out)
        return CLX_ERR_ARGUMENT;
    if (page_check(file, page, &msg) != CLX_OK)
        return CLX_ERR_ARGUMENT;
    if (!values) {
        out[0] = out[1] = out[2] = NAN;
        return CLX_ERR_STATE;
    }
    memcpy(out, values + 3 * (size_t)page, 3 * sizeof *out);
    return CLX_OK;
}

int clx_image_file_pattern_centre(const clx_image_file *file, int page, double pc[3])
{
    return page_triple(file, file ? file->pattern_centres : NULL, page, pc);
}

int clx_image_file_euler(const clx_image_file *file, int page, double euler[3])
{
    return page_triple(file, file ? file->euler : NULL, page, euler);
}

int clx_image_file_shared(const clx_image_file *file)
{
    return file && file->format->shared_reads;
}

int clx_image_load(const char *path, int page, clx_image *image, clx_message *msg)
{
    if (!image)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_load: image is NULL");
    memset(image, 0, sizeof *image);
    clx_image_file *file;
    int rc = clx_image_file_open(path, &file, msg);
    if (rc != CLX_OK)
        return rc;
    rc = clx_image_file_read(file, page, image, msg);
    clx_image_file_close(file);
    return rc;
}

/* The general path: decode into an image of the file's own type, then copy into dst, widening. */
static int read_then_copy(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    clx_image decoded;
    int rc = clx_image_file_read(file, page, &decoded, msg);
    if (rc == CLX_OK)
        rc = image_fit_check(file, page, decoded.width, decoded.height, decoded.type, dst, msg);
    /* Cannot fail once the sizes and types fit. */
    if (rc == CLX_OK)
        rc = clx_image_copy_to(&decoded, dst, msg);
    clx_image_free(&decoded);
    return rc;
}

/* Page `page` into dst: straight from the file where the backend can, else decoded and copied. */
static int read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    int rc = page_check(file, page, msg);
    if (rc == CLX_OK)
        rc = file->format->read_into ? file->format->read_into(file, page, dst, msg) : IMAGE_READ_DECODE;
    if (rc == IMAGE_READ_DECODE)
        rc = read_then_copy(file, page, dst, msg);
    return rc;
}

static int dst_check(const clx_image *dst, const char *function, clx_message *msg)
{
    if (!dst || !dst->pixels || clx_pixel_size(dst->type) == 0 || dst->width < 1 || dst->height < 1)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "%s: dst is not an image with pixels", function);
    return CLX_OK;
}

static int rows_check(const clx_image *dst, const clx_rows *rows, size_t nrows, const char *function,
                      clx_message *msg)
{
    for (size_t i = 0; rows && i < nrows; i++)
        if (rows[i].first < 0 || rows[i].count < 1 || rows[i].count > dst->height - rows[i].first)
            return msg_fail(msg, CLX_ERR_ARGUMENT, "%s: rows %d to %d are not inside the %d rows of dst", function,
                            rows[i].first, rows[i].first + rows[i].count - 1, dst->height);
    return CLX_OK;
}

/* The rows wanted where the backend reads rows alone, else the whole page. */
static int read_rows_into(clx_image_file *file, int page, clx_image *dst, const clx_rows *rows, size_t nrows,
                          clx_message *msg)
{
    int rc = IMAGE_READ_DECODE;
    if (rows && file->format->read_rows_into && (rc = page_check(file, page, msg)) == CLX_OK)
        rc = file->format->read_rows_into(file, page, dst, rows, nrows, msg);
    return rc == IMAGE_READ_DECODE ? read_into(file, page, dst, msg) : rc;
}

int clx_image_file_read_rows_into(clx_image_file *file, int page, clx_image *dst, const clx_rows *rows,
                                  size_t nrows, clx_message *msg)
{
    msg_clear(msg);
    if (!file)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_file_read_rows_into: file is NULL");
    int rc = dst_check(dst, "clx_image_file_read_rows_into", msg);
    if (rc == CLX_OK)
        rc = rows_check(dst, rows, nrows, "clx_image_file_read_rows_into", msg);
    return rc == CLX_OK ? read_rows_into(file, page, dst, rows, nrows, msg) : rc;
}

int clx_image_load_rows_into(const char *path, int page, clx_image *dst, const clx_rows *rows, size_t nrows,
                             clx_message *msg)
{
    msg_clear(msg);
    int rc = dst_check(dst, "clx_image_load_rows_into", msg);
    if (rc == CLX_OK)
        rc = rows_check(dst, rows, nrows, "clx_image_load_rows_into", msg);
    if (rc != CLX_OK)
        return rc;
    clx_image_file *file;
    if ((rc = clx_image_file_open(path, &file, msg)) != CLX_OK)
        return rc;
    rc = read_rows_into(file, page, dst, rows, nrows, msg);
    clx_image_file_close(file);
    return rc;
}

int clx_image_file_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    msg_clear(msg);
    if (!file)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_file_read_into: file is NULL");
    int rc = dst_check(dst, "clx_image_file_read_into", msg);
    return rc == CLX_OK ? read_into(file, page, dst, msg) : rc;
}

int clx_image_load_into(const char *path, int page, clx_image *dst, clx_message *msg)
{
    msg_clear(msg);
    int rc = dst_check(dst, "clx_image_load_into", msg);
    if (rc != CLX_OK)
        return rc;
    clx_image_file *file;
    if ((rc = clx_image_file_open(path, &file, msg)) != CLX_OK)
        return rc;
    rc = read_into(file, page, dst, msg);
    clx_image_file_close(file);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Helpers the backends share (loaders.h)                               */

