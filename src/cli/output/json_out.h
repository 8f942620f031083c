/*
 * json_out.h - writing JSON (bench's report, offsets --meta, the rows of
 * --format jsonl): strings as valid UTF-8 whatever a driver reported or a
 * file is named (see json_char), and objects member by member.
 */
#ifndef CLX_JSON_OUT_H
#define CLX_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

/* The code point at s (len bytes left) and its length in bytes; a byte that
 * does not start a valid UTF-8 sequence reads as U+FFFD, one byte long. */
size_t utf8_next(const char *s, size_t len, unsigned long *cp);
void utf8_put(FILE *f, unsigned long c);

/*
 * The JSON text of the character at s (len > 0 bytes left) into out (room
 * for 6 bytes), *n its length; returns the bytes of s it takes. Valid UTF-8
 * stays as it is; '"', '\\' and controls are escaped. A byte that starts
 * no valid UTF-8 sequence becomes, with `bytes_kept` (a file name's: the
 * rows of --format jsonl), \udc80..\udcff, its value plus U+DC00, as
 * Python's surrogateescape decodes it, so that os.fsencode() of the string
 * json.loads() gives is the byte again; else (a driver's text) U+FFFD,
 * which every JSON reader takes (some refuse a lone surrogate).
 */
size_t json_char(const char *s, size_t len, int bytes_kept, char *out, size_t *n);

/* s[0..len) as a JSON string, quotes included; a byte that is not UTF-8 as U+FFFD. */
void json_string(FILE *f, const char *s, size_t len);

/* An object being written: members after the first are preceded by a comma. */
struct json_object {
    FILE *f;
    const char *indent;   /* of its members */
    int members;
};

/* Starts a member: the comma, new line, indent and "key": . */
void json_key(struct json_object *o, const char *key);
void json_text(struct json_object *o, const char *key, const char *s, size_t len);
void json_int(struct json_object *o, const char *key, long long v);
/* null when v is not finite. */
void json_double(struct json_object *o, const char *key, const char *format, double v);

#endif
