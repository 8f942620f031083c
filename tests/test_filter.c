/*
 * test_filter.c - the pre-filters against the host reference (filter_ref.c):
 * the tiled 3x3 and 5x5 paths and the separable path (radii 3 to 30, and
 * radius 1 and 2 forced onto it), every border rule and epilogue, chains of
 * up to 4 stages, all three input pixel types, float and double, image
 * sizes from 1x1 to 300x200 (smaller than a tile, smaller than the radius,
 * not multiples of 32), ROIs (whole image, interior, touching each edge, a
 * target away from the source, sizes not multiples of 32), a batch through
 * filter_enqueue, and every error the spec parser and the ROI checks report.
 * Tolerance: 1e-5 (float) or 1e-12 (double) of the largest output value.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ops/filter_chain.h"
#include "runtime/context.h"
#include "filter_ref.h"
#include "test_data.h"

struct fcase {
    const char *spec;
    clx_border border;
    int w, h;
    clx_pixel_type type;
    clx_region src, dst;         /* as given to the options (0 sizes: the defaults) */
    int use_double;
    enum filter_path path;
};

static struct fcase fcase_of(const char *spec, clx_border border, int w, int h, clx_pixel_type type)
{
    return (struct fcase){ .spec = spec, .border = border, .w = w, .h = h, .type = type };
}

static const char *const border_names[] = { "clamp", "mirror", "zero" };
static const char *const type_names[] = { "?", "u8", "u16", "f32" };
static int cases_run;

static void make_image(clx_image *img, int w, int h, clx_pixel_type type, uint64_t seed)
{
    double max = type == CLX_PIXEL_U8 ? 255 : type == CLX_PIXEL_U16 ? 65535 : 1000;
    td_random_image(img, w, h, type, max, seed);
}

/* The ROIs the filter is documented to use for these options. */
static void resolve(const struct fcase *c, clx_region *src, clx_region *dst)
{
    *src = c->src.w && c->src.h ? c->src : (clx_region){ 0, 0, c->w, c->h };
    *dst = c->dst;
    if (!dst->w || !dst->h) {
        dst->w = src->w;
        dst->h = src->h;
    }
}

/* Largest |a[i] - b[i]| relative to the largest |b[i]|; a holds floats or doubles. */
static double relative_error(const void *a, int a_double, const double *b, size_t n)
{
    double scale = 0, err = 0;
    for (size_t i = 0; i < n; i++) {
        double v = a_double ? ((const double *)a)[i] : ((const float *)a)[i];
        scale = fmax(scale, fabs(b[i]));
        err = fmax(err, fabs(v - b[i]));
    }
    return scale > 0 ? err / scale : err;
}

/* With use_double the device's output before clx_filter_apply rounds it to
 * float: the filter's own output buffer, which the call leaves as it was. */
static double device_double_error(clx_context *ctx, clx_filter *f, const double *want, size_t n)
{
    double *got = malloc(n * sizeof *got);
    cl_int err = clEnqueueReadBuffer(ctx->queue, f->output, CL_TRUE, 0, n * sizeof *got, got, 0, NULL, NULL);
    double e = err == CL_SUCCESS ? relative_error(got, 1, want, n) : INFINITY;
    free(got);
    return e;
}

static void describe(const struct fcase *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %dx%d %s src %d,%d,%d,%d dst %d,%d,%d,%d%s%s", c->spec, border_names[c->border], c->w,
             c->h, type_names[c->type], c->src.x, c->src.y, c->src.w, c->src.h, c->dst.x, c->dst.y, c->dst.w, c->dst.h,
             c->use_double ? " double" : "",
             c->path == FILTER_PATH_SEPARABLE      ? " separable"
             : c->path == FILTER_PATH_LOCAL_MEMORY ? " local memory"
             : c->path == FILTER_PATH_VECTOR       ? " vector"
                                                   : "");
}

