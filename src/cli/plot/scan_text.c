/* scan_text.c - a scan's rows from CSV, TSV or JSON lines (see scan_rows.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/record_reader.h"
#include "plot/scan_rows.h"

enum scan_field { FIELD_ROW, FIELD_COL, FIELD_X, FIELD_Y, FIELD_REGION, FIELD_FLAGS, FIELDS };
static const char *const field_names[FIELDS] = { "scan_row", "scan_col", "scan_x", "scan_y", "region", "flags" };

struct reading {
    struct record_reader r;
    struct scan_rows *rows;
    int where[FIELDS];                  /* each field's index in a record; -1: no such column */
    int column_at[SCAN_MAX_COLUMNS];    /* each asked column's; -1: none */
};

/* ---- the header ---------------------------------------------------------------- */

/* The header's column names, joined by ", " (cut short to fit). */
static void list_columns(const struct record_reader *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r->fields && used < len; i++) {
        int n = snprintf(out + used, len - used, "%s%s", i ? ", " : "", record_field(r, i));
        used += n > 0 ? (size_t)n : 0;
    }
}

static int column_index(const struct record_reader *r, const char *name)
{
    for (size_t i = 0; i < r->fields; i++)
        if (strcmp(record_field(r, i), name) == 0)
            return (int)i;
    return -1;
}

/* A header with control bytes is no results file: a binary file's first
 * bytes, which an error should not print. */
static int header_is_text(const struct record_reader *r)
{
    for (size_t i = 0; i < r->fields; i++)
        for (const unsigned char *s = (const unsigned char *)record_field(r, i); *s; s++)
            if (*s < 0x20 || *s == 0x7f)
                return 0;
    return 1;
}

static int find_columns(struct reading *rd, clx_message *msg)
{
    const struct scan_request *q = rd->rows->request;
    char columns[600];
    if (!header_is_text(&rd->r)) {
        snprintf(msg->text, sizeof msg->text,
                 "%s: not a results file (CSV, TSV, JSON lines or HDF5 as clxcorr writes them)", rd->r.path);
        return CLX_ERR_FORMAT;
    }
    for (int f = 0; f < FIELDS; f++)
        rd->where[f] = column_index(&rd->r, field_names[f]);
    list_columns(&rd->r, columns, sizeof columns);
    if (rd->where[FIELD_ROW] < 0 || rd->where[FIELD_COL] < 0) {
        snprintf(msg->text, sizeof msg->text, "%s needs a results file of a scan: scan_row and scan_col columns; %s has %s",
                 q->option, rd->r.path, columns);
        return CLX_ERR_FORMAT;
    }
    for (size_t k = 0; k < q->count; k++) {
        rd->column_at[k] = column_index(&rd->r, q->columns[k]);
        rd->rows->present[k] = rd->column_at[k] >= 0;
        if (rd->column_at[k] < 0 && k < q->required) {
            snprintf(msg->text, sizeof msg->text, "%s %.60s: %s has no such column; it has %s", q->option,
                     q->columns[k], rd->r.path, columns);
            return CLX_ERR_FORMAT;
        }
    }
    rd->rows->strain = column_index(&rd->r, "e11") >= 0;
    rd->rows->has_region = rd->where[FIELD_REGION] >= 0;
    /* Positions need both coordinates. */
    if (rd->where[FIELD_X] < 0 || rd->where[FIELD_Y] < 0)
        rd->where[FIELD_X] = rd->where[FIELD_Y] = -1;
    return CLX_OK;
}

/* ---- the rows ------------------------------------------------------------------ */

static int bad_field(const struct reading *rd, long line, const char *name, const char *text, const char *what,
                     clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "%s:%ld: %.60s '%.40s' is %s", rd->r.path, line, name, text, what);
    return CLX_ERR_FORMAT;
}

