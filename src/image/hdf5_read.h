/*
 * hdf5_read.h - small, careful reads from HDF5 files, for the pattern
 * containers (internal; load_hdf5.c).
 *
 * Vendors store the same kind of value in different shapes and types: a
 * header value may be a scalar, a (1,) or a (1,1) array, an int32 or a
 * big-endian float; a string fixed-length or variable-length, padded with
 * NULs or blanks; a per-point array (N,), (N,1) or (rows, cols). These read
 * any of them, converting to the native type, and say plainly when a value
 * is missing or has another shape, so that the readers above can name the
 * dataset in their messages.
 */
#ifndef CLX_HDF5_READ_H
#define CLX_HDF5_READ_H

#include <stddef.h>
#include <hdf5.h>

/* HDF5 prints its error stack on stderr unless told not to; a library must
 * not. Quiet from begin to end on this thread (HDF5's error stacks are per
 * thread in its thread-safe build), and the caller's setting restored. */
struct h5_quiet {
    H5E_auto2_t func;
    void *data;
};
void h5_quiet_begin(struct h5_quiet *q);
void h5_quiet_end(const struct h5_quiet *q);

/* The innermost description on this thread's HDF5 error stack ("truncated
 * file: eof = 2048, ..."), or "" when it is empty. */
void h5_last_error(char *buf, size_t len);

/* Whether every link of `path` (relative to loc, '/'-separated) exists. */
int h5_exists(hid_t loc, const char *path);

/* A dataset holding exactly one number (any rank, any numeric type) as a
 * double or an integer: 0, or -1 when it is missing or holds anything else. */
int h5_read_double(hid_t loc, const char *path, double *out);
int h5_read_long(hid_t loc, const char *path, long long *out);

/* A string dataset (fixed or variable length; one element) without its
 * trailing NULs and blanks: 0, or -1 when missing or not one string. */
int h5_read_string(hid_t loc, const char *path, char *out, size_t len);

/*
 * A numeric dataset of n values ((n,), (n,1), (1,n), (rows, cols) with
 * rows * cols == n) as n doubles, or of one value, repeated n times
 * (*single = 1); *out is malloc'd. 0, or -1 when missing, of another size,
 * or not numeric.
 */
int h5_read_doubles(hid_t loc, const char *path, size_t n, double **out, int *single);

/* Like h5_read_doubles for an (n, 3) array, as 3 n doubles (row by row). */
int h5_read_triples(hid_t loc, const char *path, size_t n, double **out);

/* The value of the dataset at the file's root whose name, trimmed of
 * blanks, is `name` ignoring case (EDAX OIM 7 writes " Manufacturer"):
 * 0, or -1 when there is none. */
int h5_root_string(hid_t file, const char *name, char *out, size_t len);

/* The names of the top-level groups holding `dataset` (a path inside
 * each), in the file's name order; *names is malloc'd, each name too. */
int h5_groups_holding(hid_t file, const char *dataset, char ***names, size_t *count);
void h5_names_free(char **names, size_t count);

#endif
