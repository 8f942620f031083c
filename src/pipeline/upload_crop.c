/*
 * upload_crop.c - the rows and columns of each image a seed plan uploads
 * (upload_crop.h says why).
 */
#include "config.h"

#include <stdlib.h>

#include "pipeline/upload_crop.h"

/* Below this share of the image saved, whole images go up: one copy is
 * simplest, and a plan whose windows tile the image gains nothing. */
#define MIN_SAVED 0.1

static int by_top(const void *a, const void *b)
{
    const clx_region *ra = a, *rb = b;
    return (ra->y > rb->y) - (ra->y < rb->y);
}

int upload_crop_choose(struct upload_crop *c, const clx_region *regions, size_t n, int w, int h)
{
    *c = (struct upload_crop){ 0, w, h, 0, w, h, 0, NULL };
    if (n == 0)
        return CLX_OK;
    clx_region *sorted = malloc(sizeof *sorted * n);
    c->bands = malloc(sizeof *c->bands * n);
    if (!sorted || !c->bands) {
        free(sorted);
        upload_crop_release(c);
        return CLX_ERR_HOST_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = regions[i];
    qsort(sorted, n, sizeof *sorted, by_top);

    int x0 = w, x1 = 0, height = 0;
    c->nbands = 0;
    for (size_t i = 0; i < n; i++) {
        const clx_region *r = &sorted[i];
        x0 = r->x < x0 ? r->x : x0;
        x1 = r->x + r->w > x1 ? r->x + r->w : x1;
        struct crop_band *last = c->nbands ? &c->bands[c->nbands - 1] : NULL;
        if (last && r->y <= last->y + last->h) {
            /* Overlapping or touching the band above: it grows. */
            int end = r->y + r->h > last->y + last->h ? r->y + r->h : last->y + last->h;
            height += end - (last->y + last->h);
            last->h = end - last->y;
        } else {
            c->bands[c->nbands++] = (struct crop_band){ r->y, r->h, height };
            height += r->h;
        }
    }
    free(sorted);
    c->x0 = x0;
    c->width = x1 - x0;
    c->height = height;
    c->used = (double)c->width * c->height <= (1.0 - MIN_SAVED) * w * h;
    return CLX_OK;
}

void upload_crop_map(const struct upload_crop *c, int x, int y, int *cx, int *cy)
{
    *cx = x;
    *cy = y;
    if (!c->used)
        return;
    *cx = x - c->x0;
    for (int b = 0; b < c->nbands; b++)
        if (y >= c->bands[b].y && y < c->bands[b].y + c->bands[b].h) {
            *cy = c->bands[b].at + (y - c->bands[b].y);
            return;
        }
}

void upload_crop_size(const struct upload_crop *c, int *w, int *h)
{
    *w = c->used ? c->width : c->image_w;
    *h = c->used ? c->height : c->image_h;
}

cl_int upload_crop_enqueue(const struct upload_crop *c, cl_command_queue queue, cl_mem buffer, const void *pixels,
                           size_t pixel_size, size_t n)
{
    size_t image_row = (size_t)c->image_w * pixel_size, image_bytes = image_row * c->image_h;
    if (!c->used)
        return clEnqueueWriteBuffer(queue, buffer, CL_FALSE, 0, image_bytes * n, pixels, 0, NULL, NULL);
    size_t copy_row = (size_t)c->width * pixel_size, copy_bytes = copy_row * c->height;
    for (int b = 0; b < c->nbands; b++) {
        /* Every image's band at once: the images are the third dimension. */
        const size_t device_origin[3] = { 0, (size_t)c->bands[b].at, 0 };
        const size_t host_origin[3] = { (size_t)c->x0 * pixel_size, (size_t)c->bands[b].y, 0 };
        const size_t region[3] = { copy_row, (size_t)c->bands[b].h, n };
        cl_int err = clEnqueueWriteBufferRect(queue, buffer, CL_FALSE, device_origin, host_origin, region, copy_row,
                                              copy_bytes, image_row, image_bytes, pixels, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return err;
    }
    return CL_SUCCESS;
}

void upload_crop_release(struct upload_crop *c)
{
    free(c->bands);
    c->bands = NULL;
    c->nbands = 0;
    c->used = 0;
}
