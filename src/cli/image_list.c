/* image_list.c - image names from arguments and list files; page expansion. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int image_entry_split(const char *entry, char **path, int *page)
{
    struct stat st;
    const char *hash = strrchr(entry, '#');
    *page = -1;
    if (hash && hash[1] != '\0' && strspn(hash + 1, "0123456789") == strlen(hash + 1) &&
        strlen(hash + 1) < 9 && stat(entry, &st) != 0) {
        *page = atoi(hash + 1);
        *path = malloc((size_t)(hash - entry) + 1);
        if (!*path)
            return CLX_ERR_HOST_MEMORY;
        memcpy(*path, entry, (size_t)(hash - entry));
        (*path)[hash - entry] = '\0';
        return CLX_OK;
    }
    *path = strdup(entry);
    return *path ? CLX_OK : CLX_ERR_HOST_MEMORY;
}

int image_entry_load_single(const char *entry, clx_image *image, clx_message *msg)
{
    char *path;
    int page, status;
    clx_image_file *file = NULL;

    if (image_entry_split(entry, &path, &page) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    status = clx_image_file_open(path, &file, msg);
    if (status == CLX_OK) {
        int pages = clx_image_file_pages(file);
        if (page < 0 && pages > 1) {
            snprintf(msg->text, sizeof msg->text, "%s has %d pages; name one as %s#N (N from 0 to %d)", path,
                     pages, path, pages - 1);
            status = CLX_ERR_ARGUMENT;
        } else {
            status = clx_image_file_read(file, page < 0 ? 0 : page, image, msg);
        }
        clx_image_file_close(file);
    }
    free(path);
    return status;
}

void image_cursor_init(struct image_cursor *c, const struct image_list *list)
{
    memset(c, 0, sizeof *c);
    c->list = list;
}

/*
 * Opens the file an entry names and gives the pages it stands for: the page
 * it names, or all of them (named PATH#N in the rows when there are
 * several). *file is NULL after a failure (msg says why).
 */
static int entry_open(const char *entry, clx_image_file **file, int *first, int *last, int *named,
                      clx_message *msg)
{
    char *path;
    int page;
    *file = NULL;
    if (image_entry_split(entry, &path, &page) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    int status = clx_image_file_open(path, file, msg);
    if (status == CLX_OK) {
        int pages = clx_image_file_pages(*file);
        if (page >= pages) {
            snprintf(msg->text, sizeof msg->text, "%s has %d page%s; page %d does not exist", path, pages,
                     pages == 1 ? "" : "s", page);
            status = CLX_ERR_ARGUMENT;
            clx_image_file_close(*file);
            *file = NULL;
        }
        *first = page >= 0 ? page : 0;
        *last = page >= 0 ? page : pages - 1;
        *named = page < 0 && pages > 1;     /* an entry that names its page keeps its name */
    }
    free(path);
    return status;
}

static int open_next_entry(struct image_cursor *c, clx_message *msg)
{
    c->entry = c->list->entries[c->next_entry++];
    return entry_open(c->entry, &c->file, &c->page, &c->last_page, &c->named_pages, msg);
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

int image_items_expand(const struct image_list *list, struct image_items *items)
{
    size_t capacity = 0;
    int keep_unreadable = items->keep_unreadable;
    memset(items, 0, sizeof *items);
    items->list = list;
    items->keep_unreadable = keep_unreadable;
    for (size_t e = 0; e < list->count; e++) {
        clx_image_file *file;
        int first, last, named;
        int status = entry_open(list->entries[e], &file, &first, &last, &named, &items->msg);
        clx_image_file_close(file);
        if (status == CLX_ERR_HOST_MEMORY)
            return status;
        if (status != CLX_OK && items->keep_unreadable) {
            /* One image, whose loading fails with the entry's error. */
            if (items_add(items, &capacity, e, -1, 0) != CLX_OK)
                return CLX_ERR_HOST_MEMORY;
            continue;
        }
        if (status != CLX_OK) {
            items->status = status;
            return CLX_OK;
        }
        for (int p = first; p <= last; p++)
            if (items_add(items, &capacity, e, p, named) != CLX_OK)
                return CLX_ERR_HOST_MEMORY;
    }
    return CLX_OK;
}

void image_items_free(struct image_items *items)
{
    free(items->items);
    items->items = NULL;
    items->count = 0;
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
    return image_entry_split(items->list->entries[items->items[i].entry], path, &page);
}

/* An unreadable entry kept as an image (keep_unreadable): its error again. */
static int unreadable_item(const struct image_items *items, size_t i, clx_message *msg)
{
    clx_image_file *file;
    int first, last, named;
    int status = entry_open(items->list->entries[items->items[i].entry], &file, &first, &last, &named, msg);
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
    if (item_path(items, i, &path) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    int status = clx_image_load(path, items->items[i].page, image, msg);
    free(path);
    return status;
}

int image_item_load_into(const struct image_items *items, size_t i, clx_image *dst, clx_message *msg)
{
    char *path;
    if (items->items[i].page < 0)
        return unreadable_item(items, i, msg);
    if (item_path(items, i, &path) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    int status = clx_image_load_into(path, items->items[i].page, dst, msg);
    free(path);
    return status;
}
