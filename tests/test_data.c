/* test_data.c - synthetic images and device opening for the device tests. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_data.h"

uint64_t td_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

double td_uniform(uint64_t *s)
{
    return (double)(td_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void store(clx_image *img, size_t i, double v)
{
    switch (img->type) {
    case CLX_PIXEL_U8: ((uint8_t *)img->pixels)[i] = (uint8_t)lround(v); break;
    case CLX_PIXEL_U16: ((uint16_t *)img->pixels)[i] = (uint16_t)lround(v); break;
    case CLX_PIXEL_F32: ((float *)img->pixels)[i] = (float)v; break;
    }
}

static void alloc_or_die(clx_image *img, int w, int h, clx_pixel_type type)
{
    clx_message msg;
    if (clx_image_alloc(img, w, h, type, &msg) != CLX_OK) {
        fprintf(stderr, "clx_image_alloc: %s\n", msg.text);
        exit(1);
    }
}

void td_random_image(clx_image *img, int w, int h, clx_pixel_type type, double max, uint64_t seed)
{
    alloc_or_die(img, w, h, type);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        double v = td_uniform(&seed) * max;
        store(img, i, type == CLX_PIXEL_F32 ? v : floor(v));
    }
}

#define SPOTS 400

void td_textured_image(clx_image *img, int w, int h, clx_pixel_type type, double dx, double dy,
                       uint64_t seed)
{
    double sx[SPOTS], sy[SPOTS], amp[SPOTS], inv2s2[SPOTS];
    alloc_or_die(img, w, h, type);
    int nspots = (int)(w * (double)h / 40.0);
    if (nspots > SPOTS)
        nspots = SPOTS;
    for (int k = 0; k < nspots; k++) {
        sx[k] = -10 + td_uniform(&seed) * (w + 20);
        sy[k] = -10 + td_uniform(&seed) * (h + 20);
        amp[k] = 0.3 + 0.7 * td_uniform(&seed);
        double s = 1.2 + 1.8 * td_uniform(&seed);
        inv2s2[k] = 1.0 / (2 * s * s);
    }
    double scale = type == CLX_PIXEL_U8 ? 250.0 / 3.0 : 60000.0 / 3.0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            double px = x - dx, py = y - dy;
            double v = 0.5 + 0.3 * px / w;
            for (int k = 0; k < nspots; k++) {
                double ex = px - sx[k], ey = py - sy[k];
                double r2 = ex * ex + ey * ey;
                if (r2 < 100)
                    v += amp[k] * exp(-r2 * inv2s2[k]);
            }
            if (v > 3)
                v = 3;
            store(img, (size_t)y * w + x, v * scale);
        }
    }
}

int td_simulator(void)
{
    const char *env = getenv("CLXCORR_TEST_SIMULATOR");
    return env && *env && strcmp(env, "0") != 0;
}

int td_simulator_quick(void)
{
    const char *env = getenv("CLXCORR_TEST_SIMULATOR");
    return env && strcmp(env, "quick") == 0;
}

int td_open_context(clx_context **ctx, int need_fp64)
{
    clx_context_options opt;
    clx_message msg;
    clx_context_options_init(&opt);
    opt.need_fp64 = need_fp64;
    int status = clx_context_open(&opt, ctx, &msg);
    if (status == CLX_ERR_NO_DEVICE && !need_fp64) {
        printf("SKIP: %s\n", msg.text);
        return TEST_SKIP;
    }
    if (status != CLX_OK) {
        fprintf(stderr, "clx_context_open: %s\n", msg.text);
        exit(1);
    }
    printf("device: %s\n", clx_context_device(*ctx)->name);
    return 0;
}
