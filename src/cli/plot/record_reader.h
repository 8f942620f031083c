/*
 * record_reader.h - the records of a results file, for `clxcorr plot`: a
 * header of column names, then rows of text fields, in any of the forms
 * `clxcorr offsets --format` writes:
 *
 *   csv    fields separated by commas, quoted as RFC 4180 says;
 *   tsv    fields separated by tabs, with the \t \n \r \\ escapes the
 *          command writes in image names (TSV has no quoting);
 *   jsonl  one JSON object per line: the first object's keys are the
 *          header, and each row gives its values in the header's order
 *          whatever the order of its keys; every object must have the
 *          same keys; null reads as "nan", numbers as written.
 *
 * The form is told from the first line that is not blank: one that starts
 * with '{' is JSON lines, one with a tab TSV, any other CSV. Blank lines
 * are skipped; CRLF line ends are read as LF.
 */
#ifndef CLX_RECORD_READER_H
#define CLX_RECORD_READER_H

#include <stdio.h>
#include "clxcorr.h"

enum record_format { RECORD_CSV, RECORD_TSV, RECORD_JSONL };

struct record_reader {
    FILE *f;
    const char *path;
    enum record_format format;
    long line;                 /* the line the next character is on */
    char *text;                /* the record's fields, each ended by '\0' */
    size_t len, cap;
    size_t *start;             /* where each field begins in text */
    size_t fields, fields_cap;
    char *ahead;               /* bytes read to tell the form, read again first */
    size_t ahead_len, ahead_pos;
    int last_from_ahead;       /* where the last character came from (for push_back) */
    char *line_text;           /* TSV and JSON lines: the line being split */
    size_t line_len, line_cap;
    char **keys;               /* JSON lines: the header's keys, once read */
    size_t nkeys;
};

/*
 * Opens the file and tells its form. CLX_ERR_IO (msg "PATH: reason") when it
 * cannot be opened or read, CLX_ERR_HOST_MEMORY.
 */
int record_reader_open(struct record_reader *r, const char *path, clx_message *msg);

/*
 * Reads the next record into r's fields (r->fields of them, record_field
 * gives each), *first_line the line it starts on; the first call gives the
 * header. Returns 1 for a record, 0 at the end of the file, or an error
 * status with msg naming the file and line (CLX_ERR_FORMAT: an unclosed
 * quote, text after a closing quote, bad JSON, a JSON object whose keys
 * differ from the first one's).
 */
int record_read(struct record_reader *r, long *first_line, clx_message *msg);

const char *record_field(const struct record_reader *r, size_t i);

/* Which numbers field_real takes besides finite ones, as the command writes
 * them: "nan" (an offset it could not measure; JSON's null), and "inf",
 * "-inf" (peak_ratio where the second peak is 0). */
enum field_real_accepts { FIELD_FINITE = 0, FIELD_NAN = 1, FIELD_NAN_INF = 3 };

/* A whole field as a number, finite or as `accepts` allows. 0, or -1 for
 * anything else (and for a number beyond double's range: not the writer's). */
int field_real(const char *text, enum field_real_accepts accepts, double *out);

/* A whole field as a count of digits only, at most max. 0, or -1. */
int field_count(const char *text, unsigned long max, unsigned long *out);

void record_reader_close(struct record_reader *r);

#endif
