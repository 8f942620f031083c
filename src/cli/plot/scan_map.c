/* scan_map.c - a scan drawn in a rectangle (see scan_map.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "plot/plot_numbers.h"
#include "plot/scan_map.h"

#define TICK_GAP 3               /* from a tick to its label */
#define TICK_LABEL_SPACING 120   /* room per x or y tick */

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

void scan_map_size(const struct scan_grid *g, int width, int target, int min_cell, int *map_w, int *map_h)
{
    /* A cell's height over its width: the steps' ratio. */
    double aspect = g->positioned ? g->step_y / g->step_x : 1;
    double rows = g->rows * aspect, cell;
    if (width > 0) {
        cell = (double)width / g->cols;
    } else {
        double longer = fmax((double)g->cols, rows);
        cell = fmax(min_cell, target / longer);
        if (cell * longer > MAP_MAX_SIDE)
            cell = MAP_MAX_SIDE / longer;
        /* Whole pixels: every cell of one size. */
        if (cell >= 1)
            cell = floor(cell);
    }
    if (rows * cell > MAP_MAX_HEIGHT)
        cell = MAP_MAX_HEIGHT / rows;
    /* A line scan's cells are drawn taller (or wider) than their step, so
     * that its map is a band, not a hairline. */
    *map_w = max_int((int)lround(g->cols * cell), MAP_MIN_SIDE);
    *map_h = max_int((int)lround(rows * cell), MAP_MIN_SIDE);
}

/* n cells along an axis of `pixels`: in µm from `origin` by `step` when
 * positioned, else in indices. */
static struct map_axis make_axis(size_t n, int positioned, double origin, double step, const char *name, int pixels)
{
    if (!positioned) {
        origin = 0;
        step = 1;
    }
    struct map_axis a = { origin - step / 2, origin + (n - 0.5) * step, origin, origin + (n - 1.0) * step, 1, name };
    /* About a tick per TICK_LABEL_SPACING, but at least 3 intervals: a
     * tensor panel's short axis still reads. */
    int ticks = pixels / TICK_LABEL_SPACING;
    a.step = nice_step(a.last - a.first, ticks < 3 ? 3 : ticks > 8 ? 8 : ticks);
    /* Indices are whole. */
    if (!positioned && a.step < 1)
        a.step = 1;
    return a;
}

void scan_map_axes(const struct scan_grid *g, int w, int h, struct map_axis *ax, struct map_axis *ay)
{
    *ax = make_axis(g->cols, g->positioned, g->x0, g->step_x, g->positioned ? "x (\xc2\xb5m)" : "scan column", w);
    *ay = make_axis(g->rows, g->positioned, g->y0, g->step_y, g->positioned ? "y (\xc2\xb5m)" : "scan row", h);
    /* Both in µm, on one scale of pixels per µm: one tick step across and
     * down (the coarser, which both axes have room for). */
    if (g->positioned)
        ax->step = ay->step = fmax(ax->step, ay->step);
}

/* The whole multiples of step within [lo, hi]: first and last k. */
static void tick_range(const struct map_axis *a, long *first, long *last)
{
    *first = (long)ceil(a->first / a->step - 1e-9);
    *last = (long)floor(a->last / a->step + 1e-9);
}

int scan_axis_label_width(const struct map_axis *a)
{
    char label[48];
    long first, last;
    double widest = 0;
    tick_range(a, &first, &last);
    for (long k = first; k <= last; k++) {
        format_tick(label, sizeof label, k * a->step, a->step);
        widest = fmax(widest, text_width(TEXT_TICK, label));
    }
    return (int)ceil(widest);
}

int scan_axis_x_height(void)
{
    return 1 + MAP_TICK + TICK_GAP + (int)ceil(text_cap_height(TEXT_TICK));
}

