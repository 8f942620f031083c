/* resume.c - offsets --resume; see resume.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/resume.h"
#include "report.h"

uint64_t run_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* PATH with `suffix`; malloc'd. */
static char *with_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", path, suffix);
    return s;
}

int resume_record_write(const char *path, const struct run_fingerprint *fp, size_t images, long long bytes,
                        clx_message *msg)
{
    /* The fingerprint, each option line as "option NAME VALUE", the checkpoint. */
    size_t lines = 0;
    for (const char *c = fp->options_text; *c; c++)
        lines += *c == '\n';
    size_t room = strlen(path) + strlen(fp->options_text) + 8 * lines + 512;
    char *text = malloc(room);
    if (!text)
        return (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    int n = snprintf(text, room,
                     "# clxcorr: the run writing %s.part (its fingerprint and last checkpoint, for --resume)\n"
                     "fingerprint options=%016" PRIx64 " reference=%016" PRIx64 " windows=%016" PRIx64
                     " images=%016" PRIx64 "\n",
                     path, fp->options, fp->reference, fp->windows, fp->images);
    for (const char *line = fp->options_text; *line && n > 0 && (size_t)n < room;) {
        size_t k = strcspn(line, "\n");
        n += snprintf(text + n, room - (size_t)n, "option %.*s\n", (int)k, line);
        line += k + (line[k] == '\n');
    }
    if (n > 0 && (size_t)n < room)
        n += snprintf(text + n, room - (size_t)n, "checkpoint images=%zu bytes=%lld\n", images, bytes);
    char *record = with_suffix(path, ".resume");
    clx_output *o = NULL;
    /* FILE.resume.part: only the process holding FILE.part's lock writes
     * the record, so one name does, and a kill leaves no litter. */
    int status = record ? clx_output_open(record, CLX_OUTPUT_PART, &o, msg)
                        : (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    if (status == CLX_OK) {
        status = clx_output_write(o, text, n > 0 && (size_t)n < room ? (size_t)n : 0, msg);
        /* A record that could not be written whole (a full disk) is no
         * record: FILE.resume keeps the last checkpoint, and the empty or
         * cut FILE.resume.part goes (unlinked while still locked). */
        if (status != CLX_OK)
            unlink(clx_output_name(o));
        clx_message close_msg;
        int closed = clx_output_close(o, status == CLX_OK, &close_msg);
        if (status == CLX_OK && closed != CLX_OK) {
            status = closed;
            *msg = close_msg;
        }
    }
    free(record);
    free(text);
    return status;
}

void resume_record_remove(const char *path)
{
    char *record = with_suffix(path, ".resume"), *part = with_suffix(path, ".resume.part");
    if (record)
        unlink(record);
    if (part)
        unlink(part);
    free(record);
    free(part);
}

/* FILE.resume: 1 read, 0 there is none, -1 unreadable or damaged. */
static int record_read(const char *path, struct run_fingerprint *fp, size_t *images, long long *bytes)
{
    char *record = with_suffix(path, ".resume");
    FILE *f = record ? fopen(record, "r") : NULL;
    int status = f ? -1 : errno == ENOENT ? 0 : -1;
    char line[4096];
    int have_fp = 0, have_cp = 0;
    size_t used = 0;
    fp->options_text[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        have_fp |= sscanf(line, "fingerprint options=%16" SCNx64 " reference=%16" SCNx64 " windows=%16" SCNx64
                          " images=%16" SCNx64, &fp->options, &fp->reference, &fp->windows, &fp->images) == 4;
        have_cp |= sscanf(line, "checkpoint images=%zu bytes=%lld", images, bytes) == 2;
        size_t k = strlen(line);
        if (strncmp(line, "option ", 7) == 0 && used + k - 7 < sizeof fp->options_text) {
            memcpy(fp->options_text + used, line + 7, k - 7 + 1);
            used += k - 7;
        }
    }
    if (f) {
        fclose(f);
        status = have_fp && have_cp ? 1 : -1;
    }
    free(record);
    return status;
}

/* Whether two fingerprints are of the same run (their hashes). */
static int fingerprint_same(const struct run_fingerprint *a, const struct run_fingerprint *b)
{
    return a->options == b->options && a->reference == b->reference && a->windows == b->windows &&
           a->images == b->images;
}

/* The value of option `name` (its length name_len) in text's "NAME VALUE"
 * lines, its length in *value_len; NULL when text has no such line. */
static const char *option_value(const char *text, const char *name, size_t name_len, size_t *value_len)
{
    for (const char *line = text; *line;) {
        size_t k = strcspn(line, "\n");
        if (k > name_len && strncmp(line, name, name_len) == 0 && line[name_len] == ' ') {
            *value_len = k - name_len - 1;
            return line + name_len + 1;
        }
        line += k + (line[k] == '\n');
    }
    return NULL;
}

/* The options whose values differ between the record's text (there) and
 * this run's (here), as "NAME VALUE there, VALUE here; ...". */
static void options_differences(const char *there, const char *here, char *buf, size_t len)
{
    size_t used = strlen(buf), start = used;
    for (const char *line = here; *line && used < len;) {
        size_t k = strcspn(line, "\n"), name_len = strcspn(line, " ");
        if (name_len > k)
            name_len = k;
        size_t here_len = k > name_len ? k - name_len - 1 : 0, there_len = 0;
        const char *value = option_value(there, line, name_len, &there_len);
        if (!value || there_len != here_len || memcmp(value, line + name_len + 1, here_len) != 0)
            used += (size_t)snprintf(buf + used, len - used, "%s%.*s %.*s there, %.*s here", used > start ? "; " : "",
                                     (int)name_len, line, value ? (int)there_len : 4, value ? value : "none",
                                     (int)here_len, line + name_len + 1);
        line += k + (line[k] == '\n');
    }
}

/* The parts of the fingerprint that differ, as words for a message: with
 * the record's option lines, the options by name and value. */
static void fingerprint_differences(const struct run_fingerprint *a, const struct run_fingerprint *b, char *buf,
                                    size_t len)
{
    buf[0] = '\0';
    if (a->options != b->options && a->options_text[0]) {
        snprintf(buf, len, "options (");
        options_differences(a->options_text, b->options_text, buf, len);
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, ")");
    }
    const char *what[4] = { a->options != b->options && !a->options_text[0] ? "options (or clxcorr version)" : NULL,
                            a->reference != b->reference ? "reference" : NULL,
                            a->windows != b->windows ? "windows" : NULL,
                            a->images != b->images ? "image list" : NULL };
    for (int k = 0; k < 4; k++)
        if (what[k]) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what[k]);
        }
}

