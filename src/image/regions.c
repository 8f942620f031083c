/*
 * regions.c - window lists: read from a file, laid out as a grid, checked
 * against an image.
 *
 * A windows file has one "x y w h" per line; '#' starts a comment anywhere
 * in a line and blank lines are ignored. Every problem is reported with its
 * line number, because these files are written by hand.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/message.h"

/* ------------------------------------------------------------------------ */
/* Reading a windows file                                                    */

struct line_buffer {
    char *text;
    size_t length, capacity;
    size_t nul;    /* where the first NUL byte is (it would hide the rest), or SIZE_MAX */
};

/* Reads one line without its '\n'. Returns 1, 0 at the end of the file, -1 out of memory. */
static int line_read(FILE *f, struct line_buffer *line)
{
    int c = getc(f);
    if (c == EOF)
        return 0;
    line->length = 0;
    line->nul = SIZE_MAX;
    for (; c != EOF && c != '\n'; c = getc(f)) {
        if (line->length + 1 >= line->capacity) {
            size_t capacity = line->capacity ? 2 * line->capacity : 128;
            char *text = realloc(line->text, capacity);
            if (!text)
                return -1;
            line->text = text;
            line->capacity = capacity;
        }
        if (c == '\0' && line->nul == SIZE_MAX)
            line->nul = line->length;
        line->text[line->length++] = (char)c;
    }
    if (!line->text && !(line->text = malloc(1)))
        return -1;
    line->text[line->length] = '\0';
    return 1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

enum parse_result { PARSE_OK, PARSE_BLANK, PARSE_MALFORMED, PARSE_RANGE, PARSE_TRAILING };

/* One decimal integer, ending at whitespace or the end of the text. */
static enum parse_result number_parse(char **p, int *value)
{
    while (is_space(**p))
        (*p)++;
    char *start = *p, *end;
    if (!(**p >= '0' && **p <= '9') && !((**p == '-' || **p == '+') && (*p)[1] >= '0' && (*p)[1] <= '9'))
        return PARSE_MALFORMED;
    errno = 0;
    long v = strtol(start, &end, 10);
    if (*end && !is_space(*end))
        return PARSE_MALFORMED;
    *p = end;
    if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return PARSE_RANGE;
    *value = (int)v;
    return PARSE_OK;
}

/* Parses "x y w h" with the comment already cut off. */
static enum parse_result region_parse(char *text, clx_region *r, char **trailing)
{
    char *p = text;
    while (is_space(*p))
        p++;
    if (!*p)
        return PARSE_BLANK;
    int *fields[4] = { &r->x, &r->y, &r->w, &r->h };
    for (int i = 0; i < 4; i++) {
        enum parse_result result = number_parse(&p, fields[i]);
        if (result != PARSE_OK)
            return result;
    }
    while (is_space(*p))
        p++;
    *trailing = p;
    return *p ? PARSE_TRAILING : PARSE_OK;
}

/* Checks what a single line can show; the image-dependent checks are clx_regions_check's. */
static int region_line(const char *path, size_t number, struct line_buffer *line,
                       clx_region *r, int *blank, clx_message *msg)
{
    *blank = 0;
    char *comment = memchr(line->text, '#', line->length);
    size_t end = comment ? (size_t)(comment - line->text) : line->length;
    /* Cut the comment and the blanks before it, so that messages quote only the text. */
    while (end > 0 && is_space(line->text[end - 1]))
        end--;
    line->text[end] = '\0';
    char *trailing = NULL;
    enum parse_result result = line->nul < end ? PARSE_MALFORMED
                             : region_parse(line->text, r, &trailing);
    switch (result) {
    case PARSE_BLANK:
        *blank = 1;
        return CLX_OK;
    case PARSE_MALFORMED:
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: expected 'x y w h' (four integers)",
                        path, number);
    case PARSE_RANGE:
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: number out of range", path, number);
    case PARSE_TRAILING:
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: unexpected text after 'x y w h': \"%.40s\"",
                        path, number, trailing);
    case PARSE_OK:
        break;
    }
    if (r->x < 0 || r->y < 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: negative window position (x=%d y=%d)",
                        path, number, r->x, r->y);
    if (r->w <= 0 || r->h <= 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: window size must be positive (w=%d h=%d)",
                        path, number, r->w, r->h);
    return CLX_OK;
}

static int regions_append(clx_region **regions, size_t *count, size_t *capacity,
                          const clx_region *r)
{
    if (*count == *capacity) {
        size_t n = *capacity ? 2 * *capacity : 16;
        if (n > SIZE_MAX / sizeof **regions)
            return 0;
        clx_region *grown = realloc(*regions, n * sizeof **regions);
        if (!grown)
            return 0;
        *regions = grown;
        *capacity = n;
    }
    (*regions)[(*count)++] = *r;
    return 1;
}

