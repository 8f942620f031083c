/* kernel_source.h - finding and reading the OpenCL C sources (internal). */
#ifndef CLX_KERNEL_SOURCE_H
#define CLX_KERNEL_SOURCE_H

#include <stddef.h>
#include "clxcorr.h"

/*
 * Where the .cl files are: `override` if given, else $CLXCORR_KERNEL_DIR,
 * else the source tree when this library runs from its build tree, else
 * <prefix>/share/clxcorr beside the installed library, else the configured
 * $(pkgdatadir), else the source tree if it still exists.
 */
int kernel_dir_find(const char *override, char *out, size_t len, clx_message *msg);

/*
 * Reads dir/file with every `#include "name"` replaced by dir/name's text
 * (recursively), so that the program text, and with it the cache key,
 * covers the included files and no -I path reaches the OpenCL compiler.
 * *text is malloc'd.
 */
int kernel_source_read(const char *dir, const char *file, char **text, clx_message *msg);

#endif
