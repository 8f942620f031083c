/* image_list.c - image names from arguments and list files; page expansion. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_list.h"
#include "report.h"

int image_list_add(struct image_list *list, const char *entry)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? 2 * list->capacity : 64;
        char **grown = realloc(list->entries, cap * sizeof *grown);
        if (!grown)
            return CLX_ERR_HOST_MEMORY;
        list->entries = grown;
        list->capacity = cap;
    }
    char *copy = strdup(entry);
    if (!copy)
        return CLX_ERR_HOST_MEMORY;
    list->entries[list->count++] = copy;
    return CLX_OK;
}

int image_list_add_args(struct image_list *list, int argc, char **argv, int first, int have_list, const char *hint)
{
    for (int i = first; i < argc; i++)
        if (image_list_add(list, argv[i]) != CLX_OK) {
            report_error("out of memory");
            return -1;
        }
    if (!have_list && list->count == 0) {
        report_error("no images given%s", hint);
        return -1;
    }
    return 0;
}

int image_list_read(struct image_list *list, const char *path, clx_message *msg)
{
    int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    const char *name = from_stdin ? "standard input" : path;
    char *line = NULL;
    size_t cap = 0, number = 0;
    ssize_t len;
    int status = CLX_OK;

    if (!f) {
        snprintf(msg->text, sizeof msg->text, "%s: %s", path, strerror(errno));
        return CLX_ERR_IO;
    }
    while ((len = getline(&line, &cap, f)) >= 0) {
        number++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        size_t lead = strspn(line, " \t");
        if ((ssize_t)lead == len || line[lead] == '#')
            continue;
        /* A NUL byte would cut the name short, and the prefix could name another file. */
        if (memchr(line, '\0', (size_t)len)) {
            snprintf(msg->text, sizeof msg->text, "%s:%zu: a NUL byte in the line (not a file name)", name,
                     number);
            status = CLX_ERR_FORMAT;
            break;
        }
        if (image_list_add(list, line) != CLX_OK) {
            snprintf(msg->text, sizeof msg->text, "out of memory reading %s", path);
            status = CLX_ERR_HOST_MEMORY;
            break;
        }
    }
    if (status == CLX_OK && ferror(f)) {
        snprintf(msg->text, sizeof msg->text, "%s: read error", name);
        status = CLX_ERR_IO;
    }
    free(line);
    if (!from_stdin)
        fclose(f);
    return status;
}

void image_list_free(struct image_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->entries[i]);
    free(list->entries);
    memset(list, 0, sizeof *list);
}

/*
 * Opens the file an entry names (reading `scan` in pattern files that hold
 * several) and gives the pages it stands for (clx_image_name_open), named
 * PATH#N in the rows when the entry stands for several.
 */
static int entry_open(const char *entry, const char *scan, clx_image_file **file, int *first, int *last, int *named,
                      clx_message *msg)
{
    int status = clx_image_name_open(entry, scan, file, first, last, msg);
    /* An entry that names its page keeps its name. */
    *named = status == CLX_OK && *first != *last;
    return status;
}

int image_entry_load_single(const char *entry, const char *scan, clx_image *image, clx_message *msg)
{
    clx_image_file *file = NULL;
    int first, last, named;
    int status = entry_open(entry, scan, &file, &first, &last, &named, msg);
    if (status == CLX_OK && first != last) {
        snprintf(msg->text, sizeof msg->text, "%s has %d pages; name one as %s#N (N from 0 to %d)%s", entry,
                 last + 1, entry, last, clx_image_file_scan(file) && clx_image_file_scan(file)->rows > 0
                 ? ", or a scan point as #ROW,COL" : "");
        status = CLX_ERR_ARGUMENT;
    } else if (status == CLX_OK) {
        status = clx_image_file_read(file, first, image, msg);
    }
    clx_image_file_close(file);
    return status;
}

void image_cursor_init(struct image_cursor *c, const struct image_list *list)
{
    memset(c, 0, sizeof *c);
    c->list = list;
}

static int open_next_entry(struct image_cursor *c, clx_message *msg)
{
    c->entry = c->list->entries[c->next_entry++];
    return entry_open(c->entry, c->list->scan, &c->file, &c->page, &c->last_page, &c->named_pages, msg);
}

