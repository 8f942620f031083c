/*
 * device_open.h - opening the OpenCL device, or devices, of a command, with
 * the library's log going to standard error (report.h).
 */
#ifndef CLX_DEVICE_OPEN_H
#define CLX_DEVICE_OPEN_H

#include <stddef.h>
#include "clxcorr.h"

/* Opens the device for a subcommand (spec as --device takes it). Reports
 * errors itself. */
int open_device(const char *spec, int need_fp64, int no_cache, clx_context **ctx);

/* The devices --device names: "all" (every usable GPU, or every usable
 * device when there is no GPU), a comma-separated list (a device may be
 * named twice: two contexts on it), or one device; NULL: the library's
 * default (one entry, NULL). */
struct device_specs {
    char **specs;
    size_t count;
};
int device_specs_parse(const char *spec, struct device_specs *d);
void device_specs_free(struct device_specs *d);
/* Opens every device of d; *ctxs holds d->count contexts. Reports errors itself. */
int open_devices(const struct device_specs *d, int need_fp64, int no_cache, clx_context ***ctxs);
void close_devices(clx_context **ctxs, size_t n);

#endif
