/*
 * replay.c - runs a fuzz harness on the files named on the command line,
 * without libFuzzer: how `make check` replays the seed corpora and every
 * input the fuzzers once failed on (tests/fuzz_replay.sh). Each file is
 * given to LLVMFuzzerTestOneInput as libFuzzer would give it; a broken
 * promise aborts, as under the fuzzer. With CLXCORR_FUZZ_REPORT set, the
 * harness prints what each input gave, after a line "== FILE".
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *file_slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t cap = 0;
    *size = 0;
    if (!f)
        fuzz_fail("%s: %s", path, strerror(errno));
    for (;;) {
        if (*size == cap) {
            cap = cap ? 2 * cap : 65536;
            if (!(data = realloc(data, cap)))
                fuzz_fail("%s: out of memory", path);
        }
        size_t n = fread(data + *size, 1, cap - *size, f);
        *size += n;
        if (n == 0)
            break;
    }
    if (ferror(f))
        fuzz_fail("%s: read error", path);
    fclose(f);
    return data;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    /* Absolute paths first: a harness may change directory (fuzz_list.c). */
    char **paths = calloc((size_t)argc, sizeof *paths);
    for (int i = 1; i < argc; i++)
        if (!paths || !(paths[i] = realpath(argv[i], NULL)))
            fuzz_fail("%s: %s", argv[i], strerror(errno));
    for (int i = 1; i < argc; i++) {
        size_t size;
        unsigned char *data = file_slurp(paths[i], &size);
        if (fuzz_reporting()) {
            printf("== %s\n", argv[i]);
            fflush(stdout);
        }
        LLVMFuzzerTestOneInput(data, size);
        fflush(stdout);
        free(data);
        free(paths[i]);
    }
    free(paths);
    return 0;
}
