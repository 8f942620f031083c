/*
 * cmd_tune.c - `clxcorr tune`: find and store the best parameters for this
 * device and a workload class (clx_tune), or show what is stored.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_open.h"
#include "options.h"
#include "report.h"
#include "workloads.h"

#define DEFAULT_IMAGES 16
#define MAX_IMAGES 256

static const char tune_help[] =
    "Usage: clxcorr tune [OPTIONS]\n"
    "       clxcorr tune [OPTIONS] --grid NXxNY --window WxH REFERENCE IMAGE...\n"
    "       clxcorr tune --show\n"
    "\n"
    "Search the kernel parameters, the FFT library and the batch size for this\n"
    "device and a workload class (mode, window size, precision, pixel type), and\n"
    "store the fastest in the tuning file, where every later `clxcorr offsets`\n"
    "run of that class on this device and driver finds it without any option.\n"
    "\n"
    "Each candidate streams the images from memory through the same overlapped\n"
    "pipeline as `offsets`; its offsets are checked against a reference run (the\n"
    "defaults in double precision where the device has it) before it is timed,\n"
    "and a candidate that fails to build, to fit or to agree is rejected. The\n"
    "search starts from the defaults and changes one parameter at a time; at the\n"
    "end the best and the defaults are timed alternately and the best is kept\n"
    "only if it is faster.\n"
    "\n"
    "Workload (synthetic images unless images are given):\n"
    "      --workload NAME  ebsd-900 (default: 900x900 16-bit, 50 windows of\n"
    "                       100x100), mid-512 (36 windows of 64x64) or piv-32\n"
    "                       (1024x1024, 63x63 windows of 32x32)\n"
    "  -n, --images N       synthetic images (default 16)\n"
    "  -r, --regions FILE   with REFERENCE IMAGE...: the windows file, or\n"
    "  -g, --grid NXxNY, -w, --window WxH, -m, --margin M   a grid, as for offsets\n"
    "      --grid-step S    a window every S pixels instead of --grid (as offsets)\n"
    "      --mode M         accurate (default) or seed, as for offsets\n"
    "      --double         tune the double-precision class\n"
    "\n"
    "Search:\n"
    "      --seconds S      time each candidate over S seconds of images at the\n"
    "                       defaults' rate (default 1)\n"
    "      --tolerance T    largest offset difference from the reference, px\n"
    "                       (default 0.01)\n"
    "      --quick          only the FFT library, the batch and work-group sizes\n"
    "      --dry-run        search and report, but store nothing\n"
    "\n"
    "      --show           print the tuning file's entries and exit\n"
    "  -d, --device SPEC    as for offsets (default: $CLXCORR_DEVICE, else the first GPU)\n"
    "  -v, --verbose        library detail too\n"
    "  -q, --quiet          no progress lines\n"
    "  -h, --help           this help\n"
    "\n"
    "The tuning file is $XDG_CACHE_HOME/clxcorr/tuning.tsv (~/.cache/clxcorr);\n"
    "offsets --param KEY=VALUE overrides a stored value, --explain says which\n"
    "tuning a run used.\n";

struct tune_args {
    const char *workload;
    int nimages;
    struct window_options win;
    struct mode_options mode;      /* --mode, --double: the class to tune */
    struct device_options device;
    clx_tune_options tune;
    int show;
    char **files;
    int nfiles;
};

enum { OPT_WORKLOAD = OPT_OWN, OPT_SECONDS, OPT_TOLERANCE, OPT_QUICK, OPT_DRY_RUN, OPT_SHOW };

