/* scan_grid.c - a scan's results as a grid of one column's values (see scan_grid.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/record_reader.h"
#include "plot/scan_grid.h"

/* Indices beyond these are taken for a corrupt field: the largest EBSD
 * scans have a few thousand points a side, and plans a few thousand windows. */
#define MAX_SCAN_SIDE 100000
#define MAX_WINDOWS 1000000
/* Grids beyond this many points are more than a picture can show or memory
 * should hold for it (a few stray indices make a huge sparse grid). */
#define MAX_SCAN_POINTS 100000000UL

enum scan_field { FIELD_ROW, FIELD_COL, FIELD_X, FIELD_Y, FIELD_REGION, FIELD_FLAGS, FIELD_VALUE, FIELDS };
static const char *const field_names[FIELD_VALUE] = { "scan_row", "scan_col", "scan_x", "scan_y", "region", "flags" };

/* One row of the chosen window(s). */
struct entry {
    unsigned row, col, region, flags;
    double value;
    long line;
};

/* The positions at the smallest and the largest index seen along one axis:
 * the grid's step and origin in µm come from them. */
struct axis_ends {
    unsigned lo, hi;
    double at_lo, at_hi;
    int seen;
};

struct reading {
    struct record_reader r;
    const char *column;
    int where[FIELDS];          /* each field's index in a record; -1: no such column */
    long region;                /* the chosen window; -1: every window */
    struct entry *entries;
    size_t count, cap;
    struct axis_ends x_ends, y_ends;
    unsigned max_row, max_col;
    size_t windows, rows_read;
    int strain;                 /* clxcorr strain's rows (an e11 column): one per pattern, its own flags */
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

static int find_columns(struct reading *rd, clx_message *msg)
{
    char columns[600];
    for (int f = 0; f < FIELD_VALUE; f++)
        rd->where[f] = column_index(&rd->r, field_names[f]);
    rd->where[FIELD_VALUE] = column_index(&rd->r, rd->column);
    list_columns(&rd->r, columns, sizeof columns);
    if (rd->where[FIELD_ROW] < 0 || rd->where[FIELD_COL] < 0) {
        snprintf(msg->text, sizeof msg->text,
                 "--map needs a results file of a scan: scan_row and scan_col columns; %s has %s", rd->r.path,
                 columns);
        return CLX_ERR_FORMAT;
    }
    if (rd->where[FIELD_VALUE] < 0) {
        snprintf(msg->text, sizeof msg->text, "--map %.60s: %s has no such column; it has %s", rd->column, rd->r.path,
                 columns);
        return CLX_ERR_FORMAT;
    }
    rd->strain = column_index(&rd->r, "e11") >= 0;
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

static void note_position(struct axis_ends *e, unsigned index, double at)
{
    if (!e->seen || index < e->lo) {
        e->lo = index;
        e->at_lo = at;
    }
    if (!e->seen || index > e->hi) {
        e->hi = index;
        e->at_hi = at;
    }
    e->seen = 1;
}

/* The whole-number fields of a row: scan_row, scan_col, region, flags. */
static int parse_indices(const struct reading *rd, long line, struct entry *e, clx_message *msg)
{
    static const struct {
        enum scan_field f;
        unsigned long max;
        const char *what;
    } wholes[] = {
        { FIELD_ROW, MAX_SCAN_SIDE - 1, "not a whole number from 0 to 99999" },
        { FIELD_COL, MAX_SCAN_SIDE - 1, "not a whole number from 0 to 99999" },
        { FIELD_REGION, MAX_WINDOWS - 1, "not a window index (0 to 999999)" },
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
    struct entry e;
    double x, y;
    int status = parse_indices(rd, line, &e, msg);
    if (status != CLX_OK)
        return status;
    const char *value = field_text(rd, FIELD_VALUE);
    if (field_real(value, FIELD_NAN_INF, &e.value))
        return bad_field(rd, line, rd->column, value, "not a number", msg);
    if (rd->where[FIELD_X] >= 0) {
        if (field_real(field_text(rd, FIELD_X), FIELD_FINITE, &x))
            return bad_field(rd, line, "scan_x", field_text(rd, FIELD_X), "not a number", msg);
        if (field_real(field_text(rd, FIELD_Y), FIELD_FINITE, &y))
            return bad_field(rd, line, "scan_y", field_text(rd, FIELD_Y), "not a number", msg);
        note_position(&rd->x_ends, e.col, x);
        note_position(&rd->y_ends, e.row, y);
    }
    e.line = line;
    rd->rows_read++;
    /* Every row makes the grid as large as its point, whatever its window. */
    rd->max_row = e.row > rd->max_row ? e.row : rd->max_row;
    rd->max_col = e.col > rd->max_col ? e.col : rd->max_col;
    if (rd->where[FIELD_REGION] >= 0 && e.region + 1 > rd->windows)
        rd->windows = e.region + 1;
    if (rd->region >= 0 && e.region != (unsigned long)rd->region)
        return CLX_OK;
    if (rd->count == rd->cap) {
        size_t cap = rd->cap ? 2 * rd->cap : 1024;
        struct entry *p = realloc(rd->entries, cap * sizeof *p);
        if (!p) {
            snprintf(msg->text, sizeof msg->text, "%s: out of memory", rd->r.path);
            return CLX_ERR_HOST_MEMORY;
        }
        rd->entries = p;
        rd->cap = cap;
    }
    rd->entries[rd->count++] = e;
    return CLX_OK;
}

/* ---- the grid ------------------------------------------------------------------ */

static int compare_entries(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* Sorted, a point and window given twice are neighbours. */
static int check_twice(const struct reading *rd, clx_message *msg)
{
    for (size_t k = 1; k < rd->count; k++) {
        const struct entry *a = &rd->entries[k - 1], *b = &rd->entries[k];
        if (a->row != b->row || a->col != b->col || a->region != b->region)
            continue;
        char window[48] = "";
        if (rd->where[FIELD_REGION] >= 0)
            snprintf(window, sizeof window, ", window %u", b->region);
        snprintf(msg->text, sizeof msg->text, "%s:%ld: scan point (row %u, column %u)%s again (first on line %ld)",
                 rd->r.path, b->line, b->row, b->col, window, a->line);
        return CLX_ERR_FORMAT;
    }
    return CLX_OK;
}

/* Each point's mean over its trusted, finite rows. */
static int fill_values(const struct reading *rd, struct scan_grid *g, clx_message *msg)
{
    size_t points = g->rows * g->cols;
    size_t *used = calloc(points, sizeof *used);
    g->values = calloc(points, sizeof *g->values);
    if (!used || !g->values) {
        free(used);
        snprintf(msg->text, sizeof msg->text, "%s: out of memory for a scan of %zu x %zu points", rd->r.path, g->cols,
                 g->rows);
        return CLX_ERR_HOST_MEMORY;
    }
    /* Flags are not an estimate to trust or not: a map of them takes every row. */
    unsigned untrusted = strcmp(rd->column, "flags") == 0 ? 0 : rd->strain ? SCAN_STRAIN_UNTRUSTED_FLAGS
                                                                           : SCAN_UNTRUSTED_FLAGS;
    for (size_t k = 0; k < rd->count; k++) {
        const struct entry *e = &rd->entries[k];
        size_t point = (size_t)e->row * g->cols + e->col;
        if (isnan(e->value))
            g->rows_nan++;
        else if (e->flags & untrusted)
            g->rows_flagged++;
        else {
            g->values[point] += e->value;
            used[point]++;
            g->rows_used++;
        }
    }
    for (size_t p = 0; p < points; p++) {
        g->values[p] = used[p] ? g->values[p] / used[p] : NAN;
        g->points_with_value += used[p] > 0;
    }
    free(used);
    return CLX_OK;
}

/* The step along one axis, from its two ends; 0 when one index gives none. */
static double axis_step(const struct axis_ends *e)
{
    return e->seen && e->hi > e->lo ? (e->at_hi - e->at_lo) / (e->hi - e->lo) : 0;
}

/* Positions in µm when the steps are known: a single row (or column) takes
 * the other axis's step, as scans have square steps unless they say. */
static void set_positions(const struct reading *rd, struct scan_grid *g)
{
    double sx = axis_step(&rd->x_ends), sy = axis_step(&rd->y_ends);
    if (!(sx > 0))
        sx = sy;
    if (!(sy > 0))
        sy = sx;
    if (!(sx > 0) || !(sy > 0) || !isfinite(sx) || !isfinite(sy))
        return;
    g->positioned = 1;
    g->step_x = sx;
    g->step_y = sy;
    g->x0 = rd->x_ends.at_lo - rd->x_ends.lo * sx;
    g->y0 = rd->y_ends.at_lo - rd->y_ends.lo * sy;
}

/* What the rows make of the grid, once all are read. */
static int make_grid(struct reading *rd, struct scan_grid *g, clx_message *msg)
{
    const char *path = rd->r.path;
    if (rd->rows_read == 0) {
        snprintf(msg->text, sizeof msg->text, "%s: no rows after the header", path);
        return CLX_ERR_FORMAT;
    }
    if (rd->region >= 0 && rd->where[FIELD_REGION] < 0) {
        snprintf(msg->text, sizeof msg->text, "--region %ld: %s has no region column (one row per scan point)",
                 rd->region, path);
        return CLX_ERR_FORMAT;
    }
    if (rd->region >= 0 && (size_t)rd->region >= rd->windows) {
        snprintf(msg->text, sizeof msg->text, "--region %ld: %s has windows 0 to %zu", rd->region, path,
                 rd->windows - 1);
        return CLX_ERR_FORMAT;
    }
    g->rows = (size_t)rd->max_row + 1;
    g->cols = (size_t)rd->max_col + 1;
    if (g->rows * g->cols > MAX_SCAN_POINTS) {
        snprintf(msg->text, sizeof msg->text, "%s: a scan of %zu x %zu points is more than a map can show (%lu)", path,
                 g->cols, g->rows, MAX_SCAN_POINTS);
        return CLX_ERR_FORMAT;
    }
    g->windows = rd->windows;
    g->rows_read = rd->rows_read;
    qsort(rd->entries, rd->count, sizeof *rd->entries, compare_entries);
    int status = check_twice(rd, msg);
    if (status == CLX_OK)
        status = fill_values(rd, g, msg);
    if (status == CLX_OK)
        set_positions(rd, g);
    return status;
}

int scan_grid_read(const char *path, const char *column, long region, struct scan_grid *g, clx_message *msg)
{
    struct reading rd;
    long line;
    int status;

    memset(g, 0, sizeof *g);
    memset(&rd, 0, sizeof rd);
    msg->text[0] = '\0';
    rd.column = column;
    rd.region = region;
    if ((status = record_reader_open(&rd.r, path, msg)) != CLX_OK)
        return status;
    status = record_read(&rd.r, &line, msg);
    if (status == 0) {
        snprintf(msg->text, sizeof msg->text, "%s: empty; expected a header line (scan_row,scan_col,...)", path);
        status = CLX_ERR_FORMAT;
    }
    if (status < 0 || (status = find_columns(&rd, msg)) != CLX_OK)
        goto done;
    size_t header_fields = rd.r.fields;
    while ((status = record_read(&rd.r, &line, msg)) == 1) {
        if (rd.r.fields != header_fields) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: %zu field%s, but the header has %zu", path, line,
                     rd.r.fields, rd.r.fields == 1 ? "" : "s", header_fields);
            status = CLX_ERR_FORMAT;
            goto done;
        }
        if ((status = read_row(&rd, line, msg)) != CLX_OK)
            goto done;
    }
    if (status == 0)
        status = make_grid(&rd, g, msg);

done:
    record_reader_close(&rd.r);
    free(rd.entries);
    if (status != CLX_OK)
        scan_grid_free(g);
    return status;
}

void scan_grid_free(struct scan_grid *g)
{
    free(g->values);
    memset(g, 0, sizeof *g);
}
