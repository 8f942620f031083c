/* series_plot.c - dx and dy against the image index (see series_plot.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot/canvas.h"
#include "plot/plot_colours.h"
#include "plot/plot_numbers.h"
#include "plot/series_plot.h"

#define MARGIN 16
#define TITLE_HEIGHT 30
#define AXIS_LABEL_WIDTH 84      /* room for the y tick labels */
#define X_LABELS_HEIGHT 46       /* the x tick labels and "image index" */
#define PANEL_GAP 40             /* between the panels: the lower panel's name */
#define LEGEND_WIDTH 150
#define MAX_NAMED_WINDOWS 10     /* more get the colour scale, not names */
#define TEXT 2                   /* text scale: the 5 x 7 font at 10 x 14 */

static const struct rgb white = { 255, 255, 255 };
static const struct rgb ink = { 20, 20, 20 };
static const struct rgb grid_grey = { 225, 225, 225 };

/* A value range and its tick step. */
struct axis {
    double lo, hi, step;
};

/* A panel: where it is and what its axes span. */
struct panel {
    int x, y, w, h;
    struct axis ax, ay;
};

static double to_x(const struct panel *p, double v)
{
    return p->x + (v - p->ax.lo) / (p->ax.hi - p->ax.lo) * p->w;
}

static double to_y(const struct panel *p, double v)
{
    return p->y + p->h - (v - p->ay.lo) / (p->ay.hi - p->ay.lo) * p->h;
}

int series_height(int width)
{
    return (int)lround(0.72 * (width ? width : SERIES_DEFAULT_WIDTH));
}

static int drawn(const struct series_options *o, size_t window)
{
    return o->window < 0 || (size_t)o->window == window;
}

/* The y axis of one quantity (dx or dy) over the drawn windows: the data's
 * range grown by 5 % each way, at least 0.1 px wide, with round ticks. */
static struct axis value_axis(const struct results_table *t, const double *values, const struct series_options *o)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < t->images; i++)
        for (size_t w = 0; w < t->windows; w++)
            if (drawn(o, w) && isfinite(values[i * t->windows + w])) {
                lo = fmin(lo, values[i * t->windows + w]);
                hi = fmax(hi, values[i * t->windows + w]);
            }
    if (!isfinite(lo)) {
        lo = -1;
        hi = 1;
    }
    double pad = fmax(0.05 * (hi - lo), 0.05);
    struct axis a = { lo - pad, hi + pad, 0 };
    a.step = nice_step(a.hi - a.lo, 5);
    return a;
}

static void draw_panel(struct canvas *c, const struct panel *p, const char *name, int x_labels)
{
    char label[32];
    /* Grid and y ticks. */
    for (double v = ceil(p->ay.lo / p->ay.step) * p->ay.step; v <= p->ay.hi + 1e-9 * p->ay.step; v += p->ay.step) {
        int y = (int)lround(to_y(p, v));
        canvas_fill_rect(c, p->x, y, p->w, 1, grid_grey);
        canvas_fill_rect(c, p->x - 5, y, 5, 1, ink);
        format_number(label, sizeof label, v, p->ay.step);
        canvas_text(c, p->x - 9 - canvas_text_width(label, TEXT), y - canvas_text_height(TEXT) / 2, TEXT, label, ink);
    }
    /* Grid and x ticks. */
    for (double v = ceil(p->ax.lo / p->ax.step) * p->ax.step; v <= p->ax.hi + 1e-9 * p->ax.step; v += p->ax.step) {
        int x = (int)lround(to_x(p, v));
        canvas_fill_rect(c, x, p->y, 1, p->h, grid_grey);
        canvas_fill_rect(c, x, p->y + p->h, 1, 5, ink);
        if (x_labels) {
            format_number(label, sizeof label, v, p->ax.step);
            canvas_text(c, x - canvas_text_width(label, TEXT) / 2, p->y + p->h + 9, TEXT, label, ink);
        }
    }
    /* The zero line, where it is inside. */
    if (p->ay.lo < 0 && p->ay.hi > 0)
        canvas_fill_rect(c, p->x, (int)lround(to_y(p, 0)), p->w, 1, (struct rgb){ 150, 150, 150 });
    canvas_frame_rect(c, p->x, p->y, p->w + 1, p->h + 1, ink);
    canvas_text(c, p->x, p->y - canvas_text_height(TEXT) - 6, TEXT, name, ink);
}

static struct rgb window_colour(const struct results_table *t, const struct series_options *o, size_t w)
{
    if (o->window >= 0)
        return category_colour(0);
    if (t->windows <= MAX_NAMED_WINDOWS)
        return category_colour(w);
    return colour_scale(t->windows > 1 ? (double)w / (t->windows - 1) : 0);
}

