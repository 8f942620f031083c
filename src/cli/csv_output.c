/* csv_output.c - writing offsets as CSV, atomically when to a file. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "csv_output.h"

static int write_failed(struct csv_output *out, clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "writing %s: %s", out->path ? out->part_path : "standard output",
             strerror(errno ? errno : EIO));
    return CLX_ERR_IO;
}

void csv_header(char *buf, size_t len, int quality, const char *comment)
{
    snprintf(buf, len, "%s%s", comment ? comment : "",
             quality ? "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations\n"
                     : "image,region,x,y,dx,dy,peak,flags\n");
}

int csv_output_open(struct csv_output *out, const char *path, int quality, const char *comment, clx_message *msg)
{
    char header[256];
    csv_header(header, sizeof header, quality, comment);
    int status = csv_output_open_header(out, path, header, msg);
    out->quality = quality;
    return status;
}

int csv_output_open_append(struct csv_output *out, const char *path, clx_message *msg)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(path);
    out->path = malloc(n + 1);
    out->part_path = malloc(n + 6);
    if (!out->path || !out->part_path) {
        free(out->path);
        free(out->part_path);
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    memcpy(out->path, path, n + 1);
    snprintf(out->part_path, n + 6, "%s.part", path);
    out->f = fopen(out->part_path, "a");
    if (!out->f) {
        snprintf(msg->text, sizeof msg->text, "%s: %s", out->part_path, strerror(errno));
        free(out->path);
        free(out->part_path);
        out->path = out->part_path = NULL;
        return CLX_ERR_IO;
    }
    return CLX_OK;
}

int csv_output_open_header(struct csv_output *out, const char *path, const char *header, clx_message *msg)
{
    memset(out, 0, sizeof *out);
    if (!path || strcmp(path, "-") == 0) {
        out->f = stdout;
    } else {
        size_t n = strlen(path);
        out->path = malloc(n + 1);
        out->part_path = malloc(n + 6);
        if (!out->path || !out->part_path) {
            free(out->path);
            free(out->part_path);
            snprintf(msg->text, sizeof msg->text, "out of memory");
            return CLX_ERR_HOST_MEMORY;
        }
        memcpy(out->path, path, n + 1);
        snprintf(out->part_path, n + 6, "%s.part", path);
        out->f = fopen(out->part_path, "w");
        if (!out->f) {
            snprintf(msg->text, sizeof msg->text, "%s: %s", out->part_path, strerror(errno));
            free(out->path);
            free(out->part_path);
            out->path = out->part_path = NULL;
            return CLX_ERR_IO;
        }
    }
    errno = 0;
    if (fputs(header, out->f) < 0 || fflush(out->f) != 0)
        return write_failed(out, msg);
    return CLX_OK;
}

/*
 * Formatting runs on the stream's lane threads for every row (50 windows x
 * 20,000 images/s on a GPU), so it avoids printf where it can: text is
 * appended into room reserved once per image, and fixed-point numbers are
 * written from integers. Those give printf's text except, at most, in the
 * last digit of a value within a rounding error of a tie.
 */

/* Makes room for `more` bytes. Returns -1 when out of memory. */
static int text_reserve(struct csv_text *t, size_t more)
{
    if (t->cap - t->len > more)
        return 0;
    size_t cap = 2 * t->cap + more + 256;
    char *grown = realloc(t->text, cap);
    if (!grown)
        return -1;
    t->text = grown;
    t->cap = cap;
    return 0;
}

static void put_char(struct csv_text *t, char c)
{
    t->text[t->len++] = c;
}

static void put_uint(struct csv_text *t, unsigned long long v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        put_char(t, digits[--n]);
}

/* v with `decimals` decimals (as "%.*f"); printf itself for what integers
 * cannot hold exactly (non-finite or huge values). Needs 32 bytes of room. */
static void put_fixed(struct csv_text *t, double v, int decimals)
{
    static const double scale[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6 };
    double scaled = v * scale[decimals];
    if (!isfinite(v) || fabs(scaled) >= 9e15) {
        t->len += (size_t)snprintf(t->text + t->len, 32, "%.*f", decimals, v);
        return;
    }
    long long units = llrint(scaled);
    if (units < 0 || (units == 0 && signbit(v)))
        put_char(t, '-');
    unsigned long long u = (unsigned long long)(units < 0 ? -units : units);
    unsigned long long whole = u, frac = 0, div = (unsigned long long)scale[decimals];
    whole = u / div;
    frac = u % div;
    put_uint(t, whole);
    if (decimals == 0)
        return;
    put_char(t, '.');
    for (int d = decimals - 1; d >= 0; d--) {
        t->text[t->len + (size_t)d] = (char)('0' + frac % 10);
        frac /= 10;
    }
    t->len += (size_t)decimals;
}