static int regions_parse(const char *path, FILE *f, clx_region **regions, size_t *count,
                         clx_message *msg)
{
    struct line_buffer line = { NULL, 0, 0, 0 };
    size_t capacity = 0, number = 0;
    int rc = CLX_OK, got;
    while (rc == CLX_OK && (got = line_read(f, &line)) != 0) {
        clx_region r;
        int blank;
        number++;
        if (got < 0)
            rc = msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s:%zu: out of memory", path, number);
        else if ((rc = region_line(path, number, &line, &r, &blank, msg)) == CLX_OK && !blank
                 && !regions_append(regions, count, &capacity, &r))
            rc = msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s:%zu: out of memory", path, number);
    }
    free(line.text);
    if (rc == CLX_OK && ferror(f))
        rc = msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    if (rc == CLX_OK && *count == 0)
        rc = msg_fail(msg, CLX_ERR_FORMAT, "%s: no windows", path);
    return rc;
}

int clx_regions_read(const char *path, clx_region **regions, size_t *count, clx_message *msg)
{
    msg_clear(msg);
    if (!regions || !count)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_regions_read: %s is NULL",
                        regions ? "count" : "regions");
    *regions = NULL;
    *count = 0;
    if (!path || !*path)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_regions_read: no path given");
    FILE *f = fopen(path, "r");
    if (!f)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    int rc = regions_parse(path, f, regions, count, msg);
    fclose(f);
    if (rc != CLX_OK) {
        free(*regions);
        *regions = NULL;
        *count = 0;
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* A grid of windows                                                         */

/*
 * Position i of n windows of `size` spread over `extent` with `margin` free
 * at both ends: evenly spaced, rounded to nearest, the first and last
 * touching the margins; a single window is centred. `span` (extent - 2 margin
 * - size) is known to be >= 0, and i * span < 2^62.
 */
static int grid_position(int i, int n, int size, int margin, int extent, long long span)
{
    if (n == 1)
        return (extent - size) / 2;
    return margin + (int)((2 * (long long)i * span + (n - 1)) / (2 * (long long)(n - 1)));
}

int clx_regions_grid(int nx, int ny, int w, int h, int margin, int image_width,
                     int image_height, clx_region **regions, size_t *count, clx_message *msg)
{
    msg_clear(msg);
    if (!regions || !count)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_regions_grid: %s is NULL",
                        regions ? "count" : "regions");
    *regions = NULL;
    *count = 0;
    if (nx < 1 || ny < 1)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "a grid needs at least 1x1 windows, not %dx%d", nx, ny);
    if (w < 2 || h < 2)
        return msg_fail(msg, CLX_ERR_REGION, "grid windows of %dx%d are too small "
                        "(at least 2x2)", w, h);
    if (margin < 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "grid margin %d is negative", margin);
    if (image_width < 1 || image_height < 1)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "image size %dx%d is not positive",
                        image_width, image_height);
    long long span_x = (long long)image_width - 2LL * margin - w;
    long long span_y = (long long)image_height - 2LL * margin - h;
    if (span_x < 0 || span_y < 0)
        return msg_fail(msg, CLX_ERR_REGION, "grid of %dx%d windows of %dx%d with margin %d "
                        "does not fit in a %dx%d image", nx, ny, w, h, margin,
                        image_width, image_height);

    size_t n = (size_t)nx * (size_t)ny;
    if (n > SIZE_MAX / sizeof **regions || !(*regions = malloc(n * sizeof **regions)))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory for a grid of %dx%d windows",
                        nx, ny);
    clx_region *r = *regions;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++, r++) {
            r->x = grid_position(i, nx, w, margin, image_width, span_x);
            r->y = grid_position(j, ny, h, margin, image_height, span_y);
            r->w = w;
            r->h = h;
        }
    *count = n;
    return CLX_OK;
}

/* ------------------------------------------------------------------------ */
/* Checking windows against an image                                         */

int clx_regions_check(const clx_region *regions, size_t count, int image_width,
                      int image_height, clx_message *msg)
{
    msg_clear(msg);
    if (count == 0)
        return msg_fail(msg, CLX_ERR_REGION, "no windows");
    if (!regions)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_regions_check: regions is NULL");
    if (image_width < 1 || image_height < 1)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "image size %dx%d is not positive",
                        image_width, image_height);
    const clx_region *first = &regions[0];
    if (first->w < 2 || first->h < 2)
        return msg_fail(msg, CLX_ERR_REGION, "window 0 is %dx%d: windows must be at least 2x2",
                        first->w, first->h);
    for (size_t i = 0; i < count; i++) {
        const clx_region *r = &regions[i];
        /* One size for all: the plan builds one FFT size and one set of kernels. */
        if (r->w != first->w || r->h != first->h)
            return msg_fail(msg, CLX_ERR_REGION, "window %zu is %dx%d but window 0 is %dx%d: "
                            "all windows must have one size", i, r->w, r->h, first->w, first->h);
        if (r->x < 0 || r->y < 0 || (long long)r->x + r->w > image_width
            || (long long)r->y + r->h > image_height)
            return msg_fail(msg, CLX_ERR_REGION, "window %zu (x=%d y=%d w=%d h=%d) extends "
                            "outside the %dx%d image", i, r->x, r->y, r->w, r->h,
                            image_width, image_height);
    }
    return CLX_OK;
}
