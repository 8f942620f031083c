/* figure.c - a picture drawn with cairo, its text and its PNG (see figure.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/figure.h"

int figure_create(struct figure *f, int width, int height, clx_message *msg)
{
    memset(f, 0, sizeof *f);
    if (width < 1 || height < 1 || width > FIGURE_MAX_SIDE || height > FIGURE_MAX_SIDE) {
        snprintf(msg->text, sizeof msg->text, "a picture of %dx%d pixels: each side must be 1 to %d", width,
                 height, FIGURE_MAX_SIDE);
        return CLX_ERR_ARGUMENT;
    }
    /* RGB24: no alpha channel, and cairo writes it as an RGB PNG. */
    f->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    f->cr = cairo_create(f->surface);
    if (cairo_surface_status(f->surface) != CAIRO_STATUS_SUCCESS || cairo_status(f->cr) != CAIRO_STATUS_SUCCESS) {
        figure_free(f);
        snprintf(msg->text, sizeof msg->text, "out of memory for a picture of %dx%d pixels", width, height);
        return CLX_ERR_HOST_MEMORY;
    }
    f->width = width;
    f->height = height;
    cairo_set_source_rgb(f->cr, 1, 1, 1);
    cairo_paint(f->cr);
    return CLX_OK;
}

void figure_free(struct figure *f)
{
    if (f->cr)
        cairo_destroy(f->cr);
    if (f->surface)
        cairo_surface_destroy(f->surface);
    memset(f, 0, sizeof *f);
}

struct png_sink {
    clx_output *out;
    int failed;
    clx_message msg;
};

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int length)
{
    struct png_sink *sink = closure;
    if (!sink->failed && clx_output_write(sink->out, data, length, &sink->msg) != CLX_OK)
        sink->failed = 1;
    return sink->failed ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

int figure_write_png(struct figure *f, const char *path, clx_message *msg)
{
    cairo_status_t drawn = cairo_status(f->cr);
    if (drawn != CAIRO_STATUS_SUCCESS) {
        snprintf(msg->text, sizeof msg->text, "%s: the picture could not be drawn: %s", path,
                 cairo_status_to_string(drawn));
        return drawn == CAIRO_STATUS_NO_MEMORY ? CLX_ERR_HOST_MEMORY : CLX_ERR_STATE;
    }
    struct png_sink sink = { NULL, 0, { "" } };
    int status = clx_output_open(path, 0, &sink.out, msg);
    if (status != CLX_OK)
        return status;
    cairo_surface_flush(f->surface);
    cairo_status_t written = cairo_surface_write_to_png_stream(f->surface, png_write, &sink);
    if (sink.failed) {
        *msg = sink.msg;
        status = CLX_ERR_IO;
    } else if (written != CAIRO_STATUS_SUCCESS) {
        snprintf(msg->text, sizeof msg->text, "%s: the PNG encoder failed: %s", path, cairo_status_to_string(written));
        status = written == CAIRO_STATUS_NO_MEMORY ? CLX_ERR_HOST_MEMORY : CLX_ERR_IO;
    }
    clx_message close_msg;
    int closed = clx_output_close(sink.out, status == CLX_OK, &close_msg);
    if (status == CLX_OK && closed != CLX_OK) {
        *msg = close_msg;
        status = closed;
    }
    return status;
}

void figure_pixels_begin(struct figure *f)
{
    cairo_surface_flush(f->surface);
}

void figure_pixel_set(struct figure *f, int x, int y, struct rgb c)
{
    if (x < 0 || y < 0 || x >= f->width || y >= f->height)
        return;
    /* RGB24: a 32-bit word per pixel, 0x00RRGGBB in the machine's order. */
    unsigned char *row = cairo_image_surface_get_data(f->surface) + (size_t)y * cairo_image_surface_get_stride(f->surface);
    ((uint32_t *)row)[x] = (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
}

void figure_pixels_end(struct figure *f)
{
    cairo_surface_mark_dirty(f->surface);
}

void figure_colour(cairo_t *cr, struct rgb c)
{
    cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void figure_colour_alpha(cairo_t *cr, struct rgb c, double alpha)
{
    cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, alpha);
}

void figure_frame(cairo_t *cr, int x, int y, int w, int h, struct rgb colour)
{
    cairo_save(cr);
    figure_colour(cr, colour);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x + 0.5, y + 0.5, w - 1, h - 1);
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* ---- text ------------------------------------------------------------------ */

/* Unhinted metrics: a text is as wide measured as drawn, at any position.
 * Grey anti-aliasing: sub-pixel colours would fringe in print. */
static cairo_font_options_t *font_options(void)
{
    cairo_font_options_t *o = cairo_font_options_create();
    cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_SLIGHT);
    return o;
}

static cairo_font_face_t *font_face(void)
{
    return cairo_toy_font_face_create(FIGURE_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

/* The length of a well-formed UTF-8 sequence of a printable character at s,
 * or 0. */
static size_t utf8_char(const unsigned char *s)
{
    if (s[0] >= 0x20 && s[0] < 0x7f)
        return 1;
    int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    unsigned long c = n == 2 ? s[0] & 0x1fu : n == 3 ? s[0] & 0x0fu : s[0] & 0x07u;
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[k] & 0x3fu);
    }
    /* Overlong forms, surrogates, beyond U+10FFFF, C1 controls. */
    if (n == 0 || (n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff) ||
        (c >= 0x80 && c < 0xa0))
        return 0;
    return (size_t)n;
}

/* The text with every byte that is not part of a printable UTF-8 character
 * made U+FFFD; malloc'd, NULL when out of memory. */
static char *printable(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(3 * n + 1), *at = out;
    if (!out)
        return NULL;
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t len = utf8_char(s);
        if (len) {
            memcpy(at, s, len);
            at += len;
            s += len;
        } else {
            memcpy(at, "\xef\xbf\xbd", 3);
            at += 3;
            s++;
        }
    }
    *at = '\0';
    return out;
}

