/*
 * loaders.h - the interface between src/image/image_file.c and the
 * file-format backends (internal). Each backend lives in its own file:
 * load_tiff.c (libtiff), load_pnm.c (PGM/PPM), load_stb.c (stb_image: PNG,
 * JPEG, BMP) and the pattern files' (load_hdf5.c, ...).
 */
#ifndef CLX_LOADERS_H
#define CLX_LOADERS_H

#include <stddef.h>
#include "clxcorr.h"

/* Images larger than this in either dimension are refused before allocating. */
#define CLX_IMAGE_MAX_SIDE 65536
/* ... and images with more pixels than this. */
#define CLX_IMAGE_MAX_PIXELS (1ull << 30)
/* The most bytes a decoder may hold for one page: the largest image, in floats. */
#define CLX_IMAGE_MAX_BYTES (CLX_IMAGE_MAX_PIXELS * 4)

struct image_format;

struct clx_image_file {
    char *path;
    int pages;
    const struct image_format *format;
    void *handle;               /* the backend's own state */
    /* Pattern files: the scan (format[0] == '\0' for other files), and per
     * page, when the file gives them, the pattern centre (3 doubles, in
     * clx_scan_info's convention) and the Euler angles (3 doubles, radians). */
    clx_scan_info scan;
    double *pattern_centres;
    double *euler;
    /* What the pixels are stored as where they read as another type (a
     * pattern dataset of int32 or float64 read as float), for messages:
     * "32-bit signed integer"; "" when they read as stored. */
    char stored[40];
};

struct image_format {
    const char *name;
    /* Non-zero when the file belongs to this format: from its first bytes,
     * or, for formats without a magic number, from its name (path). */
    int (*probe)(const char *path, const unsigned char *head, size_t length);
    /* Opens file->path, sets file->pages and file->handle (and, for pattern
     * files, file->scan and the per-page arrays); `scan` names the scan to
     * read (NULL: the only one), for formats that hold several. */
    int (*open)(clx_image_file *file, const char *scan, clx_message *msg);
    int (*read)(clx_image_file *file, int page, clx_image *image, clx_message *msg);
    /*
     * Reads page `page` straight into dst (size and type checked with
     * image_fit_check), or returns IMAGE_READ_DECODE when the page is not
     * laid out for that: src/image/image_file.c then decodes it with `read`
     * and copies. NULL: always decode.
     */
    int (*read_into)(clx_image_file *file, int page, clx_image *dst, clx_message *msg);
    /* The same for the rows in `rows` only (nrows runs, checked to lie
     * inside the image): rows outside them may be left alone. NULL, or
     * IMAGE_READ_DECODE: read_into's whole page serves instead. */
    int (*read_rows_into)(clx_image_file *file, int page, clx_image *dst, const clx_rows *rows, size_t nrows,
                          clx_message *msg);
    void (*close)(clx_image_file *file);
    /* read and read_into may run in several threads at once on one open file. */
    int shared_reads;
};

/* read_into's answer for "decode this page with read": not a clx_status. */
#define IMAGE_READ_DECODE 1

extern const struct image_format image_format_tiff;
extern const struct image_format image_format_pnm;
extern const struct image_format image_format_stb;
/* The binary EBSD pattern files, known by their names (load_up.c, load_nordif.c, load_ebsp.c). */
extern const struct image_format image_format_up;
extern const struct image_format image_format_nordif;
extern const struct image_format image_format_ebsp;
#ifdef HAVE_HDF5
extern const struct image_format image_format_hdf5;
#endif

/* A scan without geometry: format named, grid 0 x 0, every angle and the pixel size NAN. */
void image_scan_init(clx_scan_info *scan, const char *format);

/* Helpers the backends share (src/image/image.c). */

/* 0.299 R + 0.587 G + 0.114 B rounded to nearest (halves up), in exact
 * integer arithmetic so that every backend and platform agrees to the bit. */
unsigned image_luma_uint(unsigned r, unsigned g, unsigned b);

/* Row y of an 8- or 16-bit image from pixels of `channels` samples each
 * (the image's sample type, native byte order); 3 or more: luminance. */
void image_row_from_samples(const void *samples, int channels, int y, clx_image *image);

/* "PATH" for the first page, "PATH: page N" for the others, for messages. */
const char *image_where(const clx_image_file *file, int page, char *buf, size_t size);

/* A float page with a NaN or infinity refused, naming its file and page
 * (clx_image_check_finite): every backend that reads floats checks them. */
int image_finite_check(const clx_image_file *file, int page, const clx_image *image, clx_message *msg);

/*
 * Whether dst can take a page of width x height `type` pixels: the same
 * size (else CLX_ERR_SIZE) and a type as wide or wider (else
 * CLX_ERR_FORMAT), the message naming the file and page.
 */
int image_fit_check(const clx_image_file *file, int page, int width, int height, clx_pixel_type type,
                    const clx_image *dst, clx_message *msg);

/* Widens the width x height pixels of type `from` at the start of
 * image->pixels into image->type, in place. */
void image_widen(clx_image *image, clx_pixel_type from);

/* Refuses sizes below 1 or above the limits above, naming the file. */
int image_size_check(const char *path, const char *kind, long long width, long long height,
                     clx_message *msg);

/* clx_image_alloc with the file named in the message. */
int image_make(const char *path, int width, int height, clx_pixel_type type, clx_image *image,
               clx_message *msg);

#endif
