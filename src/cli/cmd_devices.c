/* cmd_devices.c - `clxcorr devices`: every OpenCL platform and device. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "options.h"
#include "report.h"

static const char devices_help[] =
    "Usage: clxcorr devices\n"
    "\n"
    "List every OpenCL platform and device, with the index P:D that --device\n"
    "takes, and what clxcorr needs to know about each: type, OpenCL C version,\n"
    "compute units, global and local memory, double precision (fp64) and\n"
    "driver version.\n";

static void format_bytes(unsigned long long bytes, char *out, size_t len)
{
    if (bytes >= (1ull << 30))
        snprintf(out, len, "%.1f GiB", bytes / (double)(1ull << 30));
    else if (bytes >= (1ull << 20))
        snprintf(out, len, "%.1f MiB", bytes / (double)(1ull << 20));
    else
        snprintf(out, len, "%.0f KiB", bytes / 1024.0);
}

int cmd_devices(int argc, char **argv)
{
    static const struct option table[] = { OPTION_HELP, OPTIONS_END };
    static const struct command_options options = { "devices", devices_help, table, NULL };
    const struct option_values none = { 0 };
    int parsed = options_parse(&options, &none, argc, argv);
    if (parsed != 0)
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    if (optind < argc) {
        report_error("devices takes no arguments (got '%s')", argv[optind]);
        return EXIT_USAGE;
    }

    clx_device_info *devs;
    size_t n;
    clx_message msg;
    if (clx_devices_list(&devs, &n, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return EXIT_FAILURE_RUN;
    }
    for (size_t i = 0; i < n; i++) {
        const clx_device_info *d = &devs[i];
        char global[32], local[32];
        format_bytes(d->global_memory, global, sizeof global);
        format_bytes(d->local_memory, local, sizeof local);
        printf("%d:%d  %s\n", d->platform_index, d->device_index, d->name);
        printf("     platform:      %s\n", d->platform_name);
        printf("     vendor:        %s\n", d->vendor);
        printf("     type:          %s%s\n", clx_device_type_name(d->type), d->available ? "" : " (not available)");
        printf("     OpenCL C:      %s\n", d->opencl_c_version);
        printf("     compute units: %u\n", d->compute_units);
        printf("     memory:        %s global, %s local\n", global, local);
        printf("     fp64:          %s\n", d->has_fp64 ? "yes" : "no");
        printf("     driver:        %s\n", d->driver_version);
    }
    free(devs);
    return EXIT_OK;
}
