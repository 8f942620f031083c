/*
 * image_list.h - the images of a run, in input order: names from the
 * command line and from --list files, expanded page by page as they are read.
 *
 * An entry is an image name as clx_image_name_split reads it: "PATH#N" names
 * page N (0-based) of a multi-page TIFF or pattern N of an EBSD pattern
 * file, and "PATH#ROW,COL" the pattern at that point of a pattern file's
 * scan grid (0-based), unless a file with the entry's literal name exists.
 * An entry without them that names a file of several pages stands for all
 * of them, reported as PATH#0, PATH#1, ... (a pattern file: in scan order).
 */
#ifndef CLX_IMAGE_LIST_H
#define CLX_IMAGE_LIST_H

#include <stddef.h>
#include "clxcorr.h"

struct image_list {
    char **entries;
    size_t count, capacity;
    const char *scan;          /* --scan: the scan read in pattern files that hold several (NULL: the only one) */
};

int image_list_add(struct image_list *list, const char *entry);
/*
 * Adds the command line's remaining words (argv[first] on) and checks that
 * there is an image, unless a --list will bring them; reports a problem
 * (the error ends with `hint`) and returns -1.
 */
int image_list_add_args(struct image_list *list, int argc, char **argv, int first, int have_list, const char *hint);
/* Adds every non-blank line of `path` ("-": standard input) that does not
 * start with '#'; a line with a NUL byte is refused (CLX_ERR_FORMAT, "PATH:LINE: ..."). */
int image_list_read(struct image_list *list, const char *path, clx_message *msg);
void image_list_free(struct image_list *list);

/* Loads one image named by an entry (the scan `scan` of pattern files that
 * hold several); a multi-page file needs "#N" (a pattern file: or "#ROW,COL"). */
int image_entry_load_single(const char *entry, const char *scan, clx_image *image, clx_message *msg);

/* Walks a list image by image. */
struct image_cursor {
    const struct image_list *list;
    size_t next_entry;
    clx_image_file *file;      /* open while its pages are being read */
    const char *entry;
    int page, last_page;
    int named_pages;           /* report names as PATH#N */
};

void image_cursor_init(struct image_cursor *c, const struct image_list *list);
/*
 * Decodes the next image into *image and gives its display name (malloc'd).
 * Returns 1 for an image, 0 at the end, a negative clx_status on error
 * (msg names the file).
 */
int image_cursor_next(struct image_cursor *c, char **name, clx_image *image, clx_message *msg);
void image_cursor_close(struct image_cursor *c);

/*
 * The run's images one by one, each an entry's page, so that several
 * threads can load them at once (clx_stream_run). Expanding opens every
 * entry once to count its pages. An entry that cannot be opened ends the
 * expansion there: `count` images come before it, and `status` and `msg`
 * say what is wrong with it (CLX_OK: none).
 */
struct image_item {
    size_t entry;              /* index into the list */
    int page;                  /* -1: an entry kept although it cannot be opened */
    int named_page;            /* its rows say PATH#N */
};

struct image_items {
    const struct image_list *list;
    struct image_item *items;
    size_t count;
    /* Per entry, the pattern file kept open for the run (its pages are read
     * from several loader threads at once); NULL: each page opens its file. */
    clx_image_file **open;
    int status;
    clx_message msg;
    /* Set before expanding (--skip-bad): an entry that cannot be opened
     * becomes one image whose loading fails, instead of ending the list. */
    int keep_unreadable;
};

/* Returns CLX_OK or CLX_ERR_HOST_MEMORY; a bad entry is reported in items.
 * items->keep_unreadable is the caller's to set first. */
int image_items_expand(const struct image_list *list, struct image_items *items);
void image_items_free(struct image_items *items);
/* The scan when every image is a pattern of one pattern file with a scan
 * grid (the run's rows then name scan points, not files); else NULL. */
const clx_scan_info *image_items_scan(const struct image_items *items);
/* Image i's point in that scan's grid. */
void image_item_scan_point(const struct image_items *items, size_t i, const clx_scan_info *scan, long *row, long *col);
/* The name image i's rows carry (malloc'd; NULL when out of memory). */
char *image_item_name(const struct image_items *items, size_t i);
/* Decodes image i (malloc'd pixels). */
int image_item_load(const struct image_items *items, size_t i, clx_image *image, clx_message *msg);
/* Decodes image i into dst's pixels, which must be its size
 * (clx_image_load_rows_into): the rows in `rows` at least (NULL: all). */
int image_item_load_into(const struct image_items *items, size_t i, clx_image *dst, const clx_rows *rows,
                         size_t nrows, clx_message *msg);

#endif
