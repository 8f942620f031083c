/*
 * test_warp.c - clx_warp (cl/warp_pattern.cl), the HR-EBSD remapping's
 * resampling, against patterns known at every real point: the identity
 * copies pixels bit for bit (every type), a sub-pixel translation and a
 * rotation about a point match the function sampled where the map points
 * (to the interpolation's accuracy on a smooth pattern), points outside
 * read the nearest edge pixel, and bad arguments are refused.
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
        int same = out.type == CLX_PIXEL_F32 && out.width == W && out.height == H;
        for (int y = 0; same && y < H; y++)
            for (int x = 0; same && x < W; x++)
                same = (float)pixel(&in, x, y) == ((const float *)out.pixels)[y * W + x];
        CHECK(same, "type %d: the identity does not copy the pixels", t);
        clx_image_free(&in);
        clx_image_free(&out);
    }
}

/* Lanczos-3 as cl/interp.h has it. */
static double lanczos3(double t)
{
    t = fabs(t);
    if (t < 1e-6)
        return 1;
    if (t >= 3)
        return 0;
    return sin(M_PI * t) * sin(M_PI * t / 3) / (M_PI * t * M_PI * t / 3);
}

/* The kernel's sum, in double: 6 x 6 taps around (x, y), weights normalised, edges repeated. */
static double resampled(const clx_image *im, double x, double y)
{
    double x0 = floor(x), y0 = floor(y), fx = x - x0, fy = y - y0, wx[6], wy[6], sx = 0, sy = 0, sum = 0;
    for (int k = 0; k < 6; k++) {
        wx[k] = fx == 0 ? (k == 2) : lanczos3(fx - (k - 2));
        wy[k] = fy == 0 ? (k == 2) : lanczos3(fy - (k - 2));
        sx += wx[k];
        sy += wy[k];
    }
    for (int j = 0; j < 6; j++) {
        int yy = (int)y0 - 2 + j;
        yy = yy < 0 ? 0 : yy >= im->height ? im->height - 1 : yy;
        for (int k = 0; k < 6; k++) {
            int xx = (int)x0 - 2 + k;
            xx = xx < 0 ? 0 : xx >= im->width ? im->width - 1 : xx;
            sum += wy[j] * wx[k] * pixel(im, xx, yy);
        }
    }
    return sum / (sx * sy);
}

/*
 * Over the pixels whose taps lie inside the pattern: the largest
 * |out - the kernel's sum in double| (*exact) and |out - f(map(x, y))|
 * (*model: the interpolation's own error, about 0.5 % of a sine's
 * amplitude for Lanczos-3 with normalised weights, comes on top).
 */
static void map_error(clx_warp *warp, const double h[9], double *exact, double *model)
{
    clx_image in = { 0 }, out = { 0 };
    pattern_make(&in, CLX_PIXEL_F32);
    CHECK(clx_warp_apply(warp, &in, h, &out) == CLX_OK, "warp");
    *exact = *model = 0;
    for (int y = 0; out.pixels && y < H; y++)
        for (int x = 0; x < W; x++) {
            double X = h[0] * x + h[1] * y + h[2], Y = h[3] * x + h[4] * y + h[5], Z = h[6] * x + h[7] * y + h[8];
            double sx = X / Z, sy = Y / Z;
            if (sx < 4 || sy < 4 || sx > W - 5 || sy > H - 5)
                continue;
            double got = ((const float *)out.pixels)[y * W + x];
            *exact = fmax(*exact, fabs(got - resampled(&in, sx, sy)));
            *model = fmax(*model, fabs(got - pattern_at(sx, sy)));
        }
    clx_image_free(&in);
    clx_image_free(&out);
}

static void test_maps(clx_warp *warp)
{
    /* Values ~1000-2000: the kernel's floats agree with double to ~1e-5 of
     * them; a map read the wrong way round would miss the model by hundreds. */
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
        double exact, model;
        map_error(warp, maps[m].h, &exact, &model);
        CHECK(exact < 0.05 && model < 4, "%s: %.4f from the same sum in double, %.3f from the pattern", maps[m].what,
              exact, model);
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
