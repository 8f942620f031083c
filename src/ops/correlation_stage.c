/* correlation_stage.c - one correlation stage: correlator, peak search, downloads, estimator. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/correlation_stage.h"
#include "ops/method_choice.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"

/* Largest F of the F x F neighbourhood: far beyond any useful one, and it
 * keeps the host's scratch space small. */
#define MAX_FIT_SIZE 31

static size_t real_size(const struct kernel_params *p)
{
    return p->use_double ? sizeof(double) : sizeof(float);
}

/* Bytes per image of one configured correlator. */
static void one_path_bytes(const struct correlator_ops *ops, const struct kernel_params *p, int nwin,
                           size_t *per_image, size_t *largest)
{
    size_t rs = real_size(p);
    size_t prepared = (size_t)p->pad_w * p->pad_h * rs, corr = (size_t)p->corr_w * p->corr_h * rs;
    /* The peak search's partial pairs: at most one per two columns (the
     * local FFT's column groups) or argmax_parts (form 1). */
    size_t pairs = (size_t)(p->corr_w / 2 + 1 > p->argmax_parts ? p->corr_w / 2 + 1 : p->argmax_parts);
    size_t per_tile = prepared + corr + (size_t)p->fit_size * p->fit_size * rs + 2 * rs + sizeof(int) +
                      pairs * (rs + sizeof(int));
    *per_image = (size_t)nwin * per_tile + ops->bytes(p, nwin, nwin) - ops->bytes(p, nwin, 0);
    *largest = (size_t)nwin * (prepared > corr ? prepared : corr);
}

void stage_image_bytes(const struct device_entry *dev, const struct kernel_params *base, clx_method method,
                       int nwin, size_t *per_image, size_t *largest)
{
    const struct correlator_ops *candidates[2] = { &correlator_fft, &correlator_direct };
    *per_image = *largest = 0;
    for (int i = 0; i < 2; i++) {
        if (method != CLX_METHOD_AUTO && candidates[i]->method != method)
            continue;
        struct kernel_params p = *base;
        size_t each, big;
        candidates[i]->configure(dev, &p, nwin);
        one_path_bytes(candidates[i], &p, nwin, &each, &big);
        if (each > *per_image)
            *per_image = each;
        if (big > *largest)
            *largest = big;
    }
}

size_t stage_reference_bytes(const struct device_entry *dev, const struct kernel_params *base, clx_method method)
{
    const struct correlator_ops *candidates[2] = { &correlator_fft, &correlator_direct };
    size_t most = 0;
    for (int i = 0; i < 2; i++) {
        if (method != CLX_METHOD_AUTO && candidates[i]->method != method)
            continue;
        struct kernel_params p = *base;
        candidates[i]->configure(dev, &p, 1);
        size_t one = candidates[i]->bytes(&p, 1, 0);
        if (one > most)
            most = one;
    }
    return most;
}

static int create_buffers(struct clx_context *ctx, struct stage *s)
{
    const struct kernel_params *p = &s->params;
    size_t tiles = (size_t)s->ntiles, rs = real_size(p);
    size_t tile_prepared = (size_t)p->pad_w * p->pad_h * rs;
    size_t nb = rs * p->fit_size * p->fit_size * tiles;
    int status;

    if ((status = ctx_create_buffer(ctx, tile_prepared * tiles, &s->prepared, "prepared windows")) ||
        (status = ctx_create_buffer(ctx, (size_t)p->corr_w * p->corr_h * rs * tiles, &s->corr,
                                    "correlations")) ||
        (status = ctx_create_buffer(ctx, sizeof(cl_int) * tiles, &s->peak_index, "peaks")) ||
        (status = ctx_create_buffer(ctx, nb, &s->neighbourhoods, "neighbourhoods")) ||
        (s->second_peak && (status = ctx_create_buffer(ctx, rs * tiles, &s->second, "second peaks"))))
        return status;
    s->peak_index_host = malloc(sizeof(int) * tiles);
    s->neighbourhoods_host = malloc(nb);
    s->second_host = malloc(rs * tiles);
    if (!s->peak_index_host || !s->neighbourhoods_host || !s->second_host)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    /* Tiles that no push fills (the reference's batch, a short last batch)
     * are still transformed by the FFT path: keep them zero rather than
     * uninitialised. The seed mode's prep_pad=2 relies on this fill for the
     * padding of every tile (src/ops/prepare_windows.h). */
    const cl_float zero = 0;
    CL_CALL(ctx, clEnqueueFillBuffer(ctx->queue, s->prepared, &zero, sizeof zero, 0, tile_prepared * tiles, 0, NULL,
                                     NULL));
error:
    return status;
}

