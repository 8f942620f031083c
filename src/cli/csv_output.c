/* csv_output.c - writing offsets as CSV, atomically when to a file. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
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

int csv_output_open(struct csv_output *out, const char *path, int quality, clx_message *msg)
{
    memset(out, 0, sizeof *out);
    out->quality = quality;
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
    if (fputs(quality ? "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations\n"
                      : "image,region,x,y,dx,dy,peak,flags\n", out->f) < 0 ||
        fflush(out->f) != 0)
        return write_failed(out, msg);
    return CLX_OK;
}

/* CSV-quotes a field that needs it (RFC 4180). */
/* Appends printf-formatted text to the buffer. Returns -1 when out of memory. */
static int text_printf(struct csv_text *t, const char *fmt, ...) CLI_PRINTF(2, 3);
static int text_printf(struct csv_text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->text + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return 0;
        }
        size_t cap = 2 * t->cap + (size_t)n + 256;
        char *grown = realloc(t->text, cap);
        if (!grown)
            return -1;
        t->text = grown;
        t->cap = cap;
    }
}

/* The image name as a CSV field: quoted when it holds a comma, quote or newline. */
static int text_field(struct csv_text *t, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return text_printf(t, "%s", s);
    if (text_printf(t, "\"") != 0)
        return -1;
    for (; *s; s++)
        if (text_printf(t, *s == '"' ? "\"\"" : "%c", *s) != 0)
            return -1;
    return text_printf(t, "\"");
}

int csv_format_image(struct csv_text *t, int quality, const char *image_name, const clx_region *regions,
                     size_t nregions, const clx_result *results)
{
    t->len = 0;
    t->rows = 0;
    for (size_t i = 0; i < nregions; i++) {
        const clx_region *r = &regions[i];
        const clx_result *res = &results[i];
        if (text_field(t, image_name) != 0 ||
            text_printf(t, ",%zu,%.1f,%.1f,%.6f,%.6f,%.9g,%u", i, r->x + (r->w - 1) / 2.0, r->y + (r->h - 1) / 2.0,
                        res->dx, res->dy, res->peak, res->flags) != 0 ||
            (quality && text_printf(t, ",%.6f,%.4g,%d", res->zncc, res->peak_ratio, res->iterations) != 0) ||
            text_printf(t, "\n") != 0)
            return CLX_ERR_HOST_MEMORY;
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