int image_cursor_next(struct image_cursor *c, char **name, clx_image *image, clx_message *msg)
{
    int status;
    *name = NULL;
    if (!c->file) {
        if (c->next_entry >= c->list->count)
            return 0;
        status = open_next_entry(c, msg);
        if (status != CLX_OK)
            return status;
    }
    int page = c->page++;
    status = clx_image_file_read(c->file, page, image, msg);
    if (status == CLX_OK) {
        size_t n = strlen(c->entry) + 16;
        *name = malloc(n);
        if (!*name) {
            clx_image_free(image);
            status = CLX_ERR_HOST_MEMORY;
        } else if (c->named_pages) {
            snprintf(*name, n, "%s#%d", c->entry, page);
        } else {
            snprintf(*name, n, "%s", c->entry);
        }
    }
    if (status != CLX_OK || c->page > c->last_page) {
        clx_image_file_close(c->file);
        c->file = NULL;
    }
    return status == CLX_OK ? 1 : status;
}

void image_cursor_close(struct image_cursor *c)
{
    if (c->file)
        clx_image_file_close(c->file);
    c->file = NULL;
}

/* ---- items --------------------------------------------------------------- */

static int items_add(struct image_items *items, size_t *capacity, size_t entry, int page, int named)
{
    if (items->count == *capacity) {
        size_t cap = *capacity ? 2 * *capacity : 256;
        struct image_item *grown = realloc(items->items, cap * sizeof *grown);
        if (!grown)
            return CLX_ERR_HOST_MEMORY;
        items->items = grown;
        *capacity = cap;
    }
    items->items[items->count++] = (struct image_item){ entry, page, named };
    return CLX_OK;
}

/*
 * Keeps a pattern file open for the run when its pages are many and may be
 * read from several loader threads at once: a container of 100,000
 * patterns is opened once, not once per pattern. Other files are opened
 * for each page, as before (a list of 100,000 TIFFs keeps no file open).
 */
static int keep_open(struct image_items *items, size_t e, clx_image_file **file, int first, int last)
{
    if (first == last || !clx_image_file_shared(*file))
        return CLX_OK;
    if (!items->open && !(items->open = calloc(items->list->count, sizeof *items->open)))
        return CLX_ERR_HOST_MEMORY;
    items->open[e] = *file;
    *file = NULL;
    return CLX_OK;
}

/* What opening one entry found (the first pass of image_items_expand). */
struct entry_probe {
    int status, first, last, named;
    clx_image_file *file;       /* kept for the second pass when it has several pages */
};

struct probe_work {
    const struct image_list *list;
    struct entry_probe *probes;
    size_t next;                /* the next entry to open, under lock */
    pthread_mutex_t lock;
};

/* Entries in blocks of 64, so that the threads rarely meet at the lock. */
static void *probe_entries(void *arg)
{
    struct probe_work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        size_t lo = w->next, hi = lo + 64 < w->list->count ? lo + 64 : w->list->count;
        w->next = hi;
        pthread_mutex_unlock(&w->lock);
        if (lo >= hi)
            return NULL;
        for (size_t e = lo; e < hi; e++) {
            struct entry_probe *p = &w->probes[e];
            clx_message msg = { "" };
            p->status = entry_open(w->list->entries[e], w->list->scan, &p->file, &p->first, &p->last, &p->named,
                                   &msg);
            if (p->status != CLX_OK || p->first == p->last) {
                clx_image_file_close(p->file);
                p->file = NULL;
            }
        }
    }
}

/*
 * Every entry is opened once before the run to learn its pages: 24,000
 * TIFFs took about half a second of a short job's start-up on a GPU host
 * (bench/gpu-short-jobs.sh, issue 36). Long lists are opened by several
 * threads (the image readers are thread-safe, as the stream's loaders need);
 * the items are then laid out in list order, exactly as one thread would.
 */
static void probe_all(const struct image_list *list, struct entry_probe *probes)
{
    enum { MAX_PROBE_THREADS = 16, ENTRIES_PER_THREAD = 256 };
    struct probe_work w = { list, probes, 0, PTHREAD_MUTEX_INITIALIZER };
    pthread_t threads[MAX_PROBE_THREADS];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = list->count / ENTRIES_PER_THREAD;
    if (cores > 0 && n > (size_t)cores)
        n = (size_t)cores;
    if (n > MAX_PROBE_THREADS)
        n = MAX_PROBE_THREADS;
    size_t started = 0;
    while (started + 1 < n && pthread_create(&threads[started], NULL, probe_entries, &w) == 0)
        started++;
    probe_entries(&w);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_mutex_destroy(&w.lock);
}

