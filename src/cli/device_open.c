/* device_open.c - opening the OpenCL device, or devices, of a subcommand. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_open.h"
#include "report.h"

int open_device(const char *spec, int need_fp64, int no_cache, clx_context **ctx)
{
    clx_context_options copt;
    clx_message msg;
    clx_context_options_init(&copt);
    copt.device = spec;
    copt.need_fp64 = need_fp64;
    copt.no_cache = no_cache;
    copt.log = report_library_log;
    copt.log_level = report_library_level(1);
    if (clx_context_open(&copt, ctx, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

static int specs_add(struct device_specs *d, const char *spec, size_t len)
{
    char **grown = realloc(d->specs, (d->count + 1) * sizeof *d->specs);
    if (!grown)
        return -1;
    d->specs = grown;
    if (!(d->specs[d->count] = strndup(spec, len)))
        return -1;
    d->count++;
    return 0;
}

/* "all": every usable GPU; every usable device when there is no GPU. */
static int specs_all(struct device_specs *d)
{
    clx_device_info *devices = NULL;
    size_t n = 0;
    clx_message msg;
    if (clx_devices_list(&devices, &n, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    int have_gpu = 0;
    for (size_t i = 0; i < n; i++)
        have_gpu |= devices[i].type == CLX_DEVICE_GPU && devices[i].available && devices[i].compiler_available;
    for (size_t i = 0; i < n; i++) {
        if (!devices[i].available || !devices[i].compiler_available || (have_gpu && devices[i].type != CLX_DEVICE_GPU))
            continue;
        char spec[32];
        int len = snprintf(spec, sizeof spec, "%d:%d", devices[i].platform_index, devices[i].device_index);
        if (specs_add(d, spec, (size_t)len) != 0) {
            free(devices);
            report_error("out of memory");
            return -1;
        }
    }
    free(devices);
    if (d->count == 0) {
        report_error("--device all: no usable OpenCL device (see clxcorr devices)");
        return -1;
    }
    return 0;
}

int device_specs_parse(const char *spec, struct device_specs *d)
{
    memset(d, 0, sizeof *d);
    if (!spec) {
        /* The library's default: $CLXCORR_DEVICE, else the first GPU. */
        d->count = 1;
        d->specs = calloc(1, sizeof *d->specs);
        return d->specs ? 0 : (report_error("out of memory"), -1);
    }
    if (strcmp(spec, "all") == 0)
        return specs_all(d);
    for (const char *p = spec;;) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            report_error("--device '%s': an empty name in the list", spec);
            device_specs_free(d);
            return -1;
        }
        if (specs_add(d, p, len) != 0) {
            report_error("out of memory");
            device_specs_free(d);
            return -1;
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    return 0;
}

void device_specs_free(struct device_specs *d)
{
    for (size_t i = 0; i < d->count; i++)
        free(d->specs[i]);
    free(d->specs);
    memset(d, 0, sizeof *d);
}

int open_devices(const struct device_specs *d, int need_fp64, int no_cache, clx_context ***ctxs)
{
    *ctxs = calloc(d->count, sizeof **ctxs);
    if (!*ctxs) {
        report_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < d->count; i++)
        if (open_device(d->specs[i], need_fp64, no_cache, &(*ctxs)[i]) != 0) {
            close_devices(*ctxs, d->count);
            *ctxs = NULL;
            return -1;
        }
    return 0;
}

void close_devices(clx_context **ctxs, size_t n)
{
    for (size_t i = 0; ctxs && i < n; i++)
        clx_context_release(ctxs[i]);
    free(ctxs);
}
