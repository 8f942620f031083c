/* tensor_plot.c - the tensor figure (see tensor_plot.h for what it shows). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/colour_bar.h"
#include "plot/figure.h"
#include "plot/map_plot.h"
#include "plot/scan_map.h"
#include "plot/tensor_plot.h"
#include "plot/text_lines.h"

#define MARGIN 16
#define LINE 21                 /* from one line of text to the next */
#define CAPTION_LINE 19         /* ... of the caption's smaller text */
#define BAR_GAP 22              /* from a row's last map to its bar */
#define COLUMN_GAP 14           /* between the maps of a row (their y labels on the left column only) */
#define ROW_GAP 14              /* between a panel's map and the next one's title */
#define MIN_BAR_H 80
#define MIN_PICTURE_WIDTH 480

const char *const tensor_columns[TENSOR_PANELS] = { "e11", "e22", "e33", "e12", "e13", "e23", "w1", "w2", "w3" };
const char *const tensor_row_names[TENSOR_ROWS] = { "normal strain", "shear strain", "rotation" };

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

struct tensor_layout {
    struct tensor_frame frame;
    struct colour_bar bars[TENSOR_ROWS];
    struct map_axis ax, ay;
    int x_names_y, caption_y;
    struct text_lines title, caption;
};

/* Each row's scale, over its three panels' values: diverging about 0
 * between their symmetric percentiles. */
static int choose_scales(const struct scan_grid grids[TENSOR_PANELS], struct tensor_frame *f)
{
    size_t points = grids[0].rows * grids[0].cols;
    double *values = malloc(3 * points * sizeof *values);
    if (!values)
        return CLX_ERR_HOST_MEMORY;
    int status = CLX_OK;
    for (int r = 0; r < TENSOR_ROWS && status == CLX_OK; r++) {
        for (int c = 0; c < 3; c++)
            memcpy(values + c * points, grids[3 * r + c].values, points * sizeof *values);
        struct map_scale_options o = { tensor_columns[3 * r], MAP_SCALE_DIVERGING, 0, 0, 0 };
        status = map_scale_choose(values, 3 * points, &o, &f->row[r].scale);
    }
    free(values);
    return status;
}

/* The caption: how the colours were chosen, the boundaries, what was left out. */
static void caption_text(const struct scan_grid grids[TENSOR_PANELS], const struct tensor_frame *f,
                         const struct tensor_options *o, char *out, size_t len)
{
    size_t beyond = 0;
    for (int r = 0; r < TENSOR_ROWS; r++)
        beyond += f->row[r].scale.below + f->row[r].scale.above;
    int n = snprintf(out, len, "each row's colours span its three panels' 1st to 99th percentiles, made "
                     "symmetric about 0");
    if (beyond && n > 0 && (size_t)n < len)
        n += snprintf(out + n, len - (size_t)n, ", %zu beyond (triangles)", beyond);
    if (o->grains && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, ", black lines: grain boundaries");
}

static void make_layout(const struct scan_grid grids[TENSOR_PANELS], const struct tensor_options *o,
                        struct tensor_layout *l)
{
    struct tensor_frame *f = &l->frame;
    const struct scan_grid *g = &grids[0];
    char caption[512], left_out[256];

    scan_map_size(g, o->width, TENSOR_TARGET_SIDE, 1, &f->map_w, &f->map_h);
    scan_map_axes(g, f->map_w, f->map_h, &l->ax, &l->ay);
    /* A row's bar beside its last map, between its end triangles, at least
     * MIN_BAR_H high: a row is as high as the taller of the two. */
    int triangle_room = COLOUR_BAR_TRIANGLE + 3;
    f->bar_h = max_int(f->map_h - 2 * triangle_room, MIN_BAR_H);
    int panel_h = max_int(f->map_h, f->bar_h + 2 * triangle_room);
    int legend_w = 0;
    for (int r = 0; r < TENSOR_ROWS; r++) {
        colour_bar_plan(&l->bars[r], &f->row[r].scale, tensor_row_names[r],
                        map_column_unit(tensor_columns[3 * r], o->radians), f->bar_h);
        snprintf(f->row[r].label, sizeof f->row[r].label, "%s", l->bars[r].label);
        legend_w = max_int(legend_w, max_int(colour_bar_width(&l->bars[r]),
                                             (int)ceil(text_width(TEXT_LABEL, l->bars[r].label))));
    }
    int row_h = LINE + 6 + panel_h;

    int y_name = (int)ceil(text_cap_height(TEXT_LABEL)) + 10;
    int left = MARGIN + y_name + scan_axis_label_width(&l->ay) + MAP_TICK + 5;
    int bar_x = left + 3 * f->map_w + 2 * COLUMN_GAP + BAR_GAP;
    f->width = max_int(bar_x + legend_w + MARGIN, MIN_PICTURE_WIDTH);

    if (o->title)
        text_lines_add(&l->title, o->title, TEXT_LABEL, f->width - 2 * MARGIN);
    caption_text(grids, f, o, caption, sizeof caption);
    text_lines_add(&l->caption, caption, TEXT_TICK, f->width - 2 * MARGIN);
    map_left_out(g, left_out, sizeof left_out);
    if (left_out[0])
        text_lines_add(&l->caption, left_out, TEXT_TICK, f->width - 2 * MARGIN);

