/* filter_output.c - output files of `clxcorr filter`: naming, conflicts, pages. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/filter_output.h"
#include "report.h"

/* DIR/NAME.tif for an entry ("scans/a.tif#2" -> DIR/a.tif); malloc'd. */
static char *dir_output_path(const char *dir, const char *entry)
{
    char *path;
    int page;
    if (clx_image_name_split(entry, &path, &page, NULL, NULL) != CLX_OK)
        return NULL;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    size_t n = strlen(dir) + stem + 6;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%.*s.tif", dir, (int)stem, base);
    free(path);
    return out;
}

/* The file a list entry's pages go to; malloc'd. */
static char *output_path(const struct filter_output *o, const char *entry)
{
    return o->dir ? dir_output_path(o->dir, entry) : strdup(o->file);
}

/* A file's identity, and the input entry that named it. */
struct file_id {
    dev_t dev;
    ino_t ino;
    size_t entry;
};

static int by_id(const void *a, const void *b)
{
    const struct file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The identities of the inputs that exist, sorted; *n of them. */
static struct file_id *input_ids(const struct image_list *inputs, size_t *n)
{
    struct file_id *ids = malloc((inputs->count ? inputs->count : 1) * sizeof *ids);
    *n = 0;
    for (size_t i = 0; ids && i < inputs->count; i++) {
        struct stat st;
        char *path;
        int page;
        if (clx_image_name_split(inputs->entries[i], &path, &page, NULL, NULL) != CLX_OK)
            continue;
        if (stat(path, &st) == 0)
            ids[(*n)++] = (struct file_id){ st.st_dev, st.st_ino, i };
        free(path);
    }
    if (ids)
        qsort(ids, *n, sizeof *ids, by_id);
    return ids;
}

/* The input entry that `path` is, or NULL. */
static const struct file_id *find_input(const char *path, const struct file_id *ids, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    struct file_id key = { st.st_dev, st.st_ino, 0 };
    return bsearch(&key, ids, n, sizeof *ids, by_id);
}

struct named {
    char *path;
    size_t entry;
};

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->path, ((const struct named *)b)->path);
}

/* --output-dir: two inputs that would share one output file. */
static int check_distinct(struct named *outs, size_t n, const struct image_list *inputs)
{
    qsort(outs, n, sizeof *outs, by_path);
    for (size_t i = 1; i < n; i++)
        if (strcmp(outs[i - 1].path, outs[i].path) == 0) {
            report_error("%s and %s would both be written to %s (name the pages of one file with -o instead)",
                         inputs->entries[outs[i - 1].entry], inputs->entries[outs[i].entry], outs[i].path);
            return -1;
        }
    return 0;
}

int filter_output_check(const struct filter_output *o, const struct image_list *inputs)
{
    size_t n = o->dir ? inputs->count : 1, nids = 0;
    struct named *outs = calloc(n ? n : 1, sizeof *outs);
    struct file_id *ids = input_ids(inputs, &nids);
    int bad = !outs || !ids;
    for (size_t i = 0; i < n && !bad; i++) {
        outs[i].entry = i;
        bad = !(outs[i].path = output_path(o, inputs->entries[i]));
    }
    if (bad)
        report_error("out of memory");
    for (size_t i = 0; i < n && !bad; i++) {
        const struct file_id *in = find_input(outs[i].path, ids, nids);
        if (in) {
            report_error("the output %s is the input %s; it would be overwritten (choose another %s)",
                         outs[i].path, inputs->entries[in->entry], o->dir ? "--output-dir" : "-o");
            bad = 1;
        }
    }
    if (!bad && o->dir)
        bad = check_distinct(outs, n, inputs) != 0;
    for (size_t i = 0; outs && i < n; i++)
        free(outs[i].path);
    free(outs);
    free(ids);
    return bad ? -1 : 0;
}

/* Opens the file for `entry`'s pages (creating DIR if it is missing). */
static int open_for(struct filter_output *o, const char *entry)
{
    clx_message msg;
    if (o->dir && mkdir(o->dir, 0777) != 0 && errno != EEXIST) {
        report_error("cannot create the output directory %s: %s", o->dir, strerror(errno));
        return -1;
    }
    if (!(o->writer_path = output_path(o, entry))) {
        report_error("out of memory");
        return -1;
    }
    if (clx_tiff_writer_open(o->writer_path, 0, &o->writer, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    o->writer_entry = entry;
    return 0;
}

/* Closes the open file: renamed to its name (ok) or left as .part. */
static int close_current(struct filter_output *o, int ok)
{
    clx_message msg;
    int failed = 0;
    if (!o->writer)
        return 0;
    if (clx_tiff_writer_close(o->writer, ok, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        failed = 1;
    } else if (ok) {
        o->files++;
        report_info("wrote %s", o->writer_path);
    } else {
        report_note("stopped; the pages written so far are in %s.part", o->writer_path);
    }
    o->writer = NULL;
    free(o->writer_path);
    o->writer_path = NULL;
    return failed ? -1 : 0;
}

/* Rounds to the nearest integer and clamps to 0..65535; returns the number
 * of pixels clamped. */
static size_t to_u16(const float *in, uint16_t *out, size_t n)
{
    size_t clamped = 0;
    for (size_t i = 0; i < n; i++) {
        double v = floor((double)in[i] + 0.5);
        if (v < 0 || v > 65535) {
            clamped++;
            v = v < 0 ? 0 : 65535;
        }
        out[i] = (uint16_t)v;
    }
    return clamped;
}

static int write_page(struct filter_output *o, const clx_image *page, const char *description)
{
    clx_message msg;
    clx_image u16 = { page->width, page->height, CLX_PIXEL_U16, NULL };
    const clx_image *out = page;
    if (o->u16) {
        size_t n = (size_t)page->width * page->height;
        if (!(u16.pixels = malloc(n * sizeof(uint16_t)))) {
            report_error("out of memory");
            return -1;
        }
        size_t clamped = to_u16(page->pixels, u16.pixels, n);
        o->clamped += clamped;
        o->clamped_pages += clamped > 0;
        out = &u16;
    }
    int status = clx_tiff_writer_page(o->writer, out, description, &msg);
    free(u16.pixels);
    if (status != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    o->pages++;
    return 0;
}

int filter_output_page(struct filter_output *o, const char *entry, const char *name, clx_image *page,
                       const char *description)
{
    if (o->writer && o->dir && o->writer_entry != entry && close_current(o, 1) != 0)
        return -1;
    if (!o->writer && open_for(o, entry) != 0)
        return -1;
    report_info("%s -> %s", name, o->writer_path);
    return write_page(o, page, description);
}

int filter_output_finish(struct filter_output *o, int ok)
{
    int status = close_current(o, ok);
    if (o->clamped > 0)
        report_warning("--out-type u16: clamped %llu pixel%s (in %zu image%s) to 0..65535; --out-type f32 keeps "
                       "their values", o->clamped, o->clamped == 1 ? "" : "s", o->clamped_pages,
                       o->clamped_pages == 1 ? "" : "s");
    return status;
}
