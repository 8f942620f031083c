/*
 * scan_h5.c - a scan's rows from the HDF5 file that `clxcorr offsets
 * --format h5` and `clxcorr strain --format h5` write (see scan_rows.h, and
 * output/h5_output.h for the layout): a dataset per column at the root,
 * shaped (rows, cols) per image and (rows, cols, windows) per window when
 * the run was its scan's every point in scan order, else (images) and
 * (images, windows) with scan_row and scan_col datasets naming each image's
 * point. Images never written (a run cut short) have scan_row -1 and are
 * skipped.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "plot/scan_rows.h"

int scan_h5_signature(const char *path)
{
    static const unsigned char signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    int is = f && fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, signature, sizeof head) == 0;
    if (f)
        fclose(f);
    return is;
}

#ifndef HAVE_HDF5

int scan_h5_read(struct scan_rows *r, clx_message *msg)
{
    snprintf(msg->text, sizeof msg->text, "%s: an HDF5 file, and this clxcorr was built without HDF5 (install "
             "libhdf5-dev and build again, or write the results as CSV)", r->path);
    return CLX_ERR_FORMAT;
}

#else

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>

/* Values read at a time: a block of scan rows (or images) of about this many. */
#define BLOCK_VALUES (1u << 20)

enum { DATA_ROW, DATA_COL, DATA_X, DATA_Y, DATA_FLAGS, DATA_FIXED };
static const char *const fixed_names[DATA_FIXED] = { "scan_row", "scan_col", "scan_x", "scan_y", "flags" };

/* One dataset: open (set >= 0) or absent, its shape, and a block's values. */
struct column {
    hid_t set;
    int rank;
    hsize_t dims[3];
    int per_window;             /* its last dimension is the windows' */
    double *block;
};

struct h5_reading {
    struct scan_rows *rows;
    hid_t file;
    int grid;                   /* datasets shaped as the scan: (rows, cols[, windows]) */
    hsize_t lead, per_lead;     /* images: lead x per_lead (scan rows x cols, or images x 1) */
    hsize_t windows;
    struct column fixed[DATA_FIXED], asked[SCAN_MAX_COLUMNS];
};

static herr_t add_name(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    char *list = data;
    size_t used = strlen(list);
    (void)group, (void)info;
    if (used + strlen(name) + 3 < 600)
        snprintf(list + used, 600 - used, "%s%s", used ? ", " : "", name);
    return 0;
}

/* The file's datasets, joined by ", ", for errors (600 bytes). */
static void list_datasets(hid_t file, char *out)
{
    out[0] = '\0';
    H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, out);
}

static void column_open(hid_t file, const char *name, struct column *c)
{
    memset(c, 0, sizeof *c);
    c->set = -1;
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0 || (c->set = H5Dopen2(file, name, H5P_DEFAULT)) < 0)
        return;
    hid_t space = H5Dget_space(c->set);
    c->rank = H5Sget_simple_extent_ndims(space);
    if (c->rank >= 1 && c->rank <= 3)
        H5Sget_simple_extent_dims(space, c->dims, NULL);
    else
        c->rank = -1;
    H5Sclose(space);
}

static void column_close(struct column *c)
{
    if (c->set >= 0)
        H5Dclose(c->set);
    free(c->block);
    c->set = -1;
    c->block = NULL;
}

/* Whether the dataset has the images' shape (per image) or theirs and the
 * windows' (per window); sets per_window. */
static int column_fits(struct h5_reading *h, struct column *c)
{
    int image_rank = h->grid ? 2 : 1;
    if (c->rank < image_rank || c->dims[0] != h->lead || (h->grid && c->dims[1] != h->per_lead))
        return 0;
    if (c->rank == image_rank)
        return 1;
    if (c->rank != image_rank + 1 || (h->windows && c->dims[image_rank] != h->windows))
        return 0;
    h->windows = c->dims[image_rank];
    c->per_window = 1;
    return 1;
}

