/*
 * cmd_merge.c - `clxcorr merge`: joins the outputs of `offsets --shard K/N`
 * into the output the whole run would have written, in input order.
 *
 * Every shard is checked before a byte is written: all come from the same
 * run (image list, windows, columns), each K from 1 to N is there exactly
 * once, and each holds every row it should (its images x windows, the last
 * line complete). A set that fails any check is refused with a message
 * naming the file and the problem, and nothing is written.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "output/csv_output.h"
#include "output/output_guard.h"
#include "report.h"
#include "shard.h"

static const char merge_help[] =
    "Usage: clxcorr merge [OPTIONS] SHARD...\n"
    "\n"
    "Join the outputs of `clxcorr offsets --shard K/N` (every K from 1 to N, in\n"
    "any order) into one CSV in input order, the same as one run over the whole\n"
    "list would have written. The set is checked first, and refused when a\n"
    "shard is missing, given twice, unfinished (FILE.part, or rows missing) or\n"
    "from another run (other images, windows or columns).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    write to FILE (default: standard output); it is\n"
    "                       written as FILE.part and renamed when complete\n"
    "  -q, --quiet          errors only\n"
    "  -h, --help           this help\n"
    "\n"
    "Example (a Slurm job array of 8 tasks, then one merge):\n"
    "  clxcorr offsets --shard $SLURM_ARRAY_TASK_ID/8 -o part$SLURM_ARRAY_TASK_ID.csv ...\n"
    "  clxcorr merge -o all.csv part*.csv\n"
    "\n"
    "Exit status: 0 success, 1 the set was refused or writing failed, 2 wrong\n"
    "command line.\n";

static const struct option merge_table[] = { OPTION_OUTPUT, OPTION_QUIET, OPTION_HELP, OPTIONS_END };
static const struct command_options merge_options = { "merge", merge_help, merge_table, NULL };

struct shard_file {
    const char *path;
    struct shard shard;
    char *header;              /* the CSV header line, with its newline */
};

