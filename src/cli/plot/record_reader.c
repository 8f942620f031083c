/* record_reader.c - a results file's records: CSV, TSV or JSON lines (see record_reader.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/record_reader.h"

/* A key's slot not yet filled by the object being read. */
#define NO_FIELD ((size_t)-1)

/* ---- characters ------------------------------------------------------------ */

/* The bytes read ahead to tell the form come first, then the file's. */
static int next_char(struct record_reader *r)
{
    if (r->ahead_pos < r->ahead_len) {
        r->last_from_ahead = 1;
        return (unsigned char)r->ahead[r->ahead_pos++];
    }
    r->last_from_ahead = 0;
    return getc(r->f);
}

/* Gives back the character next_char last returned (not EOF). */
static void push_back(struct record_reader *r, int ch)
{
    if (r->last_from_ahead)
        r->ahead_pos--;
    else
        ungetc(ch, r->f);
}

/* At the end of the file: 0, or CLX_ERR_IO when it ended by a read error. */
static int end_of_file(const struct record_reader *r, clx_message *msg)
{
    if (!ferror(r->f))
        return 0;
    snprintf(msg->text, sizeof msg->text, "%s: %s", r->path, strerror(errno));
    return CLX_ERR_IO;
}

static int out_of_memory(const struct record_reader *r, clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "%s: out of memory", r->path);
    return CLX_ERR_HOST_MEMORY;
}

/* Room for `need` bytes in *buffer. */
static int reserve(char **buffer, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    char *p = realloc(*buffer, n);
    if (!p)
        return -1;
    *buffer = p;
    *cap = n;
    return 0;
}

static int put(struct record_reader *r, char ch, clx_message *msg)
{
    if (reserve(&r->text, &r->cap, r->len + 1))
        return out_of_memory(r, msg);
    r->text[r->len++] = ch;
    return CLX_OK;
}

static int reserve_fields(struct record_reader *r, size_t need, clx_message *msg)
{
    if (need <= r->fields_cap)
        return CLX_OK;
    size_t cap = r->fields_cap ? r->fields_cap : 16;
    while (cap < need)
        cap *= 2;
    size_t *s = realloc(r->start, cap * sizeof *s);
    if (!s)
        return out_of_memory(r, msg);
    r->start = s;
    r->fields_cap = cap;
    return CLX_OK;
}

static int begin_field(struct record_reader *r, clx_message *msg)
{
    int status = reserve_fields(r, r->fields + 1, msg);
    if (status == CLX_OK)
        r->start[r->fields++] = r->len;
    return status;
}

const char *record_field(const struct record_reader *r, size_t i)
{
    return r->text + r->start[i];
}

/* ---- CSV --------------------------------------------------------------------- */

/* A quoted field, after its opening quote: up to the closing quote, ""
 * standing for one quote; *after the character after it (',', '\n' or EOF). */
static int read_quoted(struct record_reader *r, long first_line, int *after, clx_message *msg)
{
    int ch, status;
    for (;;) {
        ch = next_char(r);
        if (ch == EOF) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: a quoted field is not closed", r->path, first_line);
            return CLX_ERR_FORMAT;
        }
        if (ch == '"') {
            ch = next_char(r);
            if (ch != '"')
                break;
        }
        if (ch == '\n')
            r->line++;
        if ((status = put(r, (char)ch, msg)) != CLX_OK)
            return status;
    }
    if (ch == '\r')
        ch = next_char(r);
    if (ch != ',' && ch != '\n' && ch != EOF) {
        snprintf(msg->text, sizeof msg->text, "%s:%ld: text after the closing quote of field %zu", r->path, r->line,
                 r->fields);
        return CLX_ERR_FORMAT;
    }
    *after = ch;
    return CLX_OK;
}

