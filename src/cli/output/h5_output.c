/* h5_output.c - offsets' results as an HDF5 file, one dataset per column (see h5_output.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/csv_output.h"
#include "output/h5_output.h"

#ifndef HAVE_HDF5

int h5_output_available(void)
{
    return 0;
}

void h5_output_init(void)
{
}

int h5_output_open(struct h5_output **out, const char *path, const struct h5_output_shape *shape, int argc,
                   char **argv, clx_message *msg)
{
    *out = NULL;
    snprintf(msg->text, sizeof msg->text, "--format h5: this clxcorr was built without HDF5 (configure found no "
             "libhdf5; install libhdf5-dev and build again)");
    return CLX_ERR_UNSUPPORTED;
}

int h5_output_image(struct h5_output *out, size_t index, const char *name, const struct row_scan_point *point,
                    const clx_result *results, clx_message *msg)
{
    return CLX_ERR_UNSUPPORTED;
}

int h5_output_pattern(struct h5_output *out, size_t index, const char *name, const struct row_scan_point *point,
                      const clx_strain_row *strain, clx_message *msg)
{
    return CLX_ERR_UNSUPPORTED;
}

int h5_output_close(struct h5_output *out, int complete, clx_message *msg)
{
    return CLX_OK;
}

#else

#include <hdf5.h>
#include <unistd.h>

/* Images buffered before a write, at least (a scan writes whole rows of points). */
#define BLOCK_IMAGES 256

/* How a column is stored. */
enum value_kind { VALUE_REAL, VALUE_INT, VALUE_FLAGS, VALUE_NAME };
enum column_place { PER_WINDOW, PER_IMAGE, PER_IMAGE_WINDOW };

struct column_info {
    enum value_kind kind;
    enum column_place place;
    const char *units;
    const char *description;
};

