/* device_open.c - opening the OpenCL device for a subcommand. */
#include "config.h"

#include "cli.h"

int open_device(const char *spec, int need_fp64, int no_cache, clx_context **ctx)
{
    clx_context_options copt;
    clx_message msg;
    clx_context_options_init(&copt);
    copt.device = spec;
    copt.need_fp64 = need_fp64;
    copt.no_cache = no_cache;
    copt.log = report_library_log;
    copt.log_level = report_library_level();
    if (clx_context_open(&copt, ctx, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}
