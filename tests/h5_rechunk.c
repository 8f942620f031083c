/* h5_rechunk.c - an HDF5 pattern file copied with its patterns rechunked and gzip-compressed (h5_rechunk.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

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

int h5_copy_rechunked(const char *from, const char *to, const char *dataset, int per_chunk, int level, char *err,
                      size_t len)
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
    ftype = H5Dget_type(source);
    mtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
    values = malloc((size_t)(dims[0] * dims[1] * dims[2]) * H5Tget_size(mtype));
    if (!values || H5Dread(source, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
        fail(err, len, "cannot read", dataset);
        goto done;
    }
    chunk[0] = (hsize_t)per_chunk < dims[0] ? (hsize_t)per_chunk : dims[0];
    chunk[1] = dims[1];
    chunk[2] = dims[2];
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* The copy's contiguous patterns go; their bytes stay behind in the file, unreferenced. */
    if (H5Ldelete(out, dataset, H5P_DEFAULT) < 0 || H5Pset_chunk(dcpl, 3, chunk) < 0 ||
        H5Pset_deflate(dcpl, (unsigned)level) < 0 ||
        (copy = H5Dcreate2(out, dataset, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0 ||
        H5Dwrite(copy, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
        fail(err, len, "cannot write the gzip-compressed", dataset);
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