/* The scaled font every text of `size` is measured with. */
static cairo_scaled_font_t *scaled_font(double size)
{
    cairo_matrix_t font_matrix, ctm;
    cairo_matrix_init_scale(&font_matrix, size, size);
    cairo_matrix_init_identity(&ctm);
    cairo_font_face_t *face = font_face();
    cairo_font_options_t *o = font_options();
    cairo_scaled_font_t *font = cairo_scaled_font_create(face, &font_matrix, &ctm, o);
    cairo_font_options_destroy(o);
    cairo_font_face_destroy(face);
    return font;
}

double text_width(double size, const char *text)
{
    char *clean = printable(text);
    cairo_scaled_font_t *font = scaled_font(size);
    cairo_text_extents_t e = { 0 };
    if (clean)
        cairo_scaled_font_text_extents(font, clean, &e);
    cairo_scaled_font_destroy(font);
    free(clean);
    return e.x_advance;
}

double text_cap_height(double size)
{
    cairo_scaled_font_t *font = scaled_font(size);
    cairo_text_extents_t e = { 0 };
    cairo_scaled_font_text_extents(font, "H", &e);
    cairo_scaled_font_destroy(font);
    /* No font at all (fontconfig without fonts): the usual proportion. */
    return e.height > 0 ? e.height : 0.73 * size;
}

/* Draws at the current origin, the anchor there. */
static void draw_anchored(cairo_t *cr, double size, enum text_along along, enum text_across across, const char *text,
                          struct rgb colour)
{
    char *clean = printable(text);
    if (!clean)
        return;
    cairo_font_face_t *face = font_face();
    cairo_font_options_t *o = font_options();
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, size);
    cairo_set_font_options(cr, o);
    cairo_text_extents_t e;
    cairo_text_extents(cr, clean, &e);
    double dx = along == TEXT_LEFT ? 0 : along == TEXT_CENTRE ? -e.x_advance / 2 : -e.x_advance;
    double cap = text_cap_height(size);
    double dy = across == TEXT_TOP ? cap : across == TEXT_MIDDLE ? cap / 2 : 0;
    figure_colour(cr, colour);
    cairo_move_to(cr, dx, dy);
    cairo_show_text(cr, clean);
    cairo_new_path(cr);
    cairo_font_options_destroy(o);
    cairo_font_face_destroy(face);
    free(clean);
}

void text_draw(cairo_t *cr, double x, double y, double size, enum text_along along, enum text_across across,
               const char *text, struct rgb colour)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    draw_anchored(cr, size, along, across, text, colour);
    cairo_restore(cr);
}

void text_draw_up(cairo_t *cr, double x, double y, double size, enum text_along along, enum text_across across,
                  const char *text, struct rgb colour)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -M_PI / 2);
    draw_anchored(cr, size, along, across, text, colour);
    cairo_restore(cr);
}
