/* canvas.c - drawing into an RGB picture and writing it as PNG (see canvas.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/bitmap_font.h"
#include "plot/canvas.h"

/*
 * stb_image_write is compiled here and nowhere else in the command, its
 * functions static. Third-party code: its warnings are not ours to fix.
 * -Wunused-function stays off for the whole file: GCC checks it at the end
 * of the file, after the pop, and stb declares static functions it leaves
 * undefined without stdio.
 */
#define STBI_WRITE_NO_STDIO
#include "plot/stb_write_impl.h"

/* The plots are at most a few thousand pixels across; larger is a mistake. */
#define MAX_SIDE 16384

int canvas_create(struct canvas *c, int width, int height, struct rgb background, clx_message *msg)
{
    memset(c, 0, sizeof *c);
    if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
        snprintf(msg->text, sizeof msg->text, "a picture of %dx%d pixels: each side must be 1 to %d", width,
                 height, MAX_SIDE);
        return CLX_ERR_ARGUMENT;
    }
    size_t n = (size_t)width * height;
    if (!(c->pixels = malloc(n * 3))) {
        snprintf(msg->text, sizeof msg->text, "out of memory for a picture of %dx%d pixels", width, height);
        return CLX_ERR_HOST_MEMORY;
    }
    c->width = width;
    c->height = height;
    canvas_unclip(c);
    for (size_t i = 0; i < n; i++) {
        c->pixels[3 * i] = background.r;
        c->pixels[3 * i + 1] = background.g;
        c->pixels[3 * i + 2] = background.b;
    }
    return CLX_OK;
}

void canvas_free(struct canvas *c)
{
    free(c->pixels);
    memset(c, 0, sizeof *c);
}

void canvas_clip(struct canvas *c, int x, int y, int w, int h)
{
    c->clip_x0 = x < 0 ? 0 : x;
    c->clip_y0 = y < 0 ? 0 : y;
    c->clip_x1 = x + w > c->width ? c->width : x + w;
    c->clip_y1 = y + h > c->height ? c->height : y + h;
}

void canvas_unclip(struct canvas *c)
{
    canvas_clip(c, 0, 0, c->width, c->height);
}

void canvas_blend(struct canvas *c, int x, int y, struct rgb colour, double alpha)
{
    if (x < c->clip_x0 || y < c->clip_y0 || x >= c->clip_x1 || y >= c->clip_y1 || !(alpha > 0))
        return;
    if (alpha > 1)
        alpha = 1;
    unsigned char *p = c->pixels + 3 * ((size_t)y * c->width + x);
    p[0] = (unsigned char)lround(p[0] + (colour.r - p[0]) * alpha);
    p[1] = (unsigned char)lround(p[1] + (colour.g - p[1]) * alpha);
    p[2] = (unsigned char)lround(p[2] + (colour.b - p[2]) * alpha);
}

void canvas_fill_rect(struct canvas *c, int x, int y, int w, int h, struct rgb colour)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            canvas_blend(c, i, j, colour, 1);
}

void canvas_frame_rect(struct canvas *c, int x, int y, int w, int h, struct rgb colour)
{
    canvas_fill_rect(c, x, y, w, 1, colour);
    canvas_fill_rect(c, x, y + h - 1, w, 1, colour);
    canvas_fill_rect(c, x, y, 1, h, colour);
    canvas_fill_rect(c, x + w - 1, y, 1, h, colour);
}

/* Distance from (px, py) to the segment (x0, y0)-(x1, y1). */
static double segment_distance(double px, double py, double x0, double y0, double x1, double y1)
{
    double vx = x1 - x0, vy = y1 - y0, len2 = vx * vx + vy * vy;
    double t = len2 > 0 ? ((px - x0) * vx + (py - y0) * vy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - (x0 + t * vx), py - (y0 + t * vy));
}

void canvas_line(struct canvas *c, double x0, double y0, double x1, double y1, double width, struct rgb colour)
{
    /* Coverage falls from 1 to 0 over the pixel that straddles the edge. */
    double half = width / 2;
    int left = (int)floor(fmin(x0, x1) - half - 1), right = (int)ceil(fmax(x0, x1) + half + 1);
    int top = (int)floor(fmin(y0, y1) - half - 1), bottom = (int)ceil(fmax(y0, y1) + half + 1);
    if (left < c->clip_x0)
        left = c->clip_x0;
    if (top < c->clip_y0)
        top = c->clip_y0;
    if (right > c->clip_x1)
        right = c->clip_x1;
    if (bottom > c->clip_y1)
        bottom = c->clip_y1;
    for (int y = top; y < bottom; y++)
        for (int x = left; x < right; x++)
            canvas_blend(c, x, y, colour, half + 0.5 - segment_distance(x + 0.5, y + 0.5, x0, y0, x1, y1));
}

void canvas_disc(struct canvas *c, double x, double y, double radius, struct rgb colour)
{
    canvas_line(c, x, y, x, y, 2 * radius, colour);
}

/* Signed distance from (px, py) to the line through a and b, positive on
 * the side where the triangle with third corner (cx, cy) lies. */
