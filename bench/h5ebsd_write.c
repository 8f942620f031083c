/*
 * h5ebsd_write.c - clxcorr-h5ebsd-write: an h5ebsd file in kikuchipy's layout
 * from pattern images, for benchmarks on machines without kikuchipy or h5py
 * (the GPU hosts): the images are read with clx_image_load and written
 * again and again, in order, until the scan has ROWS x COLS patterns, as one
 * contiguous 16-bit dataset "Scan 1/EBSD/Data/patterns" with the header's
 * grid, pattern size and a 1 um step.
 *
 *   clxcorr-h5ebsd-write OUT.h5 ROWS COLS IMAGE...
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "clxcorr.h"

static void put_string(hid_t loc, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, strlen(value));
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(loc, name, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value);
    H5Dclose(d);
    H5Pclose(lcpl);
    H5Sclose(space);
    H5Tclose(type);
}

static void put_number(hid_t loc, const char *name, hid_t type, double value)
{
    hid_t space = H5Screate(H5S_SCALAR), lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(loc, name, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value);
    H5Dclose(d);
    H5Pclose(lcpl);
    H5Sclose(space);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: clxcorr-h5ebsd-write OUT.h5 ROWS COLS IMAGE...\n");
        return 2;
    }
    long rows = atol(argv[2]), cols = atol(argv[3]);
    int nimages = argc - 4;
    clx_image *images = calloc((size_t)nimages, sizeof *images);
    clx_message msg;
    for (int i = 0; i < nimages; i++) {
        clx_image raw;
        if (clx_image_load(argv[4 + i], 0, &raw, &msg) != CLX_OK ||
            clx_image_alloc(&images[i], raw.width, raw.height, CLX_PIXEL_U16, &msg) != CLX_OK ||
            clx_image_copy_to(&raw, &images[i], &msg) != CLX_OK || raw.width != images[0].width ||
            raw.height != images[0].height) {
            fprintf(stderr, "clxcorr-h5ebsd-write: %s: %s\n", argv[4 + i], msg.text);
            return 1;
        }
        clx_image_free(&raw);
    }
    if (rows < 1 || cols < 1) {
        fprintf(stderr, "clxcorr-h5ebsd-write: ROWS and COLS must be positive\n");
        return 2;
    }
    int w = images[0].width, h = images[0].height;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) {
        fprintf(stderr, "clxcorr-h5ebsd-write: cannot create %s\n", argv[1]);
        return 1;
    }
    put_string(f, "manufacturer", "kikuchipy");
    put_string(f, "version", "0.11.0");
    hid_t scan = H5Gcreate2(f, "Scan 1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_number(scan, "EBSD/Header/n_rows", H5T_NATIVE_INT32, (double)rows);
    put_number(scan, "EBSD/Header/n_columns", H5T_NATIVE_INT32, (double)cols);
    put_number(scan, "EBSD/Header/pattern_height", H5T_NATIVE_INT32, h);
    put_number(scan, "EBSD/Header/pattern_width", H5T_NATIVE_INT32, w);
    put_number(scan, "EBSD/Header/step_x", H5T_NATIVE_FLOAT, 1);
    put_number(scan, "EBSD/Header/step_y", H5T_NATIVE_FLOAT, 1);
    hsize_t dims[3] = { (hsize_t)(rows * cols), (hsize_t)h, (hsize_t)w }, one[3] = { 1, (hsize_t)h, (hsize_t)w };
    hid_t space = H5Screate_simple(3, dims, NULL), mspace = H5Screate_simple(3, one, NULL);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(scan, "EBSD/Data/patterns", H5T_STD_U16LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (d < 0) {
        fprintf(stderr, "clxcorr-h5ebsd-write: cannot create the pattern dataset in %s\n", argv[1]);
        return 1;
    }
    for (hsize_t k = 0; k < dims[0]; k++) {
        hsize_t start[3] = { k, 0, 0 };
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, one, NULL);
        if (H5Dwrite(d, H5T_NATIVE_UINT16, mspace, space, H5P_DEFAULT, images[k % (hsize_t)nimages].pixels) < 0) {
            fprintf(stderr, "clxcorr-h5ebsd-write: %s: writing pattern %llu failed\n", argv[1], (unsigned long long)k);
            return 1;
        }
    }
    H5Dclose(d);
    H5Sclose(mspace);
    H5Sclose(space);
    H5Gclose(scan);
    H5Fclose(f);
    for (int i = 0; i < nimages; i++)
        clx_image_free(&images[i]);
    free(images);
    printf("%s: %ld x %ld patterns of %d x %d\n", argv[1], rows, cols, w, h);
    return 0;
}
