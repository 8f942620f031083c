/* results_csv.c - reading `clxcorr offsets` results (see results_csv.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/record_reader.h"
#include "plot/results_csv.h"

/* Region indices beyond this are taken for a corrupt field, not a window. */
#define MAX_WINDOWS 1000000

/* ---- the results --------------------------------------------------------- */

enum column { COL_IMAGE, COL_REGION, COL_X, COL_Y, COL_DX, COL_DY, COL_FLAGS, COL_VALUE, COLUMNS };
static const char *const column_names[COLUMNS] = { "image", "region", "x", "y", "dx", "dy", "flags", "" };

struct row {
    size_t image;
    size_t window;
    double dx, dy, value;
    unsigned flags;
    long line;
};

/* Where each needed column is in the header; -1 for an absent flags column. */
/* Where each column is; `value` names COL_VALUE's (NULL: none). */
static int map_columns(const struct record_reader *r, long line, const char *value, int where[COLUMNS],
                       clx_message *msg)
{
    for (int c = 0; c < COLUMNS; c++) {
        const char *name = c == COL_VALUE ? value : column_names[c];
        where[c] = -1;
        for (size_t i = 0; name && i < r->fields; i++)
            if (strcmp(record_field(r, i), name) == 0) {
                where[c] = (int)i;
                break;
            }
        if (c == COL_VALUE && value && where[c] < 0 && strcmp(value, "speed") != 0) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: no '%.60s' column to colour by (speed, or a column of "
                     "the header)", r->path, line, value);
            return CLX_ERR_FORMAT;
        }
        if (where[c] < 0 && c != COL_FLAGS && c != COL_VALUE) {
            snprintf(msg->text, sizeof msg->text,
                     "%s:%ld: no '%s' column; the header must name image, region, x, y, dx and dy "
                     "(clxcorr offsets' CSV)", r->path, line, column_names[c]);
            return CLX_ERR_FORMAT;
        }
    }
    return CLX_OK;
}

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, n * size);
    if (!p)
        return -1;
    *array = p;
    *cap = n;
    return 0;
}

void results_free(struct results_table *t)
{
    for (size_t i = 0; t->image_names && i < t->images; i++)
        free(t->image_names[i]);
    free(t->image_names);
    free(t->x);
    free(t->y);
    free(t->dx);
    free(t->dy);
    free(t->flags);
    free(t->value);
    memset(t, 0, sizeof *t);
}

/* What reading collects before the table can be laid out. */
struct gathered {
    struct row *rows;
    size_t nrows, rows_cap;
    char **names;
    size_t names_cap;
    double *x, *y;
    long *centre_line;          /* the line that gave each window's centre */
    size_t windows_cap;
};

/* Room for `need` windows' centres. */
static int grow_windows(struct gathered *g, size_t need)
{
    if (need <= g->windows_cap)
        return 0;
    size_t cap = g->windows_cap ? g->windows_cap : 64;
    while (cap < need)
        cap *= 2;
    double *x = realloc(g->x, cap * sizeof *x);
    if (x)
        g->x = x;
    double *y = realloc(g->y, cap * sizeof *y);
    if (y)
        g->y = y;
    long *line = realloc(g->centre_line, cap * sizeof *line);
    if (line)
        g->centre_line = line;
    if (!x || !y || !line)
        return -1;
    g->windows_cap = cap;
    return 0;
}

static int gather_row(struct gathered *g, struct results_table *t, const struct record_reader *r, long line,
                      const int col[COLUMNS], const char *value_column, clx_message *msg)
{
    struct row row;
    unsigned long window, flags = 0;
    double x, y;
    const char *name = record_field(r, (size_t)col[COL_IMAGE]);

    if (field_count(record_field(r, (size_t)col[COL_REGION]), MAX_WINDOWS - 1, &window)) {
        snprintf(msg->text, sizeof msg->text, "%s:%ld: region '%.40s' is not a window index (0 to %d)", r->path,
                 line, record_field(r, (size_t)col[COL_REGION]), MAX_WINDOWS - 1);
        return CLX_ERR_FORMAT;
    }
    /* The coloured column takes what the command writes in any column:
     * nan, and inf or -inf (peak_ratio where the second peak is 0). */
    const struct {
        enum column c;
        double *out;
        enum field_real_accepts accepts;
    } reals[] = { { COL_X, &x, FIELD_FINITE }, { COL_Y, &y, FIELD_FINITE }, { COL_DX, &row.dx, FIELD_NAN },
                  { COL_DY, &row.dy, FIELD_NAN }, { COL_VALUE, &row.value, FIELD_NAN_INF } };
    row.value = NAN;
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
        if (col[reals[k].c] >= 0 && field_real(record_field(r, (size_t)col[reals[k].c]), reals[k].accepts, reals[k].out)) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: %s '%.40s' is not a number", r->path, line,
                     reals[k].c == COL_VALUE ? value_column : column_names[reals[k].c],
                     record_field(r, (size_t)col[reals[k].c]));
            return CLX_ERR_FORMAT;
        }
    if (col[COL_FLAGS] >= 0 && field_count(record_field(r, (size_t)col[COL_FLAGS]), 0xffffffffUL, &flags)) {
        snprintf(msg->text, sizeof msg->text, "%s:%ld: flags '%.40s' is not a whole number >= 0", r->path, line,
                 record_field(r, (size_t)col[COL_FLAGS]));
        return CLX_ERR_FORMAT;
    }

    /* A new image where the name changes. */
    if (t->images == 0 || strcmp(name, g->names[t->images - 1]) != 0) {
        if (grow((void **)&g->names, &g->names_cap, t->images + 1, sizeof *g->names) ||
            !(g->names[t->images] = strdup(name)))
            goto out_of_memory;
        t->images++;
    }
    if (window >= t->windows) {
        size_t need = window + 1;
        if (grow_windows(g, need))
            goto out_of_memory;
        for (size_t w = t->windows; w < need; w++) {
            g->x[w] = g->y[w] = NAN;
            g->centre_line[w] = 0;
        }
        t->windows = need;
    }
    if (isnan(g->x[window])) {
        g->x[window] = x;
        g->y[window] = y;
        g->centre_line[window] = line;
    } else if (fabs(g->x[window] - x) > 1e-6 || fabs(g->y[window] - y) > 1e-6) {
        snprintf(msg->text, sizeof msg->text,
                 "%s:%ld: window %lu is centred at (%g, %g) here but at (%g, %g) on line %ld", r->path, line,
                 window, x, y, g->x[window], g->y[window], g->centre_line[window]);
        return CLX_ERR_FORMAT;
    }

    row.image = t->images - 1;
    row.window = window;
    row.flags = (unsigned)flags;
    row.line = line;
    if (grow((void **)&g->rows, &g->rows_cap, g->nrows + 1, sizeof *g->rows))
        goto out_of_memory;
    g->rows[g->nrows++] = row;
    return CLX_OK;