/* Skips blank lines; returns the first character of the next record, or EOF. */
static int skip_blank_lines(struct record_reader *r, long *first_line)
{
    for (;;) {
        *first_line = r->line;
        int ch = next_char(r);
        if (ch == '\n' || (ch == '\r' && (ch = next_char(r)) == '\n')) {
            r->line++;
            continue;
        }
        return ch;
    }
}

static int read_csv_record(struct record_reader *r, long *first_line, clx_message *msg)
{
    int ch, status;
    r->len = 0;
    r->fields = 0;
    ch = skip_blank_lines(r, first_line);
    if (ch == EOF)
        return end_of_file(r, msg);
    push_back(r, ch);
    for (;;) {
        if ((status = begin_field(r, msg)) != CLX_OK)
            return status;
        ch = next_char(r);
        if (ch == '"') {
            if ((status = read_quoted(r, *first_line, &ch, msg)) != CLX_OK)
                return status;
        } else {
            while (ch != ',' && ch != '\n' && ch != EOF) {
                if ((status = put(r, (char)ch, msg)) != CLX_OK)
                    return status;
                ch = next_char(r);
            }
            /* CRLF line ends: the CR is not part of the last field. */
            if (ch != ',' && r->len > r->start[r->fields - 1] && r->text[r->len - 1] == '\r')
                r->len--;
        }
        if ((status = put(r, '\0', msg)) != CLX_OK)
            return status;
        if (ch != ',') {
            if (ch == '\n')
                r->line++;
            return 1;
        }
    }
}

/* ---- lines: TSV and JSON lines ------------------------------------------------ */

/* Reads the next line that is not blank into r->line_text ('\0'-ended,
 * without its line end). Returns 1, 0 at the end, or an error. */
static int read_line(struct record_reader *r, long *first_line, clx_message *msg)
{
    for (;;) {
        int ch;
        r->line_len = 0;
        *first_line = r->line;
        while ((ch = next_char(r)) != EOF && ch != '\n') {
            if (reserve(&r->line_text, &r->line_cap, r->line_len + 2))
                return out_of_memory(r, msg);
            r->line_text[r->line_len++] = (char)ch;
        }
        if (ch == '\n')
            r->line++;
        if (r->line_len > 0 && r->line_text[r->line_len - 1] == '\r')
            r->line_len--;
        if (r->line_len > 0) {
            r->line_text[r->line_len] = '\0';
            return 1;
        }
        if (ch == EOF)
            return end_of_file(r, msg);
    }
}

/* The line's fields, split at tabs, the writer's escapes undone. */
static int split_tsv_line(struct record_reader *r, clx_message *msg)
{
    int status;
    r->len = 0;
    r->fields = 0;
    if ((status = begin_field(r, msg)) != CLX_OK)
        return status;
    for (size_t i = 0; i < r->line_len && status == CLX_OK; i++) {
        char ch = r->line_text[i];
        if (ch == '\t') {
            if ((status = put(r, '\0', msg)) == CLX_OK)
                status = begin_field(r, msg);
            continue;
        }
        if (ch == '\\' && i + 1 < r->line_len) {
            char e = r->line_text[i + 1];
            char plain = e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == '\\' ? '\\' : 0;
            if (plain) {
                ch = plain;
                i++;
            }
        }
        status = put(r, ch, msg);
    }
    return status == CLX_OK ? put(r, '\0', msg) : status;
}

/* ---- JSON lines ----------------------------------------------------------------- */

struct json_cursor {
    const char *s;
    size_t pos;
    long line;
};

static void skip_space(struct json_cursor *c)
{
    while (c->s[c->pos] == ' ' || c->s[c->pos] == '\t')
        c->pos++;
}

static int json_error(const struct record_reader *r, const struct json_cursor *c, const char *what, clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "%s:%ld: not a JSON object of results: %s at column %zu", r->path, c->line,
             what, c->pos + 1);
    return CLX_ERR_FORMAT;
}