static clx_filter *filter_for(clx_context *ctx, const struct fcase *c)
{
    clx_filter_options opt;
    clx_filter *f;
    clx_filter_options_init(&opt);
    opt.spec = c->spec;
    opt.border = c->border;
    opt.source_roi = c->src;
    opt.target_roi = c->dst;
    opt.use_double = c->use_double;
    if (clx_filter_create(ctx, &opt, &f) != CLX_OK) {
        fprintf(stderr, "clx_filter_create(%s): %s\n", c->spec, clx_context_message(ctx));
        exit(1);
    }
    filter_force_path(f, c->path);
    return f;
}

/* One case: the device's output against the reference, on a given image. */
static void check_image(clx_context *ctx, const struct fcase *c, const clx_image *img)
{
    struct fref_chain chain;
    clx_region src, dst;
    clx_image out;
    char what[512];

    describe(c, what, sizeof what);
    if (fref_parse(c->spec, &chain) != 0) {
        CHECK(0, "%s: the reference cannot read the spec", what);
        return;
    }
    resolve(c, &src, &dst);
    clx_filter *f = filter_for(ctx, c);
    int status = clx_filter_apply(f, img, &out);
    CHECK(status == CLX_OK, "%s: %s", what, clx_context_message(ctx));
    if (status == CLX_OK) {
        size_t n = (size_t)c->w * c->h;
        double *want = malloc(n * sizeof *want);
        fref_apply(&chain, c->border, img, src, dst, want);
        double err = relative_error(out.pixels, 0, want, n);
        CHECK(out.width == c->w && out.height == c->h && out.type == CLX_PIXEL_F32, "%s: output %dx%d type %d", what,
              out.width, out.height, (int)out.type);
        if (c->use_double) {
            /* The float output is the double result, rounded. */
            CHECK(err <= 1e-7, "%s: the float output is off by %.3g of the largest value", what, err);
            err = device_double_error(ctx, f, want, n);
        }
        double tol = c->use_double ? 1e-12 : 1e-5;
        CHECK(err <= tol, "%s: off by %.3g of the largest value (tolerance %g)", what, err, tol);
        if (getenv("TEST_FILTER_VERBOSE"))
            printf("  %s: %.2g\n", what, err);
        free(want);
        clx_image_free(&out);
    }
    clx_filter_release(f);
    cases_run++;
}

static void check_case(clx_context *ctx, const struct fcase *c)
{
    clx_image img;
    make_image(&img, c->w, c->h, c->type, (uint64_t)(c->w * 7919 + c->h * 31 + c->type));
    check_image(ctx, c, &img);
    clx_image_free(&img);
}

static const struct { int w, h; } sizes[] = { { 1, 1 }, { 7, 5 }, { 33, 31 }, { 97, 64 }, { 130, 129 } };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Every path with every border rule on every size; asymmetric taps show
 * that taps[0] weights the left / upper neighbour on every path: the GPUs'
 * (tiled or separable by radius) and the CPUs' (vector), whichever the
 * device is. */
static void check_paths(clx_context *ctx)
{
    const char *specs[] = { "taps:1,-2,3", "taps:0.5,1,-2,0.25,3", "gaussian:1", "gaussian:2.3", "gaussian:10" };
    const enum filter_path paths[] = { FILTER_PATH_LOCAL_MEMORY, FILTER_PATH_VECTOR };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
        for (int b = 0; b < 3; b++)
            for (size_t p = 0; p < 2; p++) {
                for (size_t z = 0; z < NSIZES; z++) {
                    struct fcase c = fcase_of(specs[s], (clx_border)b, sizes[z].w, sizes[z].h, CLX_PIXEL_U16);
                    c.path = paths[p];
                    check_case(ctx, &c);
                }
                /* Wide enough for the separable row pass's interior work-groups. */
                struct fcase c = fcase_of(specs[s], (clx_border)b, 300, 200, CLX_PIXEL_U16);
                c.path = paths[p];
                check_case(ctx, &c);
            }
    /* Radius 1 and 2 on the separable path too. */
    const char *small[] = { "taps:1,-2,3", "taps:0.5,1,-2,0.25,3", "highpass:0.5" };
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++)
        for (int b = 0; b < 3; b++) {
            struct fcase c = fcase_of(small[s], (clx_border)b, 130, 129, CLX_PIXEL_U16);
            c.path = FILTER_PATH_SEPARABLE;
            check_case(ctx, &c);
            c.w = 7;
            c.h = 5;
            check_case(ctx, &c);
        }
}

