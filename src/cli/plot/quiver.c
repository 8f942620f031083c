/* quiver.c - the displacement picture (see quiver.h for what it shows). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/colour_bar.h"
#include "plot/figure.h"
#include "plot/plot_colours.h"
#include "plot/plot_numbers.h"
#include "plot/quiver.h"
#include "plot/value_layer.h"

#define DEFAULT_MIN_WIDTH 640
#define DEFAULT_MAX_WIDTH 1600
#define MAX_IMAGE_HEIGHT 1600
/* Pixels sampled for the grey-level quantiles: plenty for a stable 0.5 %. */
#define QUANTILE_SAMPLES 65536
/* The longest arrow against the distance between neighbouring windows. */
#define ARROW_REACH 1.0
#define LINE 20                  /* from one line of text to the next */
#define MIN_BAR_H 80
#define MAX_BAR_H 400
#define KEY_HEIGHT 46            /* the scale arrow and its length under it */

static const struct rgb white = { 255, 255, 255 };
static const struct rgb flagged_grey = { 200, 200, 200 };

/* Where the parts of the picture lie. */
struct layout {
    int image_x, image_y, image_w, image_h;
    double scale;              /* picture pixels per reference pixel */
    int legend_x, bar_y, bar_h, key_y;
    int caption_y;
    int width, height;
};

static int make_layout(const clx_image *ref, int requested_width, struct layout *l, clx_message *msg)
{
    int w = requested_width;
    if (w == 0)
        w = ref->width < DEFAULT_MIN_WIDTH ? DEFAULT_MIN_WIDTH
            : ref->width > DEFAULT_MAX_WIDTH ? DEFAULT_MAX_WIDTH
                                             : ref->width;
    if (w < 64 || w > 8192) {
        snprintf(msg->text, sizeof msg->text, "picture width %d: from 64 to 8192 pixels", w);
        return CLX_ERR_ARGUMENT;
    }
    double scale = (double)w / ref->width;
    if (ref->height * scale > MAX_IMAGE_HEIGHT)
        scale = (double)MAX_IMAGE_HEIGHT / ref->height;
    l->scale = scale;
    l->image_w = (int)lround(ref->width * scale);
    l->image_h = (int)lround(ref->height * scale);
    if (l->image_w < 1)
        l->image_w = 1;
    if (l->image_h < 1)
        l->image_h = 1;
    l->image_x = QUIVER_MARGIN;
    l->image_y = QUIVER_MARGIN + QUIVER_TITLE_HEIGHT;
    l->legend_x = l->image_x + l->image_w + QUIVER_MARGIN + 8;
    l->caption_y = l->image_y + l->image_h;
    /* The legend: the bar's name, the bar between its end triangles, the
     * scale arrow; the bar as high as the image leaves room for. */
    l->bar_y = l->image_y + LINE + COLOUR_BAR_TRIANGLE + 4;
    l->bar_h = l->image_h - (l->bar_y - l->image_y) - COLOUR_BAR_TRIANGLE - 8 - KEY_HEIGHT;
    l->bar_h = l->bar_h < MIN_BAR_H ? MIN_BAR_H : l->bar_h > MAX_BAR_H ? MAX_BAR_H : l->bar_h;
    l->key_y = l->bar_y + l->bar_h + COLOUR_BAR_TRIANGLE + 12;
    l->width = l->image_w + 3 * QUIVER_MARGIN + QUIVER_LEGEND_WIDTH;
    l->height = l->image_h + 2 * QUIVER_MARGIN + QUIVER_TITLE_HEIGHT + QUIVER_CAPTION_HEIGHT;
    if (l->height < l->key_y + KEY_HEIGHT + QUIVER_MARGIN)
        l->height = l->key_y + KEY_HEIGHT + QUIVER_MARGIN;
    return CLX_OK;
}

/* ---- the reference in grey ----------------------------------------------- */

