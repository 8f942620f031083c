/* parse.c - option values (integers, "AxB" pairs, "A,B,..." lists, names)
 * with clear errors, and the window options' consistency. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

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

int parse_pair(const char *text, const char *option, int *a, int *b)
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

int parse_method(const char *text, clx_method *method)
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

int parse_estimator(const char *text, clx_estimator *estimator)
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

int parse_mode(const char *text, clx_mode *mode)
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

int parse_window_option(int c, const char *value, struct window_options *w)
{
    switch (c) {
    case 'r':
        w->regions_path = value;
        return 1;
    case 'g':
        w->have_grid = 1;
        return parse_pair(value, "--grid", &w->grid_nx, &w->grid_ny) ? -1 : 1;
    case 'w':
        w->have_window = 1;
        return parse_pair(value, "--window", &w->win_w, &w->win_h) ? -1 : 1;
    case 'm':
        w->have_margin = 1;
        return parse_int(value, "--margin", 0, 1 << 20, &w->margin) ? -1 : 1;
    }
    return 0;
}

int window_options_regions(const struct window_options *w, int width, int height, clx_region **regions, size_t *n,
                           clx_message *msg)
{
    return w->regions_path ? clx_regions_read(w->regions_path, regions, n, msg)
                           : clx_regions_grid(w->grid_nx, w->grid_ny, w->win_w, w->win_h, w->margin, width, height,
                                              regions, n, msg);
}

int check_window_options(int have_regions, int have_grid, int have_window, int have_margin, int required)
{
    if (have_regions && have_grid) {
        report_error("give either --regions or --grid, not both");
        return -1;
    }
    if (required && !have_regions && !have_grid) {
        report_error("no windows given: use --regions FILE or --grid NXxNY --window WxH");
        return -1;
    }
    if (have_grid != have_window) {
        report_error(have_grid ? "--grid needs --window WxH" : "--window is only used with --grid");
        return -1;
    }
    if (have_margin && !have_grid) {
        report_error("--margin is only used with --grid");
        return -1;
    }
    return 0;
}

int parse_window_fn(const char *text, clx_window_fn *fn, double *alpha)
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
