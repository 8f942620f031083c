/* json_out.c - writing JSON; see json_out.h. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/json_out.h"

/* Decodes the character at s (len > 0 bytes left) into *cp and returns its
 * length in bytes. A byte that does not start a valid UTF-8 sequence
 * (overlong, a surrogate, past U+10FFFF, cut short) reads as U+FFFD, one byte
 * long: JSON and XML must be valid UTF-8 whatever a driver reported. */
size_t utf8_next(const char *s, size_t len, unsigned long *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = u[0] < 0x80 ? 1 : u[0] < 0xC2 ? 0 : u[0] < 0xE0 ? 2 : u[0] < 0xF0 ? 3 : u[0] < 0xF5 ? 4 : 0;
    unsigned long c = n == 1 ? u[0] : n == 2 ? u[0] & 0x1Fu : n == 3 ? u[0] & 0x0Fu : u[0] & 0x07u;
    int valid = n > 0 && n <= len;
    for (size_t i = 1; valid && i < n; i++) {
        valid = (u[i] & 0xC0) == 0x80;
        c = c << 6 | (u[i] & 0x3Fu);
    }
    if (valid && ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || (c >= 0xD800 && c <= 0xDFFF) ||
                  c > 0x10FFFF))
        valid = 0;
    *cp = valid ? c : 0xFFFD;
    return valid ? n : 1;
}

void utf8_put(FILE *f, unsigned long c)
{
    if (c < 0x80) {
        fputc((int)c, f);
    } else if (c < 0x800) {
        fputc((int)(0xC0 | c >> 6), f);
        fputc((int)(0x80 | (c & 0x3F)), f);
    } else if (c < 0x10000) {
        fputc((int)(0xE0 | c >> 12), f);
        fputc((int)(0x80 | (c >> 6 & 0x3F)), f);
        fputc((int)(0x80 | (c & 0x3F)), f);
    } else {
        fputc((int)(0xF0 | c >> 18), f);
        fputc((int)(0x80 | (c >> 12 & 0x3F)), f);
        fputc((int)(0x80 | (c >> 6 & 0x3F)), f);
        fputc((int)(0x80 | (c & 0x3F)), f);
    }
}

size_t json_char(const char *s, size_t len, int bytes_kept, char *out, size_t *n)
{
    unsigned long c;
    size_t taken = utf8_next(s, len, &c);
    unsigned char byte = (unsigned char)s[0];
    /* Not UTF-8: utf8_next's U+FFFD for one byte (a real U+FFFD is 3). */
    if (taken == 1 && byte >= 0x80 && bytes_kept)
        *n = (size_t)snprintf(out, 7, "\\udc%02x", byte);
    else if (taken == 1 && byte >= 0x80)
        memcpy(out, "\xef\xbf\xbd", 3), *n = 3;
    else if (c == '"' || c == '\\')
        out[0] = '\\', out[1] = (char)c, *n = 2;
    else if (c < 0x20)
        *n = (size_t)snprintf(out, 7, "\\u%04lx", c);
    else
        memcpy(out, s, taken), *n = taken;
    return taken;
}

void json_string(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        char out[8];
        size_t n;
        i += json_char(s + i, len - i, 0, out, &n);
        fwrite(out, 1, n, f);
    }
    fputc('"', f);
}

void json_key(struct json_object *o, const char *key)
{
    fprintf(o->f, "%s\n%s\"%s\": ", o->members++ ? "," : "", o->indent, key);
}

void json_text(struct json_object *o, const char *key, const char *s, size_t len)
{
    json_key(o, key);
    json_string(o->f, s, len);
}

void json_int(struct json_object *o, const char *key, long long v)
{
    json_key(o, key);
    fprintf(o->f, "%lld", v);
}

void json_double(struct json_object *o, const char *key, const char *format, double v)
{
    json_key(o, key);
    if (isfinite(v))
        fprintf(o->f, format, v);
    else
        fputs("null", o->f);
}