void scan_map_cells(struct figure *f, int x, int y, int w, int h, const struct scan_grid *g, const struct map_scale *s)
{
    figure_pixels_begin(f);
    for (int j = 0; j < h; j++) {
        size_t row = (size_t)((j + 0.5) * g->rows / h);
        for (int i = 0; i < w; i++) {
            size_t col = (size_t)((i + 0.5) * g->cols / w);
            figure_pixel_set(f, x + i, y + j, map_colour(s, g->values[row * g->cols + col]));
        }
    }
    figure_pixels_end(f);
    figure_frame(f->cr, x - 1, y - 1, w + 2, h + 2, FIGURE_INK);
}

/* Whether points a and b belong to different grains. */
static int differ(const struct scan_grid *g, size_t a, size_t b)
{
    return isfinite(g->values[a]) && isfinite(g->values[b]) && g->values[a] != g->values[b];
}

void scan_map_boundaries(cairo_t *cr, int x, int y, int w, int h, const struct scan_grid *g)
{
    double cw = (double)w / g->cols, ch = (double)h / g->rows;
    /* As thick as the cells allow: a line of a few pixels on large cells,
     * not wider than a third of a small one. */
    double width = fmin(2.5, fmax(1, fmin(cw, ch) / 3));
    cairo_save(cr);
    for (size_t r = 0; r < g->rows; r++)
        for (size_t c = 0; c < g->cols; c++) {
            size_t p = r * g->cols + c;
            if (c + 1 < g->cols && differ(g, p, p + 1)) {
                cairo_move_to(cr, x + (c + 1) * cw, y + r * ch);
                cairo_line_to(cr, x + (c + 1) * cw, y + (r + 1) * ch);
            }
            if (r + 1 < g->rows && differ(g, p, p + g->cols)) {
                cairo_move_to(cr, x + c * cw, y + (r + 1) * ch);
                cairo_line_to(cr, x + (c + 1) * cw, y + (r + 1) * ch);
            }
        }
    /* Square ends: where a boundary turns, its two segments meet in a
     * corner, not a notch. */
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
    cairo_set_line_width(cr, width);
    figure_colour(cr, FIGURE_INK);
    cairo_stroke(cr);
    cairo_restore(cr);
}

void scan_map_x_ticks(cairo_t *cr, const struct map_axis *a, int x, int y, int w, int h, int labels)
{
    char label[48];
    long first, last;
    int below = y + h + 1;
    tick_range(a, &first, &last);
    cairo_save(cr);
    cairo_set_line_width(cr, 1);
    figure_colour(cr, FIGURE_INK);
    for (long k = first; k <= last; k++) {
        int at = x + (int)floor((k * a->step - a->lo) / (a->hi - a->lo) * w);
        cairo_move_to(cr, at + 0.5, below);
        cairo_line_to(cr, at + 0.5, below + MAP_TICK);
        cairo_stroke(cr);
        if (labels) {
            format_tick(label, sizeof label, k * a->step, a->step);
            text_draw(cr, at + 0.5, below + MAP_TICK + TICK_GAP, TEXT_TICK, TEXT_CENTRE, TEXT_TOP, label, FIGURE_INK);
        }
    }
    cairo_restore(cr);
}

void scan_map_y_ticks(cairo_t *cr, const struct map_axis *a, int x, int y, int h, int labels)
{
    char label[48];
    long first, last;
    int left = x - 1;
    tick_range(a, &first, &last);
    cairo_save(cr);
    cairo_set_line_width(cr, 1);
    figure_colour(cr, FIGURE_INK);
    for (long k = first; k <= last; k++) {
        int at = y + (int)floor((k * a->step - a->lo) / (a->hi - a->lo) * h);
        cairo_move_to(cr, left, at + 0.5);
        cairo_line_to(cr, left - MAP_TICK, at + 0.5);
        cairo_stroke(cr);
        if (labels) {
            format_tick(label, sizeof label, k * a->step, a->step);
            text_draw(cr, left - MAP_TICK - TICK_GAP, at + 0.5, TEXT_TICK, TEXT_RIGHT, TEXT_MIDDLE, label,
                      FIGURE_INK);
        }
    }
    cairo_restore(cr);
}
