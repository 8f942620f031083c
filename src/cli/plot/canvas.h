/*
 * canvas.h - an RGB picture in memory, the few drawing operations the
 * plots need (anti-aliased lines, discs and triangles, rectangles, text in
 * the built-in 5 x 7 font) and writing it as PNG.
 */
#ifndef CLX_CANVAS_H
#define CLX_CANVAS_H

#include "clxcorr.h"

struct rgb {
    unsigned char r, g, b;
};

struct canvas {
    int width, height;
    unsigned char *pixels;   /* width * height * 3 bytes, rows top first */
    int clip_x0, clip_y0, clip_x1, clip_y1;   /* drawing stays inside [x0, x1) x [y0, y1) */
};

/* A canvas of width x height filled with `background`. */
int canvas_create(struct canvas *c, int width, int height, struct rgb background, clx_message *msg);
void canvas_free(struct canvas *c);

/* Keeps all drawing inside the rectangle (within the canvas) until
 * canvas_unclip: arrows stay off the legend and the caption. */
void canvas_clip(struct canvas *c, int x, int y, int w, int h);
void canvas_unclip(struct canvas *c);

/* Mixes `colour` into pixel (x, y) with weight alpha (0..1); pixels outside
 * the canvas or the clip rectangle are left alone. */
void canvas_blend(struct canvas *c, int x, int y, struct rgb colour, double alpha);
void canvas_fill_rect(struct canvas *c, int x, int y, int w, int h, struct rgb colour);
/* The outline of the rectangle, one pixel wide. */
void canvas_frame_rect(struct canvas *c, int x, int y, int w, int h, struct rgb colour);

/* A segment `width` pixels thick with round ends, anti-aliased. Coordinates
 * are in pixels, (0.5, 0.5) the centre of the top-left pixel. */
void canvas_line(struct canvas *c, double x0, double y0, double x1, double y1, double width, struct rgb colour);
void canvas_disc(struct canvas *c, double x, double y, double radius, struct rgb colour);
/* A filled triangle, anti-aliased; grown by `grow` pixels on every side
 * (for an outline drawn under it). */
void canvas_triangle(struct canvas *c, const double x[3], const double y[3], double grow, struct rgb colour);

/* Text in the 5 x 7 font, each font pixel drawn scale x scale, its top-left
 * corner at (x, y). Returns the width drawn. */
int canvas_text(struct canvas *c, int x, int y, int scale, const char *text, struct rgb colour);
/* The same text reading upwards (an axis name at the side of a plot): its
 * baseline on the right, the first character's bottom-left corner at
 * (x, y). Returns the length drawn upwards. */
int canvas_text_up(struct canvas *c, int x, int y, int scale, const char *text, struct rgb colour);
/* The width canvas_text would draw, and the height of its capitals
 * (descenders reach 2 * scale below). Text is ASCII and the micro sign
 * "µ" (UTF-8). */
int canvas_text_width(const char *text, int scale);
int canvas_text_height(int scale);

/* Writes the canvas as PNG through clx_output: a file is written beside
 * PATH and renamed over it when complete, so that a failed write never
 * leaves a PNG that looks complete; a FIFO or device is written as it is. */
int canvas_write_png(const struct canvas *c, const char *path, clx_message *msg);

#endif
