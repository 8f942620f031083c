/*
 * options.c - option values (integers, "AxB" pairs, "A,B,..." lists, names)
 * with clear errors, the option groups several commands share, and the one
 * getopt_long loop every command runs (options.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "report.h"

/* ---- option values ---- */

int parse_int(const char *text, const char *option, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE) {
        report_error("%s: '%s' is not an integer", option, text);
        return -1;
    }
    if (v < min || v > max) {
        report_error("%s: %ld is out of range (%d to %d)", option, v, min, max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Parses "AxB" (two positive integers, 'x' or 'X'). */
static int parse_pair(const char *text, const char *option, int *a, int *b)
{
    const char *x = strpbrk(text, "xX");
    char first[32];
    if (!x || x == text || (size_t)(x - text) >= sizeof first) {
        report_error("%s: expected AxB (e.g. 100x100), got '%s'", option, text);
        return -1;
    }
    memcpy(first, text, (size_t)(x - text));
    first[x - text] = '\0';
    if (parse_int(first, option, 1, INT_MAX / 4, a) || parse_int(x + 1, option, 1, INT_MAX / 4, b))
        return -1;
    return 0;
}

/* --window: WxH, N (N x N), or a square window per pass, largest first
 * ("64,32,16"; the last is the grid's). */
static int parse_window(const char *text, struct window_options *w)
{
    w->npass_windows = 0;
    if (!strchr(text, ',') && strpbrk(text, "xX"))
        return parse_pair(text, "--window", &w->win_w, &w->win_h);
    if (!strchr(text, ','))    /* N: a square window */
        return parse_int(text, "--window", 1, INT_MAX / 4, &w->win_w) ? -1 : (w->win_h = w->win_w, 0);
    int n = 1;
    for (const char *c = text; *c; c++)
        n += *c == ',';
    if (n > WINDOW_PASSES_MAX) {
        report_error("--window: %d windows in '%s'; a run takes at most %d passes", n, text, WINDOW_PASSES_MAX);
        return -1;
    }
    if (parse_ints(text, "--window", "a window size per pass, e.g. 64,32,16", n, w->pass_windows))
        return -1;
    for (int k = 0; k < n; k++)
        if (w->pass_windows[k] < 8 || (k > 0 && w->pass_windows[k] > w->pass_windows[k - 1])) {
            report_error("--window: '%s': each pass's window is 8 px or more, and no larger than the one before",
                         text);
            return -1;
        }
    w->npass_windows = n;
    w->win_w = w->win_h = w->pass_windows[n - 1];
    return 0;
}

int parse_ints(const char *text, const char *option, const char *form, int count, int *out)
{
    const char *p = text;
    for (int i = 0; i < count; i++) {
        size_t len = strcspn(p, ",");
        char item[32];
        if ((p[len] == ',') != (i < count - 1) || len == 0 || len >= sizeof item) {
            report_error("%s: expected %s, got '%s'", option, form, text);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (parse_int(item, option, 0, INT_MAX / 4, &out[i]))
            return -1;
        p += len + 1;
    }
    return 0;
}

int parse_double(const char *text, const char *option, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v >= min && v <= max)) {
        report_error("%s: '%s' is not a number from %g to %g", option, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* --mode's value: accurate or seed. */
static int parse_mode(const char *text, clx_mode *mode)
{
    if (strcmp(text, "seed") == 0)
        *mode = CLX_MODE_SEED;
    else if (strcmp(text, "accurate") == 0)
        *mode = CLX_MODE_ACCURATE;
    else {
        report_error("--mode: unknown mode '%s' (accurate or seed)", text);
        return -1;
    }
    return 0;
}

/* --method's value: fft, direct or auto. */
static int parse_method(const char *text, clx_method *method)
{
    if (strcmp(text, "fft") == 0)
        *method = CLX_METHOD_FFT;
    else if (strcmp(text, "direct") == 0)
        *method = CLX_METHOD_DIRECT;
    else if (strcmp(text, "auto") == 0)
        *method = CLX_METHOD_AUTO;
    else {
        report_error("--method: unknown method '%s' (fft, direct or auto)", text);
        return -1;
    }
    return 0;
}

/* --estimator's value: lsq, gauss3, parabola3 or centroid. */
static int parse_estimator(const char *text, clx_estimator *estimator)
{
    static const clx_estimator all[] = { CLX_ESTIMATOR_LSQ, CLX_ESTIMATOR_GAUSS3, CLX_ESTIMATOR_PARABOLA3,
                                         CLX_ESTIMATOR_CENTROID };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, clx_estimator_name(all[i])) == 0) {
            *estimator = all[i];
            return 0;
        }
    report_error("--estimator: unknown estimator '%s' (lsq, gauss3, parabola3 or centroid)", text);
    return -1;
}

/* --interp's value: lanczos3, keys, bspline3 or bspline5. */
static int parse_interp(const char *text, clx_interp *interp)
{
    static const clx_interp all[] = { CLX_INTERP_LANCZOS3, CLX_INTERP_KEYS, CLX_INTERP_BSPLINE3,
                                      CLX_INTERP_BSPLINE5 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, clx_interp_name(all[i])) == 0) {
            *interp = all[i];
            return 0;
        }
    report_error("--interp: unknown interpolation '%s' (lanczos3, keys, bspline3 or bspline5)", text);
    return -1;
}

/* --window-fn's value: none, hann, tukey or tukey:ALPHA. */
static int parse_window_fn(const char *text, clx_window_fn *fn, double *alpha)
{
    if (strcmp(text, "none") == 0)
        *fn = CLX_WINDOW_NONE;
    else if (strcmp(text, "hann") == 0)
        *fn = CLX_WINDOW_HANN;
    else if (strcmp(text, "tukey") == 0)
        *fn = CLX_WINDOW_TUKEY;
    else if (strncmp(text, "tukey:", 6) == 0) {
        *fn = CLX_WINDOW_TUKEY;
        return parse_double(text + 6, "--window-fn tukey", 0, 1, alpha);
    } else {
        report_error("--window-fn: unknown window function '%s' (none, hann, tukey or tukey:ALPHA)", text);
        return -1;
    }
    return 0;
}

/* ---- the groups ----
 * Each takes option c when it is one of its own: 1 taken, 0 not its own,
 * -1 after reporting a bad value. */

int option_taken(int parsed)
{
    return parsed == 0 ? 1 : -1;
}

static int windows_take(struct window_options *w, int c, const char *value)
{
    switch (c) {
    case 'r':
        w->regions_path = value;
        return 1;
    case 'g':
        w->have_grid = 1;
        return option_taken(parse_pair(value, "--grid", &w->grid_nx, &w->grid_ny));
    case 'w':
        w->have_window = 1;
        return option_taken(parse_window(value, w));
    case 'm':
        w->have_margin = 1;
        return option_taken(parse_int(value, "--margin", 0, 1 << 20, &w->margin));
    case OPT_GRID_STEP:
        w->have_step = 1;
        return option_taken(parse_int(value, "--grid-step", 1, 1 << 20, &w->grid_step));
    }
    return 0;
}

static int images_take(struct image_options *o, int c, const char *value)
{
    if (c == 'l')
        o->list_path = value;
    else if (c == OPT_SCAN)
        o->images.scan = value;
    else
        return 0;
    return 1;
}

/* Appends one --param value to the comma-joined list the plan reads. */
static int mode_param_add(struct mode_options *m, const char *value)
{
    size_t old = m->params ? strlen(m->params) : 0, n = strlen(value);
    char *grown = realloc(m->params, old + n + 2);
    if (!grown) {
        report_error("out of memory");
        return -1;
    }
    if (old)
        grown[old++] = ',';
    memcpy(grown + old, value, n + 1);
    m->params = grown;
    m->plan.params = grown;
    return 0;
}

static int parse_fit_size(const char *text, int *fit_size)
{
    if (parse_int(text, "--fit-size", 3, 31, fit_size))
        return -1;
    if (*fit_size % 2 == 0) {
        report_error("--fit-size: %d is even; the fit needs an odd size (3, 5, 7, ...)", *fit_size);
        return -1;
    }
    return 0;
}

/* --fft LIB: the FFT library, passed on as the tuning parameter fft=LIB. */
static int mode_fft_set(struct mode_options *m, const char *text)
{
    if (strcmp(text, "clfft") != 0 && strcmp(text, "vkfft") != 0 && strcmp(text, "cpu") != 0 &&
        strcmp(text, "local") != 0 && strcmp(text, "auto") != 0) {
        report_error("--fft: unknown FFT library '%s' (vkfft, clfft, cpu, local or auto)", text);
        return -1;
    }
    char param[16];
    snprintf(param, sizeof param, "fft=%s", text);
    return mode_param_add(m, param);
}

static int parse_prefilter(const char *text, const char **prefilter)
{
    clx_message msg;
    if (strcmp(text, "none") != 0 && clx_filter_spec_check(text, &msg) != CLX_OK) {
        report_error("--prefilter: %s", msg.text);
        return -1;
    }
    *prefilter = text;
    return 0;
}

/* --refine's value: icgn, correlation or none, or a number of iterations
 * (the form earlier versions took: --refine 0 is none). */
static int parse_refine(const char *text, clx_plan_options *plan)
{
    static const clx_refiner all[] = { CLX_REFINER_ICGN, CLX_REFINER_CORRELATION };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, clx_refiner_name(all[i])) == 0) {
            plan->refiner = all[i];
            return 0;
        }
    if (strcmp(text, "none") == 0) {
        plan->refine = 0;
        return 0;
    }
    if (text[0] >= '0' && text[0] <= '9')
        return parse_int(text, "--refine", 0, 64, &plan->refine);
    report_error("--refine: unknown refinement '%s' (icgn, correlation or none)", text);
    return -1;
}