static const struct column_info column_infos[ROW_COLUMN_COUNT] = {
    [ROW_COLUMN_IMAGE] = { VALUE_NAME, PER_IMAGE, "", "the image's path as given (PATH#N: page or pattern N)" },
    [ROW_COLUMN_REGION] = { VALUE_INT, PER_WINDOW, "", "the window's 0-based index in the window list" },
    [ROW_COLUMN_X] = { VALUE_REAL, PER_WINDOW, "px", "the window's centre in reference coordinates, x0 + (w-1)/2" },
    [ROW_COLUMN_Y] = { VALUE_REAL, PER_WINDOW, "px", "the window's centre in reference coordinates, y0 + (h-1)/2" },
    [ROW_COLUMN_DX] = { VALUE_REAL, PER_IMAGE_WINDOW, "px",
                        "offset: a feature's position in the image minus in the reference, x" },
    [ROW_COLUMN_DY] = { VALUE_REAL, PER_IMAGE_WINDOW, "px",
                        "offset: a feature's position in the image minus in the reference, y" },
    [ROW_COLUMN_PEAK] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "the (first pass's) correlation maximum" },
    [ROW_COLUMN_FLAGS] = { VALUE_FLAGS, PER_IMAGE_WINDOW, "", "0: trusted; else bits (clxcorr offsets --help)" },
    [ROW_COLUMN_ZNCC] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "zero-normalised correlation at the final offset" },
    [ROW_COLUMN_PEAK_RATIO] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "first pass's peak over its next local maximum" },
    [ROW_COLUMN_ITERATIONS] = { VALUE_INT, PER_IMAGE_WINDOW, "", "refinement iterations done" },
    [ROW_COLUMN_ZNSSD] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "IC-GN's final zero-normalised SSD, 2 (1 - zncc)" },
    [ROW_COLUMN_SIGMA_DX] = { VALUE_REAL, PER_IMAGE_WINDOW, "px", "standard deviation of dx (IC-GN)" },
    [ROW_COLUMN_SIGMA_DY] = { VALUE_REAL, PER_IMAGE_WINDOW, "px", "standard deviation of dy (IC-GN)" },
    [ROW_COLUMN_DUDX] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "du/dx over the window (IC-GN, --shape 1)" },
    [ROW_COLUMN_DUDY] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "du/dy over the window (IC-GN, --shape 1)" },
    [ROW_COLUMN_DVDX] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "dv/dx over the window (IC-GN, --shape 1)" },
    [ROW_COLUMN_DVDY] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "dv/dy over the window (IC-GN, --shape 1)" },
    [ROW_COLUMN_EXX] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "Green-Lagrange strain Exx, 1/2 (F^T F - I), F = I + grad u" },
    [ROW_COLUMN_EYY] = { VALUE_REAL, PER_IMAGE_WINDOW, "", "Green-Lagrange strain Eyy, 1/2 (F^T F - I), F = I + grad u" },
    [ROW_COLUMN_EXY] = { VALUE_REAL, PER_IMAGE_WINDOW, "",
                         "Green-Lagrange strain Exy (tensor shear), 1/2 (F^T F - I), F = I + grad u" },
    [ROW_COLUMN_SCAN_ROW] = { VALUE_INT, PER_IMAGE, "", "the pattern's row in the scan grid (0-based)" },
    [ROW_COLUMN_SCAN_COL] = { VALUE_INT, PER_IMAGE, "", "the pattern's column in the scan grid (0-based)" },
    [ROW_COLUMN_SCAN_X] = { VALUE_REAL, PER_IMAGE, "um", "the scan point's x position" },
    [ROW_COLUMN_SCAN_Y] = { VALUE_REAL, PER_IMAGE, "um", "the scan point's y position" },
    [ROW_COLUMN_E11] = { VALUE_REAL, PER_IMAGE, "", "elastic strain e11, sample frame (doc/hrebsd.md)" },
    [ROW_COLUMN_E12] = { VALUE_REAL, PER_IMAGE, "", "elastic strain e12 (tensor shear), sample frame" },
    [ROW_COLUMN_E13] = { VALUE_REAL, PER_IMAGE, "", "elastic strain e13 (tensor shear), sample frame" },
    [ROW_COLUMN_E22] = { VALUE_REAL, PER_IMAGE, "", "elastic strain e22, sample frame" },
    [ROW_COLUMN_E23] = { VALUE_REAL, PER_IMAGE, "", "elastic strain e23 (tensor shear), sample frame" },
    [ROW_COLUMN_E33] = { VALUE_REAL, PER_IMAGE, "", "elastic strain e33, sample frame" },
    [ROW_COLUMN_W1] = { VALUE_REAL, PER_IMAGE, "rad", "lattice rotation about x (W32), sample frame" },
    [ROW_COLUMN_W2] = { VALUE_REAL, PER_IMAGE, "rad", "lattice rotation about y (W13), sample frame" },
    [ROW_COLUMN_W3] = { VALUE_REAL, PER_IMAGE, "rad", "lattice rotation about z (W21), sample frame" },
    [ROW_COLUMN_RESIDUAL] = { VALUE_REAL, PER_IMAGE, "px", "RMS of the fit's shift residuals over the windows used" },
    [ROW_COLUMN_WINDOWS] = { VALUE_INT, PER_IMAGE, "", "windows used by the fit" },
    [ROW_COLUMN_STRAIN_FLAGS] = { VALUE_FLAGS, PER_IMAGE, "", "0: a full fit; else bits (clxcorr strain --help)" },
    [ROW_COLUMN_GRAIN] = { VALUE_INT, PER_IMAGE, "", "grain (clxcorr strain --grains), 0: none" },
    [ROW_COLUMN_REF_ROW] = { VALUE_INT, PER_IMAGE, "", "scan row of the pattern's reference" },
    [ROW_COLUMN_REF_COL] = { VALUE_INT, PER_IMAGE, "", "scan column of the pattern's reference" },
    [ROW_COLUMN_PHI1] = { VALUE_REAL, PER_IMAGE, "rad", "refined orientation, Bunge phi1, sample frame (orix's)" },
    [ROW_COLUMN_PHI] = { VALUE_REAL, PER_IMAGE, "rad", "refined orientation, Bunge Phi" },
    [ROW_COLUMN_PHI2] = { VALUE_REAL, PER_IMAGE, "rad", "refined orientation, Bunge phi2" },
};

struct column_out {
    enum row_column column;
    const struct column_info *info;
    hid_t dataset;
    void *buffer;               /* a block's values: doubles, int32, uint32 or char * */
};