int stage_create(struct clx_context *ctx, struct stage *s, const struct kernel_params *base,
                 const struct stage_config *config, int nwin, int ntiles)
{
    struct method_choice choice;
    char why[1024];
    int status;

    memset(s, 0, sizeof *s);
    s->params = *base;
    s->nwin = nwin;
    s->ntiles = ntiles;
    s->second_peak = config->second_peak;
    if (base->fit_size > MAX_FIT_SIZE)
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "fit size %d: at most %d", base->fit_size, MAX_FIT_SIZE);
    /* fft=auto is settled first, so that FFT and direct are compared with
     * the library the FFT path will use. */
    char fft_why[256] = "";
    if ((config->method != CLX_METHOD_DIRECT &&
         (status = fft_choose(ctx, &s->params, nwin, ntiles, fft_why, sizeof fft_why)) != CLX_OK) ||
        (status = method_choose(ctx, config->method, &s->params, nwin, ntiles, &choice)) != CLX_OK)
        return status;
    s->correlator = choice.correlator;
    snprintf(s->explanation, sizeof s->explanation, "%s%s%s", choice.explanation, fft_why[0] ? "; " : "", fft_why);
    s->correlator->configure(&ctx->dev, &s->params, ntiles);
    /* The caller's shapes win over those the correlator chose for the job.
     * The FFT library was settled from them already (fft_choose measured
     * fft=auto), so that one is left as it is. */
    kernel_overrides_apply(config->overrides, ~KP_BIT(fft), &s->params);
    if (kernel_params_check(&s->params, &ctx->dev, why, sizeof why))
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "%s", why);
    if ((status = subpixel_init(&s->estimator, config->estimator, base->fit_size)) != CLX_OK ||
        (config->fallback != CLX_ESTIMATOR_DEFAULT &&
         (status = subpixel_init(&s->fallback, config->fallback, base->fit_size)) != CLX_OK))
        return ctx_fail(ctx, status, "cannot set up the %s estimator over %dx%d values",
                        clx_estimator_name(config->estimator), base->fit_size, base->fit_size);
    if (config->device_offsets &&
        (status = peak_offsets_create(ctx, &s->params, &s->estimator, &s->fallback, &s->on_device)) != CLX_OK)
        return status;
    if ((status = create_buffers(ctx, s)) != CLX_OK ||
        (status = s->correlator->create(ctx, &s->params, nwin, ntiles, &s->correlator_state)) != CLX_OK)
        return status;
    /* Where the correlator can search its correlations as it writes them,
     * the peak finder only combines what it found. */
    int parts = s->correlator->peak_parts ? s->correlator->peak_parts(s->correlator_state) : 0;
    if ((status = peak_finder_build(ctx, &s->params, ntiles, parts, &s->peaks)) != CLX_OK)
        return status;
    if (s->peaks.parts_per_tile > 0)
        ctx_log(ctx, CLX_LOG_DEBUG, "peak search: %d pairs per tile from the %s path's inverse transform, combined",
                s->peaks.parts_per_tile, s->correlator->name);
    return CLX_OK;
}

int stage_set_reference(struct clx_context *ctx, struct stage *s)
{
    return s->correlator->set_reference(ctx, s->correlator_state, s->prepared);
}

int stage_takes_subsets(const struct stage *s)
{
    return s->correlator->takes_subsets && s->correlator->takes_subsets(&s->params);
}

