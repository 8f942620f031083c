/*
 * cmd_filter.c - `clxcorr filter`: the pre-filters on their own. Every input
 * image (every page of a multi-page TIFF) goes through one filter chain on
 * the device and out as a TIFF page (filter_output.h says where).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_open.h"
#include "image_list.h"
#include "options.h"
#include "output/filter_output.h"
#include "report.h"

struct filter_args {
    clx_filter_options filter;
    int have_roi, have_target;
    struct image_options img;
    struct device_options device;
    struct output_options output;  /* -o FILE, copied into out */
    struct filter_output out;
};

static const char filter_help[] =
    "Usage: clxcorr filter --filter SPEC [OPTIONS] (-o OUT.tif | --output-dir DIR) IMAGE...\n"
    "\n"
    "Filter images on the OpenCL device with a chain of separable filters and\n"
    "write them as 32-bit float TIFF pages (or 16-bit with --out-type u16).\n"
    "\n"
    "Filters (--filter SPEC: up to 4 stages joined by '+', applied in order, each\n"
    "to the previous one's output):\n"
    "  gaussian:S            Gaussian smoothing, sigma S pixels (radius ceil(3 S);\n"
    "                        S at most 21.33)\n"
    "  highpass:S            the image minus its Gaussian blur of sigma S\n"
    "  background:S          background removal: the same, for a wide S\n"
    "  background-divide:S   the image divided by its Gaussian blur of sigma S\n"
    "                        (0 where the blur is <= 1e-6)\n"
    "  taps:a,b,c,...        any separable kernel: 2r+1 taps (3 to 129) along x,\n"
    "                        then along y, not normalised; the first weights the\n"
    "                        pixel r left of (above) the output\n"
    "  Radii 1 and 2 (3x3, 5x5) run on a tiled fast path, larger ones on a\n"
    "  separable path.\n"
    "\n"
    "Options:\n"
    "  -f, --filter SPEC     the filter chain (required)\n"
    "      --border RULE     how pixels outside the image (or the --roi) are read:\n"
    "                        mirror (default: reflected about the edge pixel,\n"
    "                        cb|abc), clamp (the edge pixel, aa|abc) or zero\n"
    "      --roi X,Y,W,H     filter only this region, as if it were the whole image\n"
    "                        (borders apply at its edges); the rest of the output\n"
    "                        is the input, unfiltered\n"
    "      --target X,Y      where the filtered region goes in the output (default:\n"
    "                        where --roi took it from)\n"
    "      --out-type T      f32 (default) or u16: values rounded to the nearest\n"
    "                        integer and clamped to 0..65535 (a warning counts the\n"
    "                        clamped pixels)\n"
    "      --double          filter in double precision (needs a device with fp64)\n"
    "  -o, --output FILE     one TIFF with a page per input image, in input order\n"
    "                        (written as FILE.part until complete)\n"
    "      --output-dir DIR  one TIFF per input file: DIR/NAME.tif, NAME the input's\n"
    "                        file name without its extension, a page per input page;\n"
    "                        DIR is created if missing; inputs are never overwritten\n"
    "  -l, --list FILE       more images from FILE, one per line ('-': standard input)\n"
    "      --scan NAME       the scan to read in pattern files of several scans\n"
    "  -d, --device SPEC     the OpenCL device (see clxcorr offsets --help)\n"
    "      --no-cache        do not use cached compiled kernels\n"
    "  -v, --verbose / -q, --quiet / -h, --help\n"
    "\n"
    "Images: TIFF (8/16-bit, 32-bit float; every page of a multi-page file), PNG,\n"
    "JPEG, BMP, PGM; colour is converted to luminance. PATH#N picks page N.\n"
    "\n"
    "Examples:\n"
    "  clxcorr filter --filter background:20 -o flat.tif pattern.tif\n"
    "  clxcorr filter --filter background-divide:15+gaussian:1 --output-dir out scans/*.tif\n"
    "  clxcorr filter --filter taps:1,2,1 --roi 100,100,256,256 --out-type u16 -o roi.tif img.tif\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (an -o FILE then stays FILE.part),\n"
    "2 wrong command line.\n";

enum { OPT_BORDER = OPT_OWN, OPT_ROI, OPT_TARGET, OPT_OUT_TYPE, OPT_OUTPUT_DIR };

static const struct option filter_table[] = {
    { "filter", required_argument, NULL, 'f' },
    { "border", required_argument, NULL, OPT_BORDER },
    { "roi", required_argument, NULL, OPT_ROI },
    { "target", required_argument, NULL, OPT_TARGET },
    { "out-type", required_argument, NULL, OPT_OUT_TYPE },
    OPTION_DOUBLE,
    OPTION_OUTPUT,
    { "output-dir", required_argument, NULL, OPT_OUTPUT_DIR },
    OPTION_LIST,
    OPTION_SCAN,
    OPTION_DEVICE,
    OPTION_NO_CACHE,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

static int parse_border(const char *s, clx_border *border)
{
    static const char *const names[] = { "clamp", "mirror", "zero" };
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *border = (clx_border)i;
            return 0;
        }
    report_error("--border: unknown rule '%s' (mirror, clamp or zero)", s);
    return -1;
}

static int parse_out_type(const char *s, int *u16)
{
    if (strcmp(s, "f32") != 0 && strcmp(s, "u16") != 0) {
        report_error("--out-type: unknown type '%s' (f32 or u16)", s);
        return -1;
    }
    *u16 = strcmp(s, "u16") == 0;
    return 0;
}

