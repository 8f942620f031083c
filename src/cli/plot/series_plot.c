/* series_plot.c - dx and dy against the image index (see series_plot.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot/figure.h"
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
#define LINE 20                  /* from one line of text to the next */

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

/* A line one pixel wide: crisp where it runs along a half-pixel (y + 0.5). */
static void hairline(cairo_t *cr, double x0, double y0, double x1, double y1, struct rgb colour)
{
    figure_colour(cr, colour);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
}

static void draw_panel(cairo_t *cr, const struct panel *p, const char *name, int x_labels)
{
    char label[48];
    /* Grid and y ticks. */
    for (double v = ceil(p->ay.lo / p->ay.step) * p->ay.step; v <= p->ay.hi + 1e-9 * p->ay.step; v += p->ay.step) {
        double y = floor(to_y(p, v)) + 0.5;
        hairline(cr, p->x, y, p->x + p->w, y, grid_grey);
        hairline(cr, p->x - 5, y, p->x, y, FIGURE_INK);
        format_tick(label, sizeof label, v, p->ay.step);
        text_draw(cr, p->x - 9, y, TEXT_TICK, TEXT_RIGHT, TEXT_MIDDLE, label, FIGURE_INK);
    }
    /* Grid and x ticks. */
    for (double v = ceil(p->ax.lo / p->ax.step) * p->ax.step; v <= p->ax.hi + 1e-9 * p->ax.step; v += p->ax.step) {
        double x = floor(to_x(p, v)) + 0.5;
        hairline(cr, x, p->y, x, p->y + p->h, grid_grey);
        hairline(cr, x, p->y + p->h, x, p->y + p->h + 5, FIGURE_INK);
        if (x_labels) {
            format_tick(label, sizeof label, v, p->ax.step);
            text_draw(cr, x, p->y + p->h + 9, TEXT_TICK, TEXT_CENTRE, TEXT_TOP, label, FIGURE_INK);
        }
    }
    /* The zero line, where it is inside. */
    if (p->ay.lo < 0 && p->ay.hi > 0) {
        double y = floor(to_y(p, 0)) + 0.5;
        hairline(cr, p->x, y, p->x + p->w, y, (struct rgb){ 150, 150, 150 });
    }
    figure_frame(cr, p->x, p->y, p->w + 1, p->h + 1, FIGURE_INK);
    text_draw(cr, p->x, p->y - 8, TEXT_LABEL, TEXT_LEFT, TEXT_BASELINE, name, FIGURE_INK);
}

static struct rgb window_colour(const struct results_table *t, const struct series_options *o, size_t w)
{
    if (o->window >= 0)
        return category_colour(0);
    if (t->windows <= MAX_NAMED_WINDOWS)
        return category_colour(w);
    return colour_scale(t->windows > 1 ? (double)w / (t->windows - 1) : 0);
}

static void draw_lines(cairo_t *cr, const struct panel *p, const struct results_table *t, const double *values,
                       const struct series_options *o)
{
    int single = o->window >= 0;
    double width = single ? 2.5 : t->windows <= MAX_NAMED_WINDOWS ? 2 : 1.2;
    int marks = t->images <= 60 && (single || t->windows <= MAX_NAMED_WINDOWS);
    cairo_save(cr);
    cairo_rectangle(cr, p->x, p->y, p->w + 1, p->h + 1);
    cairo_clip(cr);
    cairo_set_line_width(cr, width);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (size_t w = 0; w < t->windows; w++) {
        if (!drawn(o, w))
            continue;
        figure_colour(cr, window_colour(t, o, w));
        /* One path per run of rows the file has: a NaN breaks the line. */
        int open = 0;
        for (size_t i = 0; i < t->images; i++) {
            double v = values[i * t->windows + w];
            if (!isfinite(v)) {
                open = 0;
                continue;
            }
            if (open)
                cairo_line_to(cr, to_x(p, (double)i), to_y(p, v));
            else
                cairo_move_to(cr, to_x(p, (double)i), to_y(p, v));
            open = 1;
        }
        cairo_stroke(cr);
        for (size_t i = 0; marks && i < t->images; i++) {
            double v = values[i * t->windows + w];
            if (isfinite(v)) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, to_x(p, (double)i), to_y(p, v), single ? 3.5 : 2.5, 0, 2 * M_PI);
            }
        }
        cairo_fill(cr);
    }
    cairo_restore(cr);
}

