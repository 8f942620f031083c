/* scan_rows.c - the rows of a scan as its readers give them (see scan_rows.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/scan_rows.h"

static void note_position(struct scan_axis_ends *e, unsigned index, double at)
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

int scan_rows_add(struct scan_rows *r, const struct scan_row *row, const double *values, const double *xy,
                  clx_message *msg)
{
    size_t n = r->request->count;
    r->rows_read++;
    /* Every row makes the grid as large as its point, whatever its window. */
    r->max_row = row->row > r->max_row ? row->row : r->max_row;
    r->max_col = row->col > r->max_col ? row->col : r->max_col;
    if (xy) {
        note_position(&r->x_ends, row->col, xy[0]);
        note_position(&r->y_ends, row->row, xy[1]);
    }
    if (r->has_region && row->region + 1 > r->windows)
        r->windows = row->region + 1;
    if (r->request->region >= 0 && row->region != (unsigned long)r->request->region)
        return CLX_OK;
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        struct scan_row *p = realloc(r->rows, cap * sizeof *p);
        double *v = p ? realloc(r->values, cap * n * sizeof *v) : NULL;
        if (p)
            r->rows = p;
        if (v)
            r->values = v;
        if (!p || !v) {
            snprintf(msg->text, sizeof msg->text, "%s: out of memory", r->path);
            return CLX_ERR_HOST_MEMORY;
        }
        r->cap = cap;
    }
    r->rows[r->count] = *row;
    r->rows[r->count].slot = r->count;
    memcpy(r->values + r->count * n, values, n * sizeof *values);
    r->count++;
    return CLX_OK;
}

