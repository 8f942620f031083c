/*
 * filter_apply.c - clx_filter_apply: one host image through the chain. The
 * ROIs are checked against the image; the output's target ROI receives the
 * filtered source ROI and its other pixels are the input's, as floats.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/filter_chain.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"
#include "runtime/handle.h"

static int roi_inside(const clx_region *r, const clx_image *img)
{
    return r->x >= 0 && r->y >= 0 && r->w >= 1 && r->h >= 1 && r->x <= img->width - r->w &&
           r->y <= img->height - r->h;
}

/*
 * The regions this image is filtered with: a source ROI with w or h 0 is the
 * whole image; a target ROI with w or h 0 has the source ROI's size at its
 * (x, y). Both must lie inside the image and have one size.
 */
static int resolve_rois(struct clx_filter *f, const clx_image *img, clx_region *src, clx_region *dst)
{
    const clx_filter_options *o = &f->opt;
    *src = o->source_roi;
    if (src->w == 0 || src->h == 0)
        *src = (clx_region){ 0, 0, img->width, img->height };
    *dst = o->target_roi;
    if (dst->w == 0 || dst->h == 0) {
        dst->w = src->w;
        dst->h = src->h;
    }
    if (!roi_inside(src, img))
        return ctx_fail(f->ctx, CLX_ERR_REGION, "the source ROI %d,%d,%d,%d (x,y,w,h) is not inside the %dx%d image",
                        src->x, src->y, src->w, src->h, img->width, img->height);
    if (dst->w != src->w || dst->h != src->h)
        return ctx_fail(f->ctx, CLX_ERR_REGION, "the target ROI is %dx%d but the source ROI is %dx%d; they must "
                        "have one size", dst->w, dst->h, src->w, src->h);
    if (!roi_inside(dst, img))
        return ctx_fail(f->ctx, CLX_ERR_REGION, "the target ROI %d,%d,%d,%d (x,y,w,h) is not inside the %dx%d image",
                        dst->x, dst->y, dst->w, dst->h, img->width, img->height);
    return CLX_OK;
}

static double pixel_at(const clx_image *img, size_t i)
{
    switch (img->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)img->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)img->pixels)[i];
    case CLX_PIXEL_F32: return ((const float *)img->pixels)[i];
    }
    return 0;
}

/* The output outside the target ROI is the input: upload it as reals, and
 * the last stage writes the target ROI over it. */
static int upload_untouched(struct clx_filter *f, const clx_image *img, int use_double)
{
    struct clx_context *ctx = f->ctx;
    size_t n = (size_t)img->width * img->height, bytes = n * (use_double ? sizeof(double) : sizeof(float));
    void *host = malloc(bytes);
    int status = CLX_OK;
    if (!host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory for a %dx%d image", img->width, img->height);
    for (size_t i = 0; i < n; i++) {
        if (use_double)
            ((double *)host)[i] = pixel_at(img, i);
        else
            ((float *)host)[i] = (float)pixel_at(img, i);
    }
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, f->output, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
error:
    free(host);
    return status;
}

/* Reads the device output into the new F32 image. */
static int download(struct clx_filter *f, clx_image *out, int use_double)
{
    struct clx_context *ctx = f->ctx;
    size_t n = (size_t)out->width * out->height;
    double *host = NULL;
    int status = CLX_OK;
    if (!use_double) {
        CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, f->output, CL_TRUE, 0, n * sizeof(float), out->pixels, 0, NULL,
                                         NULL));
        return CLX_OK;
    }
    if (!(host = malloc(n * sizeof *host)))
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory for a %dx%d image", out->width, out->height);
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, f->output, CL_TRUE, 0, n * sizeof *host, host, 0, NULL, NULL));
    for (size_t i = 0; i < n; i++)
        ((float *)out->pixels)[i] = (float)host[i];
error:
    free(host);
    return status;
}

static int check_input(struct clx_filter *f, const clx_image *img)
{
    if (!img->pixels || img->width < 1 || img->height < 1)
        return ctx_fail(f->ctx, CLX_ERR_ARGUMENT, "clx_filter_apply: an empty input image");
    if (img->type < CLX_PIXEL_U8 || img->type > CLX_PIXEL_F32)
        return ctx_fail(f->ctx, CLX_ERR_ARGUMENT, "clx_filter_apply: unknown pixel type %d", (int)img->type);
    return CLX_OK;
}

int clx_filter_apply(clx_filter *f, const clx_image *input, clx_image *output)
{
    clx_region src, dst;
    int status = handle_check(f, HANDLE_FILTER);
    if (status != CLX_OK)
        return status;
    if (!input || !output)
        return ctx_fail(f->ctx, CLX_ERR_ARGUMENT, "clx_filter_apply: NULL image");
    memset(output, 0, sizeof *output);
    if ((status = check_input(f, input)) != CLX_OK || (status = resolve_rois(f, input, &src, &dst)) != CLX_OK)
        return status;

    struct clx_context *ctx = f->ctx;
    int W = input->width, H = input->height, use_double = f->opt.use_double;
    size_t n = (size_t)W * H;
    size_t in_bytes = n * clx_pixel_size(input->type);
    if ((status = filter_reserve_images(f, in_bytes, n * (use_double ? sizeof(double) : sizeof(float)))) != CLX_OK)
        return status;
    CL_CALL(ctx, clEnqueueWriteBuffer(ctx->queue, f->input, CL_TRUE, 0, in_bytes, input->pixels, 0, NULL, NULL));
    if ((dst.w != W || dst.h != H) && (status = upload_untouched(f, input, use_double)) != CLX_OK)
        return status;
    const struct filter_layout in = { src.y * W + src.x, W, W * H }, out = { dst.y * W + dst.x, W, W * H };
    if ((status = filter_run(f, f->input, input->type, in, f->output, out, src.w, src.h, 1)) != CLX_OK)
        return status;
    clx_message msg;
    if ((status = clx_image_alloc(output, W, H, CLX_PIXEL_F32, &msg)) != CLX_OK)
        return ctx_fail(ctx, status, "%s", msg.text);
    if ((status = download(f, output, use_double)) != CLX_OK)
        clx_image_free(output);
error:
    return status;
}
