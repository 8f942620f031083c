/*
 * load_ebsp.c - Oxford Instruments' binary pattern files, .ebsp (an
 * image_format backend), versions 0 to 5 as kikuchipy reads them.
 *
 * Little-endian throughout. The file starts with an i64: negative, it is
 * minus the version, followed in versions 4 and 5 by one byte of unknown
 * meaning; zero or positive, the file is of version 0 and that i64 is
 * already the first entry of the offset table. The table has one i64 per
 * point of the scan, in scan order (row by row): the byte offset of the
 * point's pattern record, or 0 where the file does not store the point's
 * pattern. Its length is not stored: it ends where the first record
 * begins, which is how PyEBSDIndex counts it. Records lie anywhere after
 * the table, in any order (AZtec stores point 0 last):
 *
 *   header   version 5: i32 map x, i32 map y; then, in all versions,
 *            i32 compressed, i32 rows, i32 columns, i32 bytes of pixels
 *   pixels   8-bit where bytes = rows x columns, 16-bit where twice that
 *   footer   version 1: f64 beam x, f64 beam y (µm); versions 2 to 5: u8 has x,
 *            f64 x if it has, u8 has y, f64 y if it has; version 0: none
 *
 * Compressed records are refused: their layout is not public. Whether real
 * version-5 files have bytes between the table and the first record (which
 * PyEBSDIndex's search for the first record suggests) cannot be told
 * without one; this reader follows kikuchipy, where they do not, and
 * refuses a file whose first record does not start where the table ends.
 *
 * The grid is not stored either. It is derived from the beam positions in
 * the footers of the first, second and last points, as kikuchipy derives
 * it (x step = second x - first x, the same step in y), when every point
 * has its pattern and the footers give positions; else there is no grid.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/loaders.h"
#include "image/raw_patterns.h"
#include "runtime/message.h"

#define EBSP_VERSION_MAX 5
/* Offset-table entries read at a time at open. */
#define TABLE_CHUNK 1024
/* The longest record header (version 5) and footer (versions 2 to 5 with both positions). */
#define RECORD_HEADER_MAX 24
#define FOOTER_MAX 18

struct ebsp_file {
    int fd;
    int version;
    unsigned long long *offsets;    /* per point: its record's offset, 0 where it is not stored */
    size_t points;
    unsigned header_bytes;          /* 16, or 24 in version 5 */
    unsigned char header[RECORD_HEADER_MAX]; /* the first record's, which every record must repeat */
    int width, height;
    clx_pixel_type type;
    unsigned long long pattern_bytes;
};

static int ebsp_probe(const char *path, const unsigned char *head, size_t length)
{
    (void)head;
    (void)length;
    return raw_name_ends(path, ".ebsp");
}