static double pixel_at(const clx_image *img, size_t index)
{
    switch (img->type) {
    case CLX_PIXEL_U8: return ((const unsigned char *)img->pixels)[index];
    case CLX_PIXEL_U16: return ((const unsigned short *)img->pixels)[index];
    case CLX_PIXEL_F32: return ((const float *)img->pixels)[index];
    }
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The 0.5 % and 99.5 % quantiles of the pixels, from an even sample: a few
 * hot or dead pixels then do not set the contrast. */
static int grey_range(const clx_image *img, double *lo, double *hi, clx_message *msg)
{
    size_t n = (size_t)img->width * img->height;
    size_t stride = n > QUANTILE_SAMPLES ? n / QUANTILE_SAMPLES : 1, count = 0;
    double *sample = malloc(sizeof *sample * (n / stride + 1));
    if (!sample) {
        snprintf(msg->text, sizeof msg->text, "out of memory for the picture's grey levels");
        return CLX_ERR_HOST_MEMORY;
    }
    for (size_t i = 0; i < n; i += stride) {
        double v = pixel_at(img, i);
        if (isfinite(v))
            sample[count++] = v;
    }
    *lo = 0;
    *hi = 1;
    if (count > 0) {
        qsort(sample, count, sizeof *sample, compare_doubles);
        *lo = sample[(size_t)(0.005 * (count - 1))];
        *hi = sample[(size_t)(0.995 * (count - 1))];
    }
    if (!(*hi > *lo))
        *hi = *lo + 1;
    free(sample);
    return CLX_OK;
}

/* The reference's value at picture pixel (i, j) of the image part: the mean
 * of the reference pixels under it when shrinking, bilinear when growing. */
static double sample_reference(const clx_image *img, double scale, int i, int j)
{
    if (scale < 1) {
        int x0 = (int)floor(i / scale), x1 = (int)floor((i + 1) / scale);
        int y0 = (int)floor(j / scale), y1 = (int)floor((j + 1) / scale);
        x1 = x1 > img->width ? img->width : x1 > x0 ? x1 : x0 + 1;
        y1 = y1 > img->height ? img->height : y1 > y0 ? y1 : y0 + 1;
        double sum = 0;
        int n = 0;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++, n++)
                sum += pixel_at(img, (size_t)y * img->width + x);
        return n ? sum / n : 0;
    }
    double u = (i + 0.5) / scale - 0.5, v = (j + 0.5) / scale - 0.5;
    u = u < 0 ? 0 : u > img->width - 1 ? img->width - 1 : u;
    v = v < 0 ? 0 : v > img->height - 1 ? img->height - 1 : v;
    int x = (int)u, y = (int)v;
    int x1 = x + 1 < img->width ? x + 1 : x, y1 = y + 1 < img->height ? y + 1 : y;
    double fx = u - x, fy = v - y;
    double top = pixel_at(img, (size_t)y * img->width + x) * (1 - fx) + pixel_at(img, (size_t)y * img->width + x1) * fx;
    double bottom =
        pixel_at(img, (size_t)y1 * img->width + x) * (1 - fx) + pixel_at(img, (size_t)y1 * img->width + x1) * fx;
    return top * (1 - fy) + bottom * fy;
}

static int draw_reference(struct figure *f, const struct layout *l, const clx_image *ref, clx_message *msg)
{
    double lo, hi;
    int status = grey_range(ref, &lo, &hi, msg);
    if (status != CLX_OK)
        return status;
    figure_pixels_begin(f);
    for (int j = 0; j < l->image_h; j++)
        for (int i = 0; i < l->image_w; i++) {
            double g = (sample_reference(ref, l->scale, i, j) - lo) / (hi - lo);
            g = g < 0 ? 0 : g > 1 ? 1 : g;
            /* 60..230 rather than 0..255: arrows show on the darkest and
             * the lightest parts alike. */
            unsigned char v = (unsigned char)lround(60 + 170 * g);
            figure_pixel_set(f, l->image_x + i, l->image_y + j, (struct rgb){ v, v, v });
        }
    figure_pixels_end(f);
    figure_frame(f->cr, l->image_x - 1, l->image_y - 1, l->image_w + 2, l->image_h + 2, FIGURE_INK);
    return CLX_OK;
}

/* ---- arrows --------------------------------------------------------------- */

static int counts_in_scale(const struct quiver_arrow *a)
{
    return a->flags == 0 && isfinite(a->dx) && isfinite(a->dy);
}

/* The median distance from each window's centre to its nearest neighbour,
 * in reference pixels; for one window, a quarter of the reference. */
