/*
 * upload_crop.h - the part of each image a plan uploads when its pipeline
 * reads nothing outside the windows (the seed mode): the rows the windows
 * cover, between the leftmost and the rightmost window edge.
 *
 * The bus is the seed mode's limit on a GPU (a 900 x 900 16-bit pattern is
 * 1.6 MB, 3.8 ms per 128 patterns over an H100's PCIe), and the standard
 * EBSD grid covers about half of each pattern. The covered rows are merged
 * into bands; the device copy of an image is its bands stacked, so that it
 * is an ordinary image, narrower and shorter, whose windows are the same
 * pixels at moved corners. Each band goes up as one rectangular copy
 * (clEnqueueWriteBufferRect) straight from the caller's image, for every
 * image of the push at once: no host copy is added.
 */
#ifndef CLX_UPLOAD_CROP_H
#define CLX_UPLOAD_CROP_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"

/* Rows y .. y + h - 1 of an image go to rows at .. at + h - 1 of its device copy. */
struct crop_band {
    int y, h, at;
};

struct upload_crop {
    int used;                   /* 0: whole images go up (the crop would not save enough) */
    int image_w, image_h;       /* the images' size */
    int x0, width;              /* the columns uploaded: x0 .. x0 + width - 1 */
    int height;                 /* the device copy's rows: the bands' heights summed */
    int nbands;
    struct crop_band *bands;    /* in y order, disjoint */
};

/* The crop for these windows of w x h images; used only where it leaves
 * out at least a tenth of each image. CLX_ERR_HOST_MEMORY, or CLX_OK. */
int upload_crop_choose(struct upload_crop *c, const clx_region *regions, size_t n, int w, int h);

/* Where the image pixel (x, y), inside a window, lies in the device copy. */
void upload_crop_map(const struct upload_crop *c, int x, int y, int *cx, int *cy);

/* The device copy's size: the crop's, or the image's when unused. */
void upload_crop_size(const struct upload_crop *c, int *w, int *h);

/* Enqueues the upload of n images of pixel_size bytes per pixel, back to
 * back at `pixels`, into `buffer` as their device copies, back to back. */
cl_int upload_crop_enqueue(const struct upload_crop *c, cl_command_queue queue, cl_mem buffer, const void *pixels,
                           size_t pixel_size, size_t n);

void upload_crop_release(struct upload_crop *c);

#endif
