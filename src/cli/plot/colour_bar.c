/* colour_bar.c - a scale's colours, ticks and label (see colour_bar.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot/colour_bar.h"
#include "plot/figure.h"
#include "plot/plot_numbers.h"

#define TICK 5                   /* a tick's length */
#define TICK_GAP 4               /* from a tick to its label */
#define TICK_SPACING 40          /* the least room per tick */

void colour_bar_plan(struct colour_bar *b, const struct map_scale *s, const char *name, const char *unit, int height)
{
    char power[32], tick[48];
    memset(b, 0, sizeof *b);
    b->scale = *s;
    int count = height / TICK_SPACING;
    b->step = nice_step(s->hi - s->lo, count < 2 ? 2 : count > 6 ? 6 : count);
    b->first = (long)ceil(s->lo / b->step - 1e-9);
    b->last = (long)floor(s->hi / b->step + 1e-9);
    b->exponent = tick_exponent(fmax(fabs(b->first * b->step), fabs(b->last * b->step)));
    format_power(power, sizeof power, b->exponent);
    if (power[0] || unit[0])
        snprintf(b->label, sizeof b->label, "%s (%s%s%s)", name, power, power[0] && unit[0] ? " " : "", unit);
    else
        snprintf(b->label, sizeof b->label, "%s", name);
    double unit_value = pow(10, b->exponent);
    for (long k = b->first; k <= b->last; k++) {
        format_tick(tick, sizeof tick, k * b->step / unit_value, b->step / unit_value);
        b->ticks_width = fmax(b->ticks_width, text_width(TEXT_TICK, tick));
    }
}

int colour_bar_width(const struct colour_bar *b)
{
    return COLOUR_BAR_W + 1 + TICK + TICK_GAP + (int)ceil(b->ticks_width);
}

/* A triangle on the bar's end at y (pointing up when `up`). */
static void end_triangle(cairo_t *cr, int x, double y, int up, struct rgb colour)
{
    double tip = up ? y - COLOUR_BAR_TRIANGLE : y + COLOUR_BAR_TRIANGLE;
    cairo_move_to(cr, x - 0.5, y);
    cairo_line_to(cr, x + COLOUR_BAR_W + 0.5, y);
    cairo_line_to(cr, x + COLOUR_BAR_W / 2.0, tip);
    cairo_close_path(cr);
    figure_colour(cr, colour);
    cairo_fill_preserve(cr);
    figure_colour(cr, FIGURE_INK);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
}

void colour_bar_draw(cairo_t *cr, const struct colour_bar *b, int x, int y, int h)
{
    const struct map_scale *s = &b->scale;
    char tick[48];
    cairo_save(cr);
    /* A row of pixels per colour: exact colours, no gradient's dithering. */
    for (int j = 0; j < h; j++) {
        figure_colour(cr, map_colour(s, s->hi - (j + 0.5) / h * (s->hi - s->lo)));
        cairo_rectangle(cr, x, y + j, COLOUR_BAR_W, 1);
        cairo_fill(cr);
    }
    figure_frame(cr, x - 1, y - 1, COLOUR_BAR_W + 2, h + 2, FIGURE_INK);
    if (s->above)
        end_triangle(cr, x, y - 0.5, 1, map_colour(s, s->hi));
    if (s->below)
        end_triangle(cr, x, y + h + 0.5, 0, map_colour(s, s->lo));
    double unit_value = pow(10, b->exponent);
    figure_colour(cr, FIGURE_INK);
    cairo_set_line_width(cr, 1);
    for (long k = b->first; k <= b->last; k++) {
        double at = y + (s->hi - k * b->step) / (s->hi - s->lo) * h;
        int row = (int)floor(at);
        row = row < y ? y : row > y + h - 1 ? y + h - 1 : row;
        cairo_move_to(cr, x + COLOUR_BAR_W + 1, row + 0.5);
        cairo_line_to(cr, x + COLOUR_BAR_W + 1 + TICK, row + 0.5);
        cairo_stroke(cr);
        format_tick(tick, sizeof tick, k * b->step / unit_value, b->step / unit_value);
        text_draw(cr, x + COLOUR_BAR_W + 1 + TICK + TICK_GAP, row + 0.5, TEXT_TICK, TEXT_LEFT, TEXT_MIDDLE, tick,
                  FIGURE_INK);
    }
    cairo_restore(cr);
}