/* Appends code point u as UTF-8. */
static int put_utf8(struct record_reader *r, unsigned long u, clx_message *msg)
{
    unsigned char b[4];
    int n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4, status = CLX_OK;
    static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
    for (int i = n - 1; i > 0; i--, u >>= 6)
        b[i] = (unsigned char)(0x80 | (u & 0x3f));
    b[0] = (unsigned char)(lead[n] | u);
    for (int i = 0; i < n && status == CLX_OK; i++)
        status = put(r, (char)b[i], msg);
    return status;
}

static long hex4(const char *s)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char h = s[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A \u escape at c->pos (after the backslash and the u), a surrogate pair
 * taken whole. */
static int json_unicode(struct record_reader *r, struct json_cursor *c, clx_message *msg)
{
    long u = hex4(c->s + c->pos);
    if (u < 0)
        return json_error(r, c, "a \\u escape without four hex digits", msg);
    c->pos += 4;
    if (u >= 0xd800 && u < 0xdc00 && c->s[c->pos] == '\\' && c->s[c->pos + 1] == 'u') {
        long low = hex4(c->s + c->pos + 2);
        if (low >= 0xdc00 && low < 0xe000) {
            u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
            c->pos += 6;
        }
    }
    /* \udc80..\udcff: a byte of a name that is not UTF-8, as offsets
     * writes it (json_out.h's json_char, Python's surrogateescape). */
    if (u >= 0xdc80 && u <= 0xdcff) {
        return put(r, (char)(u - 0xdc00), msg);
    }
    if (u >= 0xd800 && u < 0xe000)
        u = 0xfffd;   /* another lone surrogate: the replacement character */
    return put_utf8(r, (unsigned long)u, msg);
}

/* A string, c->pos after its opening quote: its text appended, '\0'-ended. */
static int json_string(struct record_reader *r, struct json_cursor *c, clx_message *msg)
{
    static const char escaped[] = "\"\\/bfnrt", plain[] = "\"\\/\b\f\n\r\t";
    int status = CLX_OK;
    while (status == CLX_OK) {
        char ch = c->s[c->pos];
        if (ch == '\0')
            return json_error(r, c, "a string is not closed", msg);
        c->pos++;
        if (ch == '"')
            return put(r, '\0', msg);
        if (ch != '\\') {
            status = put(r, ch, msg);
            continue;
        }
        ch = c->s[c->pos++];
        const char *e = ch ? strchr(escaped, ch) : NULL;
        if (e)
            status = put(r, plain[e - escaped], msg);
        else if (ch == 'u')
            status = json_unicode(r, c, msg);
        else
            return json_error(r, c, "an unknown escape", msg);
    }
    return status;
}

/* A value, appended as text: a string's text, a number as written, null
 * (and the NaN some writers put, which JSON lacks) as "nan"; objects and
 * arrays are not results. */
static int json_value(struct record_reader *r, struct json_cursor *c, clx_message *msg)
{
    static const struct {
        const char *word, *text;
    } words[] = { { "null", "nan" }, { "NaN", "nan" }, { "true", "true" }, { "false", "false" } };
    const char *s = c->s + c->pos;
    int status = CLX_OK;
    if (*s == '"') {
        c->pos++;
        return json_string(r, c, msg);
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (strncmp(s, words[i].word, n) == 0) {
            c->pos += n;
            for (const char *t = words[i].text; *t && status == CLX_OK; t++)
                status = put(r, *t, msg);
            return status == CLX_OK ? put(r, '\0', msg) : status;
        }
    }
    if (*s == '\0' || !strchr("-0123456789", *s))
        return json_error(r, c, *s == '{' || *s == '[' ? "a nested object or array" : "no value", msg);
    /* The number as written: whoever reads the field checks it. */
    while (*s && strchr("+-0123456789.eE", *s) && status == CLX_OK)
        status = put(r, *s++, msg);
    c->pos = (size_t)(s - c->s);
    return status == CLX_OK ? put(r, '\0', msg) : status;
}

/* The index of key `name`: a new one while the header is read, else one of
 * the header's. */
static int json_key_index(struct record_reader *r, const struct json_cursor *c, const char *name, int header,
                          size_t *index, clx_message *msg)
{
    for (size_t k = 0; k < r->nkeys; k++)
        if (strcmp(r->keys[k], name) == 0) {
            if (r->start[k] != NO_FIELD) {
                snprintf(msg->text, sizeof msg->text, "%s:%ld: key '%.80s' twice", r->path, c->line, name);
                return CLX_ERR_FORMAT;
            }
            *index = k;
            return CLX_OK;
        }
    if (!header) {
        snprintf(msg->text, sizeof msg->text, "%s:%ld: key '%.80s' is not in the first line's object", r->path,
                 c->line, name);
        return CLX_ERR_FORMAT;
    }
    char **keys = realloc(r->keys, (r->nkeys + 1) * sizeof *keys);
    if (!keys)
        return out_of_memory(r, msg);
    r->keys = keys;
    if (!(r->keys[r->nkeys] = strdup(name)) || reserve_fields(r, r->nkeys + 1, msg) != CLX_OK)
        return out_of_memory(r, msg);
    r->start[r->nkeys] = NO_FIELD;
    *index = r->nkeys++;
    return CLX_OK;
}

/* One "key": value pair at c->pos, the value's text put in its key's field. */
static int json_member(struct record_reader *r, struct json_cursor *c, int header, clx_message *msg)
{
    size_t key_at = r->len, index;
    int status;
    if (c->s[c->pos] != '"')
        return json_error(r, c, "expected a key in quotes", msg);
    c->pos++;
    if ((status = json_string(r, c, msg)) != CLX_OK)
        return status;
    char *name = strdup(r->text + key_at);
    r->len = key_at;
    if (!name)
        return out_of_memory(r, msg);
    status = json_key_index(r, c, name, header, &index, msg);
    free(name);
    if (status != CLX_OK)
        return status;
    skip_space(c);
    if (c->s[c->pos] != ':')
        return json_error(r, c, "expected ':'", msg);
    c->pos++;
    skip_space(c);
    r->start[index] = r->len;
    return json_value(r, c, msg);
}

/* The line as one object: its values in the fields of their keys. While the
 * header is read (`header`), its keys become the keys. */
static int parse_object(struct record_reader *r, long line, int header, clx_message *msg)
{
    struct json_cursor c = { r->line_text, 0, line };
    int status;
    r->len = 0;
    for (size_t k = 0; k < r->nkeys; k++)
        r->start[k] = NO_FIELD;
    skip_space(&c);
    if (c.s[c.pos] != '{')
        return json_error(r, &c, "expected '{'", msg);
    c.pos++;
    do {
        skip_space(&c);
        if ((status = json_member(r, &c, header, msg)) != CLX_OK)
            return status;
        skip_space(&c);
    } while (c.s[c.pos] == ',' && ++c.pos);
    if (c.s[c.pos] != '}')
        return json_error(r, &c, "expected ',' or '}'", msg);
    c.pos++;
    skip_space(&c);
    if (c.s[c.pos] != '\0')
        return json_error(r, &c, "text after the object", msg);
    for (size_t k = 0; k < r->nkeys; k++)
        if (r->start[k] == NO_FIELD) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: no key '%.80s' (the first line's object has it)", r->path,
                     line, r->keys[k]);
            return CLX_ERR_FORMAT;
        }
    r->fields = r->nkeys;
    return CLX_OK;
}