    int top = MARGIN + l->title.count * LINE + (l->title.count ? 10 : 0);
    for (int k = 0; k < TENSOR_PANELS; k++) {
        struct tensor_panel *p = &f->panel[k];
        p->map_x = left + k % 3 * (f->map_w + COLUMN_GAP);
        p->map_y = top + k / 3 * (row_h + ROW_GAP) + LINE + 6;
    }
    for (int r = 0; r < TENSOR_ROWS; r++) {
        f->row[r].bar_x = bar_x;
        f->row[r].bar_y = f->panel[3 * r].map_y + (panel_h - f->bar_h) / 2;
    }
    int panels_bottom = f->panel[6].map_y + panel_h;
    l->x_names_y = f->panel[6].map_y + f->map_h + scan_axis_x_height() + 8;
    l->caption_y = max_int(panels_bottom, l->x_names_y + LINE) + 12;
    f->height = l->caption_y + l->caption.count * CAPTION_LINE + MARGIN - 4;
}

static int plan(const char *path, const struct scan_grid grids[TENSOR_PANELS], const struct tensor_options *o,
                struct tensor_layout *l, clx_message *msg)
{
    memset(l, 0, sizeof *l);
    msg->text[0] = '\0';
    for (int k = 0; k < TENSOR_PANELS; k++)
        if (!grids[k].values || grids[k].rows < 1 || grids[k].cols < 1) {
            snprintf(msg->text, sizeof msg->text, "%s: no scan points of %s to draw", path, tensor_columns[k]);
            return CLX_ERR_ARGUMENT;
        }
    if (o->width && (o->width < 16 || o->width > 8192)) {
        snprintf(msg->text, sizeof msg->text, "panel width %d: from 16 to 8192 pixels", o->width);
        return CLX_ERR_ARGUMENT;
    }
    if (choose_scales(grids, &l->frame) != CLX_OK) {
        snprintf(msg->text, sizeof msg->text, "%s: out of memory", path);
        return CLX_ERR_HOST_MEMORY;
    }
    make_layout(grids, o, l);
    return CLX_OK;
}

int tensor_frame_of(const struct scan_grid grids[TENSOR_PANELS], const struct tensor_options *o,
                    struct tensor_frame *f, clx_message *msg)
{
    struct tensor_layout l;
    int status = plan("figure", grids, o, &l, msg);
    if (status == CLX_OK)
        *f = l.frame;
    return status;
}

/* Panel k: its title, map (in its row's colours), boundaries and ticks
 * (labelled on the left column and the bottom row only). */
static void draw_panel(struct figure *fig, const struct tensor_layout *l, const struct scan_grid *g,
                       const struct scan_grid *grains, int k)
{
    const struct tensor_frame *f = &l->frame;
    const struct tensor_panel *p = &f->panel[k];
    text_draw(fig->cr, p->map_x + f->map_w / 2.0, p->map_y - 8, TEXT_LABEL, TEXT_CENTRE, TEXT_BASELINE,
              tensor_columns[k], FIGURE_INK);
    scan_map_cells(fig, p->map_x, p->map_y, f->map_w, f->map_h, g, &f->row[k / 3].scale);
    if (grains)
        scan_map_boundaries(fig->cr, p->map_x, p->map_y, f->map_w, f->map_h, grains);
    scan_map_x_ticks(fig->cr, &l->ax, p->map_x, p->map_y, f->map_w, f->map_h, k / 3 == 2);
    scan_map_y_ticks(fig->cr, &l->ay, p->map_x, p->map_y, f->map_h, k % 3 == 0);
}

/* Row r's bar, its label on the line of the panels' titles. */
static void draw_row_bar(cairo_t *cr, const struct tensor_layout *l, int r)
{
    const struct tensor_row *row = &l->frame.row[r];
    text_draw(cr, row->bar_x, l->frame.panel[3 * r].map_y - 8, TEXT_LABEL, TEXT_LEFT, TEXT_BASELINE, row->label,
              FIGURE_INK);
    colour_bar_draw(cr, &l->bars[r], row->bar_x, row->bar_y, l->frame.bar_h);
}

int tensor_write_png(const char *path, const struct scan_grid grids[TENSOR_PANELS], const struct tensor_options *o,
                     clx_message *msg)
{
    struct tensor_layout l;
    struct figure fig;
    int status = plan(path, grids, o, &l, msg);
    if (status != CLX_OK)
        return status;
    const struct tensor_frame *f = &l.frame;
    if ((status = figure_create(&fig, f->width, f->height, msg)) != CLX_OK)
        return status;
    for (int k = 0; k < TENSOR_PANELS; k++)
        draw_panel(&fig, &l, &grids[k], o->grains, k);
    for (int r = 0; r < TENSOR_ROWS; r++)
        draw_row_bar(fig.cr, &l, r);
    /* The axes' names, once: x under the bottom row's middle panel, y left
     * of the left column's middle one. */
    text_draw(fig.cr, f->panel[7].map_x + f->map_w / 2.0, l.x_names_y, TEXT_LABEL, TEXT_CENTRE, TEXT_TOP, l.ax.name,
              FIGURE_INK);
    text_draw_up(fig.cr, MARGIN, f->panel[3].map_y + f->map_h / 2.0, TEXT_LABEL, TEXT_CENTRE, TEXT_TOP, l.ay.name,
                 FIGURE_INK);
    for (int k = 0; k < l.title.count; k++)
        text_draw(fig.cr, MARGIN, MARGIN + k * LINE, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, l.title.line[k], FIGURE_INK);
    for (int k = 0; k < l.caption.count; k++)
        text_draw(fig.cr, MARGIN, l.caption_y + k * CAPTION_LINE, TEXT_TICK, TEXT_LEFT, TEXT_TOP, l.caption.line[k],
                  FIGURE_INK);
    status = figure_write_png(&fig, path, msg);
    figure_free(&fig);
    return status;
}