struct h5_output {
    hid_t file;
    clx_output *out;            /* PATH.part, held (and locked) while HDF5 writes it */
    char *path, *part_path;
    const clx_scan_info *scan;  /* grid-shaped datasets over this scan; NULL: images in a list */
    size_t images, nregions;
    size_t block;               /* images per buffered block */
    size_t first, buffered;     /* the block's first image and how many are in */
    struct column_out columns[ROW_COLUMN_COUNT];
    size_t ncolumns;
    int discard;                /* PATH.part holds nothing to keep: removed when freed */
};

int h5_output_available(void)
{
    return 1;
}

void h5_output_init(void)
{
    H5dont_atexit();
}

static size_t value_size(enum value_kind kind)
{
    return kind == VALUE_REAL ? sizeof(double) : kind == VALUE_NAME ? sizeof(char *) : sizeof(int32_t);
}

static hid_t memory_type(enum value_kind kind, hid_t *vlen)
{
    switch (kind) {
    case VALUE_REAL: return H5T_NATIVE_DOUBLE;
    case VALUE_INT: return H5T_NATIVE_INT32;
    case VALUE_FLAGS: return H5T_NATIVE_UINT32;
    case VALUE_NAME:
        *vlen = H5Tcopy(H5T_C_S1);
        H5Tset_size(*vlen, H5T_VARIABLE);
        H5Tset_cset(*vlen, H5T_CSET_UTF8);
        return *vlen;
    }
    return -1;
}

/* The images' own dimensions: (rows, cols) over a scan, else (images). */
static int image_dims(const struct h5_output *o, hsize_t *dims)
{
    if (o->scan) {
        dims[0] = (hsize_t)o->scan->rows;
        dims[1] = (hsize_t)o->scan->cols;
        return 2;
    }
    dims[0] = o->images;
    return 1;
}

/* Attributes as variable-length UTF-8 strings: h5py reads them as str, not bytes. */
static int string_attribute(hid_t object, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t attribute = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int ok = attribute >= 0 && H5Awrite(attribute, type, &value) >= 0;
    if (attribute >= 0)
        H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
    return ok ? 0 : -1;
}

static int double_attribute(hid_t object, const char *name, double value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attribute = H5Acreate2(object, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    int ok = attribute >= 0 && H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value) >= 0;
    if (attribute >= 0)
        H5Aclose(attribute);
    H5Sclose(space);
    return ok ? 0 : -1;
}

/* A column's dataset, chunked by blocks of images, filled so that what was
 * never written reads as "not written". */
static hid_t dataset_create(struct h5_output *o, const struct column_out *c)
{
    hsize_t dims[3], chunk[3];
    int rank = c->info->place == PER_WINDOW ? 0 : image_dims(o, dims);
    if (c->info->place != PER_IMAGE)
        dims[rank++] = o->nregions;
    int empty = 0;
    for (int k = 0; k < rank; k++) {
        chunk[k] = dims[k];
        empty |= dims[k] == 0;
    }
    if (c->info->place != PER_WINDOW)
        chunk[0] = o->scan ? (o->block / (size_t)o->scan->cols) : o->block;
    if (chunk[0] > dims[0])
        chunk[0] = dims[0];
    hid_t vlen = -1, file_type;
    switch (c->info->kind) {
    case VALUE_REAL: file_type = H5T_IEEE_F64LE; break;
    case VALUE_INT: file_type = H5T_STD_I32LE; break;
    case VALUE_FLAGS: file_type = H5T_STD_U32LE; break;
    default: file_type = memory_type(VALUE_NAME, &vlen); break;
    }
    hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    double nan_fill = NAN;
    int32_t int_fill = -1;
    uint32_t flags_fill = UINT32_MAX;
    if (!empty) /* an empty dataset cannot be chunked */
        H5Pset_chunk(dcpl, rank, chunk);
    if (c->info->kind == VALUE_REAL)
        H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan_fill);
    else if (c->info->kind == VALUE_INT)
        H5Pset_fill_value(dcpl, H5T_NATIVE_INT32, &int_fill);
    else if (c->info->kind == VALUE_FLAGS)
        H5Pset_fill_value(dcpl, H5T_NATIVE_UINT32, &flags_fill);
    hid_t d = H5Dcreate2(o->file, row_column_name(c->column), file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d >= 0 && (string_attribute(d, "units", c->info->units) || string_attribute(d, "description",
                                                                                   c->info->description))) {
        H5Dclose(d);
        d = -1;
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    if (vlen >= 0)
        H5Tclose(vlen);
    return d;
}