/* The accurate mode's options: pre-filter, window function, passes, refinement, interpolation. */
static int accurate_take(clx_plan_options *plan, int c, const char *value)
{
    switch (c) {
    case OPT_PREFILTER: return option_taken(parse_prefilter(value, &plan->prefilter));
    case OPT_WINDOW_FN: return option_taken(parse_window_fn(value, &plan->window, &plan->window_alpha));
    case OPT_PASSES: return option_taken(parse_int(value, "--passes", 1, 16, &plan->passes));
    case OPT_REFINE: return option_taken(parse_refine(value, plan));
    case OPT_ITERATIONS: return option_taken(parse_int(value, "--iterations", 1, 64, &plan->refine));
    case OPT_TOL: return option_taken(parse_double(value, "--tol", 1e-9, 10, &plan->tolerance));
    case OPT_FINE_SHIFT: return option_taken(parse_int(value, "--fine-shift", 1, 64, &plan->fine_shift));
    case OPT_INTERP: return option_taken(parse_interp(value, &plan->interp));
    }
    return 0;
}

static int mode_take(struct mode_options *m, int c, const char *value)
{
    clx_plan_options *plan = &m->plan;
    switch (c) {
    case OPT_SHAPE:
        m->shape_given = 1;
        return option_taken(parse_int(value, "--shape", 0, 1, &plan->shape));
    case OPT_MODE: return option_taken(parse_mode(value, &plan->mode));
    case OPT_METHOD: return option_taken(parse_method(value, &plan->method));
    case OPT_MAX_SHIFT: return option_taken(parse_int(value, "--max-shift", 1, 1 << 20, &plan->max_shift));
    case 'F': return option_taken(parse_fit_size(value, &plan->fit_size));
    case OPT_ESTIMATOR: return option_taken(parse_estimator(value, &plan->estimator));
    case OPT_FFT: return option_taken(mode_fft_set(m, value));
    case 'b': return option_taken(parse_int(value, "--batch", 1, 1 << 20, &plan->batch));
    case OPT_DOUBLE:
        plan->use_double = 1;
        return 1;
    case OPT_EXPLAIN:
        m->explain = 1;
        return 1;
    case OPT_PARAM:
        if (!strchr(value, '=')) {
            report_error("--param: expected KEY=VALUE, got '%s'", value);
            return -1;
        }
        return option_taken(mode_param_add(m, value));
    }
    return accurate_take(plan, c, value);
}

