/* cli.h - what the clxcorr command's files share. */
#ifndef CLX_CLI_H
#define CLX_CLI_H

#include <stddef.h>
#include "clxcorr.h"

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Exit statuses of the command. */
#define EXIT_OK 0
#define EXIT_FAILURE_RUN 1     /* the job failed: bad input, device error, ... */
#define EXIT_USAGE 2           /* the command line is wrong */

/* Subcommands: each parses its own options and returns an exit status. */
int cmd_devices(int argc, char **argv);
int cmd_offsets(int argc, char **argv);
int cmd_correlate(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* ---- device_open.c ---- */

/* Opens the device for a subcommand (spec as --device takes it), with the
 * library's log going to standard error. Reports errors itself. */
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

/* ---- report.c: messages on standard error, progress ---- */

/* 0: errors only (--quiet), 1: warnings (default), 2: info (-v), 3: debug (-vv). */
void report_set_verbosity(int level);
int report_verbosity(void);
void report_error(const char *fmt, ...) CLI_PRINTF(1, 2);
/* The last error reported, whether printed or not. */
const char *report_last_error(void);
/* Nothing at all on standard error, errors included: an MPI rank other
 * than 0, whose errors reach the user through rank 0. */
void report_set_silent(int on);
void report_warning(const char *fmt, ...) CLI_PRINTF(1, 2);
void report_info(const char *fmt, ...) CLI_PRINTF(1, 2);
/* A line that is neither an error nor verbose detail (shown unless --quiet). */
void report_note(const char *fmt, ...) CLI_PRINTF(1, 2);
/* Reports an option getopt_long refused: `what` is ':' (value missing) or
 * '?' (unknown), `word` the command-line word it was in. */
void report_bad_option(const char *command, int what, const char *word);
/* The library's log callback (clx_log_fn). */
void report_library_log(void *user, clx_log_level level, const char *line);
clx_log_level report_library_level(void);

/* A progress line, shown only when standard error is a terminal and not --quiet. */
struct progress {
    int enabled;
    size_t total;          /* 0 when unknown */
    double start;
    double last_draw;
};
void progress_start(struct progress *p, size_t total);
void progress_update(struct progress *p, size_t done);
void progress_finish(struct progress *p);
double now_seconds(void);

/* ---- parse.c: option values ---- */

/* Parses a whole decimal integer in [min, max]; on error reports it naming the option. */
int parse_int(const char *text, const char *option, int min, int max, int *out);
/* Parses "AxB" (two positive integers, 'x' or 'X'). */
int parse_pair(const char *text, const char *option, int *a, int *b);
/* Parses `count` comma-separated integers >= 0 ("10,20,256,256"); `form`
 * names them in the error ("X,Y,W,H"). */
int parse_ints(const char *text, const char *option, const char *form, int count, int *out);
/* Parses --method's value: fft, direct or auto. */
int parse_method(const char *text, clx_method *method);
/* Parses a real number in [min, max]. */
int parse_double(const char *text, const char *option, double min, double max, double *out);
/* Parses --estimator's value: lsq, gauss3, parabola3 or centroid. */
int parse_estimator(const char *text, clx_estimator *estimator);
/* Parses --window-fn's value: none, hann, tukey or tukey:ALPHA. */
int parse_window_fn(const char *text, clx_window_fn *fn, double *alpha);

/* Parses --mode's value: accurate or seed. */
int parse_mode(const char *text, clx_mode *mode);

/* The window options of offsets, correlate and tune. */
struct window_options {
    const char *regions_path;              /* --regions FILE */
    int grid_nx, grid_ny, win_w, win_h;    /* --grid NXxNY, --window WxH */
    int margin;                            /* --margin M */
    int have_grid, have_window, have_margin;
};

/* Takes getopt's option c when it is one of them ('r', 'g', 'w', 'm'):
 * 1 taken, 0 not a window option, -1 after reporting a bad value. */
int parse_window_option(int c, const char *value, struct window_options *w);

/* The windows the options name: read from --regions, or the --grid in an
 * image of width x height. */
int window_options_regions(const struct window_options *w, int width, int height, clx_region **regions, size_t *n,
                           clx_message *msg);

/*
 * The window options agree: --regions or --grid, not both (one of them when
 * `required`; the message then says how), --window with --grid and --grid
 * with --window, --margin only with --grid. Reports the first problem and
 * returns -1.
 */
int check_window_options(int have_regions, int have_grid, int have_window, int have_margin, int required);

#endif
