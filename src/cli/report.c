/* report.c - the command's messages on standard error, and its progress line. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

/*
 * Static, as standard error is one per process: the verbosity and silence
 * are set from the command line and the MPI rank before any thread starts,
 * then only read. last_error stays here rather than in a run because
 * errors are reported from every part of the command, most of which know
 * no run, while two places need the one that ended it (a rank's failed
 * set-up sent to rank 0, --meta's error); report_error runs on the main
 * thread alone (lanes and loaders hand their errors back in a clx_message).
 */
static int verbosity = 1;
static int silent;              /* not even errors: an MPI rank other than 0 */
static char last_error[512];    /* for a rank that sends its error to rank 0, and --meta */
static int status_shown;        /* a transient status line is on the terminal (report_library_log) */

/* Clears the transient status line, if one is shown. */
static void status_clear(void)
{
    if (status_shown)
        fputs("\r\033[K", stderr);
    status_shown = 0;
}

/* Whether the library's INFO lines are shown as a transient status line:
 * on a terminal, at the default verbosity. */
static int status_lines(void)
{
    return verbosity == 1 && !silent && isatty(STDERR_FILENO);
}

void report_set_verbosity(int level)
{
    verbosity = level;
}

int report_verbosity(void)
{
    return verbosity;
}

void report_set_silent(int on)
{
    silent = on;
}

const char *report_last_error(void)
{
    return last_error;
}

static void vreport(const char *kind, const char *fmt, va_list ap)
{
    if (silent)
        return;
    status_clear();
    fprintf(stderr, "clxcorr: %s", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void report_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    vreport("error: ", fmt, ap);
    va_end(ap);
}

void report_warning(const char *fmt, ...)
{
    va_list ap;
    if (verbosity < 1)
        return;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

void report_note(const char *fmt, ...)
{
    va_list ap;
    if (verbosity < 1)
        return;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
}

void report_bad_option(const char *command, int what, const char *word)
{
    if (what == ':')
        report_error("%s: option '%s' needs a value (see clxcorr %s --help)", command, word, command);
    else
        report_error("%s: unknown option '%s' (see clxcorr %s --help)", command, word, command);
}

void report_info(const char *fmt, ...)
{
    va_list ap;
    if (verbosity < 2)
        return;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
}

clx_log_level report_library_level(int status_line)
{
    /* On a terminal the INFO lines (the device, what is compiled, the
     * method) show one at a time while a run prepares, so that a first
     * run, slower for its compilations, says why. */
    if (status_line && status_lines()) {
        static int registered;
        if (!registered && atexit(status_clear) == 0)
            registered = 1;
        return CLX_LOG_INFO;
    }
    return verbosity >= 3 ? CLX_LOG_DEBUG : verbosity == 2 ? CLX_LOG_INFO : CLX_LOG_WARNING;
}

void report_library_log(void *user, clx_log_level level, const char *line)
{
    (void)user;
    if (level == CLX_LOG_WARNING && verbosity < 1)
        return;
    if (level == CLX_LOG_INFO && verbosity < 2) {
        /* The transient status line: cut to the terminal's width, so that
         * the next one (or the progress line) overwrites all of it. */
        struct winsize ws;
        int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col - 1 : 79;
        fprintf(stderr, "\rclxcorr: %.*s\033[K", width - 9, line);
        fflush(stderr);
        status_shown = 1;
        return;
    }
    status_clear();
    fprintf(stderr, "clxcorr: %s%s\n", level == CLX_LOG_WARNING ? "warning: " : "", line);
}

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void progress_start(struct progress_line *p, size_t total)
{
    p->enabled = !silent && verbosity >= 1 && isatty(STDERR_FILENO);
    p->total = total;
    p->start = now_seconds();
    p->last_draw = 0;
}

void progress_update(struct progress_line *p, size_t done)
{
    double t = now_seconds();
    if (!p->enabled || (t - p->last_draw < 0.25 && done != p->total))
        return;
    p->last_draw = t;
    double rate = done / (t - p->start > 1e-9 ? t - p->start : 1e-9);
    if (p->total > 0) {
        double eta = rate > 0 ? (p->total - done) / rate : 0;
        fprintf(stderr, "\rclxcorr: %zu/%zu images, %.1f images/s, ETA %d:%02d\033[K", done, p->total, rate,
                (int)eta / 60, (int)eta % 60);
    } else {
        fprintf(stderr, "\rclxcorr: %zu images, %.1f images/s\033[K", done, rate);
    }
    status_shown = 0;
    fflush(stderr);
}

void progress_finish(struct progress_line *p)
{
    if (p->enabled && p->last_draw > 0)
        fprintf(stderr, "\r\033[K");
    status_clear();
}
