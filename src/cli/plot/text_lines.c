/* text_lines.c - text broken into lines of a width (see text_lines.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "plot/figure.h"
#include "plot/text_lines.h"

/* How many bytes of s fit in `width` pixels: up to a space where one fits,
 * else as many whole characters as fit (at least one). */
static size_t fitting_bytes(const char *s, double size, double width)
{
    char head[TEXT_LINE_LEN];
    size_t n = strlen(s), take = 0, at_space = 0;
    for (size_t k = 1; k <= n && k < TEXT_LINE_LEN; k++) {
        /* Only after a whole UTF-8 character. */
        if (((unsigned char)s[k] & 0xc0) == 0x80)
            continue;
        snprintf(head, sizeof head, "%.*s", (int)k, s);
        if (text_width(size, head) > width)
            break;
        take = k;
        if (s[k] == ' ' || s[k] == '\0')
            at_space = k;
    }
    if (take == 0) {
        /* Not even one character fits: one anyway. */
        take = 1;
        while (((unsigned char)s[take] & 0xc0) == 0x80)
            take++;
        return take;
    }
    return take < n && at_space > 0 ? at_space : take;
}

/* Adds a piece of text: after the last line's text when `join` and it
 * fits, else on lines of its own. */
static void add_piece(struct text_lines *out, const char *piece, int join, double size, double width)
{
    if (join && out->count > 0) {
        char *line = out->line[out->count - 1], joined[2 * TEXT_LINE_LEN];
        snprintf(joined, sizeof joined, "%s %s", line, piece);
        if (strlen(joined) < TEXT_LINE_LEN && text_width(size, joined) <= width) {
            strcpy(line, joined);
            return;
        }
    }
    while (*piece && out->count < TEXT_MAX_LINES) {
        size_t n = fitting_bytes(piece, size, width);
        snprintf(out->line[out->count++], TEXT_LINE_LEN, "%.*s", (int)n, piece);
        for (piece += n; *piece == ' '; piece++)
            ;
    }
}

void text_lines_add(struct text_lines *out, const char *text, double size, double width)
{
    char piece[TEXT_LINE_LEN];
    for (int first = 1; *text; first = 0) {
        const char *end = strstr(text, ", ");
        size_t n = end ? (size_t)(end - text) + 1 : strlen(text);
        snprintf(piece, sizeof piece, "%.*s", (int)n, text);
        text += end ? n + 1 : n;
        add_piece(out, piece, !first, size, width);
    }
}