/* "%.*g" through printf (no shortcut keeps its exponent rules); 32 bytes of room. */
static void put_general(struct csv_text *t, double v, int digits)
{
    t->len += (size_t)snprintf(t->text + t->len, 32, "%.*g", digits, v);
}

/* The image name as a CSV field: quoted when it holds a comma, quote or
 * newline (RFC 4180). Needs 2 * strlen + 2 bytes of room. */
static void put_field(struct csv_text *t, const char *s)
{
    int quoted = strpbrk(s, ",\"\r\n") != NULL;
    if (quoted)
        put_char(t, '"');
    for (; *s; s++) {
        if (*s == '"')
            put_char(t, '"');
        put_char(t, *s);
    }
    if (quoted)
        put_char(t, '"');
}

int csv_row_start(char *buf, size_t len, const char *image_name, size_t region)
{
    struct csv_text t = { 0 };
    if (text_reserve(&t, 2 * strlen(image_name) + 32) != 0)
        return -1;
    put_field(&t, image_name);
    put_char(&t, ',');
    put_uint(&t, region);
    put_char(&t, ',');
    int n = t.len < len ? (int)t.len : -1;
    if (n >= 0)
        memcpy(buf, t.text, t.len);
    free(t.text);
    return n;
}

int csv_format_image(struct csv_text *t, int quality, const char *image_name, const clx_region *regions,
                     size_t nregions, const clx_result *results)
{
    /* Per row: the name, doubled at worst and quoted, and at most 11
     * numbers of at most 32 characters each with their commas. */
    size_t row_room = 2 * strlen(image_name) + 2 + 11 * 33 + 1;
    t->len = 0;
    t->rows = 0;
    if (text_reserve(t, row_room * nregions) != 0)
        return CLX_ERR_HOST_MEMORY;
    for (size_t i = 0; i < nregions; i++) {
        const clx_region *r = &regions[i];
        const clx_result *res = &results[i];
        put_field(t, image_name);
        put_char(t, ',');
        put_uint(t, i);
        put_char(t, ',');
        put_fixed(t, r->x + (r->w - 1) / 2.0, 1);
        put_char(t, ',');
        put_fixed(t, r->y + (r->h - 1) / 2.0, 1);
        put_char(t, ',');
        put_fixed(t, res->dx, 6);
        put_char(t, ',');
        put_fixed(t, res->dy, 6);
        put_char(t, ',');
        put_general(t, res->peak, 9);
        put_char(t, ',');
        put_uint(t, res->flags);
        if (quality) {
            put_char(t, ',');
            put_fixed(t, res->zncc, 6);
            put_char(t, ',');
            put_general(t, res->peak_ratio, 4);
            put_char(t, ',');
            if (res->iterations < 0)
                put_char(t, '-');
            put_uint(t, (unsigned long long)(res->iterations < 0 ? -(long long)res->iterations : res->iterations));
        }
        put_char(t, '\n');
        t->rows++;
    }
    return CLX_OK;
}

void csv_text_free(struct csv_text *t)
{
    free(t->text);
    memset(t, 0, sizeof *t);
}

int csv_output_write(struct csv_output *out, const struct csv_text *t, clx_message *msg)
{
    errno = 0;
    if (fwrite(t->text, 1, t->len, out->f) != t->len || fflush(out->f) != 0)
        return write_failed(out, msg);
    out->rows += t->rows;
    return CLX_OK;
}

int csv_output_image(struct csv_output *out, const char *image_name, const clx_region *regions,
                     size_t nregions, const clx_result *results, clx_message *msg)
{
    struct csv_text t = { 0 };
    int status = csv_format_image(&t, out->quality, image_name, regions, nregions, results);
    if (status != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "out of memory");
    else
        status = csv_output_write(out, &t, msg);
    csv_text_free(&t);
    return status;
}

int csv_output_close(struct csv_output *out, int complete, clx_message *msg)
{
    int status = CLX_OK;
    if (!out->f)
        return CLX_OK;
    if (!out->path) {
        errno = 0;
        if (fflush(out->f) != 0)
            status = write_failed(out, msg);
        out->f = NULL;
        return status;
    }
    errno = 0;
    int bad = fflush(out->f) != 0 || (complete && fsync(fileno(out->f)) != 0);
    bad |= fclose(out->f) != 0;
    out->f = NULL;
    if (bad)
        status = write_failed(out, msg);
    else if (complete && rename(out->part_path, out->path) != 0)
        status = (snprintf(msg->text, sizeof msg->text, "renaming %s to %s: %s", out->part_path, out->path,
                           strerror(errno)), CLX_ERR_IO);
    free(out->path);
    free(out->part_path);
    out->path = out->part_path = NULL;
    return status;
}
