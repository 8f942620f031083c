/* map_plot.c - the scan map (see map_plot.h for what it shows). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/bitmap_font.h"
#include "plot/canvas.h"
#include "plot/map_plot.h"
#include "plot/plot_colours.h"
#include "plot/plot_numbers.h"

#define MARGIN 16
#define TEXT 2                  /* text scale: the 5 x 7 font at 10 x 14 */
#define LINE 22                 /* from one line of text to the next */
#define TICK 5
#define BAR_W 22
#define TRIANGLE_H 14           /* the bar's clipping triangles */
#define MIN_BAR_H 160
#define MAX_BAR_H 400
#define MIN_PICTURE_WIDTH 480   /* room for the title when the map is narrow */
#define MAX_TEXT_LINES 6
#define TEXT_LINE_LEN 256

static const struct rgb white = { 255, 255, 255 };
static const struct rgb ink = { 20, 20, 20 };

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* ---- columns and scales --------------------------------------------------------- */

const char *map_column_unit(const char *column)
{
    if (!strcmp(column, "dx") || !strcmp(column, "dy") || !strcmp(column, "x") || !strcmp(column, "y") ||
        !strcmp(column, "speed") || !strcmp(column, "sigma_dx") || !strcmp(column, "sigma_dy"))
        return "px";
    if (!strcmp(column, "scan_x") || !strcmp(column, "scan_y"))
        return "\xc2\xb5m";
    /* The rotation vector's components w1, w2, w3. */
    if (column[0] == 'w' && column[1] >= '1' && column[1] <= '3' && column[2] == '\0')
        return "rad";
    return "";
}

/* Quantities signed by their nature, whatever the values of one map: the
 * offsets, their gradients and strains (dudx ... dvdy, exx, eyy, exy), the
 * strain tensor's components e11 ... e33 and the rotations. */
static int column_signed(const char *column)
{
    static const char *const offsets[] = { "dx", "dy", "dudx", "dudy", "dvdx", "dvdy", "exx", "eyy", "exy" };
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        if (!strcmp(column, offsets[i]))
            return 1;
    if (column[0] == 'e' && column[1] >= '1' && column[1] <= '3' && column[2] >= '1' && column[2] <= '3' &&
        column[3] == '\0')
        return 1;
    return column[0] == 'w' && column[1] >= '1' && column[1] <= '3' && column[2] == '\0';
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..1) of n sorted values: the smallest
 * value with at least p n values at or below it. With fewer than 100
 * points the 1st and 99th are the extremes, so that a small map is not
 * clipped. */
static double percentile(const double *sorted, size_t n, double p)
{
    double rank = ceil(p * n - 1e-9);
    size_t i = rank < 1 ? 0 : (size_t)rank - 1;
    return sorted[i < n ? i : n - 1];
}

/* Limits from the values (sorted, n > 0): robust, symmetric when diverging,
 * and never empty. */
static void automatic_limits(const double *sorted, size_t n, struct map_scale *s)
{
    s->lo = percentile(sorted, n, 0.01);
    s->hi = percentile(sorted, n, 0.99);
    if (s->diverging) {
        double reach = fmax(fabs(s->lo), fabs(s->hi));
        s->lo = -reach;
        s->hi = reach;
    }
    if (!(s->hi > s->lo)) {
        /* One value everywhere: a band around it (around 0, of +-1). */
        double half = fabs(s->hi) > 0 ? 0.1 * fabs(s->hi) : 1;
        s->lo -= half;
        s->hi += half;
    }
}

int map_scale_choose(const double *values, size_t count, const struct map_options *o, struct map_scale *s)
{
    double *sorted = malloc((count ? count : 1) * sizeof *sorted);
    size_t n = 0;
    memset(s, 0, sizeof *s);
    if (!sorted)
        return CLX_ERR_HOST_MEMORY;
    for (size_t i = 0; i < count; i++)
        if (isfinite(values[i]))
            sorted[n++] = values[i];
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    int both_signs = n > 0 && sorted[0] < 0 && sorted[n - 1] > 0;
    s->diverging = o->scale == MAP_SCALE_DIVERGING ||
                   (o->scale == MAP_SCALE_AUTO && (column_signed(o->column) || both_signs));
    if (o->fixed_range) {
        s->fixed = 1;
        s->lo = o->lo;
        s->hi = o->hi;
    } else if (n > 0) {
        automatic_limits(sorted, n, s);
    } else {
        s->lo = s->diverging ? -1 : 0;
        s->hi = 1;
    }
    /* Infinities (peak_ratio's inf) take no part in the limits, but lie
     * beyond them: their end's colour, and its triangle on the bar. */
    for (size_t i = 0; i < count; i++) {
        s->below += !isnan(values[i]) && values[i] < s->lo;
        s->above += !isnan(values[i]) && values[i] > s->hi;
    }
    free(sorted);
    return CLX_OK;
}