/* The version, and where the offset table starts. */
static int version_read(const char *path, struct ebsp_file *e, unsigned long long size,
                        unsigned long long *table_at, clx_message *msg)
{
    unsigned char first[8];
    long long got = raw_read_at(e->fd, first, sizeof first, 0);
    if (got < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    if (got < (long long)sizeof first)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated Oxford .ebsp file (%llu bytes)", path, size);
    int64_t v = raw_i64(first);
    if (v < -EBSP_VERSION_MAX)
        return msg_fail(msg, CLX_ERR_UNSUPPORTED, "%s: an Oxford .ebsp file of version %llu, or no .ebsp file "
                        "(clxcorr reads versions 0 to %d)", path, 0ull - (unsigned long long)v, EBSP_VERSION_MAX);
    e->version = v < 0 ? (int)-v : 0;
    *table_at = e->version == 0 ? 0 : e->version < 4 ? 8 : 9;
    e->header_bytes = e->version >= 5 ? 24 : 16;
    return CLX_OK;
}

static int table_grow(struct ebsp_file *e, size_t *capacity)
{
    if (e->points < *capacity)
        return 0;
    size_t more = *capacity ? 2 * *capacity : TABLE_CHUNK;
    unsigned long long *grown = realloc(e->offsets, more * sizeof *grown);
    if (!grown)
        return -1;
    e->offsets = grown;
    *capacity = more;
    return 0;
}

/*
 * Reads the table up to the first record, which is the smallest non-zero
 * entry: the table grows only as far as the file holds entries, so a
 * corrupt file cannot make it larger than the file. Sets *first to the
 * first record's offset.
 */
static int table_read(const char *path, struct ebsp_file *e, unsigned long long size, unsigned long long table_at,
                      unsigned long long *first, clx_message *msg)
{
    unsigned char chunk[8 * TABLE_CHUNK];
    size_t capacity = 0, in_chunk = 0, used = 0;
    unsigned long long limit = size;
    for (unsigned long long at = table_at; at + 8 <= limit; at += 8, used++) {
        if (used == in_chunk) {
            unsigned long long left = (limit - at) / 8 * 8;
            long long got = raw_read_at(e->fd, chunk, left < sizeof chunk ? (size_t)left : sizeof chunk, at);
            if (got < 8)
                return msg_fail(msg, got < 0 ? CLX_ERR_IO : CLX_ERR_FORMAT, "%s: %s", path,
                                got < 0 ? strerror(errno) : "the file shrank while it was read");
            in_chunk = (size_t)got / 8;
            used = 0;
        }
        int64_t entry = raw_i64(chunk + 8 * used);
        if (entry < 0 || (unsigned long long)entry >= size)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s: point %zu: its pattern's offset %lld lies outside the file "
                            "(%llu bytes)", path, e->points, (long long)entry, size);
        if (table_grow(e, &capacity) != 0)
            return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
        e->offsets[e->points++] = (unsigned long long)entry;
        if (entry != 0 && (unsigned long long)entry < limit)
            limit = (unsigned long long)entry;
    }
    if (limit == size)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: no pattern stored (every entry of the offset table is 0)", path);
    if (limit != table_at + 8 * e->points)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: the first pattern starts at byte %llu, not where the offset "
                        "table of %zu points ends (byte %llu)", path, limit, e->points, table_at + 8 * e->points);
    if (e->points > INT_MAX)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %zu points, more than clxcorr reads from one file (%d)", path,
                        e->points, INT_MAX);
    *first = limit;
    return CLX_OK;
}

/* The first record's header gives the pattern size and type that every record must have. */
static int first_record_read(const char *path, struct ebsp_file *e, unsigned long long first,
                             unsigned long long size, clx_message *msg)
{
    const unsigned char *h = e->header + (e->header_bytes - 16);   /* past version 5's map x and y */
    long long got = raw_read_at(e->fd, e->header, e->header_bytes, first);
    if (got < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    if (got < (long long)e->header_bytes)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: truncated: the first pattern's header at byte %llu runs past "
                        "the end of the file", path, first);
    int32_t compressed = raw_i32(h), rows = raw_i32(h + 4), cols = raw_i32(h + 8), bytes = raw_i32(h + 12);
    if (compressed != 0)
        return msg_fail(msg, CLX_ERR_UNSUPPORTED, "%s: compressed patterns, whose layout is not public (clxcorr "
                        "reads uncompressed .ebsp files)", path);
    int status = image_size_check(path, "patterns", cols, rows, msg);
    if (status != CLX_OK)
        return status;
    e->width = cols;
    e->height = rows;
    unsigned long long pixels = (unsigned long long)rows * (unsigned long long)cols;
    if (bytes < 0 || ((unsigned long long)bytes != pixels && (unsigned long long)bytes != 2 * pixels))
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: patterns of %dx%d pixels in %d bytes, neither 8- nor 16-bit",
                        path, cols, rows, bytes);
    e->type = (unsigned long long)bytes == pixels ? CLX_PIXEL_U8 : CLX_PIXEL_U16;
    e->pattern_bytes = (unsigned long long)bytes;
    for (size_t i = 0; i < e->points; i++)
        if (e->offsets[i] != 0 && e->header_bytes + e->pattern_bytes > size - e->offsets[i])
            return msg_fail(msg, CLX_ERR_FORMAT, "%s: point %zu: its pattern at byte %llu runs past the end of "
                            "the file (%llu bytes)", path, i, e->offsets[i], size);
    return CLX_OK;
}

/* The beam position in the footer of the record at `at`: 0, or -1 where the footer has none. */
static int footer_read(const struct ebsp_file *e, unsigned long long at, double *x, double *y)
{
    unsigned char f[FOOTER_MAX];
    memset(f, 0, sizeof f);
    long long got = raw_read_at(e->fd, f, sizeof f, at + e->header_bytes + e->pattern_bytes);
    if (e->version == 1) {
        *x = raw_f64(f);
        *y = raw_f64(f + 8);
        return got >= 16 ? 0 : -1;
    }
    /* Versions 2 to 5: each position behind a flag byte. */
    if (got < FOOTER_MAX || !f[0] || !f[9])
        return -1;
    *x = raw_f64(f + 1);
    *y = raw_f64(f + 10);
    return 0;
}

