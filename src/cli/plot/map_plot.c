/* map_plot.c - the scan map (see map_plot.h for what it shows). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/colour_bar.h"
#include "plot/figure.h"
#include "plot/map_plot.h"
#include "plot/scan_map.h"
#include "plot/text_lines.h"

#define MARGIN 16
#define LINE 21                 /* from one line of text to the next */
#define CAPTION_LINE 19         /* ... of the caption's smaller text */
#define LEGEND_GAP 22           /* from the map to the colour bar */
#define MIN_BAR_H 160
#define MAX_BAR_H 400
#define MIN_PICTURE_WIDTH 480   /* room for the title when the map is narrow */

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

void map_size(const struct scan_grid *g, int width, int *map_w, int *map_h)
{
    scan_map_size(g, width, MAP_TARGET_SIDE, MAP_MIN_CELL, map_w, map_h);
}

struct map_layout {
    int map_x, map_y, map_w, map_h;
    int legend_x, bar_y, bar_h, no_value_y;
    int caption_y;
    int width, height;
    struct map_axis ax, ay;
    struct colour_bar bar;
    struct text_lines title, caption;
};

/* Where everything goes: across first (the map, its y labels, the legend),
 * then down (the title, wrapped to the width, the map, the caption). */
static void make_layout(const struct scan_grid *g, const struct map_options *o, const struct map_scale *s,
                        const char *caption[2], struct map_layout *l)
{
    memset(l, 0, sizeof *l);
    map_size(g, o->width, &l->map_w, &l->map_h);
    scan_map_axes(g, l->map_w, l->map_h, &l->ax, &l->ay);
    int y_name = (int)ceil(text_cap_height(TEXT_LABEL)) + 10;
    l->map_x = MARGIN + y_name + scan_axis_label_width(&l->ay) + MAP_TICK + 5;
    l->legend_x = l->map_x + l->map_w + LEGEND_GAP;

    /* The bar beside the map, under its label and top triangle, as high as
     * the map leaves room for (within MIN_BAR_H and MAX_BAR_H). */
    int bar_top = LINE + COLOUR_BAR_TRIANGLE + 4;
    l->bar_h = l->map_h - bar_top - COLOUR_BAR_TRIANGLE - 4;
    l->bar_h = l->bar_h < MIN_BAR_H ? MIN_BAR_H : l->bar_h > MAX_BAR_H ? MAX_BAR_H : l->bar_h;
    colour_bar_plan(&l->bar, s, o->column, map_column_unit(o->column, o->radians), l->bar_h);
    int no_value_w = COLOUR_BAR_W + 8 + (int)ceil(text_width(TEXT_TICK, "no value"));
    int legend_w = max_int((int)ceil(text_width(TEXT_LABEL, l->bar.label)),
                           max_int(colour_bar_width(&l->bar), no_value_w));
    l->width = max_int(l->legend_x + legend_w + MARGIN, MIN_PICTURE_WIDTH);

    if (o->title)
        text_lines_add(&l->title, o->title, TEXT_LABEL, l->width - 2 * MARGIN);
    for (int k = 0; k < 2; k++)
        if (caption[k][0])
            text_lines_add(&l->caption, caption[k], TEXT_TICK, l->width - 2 * MARGIN);
    l->map_y = MARGIN + l->title.count * LINE + (l->title.count ? 8 : 0);
    l->bar_y = l->map_y + bar_top;
    l->no_value_y = l->bar_y + l->bar_h + COLOUR_BAR_TRIANGLE + 12;
    int legend_bottom = l->no_value_y + (g->points_with_value < g->rows * g->cols ? LINE : 0);
    int axis_bottom = l->map_y + l->map_h + scan_axis_x_height() + 8 + LINE;
    l->caption_y = max_int(legend_bottom, axis_bottom) + 10;
    l->height = l->caption_y + l->caption.count * CAPTION_LINE + MARGIN - 4;
}

/* The axes' ticks, and their names: x under the map, y left of it reading
 * upwards (y grows downwards, as the scan's rows). */
static void draw_axes(cairo_t *cr, const struct map_layout *l)
{
    scan_map_x_ticks(cr, &l->ax, l->map_x, l->map_y, l->map_w, l->map_h, 1);
    scan_map_y_ticks(cr, &l->ay, l->map_x, l->map_y, l->map_h, 1);
    text_draw(cr, l->map_x + l->map_w / 2.0, l->map_y + l->map_h + scan_axis_x_height() + 8, TEXT_LABEL,
              TEXT_CENTRE, TEXT_TOP, l->ax.name, FIGURE_INK);
    text_draw_up(cr, MARGIN, l->map_y + l->map_h / 2.0, TEXT_LABEL, TEXT_CENTRE, TEXT_TOP, l->ay.name, FIGURE_INK);
}

