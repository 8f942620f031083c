/*
 * resume.h - `offsets --resume -o FILE`: continuing a run that stopped.
 *
 * The rows an earlier run left in FILE.part (or in FILE) are checked, not
 * trusted: the header lines must be the ones this run writes, and image by
 * image every window's row must be whole (end in a newline) and start with
 * the image's name and the window's index, in order. The first image that
 * fails (the one whose rows an interruption cut, say) and everything after
 * it are cut off, and the run appends from there, so that the finished file
 * is byte for byte the output of an uninterrupted run.
 */
#ifndef CLX_RESUME_H
#define CLX_RESUME_H

#include <stddef.h>

struct resume_check {
    const char *header;        /* the lines the run writes before its rows */
    size_t windows;            /* rows per image */
    size_t images;             /* the run's images */
    /* How the row of image i, window w must start (e.g. "name,w,") into buf;
     * returns its length, or -1 when it does not fit. */
    int (*row_start)(void *user, size_t image, size_t window, char *buf, size_t len);
    void *user;
};

/*
 * Finds the whole images at the start of path's earlier output (PATH.part,
 * else PATH), cuts off what follows them and leaves the file as PATH.part,
 * ready to be appended to. *kept: those images; *found: 0 when there was no
 * earlier output (then nothing is touched). Reports errors itself (a file
 * from another kind of run is refused, not overwritten); returns 0 or -1.
 */
int resume_prepare(const char *path, const struct resume_check *c, size_t *kept, int *found);

#endif