/* rows x cols from the first, second and last beam positions, as kikuchipy finds them; 0 x 0 when they do not give one. */
static void grid_from_footers(clx_image_file *file, const struct ebsp_file *e)
{
    double x0, y0, x1, y1, xl, yl;
    size_t n = e->points;
    if (e->version == 0 || n < 2)
        return;
    for (size_t i = 0; i < n; i++)
        if (e->offsets[i] == 0)
            return;   /* only some points stored: kikuchipy too gives a list */
    if (footer_read(e, e->offsets[0], &x0, &y0) != 0 || footer_read(e, e->offsets[1], &x1, &y1) != 0 ||
        footer_read(e, e->offsets[n - 1], &xl, &yl) != 0)
        return;
    double step = x1 - x0;
    /* Rounded half to even, as numpy's around. */
    double rows = fabs(nearbyint(yl / step) - nearbyint(y0 / step)) + 1;
    double cols = fabs(nearbyint(xl / step) - nearbyint(x0 / step)) + 1;
    if (!isfinite(step) || step == 0 || !(rows <= INT_MAX && cols <= INT_MAX) || rows * cols != (double)n)
        return;
    file->scan.rows = (int)rows;
    file->scan.cols = (int)cols;
    file->scan.step_x = file->scan.step_y = fabs(step);
}

static void ebsp_close(clx_image_file *file);

static int ebsp_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    (void)scan;
    struct ebsp_file *e = calloc(1, sizeof *e);
    if (!e)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", file->path);
    e->fd = -1;
    file->handle = e;
    image_scan_init(&file->scan, "Oxford ebsp");
    unsigned long long size = 0, table_at = 0, first = 0;
    int status = raw_file_open(file->path, &e->fd, &size, msg);
    if (status == CLX_OK)
        status = version_read(file->path, e, size, &table_at, msg);
    if (status == CLX_OK)
        status = table_read(file->path, e, size, table_at, &first, msg);
    if (status == CLX_OK)
        status = first_record_read(file->path, e, first, size, msg);
    if (status != CLX_OK) {
        ebsp_close(file);
        return status;
    }
    grid_from_footers(file, e);
    file->pages = (int)e->points;
    return CLX_OK;
}

static int ebsp_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    const struct ebsp_file *e = file->handle;
    char where[64 + FILENAME_MAX];
    unsigned long long at = e->offsets[page];
    if (at == 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: point %d has no pattern stored (its offset-table entry is 0: "
                        "the file holds only some of the scan's patterns)", image_where(file, page, where,
                        sizeof where), page);
    int status = image_fit_check(file, page, e->width, e->height, e->type, dst, msg);
    if (status != CLX_OK)
        return status;
    unsigned char header[RECORD_HEADER_MAX];
    long long got = raw_read_at(e->fd, header, e->header_bytes, at);
    if (got < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", image_where(file, page, where, sizeof where), strerror(errno));
    /* Version 5's map x and y differ from record to record; the rest must be the first record's. */
    unsigned skip = e->header_bytes - 16;
    if (got < (long long)e->header_bytes || memcmp(header + skip, e->header + skip, 16) != 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: the pattern record at byte %llu is not one of %dx%d pixels in "
                        "%llu bytes, uncompressed, as the first is", image_where(file, page, where, sizeof where),
                        at, e->width, e->height, e->pattern_bytes);
    return raw_pattern_read(file, page, e->fd, at + e->header_bytes, e->width, e->height, e->type, dst, msg);
}

static int ebsp_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    const struct ebsp_file *e = file->handle;
    int status = image_make(file->path, e->width, e->height, e->type, image, msg);
    return status == CLX_OK ? ebsp_read_into(file, page, image, msg) : status;
}

static void ebsp_close(clx_image_file *file)
{
    struct ebsp_file *e = file->handle;
    if (!e)
        return;
    if (e->fd >= 0)
        close(e->fd);
    free(e->offsets);
    free(e);
    file->handle = NULL;
}

const struct image_format image_format_ebsp = {
    .name = "Oxford ebsp",
    .probe = ebsp_probe,
    .open = ebsp_open,
    .read = ebsp_read,
    .read_into = ebsp_read_into,
    .close = ebsp_close,
    .shared_reads = 1,
};
