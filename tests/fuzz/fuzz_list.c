/*
 * fuzz_list.c - libFuzzer harness for image lists (src/cli/image_list.c):
 * list files, "PATH#N" entries and their expansion into pages.
 *
 * The input is read as a list file and compared with a model of the format
 * written here from its description: every line that is not blank and does
 * not start with '#' (after spaces and tabs) is one entry, as it stands
 * without its end of line ("\n", "\r\n"). A line with a NUL byte cannot
 * name a file and must be refused. Then every entry must split as
 * image_list.h says, and where all entries are plain names (no '/'), the
 * list is expanded in a private directory holding a few small TIFFs, by
 * both walks the command uses (items and the cursor), which must agree with
 * the model and with each other, page for page and pixel for pixel.
 *
 * The harness changes into that directory: corpus and artifact paths given
 * to the fuzzer must be absolute (tests/fuzz/run.sh makes them so).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clxcorr.h"
#include "fuzz_file.h"
#include "image_list.h"

/* The files in the private directory: pages, and the value of every pixel of page p is value + p. */
static const struct known_file {
    const char *name;
    int pages;
    int value;
} known[] = {
    { "a.tif", 2, 10 },
    { "b.tif", 1, 20 },
    { "c#1", 1, 30 },      /* a name that looks like page 1 of "c" */
};

#define ENTRIES_EXPANDED_MAX 64   /* longer lists only repeat the work */

static void known_write(const struct known_file *k)
{
    clx_tiff_writer *w;
    clx_image page;
    clx_message msg;
    if (clx_tiff_writer_open(k->name, 0, &w, &msg) != CLX_OK || clx_image_alloc(&page, 4, 3, CLX_PIXEL_U8, &msg) != CLX_OK)
        fuzz_fail("%s: %s", k->name, msg.text);
    for (int p = 0; p < k->pages; p++) {
        memset(page.pixels, k->value + p, 12);
        if (clx_tiff_writer_page(w, &page, NULL, &msg) != CLX_OK)
            fuzz_fail("%s: %s", k->name, msg.text);
    }
    if (clx_tiff_writer_close(w, 1, &msg) != CLX_OK)
        fuzz_fail("%s: %s", k->name, msg.text);
    clx_image_free(&page);
}

static void directory_enter(void)
{
    static int entered;
    if (entered)
        return;
    const char *tmp = getenv("TMPDIR");
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/clxcorr-fuzz-list.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || chdir(dir) != 0)
        fuzz_fail("cannot make and enter %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        known_write(&known[i]);
    entered = 1;
}

/* ---- The model ----------------------------------------------------------- */

struct model {
    const char **entries;     /* into a NUL-terminated copy of the input */
    size_t count;
    size_t nul_line;          /* the first line with a NUL byte (1-based), 0 if none */
};

/* Cuts text (size bytes, plus a NUL after them) into the model's entries, in place. */
static void model_build(char *text, size_t size, struct model *m)
{
    m->entries = malloc((size + 1) * sizeof *m->entries);
    m->count = 0;
    m->nul_line = 0;
    if (!m->entries)
        fuzz_fail("out of memory");
    size_t number = 0;
    for (char *line = text; line < text + size; number++) {
        char *newline = memchr(line, '\n', (size_t)(text + size - line));
        char *end = newline ? newline : text + size;
        char *next = newline ? newline + 1 : end;
        while (end > line && end[-1] == '\r')
            end--;
        char *p = line;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p != '#') {
            if (memchr(line, '\0', (size_t)(end - line)) && !m->nul_line)
                m->nul_line = number + 1;
            *end = '\0';
            m->entries[m->count++] = line;
        }
        line = next;
    }
}

/* ---- Checks -------------------------------------------------------------- */

/* 1 to 8 decimal digits, and nothing else, in s[0..len). */
static int digits_only(const char *s, size_t len)
{
    return len > 0 && len < 9 && strspn(s, "0123456789") >= len;
}

/* "PATH#N" names page N of PATH and "PATH#ROW,COL" a scan point, unless a
 * file has that literal name (clx_image_name_split, clxcorr.h). */
static void split_check(const char *entry)
{
    char *path;
    int page, row, col;
    if (clx_image_name_split(entry, &path, &page, &row, &col) != CLX_OK)
        fuzz_fail("clx_image_name_split: out of memory");
    const char *hash = strrchr(entry, '#');
    const char *comma = hash ? strchr(hash, ',') : NULL;
    int literal = access(entry, F_OK) == 0;
    int named = hash && !comma && !literal && digits_only(hash + 1, strlen(hash + 1));
    int point = hash && comma && !literal && digits_only(hash + 1, (size_t)(comma - hash - 1)) &&
                digits_only(comma + 1, strlen(comma + 1));
    if ((named || point) && (strlen(path) != (size_t)(hash - entry) || strncmp(path, entry, strlen(path)) != 0))
        fuzz_fail("\"%s\" split as \"%s\"", entry, path);
    if (named && (page != atoi(hash + 1) || row != -1 || col != -1))
        fuzz_fail("\"%s\" split as page %d, point %d,%d", entry, page, row, col);
    if (point && (page != -1 || row != atoi(hash + 1) || col != atoi(comma + 1)))
        fuzz_fail("\"%s\" split as page %d, point %d,%d", entry, page, row, col);
    if (!named && !point && (page != -1 || row != -1 || col != -1 || strcmp(path, entry) != 0))
        fuzz_fail("\"%s\" split as \"%s\" page %d, expected the whole name", entry, path, page);
    free(path);
}

static const struct known_file *known_find(const char *name)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].name, name) == 0)
            return &known[i];
    return NULL;
}