static int bad_shape(const struct h5_reading *h, const char *name, const struct column *c, clx_message *msg)
{
    char dims[64] = "", want[64];
    for (int k = 0; k < c->rank && k < 3; k++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%llu", k ? " x " : "",
                 (unsigned long long)c->dims[k]);
    if (h->grid)
        snprintf(want, sizeof want, "%llu x %llu", (unsigned long long)h->lead, (unsigned long long)h->per_lead);
    else
        snprintf(want, sizeof want, "%llu", (unsigned long long)h->lead);
    snprintf(msg->text, sizeof msg->text, "%s: the dataset %s (%s) is not shaped as its scan_row (%s)", h->rows->path,
             name, dims, want);
    return CLX_ERR_FORMAT;
}

/* The datasets: scan_row's shape is the images', every other one is the
 * same or has the windows' dimension more. */
static int open_columns(struct h5_reading *h, clx_message *msg)
{
    struct scan_rows *r = h->rows;
    const struct scan_request *q = r->request;
    char names[600];
    for (int d = 0; d < DATA_FIXED; d++)
        column_open(h->file, fixed_names[d], &h->fixed[d]);
    for (size_t k = 0; k < q->count; k++)
        column_open(h->file, q->columns[k], &h->asked[k]);
    struct column *row = &h->fixed[DATA_ROW], *col = &h->fixed[DATA_COL];
    if (row->set < 0 || col->set < 0 || (row->rank != 1 && row->rank != 2)) {
        list_datasets(h->file, names);
        snprintf(msg->text, sizeof msg->text, "%s needs a results file of a scan: scan_row and scan_col columns; %s has %s",
                 q->option, r->path, names);
        return CLX_ERR_FORMAT;
    }
    h->grid = row->rank == 2;
    h->lead = row->dims[0];
    h->per_lead = h->grid ? row->dims[1] : 1;
    if (!column_fits(h, col) || col->per_window)
        return bad_shape(h, "scan_col", col, msg);
    for (size_t k = 0; k < q->count; k++) {
        r->present[k] = h->asked[k].set >= 0;
        if (!r->present[k] && k < q->required) {
            list_datasets(h->file, names);
            snprintf(msg->text, sizeof msg->text, "%s %.60s: %s has no such column; it has %s", q->option,
                     q->columns[k], r->path, names);
            return CLX_ERR_FORMAT;
        }
        if (r->present[k] && !column_fits(h, &h->asked[k]))
            return bad_shape(h, q->columns[k], &h->asked[k], msg);
    }
    for (int d = DATA_X; d < DATA_FIXED; d++)
        if (h->fixed[d].set >= 0 && !column_fits(h, &h->fixed[d]))
            return bad_shape(h, fixed_names[d], &h->fixed[d], msg);
    /* Positions need both coordinates, one per image. */
    if (h->fixed[DATA_X].set < 0 || h->fixed[DATA_Y].set < 0 || h->fixed[DATA_X].per_window ||
        h->fixed[DATA_Y].per_window) {
        column_close(&h->fixed[DATA_X]);
        column_close(&h->fixed[DATA_Y]);
    }
    /* Rows per window when an asked column has a value per window. */
    for (size_t k = 0; k < q->count; k++)
        r->has_region |= r->present[k] && h->asked[k].per_window;
    r->strain = H5Lexists(h->file, "e11", H5P_DEFAULT) > 0;
    return CLX_OK;
}

/* Reads leading indices [first, first + n) of a dataset into its block. */
static int read_block(struct column *c, hsize_t first, hsize_t n)
{
    hsize_t start[3] = { first, 0, 0 }, count[3];
    size_t values = 1;
    for (int k = 0; k < c->rank; k++) {
        count[k] = k == 0 ? n : c->dims[k];
        values *= (size_t)count[k];
    }
    if (!c->block && !(c->block = malloc(sizeof *c->block * (values ? values : 1))))
        return -1;
    hid_t file_space = H5Dget_space(c->set), memory_space = H5Screate_simple(c->rank, count, NULL);
    int ok = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dread(c->set, H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT, c->block) >= 0;
    H5Sclose(memory_space);
    H5Sclose(file_space);
    return ok ? 0 : -1;
}

/* Image i's (of the block) value of column c, window w where it has windows. */
static double value_at(const struct h5_reading *h, const struct column *c, size_t i, size_t w)
{
    return c->per_window ? c->block[i * h->windows + w] : c->block[i];
}

/* An index that is a whole number from 0 to max; -1 otherwise (never written). */
static long whole(double v, double max)
{
    return v >= 0 && v <= max && v == floor(v) ? (long)v : -1;
}

