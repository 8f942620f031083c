/* csv_output.c - writing rows of text, resumably when to a file; see csv_output.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/csv_output.h"
#include "output/resume.h"
#include "report.h"

/* A second is lost at most when a run is killed, and a sync a second costs
 * nothing beside the images of that second. */
static double checkpoint_interval(void)
{
    const char *env = getenv("CLXCORR_CHECKPOINT_SECONDS");
    char *end;
    double s = env ? strtod(env, &end) : 1.0;
    return env && end != env && s >= 0 ? s : 1.0;
}

static int stdout_failed(clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "writing standard output: %s", strerror(errno ? errno : EIO));
    return CLX_ERR_IO;
}

/* The file's rows synced, then FILE.resume says so: in this order, so that
 * the record never counts rows the disk may not have. */
static int checkpoint(struct csv_output *out, clx_message *msg)
{
    if (!out->fp || !out->file || clx_output_direct(out->file))
        return CLX_OK;
    int status = clx_output_sync(out->file, msg);
    if (status == CLX_OK)
        status = resume_record_write(out->path, out->fp, out->rows / out->rows_per_image, out->bytes, msg);
    out->last_checkpoint = now_seconds();
    return status;
}

static int file_write(struct csv_output *out, const char *text, size_t len, size_t rows, clx_message *msg)
{
    int status = clx_output_write(out->file, text, len, msg);
    if (status != CLX_OK) {
        /* A full disk takes part of the text: cut FILE.part back to the
         * last whole image, so that it holds only complete rows as the
         * exit status promises (--resume would cut it there too, but a
         * reader of FILE.part should not meet half a row). A FIFO or
         * device cannot be cut: what it got, it keeps. */
        if (!clx_output_direct(out->file)) {
            clx_message ignored;
            clx_output_truncate(out->file, out->bytes, &ignored);
        }
        return status;
    }
    out->bytes += (long long)len;
    out->rows += rows;
    return now_seconds() - out->last_checkpoint >= out->interval ? checkpoint(out, msg) : CLX_OK;
}

static void setup(struct csv_output *out, const struct run_fingerprint *fp, size_t rows_per_image)
{
    memset(out, 0, sizeof *out);
    out->fp = fp;
    out->rows_per_image = rows_per_image ? rows_per_image : 1;
    out->interval = checkpoint_interval();
    out->last_checkpoint = now_seconds();
}

int csv_output_open(struct csv_output *out, const char *path, const char *header, const struct run_fingerprint *fp,
                    size_t rows_per_image, clx_message *msg)
{
    setup(out, fp, rows_per_image);
    if (!path || strcmp(path, "-") == 0) {
        out->f = stdout;
        errno = 0;
        if (fputs(header, out->f) < 0 || fflush(out->f) != 0)
            return stdout_failed(msg);
        return CLX_OK;
    }
    if (!(out->path = strdup(path)))
        return (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    int status = clx_output_open(path, CLX_OUTPUT_PART, &out->file, msg);
    /* FILE.part is empty now: the record of whatever run it held before is
     * replaced before this run's first row. */
    if (status == CLX_OK && fp && !clx_output_direct(out->file))
        status = resume_record_write(path, fp, 0, 0, msg);
    if (status == CLX_OK)
        status = file_write(out, header, strlen(header), 0, msg);
    if (status != CLX_OK) {
        clx_message ignored;
        clx_output_close(out->file, 0, &ignored);
        out->file = NULL;
        free(out->path);
        out->path = NULL;
    }
    return status;
}

int csv_output_continue(struct csv_output *out, const char *path, clx_output *part, const char *header,
                        size_t kept, long long bytes, const struct run_fingerprint *fp, size_t rows_per_image,
                        clx_message *msg)
{
    setup(out, fp, rows_per_image);
    out->file = part;
    if (!(out->path = strdup(path)))
        return (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    out->rows = kept * out->rows_per_image;
    out->bytes = bytes;
    if (bytes == 0) {
        int status = resume_record_write(path, fp, 0, 0, msg);
        return status == CLX_OK ? file_write(out, header, strlen(header), 0, msg) : status;
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
    if (out->file)
        return file_write(out, t->text, t->len, t->rows, msg);
    errno = 0;
    if (fwrite(t->text, 1, t->len, out->f) != t->len || fflush(out->f) != 0)
        return stdout_failed(msg);
    return CLX_OK;
}

int csv_output_close(struct csv_output *out, int complete, clx_message *msg)
{
    int status = CLX_OK;
    if (out->f) {
        errno = 0;
        if (fflush(out->f) != 0)
            status = stdout_failed(msg);
        out->f = NULL;
        return status;
    }
    if (!out->file)
        return CLX_OK;
    int direct = clx_output_direct(out->file);
    if (!complete && out->fp && !direct && out->rows == 0) {
        /* Stopped before its first row: nothing to keep or resume, so no
         * FILE.part is left (removed while still locked). */
        unlink(clx_output_name(out->file));
        resume_record_remove(out->path);
    } else if (!complete) {
        /* The last checkpoint, at best: the run already failed (a full
         * disk, say), and --resume checks the rows whatever the record
         * says, so its own failure is not a second error. */
        clx_message ignored;
        checkpoint(out, &ignored);
    }
    clx_message close_msg;
    int closed = clx_output_close(out->file, complete, &close_msg);
    out->file = NULL;
    if (closed != CLX_OK && status == CLX_OK) {
        status = closed;
        *msg = close_msg;
    }
    /* FILE is whole: its record is of no more use. A kill before this line
     * leaves it, and --resume then finds FILE complete and removes it. */
    if (complete && closed == CLX_OK && out->fp && !direct)
        resume_record_remove(out->path);
    free(out->path);
    out->path = NULL;
    return status;
}
