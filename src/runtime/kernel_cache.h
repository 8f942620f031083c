/*
 * kernel_cache.h - compiled program binaries on disk (internal).
 *
 * The key is a hash of everything that can change the binary: the program
 * text (includes expanded), the build options, the device name, the driver
 * and platform versions and clxcorr's version. Files live under
 * $XDG_CACHE_HOME/clxcorr/kernels/ as <key>.bin with a small header and a
 * checksum, so a truncated or corrupt file is detected and rebuilt.
 */
#ifndef CLX_KERNEL_CACHE_H
#define CLX_KERNEL_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The cache directory: `override` or $XDG_CACHE_HOME/clxcorr or ~/.cache/clxcorr. */
void kernel_cache_dir(const char *override, char *out, size_t len);

uint64_t kernel_cache_key(const char *source, const char *options, const char *device_name,
                          const char *driver_version, const char *platform_version);

/* Returns a malloc'd binary for the key, or NULL when there is none usable. */
unsigned char *kernel_cache_load(const char *dir, uint64_t key, size_t *size);

/* Creates a directory and its parents (mode 0755); 0, or -1. */
int kernel_cache_mkdir(const char *path);

/* Stores a binary (atomically: temporary file and rename). Returns 0 on
 * success; failure only means the next run compiles again. */
int kernel_cache_store(const char *dir, uint64_t key, const unsigned char *binary, size_t size);

#endif