static void draw_legend(cairo_t *cr, int x, int y, int h, const struct results_table *t,
                        const struct series_options *o)
{
    char label[48];
    if (o->window >= 0)
        return;
    if (t->windows <= MAX_NAMED_WINDOWS) {
        for (size_t w = 0; w < t->windows; w++) {
            double ly = y + (double)w * LINE + 0.5 * LINE;
            figure_colour(cr, category_colour(w));
            cairo_set_line_width(cr, 3);
            cairo_move_to(cr, x, ly);
            cairo_line_to(cr, x + 26, ly);
            cairo_stroke(cr);
            snprintf(label, sizeof label, "window %zu", w);
            text_draw(cr, x + 34, ly, TEXT_TICK, TEXT_LEFT, TEXT_MIDDLE, label, FIGURE_INK);
        }
        return;
    }
    /* A colour bar from window 0 (bottom) to the last (top). */
    const int bar_w = 20;
    int top = y + LINE + 6, bar_h = h - (top - y);
    if (bar_h > 400)
        bar_h = 400;
    text_draw(cr, x, y, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, "window", FIGURE_INK);
    for (int j = 0; j < bar_h; j++) {
        figure_colour(cr, colour_scale(1 - (double)j / (bar_h - 1)));
        cairo_rectangle(cr, x, top + j, bar_w, 1);
        cairo_fill(cr);
    }
    figure_frame(cr, x - 1, top - 1, bar_w + 2, bar_h + 2, FIGURE_INK);
    size_t last = t->windows - 1, marks[3] = { 0, last / 2, last };
    for (int k = 0; k < 3; k++) {
        double ty = top + floor((bar_h - 1) * (1 - (double)marks[k] / last)) + 0.5;
        hairline(cr, x + bar_w + 1, ty, x + bar_w + 6, ty, FIGURE_INK);
        snprintf(label, sizeof label, "%zu", marks[k]);
        text_draw(cr, x + bar_w + 10, ty, TEXT_TICK, TEXT_LEFT, TEXT_MIDDLE, label, FIGURE_INK);
    }
}

int series_write_png(const char *path, const struct results_table *t, const struct series_options *o,
                     clx_message *msg)
{
    struct figure f;
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
    if ((status = figure_create(&f, width, height, msg)) != CLX_OK)
        return status;

    /* The image index axis, shared: whole steps only, and half an image
     * beyond the first and the last, so that their markers are not cut by
     * the frame. */
    struct axis ax = { -0.5, t->images - 0.5, 0 };
    ax.step = fmax(1, nice_step(ax.hi - ax.lo, 8));

    int top = MARGIN + TITLE_HEIGHT + LINE;
    int plot_x = MARGIN + AXIS_LABEL_WIDTH, plot_w = width - plot_x - LEGEND_WIDTH - 2 * MARGIN;
    int panel_h = (height - top - PANEL_GAP - X_LABELS_HEIGHT - MARGIN) / 2;
    struct panel upper = { plot_x, top, plot_w, panel_h, ax, value_axis(t, t->dx, o) };
    struct panel lower = { plot_x, top + panel_h + PANEL_GAP, plot_w, panel_h, ax, value_axis(t, t->dy, o) };

    draw_panel(f.cr, &upper, "dx (px)", 0);
    draw_panel(f.cr, &lower, "dy (px)", 1);
    draw_lines(f.cr, &upper, t, t->dx, o);
    draw_lines(f.cr, &lower, t, t->dy, o);
    text_draw(f.cr, plot_x + plot_w / 2.0, lower.y + lower.h + 28, TEXT_LABEL, TEXT_CENTRE, TEXT_TOP,
              "image (index in the results file)", FIGURE_INK);
    draw_legend(f.cr, plot_x + plot_w + MARGIN + 8, top, 2 * panel_h + PANEL_GAP, t, o);
    if (o->title)
        text_draw(f.cr, MARGIN, MARGIN, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, o->title, FIGURE_INK);
    status = figure_write_png(&f, path, msg);
    figure_free(&f);
    return status;
}