static double window_spacing(const struct quiver_arrow *arrows, size_t count, const clx_image *ref)
{
    double fallback = (ref->width < ref->height ? ref->width : ref->height) / 4.0;
    double *nearest = malloc(sizeof *nearest * (count ? count : 1));
    size_t n = 0;
    if (!nearest)
        return fallback;
    for (size_t i = 0; i < count; i++) {
        double best = INFINITY;
        for (size_t j = 0; j < count; j++) {
            double d = hypot(arrows[i].x - arrows[j].x, arrows[i].y - arrows[j].y);
            if (j != i && d > 0 && d < best)
                best = d;
        }
        if (isfinite(best))
            nearest[n++] = best;
    }
    double spacing = fallback;
    if (n > 0) {
        qsort(nearest, n, sizeof *nearest, compare_doubles);
        spacing = nearest[n / 2];
    }
    free(nearest);
    return spacing;
}

/*
 * An arrow from (x0, y0) to (x1, y1) in picture pixels, as matplotlib's
 * quiver draws one: a shaft `width` wide and a head 4 widths long and 3.6
 * wide, in `colour` with a thin dark outline that keeps it apart from any
 * ground. An arrow too short for that head gets a shorter head and a
 * thinner shaft; one shorter than 1.5 widths is a dot ("about no offset").
 */
static void draw_arrow(cairo_t *cr, double x0, double y0, double x1, double y1, double width, struct rgb colour)
{
    double len = hypot(x1 - x0, y1 - y0), outline = fmin(1.2, fmax(0.6, 0.35 * width));
    cairo_save(cr);
    if (len < 1.5 * width) {
        cairo_arc(cr, x0, y0, 0.6 * width, 0, 2 * M_PI);
    } else {
        double head = fmin(4 * width, 0.6 * len), half_head = 0.45 * head, half_shaft = fmin(width, 1.1 * half_head) / 2;
        double ux = (x1 - x0) / len, uy = (y1 - y0) / len, nx = -uy, ny = ux;
        double bx = x1 - ux * head, by = y1 - uy * head;
        cairo_move_to(cr, x0 + nx * half_shaft, y0 + ny * half_shaft);
        cairo_line_to(cr, bx + nx * half_shaft, by + ny * half_shaft);
        cairo_line_to(cr, bx + nx * half_head, by + ny * half_head);
        cairo_line_to(cr, x1, y1);
        cairo_line_to(cr, bx - nx * half_head, by - ny * half_head);
        cairo_line_to(cr, bx - nx * half_shaft, by - ny * half_shaft);
        cairo_line_to(cr, x0 - nx * half_shaft, y0 - ny * half_shaft);
        cairo_close_path(cr);
    }
    /* The outline first, twice as wide: the fill then covers its inner half. */
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
    cairo_set_line_width(cr, 2 * outline);
    figure_colour(cr, FIGURE_INK);
    cairo_stroke_preserve(cr);
    figure_colour(cr, colour);
    cairo_fill(cr);
    cairo_restore(cr);
}

/* Which windows' arrows are drawn: every step-th along each axis of the
 * windows' grid, counted from the top-left window. */
struct arrow_grid {
    int step;
    double x0, y0, spacing;            /* the grid's first centre and spacing, in reference pixels */
};

static void arrow_grid_of(const struct quiver_arrow *arrows, size_t count, double spacing, const struct layout *l,
                          int requested, struct arrow_grid *g)
{
    g->x0 = g->y0 = INFINITY;
    for (size_t i = 0; i < count; i++)
        if (isfinite(arrows[i].x) && isfinite(arrows[i].y)) {
            g->x0 = fmin(g->x0, arrows[i].x);
            g->y0 = fmin(g->y0, arrows[i].y);
        }
    g->spacing = spacing;
    g->step = requested;
    if (g->step < 1)
        g->step = (int)ceil(QUIVER_MIN_SPACING / (spacing * l->scale) - 1e-9);
    if (g->step < 1)
        g->step = 1;
}

static int arrow_drawn(const struct arrow_grid *g, const struct quiver_arrow *a)
{
    if (g->step == 1)
        return 1;
    long i = lround((a->x - g->x0) / g->spacing), j = lround((a->y - g->y0) / g->spacing);
    return i % g->step == 0 && j % g->step == 0;
}

