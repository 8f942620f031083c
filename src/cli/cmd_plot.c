/*
 * cmd_plot.c - `clxcorr plot`: pictures of a results file that `clxcorr
 * offsets` or `clxcorr strain` wrote. By default the displacement picture
 * (quiver.h) of the mean offset of each window over all images; --image N
 * draws one image's; --series draws dx and dy against the image index
 * (series_plot.h); --map draws one column of a scan's results over the
 * scan grid (map_plot.h); --tensor draws strain's nine components
 * (tensor_plot.h).
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
#include "output/field_output.h"
#include "output/output_guard.h"
#include "plot/map_plot.h"
#include "plot/quiver.h"
#include "plot/results_csv.h"
#include "plot/scan_grid.h"
#include "plot/series_plot.h"
#include "plot/tensor_plot.h"
#include "report.h"

static const char plot_help[] =
    "Usage: clxcorr plot [OPTIONS] -o OUT.png RESULTS.csv REFERENCE\n"
    "       clxcorr plot --series [OPTIONS] -o OUT.png RESULTS.csv [REFERENCE]\n"
    "       clxcorr plot --map COLUMN [OPTIONS] -o OUT.png RESULTS\n"
    "       clxcorr plot --tensor [OPTIONS] -o OUT.png RESULTS\n"
    "       clxcorr plot --each [--colour COLUMN] -o OUT.png RESULTS.csv IMAGE...\n"
    "\n"
    "Draw a results file that `clxcorr offsets` or `clxcorr strain` wrote as a\n"
    "PNG picture (anti-aliased lines and text, drawn with cairo).\n"
    "\n"
    "By default: REFERENCE in grey with one arrow per window, from the window's\n"
    "centre along its offset (dx, dy), the mean over every image of the file\n"
    "(rows with flags left out where a window has unflagged rows). As\n"
    "matplotlib's quiver and PIVlab scale theirs, the longest arrow is as long\n"
    "as the distance between neighbouring arrows, whatever the offsets' size;\n"
    "a scale arrow under the colour bar gives a round offset's length in px,\n"
    "and the caption the factor. Where the windows are less than 18 pixels\n"
    "apart in the picture, only every K-th window's arrow along each axis is\n"
    "drawn (K the least that makes them that far apart; --arrow-step sets it).\n"
    "The arrows' colour is |d| = hypot(dx, dy) on the colour bar at the right.\n"
    "Flagged windows are grey and left out of the scales.\n"
    "\n"
    "With --colour COLUMN: under the arrows, each window's cell (a square as\n"
    "wide as the windows' spacing around its centre: the tiles of a --grid-step\n"
    "grid) in the colour of COLUMN (any numeric column of the file, e.g. zncc,\n"
    "exx, or speed = hypot(dx, dy)), laid over the image at 65 %; the arrows\n"
    "are then white (flagged grey) and the colour bar is COLUMN's, between\n"
    "its 1st and 99th percentiles, diverging about 0 for signed quantities (dx,\n"
    "dy, their gradients and strains). A window whose value is nan has no\n"
    "cell; inf (peak_ratio where the second peak is 0) takes the bar's top\n"
    "colour, -inf its bottom one (as in --map).\n"
    "\n"
    "With --each: one picture per image of the file, of that image's arrows\n"
    "(and colours): OUT_0001.png, OUT_0002.png, ... (OUT.png when the file has\n"
    "one image), drawn over the one IMAGE given (frame A of a PIV pair, the\n"
    "reference of a DIC series), or over one IMAGE per image of the file, in\n"
    "order (each pair's frame A).\n"
    "\n"
    "With --series: dx (upper panel) and dy (lower panel) of every window, or of\n"
    "one, against the image's index in the file; REFERENCE is not drawn and may\n"
    "be left out.\n"
    "\n"
    "With --map COLUMN: the results of a scan (pattern files whose rows carry\n"
    "scan_row and scan_col) as a map, one cell per scan point in the colour of\n"
    "COLUMN's mean over the point's windows (or with --region K, of window K).\n"
    "Rows with a nan value or with flags other than 8 (outlier) are left out of\n"
    "the mean (an inf makes it inf: the top colour); a point left without a\n"
    "value is drawn grey. The colour bar runs\n"
    "between the points' 1st and 99th percentiles (points beyond take the end\n"
    "colours, and a triangle on that end says so); signed quantities (dx, dy,\n"
    "strains, rotations, or values of both signs) get a diverging scale with\n"
    "white at 0 and symmetric limits. Its ticks are round numbers, with the\n"
    "scale factor in its label where they are small or large (e11 (x10^-3)\n"
    "over 1.0, 0.5, ...). Angles (w1, w2, w3, phi1, Phi, phi2) are drawn in\n"
    "degrees unless --radians. Where the file has a grain column (strain\n"
    "--grains), black lines part neighbouring points of different grains.\n"
    "Axes in micrometres when the file has scan_x and scan_y, else in scan\n"
    "columns and rows.\n"
    "\n"
    "With --tensor: the results of `clxcorr strain` as one figure of 3 x 3\n"
    "panels, e11 e22 e33 / e12 e13 e23 / w1 w2 w3, each row on one diverging\n"
    "scale centred on 0 with its colour bar, scale factor and unit, rotations\n"
    "in degrees unless --radians, grain boundaries as with --map.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    the PNG to write (required; written as FILE.part and\n"
    "                       renamed when complete)\n"
    "      --image N        the arrows of image N (0-based, in file order; -1 the\n"
    "                       last) instead of the mean over all images\n"
    "      --each           a picture of each image's arrows, OUT_0001.png ...\n"
    "      --colour COLUMN  colour the windows' cells under the arrows by COLUMN\n"
    "                       (speed, dx, dy, zncc, exx, ...)\n"
    "      --arrow-step K   draw the arrows of every K-th window along each axis\n"
    "                       of the windows' grid (1: every window; default: the\n"
    "                       least K that puts them 18 pixels apart)\n"
    "      --series         draw dx and dy against the image index instead\n"
    "      --map COLUMN     draw COLUMN (dx, dy, zncc, peak_ratio, e11, ...) over\n"
    "                       the scan grid instead\n"
    "      --tensor         draw strain's six components and three rotations\n"
    "                       over the scan grid instead, in 3 x 3 panels\n"
    "      --region K       with --series: only window K (the results' region\n"
    "                       column; default: every window, one line each); with\n"
    "                       --map: window K's value instead of the mean\n"
    "      --scale S        with --map: diverging (white at the middle of the\n"
    "                       limits) or sequential (default: diverging for signed\n"
    "                       quantities)\n"
    "      --range LO,HI    with --map: the colour bar's limits, in the unit\n"
    "                       drawn (default: the points' 1st and 99th\n"
    "                       percentiles, made symmetric about 0 for a diverging\n"
    "                       scale)\n"
    "      --radians        with --map or --tensor: angles in radians, as the\n"
    "                       results hold them (default: degrees)\n"
    "      --width W        the picture's width in pixels: of the image part\n"
    "                       (default: the reference's, within 640..1600), of\n"
    "                       the whole series picture (default 1000), of the\n"
    "                       map (default: cells of whole pixels, at least 4,\n"
    "                       making the map about 640 across), or of each\n"
    "                       --tensor panel's map (default: about 260 across)\n"
    "  -v, --verbose        say what was drawn\n"
    "  -q, --quiet          errors only\n"
    "  -h, --help           this help\n"
    "\n"
    "RESULTS.csv: as `clxcorr offsets` writes it, CSV, TSV or JSON lines (told\n"
    "from the first line), with at least the columns image,region,x,y,dx,dy (and\n"
    "flags); other columns are skipped. Consecutive rows of one image name are\n"
    "one image. For --map and --tensor, RESULTS is CSV, TSV, JSON lines or the\n"
    "HDF5 file of --format h5 (told from its first bytes; HDF5 where this\n"
    "clxcorr was built with it), with the columns scan_row, scan_col and\n"
    "COLUMN, or e11 ... w3 (region, flags, grain, scan_x and scan_y are used\n"
    "when present), rows in any order.\n"
    "\n"
    "Examples:\n"
    "  clxcorr offsets --regions windows.txt -o offsets.csv ref.tif img_*.tif\n"
    "  clxcorr plot -o arrows.png offsets.csv ref.tif\n"
    "  clxcorr plot --image -1 -o last.png offsets.csv ref.tif\n"
    "  clxcorr plot --each --colour speed -o field.png piv.csv frameA.tif\n"
    "  clxcorr plot --each --colour exx -o strain.png dic.csv reference.tif\n"
    "  clxcorr plot --series --region 12 -o window12.png offsets.csv\n"
    "  clxcorr plot --map dx -o dx-map.png scan-offsets.csv\n"
    "  clxcorr plot --map zncc --range 0.8,1 -o zncc-map.png scan-offsets.csv\n"
    "  clxcorr plot --map w3 -o w3.png strain.h5\n"
    "  clxcorr plot --tensor -o tensor.png strain.csv\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (bad results file, unreadable\n"
    "reference, a file that cannot be written), 2 wrong command line.\n";

struct plot_args {
    struct output_options out;     /* -o OUT.png */
    const char *results;
    const char *const *references;  /* the images to draw on: one, or with --each one per image */
    int nreferences;
    int each;              /* --each: a picture per image */
    const char *colour;    /* --colour COLUMN */
    int have_image;
    long image;            /* --image N: 0-based, negative from the end */
    int series;
    const char *map;       /* --map COLUMN */
    long region;           /* --region K with --series or --map; -1: every window */
    enum map_scale_kind scale;
    int have_range;
    double range_lo, range_hi;
    int width;
    int tensor;            /* --tensor: strain's nine components */
    int radians;           /* --radians: angles as written, not in degrees */
    int arrow_step;        /* --arrow-step K; 0: from the windows' spacing */
};

