/*
 * test_warp.c - clx_warp (cl/warp_pattern.cl), the HR-EBSD remapping's
 * resampling with the quintic B-spline, against patterns known at every
 * real point: the identity gives back the pixels (every type, to float
 * precision: the spline passes through them), a sub-pixel translation, a
 * rotation about a point and a projective map match the function sampled
 * where the map points, a flat pattern stays flat however far outside the
 * map reads, and bad arguments are refused.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clxcorr.h"
#include "test_data.h"

#define W 97
#define H 83

/* A smooth pattern: wavelengths of 23 px and more, where Lanczos-3 passes 99.9 %. */
static double pattern_at(double x, double y)
{
    return 1000 + 300 * sin(0.25 * x + 0.1 * y) + 200 * cos(0.15 * x - 0.2 * y) + 0.05 * x * y;
}

static void pattern_make(clx_image *im, clx_pixel_type type)
{
    clx_message msg;
    CHECK(clx_image_alloc(im, W, H, type, &msg) == CLX_OK, "alloc: %s", msg.text);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double v = pattern_at(x, y);
            size_t i = (size_t)y * W + x;
            if (type == CLX_PIXEL_U8)
                ((uint8_t *)im->pixels)[i] = (uint8_t)(v / 8);
            else if (type == CLX_PIXEL_U16)
                ((uint16_t *)im->pixels)[i] = (uint16_t)v;
            else
                ((float *)im->pixels)[i] = (float)v;
        }
}

static double pixel(const clx_image *im, int x, int y)
{
    size_t i = (size_t)y * im->width + x;
    switch (im->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)im->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)im->pixels)[i];
    default: return ((const float *)im->pixels)[i];
    }
}

static void test_identity(clx_warp *warp)
{
    static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    for (int t = CLX_PIXEL_U8; t <= CLX_PIXEL_F32; t++) {
        clx_image in = { 0 }, out = { 0 };
        pattern_make(&in, (clx_pixel_type)t);
        CHECK(clx_warp_apply(warp, &in, identity, &out) == CLX_OK, "type %d: identity", t);
        double worst = out.type == CLX_PIXEL_F32 && out.width == W && out.height == H ? 0 : INFINITY;
        for (int y = 0; out.pixels && y < H; y++)
            for (int x = 0; x < W; x++)
                worst = fmax(worst, fabs(pixel(&in, x, y) - ((const float *)out.pixels)[y * W + x]));
        /* Values up to about 2000: float's rounding through the prefilter and back. */
        CHECK(worst < 0.02, "type %d: the identity misses a pixel by %g", t, worst);
        clx_image_free(&in);
        clx_image_free(&out);
    }
}

/* The largest |out - f(map(x, y))| over the pixels whose map lies 12 px or more inside the pattern
 * (the mirrored boundary the coefficients assume reaches about that far). */
static double map_error(clx_warp *warp, const double h[9])
{
    clx_image in = { 0 }, out = { 0 };
    pattern_make(&in, CLX_PIXEL_F32);
    CHECK(clx_warp_apply(warp, &in, h, &out) == CLX_OK, "warp");
    double worst = 0;
    for (int y = 0; out.pixels && y < H; y++)
        for (int x = 0; x < W; x++) {
            double X = h[0] * x + h[1] * y + h[2], Y = h[3] * x + h[4] * y + h[5], Z = h[6] * x + h[7] * y + h[8];
            double sx = X / Z, sy = Y / Z;
            if (sx < 12 || sy < 12 || sx > W - 13 || sy > H - 13)
                continue;
            worst = fmax(worst, fabs(((const float *)out.pixels)[y * W + x] - pattern_at(sx, sy)));
        }
    clx_image_free(&in);
    clx_image_free(&out);
    return out.pixels || !in.pixels ? worst : INFINITY;
}

static void test_maps(clx_warp *warp)
{
    /* Values ~1000-2000: the quintic B-spline follows wavelengths of 23 px
     * and more to a few hundredths; a map read the wrong way round would
     * miss the pattern by hundreds. */
    double c = cos(3 * M_PI / 180), s = sin(3 * M_PI / 180);
    const struct {
        const char *what;
        double h[9];
    } maps[] = {
        { "a translation by (0.37, -0.61)", { 1, 0, 0.37, 0, 1, -0.61, 0, 0, 1 } },
        { "a rotation of 3 degrees about (40, 30)",
          { c, -s, 40 - 40 * c + 30 * s, s, c, 30 - 40 * s - 30 * c, 0, 0, 1 } },
        { "a projective map", { 1.01, 0.02, -0.3, -0.01, 0.99, 0.4, 1e-5, -2e-5, 1 } },
    };
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
        double e = map_error(warp, maps[m].h);
        CHECK(e < 0.1, "%s: %.4f from the pattern", maps[m].what, e);
    }
}

/* A map far outside reads the nearest edge pixel: a pattern of one value stays that value. */
static void test_outside(clx_warp *warp)
{
    clx_image in = { 0 }, out = { 0 };
    clx_message msg;
    CHECK(clx_image_alloc(&in, 20, 10, CLX_PIXEL_U16, &msg) == CLX_OK, "alloc");
    for (int i = 0; i < 200; i++)
        ((uint16_t *)in.pixels)[i] = 777;
    const double far[9] = { 1, 0, 1e6, 0, 1, -1e6, 0, 0, 1 }, behind[9] = { 1, 0, 0, 0, 1, 0, 0, 0, -1 };
    for (int k = 0; k < 2; k++) {
        CHECK(clx_warp_apply(warp, &in, k ? behind : far, &out) == CLX_OK, "map %d", k);
        int flat = out.pixels != NULL;
        for (int i = 0; flat && i < 200; i++)
            flat = fabsf(((const float *)out.pixels)[i] - 777) < 1e-3f;
        CHECK(flat, "map %d: points outside do not read the edge", k);
        clx_image_free(&out);
    }
    clx_image_free(&in);
}

static void test_errors(clx_context *ctx, clx_warp *warp)
{
    clx_image in = { 0 }, out = { 0 };
    const double nan_map[9] = { 1, 0, NAN, 0, 1, 0, 0, 0, 1 }, identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    pattern_make(&in, CLX_PIXEL_U16);
    CHECK(clx_warp_apply(warp, &in, nan_map, &out) == CLX_ERR_ARGUMENT &&
          strstr(clx_context_message(ctx), "not finite"), "a NaN map: %s", clx_context_message(ctx));
    CHECK(clx_warp_apply(warp, NULL, identity, &out) == CLX_ERR_ARGUMENT, "NULL input");
    CHECK(clx_warp_apply(NULL, &in, identity, &out) == CLX_ERR_ARGUMENT, "NULL warp");
    clx_image_free(&in);
}

int main(void)
{
    clx_context *ctx = NULL;
    clx_warp *warp = NULL;
    if (td_open_context(&ctx, 0) == TEST_SKIP)
        return TEST_SKIP;
    CHECK(clx_warp_create(ctx, &warp) == CLX_OK, "clx_warp_create: %s", clx_context_message(ctx));
    if (warp) {
        test_identity(warp);
        test_maps(warp);
        test_outside(warp);
        test_errors(ctx, warp);
    }
    clx_warp_release(warp);
    clx_warp_release(warp);   /* twice: left alone */
    clx_context_release(ctx);
    printf("test_warp: %s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