static const char *field_text(const struct reading *rd, enum scan_field f)
{
    return rd->where[f] >= 0 ? record_field(&rd->r, (size_t)rd->where[f]) : NULL;
}

/* The whole-number fields of a row: scan_row, scan_col, region, flags. */
static int parse_indices(const struct reading *rd, long line, struct scan_row *e, clx_message *msg)
{
    static const struct {
        enum scan_field f;
        unsigned long max;
        const char *what;
    } wholes[] = {
        { FIELD_ROW, SCAN_MAX_SIDE - 1, "not a whole number from 0 to 99999" },
        { FIELD_COL, SCAN_MAX_SIDE - 1, "not a whole number from 0 to 99999" },
        { FIELD_REGION, SCAN_MAX_WINDOWS - 1, "not a window index (0 to 999999)" },
        { FIELD_FLAGS, 0xffffffffUL, "not a whole number >= 0" },
    };
    unsigned long v[4] = { 0, 0, 0, 0 };
    for (size_t k = 0; k < 4; k++) {
        const char *text = field_text(rd, wholes[k].f);
        if (text && field_count(text, wholes[k].max, &v[k]))
            return bad_field(rd, line, field_names[wholes[k].f], text, wholes[k].what, msg);
    }
    e->row = (unsigned)v[0];
    e->col = (unsigned)v[1];
    e->region = (unsigned)v[2];
    e->flags = (unsigned)v[3];
    return CLX_OK;
}

static int read_row(struct reading *rd, long line, clx_message *msg)
{
    const struct scan_request *q = rd->rows->request;
    struct scan_row e;
    double values[SCAN_MAX_COLUMNS], xy[2];
    int status = parse_indices(rd, line, &e, msg);
    if (status != CLX_OK)
        return status;
    for (size_t k = 0; k < q->count; k++) {
        values[k] = NAN;
        if (rd->column_at[k] < 0)
            continue;
        const char *text = record_field(&rd->r, (size_t)rd->column_at[k]);
        if (field_real(text, FIELD_NAN_INF, &values[k]))
            return bad_field(rd, line, q->columns[k], text, "not a number", msg);
    }
    if (rd->where[FIELD_X] >= 0) {
        if (field_real(field_text(rd, FIELD_X), FIELD_FINITE, &xy[0]))
            return bad_field(rd, line, "scan_x", field_text(rd, FIELD_X), "not a number", msg);
        if (field_real(field_text(rd, FIELD_Y), FIELD_FINITE, &xy[1]))
            return bad_field(rd, line, "scan_y", field_text(rd, FIELD_Y), "not a number", msg);
    }
    e.at = line;
    return scan_rows_add(rd->rows, &e, values, rd->where[FIELD_X] >= 0 ? xy : NULL, msg);
}

int scan_text_read(struct scan_rows *rows, clx_message *msg)
{
    struct reading rd;
    long line;
    int status;

    memset(&rd, 0, sizeof rd);
    rd.rows = rows;
    if ((status = record_reader_open(&rd.r, rows->path, msg)) != CLX_OK)
        return status;
    status = record_read(&rd.r, &line, msg);
    if (status == 0) {
        snprintf(msg->text, sizeof msg->text, "%s: empty; expected a header line (scan_row,scan_col,...)", rows->path);
        status = CLX_ERR_FORMAT;
    }
    if (status < 0 || (status = find_columns(&rd, msg)) != CLX_OK)
        goto done;
    size_t header_fields = rd.r.fields;
    while ((status = record_read(&rd.r, &line, msg)) == 1) {
        if (rd.r.fields != header_fields) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: %zu field%s, but the header has %zu", rows->path, line,
                     rd.r.fields, rd.r.fields == 1 ? "" : "s", header_fields);
            status = CLX_ERR_FORMAT;
            goto done;
        }
        if ((status = read_row(&rd, line, msg)) != CLX_OK)
            goto done;
    }
done:
    record_reader_close(&rd.r);
    return status;
}
