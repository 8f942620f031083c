/*
 * method_choice.h - choosing between the FFT and the direct path for a job
 * (internal): measured on the device for the job's window size, search
 * radius, fit size, precision and batch, once, then read from a cache file
 * beside the kernel cache ($XDG_CACHE_HOME/clxcorr/methods.tsv).
 */
#ifndef CLX_METHOD_CHOICE_H
#define CLX_METHOD_CHOICE_H

#include <stddef.h>
#include "clxcorr.h"
#include "ops/correlator.h"
#include "params/kernel_params.h"

struct clx_context;

/* What was decided and why. */
struct method_choice {
    const struct correlator_ops *correlator;
    double fft_ms, direct_ms;      /* per window; < 0 when not measured */
    int direct_estimated;          /* direct_ms extrapolated from part of a batch */
    int cached;                    /* read from the cache file */
    char explanation[512];
};

/*
 * Picks the correlator for `requested` (AUTO measures; FFT and DIRECT are
 * taken as asked). `base` holds the window, search radius, fit size,
 * precision and pixel type; nwin windows, ntiles = batch * nwin tiles.
 */
int method_choose(struct clx_context *ctx, clx_method requested, const struct kernel_params *base,
                  int nwin, int ntiles, struct method_choice *choice);

/*
 * Resolves p->fft == FFT_AUTO: both FFT libraries timed on the FFT
 * path for this job's shape (once; cached beside the methods), the faster
 * kept in p. `why` says what was measured. Other values are left as they are.
 */
int fft_choose(struct clx_context *ctx, struct kernel_params *p, int nwin, int ntiles, char *why, size_t why_len);

/*
 * The measurement itself: the best time in ms of correlating `run_tiles` of
 * `ntiles` random tiles with one correlator, configured as a plan would
 * configure it and then with `overrides` (may be NULL) applied. Also used
 * by bench/crossover.c.
 */
int method_time(struct clx_context *ctx, const struct correlator_ops *ops, const struct kernel_params *base,
                const struct kernel_overrides *overrides, int nwin, int ntiles, int run_tiles, double *ms);

#endif
