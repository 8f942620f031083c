/*
 * shard.h - one run cut into N independent shards (--shard K/N), for
 * schedulers such as Slurm job arrays, and what `clxcorr merge` checks when
 * it joins them.
 *
 * Shard K of N takes the K-th of N runs of consecutive images (sizes
 * differing by at most one). Its output starts with one comment line that
 * describes it:
 *
 *   # clxcorr shard K/N first=A images=M total=T windows=W list=HASH
 *
 * (A: the run's index of its first image; HASH: of every image name of the
 * whole run, in order), so that merge can tell shards of the same run from
 * others, and a missing, repeated or incomplete shard from a complete set.
 */
#ifndef CLX_SHARD_H
#define CLX_SHARD_H

#include <stddef.h>
#include <stdint.h>

struct shard {
    int index, count;          /* K (1-based) and N */
    size_t first, images;      /* its images: first .. first + images - 1 */
    size_t total;              /* images of the whole run */
    size_t windows;
    uint64_t list;             /* hash of the run's image names */
};

/* Parses "K/N" (1 <= K <= N). Reports a usage error and returns -1. */
int shard_parse(const char *text, int *index, int *count);

/* Shard K/N's images of a run of `total`. */
void shard_range(int index, int count, size_t total, size_t *first, size_t *images);

/* FNV-1a over image names, one after the other (start with SHARD_LIST_HASH_INIT). */
#define SHARD_LIST_HASH_INIT UINT64_C(0xcbf29ce484222325)
uint64_t shard_list_hash(uint64_t h, const char *name);

/* The comment line (with its newline) into buf. */
void shard_format(const struct shard *s, char *buf, size_t size);

/* Reads a comment line; returns 0, or -1 when it is not one. */
int shard_scan(const char *line, struct shard *s);

#endif
