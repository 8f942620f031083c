/*
 * output_guard.h - before any work, an output that would overwrite one of
 * the command's inputs (an image, the reference, a windows or list file, a
 * shard, a results file) is refused, the input untouched. Files are
 * compared by device and inode (so a link or another spelling of the name
 * is caught) and by name (PATH.part, the temporary, too).
 */
#ifndef CLX_OUTPUT_GUARD_H
#define CLX_OUTPUT_GUARD_H

#include <stddef.h>
#include "image_list.h"

struct output_guard {
    const char *option;        /* how the output was named: "-o", "--meta", ... */
    const char *path;          /* NULL or "-": standard output, nothing to check */
};

/*
 * Checks every output against the inputs: `files` (n paths, NULL ones
 * skipped) and the entries of `list` (may be NULL; "PATH#N" is PATH), and
 * the outputs against each other. Reports the first clash and returns -1,
 * else 0.
 */
int output_guard_check(const struct output_guard *outputs, size_t noutputs, const char *const *files, size_t n,
                       const struct image_list *list);

#endif
