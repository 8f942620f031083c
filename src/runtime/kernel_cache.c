/* kernel_cache.c - program binaries cached on disk, keyed by what built them. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clxcorr.h"
#include "runtime/hash.h"
#include "runtime/kernel_cache.h"

#define CACHE_MAGIC "CLXKBIN1"
#define CACHE_MAX_BINARY (256u << 20)

struct cache_header {
    char magic[8];
    uint64_t key;
    uint64_t size;
    uint64_t checksum;
};

void kernel_cache_dir(const char *override, char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    out[0] = '\0';
    if (override && *override)
        snprintf(out, len, "%s", override);
    else if (xdg && *xdg)
        snprintf(out, len, "%s/clxcorr", xdg);
    else if (home && *home)
        snprintf(out, len, "%s/.cache/clxcorr", home);
}

uint64_t kernel_cache_key(const char *source, const char *options, const char *device_name,
                          const char *driver_version, const char *platform_version)
{
    uint64_t h = HASH_INIT;
    h = hash_string(h, source);
    h = hash_string(h, options);
    h = hash_string(h, device_name);
    h = hash_string(h, driver_version);
    h = hash_string(h, platform_version);
    h = hash_string(h, PACKAGE_VERSION);
    return h;
}

static int entry_path(const char *dir, uint64_t key, char *out, size_t len)
{
    return snprintf(out, len, "%s/kernels/%016" PRIx64 ".bin", dir, key) < (int)len ? 0 : -1;
}

unsigned char *kernel_cache_load(const char *dir, uint64_t key, size_t *size)
{
    char path[PATH_MAX];
    struct cache_header hd;
    unsigned char *bin = NULL;

    if (!dir || !*dir || entry_path(dir, key, path, sizeof path))
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fread(&hd, sizeof hd, 1, f) != 1 || memcmp(hd.magic, CACHE_MAGIC, 8) != 0 ||
        hd.key != key || hd.size == 0 || hd.size > CACHE_MAX_BINARY)
        goto corrupt;
    bin = malloc(hd.size);
    if (!bin || fread(bin, 1, hd.size, f) != hd.size || fgetc(f) != EOF ||
        hash_bytes(HASH_INIT, bin, hd.size) != hd.checksum)
        goto corrupt;
    fclose(f);
    *size = hd.size;
    return bin;
corrupt:
    /* Remove it so that the rebuilt binary replaces it. */
    free(bin);
    fclose(f);
    unlink(path);
    return NULL;
}

int kernel_cache_mkdir(const char *path)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int kernel_cache_store(const char *dir, uint64_t key, const unsigned char *binary, size_t size)
{
    char path[PATH_MAX], sub[PATH_MAX];
    struct cache_header hd;

    if (!dir || !*dir || size == 0 || size > CACHE_MAX_BINARY)
        return -1;
    if (snprintf(sub, sizeof sub, "%s/kernels", dir) >= (int)sizeof sub || kernel_cache_mkdir(sub))
        return -1;
    if (entry_path(dir, key, path, sizeof path))
        return -1;
    memcpy(hd.magic, CACHE_MAGIC, 8);
    hd.key = key;
    hd.size = size;
    hd.checksum = hash_bytes(HASH_INIT, binary, size);
    /* Written beside the entry and renamed over it (clx_output): processes
     * sharing the cache (a job array starting cold) each write whole files,
     * and a reader sees one or the other, never half. */
    clx_output *out;
    if (clx_output_open(path, 0, &out, NULL) != CLX_OK)
        return -1;
    int bad = clx_output_write(out, &hd, sizeof hd, NULL) != CLX_OK ||
              clx_output_write(out, binary, size, NULL) != CLX_OK;
    return clx_output_close(out, !bad, NULL) == CLX_OK && !bad ? 0 : -1;
}