static int device_take(struct device_options *d, int c, const char *value)
{
    switch (c) {
    case 'd':
        d->spec = value;
        return 1;
    case OPT_NO_CACHE:
        d->no_cache = 1;
        return 1;
    }
    return 0;
}

static int output_take(struct output_options *o, int c, const char *value)
{
    switch (c) {
    case 'o': o->path = value; return 1;
    case OPT_FORMAT: o->format = value; return 1;
    case OPT_COLUMNS: o->columns = value; return 1;
    }
    return 0;
}

/* ---- the loop ---- */

/*
 * getopt_long's short options, from the table: ':' first (so that a
 * missing value is told from an unknown option), then each entry whose
 * value is a letter, with ':' when it takes a value.
 */
static void short_options(const struct option *table, char *buf, size_t size)
{
    size_t n = 0;
    buf[n++] = ':';
    for (const struct option *o = table; o->name && n + 3 <= size; o++)
        if (o->val > 0 && o->val < OPT_LONG_ONLY) {
            buf[n++] = (char)o->val;
            if (o->has_arg == required_argument)
                buf[n++] = ':';
        }
    buf[n] = '\0';
}

/*
 * The options, of any command, whose value is a path: an empty one would
 * reach a file call as "" and come back as its internal message (or as
 * "': No such file or directory"), so it is a wrong command line instead.
 * A new option that takes a file or directory belongs here; cli_usage.sh
 * checks every FILE and DIR option that a command's --help names.
 */
