/* cli.h - the clxcorr command: its exit statuses and its subcommands. */
#ifndef CLX_CLI_H
#define CLX_CLI_H

#include <stddef.h>
#include "clxcorr.h"

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