enum {
    OPT_IMAGE = OPT_OWN,
    OPT_SERIES,
    OPT_REGION,
    OPT_WIDTH,
    OPT_MAP,
    OPT_SCALE,
    OPT_RANGE,
    OPT_EACH,
    OPT_COLOUR,
    OPT_TENSOR,
    OPT_RADIANS,
    OPT_ARROW_STEP
};

static const struct option plot_table[] = {
    OPTION_OUTPUT,
    { "image", required_argument, NULL, OPT_IMAGE },
    { "each", no_argument, NULL, OPT_EACH },
    { "colour", required_argument, NULL, OPT_COLOUR },
    { "series", no_argument, NULL, OPT_SERIES },
    { "map", required_argument, NULL, OPT_MAP },
    { "region", required_argument, NULL, OPT_REGION },
    { "scale", required_argument, NULL, OPT_SCALE },
    { "range", required_argument, NULL, OPT_RANGE },
    { "width", required_argument, NULL, OPT_WIDTH },
    { "tensor", no_argument, NULL, OPT_TENSOR },
    { "radians", no_argument, NULL, OPT_RADIANS },
    { "arrow-step", required_argument, NULL, OPT_ARROW_STEP },
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

/* --range LO,HI: two finite numbers, LO < HI. */
static int parse_range(const char *text, double *lo, double *hi)
{
    char *end;
    *lo = strtod(text, &end);
    if (end != text && *end == ',') {
        const char *second = end + 1;
        *hi = strtod(second, &end);
        if (end != second && *end == '\0' && isfinite(*lo) && isfinite(*hi) && *lo < *hi)
            return 0;
    }
    report_error("--range: '%s' is not LO,HI (two numbers, LO below HI)", text);
    return -1;
}

static int parse_scale(const char *text, enum map_scale_kind *out)
{
    if (strcmp(text, "diverging") == 0 || strcmp(text, "sequential") == 0) {
        *out = text[0] == 'd' ? MAP_SCALE_DIVERGING : MAP_SCALE_SEQUENTIAL;
        return 0;
    }
    report_error("--scale: unknown scale '%s' (diverging or sequential)", text);
    return -1;
}

static int plot_take(void *own, int c, const char *value)
{
    struct plot_args *a = own;
    long number;
    switch (c) {
    case OPT_IMAGE:
        a->have_image = 1;
        return option_taken(parse_long(value, "--image", -1000000000L, 1000000000L, &a->image));
    case OPT_SERIES:
        a->series = 1;
        return 1;
    case OPT_EACH:
        a->each = 1;
        return 1;
    case OPT_COLOUR:
        a->colour = value;
        return 1;
    case OPT_REGION: return option_taken(parse_long(value, "--region", 0, 999999, &a->region));
    case OPT_MAP:
        a->map = value;
        return 1;
    case OPT_SCALE: return option_taken(parse_scale(value, &a->scale));
    case OPT_RANGE:
        a->have_range = 1;
        return option_taken(parse_range(value, &a->range_lo, &a->range_hi));
    case OPT_WIDTH:
        if (parse_long(value, "--width", 64, 8192, &number))
            return -1;
        a->width = (int)number;
        return 1;
    case OPT_TENSOR:
        a->tensor = 1;
        return 1;
    case OPT_RADIANS:
        a->radians = 1;
        return 1;
    case OPT_ARROW_STEP:
        if (parse_long(value, "--arrow-step", 1, 1000, &number))
            return -1;
        a->arrow_step = (int)number;
        return 1;
    }
    return 0;
}

static const struct command_options plot_options = { "plot", plot_help, plot_table, plot_take };

/* The options that go with one picture only. Returns -1 after reporting. */
static int check_combinations(const struct plot_args *a)
{
    const char *wrong = NULL;
    if (a->tensor && (a->series || a->map))
        wrong = "--tensor, --series and --map draw different pictures: one of them";
    else if (a->tensor && (a->have_image || a->each || a->colour || a->region >= 0 || a->scale != MAP_SCALE_AUTO ||
                           a->have_range))
        wrong = "--tensor draws the nine components of every scan point, each row on its own scale: not with "
                "--image, --each, --colour, --region, --scale or --range";
    else if (a->radians && !a->map && !a->tensor)
        wrong = "--radians sets the unit of angles in --map and --tensor";
    else if (a->arrow_step && (a->series || a->map || a->tensor))
        wrong = "--arrow-step picks the arrows drawn; --series, --map and --tensor draw none";
    else if (a->series && a->map)
        wrong = "--series and --map draw different pictures: one of them";
    else if ((a->series || a->map) && a->have_image)
        wrong = a->series ? "--image picks the image of the arrows; --series draws every image"
                          : "--image picks the image of the arrows; --map draws a scan's points";
    else if (!a->series && !a->map && a->region >= 0)
        wrong = "--region picks the window of --series or --map; the arrows show every window";
    else if (a->each && (a->series || a->map || a->have_image))
        wrong = "--each draws the arrows of every image: not with --series, --map or --image";
    else if (a->colour && (a->series || a->map))
        wrong = "--colour colours the arrows' picture; --map draws a column over a scan";
    else if (!a->map && (a->scale != MAP_SCALE_AUTO || a->have_range))
        wrong = a->have_range ? "--range sets the colour limits of --map" : "--scale picks the colours of --map";
    if (wrong) {
        report_error("%s", wrong);
        return -1;
    }
    if (a->series && a->width && a->width < 400) {
        report_error("--width %d: the series picture needs at least 400 pixels", a->width);
        return -1;
    }
    return 0;
}

/* The picture must not land on what it is drawn from: the results or any
 * image under the arrows. Returns -1 after reporting. */
static int references_guard(const struct plot_args *a)
{
    const struct output_guard out = { "-o", a->out.path };
    const char **files = calloc((size_t)a->nreferences + 1, sizeof *files);
    if (!files) {
        report_error("out of host memory");
        return -1;
    }
    files[0] = a->results;
    int n = 1, clash = 0, page;
    for (int i = 0; i < a->nreferences && clash == 0; i++) {
        char *file = NULL;
        if (clx_image_name_split(a->references[i], &file, &page, NULL, NULL) != CLX_OK) {
            report_error("out of host memory");
            clash = -1;
        } else
            files[n++] = file;
    }
    if (clash == 0)
        clash = output_guard_check(&out, 1, files, (size_t)n, NULL);
    for (int i = 1; i < n; i++)
        free((char *)files[i]);
    free(files);
    return clash;
}

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
    if (check_combinations(a))
        return -1;
    int alone = a->map || a->tensor;
    int left = argc - optind, want = a->series || alone ? 1 : 2, most = alone ? 1 : a->each ? left : 2;
    if (left < want || left > most) {
        report_error(left < 1        ? "no results file given (usage: clxcorr plot [OPTIONS] -o OUT.png RESULTS.csv REFERENCE)"
                     : left < want ? "no reference image given: the arrows are drawn on it (or use --series)"
                     : a->map      ? "too many arguments: --map draws RESULTS.csv alone"
                     : a->tensor   ? "too many arguments: --tensor draws RESULTS.csv alone"
                                   : "too many arguments: RESULTS.csv and REFERENCE only");
        return -1;
    }
    a->results = argv[optind];
    a->references = (const char *const *)argv + optind + 1;
    a->nreferences = left - 1;
    return references_guard(a);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Reports a reader's or a picture's error. A message may quote a field of
 * the file (a value that is not a number, a column name): its control
 * bytes are printed as '?', so that a file with binary bytes in a field
 * never sends them to the terminal. */
static void report_message(clx_message *msg)
{
    for (unsigned char *s = (unsigned char *)msg->text; *s; s++)
        if (*s < 0x20 || *s == 0x7f)
            *s = '?';
    report_error("%s", msg->text);
}

/* Image i's arrows (and values of the coloured column), or with i < 0 each
 * window's mean over the images (the values' mean over those that are not
 * nan: an inf among them makes the mean inf, drawn at the scale's end). */
static int arrows_fill(const struct results_table *t, long i, struct quiver_arrow *arrows, double *values)
{
    for (size_t w = 0; w < t->windows; w++) {
        size_t cell = (size_t)(i < 0 ? 0 : i) * t->windows + w;
        arrows[w] = (struct quiver_arrow){ t->x[w], t->y[w], t->dx[cell], t->dy[cell], t->flags[cell] };
        if (values)
            values[w] = t->value[cell];
    }
    if (i >= 0)
        return CLX_OK;
    struct quiver_mean mean;
    if (quiver_mean_init(&mean, t->windows) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    for (size_t k = 0; k < t->images; k++)
        for (size_t w = 0; w < t->windows; w++) {
            size_t cell = k * t->windows + w;
            quiver_mean_add(&mean, w, t->dx[cell], t->dy[cell], t->flags[cell]);
        }
    quiver_mean_arrows(&mean, arrows);
    quiver_mean_free(&mean);
    for (size_t w = 0; values && w < t->windows; w++) {
        double sum = 0;
        size_t n = 0;
        for (size_t k = 0; k < t->images; k++)
            if (!isnan(t->value[k * t->windows + w]))
                sum += t->value[k * t->windows + w], n++;
        values[w] = n ? sum / n : NAN;
    }
    return CLX_OK;
}

/* Centres outside the reference: the results are of another image. */
static int centres_check(const struct plot_args *a, const struct results_table *t, const clx_image *ref,
                         const char *name)
{
    for (size_t w = 0; w < t->windows; w++)
        if (!isnan(t->x[w]) && (t->x[w] < 0 || t->y[w] < 0 || t->x[w] > ref->width - 1 || t->y[w] > ref->height - 1)) {
            report_error("%s: window %zu is centred at (%g, %g), outside %s (%dx%d): results of another reference?",
                         a->results, w, t->x[w], t->y[w], name, ref->width, ref->height);
            return -1;
        }
    return 0;
}

/* One picture: image i's arrows (i < 0: the mean) over reference `name`, to `path`. */
static int picture_draw(const struct plot_args *a, const struct results_table *t, long i, const char *name,
                        const char *path, struct quiver_arrow *arrows, double *values)
{
    clx_image ref = { 0 };
    clx_message msg;
    char title[512];
    int status = -1;
    if (image_entry_load_single(name, NULL, &ref, &msg) != CLX_OK) {
        report_message(&msg);
        return -1;
    }
    if (centres_check(a, t, &ref, name) != 0)
        goto done;
    if (arrows_fill(t, i, arrows, values) != CLX_OK) {
        report_error("out of memory");
        goto done;
    }
    if (i >= 0)
        snprintf(title, sizeof title, "image %ld of %zu: %s%s%s", i, t->images, base_name(t->image_names[i]),
                 a->colour ? ", colour: " : "", a->colour ? a->colour : "");
    else
        snprintf(title, sizeof title, "mean offset over %zu image%s of %s%s%s", t->images, t->images == 1 ? "" : "s",
                 base_name(a->results), a->colour ? ", colour: " : "", a->colour ? a->colour : "");
    /* Windows the file never names have no centre: nothing to draw. */
    for (size_t w = 0; w < t->windows; w++)
        if (isnan(t->x[w]))
            arrows[w].dx = arrows[w].dy = NAN;
    struct quiver_options opt = { a->width, title, values, a->colour, a->arrow_step };
    if (quiver_write_png(path, &ref, arrows, t->windows, &opt, &msg) != CLX_OK) {
        report_message(&msg);
        goto done;
    }
    report_info("%s: %s, %zu windows", path, title, t->windows);
    status = 0;
done:
    clx_image_free(&ref);
    return status;
}

/* --each: a picture per image, PREFIX_0001.png ... (PREFIX.png for one),
 * over its own REFERENCE or the one given. */
static int plot_each(const struct plot_args *a, const struct results_table *t, struct quiver_arrow *arrows,
                     double *values)
{
    char path[4096];
    if (a->nreferences != 1 && (size_t)a->nreferences != t->images) {
        report_error("--each: %s has %zu images; give one image to draw under them all, or one for each (got %d)",
                     a->results, t->images, a->nreferences);
        return -1;
    }
    for (size_t i = 0; i < t->images; i++) {
        if (field_output_path(a->out.path, t->images, i, path, sizeof path) != 0) {
            report_error("%s: the file name is too long", a->out.path);
            return -1;
        }
        if (picture_draw(a, t, (long)i, a->references[a->nreferences == 1 ? 0 : i], path, arrows, values) != 0)
            return -1;
    }
    return 0;
}

static int plot_arrows(const struct plot_args *a, const struct results_table *t)
{
    struct quiver_arrow *arrows = calloc(t->windows, sizeof *arrows);
    double *values = a->colour ? calloc(t->windows, sizeof *values) : NULL;
    int status = -1;

    if (!arrows || (a->colour && !values)) {
        report_error("out of memory");
        goto done;
    }
    if (a->each)
        status = plot_each(a, t, arrows, values);
    else if (a->have_image) {
        long n = (long)t->images, i = a->image < 0 ? n + a->image : a->image;
        if (i < 0 || i >= n)
            report_error("--image %ld: %s has %ld image%s (0 to %ld, or -1 for the last)", a->image, a->results, n,
                         n == 1 ? "" : "s", n - 1);
        else
            status = picture_draw(a, t, i, a->references[0], a->out.path, arrows, values);
    } else
        status = picture_draw(a, t, -1, a->references[0], a->out.path, arrows, values);
done:
    free(arrows);
    free(values);
    return status == 0 ? EXIT_OK : EXIT_FAILURE_RUN;
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
        report_message(&msg);
        return EXIT_FAILURE_RUN;
    }
    report_info("%s: %s", a->out.path, title);
    return EXIT_OK;
}

/* "dx (px), mean over 50 windows, 3 x 2 points, scan.csv": what is drawn,
 * of how many windows, over how many points (columns x rows), of which file. */
static void map_title(const struct plot_args *a, const struct scan_grid *g, char *title, size_t len)
{
    char windows[64] = "";
    const char *unit = map_column_unit(a->map, a->radians);
    if (a->region >= 0)
        snprintf(windows, sizeof windows, ", window %ld", a->region);
    else if (g->windows > 0)
        snprintf(windows, sizeof windows, ", mean over %zu window%s", g->windows, g->windows == 1 ? "" : "s");
    snprintf(title, len, "%s%s%s%s%s, %zu x %zu points, %s", a->map, unit[0] ? " (" : "", unit, unit[0] ? ")" : "",
             windows, g->cols, g->rows, base_name(a->results));
}

/* Angles are written in radians and drawn in degrees unless --radians. */
static void to_drawn_unit(const struct plot_args *a, const char *column, struct scan_grid *g)
{
    double factor = map_column_factor(column, a->radians);
    for (size_t p = 0; factor != 1 && g->values && p < g->rows * g->cols; p++)
        g->values[p] *= factor;
}

static void report_drawn(const struct plot_args *a, const char *title, const struct scan_grid *g)
{
    size_t empty = g->rows * g->cols - g->points_with_value;
    report_info("%s: %s; %zu of %zu rows drawn, %zu point%s without a value", a->out.path, title, g->rows_used,
                g->rows_read, empty, empty == 1 ? "" : "s");
}

/* --map: the column, and where the file has a grain column (strain
 * --grains), the boundaries between its grains. */
static int plot_map(const struct plot_args *a)
{
    struct scan_grid g[2];
    clx_message msg;
    char title[512];
    const char *columns[2] = { a->map, "grain" };
    const struct scan_request request = { "--map", columns, 2, 1, a->region };
    if (scan_grids_read(a->results, &request, g, &msg) != CLX_OK) {
        report_message(&msg);
        return EXIT_FAILURE_RUN;
    }
    to_drawn_unit(a, a->map, &g[0]);
    map_title(a, &g[0], title, sizeof title);
    struct map_options opt = { a->map, title, a->width, a->scale, a->have_range, a->range_lo, a->range_hi,
                               a->radians, g[1].values ? &g[1] : NULL };
    int status = map_write_png(a->out.path, &g[0], &opt, &msg);
    if (status != CLX_OK)
        report_message(&msg);
    else
        report_drawn(a, title, &g[0]);
    scan_grid_free(&g[0]);
    scan_grid_free(&g[1]);
    return status == CLX_OK ? EXIT_OK : EXIT_FAILURE_RUN;
}

/* --tensor: strain's six components and three rotations, with the grains'
 * boundaries where the file has them. */
static int plot_tensor(const struct plot_args *a)
{
    struct scan_grid g[TENSOR_PANELS + 1];
    struct tensor_frame frame;
    clx_message msg;
    char title[512];
    const char *columns[TENSOR_PANELS + 1];
    for (int k = 0; k < TENSOR_PANELS; k++)
        columns[k] = tensor_columns[k];
    columns[TENSOR_PANELS] = "grain";
    const struct scan_request request = { "--tensor", columns, TENSOR_PANELS + 1, TENSOR_PANELS, -1 };
    if (scan_grids_read(a->results, &request, g, &msg) != CLX_OK) {
        report_message(&msg);
        return EXIT_FAILURE_RUN;
    }
    for (int k = 0; k < TENSOR_PANELS; k++)
        to_drawn_unit(a, columns[k], &g[k]);
    snprintf(title, sizeof title, "strain and rotation, %zu x %zu points, %s", g[0].cols, g[0].rows,
             base_name(a->results));
    struct tensor_options opt = { title, a->width, a->radians, g[TENSOR_PANELS].values ? &g[TENSOR_PANELS] : NULL };
    int status = tensor_write_png(a->out.path, g, &opt, &msg);
    if (status != CLX_OK)
        report_message(&msg);
    else if (tensor_frame_of(g, &opt, &frame, &msg) == CLX_OK) {
        report_drawn(a, title, &g[0]);
        for (int r = 0; r < TENSOR_ROWS; r++)
            report_info("  %s: colours %.4g to %.4g", frame.row[r].label, frame.row[r].scale.lo, frame.row[r].scale.hi);
    }
    for (int k = 0; k <= TENSOR_PANELS; k++)
        scan_grid_free(&g[k]);
    return status == CLX_OK ? EXIT_OK : EXIT_FAILURE_RUN;
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
    if (a.map)
        return plot_map(&a);
    if (a.tensor)
        return plot_tensor(&a);
    if ((a.colour ? results_read_column(a.results, a.colour, &t, &msg) : results_read(a.results, &t, &msg)) != CLX_OK) {
        report_message(&msg);
        return EXIT_FAILURE_RUN;
    }
    int status = a.series ? plot_series(&a, &t) : plot_arrows(&a, &t);
    results_free(&t);
    return status;
}
