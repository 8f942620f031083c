/* quiver.c - the displacement picture (see quiver.h for what it shows). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/canvas.h"
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
#define ARROW_REACH 0.9

static const struct rgb white = { 255, 255, 255 };
static const struct rgb ink = { 20, 20, 20 };
static const struct rgb flagged_grey = { 200, 200, 200 };

/* Where the parts of the picture lie. */
struct layout {
    int image_x, image_y, image_w, image_h;
    double scale;              /* picture pixels per reference pixel */
    int legend_x;
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
    l->legend_x = l->image_x + l->image_w + QUIVER_MARGIN;
    l->caption_y = l->image_y + l->image_h;
    l->width = l->image_w + 3 * QUIVER_MARGIN + QUIVER_LEGEND_WIDTH;
    l->height = l->image_h + 2 * QUIVER_MARGIN + QUIVER_TITLE_HEIGHT + QUIVER_CAPTION_HEIGHT;
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

static int draw_reference(struct canvas *c, const struct layout *l, const clx_image *ref, clx_message *msg)
{
    double lo, hi;
    int status = grey_range(ref, &lo, &hi, msg);
    if (status != CLX_OK)
        return status;
    for (int j = 0; j < l->image_h; j++)
        for (int i = 0; i < l->image_w; i++) {
            double g = (sample_reference(ref, l->scale, i, j) - lo) / (hi - lo);
            g = g < 0 ? 0 : g > 1 ? 1 : g;
            /* 60..230 rather than 0..255: arrows show on the darkest and
             * the lightest parts alike. */
            unsigned char v = (unsigned char)lround(60 + 170 * g);
            canvas_blend(c, l->image_x + i, l->image_y + j, (struct rgb){ v, v, v }, 1);
        }
    canvas_frame_rect(c, l->image_x - 1, l->image_y - 1, l->image_w + 2, l->image_h + 2, ink);
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

/* An arrow from (x0, y0) to (x1, y1) in picture pixels, with a dark outline. */
static void draw_arrow(struct canvas *c, double x0, double y0, double x1, double y1, double width, struct rgb colour)
{
    double len = hypot(x1 - x0, y1 - y0);
    if (len < 2 * width) {
        /* Too short for a head: a dot says "(almost) no offset here". */
        canvas_disc(c, x0, y0, width + 1, ink);
        canvas_disc(c, x0, y0, width, colour);
        return;
    }
    double head = fmin(0.4 * len, 4 * width + 4), ux = (x1 - x0) / len, uy = (y1 - y0) / len;
    double bx = x1 - ux * head, by = y1 - uy * head, half = 0.45 * head;
    double tx[3] = { x1, bx - uy * half, bx + uy * half }, ty[3] = { y1, by + ux * half, by - ux * half };
    canvas_line(c, x0, y0, bx, by, width + 2, ink);
    canvas_triangle(c, tx, ty, 1.2, ink);
    canvas_line(c, x0, y0, bx, by, width, colour);
    canvas_triangle(c, tx, ty, 0, colour);
}

/* ---- legend, caption, title ----------------------------------------------- */

/* The colour bar from 0 to `top` (a whole number of `step`s), a tick and a
 * number at each step. */
static void draw_colour_bar(struct canvas *c, const struct layout *l, double top, double step)
{
    const int text_scale = 2, bar_w = 22, line = canvas_text_height(text_scale) + 8;
    int x = l->legend_x + 8, y = l->image_y + 2 * line + 8;
    int h = l->image_h - (y - l->image_y) - 10;
    if (h > 400)
        h = 400;
    if (h < 60)
        h = 60;
    canvas_text(c, l->legend_x + 8, l->image_y, text_scale, "offset", ink);
    canvas_text(c, l->legend_x + 8, l->image_y + line, text_scale, "in px", ink);
    for (int j = 0; j < h; j++)
        canvas_fill_rect(c, x, y + j, bar_w, 1, colour_scale(1 - (double)j / (h - 1)));
    canvas_frame_rect(c, x - 1, y - 1, bar_w + 2, h + 2, ink);
    int ticks = (int)lround(top / step);
    for (int k = 0; k <= ticks; k++) {
        char label[32];
        int ty = y + (int)lround((h - 1) * (1 - (double)k / ticks));
        canvas_fill_rect(c, x + bar_w, ty, 6, 1, ink);
        format_number(label, sizeof label, k * step, step);
        canvas_text(c, x + bar_w + 10, ty - canvas_text_height(text_scale) / 2, text_scale, label, ink);
    }
}

/* The scale arrow and its words under the image; the arrow in its colour on
 * the magnitude bar up to colour_top, or white (colour_top 0) over a colour map. */
static void draw_caption(struct canvas *c, const struct layout *l, double factor, double largest, double colour_top,
                         double width, size_t flagged, size_t missing)
{
    const int text_scale = 2;
    char line[256], value[32];
    int x = l->image_x, y = l->caption_y + 12, mid = y + canvas_text_height(text_scale) / 2;
    if (largest > 0) {
        /* A round displacement whose arrow is at most a third of the image wide. */
        double shown = nice_floor(largest);
        while (shown * factor > l->image_w / 3.0 && shown > 1e-12)
            shown = nice_floor(shown / 2);
        double len = shown * factor;
        draw_arrow(c, x, mid, x + len, mid, width, colour_top > 0 ? colour_scale(shown / colour_top) : white);
        format_number(value, sizeof value, shown, shown);
        char times[32];
        format_number(times, sizeof times, factor, factor >= 1 ? 1 : factor);
        snprintf(line, sizeof line, "= %s px   (arrows drawn %sx the offset)", value, times);
        x += (int)ceil(len) + 10;
    } else {
        snprintf(line, sizeof line, "every offset is 0 px (dots)");
    }
    canvas_text(c, x, y, text_scale, line, ink);
    if (flagged || missing) {
        char note[160];
        note[0] = '\0';
        /* The long form where it fits the picture's width, else the short. */
        for (int brief = 0; brief < 2; brief++) {
            note[0] = '\0';
            if (flagged)
                snprintf(note, sizeof note, "grey: %zu flagged window%s%s%s", flagged, flagged == 1 ? "" : "s",
                         brief ? "" : " (no longer than the longest other arrow)", missing ? "; " : "");
            if (missing)
                snprintf(note + strlen(note), sizeof note - strlen(note), "%zu without an offset", missing);
            if (l->image_x + canvas_text_width(note, text_scale) <= c->width)
                break;
        }
        canvas_text(c, l->image_x, y + canvas_text_height(text_scale) + 8, text_scale, note, ink);
    }
}

/* ---- the picture ---------------------------------------------------------- */

/* How long and in which colours the arrows are drawn. */
struct arrow_scales {
    double largest, largest_flagged;   /* the longest trusted and flagged offsets */
    size_t flagged, missing;
    double reach;                      /* picture pixels the longest arrow may take */
    double factor;                     /* picture pixels per pixel of offset */
    double colour_top, colour_step;    /* the magnitude colour bar */
    double line_width;
};

static void arrow_scales_of(const struct quiver_arrow *arrows, size_t count, double spacing, const struct layout *l,
                            struct arrow_scales *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < count; i++) {
        double d = hypot(arrows[i].dx, arrows[i].dy);
        if (!isfinite(d))
            s->missing++;
        else if (arrows[i].flags)
            s->flagged++, s->largest_flagged = fmax(s->largest_flagged, d);
        else
            s->largest = fmax(s->largest, d);
    }
    /* Picture pixels per pixel of offset: a round factor that makes the
     * longest trusted arrow at most ARROW_REACH of the windows' spacing
     * (the longest flagged one when none is trusted). */
    s->reach = ARROW_REACH * spacing * l->scale;
    double scaled = s->largest > 0 ? s->largest : s->largest_flagged;
    s->factor = scaled > 0 ? nice_floor(s->reach / scaled) : 1;
    /* The colour bar: 0 to a whole number of round steps, at least the
     * largest offset. */
    s->colour_step = nice_step(s->largest > 0 ? s->largest : 1, 4);
    s->colour_top = s->colour_step * ceil(s->largest / s->colour_step * (1 - 1e-9));
    if (s->colour_top <= 0)
        s->colour_top = s->colour_step;
    s->line_width = l->image_w >= 1200 ? 3 : 2;
}

/* Every arrow, in its magnitude's colour, or white over a colour map (`plain`). */
static void draw_arrows(struct canvas *c, const struct layout *l, const struct quiver_arrow *arrows, size_t count,
                        const struct arrow_scales *s, int plain)
{
    canvas_clip(c, l->image_x, l->image_y, l->image_w, l->image_h);
    for (size_t i = 0; i < count; i++) {
        const struct quiver_arrow *a = &arrows[i];
        if (!isfinite(a->dx) || !isfinite(a->dy))
            continue;
        double x0 = l->image_x + (a->x + 0.5) * l->scale, y0 = l->image_y + (a->y + 0.5) * l->scale;
        double ex = a->dx * s->factor, ey = a->dy * s->factor;
        struct rgb colour = flagged_grey;
        if (counts_in_scale(a)) {
            colour = plain ? white : colour_scale(hypot(a->dx, a->dy) / s->colour_top);
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
        draw_arrow(c, x0, y0, x0 + ex, y0 + ey, s->line_width, colour);
    }
    canvas_unclip(c);
}

/* The column's colours under the arrows, over the image part. */
static int draw_values(struct canvas *c, const struct layout *l, const struct quiver_arrow *arrows, size_t count,
                       double spacing, const struct quiver_options *o, struct value_layer *v, clx_message *msg)
{
    double *x = malloc(sizeof *x * (count ? count : 1)), *y = malloc(sizeof *y * (count ? count : 1));
    int status = x && y ? value_layer_prepare(v, o->values, count, o->column) : CLX_ERR_HOST_MEMORY;
    if (status == CLX_OK) {
        for (size_t i = 0; i < count; i++) {
            x[i] = l->image_x + (arrows[i].x + 0.5) * l->scale;
            y[i] = l->image_y + (arrows[i].y + 0.5) * l->scale;
        }
        canvas_clip(c, l->image_x, l->image_y, l->image_w, l->image_h);
        value_layer_cells(c, v, x, y, count, spacing * l->scale);
        canvas_unclip(c);
    } else
        snprintf(msg->text, sizeof msg->text, "out of memory");
    free(x);
    free(y);
    return status;
}

int quiver_write_png(const char *path, const clx_image *reference, const struct quiver_arrow *arrows, size_t count,
                     const struct quiver_options *options, clx_message *msg)
{
    struct layout l;
    struct canvas c = { 0 };
    struct arrow_scales s;
    struct value_layer values;
    int status, plain = options && options->values;

    msg->text[0] = '\0';
    if (!reference || !reference->pixels || reference->width < 1 || reference->height < 1) {
        snprintf(msg->text, sizeof msg->text, "%s: no reference image to draw on", path);
        return CLX_ERR_ARGUMENT;
    }
    double spacing = window_spacing(arrows, count, reference);
    if ((status = make_layout(reference, options ? options->width : 0, &l, msg)) != CLX_OK ||
        (status = canvas_create(&c, l.width, l.height, white, msg)) != CLX_OK ||
        (status = draw_reference(&c, &l, reference, msg)) != CLX_OK ||
        (plain && (status = draw_values(&c, &l, arrows, count, spacing, options, &values, msg)) != CLX_OK))
        goto done;
    arrow_scales_of(arrows, count, spacing, &l, &s);
    draw_arrows(&c, &l, arrows, count, &s, plain);
    if (plain)
        value_layer_bar(&c, &values, l.legend_x + 8, l.image_y, l.image_h - 10);
    else
        draw_colour_bar(&c, &l, s.colour_top, s.colour_step);
    draw_caption(&c, &l, s.factor, s.largest > 0 ? s.largest : s.largest_flagged, plain ? 0 : s.colour_top,
                 s.line_width, s.flagged, s.missing);
    if (options && options->title)
        canvas_text(&c, l.image_x, QUIVER_MARGIN, 2, options->title, ink);
    status = canvas_write_png(&c, path, msg);

done:
    canvas_free(&c);
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
