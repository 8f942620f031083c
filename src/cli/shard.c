/* shard.c - --shard K/N and the comment line of a shard's output; see shard.h. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "shard.h"

int shard_parse(const char *text, int *index, int *count)
{
    char *end;
    long k = strtol(text, &end, 10), n;
    if (end == text || *end != '/') {
        report_error("--shard: expected K/N (e.g. 3/8), got '%s'", text);
        return -1;
    }
    const char *rest = end + 1;
    n = strtol(rest, &end, 10);
    if (end == rest || *end != '\0' || n < 1 || n > 1000000) {
        report_error("--shard: expected K/N (e.g. 3/8), got '%s'", text);
        return -1;
    }
    if (k < 1 || k > n) {
        report_error("--shard %s: K counts from 1 to N=%ld", text, n);
        return -1;
    }
    *index = (int)k;
    *count = (int)n;
    return 0;
}

void shard_range(int index, int count, size_t total, size_t *first, size_t *images)
{
    /* floor((K-1) T / N) .. floor(K T / N): sizes differ by at most one. */
    size_t begin = (size_t)((unsigned long long)(index - 1) * total / (unsigned long long)count);
    size_t end = (size_t)((unsigned long long)index * total / (unsigned long long)count);
    *first = begin;
    *images = end - begin;
}

uint64_t shard_list_hash(uint64_t h, const char *name)
{
    /* The terminator too, so that ("ab", "c") and ("a", "bc") differ. */
    for (const unsigned char *p = (const unsigned char *)name;; p++) {
        h ^= *p;
        h *= UINT64_C(0x100000001b3);
        if (!*p)
            return h;
    }
}

void shard_format(const struct shard *s, char *buf, size_t size)
{
    snprintf(buf, size, "# clxcorr shard %d/%d first=%zu images=%zu total=%zu windows=%zu list=%016" PRIx64 "\n",
             s->index, s->count, s->first, s->images, s->total, s->windows, s->list);
}

int shard_scan(const char *line, struct shard *s)
{
    int used = 0;
    memset(s, 0, sizeof *s);
    if (sscanf(line, "# clxcorr shard %d/%d first=%zu images=%zu total=%zu windows=%zu list=%16" SCNx64 "%n",
               &s->index, &s->count, &s->first, &s->images, &s->total, &s->windows, &s->list, &used) != 7)
        return -1;
    if (line[used] != '\0' && line[used] != '\n')
        return -1;
    if (s->count < 1 || s->index < 1 || s->index > s->count)
        return -1;
    return 0;
}