/* How long and in which colours the arrows are drawn. */
struct arrow_scales {
    double largest, largest_flagged;   /* the longest trusted and flagged offsets */
    size_t flagged, missing;
    int step;                          /* every step-th window's arrow along each axis */
    double reach;                      /* picture pixels the longest arrow takes: the drawn arrows' spacing */
    double factor;                     /* picture pixels per pixel of offset */
    struct map_scale colours;          /* the magnitude's colour bar: 0 to a round value */
    double line_width;                 /* an arrow's shaft */
};

static void arrow_scales_of(const struct quiver_arrow *arrows, size_t count, const struct arrow_grid *g,
                            const struct layout *l, struct arrow_scales *s)
{
    memset(s, 0, sizeof *s);
    s->step = g->step;
    for (size_t i = 0; i < count; i++) {
        double d = hypot(arrows[i].dx, arrows[i].dy);
        if (!isfinite(d))
            s->missing++;
        else if (arrows[i].flags)
            s->flagged++, s->largest_flagged = fmax(s->largest_flagged, d);
        else
            s->largest = fmax(s->largest, d);
    }
    /* As matplotlib's quiver and PIVlab scale theirs: the longest trusted
     * arrow (the longest flagged one when none is trusted) one spacing of
     * the drawn arrows long, whatever the offsets' size. */
    s->reach = ARROW_REACH * g->spacing * g->step * l->scale;
    double scaled = s->largest > 0 ? s->largest : s->largest_flagged;
    s->factor = scaled > 0 ? s->reach / scaled : 1;
    /* The colour bar: 0 to a whole number of round steps, at least the
     * largest offset. */
    double step = nice_step(s->largest > 0 ? s->largest : 1, 4);
    s->colours.lo = 0;
    s->colours.hi = step * ceil(s->largest / step * (1 - 1e-9));
    if (s->colours.hi <= 0)
        s->colours.hi = step;
    /* Shafts 0.08 of the spacing, within 1.2 to 3 pixels: fine arrows on a
     * dense field, bolder ones on a sparse one. */
    s->line_width = fmin(3, fmax(1.2, 0.08 * s->reach));
}

/* Every arrow, in its magnitude's colour, or white over a colour map (`plain`). */
static void draw_arrows(cairo_t *cr, const struct layout *l, const struct quiver_arrow *arrows, size_t count,
                        const struct arrow_grid *g, const struct arrow_scales *s, int plain)
{
    cairo_save(cr);
    /* Arrows stay off the legend and the caption. */
    cairo_rectangle(cr, l->image_x, l->image_y, l->image_w, l->image_h);
    cairo_clip(cr);
    for (size_t i = 0; i < count; i++) {
        const struct quiver_arrow *a = &arrows[i];
        if (!isfinite(a->dx) || !isfinite(a->dy) || !arrow_drawn(g, a))
            continue;
        double x0 = l->image_x + (a->x + 0.5) * l->scale, y0 = l->image_y + (a->y + 0.5) * l->scale;
        double ex = a->dx * s->factor, ey = a->dy * s->factor;
        struct rgb colour = flagged_grey;
        if (counts_in_scale(a)) {
            colour = plain ? white : map_colour(&s->colours, hypot(a->dx, a->dy));
        } else {
            /* A flagged offset is often wild: drawn no longer than the
             * longest trusted arrow, it shows its direction and stays in
             * its neighbourhood. */
            double len = hypot(ex, ey), cap = s->largest > 0 ? s->largest * s->factor : s->reach;
            if (len > cap) {
                ex *= cap / len;
                ey *= cap / len;
            }
        }
        draw_arrow(cr, x0, y0, x0 + ex, y0 + ey, s->line_width, colour);
    }
    cairo_restore(cr);
}

/* The column's colours under the arrows, over the image part. */
static int draw_values(cairo_t *cr, const struct layout *l, const struct quiver_arrow *arrows, size_t count,
                       double spacing, const struct quiver_options *o, struct value_layer *v, clx_message *msg)
{
    double *x = malloc(sizeof *x * (count ? count : 1)), *y = malloc(sizeof *y * (count ? count : 1));
    int status = x && y ? value_layer_prepare(v, o->values, count, o->column) : CLX_ERR_HOST_MEMORY;
    if (status == CLX_OK) {
        for (size_t i = 0; i < count; i++) {
            x[i] = l->image_x + (arrows[i].x + 0.5) * l->scale;
            y[i] = l->image_y + (arrows[i].y + 0.5) * l->scale;
        }
        cairo_save(cr);
        cairo_rectangle(cr, l->image_x, l->image_y, l->image_w, l->image_h);
        cairo_clip(cr);
        value_layer_cells(cr, v, x, y, count, spacing * l->scale);
        cairo_restore(cr);
    } else
        snprintf(msg->text, sizeof msg->text, "out of memory");
    free(x);
    free(y);
    return status;
}

