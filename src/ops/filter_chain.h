/*
 * filter_chain.h - the pre-filters behind clx_filter_* (internal): the parsed
 * spec, the clx_filter object, and filtering images that are already on the
 * device (the accurate mode's entry point, filter_enqueue).
 *
 * A filter is a chain of separable stages. Each stage filters along x, then
 * along y, with 2 r + 1 taps (taps[0] weights the pixel r left of / above
 * the output) and writes through an epilogue: the filtered value, the stage's
 * input minus it (highpass, background) or the input divided by it
 * (background-divide; 0 where the filtered value is <= 1e-6). Radii 1 and 2
 * run on the tiled path (cl/filter_tiled.cl), others on the separable path
 * (cl/filter_separable.cl). Kernels are built on first use, per stage and,
 * for the first stage, per input pixel type.
 */
#ifndef CLX_FILTER_CHAIN_H
#define CLX_FILTER_CHAIN_H

#include <CL/cl.h>
#include "clxcorr.h"
#include "params/kernel_params.h"

struct clx_context;

#define FILTER_MAX_TAPS (2 * CLX_FILTER_MAX_RADIUS + 1)

enum filter_kind {
    FILTER_GAUSSIAN,
    FILTER_HIGHPASS,
    FILTER_BACKGROUND,
    FILTER_BACKGROUND_DIVIDE,
    FILTER_TAPS
};

/* What a stage writes (the kernels' FILTER_EPILOGUE). */
enum filter_epilogue {
    EPILOGUE_FILTERED = 0,
    EPILOGUE_SUBTRACT = 1,     /* input - filtered */
    EPILOGUE_DIVIDE = 2        /* input / filtered; 0 where filtered <= 1e-6 */
};

struct filter_stage {
    enum filter_kind kind;
    double sigma;                      /* the Gaussian kinds' sigma; 0 for taps */
    int radius;                        /* 1 .. CLX_FILTER_MAX_RADIUS */
    enum filter_epilogue epilogue;
    double taps[FILTER_MAX_TAPS];      /* 2 radius + 1; Gaussians sum to 1 */
};

struct filter_chain {
    int nstages;
    struct filter_stage stages[CLX_FILTER_MAX_STAGES];
};

/*
 * Parses a spec (clxcorr.h's syntax: stages joined by '+', a '+' before a
 * digit or '.' being a sign or exponent) and builds each stage's taps.
 * Returns CLX_OK, or CLX_ERR_ARGUMENT with one line in msg that quotes the
 * offending stage ("filter spec 'gaussian:-1': sigma must be positive").
 */
int filter_spec_parse(const char *spec, struct filter_chain *chain, clx_message *msg);

/* Which kernels a stage runs on. */
enum filter_path {
    FILTER_PATH_AUTO = 0,        /* vector on CPU devices, else local memory */
    FILTER_PATH_SEPARABLE = 1,   /* separable for every radius (tests and benchmarks) */
    FILTER_PATH_LOCAL_MEMORY = 2,/* tiled for radius 1 and 2, separable otherwise (GPUs) */
    FILTER_PATH_VECTOR = 3       /* cl/filter_vector.cl for every radius (CPUs) */
};

/* One stage's program for one input type, built on first use. */
struct filter_kernels {
    cl_program program;
    cl_kernel tiled;             /* tiled path */
    cl_kernel rows, columns;     /* separable and vector paths */
};

struct clx_filter {
    struct clx_context *ctx;
    clx_filter_options opt;      /* spec points to `spec` */
    char *spec;
    struct filter_chain chain;
    int input_real;              /* the first stage reads reals of the working precision, not pixels */
    enum filter_path path;
    cl_mem taps[CLX_FILTER_MAX_STAGES];                /* each stage's taps, as reals */
    /* [stage][input pixel type - 1]; stages after the first read reals and use [s][0]. */
    struct filter_kernels kernels[CLX_FILTER_MAX_STAGES][3];

    /* Temporaries, grown on demand and kept. */
    cl_mem rows;                 /* the separable row pass's output */
    cl_mem between[2];           /* a chain's intermediates, alternately */
    size_t rows_bytes, between_bytes[2];
    cl_mem input, output;        /* clx_filter_apply's images */
    size_t input_bytes, output_bytes;
};

/*
 * A filter for the library's own use (the accurate mode's pre-filter): as
 * clx_filter_create, but not a handle of the public API, so that only its
 * maker releases it (filter_destroy).
 */
int filter_create(struct clx_context *ctx, const clx_filter_options *options, struct clx_filter **out);
/*
 * A one-stage filter of the symmetric taps[0 .. radius] (taps[k] weights
 * the samples k either side; radius up to CLX_FILTER_MAX_RADIUS), read in
 * double and applied in the working precision, whose input is reals of
 * that precision (filter_run's type is then not looked at): the B-spline
 * prefilter's FIR on GPUs (ops/bspline_prefilter.c).
 */
int filter_create_taps(struct clx_context *ctx, const double *taps, int radius, clx_border border, int use_double,
                       struct clx_filter **out);
void filter_destroy(struct clx_filter *f);

/*
 * The chain's smoothing as one symmetric kernel, for what it does to white
 * noise: the convolution of its stages that write the filtered value
 * (gaussian, taps), as taps[0 .. *radius] (taps[k] weights the samples k
 * either side). Stages that subtract or divide by a smooth background are
 * left out: they take only the lowest frequencies out of the noise.
 * taps[0] is 1 and *radius 0 for a chain without such stages. Returns 0,
 * or -1 when the kernel would pass max_radius (or a stage is not symmetric).
 */
int filter_smoothing(const struct clx_filter *f, double *taps, int max_radius, int *radius);

/* Makes every stage run on `path` (FILTER_PATH_SEPARABLE: also radius 1
 * and 2, to compare or time both paths). Call before the first use. */
void filter_force_path(struct clx_filter *f, enum filter_path path);

/* Where a w x h region of each of a batch's images lies in a buffer, in
 * elements: pixel (x, y) of image i is at i * stride + offset + y * pitch + x. */
struct filter_layout {
    int offset, pitch, stride;
};

/*
 * Enqueues the chain on `nimages` w x h regions: the first stage reads
 * `input` (pixels of `type`) through `in`, the last writes `output` (reals:
 * float, or double with use_double) through `out`, and writes nothing
 * outside the regions. Borders apply at the input region's edges.
 * Returns after enqueueing, on the context's in-order queue.
 */
int filter_run(struct clx_filter *f, cl_mem input, clx_pixel_type type, struct filter_layout in, cl_mem output,
               struct filter_layout out, int w, int h, int nimages);

/* Grows clx_filter_apply's device images (input, output) to these sizes. */
int filter_reserve_images(struct clx_filter *f, size_t input_bytes, size_t output_bytes);

/*
 * Filters a batch already on the device, each image as a whole (the source
 * and target ROIs of the filter's options are not used here):
 *   input:  nimages images of width x height pixels of input_type, one after
 *           another, rows tightly packed;
 *   output: nimages images of width x height reals (float, or double when
 *           the filter was made with use_double), same layout; it must not
 *           be `input`.
 * Enqueues on the context's in-order queue and returns without waiting:
 * the caller reads `output` after it (a blocking read or clFinish). The
 * temporaries are the filter's own (grown on demand, kept until release),
 * so calls on one filter must stay on that queue, which orders them.
 * At most 65535 images per call (some drivers cap NDRange dimensions).
 */
int filter_enqueue(struct clx_filter *f, cl_mem input, clx_pixel_type input_type, int width, int height,
                   int nimages, cl_mem output);

#endif
