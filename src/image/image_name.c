/*
 * image_name.c - image names as clxcorr takes them everywhere: "PATH",
 * "PATH#N" (a page or pattern) and "PATH#ROW,COL" (a scan point), so that
 * the command and the library's bindings read a name the same way.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/message.h"

/* Whether text is 1 to 8 decimal digits and nothing else: more could
 * overflow an int, and no file has that many pages. */
static int is_index(const char *text, size_t len)
{
    return len > 0 && len < 9 && strspn(text, "0123456789") == len;
}

int clx_image_name_split(const char *name, char **path, int *page, int *row, int *col)
{
    struct stat st;
    const char *hash = strrchr(name, '#');
    const char *comma = hash ? strchr(hash, ',') : NULL;
    int r = -1, c = -1, p = -1;
    /* A file whose literal name ends in "#2" is that file, not a page of another. */
    if (hash && stat(name, &st) != 0) {
        if (!comma && is_index(hash + 1, strlen(hash + 1)))
            p = atoi(hash + 1);
        else if (comma && is_index(hash + 1, (size_t)(comma - hash - 1)) && is_index(comma + 1, strlen(comma + 1))) {
            r = atoi(hash + 1);
            c = atoi(comma + 1);
        }
    }
    *page = p;
    if (row)
        *row = r;
    if (col)
        *col = c;
    size_t n = p >= 0 || r >= 0 ? (size_t)(hash - name) : strlen(name);
    *path = malloc(n + 1);
    if (!*path)
        return CLX_ERR_HOST_MEMORY;
    memcpy(*path, name, n);
    (*path)[n] = '\0';
    return CLX_OK;
}

/* The page of scan point (row, col) of an open pattern file: CLX_OK, or why not in msg. */
static int scan_point_page(clx_image_file *file, const char *path, int row, int col, int *page, clx_message *msg)
{
    const clx_scan_info *scan = clx_image_file_scan(file);
    if (!scan || scan->rows < 1)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "%s has no scan grid: name a pattern as %s#N (from 0)", path, path);
    if (row >= scan->rows || col >= scan->cols)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "%s: scan point %d,%d is outside its %d x %d grid (rows x columns, "
                        "from 0)", path, row, col, scan->rows, scan->cols);
    *page = row * scan->cols + col;
    return CLX_OK;
}

int clx_image_name_open(const char *name, const char *scan, clx_image_file **file, int *first_page, int *last_page,
                        clx_message *msg)
{
    char *path;
    int page, row, col;
    *file = NULL;
    if (!name)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_image_name_open: NULL name");
    if (clx_image_name_split(name, &path, &page, &row, &col) != CLX_OK)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    int status = clx_image_file_open_scan(path, scan, file, msg);
    if (status == CLX_OK && row >= 0)
        status = scan_point_page(*file, path, row, col, &page, msg);
    if (status == CLX_OK) {
        int pages = clx_image_file_pages(*file);
        if (page >= pages) {
            const char *what = clx_image_file_scan(*file) ? "pattern" : "page";
            status = msg_fail(msg, CLX_ERR_ARGUMENT, "%s has %d %s%s (from 0); %s %d does not exist", path, pages,
                              what, pages == 1 ? "" : "s", what, page);
        }
        *first_page = page >= 0 ? page : 0;
        *last_page = page >= 0 ? page : pages - 1;
    }
    if (status != CLX_OK) {
        clx_image_file_close(*file);
        *file = NULL;
    }
    free(path);
    return status;
}
