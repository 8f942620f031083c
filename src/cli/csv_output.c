/* csv_output.c - writing offsets as CSV, atomically when to a file. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static int put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return fputs(s, f);
    if (fputc('"', f) == EOF)
        return EOF;
    for (; *s; s++) {
        if (*s == '"' && fputc('"', f) == EOF)
            return EOF;
        if (fputc(*s, f) == EOF)
            return EOF;
    }
    return fputc('"', f);
}

int csv_output_image(struct csv_output *out, const char *image_name, const clx_region *regions,
                     size_t nregions, const clx_result *results, clx_message *msg)
{
    errno = 0;
    for (size_t i = 0; i < nregions; i++) {
        const clx_region *r = &regions[i];
        const clx_result *res = &results[i];
        if (put_field(out->f, image_name) == EOF ||
            fprintf(out->f, ",%zu,%.1f,%.1f,%.6f,%.6f,%.9g,%u", i, r->x + (r->w - 1) / 2.0,
                    r->y + (r->h - 1) / 2.0, res->dx, res->dy, res->peak, res->flags) < 0 ||
            (out->quality && fprintf(out->f, ",%.6f,%.4g,%d", res->zncc, res->peak_ratio, res->iterations) < 0) ||
            fputc('\n', out->f) == EOF)
            return write_failed(out, msg);
        out->rows++;
    }
    if (fflush(out->f) != 0)
        return write_failed(out, msg);
    return CLX_OK;
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
