/*
 * options.h - the commands' command lines: option values parsed with clear
 * errors, and the option groups several commands share.
 *
 * A group is a struct of the values its options set (windows, images,
 * mode, device, output). A command's getopt_long table names every option
 * it takes: its own, and the shared ones by the OPTION_ entries below, so
 * that it takes exactly the shared options it names and no other. Its
 * struct command_options (name, help, table and the function that takes
 * its own options) is fixed; struct option_values says where one parse puts
 * what it reads. options_parse() runs getopt_long over the table and hands
 * each option to its group, else to the command's `take`; it answers -v,
 * -q and -h itself (verbosity and help) and reports an unknown option or a
 * missing value in the command's name.
 */
#ifndef CLX_OPTIONS_H
#define CLX_OPTIONS_H

#include <getopt.h>
#include "clxcorr.h"
#include "image_list.h"

/* ---- option values ---- */

/* Parses a whole decimal integer in [min, max]; on error reports it naming the option. */
int parse_int(const char *text, const char *option, int min, int max, int *out);
/* Parses `count` comma-separated integers >= 0 ("10,20,256,256"); `form`
 * names them in the error ("X,Y,W,H"). */
int parse_ints(const char *text, const char *option, const char *form, int count, int *out);
/* Parses a real number in [min, max]. */
int parse_double(const char *text, const char *option, double min, double max, double *out);

/* ---- the shared options ---- */

/* The long-only options of the groups. A command numbers its own from
 * OPT_OWN; a short option is its letter. */
enum option_id {
    OPT_LONG_ONLY = 256,        /* above every letter */
    OPT_MODE = OPT_LONG_ONLY,
    OPT_METHOD,
    OPT_MAX_SHIFT,
    OPT_DOUBLE,
    OPT_EXPLAIN,
    OPT_ESTIMATOR,
    OPT_FFT,
    OPT_PARAM,
    OPT_PREFILTER,
    OPT_WINDOW_FN,
    OPT_PASSES,
    OPT_REFINE,
    OPT_TOL,
    OPT_FINE_SHIFT,
    OPT_INTERP,
    OPT_ITERATIONS,
    OPT_SHAPE,
    OPT_NO_CACHE,
    OPT_FORMAT,
    OPT_COLUMNS,
    OPT_SCAN,
    OPT_GRID_STEP,
    OPT_OWN = 512
};

/* Windows: --regions FILE, or --grid NXxNY or --grid-step S with --window WxH [--margin M]. */
#define OPTIONS_WINDOWS                                                                       \
    { "regions", required_argument, NULL, 'r' }, { "grid", required_argument, NULL, 'g' },   \
    { "window", required_argument, NULL, 'w' }, { "margin", required_argument, NULL, 'm' },  \
    { "grid-step", required_argument, NULL, OPT_GRID_STEP }
/* Images: --list FILE, besides the image arguments, and the scan to read
 * in pattern files that hold several. */
#define OPTION_LIST { "list", required_argument, NULL, 'l' }
#define OPTION_SCAN { "scan", required_argument, NULL, OPT_SCAN }
/* Mode: how the images are correlated (clx_plan_options). */
#define OPTION_MODE { "mode", required_argument, NULL, OPT_MODE }
#define OPTION_METHOD { "method", required_argument, NULL, OPT_METHOD }
#define OPTION_MAX_SHIFT { "max-shift", required_argument, NULL, OPT_MAX_SHIFT }
#define OPTION_FIT_SIZE { "fit-size", required_argument, NULL, 'F' }
#define OPTION_DOUBLE { "double", no_argument, NULL, OPT_DOUBLE }
#define OPTION_EXPLAIN { "explain", no_argument, NULL, OPT_EXPLAIN }
#define OPTION_ESTIMATOR { "estimator", required_argument, NULL, OPT_ESTIMATOR }
#define OPTION_FFT { "fft", required_argument, NULL, OPT_FFT }
#define OPTION_PARAM { "param", required_argument, NULL, OPT_PARAM }
#define OPTION_BATCH { "batch", required_argument, NULL, 'b' }
/* The accurate mode's own: pre-filter, window function, passes, refinement and its interpolation. */
#define OPTIONS_ACCURATE                                                                                \
    { "prefilter", required_argument, NULL, OPT_PREFILTER },                                          \
    { "window-fn", required_argument, NULL, OPT_WINDOW_FN },                                          \
    { "passes", required_argument, NULL, OPT_PASSES }, { "refine", required_argument, NULL, OPT_REFINE }, \
    { "tol", required_argument, NULL, OPT_TOL }, { "fine-shift", required_argument, NULL, OPT_FINE_SHIFT }, \
    { "interp", required_argument, NULL, OPT_INTERP }, { "iterations", required_argument, NULL, OPT_ITERATIONS }, \
    { "shape", required_argument, NULL, OPT_SHAPE }
