/* hdf5_read.c - values read from HDF5 files whatever their stored shape and type (hdf5_read.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "image/hdf5_read.h"

void h5_quiet_begin(struct h5_quiet *q)
{
    if (H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) < 0) {
        q->func = NULL;
        q->data = NULL;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void h5_quiet_end(const struct h5_quiet *q)
{
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

struct last_error {
    char *buf;
    size_t len;
};

/* Keeps the description of the deepest entry that has one. */
static herr_t keep_description(unsigned n, const H5E_error2_t *err, void *user)
{
    struct last_error *e = user;
    if (err->desc && *err->desc)
        snprintf(e->buf, e->len, "%s", err->desc);
    return 0;
}

void h5_last_error(char *buf, size_t len)
{
    struct last_error e = { buf, len };
    buf[0] = '\0';
    /* Walked from the outermost call inwards: the last one kept is the cause. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_description, &e);
}

int h5_exists(hid_t loc, const char *path)
{
    char partial[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof partial)
        return 0;
    /* H5Lexists fails, rather than answering no, when a parent is missing. */
    for (size_t i = 0; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        memcpy(partial, path, i);
        partial[i] = '\0';
        if (i > 0 && H5Lexists(loc, partial, H5P_DEFAULT) <= 0)
            return 0;
    }
    return 1;
}

/* The dataset at path and its element count: the id (close it), or -1. */
static hid_t open_dataset(hid_t loc, const char *path, hssize_t *npoints, H5T_class_t *class)
{
    if (!h5_exists(loc, path))
        return -1;
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    *npoints = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    *class = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return d;
}

static int is_number(H5T_class_t class)
{
    return class == H5T_INTEGER || class == H5T_FLOAT;
}

int h5_read_double(hid_t loc, const char *path, double *out)
{
    hssize_t n;
    H5T_class_t class;
    hid_t d = open_dataset(loc, path, &n, &class);
    if (d < 0)
        return -1;
    int ok = n == 1 && is_number(class) && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
    H5Dclose(d);
    return ok ? 0 : -1;
}

int h5_read_long(hid_t loc, const char *path, long long *out)
{
    double v;
    if (h5_read_double(loc, path, &v) != 0 || v != (double)(long long)v)
        return -1;
    *out = (long long)v;
    return 0;
}

/* Trailing NULs and blanks off (fixed-length strings are padded with either). */
static void trim_end(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
}

/* One string element of dataset d into out. */
static int read_one_string(hid_t d, char *out, size_t len)
{
    hid_t ftype = H5Dget_type(d), mtype = -1;
    int ok = 0;
    if (ftype < 0)
        return -1;
    /* HDF5 converts no strings between ASCII and UTF-8 (h5py writes a
     * Python str as variable-length UTF-8): read in the file's own set. */
    H5T_cset_t cset = H5Tget_cset(ftype);
    if (cset < 0)
        cset = H5T_CSET_ASCII;
    if (H5Tis_variable_str(ftype) > 0) {
        char *value = NULL;
        mtype = H5Tcopy(H5T_C_S1);
        if (mtype >= 0 && H5Tset_size(mtype, H5T_VARIABLE) >= 0 && H5Tset_cset(mtype, cset) >= 0 &&
            H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) >= 0 && value) {
            snprintf(out, len, "%s", value);
            H5free_memory(value);
            ok = 1;
        }
    } else {
        size_t size = H5Tget_size(ftype);
        char *value = calloc(size + 1, 1);
        mtype = H5Tcopy(H5T_C_S1);
        if (value && mtype >= 0 && H5Tset_size(mtype, size) >= 0 && H5Tset_strpad(mtype, H5T_STR_NULLPAD) >= 0 &&
            H5Tset_cset(mtype, cset) >= 0 &&
            H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, value) >= 0) {
            snprintf(out, len, "%s", value);
            ok = 1;
        }
        free(value);
    }
    if (mtype >= 0)
        H5Tclose(mtype);
    H5Tclose(ftype);
    if (ok)
        trim_end(out);
    return ok ? 0 : -1;
}

