/* value_layer.c - a column's colours under the arrows (see value_layer.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "plot/plot_numbers.h"
#include "plot/value_layer.h"

#define TEXT 2
#define BAR_W 22

static const struct rgb ink = { 20, 20, 20 };

int value_layer_prepare(struct value_layer *v, const double *values, size_t count, const char *column)
{
    struct map_options o = { column, NULL, 0, MAP_SCALE_AUTO, 0, 0, 0 };
    v->values = values;
    v->column = column;
    return map_scale_choose(values, count, &o, &v->scale);
}

void value_layer_cells(struct canvas *c, const struct value_layer *v, const double *x, const double *y, size_t count,
                       double side)
{
    for (size_t i = 0; i < count; i++) {
        /* nan: no cell (missing); an infinity takes its end's colour. */
        if (isnan(v->values[i]) || !isfinite(x[i]))
            continue;
        struct rgb colour = map_colour(&v->scale, v->values[i]);
        int x0 = (int)lround(x[i] - side / 2), y0 = (int)lround(y[i] - side / 2);
        int x1 = (int)lround(x[i] + side / 2), y1 = (int)lround(y[i] + side / 2);
        for (int py = y0; py < y1; py++)
            for (int px = x0; px < x1; px++)
                canvas_blend(c, px, py, colour, VALUE_ALPHA);
    }
}

void value_layer_bar(struct canvas *c, const struct value_layer *v, int x, int y, int h)
{
    const struct map_scale *s = &v->scale;
    const char *unit = map_column_unit(v->column);
    int line = canvas_text_height(TEXT) + 8, top = y + 2 * line + 8;
    char label[64], tick[32];
    canvas_text(c, x, y, TEXT, v->column, ink);
    snprintf(label, sizeof label, "%s%s", unit[0] ? "in " : "", unit);
    canvas_text(c, x, y + line, TEXT, label, ink);
    h -= top - y;
    h = h > 400 ? 400 : h < 60 ? 60 : h;
    for (int j = 0; j < h; j++)
        canvas_fill_rect(c, x, top + j, BAR_W, 1, map_colour(s, s->hi - (j + 0.5) / h * (s->hi - s->lo)));
    canvas_frame_rect(c, x - 1, top - 1, BAR_W + 2, h + 2, ink);
    double step = nice_step(s->hi - s->lo, 5);
    for (long k = (long)ceil(s->lo / step - 1e-9); k * step <= s->hi + 1e-9 * step; k++) {
        int ty = top + (int)lround((s->hi - k * step) / (s->hi - s->lo) * (h - 1));
        canvas_fill_rect(c, x + BAR_W, ty, 6, 1, ink);
        format_number(tick, sizeof tick, k * step, step);
        canvas_text(c, x + BAR_W + 10, ty - canvas_text_height(TEXT) / 2, TEXT, tick, ink);
    }
}
