/* bitmap_font.h - a 5 x 7 pixel font of the printable ASCII characters and
 * the micro sign, with two rows below the baseline for descenders. */
#ifndef CLX_BITMAP_FONT_H
#define CLX_BITMAP_FONT_H

#define FONT_WIDTH 5
#define FONT_HEIGHT 9        /* rows of a glyph, descenders included */
#define FONT_CAP_HEIGHT 7    /* rows from the top to the baseline */
/* Pixels from one character's left edge to the next's. */
#define FONT_ADVANCE 6

/*
 * The glyph of c as FONT_HEIGHT rows, top first; bit x of a row is the
 * pixel x from the left. Returns 1, or 0 when c is not printable ASCII and
 * '?' was given instead.
 */
int font_glyph_rows(char c, unsigned char rows[FONT_HEIGHT]);

/* The glyph of the micro sign (U+00B5), as font_glyph_rows gives them. */
void font_micro_sign_rows(unsigned char rows[FONT_HEIGHT]);

#endif