out_of_memory:
    snprintf(msg->text, sizeof msg->text, "%s: out of memory", r->path);
    return CLX_ERR_HOST_MEMORY;
}

/* Lays the rows out image by image; a window twice for one image is an error. */
/* The rows into the table's arrays; `value`: also table->value. */
static int lay_out(struct gathered *g, struct results_table *t, const char *path, int value, clx_message *msg)
{
    size_t cells = t->images * t->windows;
    t->image_names = g->names;
    g->names = NULL;
    t->x = g->x;
    t->y = g->y;
    g->x = g->y = NULL;
    t->dx = malloc(cells * sizeof *t->dx);
    t->dy = malloc(cells * sizeof *t->dy);
    t->flags = calloc(cells, sizeof *t->flags);
    long *line_of = calloc(cells, sizeof *line_of);
    if (value)
        t->value = malloc(cells * sizeof *t->value);
    if (!t->dx || !t->dy || !t->flags || !line_of || (value && !t->value)) {
        free(line_of);
        snprintf(msg->text, sizeof msg->text, "%s: out of memory", path);
        return CLX_ERR_HOST_MEMORY;
    }
    for (size_t i = 0; i < cells; i++) {
        t->dx[i] = t->dy[i] = NAN;
        if (value)
            t->value[i] = NAN;
    }
    int status = CLX_OK;
    for (size_t k = 0; k < g->nrows; k++) {
        const struct row *row = &g->rows[k];
        size_t cell = row->image * t->windows + row->window;
        if (line_of[cell]) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: window %zu of image %s again (first on line %ld)", path,
                     row->line, row->window, t->image_names[row->image], line_of[cell]);
            status = CLX_ERR_FORMAT;
            break;
        }
        line_of[cell] = row->line;
        t->dx[cell] = row->dx;
        t->dy[cell] = row->dy;
        t->flags[cell] = row->flags;
        if (value)
            t->value[cell] = row->value;
    }
    free(line_of);
    return status;
}

static int read_table(const char *path, const char *column, struct results_table *t, clx_message *msg);

int results_read(const char *path, struct results_table *t, clx_message *msg)
{
    return read_table(path, NULL, t, msg);
}

int results_read_column(const char *path, const char *column, struct results_table *t, clx_message *msg)
{
    int status = read_table(path, column, t, msg);
    /* speed, when the file does not have it, from the offsets. */
    for (size_t i = 0; status == CLX_OK && i < t->images * t->windows; i++)
        if (strcmp(column, "speed") == 0 && isnan(t->value[i]))
            t->value[i] = hypot(t->dx[i], t->dy[i]);
    return status;
}

static int read_table(const char *path, const char *column, struct results_table *t, clx_message *msg)
{
    struct record_reader r;
    struct gathered g = { 0 };
    int col[COLUMNS], status;
    long line;

    memset(t, 0, sizeof *t);
    msg->text[0] = '\0';
    if ((status = record_reader_open(&r, path, msg)) != CLX_OK)
        return status;
    status = record_read(&r, &line, msg);
    if (status == 0) {
        snprintf(msg->text, sizeof msg->text, "%s: empty; expected a header line (image,region,x,y,dx,dy,...)", path);
        status = CLX_ERR_FORMAT;
    }
    if (status < 0 || (status = map_columns(&r, line, column, col, msg)) != CLX_OK)
        goto done;
    size_t header_fields = r.fields;
    while ((status = record_read(&r, &line, msg)) == 1) {
        if (r.fields != header_fields) {
            snprintf(msg->text, sizeof msg->text, "%s:%ld: %zu field%s, but the header has %zu", path, line, r.fields,
                     r.fields == 1 ? "" : "s", header_fields);
            status = CLX_ERR_FORMAT;
            goto done;
        }
        if ((status = gather_row(&g, t, &r, line, col, column, msg)) != CLX_OK)
            goto done;
    }
    if (status < 0)
        goto done;
    if (g.nrows == 0) {
        snprintf(msg->text, sizeof msg->text, "%s: no rows after the header", path);
        status = CLX_ERR_FORMAT;
        goto done;
    }
    status = lay_out(&g, t, path, column != NULL, msg);

done:
    record_reader_close(&r);
    free(g.rows);
    if (g.names) {
        for (size_t i = 0; i < t->images; i++)
            free(g.names[i]);
        free(g.names);
        t->images = 0;
    }
    free(g.x);
    free(g.y);
    free(g.centre_line);
    if (status != CLX_OK)
        results_free(t);
    return status;
}
