/*
 * load_up.c - EDAX's binary pattern files, UP1 (8-bit) and UP2 (16-bit)
 * (an image_format backend).
 *
 * Neither has a magic number nor a bit-depth field: the name's ending says
 * which it is, as in kikuchipy and PyEBSDIndex. A little-endian header,
 * packed (fields at odd offsets, read byte by byte), then the patterns back
 * to back, row-major, in scan order:
 *
 *   0 u32 version   4 u32 width   8 u32 height   12 u32 offset of the first pattern
 *   version >= 3 only: 16 u8 (PyEBSDIndex's "extraPatterns"; unused)
 *                      17 u32 columns   21 u32 rows   25 u8 hexagonal grid
 *                      26 f64 x step    34 f64 y step   (µm, as kikuchipy labels them)
 *
 * Version 1 has no grid: the patterns are as many as the file holds.
 * Version 2's layout is not public (kikuchipy and PyEBSDIndex refuse it
 * too). In a hexagonal grid the rows alternate in length, and how the
 * header's column count relates to the two lengths is not public either,
 * so such a file is refused rather than read into a wrong grid. Files may
 * hold more than columns x rows patterns (EMsoft notes one extra at the
 * end of UP2 files): the pages are the grid's, the rest is ignored.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/loaders.h"
#include "image/raw_patterns.h"
#include "runtime/message.h"

#define UP_HEADER_V1 16
#define UP_HEADER_V3 42

struct up_file {
    int fd;
    unsigned long long data;    /* the first pattern's offset */
    int width, height;
    clx_pixel_type type;
    unsigned long long pattern_bytes;
};

static int up_probe(const char *path, const unsigned char *head, size_t length)
{
    (void)head;
    (void)length;
    return raw_name_ends(path, ".up1") || raw_name_ends(path, ".up2");
}

/* The version-specific checks: which versions are read, how long the header is. */
static int version_check(const char *path, uint32_t version, unsigned long long size, size_t *header_bytes,
                         clx_message *msg)
{
    if (version == 2)
        return msg_fail(msg, CLX_ERR_UNSUPPORTED, "%s: an EDAX UP file of version 2, whose layout is not "
                        "public (clxcorr reads versions 1 and 3 or later)", path);
    if (version == 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: not an EDAX UP file (its header gives version 0; "
                        "UP files have version 1 or 3 and later)", path);
    *header_bytes = version == 1 ? UP_HEADER_V1 : UP_HEADER_V3;
    if (size < *header_bytes)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated EDAX UP file (%llu bytes, shorter than the "
                        "%zu-byte header of version %u)", path, size, *header_bytes, (unsigned)version);
    return CLX_OK;
}

/* Version 3 and later: the grid, which must fit in the file, and the steps. */
static int grid_read(clx_image_file *file, struct up_file *u, const unsigned char *header,
                     unsigned long long size, clx_message *msg)
{
    const char *path = file->path;
    unsigned long long cols = raw_u32(header + 17), rows = raw_u32(header + 21);
    if (header[25] != 0)
        return msg_fail(msg, CLX_ERR_UNSUPPORTED, "%s: patterns on a hexagonal grid, which clxcorr does not "
                        "read (the layout of its alternating rows is not public); it reads square grids",
                        path);
    if (rows == 0 || cols == 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: the header gives a grid of %llu x %llu points", path, rows,
                        cols);
    unsigned long long count = rows * cols, held = (size - u->data) / u->pattern_bytes;
    if (count > held)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated: the header's grid of %llu x %llu patterns of "
                        "%dx%d needs %llu bytes of patterns from offset %llu, the file holds %llu", path, rows,
                        cols, u->width, u->height, count <= ULLONG_MAX / u->pattern_bytes ?
                        count * u->pattern_bytes : ULLONG_MAX, u->data, size - u->data);
    if (count > INT_MAX)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %llu patterns, more than clxcorr reads from one file (%d)",
                        path, count, INT_MAX);
    file->scan.rows = (int)rows;
    file->scan.cols = (int)cols;
    double dx = raw_f64(header + 26), dy = raw_f64(header + 34);
    /* What is not a step (NaN, infinite) is left as "not said". */
    file->scan.step_x = isfinite(dx) ? dx : 0;
    file->scan.step_y = isfinite(dy) ? dy : 0;
    file->pages = (int)count;
    return CLX_OK;
}