struct rgb map_colour(const struct map_scale *s, double v)
{
    if (isnan(v))
        return MAP_NO_VALUE;
    double t = (v - s->lo) / (s->hi - s->lo);
    return s->diverging ? diverging_colour(t) : colour_scale(t);
}

/* ---- layout ---------------------------------------------------------------------- */

void map_size(const struct scan_grid *g, int width, int *map_w, int *map_h)
{
    /* A cell's height over its width: the steps' ratio. */
    double aspect = g->positioned ? g->step_y / g->step_x : 1;
    double rows = g->rows * aspect, cell;
    if (width > 0) {
        cell = (double)width / g->cols;
    } else {
        double longer = fmax((double)g->cols, rows);
        cell = fmax(MAP_MIN_CELL, MAP_TARGET_SIDE / longer);
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

/* A map axis: the values at the map's two edges, the first and last
 * points' (where the ticks go), a tick step, a name. */
struct map_axis {
    double lo, hi, first, last, step;
    const char *name;
};

/* n cells along an axis of `pixels`: in µm from `origin` by `step` when
 * positioned, else in indices. */
static struct map_axis make_axis(size_t n, int positioned, double origin, double step, const char *name, int pixels)
{
    if (!positioned) {
        origin = 0;
        step = 1;
    }
    struct map_axis a = { origin - step / 2, origin + (n - 0.5) * step, origin, origin + (n - 1.0) * step, 1, name };
    int ticks = pixels / 120;
    a.step = nice_step(a.last - a.first, ticks < 2 ? 2 : ticks > 8 ? 8 : ticks);
    /* Indices are whole. */
    if (!positioned && a.step < 1)
        a.step = 1;
    return a;
}

/* The whole multiples of step within [lo, hi]: first and last k. */
static void tick_range(double lo, double hi, double step, long *first, long *last)
{
    *first = (long)ceil(lo / step - 1e-9);
    *last = (long)floor(hi / step + 1e-9);
}

static int widest_tick_label(double lo, double hi, double step)
{
    char label[32];
    long first, last;
    int widest = 0;
    tick_range(lo, hi, step, &first, &last);
    for (long k = first; k <= last; k++) {
        format_number(label, sizeof label, k * step, step);
        widest = max_int(widest, canvas_text_width(label, TEXT));
    }
    return widest;
}

struct text_lines {
    char line[MAX_TEXT_LINES][TEXT_LINE_LEN];
    int count;
};

/* How many bytes of s fit in `width` pixels: at a space where one fits,
 * else as many as fit (at least one). */
static size_t fitting_bytes(const char *s, int width)
{
    char head[TEXT_LINE_LEN];
    size_t n = strlen(s), take = 0, at_space = 0;
    for (size_t k = 1; k <= n && k < TEXT_LINE_LEN; k++) {
        snprintf(head, sizeof head, "%.*s", (int)k, s);
        if (canvas_text_width(head, TEXT) > width)
            break;
        take = k;
        if (s[k] == ' ' || s[k] == '\0')
            at_space = k;
    }
    if (take == 0)
        return 1;
    return take < n && at_space > 0 ? at_space : take;
}

/* Adds a piece of text: after the last line's text when `join` and it
 * fits, else on lines of its own, broken at spaces (or within a word too
 * long for a line, such as a file name). */
static void add_piece(struct text_lines *out, const char *piece, int join, int width)
{
    if (join && out->count > 0) {
        char *line = out->line[out->count - 1];
        size_t used = strlen(line);
        if (used + 1 + strlen(piece) < TEXT_LINE_LEN &&
            canvas_text_width(line, TEXT) + (FONT_ADVANCE + 1) * TEXT + canvas_text_width(piece, TEXT) <= width) {
            line[used] = ' ';
            strcpy(line + used + 1, piece);
            return;
        }
    }
    while (*piece && out->count < MAX_TEXT_LINES) {
        size_t n = fitting_bytes(piece, width);
        snprintf(out->line[out->count++], TEXT_LINE_LEN, "%.*s", (int)n, piece);
        for (piece += n; *piece == ' '; piece++)
            ;
    }
}

/* Adds a statement to the lines, starting a line, broken after its ", "
 * where a line would be wider than `width` pixels. */
static void wrap_text(const char *text, int width, struct text_lines *out)
{
    char piece[TEXT_LINE_LEN];
    for (int first = 1; *text; first = 0) {
        const char *end = strstr(text, ", ");
        size_t n = end ? (size_t)(end - text) + 1 : strlen(text);
        snprintf(piece, sizeof piece, "%.*s", (int)n, text);
        text += end ? n + 1 : n;
        add_piece(out, piece, !first, width);
    }
}

struct map_layout {
    int map_x, map_y, map_w, map_h;
    int legend_x, bar_y, bar_h, no_value_y;
    int caption_y;
    int width, height;
    struct map_axis ax, ay;
    struct text_lines title, caption;
};

/* Where everything goes: across first (the map, its y labels, the legend),
 * then down (the title, wrapped to the width, the map, the caption). */
static void make_layout(const struct scan_grid *g, const struct map_options *o, const struct map_scale *s,
                        const char *bar_label, const char *caption[2], struct map_layout *l)
{
    memset(l, 0, sizeof *l);
    map_size(g, o->width, &l->map_w, &l->map_h);
    l->ax = make_axis(g->cols, g->positioned, g->x0, g->step_x, g->positioned ? "x (\xc2\xb5m)" : "scan column",
                      l->map_w);
    l->ay = make_axis(g->rows, g->positioned, g->y0, g->step_y, g->positioned ? "y (\xc2\xb5m)" : "scan row",
                      l->map_h);
    l->map_x = MARGIN + FONT_HEIGHT * TEXT + 10 + widest_tick_label(l->ay.first, l->ay.last, l->ay.step) + TICK + 4;
    l->legend_x = l->map_x + l->map_w + 28;
    int bar_labels = widest_tick_label(s->lo, s->hi, nice_step(s->hi - s->lo, 5));
    int legend_w = max_int(canvas_text_width(bar_label, TEXT),
                           BAR_W + 10 + max_int(bar_labels, canvas_text_width("no value", TEXT)));
    l->width = max_int(l->legend_x + legend_w + MARGIN, MIN_PICTURE_WIDTH);

    if (o->title)
        wrap_text(o->title, l->width - 2 * MARGIN, &l->title);
    for (int k = 0; k < 2; k++)
        if (caption[k][0])
            wrap_text(caption[k], l->width - 2 * MARGIN, &l->caption);
    l->map_y = MARGIN + l->title.count * LINE + (l->title.count ? 6 : 0);
    l->bar_y = l->map_y + LINE + TRIANGLE_H + 4;
    l->bar_h = l->map_y + l->map_h - TRIANGLE_H - 4 - l->bar_y;
    l->bar_h = l->bar_h < MIN_BAR_H ? MIN_BAR_H : l->bar_h > MAX_BAR_H ? MAX_BAR_H : l->bar_h;
    l->no_value_y = l->bar_y + l->bar_h + TRIANGLE_H + 12;
    int legend_bottom = l->no_value_y + (g->points_with_value < g->rows * g->cols ? LINE : 0);
    int axis_bottom = l->map_y + l->map_h + TICK + 4 + 2 * LINE;
    l->caption_y = max_int(legend_bottom, axis_bottom) + 10;
    l->height = l->caption_y + l->caption.count * LINE + MARGIN - 8;
}

/* ---- drawing --------------------------------------------------------------------- */

static void draw_cells(struct canvas *c, const struct map_layout *l, const struct scan_grid *g,
                       const struct map_scale *s)
{
    for (int j = 0; j < l->map_h; j++) {
        size_t row = (size_t)((j + 0.5) * g->rows / l->map_h);
        for (int i = 0; i < l->map_w; i++) {
            size_t col = (size_t)((i + 0.5) * g->cols / l->map_w);
            canvas_blend(c, l->map_x + i, l->map_y + j, map_colour(s, g->values[row * g->cols + col]), 1);
        }
    }
    canvas_frame_rect(c, l->map_x - 1, l->map_y - 1, l->map_w + 2, l->map_h + 2, ink);
}

/* The ticks, their labels and the name of the x axis (under the map) and of
 * the y axis (left of it, reading upwards; y grows downwards, as the scan's
 * rows). */
static void draw_axes(struct canvas *c, const struct map_layout *l)
{
    char label[32];
    long first, last;
    const struct map_axis *ax = &l->ax, *ay = &l->ay;
    int below = l->map_y + l->map_h + 1;
    tick_range(ax->first, ax->last, ax->step, &first, &last);
    for (long k = first; k <= last; k++) {
        int x = l->map_x + (int)lround((k * ax->step - ax->lo) / (ax->hi - ax->lo) * l->map_w);
        canvas_fill_rect(c, x, below, 1, TICK, ink);
        format_number(label, sizeof label, k * ax->step, ax->step);
        canvas_text(c, x - canvas_text_width(label, TEXT) / 2, below + TICK + 4, TEXT, label, ink);
    }
    canvas_text(c, l->map_x + (l->map_w - canvas_text_width(ax->name, TEXT)) / 2, below + TICK + 4 + LINE, TEXT,
                ax->name, ink);
    tick_range(ay->first, ay->last, ay->step, &first, &last);
    for (long k = first; k <= last; k++) {
        int y = l->map_y + (int)lround((k * ay->step - ay->lo) / (ay->hi - ay->lo) * l->map_h);
        canvas_fill_rect(c, l->map_x - 1 - TICK, y, TICK, 1, ink);
        format_number(label, sizeof label, k * ay->step, ay->step);
        canvas_text(c, l->map_x - TICK - 5 - canvas_text_width(label, TEXT), y - canvas_text_height(TEXT) / 2, TEXT,
                    label, ink);
    }
    int name_len = canvas_text_width(ay->name, TEXT);
    int name_bottom = l->map_y + (l->map_h + name_len) / 2;
    canvas_text_up(c, MARGIN, max_int(name_bottom, l->map_y + name_len), TEXT, ay->name, ink);
}

/* A triangle on the bar's end at y (pointing up when `up`), in the colour
 * of the values beyond that end. */
static void draw_end_triangle(struct canvas *c, int x, int y, int up, struct rgb colour)
{
    double tip = up ? y - TRIANGLE_H : y + TRIANGLE_H;
    double tx[3] = { x, x + BAR_W, x + BAR_W / 2.0 }, ty[3] = { y, y, tip };
    canvas_triangle(c, tx, ty, 1, ink);
    canvas_triangle(c, tx, ty, 0, colour);
}

static void draw_legend(struct canvas *c, const struct map_layout *l, const struct map_scale *s, const char *label,
                        int no_value)
{
    char tick[32];
    long first, last;
    int x = l->legend_x, y = l->bar_y, h = l->bar_h;
    canvas_text(c, x, l->map_y, TEXT, label, ink);
    for (int j = 0; j < h; j++)
        canvas_fill_rect(c, x, y + j, BAR_W, 1, map_colour(s, s->hi - (j + 0.5) / h * (s->hi - s->lo)));
    canvas_frame_rect(c, x - 1, y - 1, BAR_W + 2, h + 2, ink);
    if (s->above)
        draw_end_triangle(c, x, y - 1, 1, map_colour(s, s->hi));
    if (s->below)
        draw_end_triangle(c, x, y + h + 1, 0, map_colour(s, s->lo));
    double step = nice_step(s->hi - s->lo, 5);
    tick_range(s->lo, s->hi, step, &first, &last);
    for (long k = first; k <= last; k++) {
        int ty = y + (int)lround((s->hi - k * step) / (s->hi - s->lo) * (h - 1));
        canvas_fill_rect(c, x + BAR_W, ty, 6, 1, ink);
        format_number(tick, sizeof tick, k * step, step);
        canvas_text(c, x + BAR_W + 10, ty - canvas_text_height(TEXT) / 2, TEXT, tick, ink);
    }
    if (no_value) {
        canvas_fill_rect(c, x, l->no_value_y, BAR_W, canvas_text_height(TEXT), MAP_NO_VALUE);
        canvas_frame_rect(c, x - 1, l->no_value_y - 1, BAR_W + 2, canvas_text_height(TEXT) + 2, ink);
        canvas_text(c, x + BAR_W + 10, l->no_value_y, TEXT, "no value", ink);
    }
}

/* The caption's two statements: the colours' limits, and what was left out. */
static void caption_text(const struct scan_grid *g, const struct map_scale *s, const char *unit, char limits[256],
                         char left_out[256])
{
    size_t points = g->rows * g->cols, no_value = points - g->points_with_value;
    int n = snprintf(limits, 256, "colours %.4g to %.4g%s%s: %s%s", s->lo, s->hi, unit[0] ? " " : "", unit,
                     s->fixed ? "set by --range" : "the points' 1st and 99th percentiles",
                     s->fixed || !s->diverging ? "" : ", made symmetric about 0");
    if (s->below + s->above > 0 && n > 0 && n < 256)
        snprintf(limits + n, 256 - (size_t)n, ", %zu point%s beyond (triangles)", s->below + s->above,
                 s->below + s->above == 1 ? "" : "s");
    left_out[0] = '\0';
    char *at = left_out;
    size_t room = 256;
    if (g->rows_flagged) {
        n = snprintf(at, room, "left out: %zu flagged row%s", g->rows_flagged, g->rows_flagged == 1 ? "" : "s");
        at += n, room -= (size_t)n;
    }
    if (g->rows_nan) {
        n = snprintf(at, room, "%s%zu nan row%s", at == left_out ? "left out: " : ", ", g->rows_nan,
                     g->rows_nan == 1 ? "" : "s");
        at += n, room -= (size_t)n;
    }
    if (no_value)
        snprintf(at, room, "%s%zu of %zu points without a value", at == left_out ? "" : ", ", no_value, points);
}

/* Everything the picture needs before drawing. */
struct map_plan {
    struct map_scale scale;
    struct map_layout layout;
    char bar_label[96];
};

static int plan_map(const char *path, const struct scan_grid *g, const struct map_options *o, struct map_plan *p,
                    clx_message *msg)
{
    char limits[256], left_out[256];
    msg->text[0] = '\0';
    if (!g->values || g->rows < 1 || g->cols < 1) {
        snprintf(msg->text, sizeof msg->text, "%s: no scan points to draw", path);
        return CLX_ERR_ARGUMENT;
    }
    if (o->width && (o->width < 16 || o->width > 8192)) {
        snprintf(msg->text, sizeof msg->text, "map width %d: from 16 to 8192 pixels", o->width);
        return CLX_ERR_ARGUMENT;
    }
    if (map_scale_choose(g->values, g->rows * g->cols, o, &p->scale) != CLX_OK) {
        snprintf(msg->text, sizeof msg->text, "%s: out of memory", path);
        return CLX_ERR_HOST_MEMORY;
    }
    const char *unit = map_column_unit(o->column);
    snprintf(p->bar_label, sizeof p->bar_label, unit[0] ? "%s (%s)" : "%s", o->column, unit);
    caption_text(g, &p->scale, unit, limits, left_out);
    const char *caption[2] = { limits, left_out };
    make_layout(g, o, &p->scale, p->bar_label, caption, &p->layout);
    return CLX_OK;
}

int map_frame_of(const struct scan_grid *g, const struct map_options *o, struct map_frame *f, clx_message *msg)
{
    struct map_plan p;
    int status = plan_map("map", g, o, &p, msg);
    if (status != CLX_OK)
        return status;
    const struct map_layout *l = &p.layout;
    *f = (struct map_frame){ l->map_x, l->map_y, l->map_w, l->map_h, l->legend_x, l->bar_y, BAR_W, l->bar_h,
                             l->width, l->height };
    return CLX_OK;
}

int map_write_png(const char *path, const struct scan_grid *g, const struct map_options *o, clx_message *msg)
{
    struct map_plan p;
    struct canvas c;
    int status = plan_map(path, g, o, &p, msg);
    if (status != CLX_OK)
        return status;
    const struct map_layout *l = &p.layout;
    if ((status = canvas_create(&c, l->width, l->height, white, msg)) != CLX_OK)
        return status;
    draw_cells(&c, l, g, &p.scale);
    draw_axes(&c, l);
    draw_legend(&c, l, &p.scale, p.bar_label, g->points_with_value < g->rows * g->cols);
    for (int k = 0; k < l->title.count; k++)
        canvas_text(&c, MARGIN, MARGIN + k * LINE, TEXT, l->title.line[k], ink);
    for (int k = 0; k < l->caption.count; k++)
        canvas_text(&c, MARGIN, l->caption_y + k * LINE, TEXT, l->caption.line[k], ink);
    status = canvas_write_png(&c, path, msg);
    canvas_free(&c);
    return status;
}