static const char *const path_options[] = { "output", "output-dir", "regions", "list", "mask", "meta", "quiver",
                                            "orientations", "dir", "grains", "grain-references" };

/* An empty path given to option `opt` (argv[optind - 1] its last word):
 * reported as the user spelled it, "-o: empty file name". 1 when it was. */
static int empty_path(const struct option *table, int opt, const char *value, char **argv)
{
    if (!value || value[0] != '\0')
        return 0;
    const struct option *o = table;
    while (o->name && o->val != opt)
        o++;
    int is_path = 0;
    for (size_t k = 0; o->name && k < sizeof path_options / sizeof path_options[0]; k++)
        is_path |= strcmp(o->name, path_options[k]) == 0;
    if (!is_path)
        return 0;
    /* "-o ''" and "-qo ''": the letter; "--output ''" and "--output=": the name. */
    const char *word = argv[optind - 1][0] == '\0' && optind >= 2 ? argv[optind - 2] : argv[optind - 1];
    int dir = strstr(o->name, "dir") != NULL;
    if (opt < OPT_LONG_ONLY && strncmp(word, "--", 2) != 0)
        report_error("-%c: empty %s", opt, dir ? "directory name" : "file name");
    else
        report_error("--%s: empty %s", o->name, dir ? "directory name" : "file name");
    return 1;
}

/* Option c to the group it belongs to, else to the command: 1 taken, 0 by
 * none, -1 after reporting a bad value. */
static int option_take(const struct command_options *c, const struct option_values *v, int opt, const char *value)
{
    int taken = v->windows ? windows_take(v->windows, opt, value) : 0;
    if (taken == 0 && v->images)
        taken = images_take(v->images, opt, value);
    if (taken == 0 && v->mode)
        taken = mode_take(v->mode, opt, value);
    if (taken == 0 && v->device)
        taken = device_take(v->device, opt, value);
    if (taken == 0 && v->output)
        taken = output_take(v->output, opt, value);
    if (taken == 0 && c->take)
        taken = c->take(v->own, opt, value);
    return taken;
}

int options_parse(const struct command_options *c, const struct option_values *v, int argc, char **argv)
{
    char letters[128];     /* two per option at most: room for 63 */
    int opt, verbosity = 1;

    short_options(c->table, letters, sizeof letters);
    opterr = 0;
    while ((opt = getopt_long(argc, argv, letters, c->table, NULL)) != -1) {
        int taken = 1;
        if (opt == 'v')
            verbosity = verbosity < 1 ? 2 : verbosity + 1;
        else if (opt == 'q')
            verbosity = 0;
        else if (opt == 'h') {
            fputs(c->help, stdout);
            return 1;
        } else if (opt != '?' && opt != ':' && empty_path(c->table, opt, optarg, argv)) {
            return -1;
        } else if (opt == '?' || opt == ':' || (taken = option_take(c, v, opt, optarg)) == 0) {
            report_bad_option(c->name, opt, argv[optind - 1]);
            return -1;
        }
        if (taken < 0)
            return -1;
    }
    report_set_verbosity(verbosity);
    return 0;
}