/* ---- legend and caption ---------------------------------------------------- */

/* The legend: the bar's name above it, the bar, and under it the scale
 * arrow of a round offset with its length; the arrow in its colour on the
 * magnitude bar, or white (`plain`) over a colour map. */
static void draw_legend(cairo_t *cr, const struct layout *l, const struct colour_bar *bar,
                        const struct arrow_scales *s, int plain)
{
    char label[64];
    /* A name too long for the legend in the labels' size takes the ticks'. */
    double room = QUIVER_LEGEND_WIDTH - 8;
    double size = text_width(TEXT_LABEL, bar->label) <= room ? TEXT_LABEL : TEXT_TICK;
    text_draw(cr, l->legend_x, l->image_y, size, TEXT_LEFT, TEXT_TOP, bar->label, FIGURE_INK);
    colour_bar_draw(cr, bar, l->legend_x, l->bar_y, l->bar_h);
    double largest = s->largest > 0 ? s->largest : s->largest_flagged;
    if (!(largest > 0))
        return;
    /* A round offset no longer than the longest, whose arrow fits the legend. */
    double shown = nice_floor(fmin(largest, (room - 8) / s->factor));
    double len = shown * s->factor, y = l->key_y + 8;
    draw_arrow(cr, l->legend_x, y, l->legend_x + len, y, s->line_width,
               plain ? white : map_colour(&s->colours, shown));
    format_number(label, sizeof label, shown, shown);
    strcat(label, " px");
    text_draw(cr, l->legend_x, y + s->line_width * 2 + 8, TEXT_TICK, TEXT_LEFT, TEXT_TOP, label, FIGURE_INK);
}

/* Under the image: how long the arrows are drawn, and the windows drawn
 * grey or not at all. */
static void draw_caption(cairo_t *cr, const struct layout *l, const struct arrow_scales *s, double width)
{
    char line[256], which[64] = "";
    double largest = s->largest > 0 ? s->largest : s->largest_flagged;
    int y = l->caption_y + 10;
    if (s->step > 1)
        snprintf(which, sizeof which, ", of every %d%s window along each axis", s->step,
                 s->step == 2 ? "nd" : s->step == 3 ? "rd" : "th");
    if (largest > 0)
        /* The factor on the image as drawn: 1x points where the feature went. */
        snprintf(line, sizeof line, "arrows %.3g\xc3\x97 the offset%s: the longest (%.3g px) as long as their spacing",
                 s->factor / l->scale, which, largest);
    else
        snprintf(line, sizeof line, "every offset is 0 px (dots)%s", which);
    text_draw(cr, l->image_x, y, TEXT_TICK, TEXT_LEFT, TEXT_TOP, line, FIGURE_INK);
    if (s->flagged || s->missing) {
        char note[160];
        /* The long form where it fits the picture's width, else the short. */
        for (int brief = 0; brief < 2; brief++) {
            note[0] = '\0';
            if (s->flagged)
                snprintf(note, sizeof note, "grey: %zu flagged window%s%s%s", s->flagged, s->flagged == 1 ? "" : "s",
                         brief ? "" : " (no longer than the longest other arrow)", s->missing ? "; " : "");
            if (s->missing)
                snprintf(note + strlen(note), sizeof note - strlen(note), "%zu without an offset", s->missing);
            if (l->image_x + text_width(TEXT_TICK, note) <= width - QUIVER_MARGIN)
                break;
        }
        text_draw(cr, l->image_x, y + LINE, TEXT_TICK, TEXT_LEFT, TEXT_TOP, note, FIGURE_INK);
    }
}

/* ---- the picture ---------------------------------------------------------- */