static void check_epilogues(clx_context *ctx)
{
    const char *specs[] = { "highpass:0.5", "background-divide:0.3", "highpass:1.5", "background:6",
                            "background-divide:4" };
    /* The epilogue does not depend on the border rule: one rule each, in turn
     * (every program costs a compilation). */
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        struct fcase c = fcase_of(specs[s], (clx_border)(s % 3), 33, 31, CLX_PIXEL_U16);
        check_case(ctx, &c);
        c.w = 130;
        c.h = 129;
        check_case(ctx, &c);
    }

    /* background-divide where the blur is 0: a zero block wider than the
     * kernel and the zero border give 0, not a division by zero. */
    const char *divide[] = { "background-divide:0.6", "background-divide:2" };
    for (size_t s = 0; s < 2; s++) {
        struct fcase c = fcase_of(divide[s], CLX_BORDER_ZERO, 97, 64, CLX_PIXEL_U16);
        clx_image img;
        make_image(&img, c.w, c.h, c.type, 99);
        for (int y = 10; y < 50; y++)
            for (int x = 20; x < 70; x++)
                ((uint16_t *)img.pixels)[y * c.w + x] = 0;
        check_image(ctx, &c, &img);
        clx_image_free(&img);
    }
}

static void check_pixel_types(clx_context *ctx)
{
    const char *specs[] = { "taps:1,-2,3", "taps:0.5,1,-2,0.25,3", "gaussian:2.3", "highpass:1.5",
                            "background:5+gaussian:0.5" };
    const clx_pixel_type types[] = { CLX_PIXEL_U8, CLX_PIXEL_F32 };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
        for (int t = 0; t < 2; t++) {
            struct fcase c = fcase_of(specs[s], CLX_BORDER_CLAMP, 97, 64, types[t]);
            check_case(ctx, &c);
        }
}

static void check_chains(clx_context *ctx)
{
    const char *specs[] = { "background:5+gaussian:0.5", "taps:1,2,1+taps:1,0,-1", "gaussian:0.5+background-divide:3",
                            "taps:1,-2,3+gaussian:1.5+taps:0.5,1,-2,0.25,3+highpass:2" };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        struct fcase c = fcase_of(specs[s], s % 2 ? CLX_BORDER_ZERO : CLX_BORDER_MIRROR, 33, 31, CLX_PIXEL_U16);
        check_case(ctx, &c);
        c.w = 130;
        c.h = 129;
        c.type = CLX_PIXEL_U8;
        check_case(ctx, &c);
    }
    /* The longest chain with the other rules too. */
    for (int b = 0; b < 2; b++) {
        struct fcase c = fcase_of(specs[3], (clx_border)b, 97, 64, CLX_PIXEL_U16);
        check_case(ctx, &c);
    }
}