static const struct option tune_table[] = {
    { "workload", required_argument, NULL, OPT_WORKLOAD },
    { "images", required_argument, NULL, 'n' },
    OPTIONS_WINDOWS,
    OPTION_MODE,
    OPTION_DOUBLE,
    { "seconds", required_argument, NULL, OPT_SECONDS },
    { "tolerance", required_argument, NULL, OPT_TOLERANCE },
    { "quick", no_argument, NULL, OPT_QUICK },
    { "dry-run", no_argument, NULL, OPT_DRY_RUN },
    { "show", no_argument, NULL, OPT_SHOW },
    OPTION_DEVICE,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

static int tune_take(void *own, int c, const char *value)
{
    struct tune_args *a = own;
    switch (c) {
    case OPT_WORKLOAD:
        if (!workload_named(value)) {
            report_error("--workload: unknown workload '%s' (ebsd-900, mid-512 or piv-32)", value);
            return -1;
        }
        a->workload = value;
        return 1;
    case 'n': return option_taken(parse_int(value, "--images", 1, MAX_IMAGES, &a->nimages));
    case OPT_SECONDS: return option_taken(parse_double(value, "--seconds", 0.01, 600, &a->tune.seconds));
    case OPT_TOLERANCE: return option_taken(parse_double(value, "--tolerance", 1e-6, 1, &a->tune.tolerance));
    case OPT_QUICK: a->tune.quick = 1; return 1;
    case OPT_DRY_RUN: a->tune.dry_run = 1; return 1;
    case OPT_SHOW: a->show = 1; return 1;
    }
    return 0;
}

static const struct command_options tune_options = { "tune", tune_help, tune_table, tune_take };

/* Returns -1 after reporting a usage error, 1 after --help, 0 to run. */
static int parse_args(int argc, char **argv, struct tune_args *a)
{
    const struct option_values values = { .windows = &a->win, .mode = &a->mode, .device = &a->device, .own = a };
    int parsed = options_parse(&tune_options, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    a->files = argv + optind;
    a->nfiles = argc - optind;
    if (a->show)
        return 0;
    if (a->nfiles == 1) {
        report_error("a reference needs images to tune with (usage: clxcorr tune [OPTIONS] REFERENCE IMAGE...)");
        return -1;
    }
    if (a->nfiles > 0 && a->workload) {
        report_error("--workload makes synthetic images: give it or images, not both");
        return -1;
    }
    if (a->nfiles > MAX_IMAGES + 1) {
        report_error("%d images: tune uses at most %d (it cycles through them)", a->nfiles - 1, MAX_IMAGES);
        return -1;
    }
    return window_options_check(&a->win, a->nfiles > 0 ? WINDOWS_REQUIRED : 0);
}

/* "automatic" or the number. */
static const char *batch_text(int batch, char *buf, size_t len)
{
    if (batch <= 0)
        return "automatic";
    snprintf(buf, len, "%d", batch);
    return buf;
}

/* One entry, as tune reports a result and tune --show lists the file. */
static void print_tuning(const clx_tuning *e)
{
    char b[16];
    printf("%s on %s (driver %s):\n  %s, batch %s\n  %.1f images/s against %.1f with the defaults (%+.1f%%), "
           "tuned %s\n",
           e->workload, e->device, e->driver, e->params[0] ? e->params : "the defaults",
           batch_text(e->batch, b, sizeof b), e->rate, e->default_rate,
           e->default_rate > 0 ? 100.0 * (e->rate / e->default_rate - 1) : 0.0, e->date);
}

static int show(void)
{
    clx_tuning *entries;
    size_t n;
    clx_message msg;
    if (clx_tuning_list(NULL, &entries, &n, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return EXIT_FAILURE_RUN;
    }
    if (n == 0)
        printf("nothing tuned yet: every device runs its shipped defaults (clxcorr tune stores an entry)\n");
    for (size_t i = 0; i < n; i++)
        print_tuning(&entries[i]);
    free(entries);
    return EXIT_OK;
}

static void progress_line(void *user, const char *line)
{
    if (report_verbosity() >= 1)
        fprintf(stderr, "clxcorr: %s\n", line);
}

/* The reference, the images and the windows: from files, or a synthetic workload. */
static int load_workload(const struct tune_args *a, clx_image *ref, clx_image *images, size_t *nimages,
                         clx_region **regions, size_t *nregions)
{
    clx_message msg;
    if (a->nfiles == 0) {
        const struct workload *w = workload_named(a->workload ? a->workload : "ebsd-900");
        *nimages = (size_t)(a->nimages > 0 ? a->nimages : DEFAULT_IMAGES);
        report_note("workload %s: %s, %zu synthetic images", w->name, w->description, *nimages);
        if (workload_regions(w, regions, nregions, &msg) != CLX_OK ||
            workload_images(w, *nimages, 1, ref, images, &msg) != CLX_OK) {
            report_error("%s", msg.text);
            return -1;
        }
        return 0;
    }
    if (clx_image_load(a->files[0], 0, ref, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    *nimages = 0;
    for (int i = 1; i < a->nfiles; i++) {
        if (clx_image_load(a->files[i], 0, &images[*nimages], &msg) != CLX_OK) {
            report_error("%s", msg.text);
            return -1;
        }
        ++*nimages;
    }
    if (window_options_regions(&a->win, ref->width, ref->height, regions, nregions, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    struct tune_args a;
    clx_image ref = { 0 };
    clx_image *images = calloc(MAX_IMAGES, sizeof *images);
    size_t nimages = 0, nregions = 0;
    clx_region *regions = NULL;
    clx_context *ctx = NULL;
    int status = EXIT_FAILURE_RUN;

    memset(&a, 0, sizeof a);
    mode_options_init(&a.mode);
    clx_tune_options_init(&a.tune);
    if (!images) {
        report_error("out of memory");
        return EXIT_FAILURE_RUN;
    }
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        free(images);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (a.show) {
        free(images);
        return show();
    }
    a.tune.progress = progress_line;
    if (load_workload(&a, &ref, images, &nimages, &regions, &nregions) != 0 ||
        open_device(a.device.spec, a.mode.plan.use_double, 0, &ctx) != 0)
        goto done;

    const clx_device_info *dev = clx_context_device(ctx);
    report_note("tuning %s mode on %s (%s, driver %s)", clx_mode_name(a.mode.plan.mode), dev->name, dev->platform_name,
                dev->driver_version);
    clx_tuning result;
    if (clx_tune(ctx, &ref, regions, nregions, &a.mode.plan, images, nimages, &a.tune, &result) != CLX_OK) {
        report_error("%s", clx_context_message(ctx));
        goto done;
    }
    print_tuning(&result);
    printf("  %s\n", a.tune.dry_run ? "not stored (--dry-run)" : "stored in the tuning file (clxcorr tune --show)");
    status = EXIT_OK;

done:
    clx_context_release(ctx);
    for (size_t i = 0; i < MAX_IMAGES; i++)
        clx_image_free(&images[i]);
    free(images);
    clx_image_free(&ref);
    free(regions);
    return status;
}