enum header_state { HEADER_SAME, HEADER_CUT, HEADER_OTHER };

/* The header lines at the start of f. HEADER_CUT: the file ends inside
 * them (a run stopped while writing them). */
static enum header_state header_read(FILE *f, const char *header)
{
    size_t hlen = strlen(header);
    char *head = malloc(hlen + 1);
    if (!head)
        return HEADER_OTHER;
    size_t got = fread(head, 1, hlen, f);
    enum header_state s = got == hlen && memcmp(head, header, hlen) == 0 ? HEADER_SAME
                          : memcmp(head, header, got) == 0 && feof(f)  ? HEADER_CUT
                                                                       : HEADER_OTHER;
    free(head);
    return s;
}

/* The rows after the header, image by image, as far as they are whole and
 * in order; *keep: the byte offset after the last whole image. Returns 0,
 * or -1 when out of memory. */
static int rows_scan(FILE *f, const struct resume_check *c, size_t *kept, long long *keep)
{
    char *line = NULL, start[4096];
    size_t cap = 0;
    ssize_t n;
    size_t image = 0, window = 0;
    *kept = 0;
    *keep = (long long)strlen(c->header);
    while (image < c->images && (n = getline(&line, &cap, f)) > 0) {
        int len = c->row_start(c->user, image, window, start, sizeof start);
        if (len < 0) {
            free(line);
            return -1;
        }
        if (line[n - 1] != '\n' || (size_t)n < (size_t)len || memcmp(line, start, (size_t)len) != 0 ||
            memchr(line, '\0', (size_t)n))
            break;
        if (++window == c->windows) {
            window = 0;
            image++;
            *kept = image;
            *keep = ftello(f);
        }
    }
    free(line);
    return 0;
}