/* ---- after the options ---- */

int mode_options_check(const struct mode_options *m)
{
    const clx_plan_options *p = &m->plan;
    if (m->shape_given && (p->mode != CLX_MODE_ACCURATE || p->refine == 0 || p->refiner != CLX_REFINER_ICGN)) {
        report_error("--shape sets the IC-GN refinement's shape function: it needs accurate mode with --refine icgn");
        return -1;
    }
    return 0;
}

int window_options_check(const struct window_options *w, unsigned how)
{
    int have_regions = w->regions_path != NULL, layouts = have_regions + w->have_grid + w->have_step;
    int required = (how & WINDOWS_REQUIRED) != 0;
    if (w->npass_windows && !(how & WINDOWS_PER_PASS)) {
        report_error("--window: one WxH window here (a window per pass is for offsets --reference pairs)");
        return -1;
    }
    if (layouts > 1) {
        report_error("give one of --regions, --grid and --grid-step");
        return -1;
    }
    if (required && layouts == 0) {
        report_error("no windows given: use --regions FILE, --grid NXxNY --window WxH or --grid-step S --window WxH");
        return -1;
    }
    if ((w->have_grid || w->have_step) != w->have_window) {
        report_error(w->have_grid   ? "--grid needs --window WxH"
                     : w->have_step ? "--grid-step needs --window WxH"
                                    : "--window is only used with --grid or --grid-step");
        return -1;
    }
    if (w->have_margin && !w->have_grid && !w->have_step) {
        report_error("--margin is only used with --grid or --grid-step");
        return -1;
    }
    return 0;
}

/* Windows of w x h every `step` px from the margin on, as many as fit
 * before the far margin, row by row: the dense, overlapping grid PIV sets
 * by window size and step (an interrogation grid). */
static int step_grid_regions(const struct window_options *w, int width, int height, clx_region **regions, size_t *n,
                             clx_message *msg)
{
    long room_x = (long)width - 2L * w->margin - w->win_w, room_y = (long)height - 2L * w->margin - w->win_h;
    if (room_x < 0 || room_y < 0) {
        snprintf(msg->text, sizeof msg->text,
                 "--grid-step: no %dx%d window fits in the %dx%d image with --margin %d", w->win_w, w->win_h, width,
                 height, w->margin);
        return CLX_ERR_ARGUMENT;
    }
    size_t nx = (size_t)(room_x / w->grid_step) + 1, ny = (size_t)(room_y / w->grid_step) + 1;
    *regions = malloc(nx * ny * sizeof **regions);
    if (!*regions) {
        snprintf(msg->text, sizeof msg->text, "out of memory for %zu x %zu windows", nx, ny);
        return CLX_ERR_HOST_MEMORY;
    }
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            (*regions)[j * nx + i] = (clx_region){ w->margin + (int)i * w->grid_step,
                                                   w->margin + (int)j * w->grid_step, w->win_w, w->win_h };
    *n = nx * ny;
    return CLX_OK;
}

int window_options_regions(const struct window_options *w, int width, int height, clx_region **regions, size_t *n,
                           clx_message *msg)
{
    if (w->have_step)
        return step_grid_regions(w, width, height, regions, n, msg);
    return w->regions_path ? clx_regions_read(w->regions_path, regions, n, msg)
                           : clx_regions_grid(w->grid_nx, w->grid_ny, w->win_w, w->win_h, w->margin, width, height,
                                              regions, n, msg);
}

int image_options_add_args(struct image_options *o, int argc, char **argv, int first, const char *hint)
{
    return image_list_add_args(&o->images, argc, argv, first, o->list_path != NULL, hint);
}

int image_options_read_list(struct image_options *o)
{
    clx_message msg;
    if (o->list_path && image_list_read(&o->images, o->list_path, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

void image_options_free(struct image_options *o)
{
    image_list_free(&o->images);
}

void mode_options_init(struct mode_options *m)
{
    memset(m, 0, sizeof *m);
    clx_plan_options_init(&m->plan);
}

void mode_options_free(struct mode_options *m)
{
    free(m->params);
    m->params = NULL;
    m->plan.params = NULL;
}
