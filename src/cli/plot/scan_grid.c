/* scan_grid.c - a scan's results as grids of columns' values (see scan_grid.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/scan_grid.h"
#include "plot/scan_rows.h"

/* Grids beyond this many points are more than a picture can show or memory
 * should hold for it (a few stray indices make a huge sparse grid). */
#define MAX_SCAN_POINTS 100000000UL

/* ---- the grids ----------------------------------------------------------------- */

static int compare_rows(const void *pa, const void *pb)
{
    const struct scan_row *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Sorted, a point and window given twice are neighbours. */
static int check_twice(const struct scan_rows *r, clx_message *msg)
{
    for (size_t k = 1; k < r->count; k++) {
        const struct scan_row *a = &r->rows[k - 1], *b = &r->rows[k];
        if (a->row != b->row || a->col != b->col || a->region != b->region)
            continue;
        char window[48] = "";
        if (r->has_region)
            snprintf(window, sizeof window, ", window %u", b->region);
        if (r->hdf5)
            snprintf(msg->text, sizeof msg->text, "%s: image %ld: scan point (row %u, column %u)%s again (first as image %ld)",
                     r->path, b->at, b->row, b->col, window, a->at);
        else
            snprintf(msg->text, sizeof msg->text, "%s:%ld: scan point (row %u, column %u)%s again (first on line %ld)",
                     r->path, b->at, b->row, b->col, window, a->at);
        return CLX_ERR_FORMAT;
    }
    return CLX_OK;
}

/* Columns that label a point rather than estimate something: every row counts. */
static int labels_points(const char *column)
{
    return !strcmp(column, "flags") || !strcmp(column, "grain") || !strcmp(column, "ref_row") ||
           !strcmp(column, "ref_col");
}

/* Column k's grid: each point's mean over its trusted, finite rows. */
static int fill_values(const struct scan_rows *r, size_t k, struct scan_grid *g, clx_message *msg)
{
    size_t points = g->rows * g->cols, n = r->request->count;
    size_t *used = calloc(points, sizeof *used);
    g->values = calloc(points, sizeof *g->values);
    if (!used || !g->values) {
        free(used);
        snprintf(msg->text, sizeof msg->text, "%s: out of memory for a scan of %zu x %zu points", r->path, g->cols,
                 g->rows);
        return CLX_ERR_HOST_MEMORY;
    }
    const char *column = r->request->columns[k];
    unsigned untrusted = labels_points(column) ? 0 : r->strain ? SCAN_STRAIN_UNTRUSTED_FLAGS : SCAN_UNTRUSTED_FLAGS;
    for (size_t i = 0; i < r->count; i++) {
        const struct scan_row *e = &r->rows[i];
        size_t point = (size_t)e->row * g->cols + e->col;
        double v = r->values[e->slot * n + k];
        if (isnan(v))
            g->rows_nan++;
        else if (e->flags & untrusted)
            g->rows_flagged++;
        else {
            g->values[point] += v;
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
static double axis_step(const struct scan_axis_ends *e)
{
    return e->seen && e->hi > e->lo ? (e->at_hi - e->at_lo) / (e->hi - e->lo) : 0;
}

/* Positions in µm when the steps are known: a single row (or column) takes
 * the other axis's step, as scans have square steps unless they say. */
static void set_positions(const struct scan_rows *r, struct scan_grid *g)
{
    double sx = axis_step(&r->x_ends), sy = axis_step(&r->y_ends);
    if (!(sx > 0))
        sx = sy;
    if (!(sy > 0))
        sy = sx;
    if (!(sx > 0) || !(sy > 0) || !isfinite(sx) || !isfinite(sy))
        return;
    g->positioned = 1;
    g->step_x = sx;
    g->step_y = sy;
    g->x0 = r->x_ends.at_lo - r->x_ends.lo * sx;
    g->y0 = r->y_ends.at_lo - r->y_ends.lo * sy;
}

/* What the rows make of the grids, once all are read. */
static int make_grids(struct scan_rows *r, struct scan_grid *grids, clx_message *msg)
{
    const struct scan_request *q = r->request;
    if (r->rows_read == 0) {
        snprintf(msg->text, sizeof msg->text, "%s: no rows%s", r->path, r->hdf5 ? " written" : " after the header");
        return CLX_ERR_FORMAT;
    }
    if (q->region >= 0 && !r->has_region) {
        snprintf(msg->text, sizeof msg->text, "--region %ld: %s has no region column (one row per scan point)",
                 q->region, r->path);
        return CLX_ERR_FORMAT;
    }
    if (q->region >= 0 && (size_t)q->region >= r->windows) {
        snprintf(msg->text, sizeof msg->text, "--region %ld: %s has windows 0 to %zu", q->region, r->path,
                 r->windows - 1);
        return CLX_ERR_FORMAT;
    }
    struct scan_grid g = { 0 };
    g.rows = (size_t)r->max_row + 1;
    g.cols = (size_t)r->max_col + 1;
    if (g.rows * g.cols > MAX_SCAN_POINTS) {
        snprintf(msg->text, sizeof msg->text, "%s: a scan of %zu x %zu points is more than a map can show (%lu)",
                 r->path, g.cols, g.rows, MAX_SCAN_POINTS);
        return CLX_ERR_FORMAT;
    }
    g.windows = r->windows;
    g.rows_read = r->rows_read;
    set_positions(r, &g);
    qsort(r->rows, r->count, sizeof *r->rows, compare_rows);
    int status = check_twice(r, msg);
    for (size_t k = 0; k < q->count && status == CLX_OK; k++) {
        grids[k] = g;
        if (r->present[k])
            status = fill_values(r, k, &grids[k], msg);
    }
    return status;
}

/* ---- reading -------------------------------------------------------------------- */

int scan_grids_read(const char *path, const struct scan_request *q, struct scan_grid *grids, clx_message *msg)
{
    struct scan_rows r;
    memset(&r, 0, sizeof r);
    memset(grids, 0, q->count * sizeof *grids);
    msg->text[0] = '\0';
    if (q->count > SCAN_MAX_COLUMNS) {
        snprintf(msg->text, sizeof msg->text, "%s: %zu columns at once (at most %d)", q->option, q->count,
                 SCAN_MAX_COLUMNS);
        return CLX_ERR_ARGUMENT;
    }
    r.path = path;
    r.request = q;
    r.hdf5 = scan_h5_signature(path);
    int status = r.hdf5 ? scan_h5_read(&r, msg) : scan_text_read(&r, msg);
    if (status == CLX_OK)
        status = make_grids(&r, grids, msg);
    free(r.rows);
    free(r.values);
    if (status != CLX_OK)
        for (size_t k = 0; k < q->count; k++)
            scan_grid_free(&grids[k]);
    return status;
}

int scan_grid_read(const char *path, const char *column, long region, struct scan_grid *g, clx_message *msg)
{
    const struct scan_request q = { "--map", &column, 1, 1, region };
    return scan_grids_read(path, &q, g, msg);
}

void scan_grid_free(struct scan_grid *g)
{
    free(g->values);
    memset(g, 0, sizeof *g);
}