int stage_enqueue(struct clx_context *ctx, struct stage *s, int ntiles, cl_mem tile_ids, cl_event *done)
{
    const struct kernel_params *p = &s->params;
    size_t rs = real_size(p), tiles = (size_t)ntiles;
    const int searched = s->peaks.parts_per_tile > 0;
    struct peak_parts parts;
    int status;

    peak_finder_parts(&s->peaks, &parts);
    if ((status = s->correlator->enqueue(ctx, s->correlator_state, s->prepared, ntiles, tile_ids, s->corr,
                                         searched ? &parts : NULL)) != CLX_OK ||
        (status = peak_finder_enqueue(ctx, &s->peaks, s->corr, ntiles, searched, s->peak_index, s->neighbourhoods,
                                      s->second_peak ? s->second : NULL)) != CLX_OK)
        return status;
    /* Profiled bytes: every correlation read by the argmax (unless the
     * correlator searched it) and again for the second peak. */
    double corr_bytes = (double)tiles * p->corr_w * p->corr_h * rs;
    ctx_profile_mark(ctx, "peaks", corr_bytes * (!searched + (s->second_peak ? 1 : 0)));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, s->peak_index, CL_FALSE, 0, sizeof(cl_int) * tiles,
                                     s->peak_index_host, 0, NULL, NULL));
    if (s->second_peak)
        CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, s->second, CL_FALSE, 0, rs * tiles, s->second_host, 0, NULL,
                                         NULL));
    CL_CALL(ctx, clEnqueueReadBuffer(ctx->queue, s->neighbourhoods, CL_FALSE, 0,
                                     rs * p->fit_size * p->fit_size * tiles, s->neighbourhoods_host, 0, NULL, done));
    ctx_profile_mark(ctx, "download", (double)tiles * (sizeof(cl_int) + rs * (p->fit_size * p->fit_size + s->second_peak)));
error:
    return status;
}

int stage_enqueue_offsets(struct clx_context *ctx, struct stage *s, int ntiles, cl_mem offsets)
{
    if (!s->on_device.kernel)
        return ctx_fail(ctx, CLX_ERR_STATE, "internal: the stage was made without device offsets");
    return peak_offsets_enqueue(ctx, &s->on_device, s->peak_index, s->neighbourhoods, ntiles, offsets);
}

static double host_real(const struct stage *s, const void *buf, size_t i)
{
    return s->params.use_double ? ((const double *)buf)[i] : ((const float *)buf)[i];
}

void stage_peak_of(const struct stage *s, size_t tile, struct stage_peak *out)
{
    const struct kernel_params *p = &s->params;
    int F = p->fit_size, index = s->peak_index_host[tile];
    double nb[MAX_FIT_SIZE * MAX_FIT_SIZE];

    memset(out, 0, sizeof *out);
    out->second = s->second_peak ? host_real(s, s->second_host, tile) : NAN;
    if (index < 0) {
        out->peak = NAN;
        out->flags = CLX_FLAG_NO_PEAK | CLX_FLAG_FIT_FAILED;
        return;
    }
    for (int j = 0; j < F * F; j++)
        nb[j] = host_real(s, s->neighbourhoods_host, tile * F * F + j);
    peak_index_to_shift(index, p->win_w, p->win_h, &out->ix, &out->iy);
    out->peak = nb[(F * F) / 2];
    if (subpixel_estimate(&s->estimator, nb, &out->sx, &out->sy) &&
        (s->fallback.kind == CLX_ESTIMATOR_DEFAULT || subpixel_estimate(&s->fallback, nb, &out->sx, &out->sy)))
        out->flags |= CLX_FLAG_FIT_FAILED;
    if (abs(out->ix) == p->search_rx || abs(out->iy) == p->search_ry)
        out->flags |= CLX_FLAG_EDGE;
    if (!(out->peak > 0))
        out->flags |= CLX_FLAG_NO_PEAK;
}

void stage_release(struct stage *s)
{
    if (s->correlator)
        s->correlator->release(s->correlator_state);
    peak_finder_release(&s->peaks);
    peak_offsets_release(&s->on_device);
    subpixel_release(&s->estimator);
    subpixel_release(&s->fallback);
    cl_mem bufs[] = { s->prepared, s->corr, s->peak_index, s->neighbourhoods, s->second };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(s->peak_index_host);
    free(s->neighbourhoods_host);
    free(s->second_host);
    memset(s, 0, sizeof *s);
}