static void check_rois(clx_context *ctx)
{
    const char *specs[] = { "taps:0.5,1,-2,0.25,3", "taps:1,-2,3", "gaussian:1.5", "background:3+taps:1,2,1" };
    const struct { clx_region src, dst; } rois[] = {
        { { 0, 0, 0, 0 }, { 0, 0, 0, 0 } },            /* whole image */
        { { 0, 0, 130, 129 }, { 0, 0, 130, 129 } },    /* whole image, spelled out */
        { { 17, 9, 70, 75 }, { 17, 9, 70, 75 } },      /* interior, in place */
        { { 0, 20, 50, 40 }, { 0, 20, 50, 40 } },      /* touching the left edge */
        { { 30, 0, 40, 50 }, { 30, 0, 40, 50 } },      /* ... the top */
        { { 85, 10, 45, 60 }, { 85, 10, 45, 60 } },    /* ... the right */
        { { 10, 92, 60, 37 }, { 10, 92, 60, 37 } },    /* ... the bottom */
        { { 5, 7, 60, 50 }, { 40, 60, 0, 0 } },        /* target elsewhere, overlapping; size from the source */
        { { 17, 9, 70, 75 }, { 0, 0, 0, 0 } },         /* target at the corner */
        { { 3, 4, 33, 65 }, { 90, 50, 33, 65 } },      /* not multiples of 32 */
        { { 60, 60, 3, 2 }, { 61, 2, 3, 2 } },         /* smaller than the radius */
    };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
        for (size_t r = 0; r < sizeof rois / sizeof rois[0]; r++) {
            struct fcase c = fcase_of(specs[s], CLX_BORDER_MIRROR, 130, 129, CLX_PIXEL_U16);
            c.src = rois[r].src;
            c.dst = rois[r].dst;
            check_case(ctx, &c);
            if (r == 2 || r == 10) {
                c.border = CLX_BORDER_ZERO;
                check_case(ctx, &c);
            }
        }
    struct fcase big = fcase_of("gaussian:10", CLX_BORDER_MIRROR, 130, 129, CLX_PIXEL_U16);
    big.src = (clx_region){ 60, 60, 3, 2 };
    check_case(ctx, &big);
    big.src = (clx_region){ 1, 2, 97, 64 };
    big.dst = (clx_region){ 33, 65, 97, 64 };
    check_case(ctx, &big);
}

static void check_double(clx_context *ctx)
{
    if (!clx_context_device(ctx)->has_fp64) {
        printf("  no fp64 on this device: double precision not tested\n");
        return;
    }
    const char *specs[] = { "taps:1,-2,3", "taps:0.5,1,-2,0.25,3", "gaussian:2.3", "background-divide:0.3",
                            "highpass:1.5", "background:5+gaussian:0.5" };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
        for (size_t z = 1; z < NSIZES; z += 2) {
            struct fcase c = fcase_of(specs[s], CLX_BORDER_MIRROR, sizes[z].w, sizes[z].h, CLX_PIXEL_U16);
            c.use_double = 1;
            check_case(ctx, &c);
            c.type = CLX_PIXEL_F32;
            c.border = CLX_BORDER_ZERO;
            c.src = (clx_region){ 1, 1, sizes[z].w - 1, sizes[z].h - 1 };
            check_case(ctx, &c);
        }
}

/* The accurate mode's entry point: a batch of images on the device. */
static void check_batch(clx_context *ctx, const char *spec, clx_pixel_type type, int use_double)
{
    struct clx_context *c = ctx;
    const int w = 97, h = 64, n = 3;
    size_t px = (size_t)w * h, in_size = clx_pixel_size(type), rs = use_double ? sizeof(double) : sizeof(float);
    struct fcase fc = fcase_of(spec, CLX_BORDER_MIRROR, w, h, type);
    fc.use_double = use_double;
    struct fref_chain chain;
    clx_image imgs[3];
    char *host_in = malloc(px * in_size * n);
    void *host_out = malloc(px * rs * n);
    double *want = malloc(px * sizeof *want);
    cl_int err;

    fref_parse(spec, &chain);
    for (int i = 0; i < n; i++) {
        make_image(&imgs[i], w, h, type, 1000 + (uint64_t)i);
        memcpy(host_in + i * px * in_size, imgs[i].pixels, px * in_size);
    }
    cl_mem in = clCreateBuffer(c->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, px * in_size * n, host_in, &err);
    cl_mem out = clCreateBuffer(c->cl, CL_MEM_READ_WRITE, px * rs * n, NULL, &err);
    clx_filter *f = filter_for(ctx, &fc);
    /* Twice: the second call reuses the temporaries. */
    for (int round = 0; round < 2; round++) {
        int status = filter_enqueue(f, in, type, w, h, n, out);
        CHECK(status == CLX_OK, "filter_enqueue %s: %s", spec, clx_context_message(ctx));
        clEnqueueReadBuffer(c->queue, out, CL_TRUE, 0, px * rs * n, host_out, 0, NULL, NULL);
        for (int i = 0; i < n; i++) {
            fref_apply(&chain, CLX_BORDER_MIRROR, &imgs[i], (clx_region){ 0, 0, w, h }, (clx_region){ 0, 0, w, h },
                       want);
            double e = relative_error((char *)host_out + i * px * rs, use_double, want, px);
            CHECK(e <= (use_double ? 1e-12 : 1e-5), "filter_enqueue %s %s image %d: off by %.3g", spec,
                  type_names[type], i, e);
        }
    }
    clx_filter_release(f);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    for (int i = 0; i < n; i++)
        clx_image_free(&imgs[i]);
    free(host_in);
    free(host_out);
    free(want);
    cases_run++;
}

