/* h5_rechunk.c - an HDF5 pattern file copied with its patterns stored again: rechunked and gzip-compressed,
 * or as another type (h5_rechunk.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5_rechunk.h"

int h5_gzip_available(void)
{
    unsigned config = 0;
    return H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zget_filter_info(H5Z_FILTER_DEFLATE, &config) >= 0 &&
           (config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) && (config & H5Z_FILTER_CONFIG_DECODE_ENABLED);
}

/* Every top-level object of the source, copied with what it holds. */
static herr_t copy_link(hid_t from, const char *name, const H5L_info_t *info, void *to)
{
    (void)info;
    return H5Ocopy(from, name, *(hid_t *)to, name, H5P_DEFAULT, H5P_DEFAULT) < 0 ? -1 : 0;
}

static int fail(char *err, size_t len, const char *what, const char *path)
{
    snprintf(err, len, "%s %s", what, path);
    return -1;
}

/* How the copy's pattern dataset is stored again. */
struct rewrite {
    int per_chunk, level;       /* gzip-compressed chunks of per_chunk patterns; 0: contiguous, as it was */
    hid_t file_type;            /* the stored type; -1: the source's */
    long page;                  /* -1, or the pattern whose pixel (x, y) becomes `value` */
    int x, y;
    double value;
};

static int copy_rewritten(const char *from, const char *to, const char *dataset, const struct rewrite *how,
                          char *err, size_t len)
{
    hid_t in = -1, out = -1, source = -1, space = -1, ftype = -1, mtype = -1, dcpl = -1, copy = -1;
    void *values = NULL;
    hsize_t dims[3], chunk[3], at = 0;
    int status = -1;
    if ((in = H5Fopen(from, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        fail(err, len, "cannot open", from);
        goto done;
    }
    if ((out = H5Fcreate(to, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        fail(err, len, "cannot create", to);
        goto done;
    }
    if (H5Literate(in, H5_INDEX_NAME, H5_ITER_INC, &at, copy_link, &out) < 0) {
        fail(err, len, "cannot copy the objects of", from);
        goto done;
    }
    if ((source = H5Dopen2(in, dataset, H5P_DEFAULT)) < 0 || (space = H5Dget_space(source)) < 0 ||
        H5Sget_simple_extent_ndims(space) != 3 || H5Sget_simple_extent_dims(space, dims, NULL) != 3) {
        fail(err, len, "no (count, height, width) dataset", dataset);
        goto done;
    }
    ftype = how->file_type >= 0 ? H5Tcopy(how->file_type) : H5Dget_type(source);
    /* A pixel to set: the values pass through doubles, which hold every pattern type exactly. */
    mtype = how->page >= 0 ? H5Tcopy(H5T_NATIVE_DOUBLE) : H5Tget_native_type(ftype, H5T_DIR_ASCEND);
    values = malloc((size_t)(dims[0] * dims[1] * dims[2]) * H5Tget_size(mtype));
    if (!values || H5Dread(source, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
        fail(err, len, "cannot read", dataset);
        goto done;
    }
    if (how->page >= 0) {
        if ((hsize_t)how->page >= dims[0] || how->x < 0 || (hsize_t)how->x >= dims[2] || how->y < 0 ||
            (hsize_t)how->y >= dims[1]) {
            fail(err, len, "no such pattern or pixel in", dataset);
            goto done;
        }
        ((double *)values)[((hsize_t)how->page * dims[1] + (hsize_t)how->y) * dims[2] + (hsize_t)how->x] = how->value;
    }
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (how->per_chunk > 0) {
        chunk[0] = (hsize_t)how->per_chunk < dims[0] ? (hsize_t)how->per_chunk : dims[0];
        chunk[1] = dims[1];
        chunk[2] = dims[2];
        if (H5Pset_chunk(dcpl, 3, chunk) < 0 || H5Pset_deflate(dcpl, (unsigned)how->level) < 0) {
            fail(err, len, "cannot chunk", dataset);
            goto done;
        }
    }
    /* The copy's patterns go; their bytes stay behind in the file, unreferenced. */
    if (H5Ldelete(out, dataset, H5P_DEFAULT) < 0 ||
        (copy = H5Dcreate2(out, dataset, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0 ||
        H5Dwrite(copy, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
        fail(err, len, "cannot write the new", dataset);
        goto done;
    }
    status = 0;
done:
    free(values);
    if (copy >= 0)
        H5Dclose(copy);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (mtype >= 0)
        H5Tclose(mtype);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (space >= 0)
        H5Sclose(space);
    if (source >= 0)
        H5Dclose(source);
    if (out >= 0 && H5Fclose(out) < 0 && status == 0)
        status = fail(err, len, "cannot close", to);
    if (in >= 0)
        H5Fclose(in);
    return status;
}

int h5_copy_rechunked(const char *from, const char *to, const char *dataset, int per_chunk, int level, char *err,
                      size_t len)
{
    const struct rewrite how = { per_chunk > 0 ? per_chunk : 1, level, -1, -1, 0, 0, 0 };
    return copy_rewritten(from, to, dataset, &how, err, len);
}

int h5_copy_retyped(const char *from, const char *to, const char *dataset, const char *type, long page, int x, int y,
                    double value, char *err, size_t len)
{
    static const struct {
        const char *name;
        hid_t *file_type;
    } types[] = { { "f32", &H5T_IEEE_F32LE_g }, { "f64", &H5T_IEEE_F64LE_g }, { "i32", &H5T_STD_I32LE_g },
                  { "i16", &H5T_STD_I16LE_g } };
    H5open();   /* the H5T_*_g ids are set when the library starts */
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (strcmp(type, types[k].name) == 0) {
            const struct rewrite how = { 0, 0, *types[k].file_type, page, x, y, value };
            return copy_rewritten(from, to, dataset, &how, err, len);
        }
    snprintf(err, len, "type %s: f32, f64, i32 or i16", type);
    return -1;
}
