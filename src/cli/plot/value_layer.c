/* value_layer.c - a column's colours under the arrows (see value_layer.h). */
#include "config.h"

#include <math.h>

#include "plot/value_layer.h"

int value_layer_prepare(struct value_layer *v, const double *values, size_t count, const char *column)
{
    struct map_scale_options o = { column, MAP_SCALE_AUTO, 0, 0, 0 };
    v->values = values;
    v->column = column;
    return map_scale_choose(values, count, &o, &v->scale);
}

void value_layer_cells(cairo_t *cr, const struct value_layer *v, const double *x, const double *y, size_t count,
                       double side)
{
    cairo_save(cr);
    for (size_t i = 0; i < count; i++) {
        /* nan: no cell (missing); an infinity takes its end's colour. */
        if (isnan(v->values[i]) || !isfinite(x[i]))
            continue;
        long x0 = lround(x[i] - side / 2), y0 = lround(y[i] - side / 2);
        long x1 = lround(x[i] + side / 2), y1 = lround(y[i] + side / 2);
        figure_colour_alpha(cr, map_colour(&v->scale, v->values[i]), VALUE_ALPHA);
        cairo_rectangle(cr, (double)x0, (double)y0, (double)(x1 - x0), (double)(y1 - y0));
        cairo_fill(cr);
    }
    cairo_restore(cr);
}

void value_layer_bar(const struct value_layer *v, int height, struct colour_bar *bar)
{
    /* Colouring by an angle column is not offered a unit choice: radians, as written. */
    colour_bar_plan(bar, &v->scale, v->column, map_column_unit(v->column, 1), height);
}