/* Reads and checks one shard: its comment line, header and row count. */
static int shard_check(struct shard_file *sf)
{
    size_t plen = strlen(sf->path);
    if (plen > 5 && strcmp(sf->path + plen - 5, ".part") == 0) {
        report_error("%s: an unfinished shard (its run stopped before the end, so it kept the .part name); "
                     "run that shard again", sf->path);
        return -1;
    }
    FILE *f = fopen(sf->path, "r");
    if (!f) {
        report_error("%s: %s", sf->path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int status = -1;
    ssize_t n = getline(&line, &cap, f);
    if (n < 0 || shard_scan(line, &sf->shard) != 0) {
        report_error("%s: not the output of `clxcorr offsets --shard K/N` (its first line is not "
                     "'# clxcorr shard K/N ...')", sf->path);
        goto out;
    }
    /* Any header: the run's --columns, a scan's scan_row,... (pattern
     * files, strain) or TSV's tabs; set_check makes every shard's the same. */
    n = getline(&line, &cap, f);
    if (n < 2 || line[0] == '#' || line[n - 1] != '\n') {
        report_error("%s: no CSV header after the shard line", sf->path);
        goto out;
    }
    sf->header = strdup(line);
    if (!sf->header) {
        report_error("out of memory");
        goto out;
    }
    size_t rows = 0;
    int last_complete = 1;
    while ((n = getline(&line, &cap, f)) >= 0) {
        rows++;
        last_complete = n > 0 && line[n - 1] == '\n';
    }
    if (ferror(f)) {
        report_error("%s: %s", sf->path, strerror(errno));
        goto out;
    }
    size_t expected = sf->shard.images * sf->shard.windows;
    if (rows != expected || !last_complete) {
        report_error("%s: shard %d/%d has %zu rows%s but should have %zu (%zu images x %zu windows): "
                     "incomplete or damaged; run that shard again",
                     sf->path, sf->shard.index, sf->shard.count, rows, last_complete ? "" : " (the last one cut)",
                     expected, sf->shard.images, sf->shard.windows);
        goto out;
    }
    status = 0;
out:
    free(line);
    fclose(f);
    return status;
}

/* The directory part of path ("." when it has none); malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash == path ? strdup("/") : slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

/*
 * A missing shard K of the run of `s0` that an unfinished run left as
 * NAME.part beside the shards given: its name into buf, and the images it
 * holds (its whole rows over the windows) into *images; 1 if found.
 */
static int unfinished_find(const struct shard_file *files, size_t n, const struct shard *s0, int k, char *buf,
                           size_t len, size_t *images)
{
    for (size_t i = 0; i < n; i++) {
        char *dir = dir_of(files[i].path);
        int seen = 0;
        for (size_t j = 0; j < i && dir; j++) {
            char *other = dir_of(files[j].path);
            seen |= other && strcmp(other, dir) == 0;
            free(other);
        }
        DIR *d = dir && !seen ? opendir(dir) : NULL;
        struct dirent *e;
        int found = 0;
        while (d && !found && (e = readdir(d))) {
            size_t nlen = strlen(e->d_name);
            if (nlen < 6 || strcmp(e->d_name + nlen - 5, ".part") != 0)
                continue;
            snprintf(buf, len, "%s/%s", dir, e->d_name);
            FILE *f = fopen(buf, "r");
            char *line = NULL;
            size_t cap = 0, lines = 0;
            struct shard s;
            if (f && getline(&line, &cap, f) > 0 && shard_scan(line, &s) == 0 && s.index == k &&
                s.count == s0->count && s.total == s0->total && s.list == s0->list && s.windows == s0->windows) {
                found = 1;
                while (getline(&line, &cap, f) > 0)
                    if (line[strlen(line) - 1] == '\n')
                        lines++;
                *images = lines > 0 && s.windows ? (lines - 1) / s.windows : 0;
            }
            free(line);
            if (f)
                fclose(f);
        }
        if (d)
            closedir(d);
        free(dir);
        if (found)
            return 1;
    }
    return 0;
}

/* Whether every shard belongs to one run and the set is complete; orders them by K. */
static int set_check(struct shard_file *files, size_t n, struct shard_file **by_index)
{
    const struct shard *s0 = &files[0].shard;
    for (size_t i = 1; i < n; i++) {
        const struct shard *s = &files[i].shard;
        const char *what = s->count != s0->count       ? "the number of shards"
                           : s->total != s0->total     ? "the number of images"
                           : s->list != s0->list       ? "the image list"
                           : s->windows != s0->windows ? "the number of windows"
                           : strcmp(files[i].header, files[0].header) != 0 ? "the columns"
                                                                           : NULL;
        if (what) {
            report_error("%s and %s come from different runs (%s differs)", files[0].path, files[i].path, what);
            return -1;
        }
    }
    int count = s0->count;
    for (size_t i = 0; i < n; i++) {
        const struct shard *s = &files[i].shard;
        size_t first, images;
        shard_range(s->index, s->count, s->total, &first, &images);
        if (s->first != first || s->images != images) {
            report_error("%s: shard %d/%d of %zu images should hold images %zu to %zu, not %zu to %zu",
                         files[i].path, s->index, s->count, s->total, first, first + images - 1, s->first,
                         s->first + s->images - 1);
            return -1;
        }
        struct shard_file **slot = &by_index[s->index - 1];
        if (*slot) {
            report_error("shard %d/%d given twice: %s and %s", s->index, count, (*slot)->path, files[i].path);
            return -1;
        }
        *slot = &files[i];
    }
    char missing[256] = "";
    int nmissing = 0;
    for (int k = 0; k < count; k++) {
        if (by_index[k])
            continue;
        /* A shard whose run was stopped is named, with how far it got. */
        char part[4096];
        size_t images = 0, first, total;
        if (unfinished_find(files, n, s0, k + 1, part, sizeof part, &images)) {
            shard_range(k + 1, count, s0->total, &first, &total);
            report_error("shard %d/%d is unfinished: %s holds %zu of its %zu images (its run stopped; the same "
                         "command with --resume completes it)", k + 1, count, part, images, total);
            return -1;
        }
        size_t used = strlen(missing);
        if (nmissing < 16)
            snprintf(missing + used, sizeof missing - used, "%s%d", nmissing ? ", " : "", k + 1);
        else if (nmissing == 16)
            snprintf(missing + used, sizeof missing - used, ", ...");
        nmissing++;
    }
    if (nmissing) {
        report_error("%d of %d shards missing: %s (every K from 1 to %d is needed)", nmissing, count, missing, count);
        return -1;
    }
    return 0;
}

/* Copies a shard's rows (after its two header lines) to the output. */
static int copy_rows(const struct shard_file *sf, struct csv_output *out, clx_message *msg)
{
    FILE *f = fopen(sf->path, "r");
    if (!f) {
        snprintf(msg->text, sizeof msg->text, "%s: %s", sf->path, strerror(errno));
        return CLX_ERR_IO;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int status = CLX_OK, skip = 2;
    while (status == CLX_OK && (n = getline(&line, &cap, f)) >= 0) {
        if (skip > 0) {
            skip--;
            continue;
        }
        struct csv_text t = { line, (size_t)n, cap, 1 };
        status = csv_output_write(out, &t, msg);
    }
    free(line);
    fclose(f);
    return status;
}

int cmd_merge(int argc, char **argv)
{
    struct output_options output = { 0 };
    const struct option_values values = { .output = &output };
    int parsed = options_parse(&merge_options, &values, argc, argv);
    if (parsed != 0)
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    if (optind >= argc) {
        report_error("no shard files given (usage: clxcorr merge [-o FILE] SHARD...)");
        return EXIT_USAGE;
    }

    size_t n = (size_t)(argc - optind);
    struct shard_file *files = calloc(n, sizeof *files);
    struct shard_file **by_index = NULL;
    struct csv_output out;
    clx_message msg;
    int status = EXIT_FAILURE_RUN, opened = 0;
    if (!files) {
        report_error("out of memory");
        return EXIT_FAILURE_RUN;
    }
    const struct output_guard guard = { "-o", output.path };
    if (output_guard_check(&guard, 1, (const char *const *)argv + optind, n, NULL) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        files[i].path = argv[optind + (int)i];
        if (shard_check(&files[i]) != 0)
            goto done;
    }
    by_index = calloc((size_t)files[0].shard.count, sizeof *by_index);
    if (!by_index) {
        report_error("out of memory");
        goto done;
    }
    if (set_check(files, n, by_index) != 0)
        goto done;

    if (csv_output_open(&out, output.path, files[0].header, NULL, 0, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    opened = 1;
    for (int k = 0; k < files[0].shard.count; k++)
        if (copy_rows(by_index[k], &out, &msg) != CLX_OK) {
            report_error("%s", msg.text);
            goto done;
        }
    opened = 0;
    if (csv_output_close(&out, 1, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    report_info("%d shards, %zu images x %zu windows", files[0].shard.count, files[0].shard.total,
                files[0].shard.windows);
    status = EXIT_OK;

done:
    if (opened)
        csv_output_close(&out, 0, &msg);
    for (size_t i = 0; i < n; i++)
        free(files[i].header);
    free(files);
    free(by_index);
    return status;
}
