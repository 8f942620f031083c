/* output_guard.c - no output overwrites an input; see output_guard.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "output/output_guard.h"
#include "report.h"

static int named(const struct output_guard *o)
{
    return o->path && strcmp(o->path, "-") != 0;
}

/* One input against one output; reports and returns -1 on a clash. */
static int input_check(const struct output_guard *o, const char *input, const char *shown)
{
    if (!clx_output_overwrites(o->path, input))
        return 0;
    report_error("%s %s would overwrite the input %s: choose another output name", o->option, o->path, shown);
    return -1;
}

int output_guard_check(const struct output_guard *outputs, size_t noutputs, const char *const *files, size_t n,
                       const struct image_list *list)
{
    for (size_t k = 0; k < noutputs; k++) {
        const struct output_guard *o = &outputs[k];
        if (!named(o))
            continue;
        for (size_t j = 0; j < k; j++)
            if (named(&outputs[j]) && clx_output_overwrites(o->path, outputs[j].path)) {
                report_error("%s %s and %s %s name one file: give each its own", outputs[j].option,
                             outputs[j].path, o->option, o->path);
                return -1;
            }
        for (size_t i = 0; i < n; i++)
            if (files[i] && input_check(o, files[i], files[i]) != 0)
                return -1;
        /* A list may hold 100,000 names: a file repeated page after page
         * is checked once (and an input is stat()ed only when the output
         * exists). */
        const char *last = NULL;
        char *path = NULL;
        for (size_t i = 0; list && i < list->count; i++) {
            int page;
            if (clx_image_name_split(list->entries[i], &path, &page, NULL, NULL) != CLX_OK)
                continue;
            int clash = (!last || strcmp(last, path) != 0) && clx_output_overwrites(o->path, path);
            if (clash)
                input_check(o, path, list->entries[i]);
            free((char *)last);
            last = path;
            path = NULL;
            if (clash) {
                free((char *)last);
                return -1;
            }
        }
        free((char *)last);
    }
    return 0;
}
