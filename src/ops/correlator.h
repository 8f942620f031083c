/*
 * correlator.h - the two ways to correlate prepared windows with the
 * reference's (internal): the FFT path (correlate_fft.c) and the direct path
 * (correlate_direct.c). The plan (plan.c) and the automatic choice between
 * them (method_choice.c) see only this interface.
 *
 * Tile t is correlated with reference window t % nwin; its correlation goes
 * to tile t of the output in the layout cl/common.h describes (CORR_W x
 * CORR_H, shifts up to STORE_RX, STORE_RY).
 */
#ifndef CLX_CORRELATOR_H
#define CLX_CORRELATOR_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"
#include "runtime/device.h"
#include "ops/peak_parts.h"
#include "params/kernel_params.h"

struct clx_context;

struct correlator_ops {
    const char *name;           /* "fft", "direct" */
    clx_method method;
    /*
     * Fills p's layouts for its window, search radius (search_rx, search_ry)
     * and fit size: pad_w/pad_h (prepared windows), corr_w/corr_h and
     * store_rx/store_ry (correlations), and the path's own kernel shape.
     */
    void (*configure)(const struct device_entry *dev, struct kernel_params *p, int ntiles);
    /* Device bytes of the path's own buffers for ntiles tiles. */
    size_t (*bytes)(const struct kernel_params *p, int nwin, int ntiles);
    int (*create)(struct clx_context *ctx, const struct kernel_params *p, int nwin, int ntiles,
                  void **state);
    /* The reference's prepared windows are the first nwin tiles of `prepared`. */
    int (*set_reference)(struct clx_context *ctx, void *state, cl_mem prepared);
    /*
     * Correlates the first ntiles tiles of `prepared` into `corr`. With
     * `tile_ids` (ints) not NULL, they are a subset: slot i holds tile
     * tile_ids[i], correlated with reference window tile_ids[i] % nwin;
     * only a path whose takes_subsets says so accepts that. With `parts`
     * (NULL: none), also the first half of each tile's peak search,
     * peak_parts(state) pairs per tile (peak_parts.h).
     */
    int (*enqueue)(struct clx_context *ctx, void *state, cl_mem prepared, int ntiles, cl_mem tile_ids,
                   cl_mem corr, const struct peak_parts *parts);
    /* The (value, index) pairs per tile enqueue leaves in `parts` (NULL or
     * 0: it cannot search, and must be given NULL). */
    int (*peak_parts)(void *state);
    /* Whether enqueue accepts tile_ids with this configuration (NULL: never). */
    int (*takes_subsets)(const struct kernel_params *p);
    void (*release)(void *state);
};

extern const struct correlator_ops correlator_fft;
extern const struct correlator_ops correlator_direct;

#endif
