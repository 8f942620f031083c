/*
 * filter_ref.h - the pre-filters on the host in double precision, the
 * ground truth of test_filter.
 *
 * Written from the definitions in clxcorr.h and src/ops/filter_chain.h and sharing no
 * code with src/ or cl/: every stage is the direct 2-D sum over its
 * (2r + 1)^2 neighbourhood, sum_ij taps[i] taps[j] in(x - r + j, y - r + i),
 * with the border rule applied to both coordinates, then the epilogue. The
 * source ROI is the first stage's whole image, each stage's output the next
 * one's, the last one is written at the target ROI, and every other output
 * pixel is the input's. Clarity over speed.
 */
#ifndef CLX_FILTER_REF_H
#define CLX_FILTER_REF_H

#include "clxcorr.h"

#define FREF_MAX_TAPS 129

struct fref_stage {
    int epilogue;                 /* 0 filtered, 1 input - filtered, 2 input / filtered (0 where filtered <= 1e-6) */
    int radius;
    double taps[FREF_MAX_TAPS];
};

struct fref_chain {
    int nstages;
    struct fref_stage stages[8];
};

/* Reads a valid spec ("background:20+gaussian:1", "taps:1,2,1"); -1 if it
 * cannot. Gaussians: radius ceil(3 sigma), taps exp(-k^2 / 2 sigma^2) / sum. */
int fref_parse(const char *spec, struct fref_chain *chain);

/* Filters img with the chain: src and dst are resolved ROIs (w, h >= 1);
 * out receives img->width * img->height values. */
void fref_apply(const struct fref_chain *chain, clx_border border, const clx_image *img, clx_region src,
                clx_region dst, double *out);

#endif