/* What expanding one entry must give: its file, first and last page; NULL for an entry that must fail. */
static const struct known_file *entry_model(const char *entry, int *first, int *last, int *named)
{
    char *path;
    int page, row, col;
    if (clx_image_name_split(entry, &path, &page, &row, &col) != CLX_OK)
        fuzz_fail("clx_image_name_split: out of memory");
    const struct known_file *k = known_find(path);
    free(path);
    /* The known files are TIFFs: a scan point names none of their pages. */
    if (!k || page >= k->pages || row >= 0)
        return NULL;
    *first = page < 0 ? 0 : page;
    *last = page < 0 ? k->pages - 1 : page;
    *named = page < 0 && k->pages > 1;
    return k;
}

static void pixels_check(const char *what, const clx_image *im, int value)
{
    if (im->width != 4 || im->height != 3 || im->type != CLX_PIXEL_U8 || ((unsigned char *)im->pixels)[11] != value)
        fuzz_fail("%s: a %dx%d image, not the 4x3 one of value %d", what, im->width, im->height, value);
}

/* Expands the list both ways the command does, against the model. */
static void expand_check(const struct image_list *list)
{
    struct image_items items = { 0 };   /* keep_unreadable is the caller's to set: off */
    if (image_items_expand(list, &items) != CLX_OK)
        fuzz_fail("image_items_expand: out of memory");
    struct image_cursor cursor;
    image_cursor_init(&cursor, list);

    size_t item = 0;
    int bad = 0;
    for (size_t e = 0; e < list->count && !bad; e++) {
        int first, last, named;
        const struct known_file *k = entry_model(list->entries[e], &first, &last, &named);
        bad = k == NULL;
        for (int p = first; k && p <= last; p++, item++) {
            char expect[4200], *name;
            clx_image im;
            clx_message msg;
            if (named)
                snprintf(expect, sizeof expect, "%s#%d", list->entries[e], p);
            else
                snprintf(expect, sizeof expect, "%s", list->entries[e]);
            if (item >= items.count || items.items[item].entry != e || items.items[item].page != p)
                fuzz_fail("item %zu is not page %d of entry %zu \"%s\"", item, p, e, list->entries[e]);
            if (!(name = image_item_name(&items, item)) || strcmp(name, expect) != 0)
                fuzz_fail("item %zu is named \"%s\", not \"%s\"", item, name ? name : "(null)", expect);
            free(name);
            if (image_item_load(&items, item, &im, &msg) != CLX_OK)
                fuzz_fail("item %zu (%s): %s", item, expect, msg.text);
            pixels_check(expect, &im, k->value + p);
            clx_image_free(&im);
            if (image_cursor_next(&cursor, &name, &im, &msg) != 1 || strcmp(name, expect) != 0)
                fuzz_fail("the cursor's image %zu is \"%s\" (%s), not \"%s\"", item, name ? name : "(null)",
                          msg.text, expect);
            pixels_check(expect, &im, k->value + p);
            free(name);
            clx_image_free(&im);
        }
    }
    if (items.count != item)
        fuzz_fail("%zu items, expected %zu", items.count, item);
    if (bad != (items.status != CLX_OK))
        fuzz_fail("expansion status %d (%s) for a list that is %s", items.status, items.msg.text,
                  bad ? "bad" : "good");
    if (bad && (!items.msg.text[0] || strchr(items.msg.text, '\n')))
        fuzz_fail("expansion failed without a one-line message: \"%s\"", items.msg.text);
    char *name;
    clx_image im;
    clx_message msg;
    int rc = image_cursor_next(&cursor, &name, &im, &msg);
    if (bad ? rc >= 0 : rc != 0)
        fuzz_fail("the cursor's end: %d (%s), expected %s", rc, msg.text, bad ? "an error" : "0");
    if (rc == 1) {
        free(name);
        clx_image_free(&im);
    }
    image_cursor_close(&cursor);
    image_items_free(&items);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    directory_enter();
    const char *path = fuzz_file_write(data, size);
    struct image_list list = { 0 };
    clx_message msg = { { 0 } };
    int rc = image_list_read(&list, path, &msg);

    char *text = malloc(size + 1);
    if (!text)
        fuzz_fail("out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    struct model m;
    model_build(text, size, &m);

    if (m.nul_line) {
        char where[4200];
        snprintf(where, sizeof where, "%s:%zu:", path, m.nul_line);
        if (rc != CLX_ERR_FORMAT || strncmp(msg.text, where, strlen(where)) != 0)
            fuzz_fail("line %zu has a NUL byte: status %d, message \"%s\"", m.nul_line, rc, msg.text);
    } else if (rc != CLX_OK) {
        fuzz_fail("image_list_read: status %d (%s)", rc, msg.text);
    } else {
        if (list.count != m.count)
            fuzz_fail("%zu entries, the model has %zu", list.count, m.count);
        int plain = list.count <= ENTRIES_EXPANDED_MAX;
        for (size_t i = 0; i < list.count; i++) {
            if (strcmp(list.entries[i], m.entries[i]) != 0)
                fuzz_fail("entry %zu is \"%s\", the model's \"%s\"", i, list.entries[i], m.entries[i]);
            split_check(list.entries[i]);
            plain &= strchr(list.entries[i], '/') == NULL;
        }
        /* Only plain names: a path outside the directory could name a FIFO and block. */
        if (plain)
            expand_check(&list);
    }
    if (fuzz_reporting())
        printf("%s: %zu entries%s%s\n", clx_status_name(rc), list.count, rc ? ": " : "",
               rc ? msg.text + strlen(path) : "");
    free(m.entries);
    free(text);
    image_list_free(&list);
    return 0;
}