static int read_rows(struct h5_reading *h, clx_message *msg)
{
    struct scan_rows *r = h->rows;
    const struct scan_request *q = r->request;
    size_t windows = r->has_region ? (size_t)h->windows : 1;
    size_t per_lead = (size_t)h->per_lead * (h->windows ? (size_t)h->windows : 1);
    hsize_t block = BLOCK_VALUES / (per_lead ? per_lead : 1);
    double values[SCAN_MAX_COLUMNS], xy[2];
    if (block < 1)
        block = 1;
    for (hsize_t first = 0; first < h->lead; first += block) {
        hsize_t n = h->lead - first < block ? h->lead - first : block;
        for (int d = 0; d < DATA_FIXED; d++)
            if (h->fixed[d].set >= 0 && read_block(&h->fixed[d], first, n) != 0)
                goto unreadable_fixed;
        for (size_t k = 0; k < q->count; k++)
            if (r->present[k] && read_block(&h->asked[k], first, n) != 0) {
                snprintf(msg->text, sizeof msg->text, "%s: the column %s cannot be read", r->path, q->columns[k]);
                return CLX_ERR_FORMAT;
            }
        for (size_t i = 0; i < (size_t)(n * h->per_lead); i++) {
            long row = whole(h->fixed[DATA_ROW].block[i], SCAN_MAX_SIDE - 1);
            long col = whole(h->fixed[DATA_COL].block[i], SCAN_MAX_SIDE - 1);
            if (row < 0 || col < 0)
                continue;
            int positioned = h->fixed[DATA_X].set >= 0;
            if (positioned) {
                xy[0] = h->fixed[DATA_X].block[i];
                xy[1] = h->fixed[DATA_Y].block[i];
                positioned = isfinite(xy[0]) && isfinite(xy[1]);
            }
            for (size_t w = 0; w < windows; w++) {
                struct scan_row e = { (unsigned)row, (unsigned)col, (unsigned)w, 0, (long)(first * h->per_lead + i), 0 };
                if (h->fixed[DATA_FLAGS].set >= 0 && (r->has_region || !h->fixed[DATA_FLAGS].per_window)) {
                    long flags = whole(value_at(h, &h->fixed[DATA_FLAGS], i, w), 4294967295.0);
                    e.flags = flags < 0 ? ~0u : (unsigned)flags;
                }
                for (size_t k = 0; k < q->count; k++)
                    values[k] = r->present[k] ? value_at(h, &h->asked[k], i, w) : NAN;
                int status = scan_rows_add(r, &e, values, positioned ? xy : NULL, msg);
                if (status != CLX_OK)
                    return status;
            }
        }
    }
    return CLX_OK;

unreadable_fixed:
    snprintf(msg->text, sizeof msg->text, "%s: its scan points (scan_row, scan_col, scan_x, scan_y, flags) cannot be read",
             r->path);
    return CLX_ERR_FORMAT;
}

int scan_h5_read(struct scan_rows *r, clx_message *msg)
{
    struct h5_reading h;
    H5E_auto2_t report;
    void *report_data;
    memset(&h, 0, sizeof h);
    h.rows = r;
    for (int d = 0; d < DATA_FIXED; d++)
        h.fixed[d].set = -1;
    for (size_t k = 0; k < SCAN_MAX_COLUMNS; k++)
        h.asked[k].set = -1;
    /* The messages are this reader's own: HDF5's stack dump would only repeat them. */
    H5Eget_auto2(H5E_DEFAULT, &report, &report_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int status;
    if ((h.file = H5Fopen(r->path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        snprintf(msg->text, sizeof msg->text, "%s: cannot be read as HDF5", r->path);
        status = CLX_ERR_IO;
    } else if ((status = open_columns(&h, msg)) == CLX_OK)
        status = read_rows(&h, msg);
    for (int d = 0; d < DATA_FIXED; d++)
        column_close(&h.fixed[d]);
    for (size_t k = 0; k < SCAN_MAX_COLUMNS; k++)
        column_close(&h.asked[k]);
    if (h.file >= 0)
        H5Fclose(h.file);
    H5Eset_auto2(H5E_DEFAULT, report, report_data);
    return status;
}

#endif