/* The header of JSON lines: the first object's keys. Its line is then read
 * again as the first row (it is still in the bytes read ahead). */
static int read_json_header(struct record_reader *r, long *first_line, clx_message *msg)
{
    size_t line_start;
    int status;
    /* Blank lines first, so that the line starts where it is re-read. */
    int ch = skip_blank_lines(r, first_line);
    if (ch == EOF)
        return end_of_file(r, msg);
    push_back(r, ch);
    line_start = r->ahead_pos;
    if ((status = read_line(r, first_line, msg)) != 1)
        return status;
    if ((status = parse_object(r, *first_line, 1, msg)) != CLX_OK)
        return status;
    r->len = 0;
    r->fields = 0;
    for (size_t k = 0; k < r->nkeys && status == CLX_OK; k++) {
        if ((status = begin_field(r, msg)) != CLX_OK)
            break;
        for (const char *s = r->keys[k]; *s && status == CLX_OK; s++)
            status = put(r, *s, msg);
        if (status == CLX_OK)
            status = put(r, '\0', msg);
    }
    r->ahead_pos = line_start;
    r->line = *first_line;
    return status == CLX_OK ? 1 : status;
}

/* ---- the reader ---------------------------------------------------------------- */

/* Reads up to the end of the first line that is not blank, keeps those bytes
 * to be read again, and tells the form from that line. */