int image_items_expand(const struct image_list *list, struct image_items *items)
{
    size_t capacity = 0;
    int keep_unreadable = items->keep_unreadable, status = CLX_OK;
    memset(items, 0, sizeof *items);
    items->list = list;
    items->keep_unreadable = keep_unreadable;
    struct entry_probe *probes = calloc(list->count ? list->count : 1, sizeof *probes);
    if (!probes)
        return CLX_ERR_HOST_MEMORY;
    probe_all(list, probes);

    size_t e = 0;
    for (; e < list->count; e++) {
        struct entry_probe *p = &probes[e];
        status = p->status;
        if (status == CLX_OK) {
            status = keep_open(items, e, &p->file, p->first, p->last);
            clx_image_file_close(p->file);
            p->file = NULL;
        }
        if (status == CLX_ERR_HOST_MEMORY)
            break;
        if (status != CLX_OK && items->keep_unreadable) {
            /* One image, whose loading fails with the entry's error. */
            if ((status = items_add(items, &capacity, e, -1, 0)) != CLX_OK)
                break;
            continue;
        }
        if (status != CLX_OK) {
            /* The first bad entry in list order ends the list; opened again
             * here for its message. */
            clx_image_file *file = NULL;
            int first, last, named;
            items->status = entry_open(list->entries[e], list->scan, &file, &first, &last, &named, &items->msg);
            clx_image_file_close(file);
            if (items->status == CLX_OK) {
                items->status = status;
                snprintf(items->msg.text, sizeof items->msg.text, "%s could not be opened", list->entries[e]);
            }
            status = CLX_OK;
            break;
        }
        for (int page = p->first; page <= p->last && status == CLX_OK; page++)
            status = items_add(items, &capacity, e, page, p->named);
        if (status != CLX_OK)
            break;
    }
    for (; e < list->count; e++)
        clx_image_file_close(probes[e].file);
    free(probes);
    return status;
}

void image_items_free(struct image_items *items)
{
    for (size_t e = 0; items->open && e < items->list->count; e++)
        clx_image_file_close(items->open[e]);
    free(items->open);
    items->open = NULL;
    free(items->items);
    items->items = NULL;
    items->count = 0;
}

const clx_scan_info *image_items_scan(const struct image_items *items)
{
    if (items->count == 0 || items->status != CLX_OK || !items->open)
        return NULL;
    size_t e = items->items[0].entry;
    const clx_scan_info *scan = clx_image_file_scan(items->open[e]);
    if (!scan || scan->rows < 1 || items->items[items->count - 1].entry != e)
        return NULL;
    return scan;
}

void image_item_scan_point(const struct image_items *items, size_t i, const clx_scan_info *scan, long *row, long *col)
{
    int page = items->items[i].page < 0 ? 0 : items->items[i].page;
    *row = page / scan->cols;
    *col = page % scan->cols;
}

char *image_item_name(const struct image_items *items, size_t i)
{
    const struct image_item *it = &items->items[i];
    const char *entry = items->list->entries[it->entry];
    size_t n = strlen(entry) + 16;
    char *name = malloc(n);
    if (name && it->named_page)
        snprintf(name, n, "%s#%d", entry, it->page);
    else if (name)
        snprintf(name, n, "%s", entry);
    return name;
}

/* The file image i is a page of (malloc'd). */
static int item_path(const struct image_items *items, size_t i, char **path)
{
    int page;
    return clx_image_name_split(items->list->entries[items->items[i].entry], path, &page, NULL, NULL);
}

/* An unreadable entry kept as an image (keep_unreadable): its error again. */
static int unreadable_item(const struct image_items *items, size_t i, clx_message *msg)
{
    clx_image_file *file;
    int first, last, named;
    int status = entry_open(items->list->entries[items->items[i].entry], items->list->scan, &file, &first, &last,
                            &named, msg);
    clx_image_file_close(file);
    if (status == CLX_OK) {
        /* It opens now: it changed since the list was read. */
        snprintf(msg->text, sizeof msg->text, "%s could not be opened when the list was read",
                 items->list->entries[items->items[i].entry]);
        status = CLX_ERR_IO;
    }
    return status;
}

int image_item_load(const struct image_items *items, size_t i, clx_image *image, clx_message *msg)
{
    char *path;
    if (items->items[i].page < 0)
        return unreadable_item(items, i, msg);
    clx_image_file *open = items->open ? items->open[items->items[i].entry] : NULL;
    if (open)
        return clx_image_file_read(open, items->items[i].page, image, msg);
    if (item_path(items, i, &path) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    int status = clx_image_load(path, items->items[i].page, image, msg);
    free(path);
    return status;
}

int image_item_load_into(const struct image_items *items, size_t i, clx_image *dst, const clx_rows *rows,
                         size_t nrows, clx_message *msg)
{
    char *path;
    if (items->items[i].page < 0)
        return unreadable_item(items, i, msg);
    clx_image_file *open = items->open ? items->open[items->items[i].entry] : NULL;
    if (open)
        return clx_image_file_read_rows_into(open, items->items[i].page, dst, rows, nrows, msg);
    if (item_path(items, i, &path) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    int status = clx_image_load_rows_into(path, items->items[i].page, dst, rows, nrows, msg);
    free(path);
    return status;
}
