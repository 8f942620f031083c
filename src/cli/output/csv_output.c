/* csv_output.c - writing the offsets' rows, atomically when to a file. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/csv_output.h"

static int write_failed(struct csv_output *out, clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "writing %s: %s", out->path ? out->part_path : "standard output",
             strerror(errno ? errno : EIO));
    return CLX_ERR_IO;
}

/* PATH.part opened with `mode` ("w" or "a"); PATH kept for the rename. */
static int open_part(struct csv_output *out, const char *path, const char *mode, clx_message *msg)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(path);
    out->path = malloc(n + 1);
    out->part_path = malloc(n + 6);
    if (!out->path || !out->part_path) {
        free(out->path);
        free(out->part_path);
        out->path = out->part_path = NULL;
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    memcpy(out->path, path, n + 1);
    snprintf(out->part_path, n + 6, "%s.part", path);
    out->f = fopen(out->part_path, mode);
    if (!out->f) {
        snprintf(msg->text, sizeof msg->text, "%s: %s", out->part_path, strerror(errno));
        free(out->path);
        free(out->part_path);
        out->path = out->part_path = NULL;
        return CLX_ERR_IO;
    }
    return CLX_OK;
}

int csv_output_open_append(struct csv_output *out, const char *path, clx_message *msg)
{
    return open_part(out, path, "a", msg);
}

int csv_output_open(struct csv_output *out, const char *path, const char *header, clx_message *msg)
{
    memset(out, 0, sizeof *out);
    if (!path || strcmp(path, "-") == 0) {
        out->f = stdout;
    } else {
        int status = open_part(out, path, "w", msg);
        if (status != CLX_OK)
            return status;
    }
    errno = 0;
    if (fputs(header, out->f) < 0 || fflush(out->f) != 0)
        return write_failed(out, msg);
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
