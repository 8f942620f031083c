/*
 * cmd_plot.c - `clxcorr plot`: pictures of a results file that `clxcorr
 * offsets` wrote. By default the displacement picture (quiver.h) of the
 * mean offset of each window over all images; --image N draws one image's;
 * --series draws dx and dy against the image index (series_plot.h).
 *
 * Why the mean by default: for the usual job (many images of one specimen
 * against one reference) it is the picture of the whole file, and it
 * smooths the noise of single images; one image is a --image away.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image_list.h"
#include "options.h"
#include "plot/quiver.h"
#include "plot/results_csv.h"
#include "plot/series_plot.h"
#include "report.h"

static const char plot_help[] =
    "Usage: clxcorr plot [OPTIONS] -o OUT.png RESULTS.csv REFERENCE\n"
    "       clxcorr plot --series [OPTIONS] -o OUT.png RESULTS.csv [REFERENCE]\n"
    "\n"
    "Draw a results file that `clxcorr offsets` wrote as a PNG picture.\n"
    "\n"
    "By default: REFERENCE in grey with one arrow per window, from the window's\n"
    "centre along its offset (dx, dy), the mean over every image of the file\n"
    "(rows with flags left out where a window has unflagged rows). Arrows are\n"
    "drawn a round factor longer than the offset, so that the longest reaches\n"
    "about 0.9 of the distance between windows; their colour is |d| =\n"
    "hypot(dx, dy) on the colour bar at the right. A scale arrow under the\n"
    "picture gives the factor. Flagged windows are grey and left out of the\n"
    "scales.\n"
    "\n"
    "With --series: dx (upper panel) and dy (lower panel) of every window, or of\n"
    "one, against the image's index in the file; REFERENCE is not drawn and may\n"
    "be left out.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    the PNG to write (required; written as FILE.part and\n"
    "                       renamed when complete)\n"
    "      --image N        the arrows of image N (0-based, in file order; -1 the\n"
    "                       last) instead of the mean over all images\n"
    "      --series         draw dx and dy against the image index instead\n"
    "      --region K       with --series: only window K (the results' region\n"
    "                       column; default: every window, one line each)\n"
    "      --width W        the picture's width in pixels: of the image part\n"
    "                       (default: the reference's, within 640..1600), or of\n"
    "                       the whole series picture (default 1000)\n"
    "  -v, --verbose        say what was drawn\n"
    "  -q, --quiet          errors only\n"
    "  -h, --help           this help\n"
    "\n"
    "RESULTS.csv: as `clxcorr offsets` writes it, CSV, TSV or JSON lines (told\n"
    "from the first line), with at least the columns image,region,x,y,dx,dy (and\n"
    "flags); other columns are skipped. Consecutive rows of one image name are\n"
    "one image.\n"
    "\n"
    "Examples:\n"
    "  clxcorr offsets --regions windows.txt -o offsets.csv ref.tif img_*.tif\n"
    "  clxcorr plot -o arrows.png offsets.csv ref.tif\n"
    "  clxcorr plot --image -1 -o last.png offsets.csv ref.tif\n"
    "  clxcorr plot --series --region 12 -o window12.png offsets.csv\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (bad results file, unreadable\n"
    "reference, a file that cannot be written), 2 wrong command line.\n";

struct plot_args {
    struct output_options out;     /* -o OUT.png */
    const char *results;
    const char *reference;
    int have_image;
    long image;            /* --image N: 0-based, negative from the end */
    int series;
    long region;           /* --region K with --series; -1: every window */
    int width;
};

enum { OPT_IMAGE = OPT_OWN, OPT_SERIES, OPT_REGION, OPT_WIDTH };