static int parse_roi(const char *s, clx_region *roi)
{
    int v[4];
    if (parse_ints(s, "--roi", "X,Y,W,H (e.g. 10,20,256,256)", 4, v))
        return -1;
    if (v[2] < 1 || v[3] < 1) {
        report_error("--roi: the width and height must be at least 1, got %dx%d", v[2], v[3]);
        return -1;
    }
    *roi = (clx_region){ v[0], v[1], v[2], v[3] };
    return 0;
}

static int parse_target(const char *s, clx_region *target)
{
    int v[2];
    if (parse_ints(s, "--target", "X,Y (e.g. 0,0)", 2, v))
        return -1;
    target->x = v[0];
    target->y = v[1];
    return 0;
}

/* What getopt cannot check: required and conflicting options. */
static int check_args(struct filter_args *a)
{
    clx_message msg;
    if (!a->filter.spec) {
        report_error("filter needs --filter SPEC (e.g. --filter gaussian:2; see clxcorr filter --help)");
        return -1;
    }
    if (clx_filter_spec_check(a->filter.spec, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    if (!a->out.file == !a->out.dir) {
        report_error(a->out.file ? "give either -o or --output-dir, not both"
                                 : "filter needs -o OUT.tif or --output-dir DIR");
        return -1;
    }
    if (a->have_target && !a->have_roi) {
        report_error("--target needs --roi X,Y,W,H (the region to filter)");
        return -1;
    }
    /* The target has the ROI's size; by default it is the ROI itself. */
    if (a->have_roi) {
        if (!a->have_target)
            a->filter.target_roi = a->filter.source_roi;
        a->filter.target_roi.w = a->filter.source_roi.w;
        a->filter.target_roi.h = a->filter.source_roi.h;
    }
    return 0;
}

/* filter's own options, and --double: the filter's precision (filter has no plan to take it). */
static int filter_take(void *own, int c, const char *value)
{
    struct filter_args *a = own;
    switch (c) {
    case 'f':
        a->filter.spec = value;
        return 1;
    case OPT_BORDER: return option_taken(parse_border(value, &a->filter.border));
    case OPT_ROI:
        a->have_roi = 1;
        return option_taken(parse_roi(value, &a->filter.source_roi));
    case OPT_TARGET:
        a->have_target = 1;
        return option_taken(parse_target(value, &a->filter.target_roi));
    case OPT_OUT_TYPE: return option_taken(parse_out_type(value, &a->out.u16));
    case OPT_DOUBLE:
        a->filter.use_double = 1;
        return 1;
    case OPT_OUTPUT_DIR:
        a->out.dir = value;
        return 1;
    }
    return 0;
}

static const struct command_options filter_options = { "filter", filter_help, filter_table, filter_take };

/* Returns -1 after reporting a usage error, 1 after --help, 0 to run. */
static int parse_args(int argc, char **argv, struct filter_args *a)
{
    const struct option_values values = { .images = &a->img, .device = &a->device, .output = &a->output, .own = a };
    int parsed = options_parse(&filter_options, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    a->out.file = a->output.path;
    if (check_args(a))
        return -1;
    return image_options_add_args(&a->img, argc, argv, optind, " (see clxcorr filter --help)");
}

static const char *const border_names[] = { "clamp", "mirror", "zero" };

/* Filters every image of the list into the output. Returns 0 or -1. */
static int filter_all(clx_context *ctx, clx_filter *filter, struct filter_args *a)
{
    struct image_cursor cur;
    clx_message msg;
    char *name = NULL;
    clx_image img = { 0 }, out = { 0 };
    int r = 0, failed = 0;

    image_cursor_init(&cur, &a->img.images);
    while (!failed && (r = image_cursor_next(&cur, &name, &img, &msg)) > 0) {
        if (clx_filter_apply(filter, &img, &out) != CLX_OK) {
            report_error("%s: %s", name, clx_context_message(ctx));
            failed = 1;
        } else {
            char description[1024];
            snprintf(description, sizeof description, "clxcorr filter %s (border %s) of %s", a->filter.spec,
                     border_names[a->filter.border], name);
            failed = filter_output_page(&a->out, cur.entry, name, &out, description) != 0;
        }
        clx_image_free(&img);
        clx_image_free(&out);
        free(name);
        name = NULL;
    }
    if (!failed && r < 0) {
        report_error("%s", msg.text);
        failed = 1;
    }
    image_cursor_close(&cur);
    return failed ? -1 : 0;
}

int cmd_filter(int argc, char **argv)
{
    struct filter_args a;
    clx_context *ctx = NULL;
    clx_filter *filter = NULL;
    int status = EXIT_FAILURE_RUN;

    memset(&a, 0, sizeof a);
    clx_filter_options_init(&a.filter);
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        image_options_free(&a.img);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (image_options_read_list(&a.img) != 0)
        goto done;
    if (a.img.images.count == 0) {
        report_error("no images in %s", a.img.list_path);
        goto done;
    }
    if (filter_output_check(&a.out, &a.img.images) != 0) {
        status = EXIT_USAGE;
        goto done;
    }
    if (open_device(a.device.spec, a.filter.use_double, a.device.no_cache, &ctx) != 0)
        goto done;
    if (clx_filter_create(ctx, &a.filter, &filter) != CLX_OK) {
        report_error("%s", clx_context_message(ctx));
        goto done;
    }
    int failed = filter_all(ctx, filter, &a);
    if (filter_output_finish(&a.out, !failed) == 0 && !failed)
        status = EXIT_OK;

done:
    clx_filter_release(filter);
    clx_context_release(ctx);
    image_options_free(&a.img);
    return status;
}
