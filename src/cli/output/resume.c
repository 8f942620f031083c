/* resume.c - offsets --resume; see resume.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/resume.h"
#include "report.h"

/* Reads the header lines and then the rows, image by image, as far as they
 * are whole and in order; *keep: the byte offset after the last whole image. */
static int scan(FILE *f, const char *name, const struct resume_check *c, size_t *kept, long *keep)
{
    size_t hlen = strlen(c->header);
    char *head = malloc(hlen + 1);
    if (!head) {
        report_error("out of memory");
        return -1;
    }
    size_t got = fread(head, 1, hlen, f);
    int same = got == hlen && memcmp(head, c->header, hlen) == 0;
    free(head);
    if (!same) {
        report_error("--resume: %s was not written by this kind of run (its first lines differ from the "
                     "header this run writes: other mode, columns, format or shard); remove it or leave out "
                     "--resume", name);
        return -1;
    }
    *kept = 0;
    *keep = (long)hlen;
    char *line = NULL, start[4096];
    size_t cap = 0;
    ssize_t n;
    size_t image = 0, window = 0;
    while (image < c->images && (n = getline(&line, &cap, f)) > 0) {
        int len = c->row_start(c->user, image, window, start, sizeof start);
        if (line[n - 1] != '\n' || len < 0 || (size_t)n < (size_t)len || memcmp(line, start, (size_t)len) != 0)
            break;
        if (++window == c->windows) {
            window = 0;
            image++;
            *kept = image;
            *keep = ftell(f);
        }
    }
    free(line);
    return 0;
}

int resume_prepare(const char *path, const struct resume_check *c, size_t *kept, int *found)
{
    size_t n = strlen(path);
    char *part = malloc(n + 6);
    if (!part) {
        report_error("out of memory");
        return -1;
    }
    snprintf(part, n + 6, "%s.part", path);
    struct stat st;
    int status = -1;
    *kept = 0;
    *found = 1;
    /* The unfinished output, else a finished one (checked alike, then
     * finished again); nothing is renamed or cut before the check passed. */
    const char *source = part;
    if (stat(part, &st) != 0) {
        if (stat(path, &st) != 0) {
            /* Nothing to resume: the run starts from the first image. */
            *found = 0;
            status = 0;
            goto out;
        }
        source = path;
    }
    FILE *f = fopen(source, "r");
    if (!f) {
        report_error("--resume: %s: %s", source, strerror(errno));
        goto out;
    }
    long keep = 0;
    int scanned = scan(f, source, c, kept, &keep);
    fclose(f);
    if (scanned != 0)
        goto out;
    if (source == path && rename(path, part) != 0) {
        report_error("--resume: renaming %s to %s: %s", path, part, strerror(errno));
        goto out;
    }
    if (truncate(part, keep) != 0) {
        report_error("--resume: cutting %s after its %zu whole images: %s", part, *kept, strerror(errno));
        goto out;
    }
    status = 0;
out:
    free(part);
    return status;
}
