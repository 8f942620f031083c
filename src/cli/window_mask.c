/* window_mask.c - windows left out by a mask image (see window_mask.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_list.h"
#include "window_mask.h"

static int pixel_excluded(const clx_image *mask, size_t at)
{
    switch (mask->type) {
    case CLX_PIXEL_U8: return ((const unsigned char *)mask->pixels)[at] == 0;
    case CLX_PIXEL_U16: return ((const unsigned short *)mask->pixels)[at] == 0;
    default: return ((const float *)mask->pixels)[at] == 0.0f;
    }
}

double window_mask_fraction(const clx_image *mask, const clx_region *window)
{
    size_t excluded = 0;
    for (int y = window->y; y < window->y + window->h; y++)
        for (int x = window->x; x < window->x + window->w; x++)
            excluded += (size_t)pixel_excluded(mask, (size_t)y * (size_t)mask->width + (size_t)x);
    return (double)excluded / ((double)window->w * window->h);
}

/* The windows kept at max_fraction: measured, measured_at and masked. */
static int windows_keep(struct window_mask *m, const clx_image *image, double max_fraction,
                        const clx_region *regions, size_t nregions, clx_message *msg)
{
    m->nregions = nregions;
    m->masked = calloc(nregions ? nregions : 1, 1);
    m->measured = malloc((nregions ? nregions : 1) * sizeof *m->measured);
    m->measured_at = malloc((nregions ? nregions : 1) * sizeof *m->measured_at);
    if (!m->masked || !m->measured || !m->measured_at) {
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    for (size_t w = 0; w < nregions; w++) {
        if (window_mask_fraction(image, &regions[w]) > max_fraction) {
            m->masked[w] = 1;
            continue;
        }
        m->measured_at[m->nmeasured] = w;
        m->measured[m->nmeasured++] = regions[w];
    }
    return CLX_OK;
}

int window_mask_apply(struct window_mask *m, const char *path, double max_fraction, int width, int height,
                      const clx_region *regions, size_t nregions, clx_message *msg)
{
    clx_image image = { 0 };
    memset(m, 0, sizeof *m);
    int status = image_entry_load_single(path, NULL, &image, msg);
    if (status != CLX_OK) {
        char why[sizeof msg->text];
        memcpy(why, msg->text, sizeof why);
        snprintf(msg->text, sizeof msg->text, "--mask: %.*s", (int)sizeof why - 16, why);
        return status;
    }
    if (image.width != width || image.height != height) {
        snprintf(msg->text, sizeof msg->text, "--mask: %s is %dx%d, the reference %dx%d: a mask is the reference's",
                 path, image.width, image.height, width, height);
        status = CLX_ERR_ARGUMENT;
    } else
        status = windows_keep(m, &image, max_fraction, regions, nregions, msg);
    if (status == CLX_OK && m->nmeasured == 0) {
        snprintf(msg->text, sizeof msg->text,
                 "--mask: %s leaves no window to measure (each has more than %g of its pixels masked)", path,
                 max_fraction);
        status = CLX_ERR_ARGUMENT;
    }
    clx_image_free(&image);
    if (status != CLX_OK)
        window_mask_free(m);
    return status;
}

void window_mask_expand(const struct window_mask *m, const clx_result *measured, const clx_result *left_out,
                        clx_result *all)
{
    for (size_t w = 0; w < m->nregions; w++)
        if (m->masked[w])
            all[w] = *left_out;
    for (size_t k = 0; k < m->nmeasured; k++)
        all[m->measured_at[k]] = measured[k];
}

void window_mask_free(struct window_mask *m)
{
    free(m->measured);
    free(m->measured_at);
    free(m->masked);
    memset(m, 0, sizeof *m);
}