int h5_read_string(hid_t loc, const char *path, char *out, size_t len)
{
    hssize_t n;
    H5T_class_t class;
    hid_t d = open_dataset(loc, path, &n, &class);
    if (d < 0)
        return -1;
    int rc = n == 1 && class == H5T_STRING ? read_one_string(d, out, len) : -1;
    H5Dclose(d);
    return rc;
}

int h5_read_doubles(hid_t loc, const char *path, size_t n, double **out, int *single)
{
    hssize_t points;
    H5T_class_t class;
    *out = NULL;
    *single = 0;
    hid_t d = open_dataset(loc, path, &points, &class);
    if (d < 0)
        return -1;
    int ok = 0;
    double *values = NULL;
    if (is_number(class) && (points == 1 || (size_t)points == n) && (values = malloc(sizeof *values * n)) &&
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0) {
        ok = 1;
        if (points == 1 && n > 1) {
            for (size_t i = 1; i < n; i++)
                values[i] = values[0];
            *single = 1;
        }
    }
    H5Dclose(d);
    if (!ok) {
        free(values);
        return -1;
    }
    *out = values;
    return 0;
}

int h5_read_triples(hid_t loc, const char *path, size_t n, double **out)
{
    hssize_t points;
    H5T_class_t class;
    *out = NULL;
    hid_t d = open_dataset(loc, path, &points, &class);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    hsize_t dims[2] = { 0, 0 };
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (rank == 2)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    double *values = NULL;
    int ok = is_number(class) && rank == 2 && dims[0] == n && dims[1] == 3 && (values = malloc(sizeof *values * 3 * n)) &&
             H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0;
    H5Dclose(d);
    if (!ok) {
        free(values);
        return -1;
    }
    *out = values;
    return 0;
}

struct root_search {
    const char *name;
    char found[256];
};

/* The first root link whose trimmed name matches, case ignored. */
static herr_t match_root_name(hid_t group, const char *link, const H5L_info_t *info, void *user)
{
    struct root_search *s = user;
    const char *p = link;
    while (*p == ' ')
        p++;
    size_t n = strlen(p);
    while (n > 0 && p[n - 1] == ' ')
        n--;
    if (n == strlen(s->name) && strncasecmp(p, s->name, n) == 0) {
        snprintf(s->found, sizeof s->found, "%s", link);
        return 1;
    }
    return 0;
}

int h5_root_string(hid_t file, const char *name, char *out, size_t len)
{
    struct root_search s = { name, "" };
    hsize_t at = 0;
    if (H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &at, match_root_name, &s) <= 0)
        return -1;
    return h5_read_string(file, s.found, out, len);
}

struct group_search {
    const char *dataset;
    char **names;
    size_t count, capacity;
    int failed;
};

/* Whether `link` at the root is a group (an API stable from HDF5 1.10 on). */
static int is_group(hid_t file, const char *link)
{
    hid_t object = H5Oopen(file, link, H5P_DEFAULT);
    if (object < 0)
        return 0;
    int group = H5Iget_type(object) == H5I_GROUP;
    H5Oclose(object);
    return group;
}

static herr_t collect_group(hid_t file, const char *link, const H5L_info_t *info, void *user)
{
    struct group_search *s = user;
    char path[1024];
    if (!is_group(file, link))
        return 0;
    if (snprintf(path, sizeof path, "%s/%s", link, s->dataset) >= (int)sizeof path || !h5_exists(file, path))
        return 0;
    if (s->count == s->capacity) {
        size_t grown = s->capacity ? 2 * s->capacity : 8;
        char **more = realloc(s->names, grown * sizeof *more);
        if (!more) {
            s->failed = 1;
            return -1;
        }
        s->names = more;
        s->capacity = grown;
    }
    if (!(s->names[s->count] = strdup(link))) {
        s->failed = 1;
        return -1;
    }
    s->count++;
    return 0;
}

int h5_groups_holding(hid_t file, const char *dataset, char ***names, size_t *count)
{
    struct group_search s = { dataset, NULL, 0, 0, 0 };
    hsize_t at = 0;
    H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &at, collect_group, &s);
    if (s.failed) {
        h5_names_free(s.names, s.count);
        return -1;
    }
    *names = s.names;
    *count = s.count;
    return 0;
}

void h5_names_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
