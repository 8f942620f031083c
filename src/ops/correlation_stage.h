/*
 * correlation_stage.h - one correlation stage (internal): prepared windows in, per tile
 * an integer peak and a sub-pixel estimate out.
 *
 *   prepared windows -> correlate with the reference's (FFT or direct path,
 *   correlator.h) -> argmax -> second peak (optional) -> F x F
 *   neighbourhood -> download -> sub-pixel estimator on the host
 *
 * The seed pipeline (pipeline_seed.c) runs one stage; the accurate pipeline
 * (pipeline_accurate.c) a coarse one and a fine one. Whoever owns the stage
 * fills `prepared` in the layout stage->params describes (pad_w x pad_h per
 * tile) before stage_enqueue.
 */
#ifndef CLX_CORRELATION_STAGE_H
#define CLX_CORRELATION_STAGE_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "ops/correlator.h"
#include "ops/peak_offsets.h"
#include "ops/peak_search.h"
#include "ops/subpixel.h"
#include "params/kernel_params.h"

struct clx_context;

struct stage {
    struct kernel_params params;      /* layouts, search radius, F: for its correlator */
    const struct correlator_ops *correlator;
    void *correlator_state;
    struct peak_finder peaks;
    struct subpixel estimator;
    struct subpixel fallback;         /* tried when the estimator finds no maximum (kind 0: none) */
    struct peak_offsets on_device;    /* the same estimates on the device (config->device_offsets) */
    char explanation[800];            /* how the correlator (and with fft=auto the FFT library) was chosen */
    int nwin, ntiles;                 /* windows; tiles of a full batch */
    int second_peak;                  /* also find each tile's second-highest peak */

    cl_mem prepared;                  /* per tile: zero-mean window in the correlator's layout */
    cl_mem corr;                      /* per tile: correlation (layout: cl/common.h) */
    cl_mem peak_index;                /* per tile: logical index of the maximum */
    cl_mem neighbourhoods;            /* per tile: F x F values around it */
    cl_mem second;                    /* per tile: the highest other local maximum */

    int *peak_index_host;             /* host copies of the last enqueue's results */
    void *neighbourhoods_host;
    void *second_host;
};

/* What a stage asks for. */
struct stage_config {
    clx_method method;                /* the path: auto (measured), FFT or direct */
    clx_estimator estimator;
    clx_estimator fallback;           /* CLX_ESTIMATOR_DEFAULT: none */
    const struct kernel_overrides *overrides; /* the caller's kernel parameters, may be NULL */
    int second_peak;
    int device_offsets;               /* also build stage_enqueue_offsets' kernel */
};

/* Device bytes per image of a stage for `base` and `method` (the dearer path
 * for auto), and the largest single buffer per image. */
void stage_image_bytes(const struct device_entry *dev, const struct kernel_params *base, clx_method method,
                       int nwin, size_t *per_image, size_t *largest);

/* Device bytes a stage keeps per reference window (spectra or windows), the
 * dearer path's for auto: what each image of a batch of pairs adds, per
 * window, its references being its own. */
size_t stage_reference_bytes(const struct device_entry *dev, const struct kernel_params *base, clx_method method);

/* Chooses the correlator, configures base's layouts for it, applies the
 * overrides (base holds them already; the correlator may have sized the
 * same parameters since), allocates the buffers and builds the kernels. */
int stage_create(struct clx_context *ctx, struct stage *s, const struct kernel_params *base,
                 const struct stage_config *config, int nwin, int ntiles);

/* The reference's prepared windows are in the first nwin tiles of `prepared`. */
int stage_set_reference(struct clx_context *ctx, struct stage *s);

/* Correlates the first ntiles tiles (slots, when tile_ids is not NULL: see
 * correlator.h) and enqueues the downloads of their peaks; *done completes
 * when they are on the host. */
int stage_enqueue(struct clx_context *ctx, struct stage *s, int ntiles, cl_mem tile_ids, cl_event *done);

/* After stage_enqueue, enqueues the first ntiles tiles' offsets, as
 * stage_peak_of's ix + sx, iy + sy (NaN, NaN where a tile has no peak),
 * into `offsets` (a real2 per tile) on the device, for a next step that
 * starts there without waiting for the host. Needs config->device_offsets. */
int stage_enqueue_offsets(struct clx_context *ctx, struct stage *s, int ntiles, cl_mem offsets);

/* Whether stage_enqueue takes a subset of tiles (tile_ids). */
int stage_takes_subsets(const struct stage *s);

/*
 * Tile t's peak after the downloads completed: ix, iy, peak and the
 * estimator's sub-pixel part (sx, sy), or the fallback's when the estimator
 * found no maximum; flags CLX_FLAG_FIT_FAILED (neither found one),
 * CLX_FLAG_EDGE (peak on the searched border) and CLX_FLAG_NO_PEAK.
 * Returns the tile's second peak's value when second_peak was asked for.
 */
struct stage_peak {
    int ix, iy;
    double peak, sx, sy, second;
    unsigned flags;
};
void stage_peak_of(const struct stage *s, size_t tile, struct stage_peak *out);

void stage_release(struct stage *s);

#endif