static double edge_distance(double px, double py, double ax, double ay, double bx, double by, double cx, double cy)
{
    double nx = ay - by, ny = bx - ax, len = hypot(nx, ny);
    if (len == 0)
        return -1e9;
    double d = ((px - ax) * nx + (py - ay) * ny) / len;
    double side = (cx - ax) * nx + (cy - ay) * ny;
    return side >= 0 ? d : -d;
}

void canvas_triangle(struct canvas *c, const double x[3], const double y[3], double grow, struct rgb colour)
{
    int left = (int)floor(fmin(x[0], fmin(x[1], x[2])) - grow - 1);
    int right = (int)ceil(fmax(x[0], fmax(x[1], x[2])) + grow + 1);
    int top = (int)floor(fmin(y[0], fmin(y[1], y[2])) - grow - 1);
    int bottom = (int)ceil(fmax(y[0], fmax(y[1], y[2])) + grow + 1);
    for (int py = top < c->clip_y0 ? c->clip_y0 : top; py < bottom && py < c->clip_y1; py++)
        for (int px = left < c->clip_x0 ? c->clip_x0 : left; px < right && px < c->clip_x1; px++) {
            double cx = px + 0.5, cy = py + 0.5, inside = 1e9;
            for (int e = 0; e < 3; e++) {
                int a = e, b = (e + 1) % 3, o = (e + 2) % 3;
                double d = edge_distance(cx, cy, x[a], y[a], x[b], y[b], x[o], y[o]);
                if (d < inside)
                    inside = d;
            }
            canvas_blend(c, px, py, colour, inside + grow + 0.5);
        }
}

/* The micro sign in UTF-8: the one character beyond ASCII the font has. */
#define MICRO_SIGN "\xc2\xb5"

/* The glyph of the character at s; returns the bytes it takes. Other bytes
 * beyond ASCII draw as one '?' each, as they always have. */
static int next_glyph(const char *s, unsigned char rows[FONT_HEIGHT])
{
    if (strncmp(s, MICRO_SIGN, 2) == 0) {
        font_micro_sign_rows(rows);
        return 2;
    }
    font_glyph_rows(*s, rows);
    return 1;
}

/* The characters canvas_text draws for text. */
static size_t glyph_count(const char *text)
{
    size_t n = 0;
    unsigned char rows[FONT_HEIGHT];
    for (const char *s = text; *s; s += next_glyph(s, rows))
        n++;
    return n;
}

int canvas_text_width(const char *text, int scale)
{
    size_t n = glyph_count(text);
    return n ? (int)((n - 1) * FONT_ADVANCE + FONT_WIDTH) * scale : 0;
}

int canvas_text_height(int scale)
{
    /* Descenders hang below: lines are laid out, and labels centred, on
     * the capitals. */
    return FONT_CAP_HEIGHT * scale;
}

int canvas_text(struct canvas *c, int x, int y, int scale, const char *text, struct rgb colour)
{
    unsigned char rows[FONT_HEIGHT];
    int k = 0;
    for (const char *s = text; *s; k++) {
        s += next_glyph(s, rows);
        int left = x + k * FONT_ADVANCE * scale;
        for (int r = 0; r < FONT_HEIGHT; r++)
            for (int col = 0; col < FONT_WIDTH; col++)
                if (rows[r] & (1u << col))
                    canvas_fill_rect(c, left + col * scale, y + r * scale, scale, scale, colour);
    }
    return canvas_text_width(text, scale);
}

int canvas_text_up(struct canvas *c, int x, int y, int scale, const char *text, struct rgb colour)
{
    /* canvas_text turned a quarter left: a glyph's rows run left to right,
     * its columns bottom to top. */
    unsigned char rows[FONT_HEIGHT];
    int k = 0;
    for (const char *s = text; *s; k++) {
        s += next_glyph(s, rows);
        int bottom = y - k * FONT_ADVANCE * scale;
        for (int r = 0; r < FONT_HEIGHT; r++)
            for (int col = 0; col < FONT_WIDTH; col++)
                if (rows[r] & (1u << col))
                    canvas_fill_rect(c, x + r * scale, bottom - (col + 1) * scale, scale, scale, colour);
    }
    return canvas_text_width(text, scale);
}

struct png_sink {
    clx_output *out;
    int failed;
    clx_message msg;
};

static void png_write(void *user, void *data, int size)
{
    struct png_sink *sink = user;
    if (!sink->failed && clx_output_write(sink->out, data, (size_t)size, &sink->msg) != CLX_OK)
        sink->failed = 1;
}

int canvas_write_png(const struct canvas *c, const char *path, clx_message *msg)
{
    struct png_sink sink = { NULL, 0, { "" } };
    int status = clx_output_open(path, 0, &sink.out, msg);
    if (status != CLX_OK)
        return status;
    int encoded = stbi_write_png_to_func(png_write, &sink, c->width, c->height, 3, c->pixels, c->width * 3);
    if (!encoded) {
        snprintf(msg->text, sizeof msg->text, "%s: the PNG encoder failed (out of memory?)", path);
        status = CLX_ERR_HOST_MEMORY;
    } else if (sink.failed) {
        *msg = sink.msg;
        status = CLX_ERR_IO;
    }
    clx_message close_msg;
    int closed = clx_output_close(sink.out, status == CLX_OK, &close_msg);
    if (status == CLX_OK && closed != CLX_OK) {
        *msg = close_msg;
        status = closed;
    }
    return status;
}