static int tell_format(struct record_reader *r, clx_message *msg)
{
    int ch, content = 0;
    size_t line_start = 0, cap = 0;
    while ((ch = getc(r->f)) != EOF) {
        if (reserve(&r->ahead, &cap, r->ahead_pos + 1))
            return out_of_memory(r, msg);
        r->ahead[r->ahead_pos++] = (char)ch;
        if (ch == '\n') {
            if (content)
                break;
            line_start = r->ahead_pos;
        } else if (ch != '\r') {
            content = 1;
        }
    }
    if (ferror(r->f))
        return end_of_file(r, msg);
    const char *line = r->ahead + line_start;
    size_t n = r->ahead_pos - line_start;
    r->format = n > 0 && line[0] == '{' ? RECORD_JSONL : n > 0 && memchr(line, '\t', n) ? RECORD_TSV : RECORD_CSV;
    r->ahead_len = r->ahead_pos;
    r->ahead_pos = 0;
    return CLX_OK;
}

int record_reader_open(struct record_reader *r, const char *path, clx_message *msg)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->line = 1;
    if (!(r->f = fopen(path, "rb"))) {
        snprintf(msg->text, sizeof msg->text, "%s: %s", path, strerror(errno));
        return CLX_ERR_IO;
    }
    int status = tell_format(r, msg);
    if (status != CLX_OK)
        record_reader_close(r);
    return status;
}

int record_read(struct record_reader *r, long *first_line, clx_message *msg)
{
    int status;
    switch (r->format) {
    case RECORD_CSV: return read_csv_record(r, first_line, msg);
    case RECORD_TSV:
        if ((status = read_line(r, first_line, msg)) != 1)
            return status;
        return (status = split_tsv_line(r, msg)) == CLX_OK ? 1 : status;
    case RECORD_JSONL:
        if (!r->keys)
            return read_json_header(r, first_line, msg);
        if ((status = read_line(r, first_line, msg)) != 1)
            return status;
        return (status = parse_object(r, *first_line, 0, msg)) == CLX_OK ? 1 : status;
    }
    return 0;
}

void record_reader_close(struct record_reader *r)
{
    if (r->f)
        fclose(r->f);
    free(r->text);
    free(r->start);
    free(r->ahead);
    free(r->line_text);
    for (size_t k = 0; k < r->nkeys; k++)
        free(r->keys[k]);
    free(r->keys);
    memset(r, 0, sizeof *r);
}

int field_real(const char *text, enum field_real_accepts accepts, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE)
        return -1;
    return isfinite(*out) || (isnan(*out) && (accepts & FIELD_NAN)) ||
           (isinf(*out) && accepts == FIELD_NAN_INF) ? 0 : -1;
}

int field_count(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    *out = strtoul(text, &end, 10);
    return *end == '\0' && errno == 0 && *out <= max ? 0 : -1;
}
