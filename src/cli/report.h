/*
 * report.h - the command's messages on standard error ("clxcorr: error:
 * ..."), filtered by -q and -v, and its progress line.
 */
#ifndef CLX_REPORT_H
#define CLX_REPORT_H

#include <stddef.h>
#include "clxcorr.h"

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

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
/* The library's log callback (clx_log_fn): warnings and, with -v, detail
 * as lines; at the default verbosity on a terminal the INFO lines as one
 * transient status line that the next overwrites. */
void report_library_log(void *user, clx_log_level level, const char *line);
/* The log level for the library: the verbosity's, or INFO for the status
 * line where `status_line` asks for it and standard error is a terminal. */
clx_log_level report_library_level(int status_line);

/* A progress line, shown only when standard error is a terminal and not --quiet. */
struct progress_line {
    int enabled;
    size_t total;          /* 0 when unknown */
    double start;
    double last_draw;
};
void progress_start(struct progress_line *p, size_t total);
void progress_update(struct progress_line *p, size_t done);
void progress_finish(struct progress_line *p);
double now_seconds(void);

#endif