static void draw_lines(struct canvas *c, const struct panel *p, const struct results_table *t, const double *values,
                       const struct series_options *o)
{
    int single = o->window >= 0;
    double width = single ? 2.5 : t->windows <= MAX_NAMED_WINDOWS ? 2 : 1.2;
    int marks = t->images <= 60 && (single || t->windows <= MAX_NAMED_WINDOWS);
    for (size_t w = 0; w < t->windows; w++) {
        if (!drawn(o, w))
            continue;
        struct rgb colour = window_colour(t, o, w);
        for (size_t i = 0; i < t->images; i++) {
            double v = values[i * t->windows + w];
            if (!isfinite(v))
                continue;
            double x = to_x(p, (double)i), y = to_y(p, v);
            if (i + 1 < t->images && isfinite(values[(i + 1) * t->windows + w]))
                canvas_line(c, x, y, to_x(p, (double)(i + 1)), to_y(p, values[(i + 1) * t->windows + w]), width,
                            colour);
            if (marks)
                canvas_disc(c, x, y, single ? 3.5 : 2.5, colour);
        }
    }
}

static void draw_legend(struct canvas *c, int x, int y, int h, const struct results_table *t,
                        const struct series_options *o)
{
    char label[48];
    if (o->window >= 0)
        return;
    if (t->windows <= MAX_NAMED_WINDOWS) {
        for (size_t w = 0; w < t->windows; w++) {
            int ly = y + (int)w * (canvas_text_height(TEXT) + 10);
            canvas_line(c, x, ly + 7, x + 26, ly + 7, 3, category_colour(w));
            snprintf(label, sizeof label, "window %zu", w);
            canvas_text(c, x + 34, ly, TEXT, label, ink);
        }
        return;
    }
    /* A colour bar from window 0 (bottom) to the last (top). */
    const int bar_w = 22;
    int top = y + canvas_text_height(TEXT) + 10, bar_h = h - (top - y);
    if (bar_h > 400)
        bar_h = 400;
    canvas_text(c, x, y, TEXT, "window", ink);
    for (int j = 0; j < bar_h; j++)
        canvas_fill_rect(c, x, top + j, bar_w, 1, colour_scale(1 - (double)j / (bar_h - 1)));
    canvas_frame_rect(c, x - 1, top - 1, bar_w + 2, bar_h + 2, ink);
    size_t last = t->windows - 1, marks[3] = { 0, last / 2, last };
    for (int k = 0; k < 3; k++) {
        int ty = top + (int)lround((bar_h - 1) * (1 - (double)marks[k] / last));
        canvas_fill_rect(c, x + bar_w, ty, 6, 1, ink);
        snprintf(label, sizeof label, "%zu", marks[k]);
        canvas_text(c, x + bar_w + 10, ty - canvas_text_height(TEXT) / 2, TEXT, label, ink);
    }
}

int series_write_png(const char *path, const struct results_table *t, const struct series_options *o,
                     clx_message *msg)
{
    struct canvas c;
    int width = o->width ? o->width : SERIES_DEFAULT_WIDTH, height = series_height(width);
    int status;

    msg->text[0] = '\0';
    if (width < 400 || width > 8192) {
        snprintf(msg->text, sizeof msg->text, "picture width %d: from 400 to 8192 pixels", width);
        return CLX_ERR_ARGUMENT;
    }
    if (o->window >= 0 && (size_t)o->window >= t->windows) {
        snprintf(msg->text, sizeof msg->text, "window %ld: the results have windows 0 to %zu", o->window,
                 t->windows - 1);
        return CLX_ERR_ARGUMENT;
    }
    if ((status = canvas_create(&c, width, height, white, msg)) != CLX_OK)
        return status;

    /* The image index axis, shared: whole steps only. */
    struct axis ax = { -0.5, t->images - 0.5, 0 };
    if (t->images > 1) {
        ax.lo = 0;
        ax.hi = (double)(t->images - 1);
    }
    ax.step = fmax(1, nice_step(ax.hi - ax.lo, 8));

    int top = MARGIN + TITLE_HEIGHT + canvas_text_height(TEXT) + 6;
    int plot_x = MARGIN + AXIS_LABEL_WIDTH, plot_w = width - plot_x - LEGEND_WIDTH - 2 * MARGIN;
    int panel_h = (height - top - PANEL_GAP - X_LABELS_HEIGHT - MARGIN) / 2;
    struct panel upper = { plot_x, top, plot_w, panel_h, ax, value_axis(t, t->dx, o) };
    struct panel lower = { plot_x, top + panel_h + PANEL_GAP, plot_w, panel_h, ax, value_axis(t, t->dy, o) };

    draw_panel(&c, &upper, "dx (px)", 0);
    draw_panel(&c, &lower, "dy (px)", 1);
    draw_lines(&c, &upper, t, t->dx, o);
    draw_lines(&c, &lower, t, t->dy, o);
    const char *xname = "image (index in the results file)";
    canvas_text(&c, plot_x + (plot_w - canvas_text_width(xname, TEXT)) / 2, lower.y + lower.h + 30, TEXT, xname, ink);
    draw_legend(&c, plot_x + plot_w + MARGIN + 8, top, 2 * panel_h + PANEL_GAP, t, o);
    if (o->title)
        canvas_text(&c, MARGIN, MARGIN, TEXT, o->title, ink);
    status = canvas_write_png(&c, path, msg);
    canvas_free(&c);
    return status;
}