static void draw_legend(cairo_t *cr, const struct map_layout *l, int no_value)
{
    int x = l->legend_x;
    text_draw(cr, x, l->map_y, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, l->bar.label, FIGURE_INK);
    colour_bar_draw(cr, &l->bar, x, l->bar_y, l->bar_h);
    if (no_value) {
        int h = (int)ceil(text_cap_height(TEXT_TICK)) + 2;
        figure_colour(cr, MAP_NO_VALUE);
        cairo_rectangle(cr, x, l->no_value_y, COLOUR_BAR_W, h);
        cairo_fill(cr);
        figure_frame(cr, x - 1, l->no_value_y - 1, COLOUR_BAR_W + 2, h + 2, FIGURE_INK);
        text_draw(cr, x + COLOUR_BAR_W + 8, l->no_value_y + h / 2.0, TEXT_TICK, TEXT_LEFT, TEXT_MIDDLE, "no value",
                  FIGURE_INK);
    }
}

void map_left_out(const struct scan_grid *g, char *out, size_t len)
{
    size_t points = g->rows * g->cols, no_value = points - g->points_with_value;
    size_t used = 0;
    out[0] = '\0';
    if (g->rows_flagged)
        used += (size_t)snprintf(out, len, "left out: %zu flagged row%s", g->rows_flagged,
                                 g->rows_flagged == 1 ? "" : "s");
    if (g->rows_nan && used < len)
        used += (size_t)snprintf(out + used, len - used, "%s%zu nan row%s", used ? ", " : "left out: ", g->rows_nan,
                                 g->rows_nan == 1 ? "" : "s");
    if (no_value && used < len)
        snprintf(out + used, len - used, "%s%zu of %zu points without a value", used ? ", " : "", no_value, points);
}

/* The caption's two statements: the colours' limits, and what was left out. */
static void caption_text(const struct scan_grid *g, const struct map_scale *s, const char *unit, char limits[256],
                         char left_out[256])
{
    /* No space before the degree sign, as "0.5°" is written. */
    const char *space = unit[0] && strcmp(unit, "\xc2\xb0") ? " " : "";
    int n = snprintf(limits, 256, "colours %.4g to %.4g%s%s: %s%s", s->lo, s->hi, space, unit,
                     s->fixed ? "set by --range" : "the points' 1st and 99th percentiles",
                     s->fixed || !s->diverging ? "" : ", made symmetric about 0");
    if (s->below + s->above > 0 && n > 0 && n < 256)
        snprintf(limits + n, 256 - (size_t)n, ", %zu point%s beyond (triangles)", s->below + s->above,
                 s->below + s->above == 1 ? "" : "s");
    map_left_out(g, left_out, 256);
}

/* Everything the picture needs before drawing. */
struct map_plan {
    struct map_scale scale;
    struct map_layout layout;
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
    struct map_scale_options so = { o->column, o->scale, o->fixed_range, o->lo, o->hi };
    if (map_scale_choose(g->values, g->rows * g->cols, &so, &p->scale) != CLX_OK) {
        snprintf(msg->text, sizeof msg->text, "%s: out of memory", path);
        return CLX_ERR_HOST_MEMORY;
    }
    caption_text(g, &p->scale, map_column_unit(o->column, o->radians), limits, left_out);
    const char *caption[2] = { limits, left_out };
    make_layout(g, o, &p->scale, caption, &p->layout);
    return CLX_OK;
}

int map_frame_of(const struct scan_grid *g, const struct map_options *o, struct map_frame *f, clx_message *msg)
{
    struct map_plan p;
    int status = plan_map("map", g, o, &p, msg);
    if (status != CLX_OK)
        return status;
    const struct map_layout *l = &p.layout;
    *f = (struct map_frame){ l->map_x, l->map_y, l->map_w, l->map_h, l->legend_x, l->bar_y, COLOUR_BAR_W, l->bar_h,
                             l->width, l->height };
    return CLX_OK;
}

int map_write_png(const char *path, const struct scan_grid *g, const struct map_options *o, clx_message *msg)
{
    struct map_plan p;
    struct figure f;
    int status = plan_map(path, g, o, &p, msg);
    if (status != CLX_OK)
        return status;
    const struct map_layout *l = &p.layout;
    if ((status = figure_create(&f, l->width, l->height, msg)) != CLX_OK)
        return status;
    scan_map_cells(&f, l->map_x, l->map_y, l->map_w, l->map_h, g, &p.scale);
    if (o->grains)
        scan_map_boundaries(f.cr, l->map_x, l->map_y, l->map_w, l->map_h, o->grains);
    draw_axes(f.cr, l);
    draw_legend(f.cr, l, g->points_with_value < g->rows * g->cols);
    for (int k = 0; k < l->title.count; k++)
        text_draw(f.cr, MARGIN, MARGIN + k * LINE, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, l->title.line[k], FIGURE_INK);
    for (int k = 0; k < l->caption.count; k++)
        text_draw(f.cr, MARGIN, l->caption_y + k * CAPTION_LINE, TEXT_TICK, TEXT_LEFT, TEXT_TOP, l->caption.line[k],
                  FIGURE_INK);
    status = figure_write_png(&f, path, msg);
    figure_free(&f);
    return status;
}