static void check_spec_errors(void)
{
    char many[1024] = "taps:1";
    for (int i = 1; i < 131; i++)
        strcat(many, ",1");
    const struct { const char *spec, *message; } bad[] = {
        { "", "filter spec is empty (e.g. gaussian:2 or background:20+gaussian:1)" },
        { "gaussian:-1", "filter spec 'gaussian:-1': sigma must be positive" },
        { "gaussian:0", "filter spec 'gaussian:0': sigma must be positive" },
        { "gaussian", "filter spec 'gaussian': expected gaussian:SIGMA (e.g. gaussian:2)" },
        { "highpass:", "filter spec 'highpass:': expected highpass:SIGMA (e.g. highpass:2)" },
        { "gaussian:abc", "filter spec 'gaussian:abc': 'abc' is not a finite number" },
        { "gaussian:2x", "filter spec 'gaussian:2x': '2x' is not a finite number" },
        { "gaussian:inf", "filter spec 'gaussian:inf': 'inf' is not a finite number" },
        { "gaussian:22", "filter spec 'gaussian:22': sigma 22 needs a radius of ceil(3 x 22) = 66; at most 64 "
                         "(sigma <= 21.33)" },
        { "blur:2", "filter spec 'blur:2': unknown filter 'blur' (gaussian, highpass, background, "
                    "background-divide or taps)" },
        { "taps:1,2", "filter spec 'taps:1,2': 2 taps; need an odd count from 3 to 129" },
        { "taps:1", "filter spec 'taps:1': 1 tap; need an odd count from 3 to 129" },
        { "taps:", "filter spec 'taps:': expected taps:a,b,c,... (an odd count from 3 to 129)" },
        { "taps:1,,1", "filter spec 'taps:1,,1': tap 2 is empty" },
        { "taps:1,2,", "filter spec 'taps:1,2,': tap 3 is empty" },
        { "taps:1,x,1", "filter spec 'taps:1,x,1': tap 2 'x' is not a finite number" },
        { "gaussian:1+", "filter spec 'gaussian:1+': stage 2 is empty" },
        { "gaussian:1++gaussian:2", "filter spec 'gaussian:1++gaussian:2': stage 2 is empty" },
        { "background:25+gaussian:1", "filter spec 'background:25+gaussian:1': stage 1 'background:25': sigma 25 "
                                      "needs a radius of ceil(3 x 25) = 75; at most 64 (sigma <= 21.33)" },
        { "gaussian:1+blur:1", "filter spec 'gaussian:1+blur:1': stage 2 'blur:1': unknown filter 'blur' "
                               "(gaussian, highpass, background, background-divide or taps)" },
        { "gaussian:1+gaussian:1+gaussian:1+gaussian:1+gaussian:1",
          "filter spec 'gaussian:1+gaussian:1+gaussian:1+gaussian:1+gaussian:1': 5 stages; at most 4" },
        { many, NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clx_message msg;
        int status = clx_filter_spec_check(bad[i].spec, &msg);
        CHECK(status == CLX_ERR_ARGUMENT, "spec '%.40s' accepted", bad[i].spec);
        if (bad[i].message)
            CHECK(strcmp(msg.text, bad[i].message) == 0, "spec '%s': message '%s'", bad[i].spec, msg.text);
        else
            CHECK(strstr(msg.text, ": 131 taps; need an odd count from 3 to 129") != NULL, "131 taps: '%s'",
                  msg.text);
    }
    CHECK(clx_filter_spec_check(NULL, NULL) == CLX_ERR_ARGUMENT, "NULL spec accepted");
}

static void check_spec_parsing(void)
{
    struct filter_chain chain;
    clx_message msg;
    const struct { const char *spec; int nstages, radius0; } good[] = {
        { "gaussian:1", 1, 3 },
        { "gaussian:0.1", 1, 1 },
        { "gaussian:0.6", 1, 2 },
        { "gaussian:21.33", 1, 64 },
        { "background-divide:2", 1, 6 },
        { "taps:1e+0,2,1", 1, 1 },             /* '+' of an exponent */
        { "taps:-1,+2,-1", 1, 1 },             /* '+' of a sign */
        { "background:20+gaussian:1", 2, 60 },
        { "taps:1,2,3,4,5,6,7+highpass:.5+gaussian:+.5+background:2", 4, 3 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int status = filter_spec_parse(good[i].spec, &chain, &msg);
        CHECK(status == CLX_OK, "'%s': %s", good[i].spec, msg.text);
        if (status != CLX_OK)
            continue;
        CHECK(chain.nstages == good[i].nstages && chain.stages[0].radius == good[i].radius0,
              "'%s': %d stages, radius %d", good[i].spec, chain.nstages, chain.stages[0].radius);
    }
    filter_spec_parse("gaussian:2.5", &chain, &msg);
    double sum = 0;
    for (int k = 0; k <= 2 * chain.stages[0].radius; k++)
        sum += chain.stages[0].taps[k];
    CHECK(fabs(sum - 1) < 1e-14 && chain.stages[0].epilogue == EPILOGUE_FILTERED, "gaussian taps sum to %.17g", sum);
    filter_spec_parse("background-divide:1+highpass:1+background:1", &chain, &msg);
    CHECK(chain.stages[0].epilogue == EPILOGUE_DIVIDE && chain.stages[1].epilogue == EPILOGUE_SUBTRACT &&
          chain.stages[2].epilogue == EPILOGUE_SUBTRACT, "epilogues of the kinds");
}

/* The API's refusals: bad specs, ROIs that do not fit, negative values. */
static void check_api_errors(clx_context *ctx)
{
    clx_filter_options opt;
    clx_filter *f;
    clx_image img, out;

    clx_filter_options_init(&opt);
    CHECK(opt.border == CLX_BORDER_MIRROR && !opt.use_double, "options_init defaults");
    opt.spec = "gaussian:-1";
    CHECK(clx_filter_create(ctx, &opt, &f) == CLX_ERR_ARGUMENT &&
          strcmp(clx_context_message(ctx), "filter spec 'gaussian:-1': sigma must be positive") == 0,
          "create with a bad spec: %s", clx_context_message(ctx));
    opt.spec = "gaussian:1";
    opt.source_roi = (clx_region){ -1, 0, 5, 5 };
    CHECK(clx_filter_create(ctx, &opt, &f) == CLX_ERR_REGION && strstr(clx_context_message(ctx), "negative"),
          "negative ROI: %s", clx_context_message(ctx));

    make_image(&img, 64, 48, CLX_PIXEL_U16, 5);
    const struct { clx_region src, dst; const char *message; } bad[] = {
        { { 10, 10, 60, 20 }, { 0, 0, 0, 0 }, "the source ROI 10,10,60,20 (x,y,w,h) is not inside the 64x48 image" },
        { { 0, 0, 0, 0 }, { 1, 0, 0, 0 }, "the target ROI 1,0,64,48 (x,y,w,h) is not inside the 64x48 image" },
        { { 0, 0, 10, 10 }, { 0, 0, 10, 11 }, "the target ROI is 10x11 but the source ROI is 10x10; they must have "
                                               "one size" },
        { { 0, 0, 10, 10 }, { 60, 40, 10, 10 }, "the target ROI 60,40,10,10 (x,y,w,h) is not inside the 64x48 image" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        opt.source_roi = bad[i].src;
        opt.target_roi = bad[i].dst;
        CHECK(clx_filter_create(ctx, &opt, &f) == CLX_OK, "create: %s", clx_context_message(ctx));
        int status = clx_filter_apply(f, &img, &out);
        CHECK(status == CLX_ERR_REGION && strcmp(clx_context_message(ctx), bad[i].message) == 0 && !out.pixels,
              "ROI case %zu: status %d, '%s'", i, status, clx_context_message(ctx));
        clx_filter_release(f);
    }
    clx_image_free(&img);
}

/* --double on a device without fp64 is refused with a clear message. */
static void check_no_fp64(void)
{
    clx_context *ctx;
    clx_filter_options opt;
    clx_filter *f;
    setenv("CLXCORR_TEST_HIDE_FP64", "1", 1);
    td_open_context(&ctx, 0);
    unsetenv("CLXCORR_TEST_HIDE_FP64");
    clx_filter_options_init(&opt);
    opt.spec = "gaussian:1";
    opt.use_double = 1;
    int status = clx_filter_create(ctx, &opt, &f);
    CHECK(status == CLX_ERR_UNSUPPORTED && strstr(clx_context_message(ctx), "no double precision (cl_khr_fp64)"),
          "use_double without fp64: %d %s", status, clx_context_message(ctx));
    clx_context_release(ctx);
}

/* make check-oclgrind (td_simulator): each path, border rule, pixel type,
 * epilogue and precision once, on a small image and with an ROI. */
static void check_simulated(clx_context *ctx)
{
    const char *specs[] = { "taps:1,-2,3", "gaussian:2.3", "background-divide:0.3" };
    const clx_pixel_type types[] = { CLX_PIXEL_U8, CLX_PIXEL_U16, CLX_PIXEL_F32 };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
        for (int b = 0; b < 3; b++) {
            struct fcase c = fcase_of(specs[s], (clx_border)b, 33, 31, types[(s + (size_t)b) % 3]);
            check_case(ctx, &c);
        }
    struct fcase c = fcase_of("taps:0.5,1,-2,0.25,3", CLX_BORDER_MIRROR, 33, 31, CLX_PIXEL_U16);
    c.path = FILTER_PATH_SEPARABLE;
    check_case(ctx, &c);
    if (clx_context_device(ctx)->has_fp64) {
        c = fcase_of("highpass:1.5", CLX_BORDER_ZERO, 33, 31, CLX_PIXEL_F32);
        c.use_double = 1;
        c.src = (clx_region){ 1, 1, 32, 30 };
        check_case(ctx, &c);
    }
}

int main(void)
{
    clx_context *ctx;
    check_spec_errors();
    check_spec_parsing();
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return test_failures ? 1 : TEST_SKIP;
    if (td_simulator()) {
        check_simulated(ctx);
        clx_context_release(ctx);
        printf("%d filter cases (simulator: small cases only); %s (%d failures)\n", cases_run,
               test_failures ? "FAILED" : "passed", test_failures);
        return test_failures ? 1 : 0;
    }
    check_api_errors(ctx);
    check_paths(ctx);
    check_epilogues(ctx);
    check_pixel_types(ctx);
    check_chains(ctx);
    check_rois(ctx);
    check_double(ctx);
    check_batch(ctx, "background:4+taps:1,-2,3", CLX_PIXEL_U16, 0);
    check_batch(ctx, "gaussian:1.5", CLX_PIXEL_U8, 0);
    if (clx_context_device(ctx)->has_fp64)
        check_batch(ctx, "taps:0.5,1,-2,0.25,3", CLX_PIXEL_F32, 1);
    clx_context_release(ctx);
    check_no_fp64();
    printf("%d filter cases; %s (%d failures)\n", cases_run, test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