int quiver_write_png(const char *path, const clx_image *reference, const struct quiver_arrow *arrows, size_t count,
                     const struct quiver_options *options, clx_message *msg)
{
    struct layout l;
    struct figure f = { 0 };
    struct arrow_grid grid;
    struct arrow_scales s;
    struct value_layer values;
    struct colour_bar bar;
    int status, plain = options && options->values;

    msg->text[0] = '\0';
    if (!reference || !reference->pixels || reference->width < 1 || reference->height < 1) {
        snprintf(msg->text, sizeof msg->text, "%s: no reference image to draw on", path);
        return CLX_ERR_ARGUMENT;
    }
    double spacing = window_spacing(arrows, count, reference);
    if ((status = make_layout(reference, options ? options->width : 0, &l, msg)) != CLX_OK ||
        (status = figure_create(&f, l.width, l.height, msg)) != CLX_OK ||
        (status = draw_reference(&f, &l, reference, msg)) != CLX_OK ||
        (plain && (status = draw_values(f.cr, &l, arrows, count, spacing, options, &values, msg)) != CLX_OK))
        goto done;
    arrow_grid_of(arrows, count, spacing, &l, options ? options->arrow_step : 0, &grid);
    arrow_scales_of(arrows, count, &grid, &l, &s);
    draw_arrows(f.cr, &l, arrows, count, &grid, &s, plain);
    if (plain)
        value_layer_bar(&values, l.bar_h, &bar);
    else
        colour_bar_plan(&bar, &s.colours, "offset", "px", l.bar_h);
    draw_legend(f.cr, &l, &bar, &s, plain);
    draw_caption(f.cr, &l, &s, l.width);
    if (options && options->title)
        text_draw(f.cr, l.image_x, QUIVER_MARGIN, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, options->title, FIGURE_INK);
    status = figure_write_png(&f, path, msg);

done:
    figure_free(&f);
    return status;
}

void quiver_arrows_from_results(const clx_region *regions, const clx_result *results, size_t count,
                                struct quiver_arrow *arrows)
{
    for (size_t i = 0; i < count; i++) {
        arrows[i].x = regions[i].x + (regions[i].w - 1) / 2.0;
        arrows[i].y = regions[i].y + (regions[i].h - 1) / 2.0;
        arrows[i].dx = results[i].dx;
        arrows[i].dy = results[i].dy;
        arrows[i].flags = results[i].flags;
    }
}

/* ---- the mean over images ------------------------------------------------- */

int quiver_mean_init(struct quiver_mean *m, size_t windows)
{
    m->windows = windows;
    m->sum = calloc(windows * 4 + 1, sizeof *m->sum);
    m->rows = calloc(windows * 2 + 1, sizeof *m->rows);
    m->flags = calloc(windows + 1, sizeof *m->flags);
    if (!m->sum || !m->rows || !m->flags) {
        quiver_mean_free(m);
        return CLX_ERR_HOST_MEMORY;
    }
    return CLX_OK;
}

void quiver_mean_add(struct quiver_mean *m, size_t window, double dx, double dy, unsigned flags)
{
    if (window >= m->windows || !isfinite(dx) || !isfinite(dy))
        return;
    int flagged = flags != 0;
    m->sum[window * 4 + 2 * flagged] += dx;
    m->sum[window * 4 + 2 * flagged + 1] += dy;
    m->rows[window * 2 + flagged]++;
    m->flags[window] |= flags;
}

void quiver_mean_add_results(struct quiver_mean *m, const clx_result *results)
{
    for (size_t w = 0; w < m->windows; w++)
        quiver_mean_add(m, w, results[w].dx, results[w].dy, results[w].flags);
}

void quiver_mean_arrows(const struct quiver_mean *m, struct quiver_arrow *arrows)
{
    for (size_t w = 0; w < m->windows; w++) {
        /* The unflagged rows where there are any, else the flagged ones. */
        int flagged = m->rows[w * 2] == 0;
        size_t n = m->rows[w * 2 + flagged];
        arrows[w].dx = n ? m->sum[w * 4 + 2 * flagged] / n : NAN;
        arrows[w].dy = n ? m->sum[w * 4 + 2 * flagged + 1] / n : NAN;
        arrows[w].flags = n && flagged ? m->flags[w] : 0;
    }
}

void quiver_mean_free(struct quiver_mean *m)
{
    free(m->sum);
    free(m->rows);
    free(m->flags);
    memset(m, 0, sizeof *m);
}
