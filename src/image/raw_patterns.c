/*
 * raw_patterns.c - reading the binary EBSD pattern files (raw_patterns.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/raw_patterns.h"
#include "runtime/message.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

int raw_name_ends(const char *path, const char *ending)
{
    size_t n = path ? strlen(path) : 0, m = strlen(ending);
    return n > m && strcasecmp(path + n - m, ending) == 0;
}

int raw_file_open(const char *path, int *fd, unsigned long long *size, clx_message *msg)
{
    struct stat st;
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    int status = CLX_OK;
    if (fstat(*fd, &st) != 0)
        status = msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        /* pread needs a file it can seek in: not a pipe or a device. */
        status = msg_fail(msg, CLX_ERR_IO, "%s: not a regular file", path);
    if (status != CLX_OK) {
        close(*fd);
        *fd = -1;
        return status;
    }
    *size = (unsigned long long)st.st_size;
    return CLX_OK;
}

long long raw_read_at(int fd, void *buf, size_t n, unsigned long long at)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(at + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        done += (size_t)got;
    }
    return (long long)done;
}

uint32_t raw_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int32_t raw_i32(const unsigned char *p)
{
    uint32_t u = raw_u32(p);
    int32_t v;
    memcpy(&v, &u, sizeof v);   /* two's complement, without an implementation-defined conversion */
    return v;
}

int64_t raw_i64(const unsigned char *p)
{
    uint64_t u = (uint64_t)raw_u32(p) | (uint64_t)raw_u32(p + 4) << 32;
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

double raw_f64(const unsigned char *p)
{
    uint64_t u = (uint64_t)raw_u32(p) | (uint64_t)raw_u32(p + 4) << 32;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The files are little-endian; so are the machines clxcorr runs on, but not all that C allows. */
static void u16_from_little_endian(void *pixels, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *b = pixels;
    for (size_t i = 0; i < n; i++) {
        unsigned char t = b[2 * i];
        b[2 * i] = b[2 * i + 1];
        b[2 * i + 1] = t;
    }
#else
    (void)pixels;
    (void)n;
#endif
}

int raw_pattern_read(const clx_image_file *file, int page, int fd, unsigned long long at, int width,
                     int height, clx_pixel_type type, clx_image *dst, clx_message *msg)
{
    int status = image_fit_check(file, page, width, height, type, dst, msg);
    if (status != CLX_OK)
        return status;
    size_t pixels = (size_t)width * (size_t)height, bytes = pixels * clx_pixel_size(type);
    long long got = raw_read_at(fd, dst->pixels, bytes, at);
    if (got < 0 || (size_t)got != bytes) {
        char where[64 + FILENAME_MAX];
        /* The backends checked the size at open: the file shrank since, or cannot be read. */
        return msg_fail(msg, got < 0 ? CLX_ERR_IO : CLX_ERR_FORMAT, "%s: %s",
                        image_where(file, page, where, sizeof where),
                        got < 0 ? strerror(errno) : "the pattern lies past the end of the file (truncated?)");
    }
    if (type == CLX_PIXEL_U16)
        u16_from_little_endian(dst->pixels, pixels);
    if (dst->type != type)
        image_widen(dst, type);
    return CLX_OK;
}
