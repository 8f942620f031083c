/*
 * text_lines.h - a title or caption broken into lines that fit a picture's
 * width: statements start a line, and are broken after their ", " (or at a
 * space, or within a word too long for a line, such as a file name, but
 * never within a character).
 */
#ifndef CLX_TEXT_LINES_H
#define CLX_TEXT_LINES_H

#define TEXT_MAX_LINES 6
#define TEXT_LINE_LEN 256

struct text_lines {
    char line[TEXT_MAX_LINES][TEXT_LINE_LEN];
    int count;
};

/* Adds a statement to the lines, in text of `size`, `width` pixels wide at
 * most; lines beyond TEXT_MAX_LINES are dropped. */
void text_lines_add(struct text_lines *out, const char *text, double size, double width);

#endif