/* The windows' own columns, written once. */
static int windows_write(struct h5_output *o, const struct column_out *c, const clx_region *regions)
{
    hid_t vlen = -1;
    size_t n = o->nregions;
    void *values = malloc(n * value_size(c->info->kind));
    if (!values)
        return -1;
    for (size_t w = 0; w < n; w++) {
        if (c->column == ROW_COLUMN_REGION)
            ((int32_t *)values)[w] = (int32_t)w;
        else
            ((double *)values)[w] = c->column == ROW_COLUMN_X ? regions[w].x + (regions[w].w - 1) / 2.0
                                                               : regions[w].y + (regions[w].h - 1) / 2.0;
    }
    int ok = H5Dwrite(c->dataset, memory_type(c->info->kind, &vlen), H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0;
    free(values);
    return ok ? 0 : -1;
}

/* The root's attributes: what made the file, and the scan's geometry. */
static int root_attributes(struct h5_output *o, const struct h5_output_shape *shape, int argc, char **argv)
{
    size_t len = 8;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *command = malloc(len);
    if (!command)
        return -1;
    strcpy(command, "clxcorr");
    for (int i = 0; i < argc; i++) {
        strcat(command, " ");
        strcat(command, argv[i]);
    }
    int bad = string_attribute(o->file, "clxcorr_version", clx_version()) |
              string_attribute(o->file, "command", command) | string_attribute(o->file, "mode", shape->mode) |
              string_attribute(o->file, "sign", "dx, dy: a feature's position in the image minus in the reference");
    free(command);
    const clx_scan_info *s = shape->scan;
    if (s) {
        bad |= string_attribute(o->file, "scan_format", s->format) | string_attribute(o->file, "scan", s->scan) |
               double_attribute(o->file, "step_x_um", s->step_x) | double_attribute(o->file, "step_y_um", s->step_y);
        if (s->has_pc)
            bad |= double_attribute(o->file, "pcx", s->pcx) | double_attribute(o->file, "pcy", s->pcy) |
                   double_attribute(o->file, "pcz", s->pcz) |
                   string_attribute(o->file, "pc_convention", "Bruker: x from the left / width, y from the top / "
                                                                "height, distance / height");
    }
    return bad ? -1 : 0;
}

/*
 * Closes the datasets and the file: 0 when everything was written and the
 * file is whole, else -1 with errno the write's (0 when unknown). Flushed
 * first, so that a full disk is seen (and its errno kept) before the close,
 * which on such a file fails too and leaves HDF5 a dead file (see
 * h5_output_init).
 */
static int file_close(struct h5_output *o)
{
    if (o->file < 0)
        return -1;
    errno = 0;
    int flushed = H5Fflush(o->file, H5F_SCOPE_LOCAL) >= 0;
    int error = errno;
    for (size_t k = 0; k < o->ncolumns; k++)
        if (o->columns[k].dataset >= 0) {
            H5Dclose(o->columns[k].dataset);
            o->columns[k].dataset = -1;
        }
    errno = 0;
    int closed = H5Fclose(o->file) >= 0;
    if (flushed && !closed)
        error = errno;
    o->file = -1;
    errno = error;
    return flushed && closed ? 0 : -1;
}

static void output_free(struct h5_output *o)
{
    if (o->file >= 0 && file_close(o) != 0)
        o->discard = 1;
    for (size_t k = 0; k < o->ncolumns; k++) {
        if (o->columns[k].info->kind == VALUE_NAME)
            for (size_t i = 0; i < o->buffered; i++)
                free(((char **)o->columns[k].buffer)[i]);
        free(o->columns[k].buffer);
    }
    if (o->out) {
        /* A file that could not be closed whole is no HDF5 file: removed
         * while still locked, as nothing is there to keep. */
        if (o->discard)
            unlink(clx_output_name(o->out));
        clx_output_close(o->out, 0, NULL);
    }
    free(o->path);
    free(o->part_path);
    free(o);
}

/* Each chosen column's dataset and block buffer. */
static int columns_create(struct h5_output *o, const struct h5_output_shape *shape)
{
    for (size_t k = 0; k < shape->format->ncolumns; k++) {
        struct column_out *c = &o->columns[o->ncolumns++];
        c->column = shape->format->columns[k];
        c->info = &column_infos[c->column];
        c->dataset = dataset_create(o, c);
        if (c->dataset < 0)
            return -1;
        if (c->info->place == PER_WINDOW) {
            if (windows_write(o, c, shape->regions) != 0)
                return -1;
            continue;
        }
        size_t width = c->info->place == PER_IMAGE ? 1 : o->nregions;
        if (!(c->buffer = calloc(o->block * width, value_size(c->info->kind))))
            return -1;
    }
    return 0;
}

int h5_output_open(struct h5_output **out, const char *path, const struct h5_output_shape *shape, int argc,
                   char **argv, clx_message *msg)
{
    struct h5_output *o = calloc(1, sizeof *o);
    *out = NULL;
    if (!o)
        return (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    o->file = -1;
    o->scan = shape->grid ? shape->scan : NULL;
    o->images = shape->images;
    o->nregions = shape->nregions;
    /* Whole scan rows per block: a block is then one hyperslab. */
    size_t rows_per_block = o->scan ? (BLOCK_IMAGES + (size_t)o->scan->cols - 1) / (size_t)o->scan->cols : 1;
    o->block = o->scan ? rows_per_block * (size_t)o->scan->cols : BLOCK_IMAGES;
    size_t n = strlen(path) + 6;
    o->path = strdup(path);
    o->part_path = malloc(n);
    if (o->path && o->part_path)
        snprintf(o->part_path, n, "%s.part", path);
    /* The messages are this writer's own: HDF5's stack dump would only repeat them. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    errno = 0;
    /* clx_output creates and locks PATH.part (HDF5 seeks: a FIFO or device
     * as PATH is refused, not replaced); HDF5 then writes it by name. */
    if (o->path && o->part_path && clx_output_open(path, CLX_OUTPUT_PART | CLX_OUTPUT_SEEKABLE, &o->out, msg) != CLX_OK) {
        output_free(o);
        return CLX_ERR_IO;
    }
    if (o->path && o->part_path) {
        /* clx_output's lock is the one that keeps a second writer out;
         * HDF5's own (a flock of its own descriptor, from 1.10) would
         * collide with it in this very process. */
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
        H5Pset_file_locking(fapl, 0, 1);
#endif
        o->file = H5Fcreate(o->part_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        H5Pclose(fapl);
    }
    if (o->file < 0 || root_attributes(o, shape, argc, argv) != 0 || columns_create(o, shape) != 0) {
        snprintf(msg->text, sizeof msg->text, "%s.part: cannot be written as HDF5%s%s", path, errno ? ": " : "",
                 errno ? strerror(errno) : "");
        o->discard = 1;     /* nothing written yet */
        output_free(o);
        return CLX_ERR_IO;
    }
    *out = o;
    return CLX_OK;
}

/* Writes images [first, first + n) of column c from its buffer (offset `skip` images into it). */
static int column_write(struct h5_output *o, struct column_out *c, size_t first, size_t n, size_t skip)
{
    hsize_t start[3] = { 0, 0, 0 }, count[3] = { 1, 1, 1 }, mem[1];
    size_t width = c->info->place == PER_IMAGE ? 1 : o->nregions;
    int rank;
    if (o->scan) {
        size_t cols = (size_t)o->scan->cols;
        start[0] = first / cols;
        start[1] = first % cols;
        /* Whole rows from a row's start, or a piece of one row. */
        count[0] = start[1] == 0 && n % cols == 0 ? n / cols : 1;
        count[1] = count[0] > 1 || n == cols ? cols : n;
        rank = 2;
    } else {
        start[0] = first;
        count[0] = n;
        rank = 1;
    }
    if (width > 1)
        count[rank++] = width;
    mem[0] = n * width;
    hid_t vlen = -1, fspace = H5Dget_space(c->dataset), mspace = H5Screate_simple(1, mem, NULL);
    hid_t type = memory_type(c->info->kind, &vlen);
    int ok = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dwrite(c->dataset, type, mspace, fspace, H5P_DEFAULT,
                      (char *)c->buffer + skip * width * value_size(c->info->kind)) >= 0;
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (vlen >= 0)
        H5Tclose(vlen);
    return ok ? 0 : -1;
}

/* Writes the buffered block: as one hyperslab, or (a block a failure cut
 * short, over a scan) as pieces of rows. */
static int block_flush(struct h5_output *o, clx_message *msg)
{
    for (size_t k = 0; k < o->ncolumns; k++) {
        struct column_out *c = &o->columns[k];
        if (c->info->place == PER_WINDOW)
            continue;
        size_t done = 0;
        while (done < o->buffered) {
            size_t first = o->first + done, n = o->buffered - done;
            if (o->scan) {
                size_t cols = (size_t)o->scan->cols, col = first % cols;
                n = col == 0 && n >= cols ? n / cols * cols : (cols - col < n ? cols - col : n);
            }
            errno = 0;
            if (column_write(o, c, first, n, done) != 0) {
                int e = errno;
                snprintf(msg->text, sizeof msg->text, "writing %s: the column %s: %s", o->part_path,
                         row_column_name(c->column), e ? strerror(e) : "HDF5 could not write it (disk full?)");
                errno = e;
                return CLX_ERR_IO;
            }
            done += n;
        }
        if (c->info->kind == VALUE_NAME)
            for (size_t i = 0; i < o->buffered; i++) {
                free(((char **)c->buffer)[i]);
                ((char **)c->buffer)[i] = NULL;
            }
    }
    o->first += o->buffered;
    o->buffered = 0;
    return CLX_OK;
}

/* Pattern `at` of the block: column c's value of its strain. */
static void strain_value_put(struct column_out *c, size_t at, const clx_strain_row *row)
{
    const clx_strain *s = &row->fit;
    static const int tensor[6] = { 0, 1, 2, 4, 5, 8 };   /* e11 e12 e13 e22 e23 e33 in e[9] */
    if (c->column >= ROW_COLUMN_E11 && c->column <= ROW_COLUMN_E33)
        ((double *)c->buffer)[at] = s->e[tensor[c->column - ROW_COLUMN_E11]];
    else if (c->column >= ROW_COLUMN_W1 && c->column <= ROW_COLUMN_W3)
        ((double *)c->buffer)[at] = s->w[c->column - ROW_COLUMN_W1];
    else if (c->column == ROW_COLUMN_RESIDUAL)
        ((double *)c->buffer)[at] = s->residual;
    else if (c->column == ROW_COLUMN_WINDOWS)
        ((int32_t *)c->buffer)[at] = s->windows;
    else if (c->column == ROW_COLUMN_STRAIN_FLAGS)
        ((uint32_t *)c->buffer)[at] = s->flags;
    else if (c->column == ROW_COLUMN_GRAIN)
        ((int32_t *)c->buffer)[at] = row->grain;
    else if (c->column == ROW_COLUMN_REF_ROW || c->column == ROW_COLUMN_REF_COL)
        ((int32_t *)c->buffer)[at] = (int32_t)(c->column == ROW_COLUMN_REF_ROW ? row->ref_row : row->ref_col);
    else if (c->column >= ROW_COLUMN_PHI1 && c->column <= ROW_COLUMN_PHI2)
        ((double *)c->buffer)[at] = row->euler[c->column - ROW_COLUMN_PHI1];
}

/* Image `at` of the block, window w's value of column c (strain's columns: from `strain`). */
static int value_put(struct column_out *c, size_t nregions, size_t at, const char *name,
                     const struct row_scan_point *point, const clx_result *results, const clx_strain_row *strain)
{
    if (c->column >= ROW_COLUMN_E11) {
        strain_value_put(c, at, strain);
        return 0;
    }
    if (c->info->place == PER_IMAGE) {
        switch (c->column) {
        case ROW_COLUMN_IMAGE:
            if (!(((char **)c->buffer)[at] = strdup(name)))
                return -1;
            break;
        case ROW_COLUMN_SCAN_ROW: ((int32_t *)c->buffer)[at] = point ? (int32_t)point->row : -1; break;
        case ROW_COLUMN_SCAN_COL: ((int32_t *)c->buffer)[at] = point ? (int32_t)point->col : -1; break;
        case ROW_COLUMN_SCAN_X: ((double *)c->buffer)[at] = point ? point->x : NAN; break;
        case ROW_COLUMN_SCAN_Y: ((double *)c->buffer)[at] = point ? point->y : NAN; break;
        default: break;
        }
        return 0;
    }
    for (size_t w = 0; w < nregions; w++) {
        const clx_result *r = &results[w];
        size_t i = at * nregions + w;
        switch (c->column) {
        case ROW_COLUMN_DX: ((double *)c->buffer)[i] = r->dx; break;
        case ROW_COLUMN_DY: ((double *)c->buffer)[i] = r->dy; break;
        case ROW_COLUMN_PEAK: ((double *)c->buffer)[i] = r->peak; break;
        case ROW_COLUMN_ZNCC: ((double *)c->buffer)[i] = r->zncc; break;
        case ROW_COLUMN_PEAK_RATIO: ((double *)c->buffer)[i] = r->peak_ratio; break;
        case ROW_COLUMN_FLAGS: ((uint32_t *)c->buffer)[i] = r->flags; break;
        case ROW_COLUMN_ITERATIONS: ((int32_t *)c->buffer)[i] = r->iterations; break;
        case ROW_COLUMN_ZNSSD: ((double *)c->buffer)[i] = r->znssd; break;
        case ROW_COLUMN_SIGMA_DX: ((double *)c->buffer)[i] = r->sigma_dx; break;
        case ROW_COLUMN_SIGMA_DY: ((double *)c->buffer)[i] = r->sigma_dy; break;
        case ROW_COLUMN_DUDX: ((double *)c->buffer)[i] = r->dudx; break;
        case ROW_COLUMN_DUDY: ((double *)c->buffer)[i] = r->dudy; break;
        case ROW_COLUMN_DVDX: ((double *)c->buffer)[i] = r->dvdx; break;
        case ROW_COLUMN_DVDY: ((double *)c->buffer)[i] = r->dvdy; break;
        case ROW_COLUMN_EXX:
        case ROW_COLUMN_EYY:
        case ROW_COLUMN_EXY: {
            double e[3];
            row_green_lagrange(r, e);
            ((double *)c->buffer)[i] = e[c->column - ROW_COLUMN_EXX];
            break;
        }
        default: break;
        }
    }
    return 0;
}

/* One image's values, with per-window results or a pattern's strain. */
static int image_put(struct h5_output *o, size_t index, const char *name, const struct row_scan_point *point,
                     const clx_result *results, const clx_strain_row *strain, clx_message *msg)
{
    if (index != o->first + o->buffered || index >= o->images) {
        snprintf(msg->text, sizeof msg->text, "%s: image %zu out of order (internal error)", o->part_path, index);
        return CLX_ERR_STATE;
    }
    for (size_t k = 0; k < o->ncolumns; k++)
        if (o->columns[k].info->place != PER_WINDOW &&
            value_put(&o->columns[k], o->nregions, o->buffered, name, point, results, strain) != 0) {
            snprintf(msg->text, sizeof msg->text, "out of memory");
            return CLX_ERR_HOST_MEMORY;
        }
    o->buffered++;
    return o->buffered == o->block || index + 1 == o->images ? block_flush(o, msg) : CLX_OK;
}

int h5_output_image(struct h5_output *o, size_t index, const char *name, const struct row_scan_point *point,
                    const clx_result *results, clx_message *msg)
{
    return image_put(o, index, name, point, results, NULL, msg);
}

int h5_output_pattern(struct h5_output *o, size_t index, const char *name, const struct row_scan_point *point,
                      const clx_strain_row *strain, clx_message *msg)
{
    return image_put(o, index, name, point, NULL, strain, msg);
}

int h5_output_close(struct h5_output *o, int complete, clx_message *msg)
{
    if (!o)
        return CLX_OK;
    clx_message flush_msg;
    errno = 0;
    int status = o->buffered ? block_flush(o, &flush_msg) : CLX_OK;
    int error = status != CLX_OK ? errno : 0;
    if (file_close(o) != 0) {
        error = error ? error : errno;
        snprintf(msg->text, sizeof msg->text, "writing %s: %s (the incomplete HDF5 file is removed)", o->part_path,
                 error ? strerror(error) : "HDF5 could not complete it (disk full?)");
        status = CLX_ERR_IO;
        o->discard = 1;
    } else if (status != CLX_OK) {
        /* The file is whole, less the block that could not be written:
         * kept as PATH.part, those images reading as not written. */
        *msg = flush_msg;
        complete = 0;
    }
    if (!o->discard) {
        clx_message close_msg;
        int closed = clx_output_close(o->out, complete, &close_msg);
        o->out = NULL;
        if (closed != CLX_OK) {
            *msg = close_msg;
            status = closed;
        }
    }
    output_free(o);
    return status;
}

#endif