/* No FILE.part: a FILE that holds every row of this run is complete. */
static int finished_check(const char *path, const struct resume_check *c, struct resume_state *s)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        resume_record_remove(path);   /* of a run that never wrote a row */
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        report_error("--resume: %s is not a regular file: there is nothing to resume", path);
        return -1;
    }
    struct run_fingerprint fp;
    size_t images;
    long long bytes;
    if (record_read(path, &fp, &images, &bytes) == 1 && !fingerprint_same(&fp, c->fp)) {
        char what[1024];
        fingerprint_differences(&fp, c->fp, what, sizeof what);
        report_error("--resume: %s was written by another run (its %s differ from this run's); remove it or "
                     "leave out --resume", path, what);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        report_error("--resume: %s: %s", path, strerror(errno));
        return -1;
    }
    int same = header_read(f, c->header) == HEADER_SAME;
    long long keep = 0;
    int scanned = same ? rows_scan(f, c, &s->kept, &keep) : 0;
    fclose(f);
    s->found = 1;
    if (scanned != 0) {
        report_error("out of memory");
        return -1;
    }
    if (!same || s->kept != c->images || keep != (long long)st.st_size) {
        report_error("--resume: %s is not this run's complete output (%s) and there is no %s.part to "
                     "continue; remove it or leave out --resume", path,
                     same ? "rows are missing or differ" : "its first lines differ from the header this run writes: "
                     "other mode, columns, format or shard", path);
        return -1;
    }
    s->complete = 1;
    resume_record_remove(path);
    return 0;
}

int resume_prepare(const char *path, const struct resume_check *c, struct resume_state *s)
{
    memset(s, 0, sizeof *s);
    char *part = with_suffix(path, ".part");
    struct stat st;
    clx_message msg;
    int status = -1;
    if (!part) {
        report_error("out of memory");
        return -1;
    }
    if (lstat(part, &st) != 0) {
        status = finished_check(path, c, s);
        free(part);
        return status;
    }
    /* Locked before it is read: a run still writing it is not cut under it. */
    if (clx_output_open(path, CLX_OUTPUT_PART | CLX_OUTPUT_CONTINUE, &s->part, &msg) != CLX_OK) {
        report_error("--resume: %s", msg.text);
        free(part);
        return -1;
    }
    int fd = dup(clx_output_fd(s->part));
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        report_error("--resume: %s: %s", part, strerror(errno));
        if (fd >= 0)
            close(fd);
        goto out;
    }
    rewind(f);
    struct run_fingerprint fp;
    size_t checkpoint_images = 0;
    long long checkpoint_bytes = 0, keep = 0;
    int record = record_read(path, &fp, &checkpoint_images, &checkpoint_bytes);
    enum header_state header = header_read(f, c->header);
    fseeko(f, 0, SEEK_END);
    long long size = ftello(f);
    long long hlen = (long long)strlen(c->header);
    if (header == HEADER_CUT || (header == HEADER_SAME && size == hlen)) {
        /* Stopped before its first row: nothing of it to keep or check. */
        s->found = 1;
        s->bytes = 0;
        status = clx_output_truncate(s->part, 0, &msg) == CLX_OK ? 0 : (report_error("%s", msg.text), -1);
        fclose(f);
        goto out;
    }
    if (header == HEADER_OTHER) {
        report_error("--resume: %s was not written by this kind of run (its first lines differ from the header "
                     "this run writes: other mode, columns, format or shard); remove it or leave out --resume", part);
    } else if (record <= 0) {
        report_error("--resume: %s has %s %s.resume, so the run that wrote it cannot be checked against this one "
                     "(an older clxcorr, or the file was moved); remove %s to start again", part,
                     record == 0 ? "no" : "an unreadable", path, part);
    } else if (!fingerprint_same(&fp, c->fp)) {
        char what[1024];
        fingerprint_differences(&fp, c->fp, what, sizeof what);
        report_error("--resume: %s was written by a run with other %s than this one; rows of the two would be "
                     "mixed: resume with that run's command, or remove %s to start again", part, what, part);
    } else {
        fseeko(f, hlen, SEEK_SET);
        if (rows_scan(f, c, &s->kept, &keep) != 0)
            report_error("out of memory");
        else
            status = 0;
    }
    fclose(f);
    if (status != 0)
        goto out;
    if (keep < checkpoint_bytes)
        report_warning("--resume: %s holds fewer whole images than its last checkpoint said were on disk (%zu "
                       "against %zu): continuing after the %zu that check out", part, s->kept, checkpoint_images,
                       s->kept);
    s->found = 1;
    s->bytes = keep;
    if (clx_output_truncate(s->part, keep, &msg) != CLX_OK ||
        resume_record_write(path, c->fp, s->kept, keep, &msg) != CLX_OK) {
        report_error("--resume: %s", msg.text);
        status = -1;
    }
out:
    if (status != 0 && s->part) {
        clx_output_close(s->part, 0, &msg);
        s->part = NULL;
    }
    free(part);
    return status;
}