static const struct option plot_table[] = {
    OPTION_OUTPUT,
    { "image", required_argument, NULL, OPT_IMAGE },
    { "series", no_argument, NULL, OPT_SERIES },
    { "region", required_argument, NULL, OPT_REGION },
    { "width", required_argument, NULL, OPT_WIDTH },
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

static int parse_long(const char *text, const char *option, long min, long max, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < min || v > max) {
        report_error("%s: '%s' is not a whole number from %ld to %ld", option, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int plot_take(void *own, int c, const char *value)
{
    struct plot_args *a = own;
    long width;
    switch (c) {
    case OPT_IMAGE:
        a->have_image = 1;
        return option_taken(parse_long(value, "--image", -1000000000L, 1000000000L, &a->image));
    case OPT_SERIES:
        a->series = 1;
        return 1;
    case OPT_REGION: return option_taken(parse_long(value, "--region", 0, 999999, &a->region));
    case OPT_WIDTH:
        if (parse_long(value, "--width", 64, 8192, &width))
            return -1;
        a->width = (int)width;
        return 1;
    }
    return 0;
}

static const struct command_options plot_options = { "plot", plot_help, plot_table, plot_take };

/* Returns -1 after reporting a usage error, 1 after --help, 0 to run. */
static int parse_args(int argc, char **argv, struct plot_args *a)
{
    const struct option_values values = { .output = &a->out, .own = a };
    int parsed = options_parse(&plot_options, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    if (!a->out.path) {
        report_error("plot needs -o OUT.png (see clxcorr plot --help)");
        return -1;
    }
    if (a->series && a->have_image) {
        report_error("--image picks the image of the arrows; --series draws every image");
        return -1;
    }
    if (!a->series && a->region >= 0) {
        report_error("--region picks the window of --series; the arrows show every window");
        return -1;
    }
    if (a->series && a->width && a->width < 400) {
        report_error("--width %d: the series picture needs at least 400 pixels", a->width);
        return -1;
    }
    int left = argc - optind, want = a->series ? 1 : 2;
    if (left < want || left > 2) {
        report_error(left < 1        ? "no results file given (usage: clxcorr plot [OPTIONS] -o OUT.png RESULTS.csv REFERENCE)"
                     : left < want ? "no reference image given: the arrows are drawn on it (or use --series)"
                                   : "too many arguments: RESULTS.csv and REFERENCE only");
        return -1;
    }
    a->results = argv[optind];
    a->reference = left > 1 ? argv[optind + 1] : NULL;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int plot_arrows(const struct plot_args *a, const struct results_table *t)
{
    clx_image ref = { 0 };
    clx_message msg;
    char title[512];
    int status = EXIT_FAILURE_RUN;
    struct quiver_arrow *arrows = calloc(t->windows, sizeof *arrows);

    if (!arrows) {
        report_error("out of memory");
        return EXIT_FAILURE_RUN;
    }
    if (image_entry_load_single(a->reference, &ref, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    /* Centres outside the reference: the results are of another image. */
    for (size_t w = 0; w < t->windows; w++)
        if (!isnan(t->x[w]) && (t->x[w] < 0 || t->y[w] < 0 || t->x[w] > ref.width - 1 || t->y[w] > ref.height - 1)) {
            report_error("%s: window %zu is centred at (%g, %g), outside %s (%dx%d): results of another reference?",
                         a->results, w, t->x[w], t->y[w], a->reference, ref.width, ref.height);
            goto done;
        }
    if (a->have_image) {
        long n = (long)t->images, i = a->image < 0 ? n + a->image : a->image;
        if (i < 0 || i >= n) {
            report_error("--image %ld: %s has %ld image%s (0 to %ld, or -1 for the last)", a->image, a->results, n,
                         n == 1 ? "" : "s", n - 1);
            goto done;
        }
        for (size_t w = 0; w < t->windows; w++) {
            size_t cell = (size_t)i * t->windows + w;
            arrows[w] = (struct quiver_arrow){ t->x[w], t->y[w], t->dx[cell], t->dy[cell], t->flags[cell] };
        }
        snprintf(title, sizeof title, "image %ld of %zu: %s", i, t->images, base_name(t->image_names[i]));
    } else {
        struct quiver_mean mean;
        if (quiver_mean_init(&mean, t->windows) != CLX_OK) {
            report_error("out of memory");
            goto done;
        }
        for (size_t i = 0; i < t->images; i++)
            for (size_t w = 0; w < t->windows; w++) {
                size_t cell = i * t->windows + w;
                quiver_mean_add(&mean, w, t->dx[cell], t->dy[cell], t->flags[cell]);
            }
        for (size_t w = 0; w < t->windows; w++) {
            arrows[w].x = t->x[w];
            arrows[w].y = t->y[w];
        }
        quiver_mean_arrows(&mean, arrows);
        quiver_mean_free(&mean);
        snprintf(title, sizeof title, "mean offset over %zu image%s of %s", t->images, t->images == 1 ? "" : "s",
                 base_name(a->results));
    }
    /* Windows the file never names have no centre: nothing to draw. */
    for (size_t w = 0; w < t->windows; w++)
        if (isnan(t->x[w]))
            arrows[w].dx = arrows[w].dy = NAN;
    struct quiver_options opt = { a->width, title };
    if (quiver_write_png(a->out.path, &ref, arrows, t->windows, &opt, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    report_info("%s: %s, %zu windows", a->out.path, title, t->windows);
    status = EXIT_OK;

done:
    clx_image_free(&ref);
    free(arrows);
    return status;
}

static int plot_series(const struct plot_args *a, const struct results_table *t)
{
    clx_message msg;
    char title[512];
    if (a->region >= 0 && (size_t)a->region >= t->windows) {
        report_error("--region %ld: %s has windows 0 to %zu", a->region, a->results, t->windows - 1);
        return EXIT_FAILURE_RUN;
    }
    if (a->region >= 0)
        snprintf(title, sizeof title, "window %ld at (%g, %g) over %zu images of %s", a->region, t->x[a->region],
                 t->y[a->region], t->images, base_name(a->results));
    else
        snprintf(title, sizeof title, "%zu windows over %zu images of %s", t->windows, t->images,
                 base_name(a->results));
    struct series_options opt = { a->width, a->region, title };
    if (series_write_png(a->out.path, t, &opt, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return EXIT_FAILURE_RUN;
    }
    report_info("%s: %s", a->out.path, title);
    return EXIT_OK;
}

int cmd_plot(int argc, char **argv)
{
    struct plot_args a;
    struct results_table t;
    clx_message msg;

    memset(&a, 0, sizeof a);
    a.region = -1;
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0)
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    if (results_read(a.results, &t, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return EXIT_FAILURE_RUN;
    }
    int status = a.series ? plot_series(&a, &t) : plot_arrows(&a, &t);
    results_free(&t);
    return status;
}