/* Version 1: as many patterns as the file holds, no grid. */
static int count_from_size(clx_image_file *file, struct up_file *u, unsigned long long size, clx_message *msg)
{
    unsigned long long held = (size - u->data) / u->pattern_bytes;
    if (held == 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: holds no whole pattern of %dx%d after its header (%llu "
                        "bytes from offset %llu)", file->path, u->width, u->height, size - u->data, u->data);
    if (held > INT_MAX)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %llu patterns, more than clxcorr reads from one file (%d)",
                        file->path, held, INT_MAX);
    file->pages = (int)held;
    return CLX_OK;
}

static int header_read(clx_image_file *file, struct up_file *u, unsigned long long size, clx_message *msg)
{
    const char *path = file->path;
    unsigned char header[UP_HEADER_V3];
    size_t header_bytes = 0;
    memset(header, 0, sizeof header);
    long long got = raw_read_at(u->fd, header, sizeof header, 0);
    if (got < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    if (got < 4)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated EDAX UP file (%lld bytes)", path, got);
    uint32_t version = raw_u32(header);
    int status = version_check(path, version, size, &header_bytes, msg);
    if (status != CLX_OK)
        return status;
    long long width = raw_u32(header + 4), height = raw_u32(header + 8);
    if ((status = image_size_check(path, "patterns", width, height, msg)) != CLX_OK)
        return status;
    u->width = (int)width;
    u->height = (int)height;
    u->pattern_bytes = (unsigned long long)width * height * clx_pixel_size(u->type);
    u->data = raw_u32(header + 12);
    if (u->data < header_bytes || u->data > size)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: the first pattern's offset %llu lies %s (a version-%u "
                        "header of %zu bytes, a file of %llu)", path, u->data,
                        u->data < header_bytes ? "inside the header" : "past the end of the file",
                        (unsigned)version, header_bytes, size);
    return version == 1 ? count_from_size(file, u, size, msg) : grid_read(file, u, header, size, msg);
}

static void up_close(clx_image_file *file);

static int up_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    (void)scan;
    struct up_file *u = calloc(1, sizeof *u);
    if (!u)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", file->path);
    u->fd = -1;
    file->handle = u;
    int up1 = raw_name_ends(file->path, ".up1");
    u->type = up1 ? CLX_PIXEL_U8 : CLX_PIXEL_U16;
    image_scan_init(&file->scan, up1 ? "EDAX UP1" : "EDAX UP2");
    unsigned long long size = 0;
    int status = raw_file_open(file->path, &u->fd, &size, msg);
    if (status == CLX_OK)
        status = header_read(file, u, size, msg);
    if (status != CLX_OK)
        up_close(file);
    return status;
}

static int up_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    const struct up_file *u = file->handle;
    return raw_pattern_read(file, page, u->fd, u->data + (unsigned long long)page * u->pattern_bytes, u->width,
                            u->height, u->type, dst, msg);
}

static int up_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    const struct up_file *u = file->handle;
    int status = image_make(file->path, u->width, u->height, u->type, image, msg);
    return status == CLX_OK ? up_read_into(file, page, image, msg) : status;
}

static void up_close(clx_image_file *file)
{
    struct up_file *u = file->handle;
    if (!u)
        return;
    if (u->fd >= 0)
        close(u->fd);
    free(u);
    file->handle = NULL;
}

const struct image_format image_format_up = {
    .name = "EDAX UP1/UP2",
    .probe = up_probe,
    .open = up_open,
    .read = up_read,
    .read_into = up_read_into,
    .close = up_close,
    .shared_reads = 1,
};
