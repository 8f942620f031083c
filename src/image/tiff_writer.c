/*
 * tiff_writer.c - TIFF files written page by page through libtiff, as
 * PATH.part until complete (the clx_tiff_writer of clxcorr.h). The file is
 * a clx_output: created and locked there, a seekable file (libtiff seeks
 * back to link the pages), so a FIFO or device as PATH is refused rather
 * than replaced.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/tiff_io.h"
#include "runtime/message.h"

struct clx_tiff_writer {
    struct tiff_handle h;
    clx_output *out;
    char *part_path;
    unsigned pages;
};

static int writer_fail(struct clx_tiff_writer *w, clx_message *msg, const char *what)
{
    if (w->h.error[0])
        return msg_fail(msg, CLX_ERR_IO, "%s: %s (libtiff: %s)", w->part_path, what, w->h.error);
    return msg_fail(msg, CLX_ERR_IO, "%s: %s%s%s", w->part_path, what, errno ? ": " : "",
                    errno ? strerror(errno) : "");
}

int clx_tiff_writer_open(const char *path, int bigtiff, clx_tiff_writer **out, clx_message *msg)
{
    msg_clear(msg);
    if (!path || !out)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_tiff_writer_open: NULL argument");
    *out = NULL;
    struct clx_tiff_writer *w = calloc(1, sizeof *w);
    if (!w)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    int status = clx_output_open(path, CLX_OUTPUT_PART | CLX_OUTPUT_SEEKABLE, &w->out, msg);
    if (status != CLX_OK) {
        free(w);
        return status;
    }
    if (!(w->part_path = strdup(clx_output_name(w->out)))) {
        clx_output_close(w->out, 0, NULL);
        free(w);
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    w->h.path = w->part_path;
    errno = 0;
    /* libtiff opens PATH.part by its name, the same file clx_output holds
     * (and locks) through its own descriptor. */
    w->h.tif = tiff_io_open(&w->h, bigtiff ? "w8" : "w");
    if (!w->h.tif) {
        status = writer_fail(w, msg, "cannot create");
        clx_output_close(w->out, 0, NULL);
        free(w->part_path);
        free(w);
        return status;
    }
    *out = w;
    return CLX_OK;
}

int clx_tiff_writer_page(clx_tiff_writer *w, const clx_image *page, const char *description, clx_message *msg)
{
    msg_clear(msg);
    if (!w || !page || !page->pixels || page->width < 1 || page->height < 1 || clx_pixel_size(page->type) == 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_tiff_writer_page: no writer or an empty page");
    TIFF *tif = w->h.tif;
    size_t psize = clx_pixel_size(page->type);
    size_t row_bytes = (size_t)page->width * psize;
    uint32_t rows_per_strip = row_bytes >= 65536 ? 1 : (uint32_t)(65536 / row_bytes);

    tiff_io_reset(&w->h);
    errno = 0;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)page->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)page->height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * psize));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, page->type == CLX_PIXEL_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)1);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
    TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
    TIFFSetField(tif, TIFFTAG_SOFTWARE, "clxcorr " PACKAGE_VERSION);
    if (description)
        TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, description);
    for (int y = 0; y < page->height; y++) {
        /* TIFFWriteScanline takes a non-const buffer but does not modify it
         * when no compression is set. */
        void *row = (char *)page->pixels + (size_t)y * row_bytes;
        if (TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0 || w->h.failed)
            return writer_fail(w, msg, "write error");
    }
    if (!TIFFWriteDirectory(tif) || w->h.failed)
        return writer_fail(w, msg, "write error");
    w->pages++;
    return CLX_OK;
}

int clx_tiff_writer_close(clx_tiff_writer *w, int complete, clx_message *msg)
{
    int status = CLX_OK;
    msg_clear(msg);
    if (!w)
        return CLX_OK;
    errno = 0;
    tiff_io_reset(&w->h);
    TIFFClose(w->h.tif);
    if (w->h.failed)
        status = writer_fail(w, msg, "write error");
    else if (complete && w->pages == 0)
        status = msg_fail(msg, CLX_ERR_ARGUMENT, "%s: no pages were written", w->part_path);
    int closed = clx_output_close(w->out, complete && status == CLX_OK, status == CLX_OK ? msg : NULL);
    if (status == CLX_OK)
        status = closed;
    free(w->part_path);
    free(w);
    return status;
}
