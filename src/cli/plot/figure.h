/*
 * figure.h - a picture drawn with cairo: an RGB image surface and its
 * drawing context, text in a sans-serif font, and the PNG written through
 * clx_output.
 *
 * The pictures draw with cairo's own calls on figure.cr (anti-aliased
 * paths, fills and strokes). Coordinates are pixels, (0, 0) the top-left
 * corner of the top-left pixel: a line one pixel wide is crisp on a
 * half-pixel (x + 0.5), a filled rectangle on whole pixels.
 *
 * Text: FIGURE_FONT (DejaVu Sans, or what fontconfig offers in its place),
 * anti-aliased in grey, with metrics unhinted, so that a text measured
 * before the picture is laid out (text_width, without a surface) takes the
 * same room when drawn. Text is UTF-8; bytes that are not (a file name in
 * another encoding) and control characters draw as U+FFFD, so that no name
 * can stop cairo drawing.
 */
#ifndef CLX_FIGURE_H
#define CLX_FIGURE_H

#include <cairo.h>
#include "clxcorr.h"
#include "plot/plot_colours.h"

#define FIGURE_FONT "DejaVu Sans"

/* Text sizes (the em, in pixels): a picture's title, names of axes and
 * bars, tick labels and captions. */
#define TEXT_TITLE 16.0
#define TEXT_LABEL 15.0
#define TEXT_TICK 13.0

/* The colour of text, frames and ticks: near black, as print has it. */
#define FIGURE_INK ((struct rgb){ 25, 25, 25 })

/* The pictures are at most a few thousand pixels across; larger is a mistake. */
#define FIGURE_MAX_SIDE 16384

struct figure {
    int width, height;
    cairo_surface_t *surface;
    cairo_t *cr;
};

/* A white picture of width x height. CLX_ERR_ARGUMENT (a side out of 1 to
 * FIGURE_MAX_SIDE), CLX_ERR_HOST_MEMORY; msg says which. */
int figure_create(struct figure *f, int width, int height, clx_message *msg);
void figure_free(struct figure *f);

/*
 * Writes the picture as PNG (8-bit RGB) through clx_output: written beside
 * PATH and renamed over it when complete, so that a failed write never
 * leaves a PNG that looks complete; a FIFO or device is written as it is.
 * A drawing that cairo could not complete is an error too.
 */
int figure_write_png(struct figure *f, const char *path, clx_message *msg);

/* Pixels set one by one, for what is drawn pixel by pixel (an image, a
 * map's cells): exact colours, no seams between neighbours. Between
 * figure_pixels_begin and figure_pixels_end no cairo drawing; pixels
 * outside the picture are left alone. */
void figure_pixels_begin(struct figure *f);
void figure_pixel_set(struct figure *f, int x, int y, struct rgb colour);
void figure_pixels_end(struct figure *f);

/* Sets the source colour (with alpha 0 to 1). */
void figure_colour(cairo_t *cr, struct rgb colour);
void figure_colour_alpha(cairo_t *cr, struct rgb colour, double alpha);

/* A crisp outline one pixel wide just inside the rectangle of whole pixels. */
void figure_frame(cairo_t *cr, int x, int y, int w, int h, struct rgb colour);

/* Where a text's anchor lies along it, and across it: TEXT_TOP at the top
 * of its capitals, TEXT_MIDDLE halfway down them (a tick label beside its
 * tick), TEXT_BASELINE on its baseline. */
enum text_along { TEXT_LEFT, TEXT_CENTRE, TEXT_RIGHT };
enum text_across { TEXT_TOP, TEXT_MIDDLE, TEXT_BASELINE };

/* The width the text takes at `size`, and the height of the capitals. */
double text_width(double size, const char *text);
double text_cap_height(double size);

/* Draws text left to right, anchored at (x, y) as along and across say. */
void text_draw(cairo_t *cr, double x, double y, double size, enum text_along along, enum text_across across,
               const char *text, struct rgb colour);
/* The same turned a quarter left, reading upwards (an axis name at the
 * side of a plot): TEXT_LEFT anchors its bottom end, and the tops of its
 * capitals face left, so that TEXT_TOP puts them on x. */
void text_draw_up(cairo_t *cr, double x, double y, double size, enum text_along along, enum text_across across,
                  const char *text, struct rgb colour);

#endif