/* Device: --device SPEC, and --no-cache where the command builds kernels it may cache. */
#define OPTION_DEVICE { "device", required_argument, NULL, 'd' }
#define OPTION_NO_CACHE { "no-cache", no_argument, NULL, OPT_NO_CACHE }
/* Output: -o FILE, and the rows' --format and --columns. */
#define OPTION_OUTPUT { "output", required_argument, NULL, 'o' }
#define OPTION_FORMAT { "format", required_argument, NULL, OPT_FORMAT }
#define OPTION_COLUMNS { "columns", required_argument, NULL, OPT_COLUMNS }
/* Verbosity and help, taken by options_parse itself. */
#define OPTION_VERBOSE { "verbose", no_argument, NULL, 'v' }
#define OPTION_QUIET { "quiet", no_argument, NULL, 'q' }
#define OPTION_HELP { "help", no_argument, NULL, 'h' }
#define OPTIONS_VERBOSITY OPTION_VERBOSE, OPTION_QUIET, OPTION_HELP
#define OPTIONS_END { NULL, 0, NULL, 0 }

/* ---- the groups' values ---- */

#define WINDOW_PASSES_MAX 8

struct window_options {
    const char *regions_path;              /* --regions FILE */
    int grid_nx, grid_ny, win_w, win_h;    /* --grid NXxNY, --window WxH (the last pass's with a list) */
    int pass_windows[WINDOW_PASSES_MAX];   /* --window A,B,...: a square window per pass (PIV's passes) */
    int npass_windows;                     /* 0: one WxH window */
    int grid_step;                         /* --grid-step S: a window every S px */
    int margin;                            /* --margin M */
    int have_grid, have_window, have_margin, have_step;
};

struct image_options {
    const char *list_path;                 /* --list FILE */
    struct image_list images;              /* the arguments', then the list's */
};

struct mode_options {
    clx_plan_options plan;
    char *params;                          /* --param values and --fft, comma-joined (plan.params) */
    int explain;                           /* --explain */
    int shape_given;                       /* --shape */
};

struct device_options {
    const char *spec;                      /* --device SPEC; NULL: the library's default */
    int no_cache;                          /* --no-cache */
};

struct output_options {
    const char *path;                      /* -o FILE */
    const char *format;                    /* --format F */
    const char *columns;                   /* --columns LIST */
};

/* ---- a command's command line ---- */

/* What a command's command line is: fixed, one for each command. */
struct command_options {
    const char *name;                      /* "offsets": in messages */
    const char *help;                      /* what --help prints */
    const struct option *table;            /* every option it takes, OPTIONS_END last */
    /* Its own options: 1 taken, 0 not its own, -1 after reporting a bad value. */
    int (*take)(void *own, int c, const char *value);
};

/* Where one parse puts the values: the groups whose options the table
 * names (NULL: none of the group's), and what `take` fills. */
struct option_values {
    struct window_options *windows;
    struct image_options *images;
    struct mode_options *mode;
    struct device_options *device;
    struct output_options *output;
    void *own;
};

/* A parser's 0 or -1 as a take function's answer: 1 taken, -1 a bad value. */
int option_taken(int parsed);

/*
 * Parses the options of argv; optind is then at the first argument. Returns
 * 0 to run, 1 after printing the help (-h), -1 after reporting a wrong
 * command line. The verbosity (-v, -q) is set once every option is taken.
 */
int options_parse(const struct command_options *c, const struct option_values *v, int argc, char **argv);

/*
 * The window options agree: one of --regions, --grid and --grid-step (one
 * of them with WINDOWS_REQUIRED in `how`; the message then says how), a
 * window per pass only with WINDOWS_PER_PASS, --window with
 * --grid or --grid-step and they with --window, --margin only with them.
 * Reports the first problem and returns -1.
 */
#define WINDOWS_REQUIRED 1     /* a layout must be given */
#define WINDOWS_PER_PASS 2     /* --window may list a window per pass */
int window_options_check(const struct window_options *w, unsigned how);
/* The windows the options name: read from --regions, or the --grid or
 * --grid-step windows in an image of width x height. */
int window_options_regions(const struct window_options *w, int width, int height, clx_region **regions, size_t *n,
                           clx_message *msg);

/* Adds the image arguments (argv[first] on) and checks that there is an
 * image unless --list brings them; the error ends with `hint`. Returns 0 or -1. */
int image_options_add_args(struct image_options *o, int argc, char **argv, int first, const char *hint);
/* Reads --list's file, if given, after the arguments; returns 0, or -1 after reporting why not. */
int image_options_read_list(struct image_options *o);
void image_options_free(struct image_options *o);

/* The library's defaults (clx_plan_options_init), nothing to free yet. */
/* The mode options agree: --shape only with the IC-GN refinement. Reports
 * the problem and returns -1. */
int mode_options_check(const struct mode_options *m);

void mode_options_init(struct mode_options *m);
void mode_options_free(struct mode_options *m);

#endif
