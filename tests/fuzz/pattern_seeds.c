/*
 * pattern_seeds.c - writes the pattern-file fuzzer's seed corpus (`make
 * fuzz-seeds`): small valid files of every version and layout of each
 * binary pattern format, each behind the byte that tells fuzz_patterns.c
 * which name to give it (fuzz_patterns.h), so that the fuzzer starts from
 * inside each reader.
 *
 *   clxcorr-fuzz-pattern-seeds DIR
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_patterns.h"
#include "pattern_writers.h"

/* Small patterns: the fuzzer's inputs stay under a few kilobytes. */
#define W 8
#define H 6

static const char *dir;

static void seed_save(const char *name, enum pattern_kind kind, const struct byte_buf *file)
{
    char path[4096];
    struct byte_buf seed = { 0 };
    buf_u8(&seed, (unsigned)kind);
    buf_bytes(&seed, file->data, file->size);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (buf_save(&seed, path) != 0) {
        fprintf(stderr, "clxcorr-fuzz-pattern-seeds: cannot write %s\n", path);
        exit(1);
    }
    buf_free(&seed);
}

static void up_seeds(void)
{
    const struct {
        const char *name;
        struct up_spec spec;
    } seeds[] = {
        { "up1-v1", { 1, 8, W, H, 0, 0, 0, 0, 0, 6 } },
        { "up2-v1", { 1, 16, W, H, 0, 0, 0, 0, 0, 2 } },
        { "up1-v3", { 3, 8, W, H, 2, 2, 0, 0.5, 0.5, 4 } },
        { "up2-v3-extra", { 3, 16, W, H, 3, 1, 0, 1.5, 2.0, 4 } },
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        struct byte_buf b = { 0 };
        up_build(&b, &seeds[i].spec);
        seed_save(seeds[i].name, seeds[i].spec.bits == 8 ? PATTERN_UP1 : PATTERN_UP2, &b);
        buf_free(&b);
    }
}

static void ebsp_seeds(void)
{
    for (int version = 0; version <= 5; version++) {
        char name[64];
        struct ebsp_spec s = { version, version % 2 ? 16 : 8, W, H, 3, 2, 1.5, 1, -1, 1 };
        struct byte_buf b = { 0 };
        snprintf(name, sizeof name, "ebsp-v%d", version);
        ebsp_build(&b, &s);
        seed_save(name, PATTERN_EBSP, &b);
        buf_free(&b);
        if (version < 2)
            continue;
        /* Without positions, and with a point not stored. */
        s.positions = 0;
        s.missing = 1;
        snprintf(name, sizeof name, "ebsp-v%d-missing", version);
        ebsp_build(&b, &s);
        seed_save(name, PATTERN_EBSP, &b);
        buf_free(&b);
    }
}

static void nordif_seeds(void)
{
    struct nordif_spec spec = { "8x6", NULL, "2x2", "1.5", "70", "-20", "0" };
    struct byte_buf settings = { 0 }, b = { 0 };
    nordif_settings_build(&settings, &spec);
    buf_u8(&b, settings.size & 0xff);
    buf_u8(&b, settings.size >> 8);
    buf_bytes(&b, settings.data, settings.size);
    for (int p = 0; p < 4; p++)
        pw_pattern(&b, p, W, H, 8);
    seed_save("nordif", PATTERN_NORDIF, &b);
    buf_free(&b);
    buf_free(&settings);
    for (int p = 0; p < 2; p++)
        pw_pattern(&b, p, W, H, 8);
    seed_save("nordif-alone", PATTERN_NORDIF_ALONE, &b);
    buf_free(&b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: clxcorr-fuzz-pattern-seeds DIR\n");
        return 2;
    }
    dir = argv[1];
    up_seeds();
    ebsp_seeds();
    nordif_seeds();
    return 0;
}
