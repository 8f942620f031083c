/*
 * icgn.h - sub-pixel refinement by inverse-compositional Gauss-Newton with
 * the ZNSSD criterion and a shape function (cl/icgn.cl says how), for
 * windows of images already on the device (internal).
 *
 * The reference side (each window's zero-mean values, gradients, Hessian
 * and its inverse) is computed once per reference on the device; a batch's
 * tiles are then refined from their start offsets in one kernel that
 * iterates on the device, and the host waits once, for the results.
 */
#ifndef CLX_ICGN_H
#define CLX_ICGN_H

#include <CL/cl.h>
#include "cl/icgn_layout.h"   /* the records the kernels write */
#include "params/kernel_params.h"

struct clx_context;

/* One tile's result. */
struct icgn_result {
    double u, v;                /* displacement at the window centre, px (image minus reference) */
    double ux, uy, vx, vy;      /* its gradient du/dx, du/dy, dv/dx, dv/dy (0 with shape 0) */
    double zncc;                /* at the last evaluated warp */
    double sigma_u, sigma_v;    /* standard deviations of u and v, px, from the residual and H^-1 */
    int iterations;
    int status;                 /* ICGN_CONVERGED, ICGN_UNCONVERGED or ICGN_FAILED */
};

struct icgn {
    struct clx_context *ctx;
    struct kernel_params params;    /* interp, shape, icgn_wg, icgn_form, precision, window size */
    int nwin, nref, ntiles;         /* windows; reference windows (nwin, or ntiles with pairs); tiles */
    cl_program program;             /* cl/icgn.cl, with icgn_form 0 */
    cl_program vector_program;      /* cl/icgn_vector.cl, with icgn_form 1 */
    cl_program noise_program;       /* cl/icgn_noise.cl */
    cl_kernel reference, iterate;
    cl_mem fref, grad, consts;      /* the reference's, per window */
    cl_mem noise_model;             /* icgn_layout.h: what the filters and the interpolation make of noise */
    int rho_radius;                 /* the noise's correlation's last lag that counts (0: white) */
    cl_mem starts, results;         /* per tile */
    cl_mem texture, texture_of;     /* icgn_source 1 and 3: an image over the images' buffer, and that buffer */
    void *starts_host, *results_host;
};

/* The device bytes icgn_create allocates per tile and per window. */
size_t icgn_tile_bytes(const struct kernel_params *p);
size_t icgn_window_bytes(const struct kernel_params *p);

/* What stands between white noise in the images and IC-GN's samples, for
 * the offsets' standard deviations: each a symmetric kernel taps[0 ..
 * radius] (taps[k] weights the samples k either side), NULL for none. */
struct icgn_noise_filters {
    const double *smoothing;        /* the pre-filter's smoothing (filter_smoothing) */
    int smoothing_radius;
    const double *spline;           /* the B-splines' coefficient prefilter (bspline_prefilter.h) */
    int spline_radius;
};

/*
 * Builds the kernels for p's window size, precision, interpolation (the
 * B-splines then read coefficients) and shape (p->shape), and the buffers
 * for nwin windows, nref reference windows (nwin for one reference; with
 * pairs a multiple of nwin, one per tile) and up to ntiles tiles. Tile t
 * is refined against reference window t % nref. Returns CLX_OK with *out
 * set.
 */
int icgn_create(struct clx_context *ctx, const struct kernel_params *p, int nwin, int nref, int ntiles,
                const struct icgn_noise_filters *noise, struct icgn **out);

/* Enqueues the reference side from `source`: nimages w x h images of reals
 * (values, or coefficients for the B-splines), windows at `corners` (nwin
 * int2 top-left corners), reference window r from window r % nwin of image
 * r / nwin; nimages * nwin <= nref. */
int icgn_set_reference(struct icgn *g, cl_mem source, int w, int h, cl_mem corners, int nimages);

/*
 * Refines ntiles tiles (tile t: image t / nwin of `source`, window t %
 * nwin) from their start offsets (NaN: no start, the tile fails), at most
 * max_iter iterations each, stopping when the update is below tol px;
 * waits and fills out[0 .. ntiles - 1].
 */
int icgn_run(struct icgn *g, cl_mem source, int w, int h, cl_mem corners, int ntiles, const double *start_u,
             const double *start_v, int max_iter, double tol, struct icgn_result *out);

/*
 * The same refinement of ntiles > 0 tiles, enqueued without waiting: from
 * the start offsets already in g->starts (a real2 per tile, written by an earlier command on
 * the queue, e.g. stage_enqueue_offsets), with the results' download;
 * *done completes when they are on the host, and icgn_results then gives
 * them.
 */
int icgn_enqueue(struct icgn *g, cl_mem source, int w, int h, cl_mem corners, int ntiles, int max_iter, double tol,
                 cl_event *done);
void icgn_results(const struct icgn *g, int ntiles, struct icgn_result *out);

void icgn_destroy(struct icgn *g);

#endif
