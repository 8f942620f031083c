/*
 * resume.h - `offsets --resume -o FILE`: continuing a run that stopped,
 * however it stopped (Ctrl-C, a crash, SIGKILL, a full disk, a power cut).
 *
 * A run writing FILE leaves two files until it completes:
 *   FILE.part     the output so far, exactly the bytes an uninterrupted run
 *                 writes first, in whole images, synced at checkpoints
 *   FILE.resume   the run's fingerprint (its options, reference, windows
 *                 and image list) and the last checkpoint (images, bytes)
 * The fingerprint is a file of its own because FILE.part becomes FILE by a
 * rename, and FILE must be the uninterrupted run's bytes: inside FILE.part
 * it would have to be cut out by copying the whole output at the end.
 *
 * Resuming checks the fingerprint first (another run's output is refused,
 * never mixed in), then the rows, not trusting them: the header lines must
 * be the ones this run writes, and image by image every window's row must
 * be whole, start with the image's name and the window's index, in order,
 * and hold no NUL byte (what a file system shows for blocks a power cut
 * kept from the disk). The first image that fails and everything after it
 * are cut off, and the run appends from there, so that the finished file is
 * byte for byte the output of an uninterrupted run.
 */
#ifndef CLX_RESUME_H
#define CLX_RESUME_H

#include <stddef.h>
#include <stdint.h>
#include "clxcorr.h"

/* What makes a run's rows what they are, hashed by part so that a mismatch
 * can say which part differs. */
struct run_fingerprint {
    uint64_t options;          /* clxcorr's version, the command, every option that shapes a row */
    uint64_t reference;        /* its name and pixels */
    uint64_t windows;          /* every window's x, y, w, h */
    uint64_t images;           /* the run's image names, in order */
    /* What `options` hashes, one "NAME VALUE" line per option, named as
     * the command names it: FILE.resume keeps it, so that a resume with
     * other options can say which. "" in the record of an older clxcorr. */
    char options_text[4096];
};

/* FNV-1a over bytes, continued from h (start with RUN_HASH_INIT). */
#define RUN_HASH_INIT UINT64_C(0xcbf29ce484222325)
uint64_t run_hash(uint64_t h, const void *data, size_t n);

/* FILE.resume: written (atomically, through clx_output) at each checkpoint,
 * removed once FILE is complete. */
int resume_record_write(const char *path, const struct run_fingerprint *fp, size_t images, long long bytes,
                        clx_message *msg);
void resume_record_remove(const char *path);

struct resume_check {
    const char *header;        /* the lines the run writes before its rows */
    size_t windows;            /* rows per image */
    size_t images;             /* the run's images */
    const struct run_fingerprint *fp;
    /* How the row of image i, window w must start (e.g. "name,w,") into buf;
     * returns its length, or -1 when it does not fit. */
    int (*row_start)(void *user, size_t image, size_t window, char *buf, size_t len);
    void *user;
};

struct resume_state {
    int found;                 /* an earlier output was there */
    int complete;              /* FILE itself is complete: nothing to do */
    size_t kept;               /* whole images kept */
    long long bytes;           /* FILE.part's length after them */
    clx_output *part;          /* FILE.part, locked and cut, to append to (NULL when complete or not found) */
};

/*
 * Finds what an earlier run left for path and checks it (see above). No
 * FILE.part: a FILE that is complete for this run is left as it is
 * (complete); else the run starts from its first image (found 0).
 * Reports errors itself; returns 0 or -1.
 */
int resume_prepare(const char *path, const struct resume_check *c, struct resume_state *s);

#endif
