/* workloads.c - the standard workloads and their synthetic images. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads.h"

const struct workload standard_workloads[] = {
    /* The EBSD case the project exists for (and peer_cupy's shape). */
    { "ebsd-900", "900x900 16-bit, 50 windows of 100x100", 900, 900, 10, 5, 100, 100, 20 },
    /* A mid-sized job: smaller images and windows. */
    { "mid-512", "512x512 16-bit, 36 windows of 64x64", 512, 512, 6, 6, 64, 64, 16 },
    /* PIV: a dense grid of small windows overlapping by half. */
    { "piv-32", "1024x1024 16-bit, 63x63 windows of 32x32 (50% overlap)", 1024, 1024, 63, 63, 32, 32, 0 },
    { NULL, NULL, 0, 0, 0, 0, 0, 0, 0 }
};

const struct workload *workload_named(const char *name)
{
    for (const struct workload *w = standard_workloads; w->name; w++)
        if (strcmp(w->name, name) == 0)
            return w;
    return NULL;
}

int workload_regions(const struct workload *w, clx_region **regions, size_t *count, clx_message *msg)
{
    return clx_regions_grid(w->grid_x, w->grid_y, w->win_w, w->win_h, w->margin, w->image_w, w->image_h, regions,
                            count, msg);
}

/* ---- the texture --------------------------------------------------------- */

#define WAVES 48
#define MAX_OFFSET 3.0
static const double TWO_PI = 6.28318530717958647692;

struct wave {
    double kx, ky;      /* angular frequency, radians per pixel */
    double phase, amplitude;
};

/* splitmix64: the same waves and offsets on every platform. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return (double)(next_random(s) >> 11) / 9007199254740992.0;
}

/* Wavelengths from 4 px (a sharp correlation peak) to 64 px (structure a
 * 100 px window sees whole), amplitudes falling with frequency as in real
 * patterns. */
static void waves_draw(struct wave *waves, uint64_t *s)
{
    for (int k = 0; k < WAVES; k++) {
        double wavelength = 4.0 * pow(16.0, uniform(s));
        double angle = TWO_PI * uniform(s);
        waves[k].kx = TWO_PI / wavelength * cos(angle);
        waves[k].ky = TWO_PI / wavelength * sin(angle);
        waves[k].phase = TWO_PI * uniform(s);
        waves[k].amplitude = sqrt(wavelength);
    }
}

/*
 * Renders the texture moved by (dx, dy): pixel (x, y) holds f(x - dx, y - dy).
 * cos(a + b) = cos a cos b - sin a sin b turns each wave into per-column and
 * per-row tables, so a pixel costs two multiplications per wave.
 */
static int render(const struct wave *waves, double scale, int w, int h, double dx, double dy, clx_image *img,
                  clx_message *msg)
{
    if (clx_image_alloc(img, w, h, CLX_PIXEL_U16, msg) != CLX_OK)
        return CLX_ERR_HOST_MEMORY;
    double *row = calloc((size_t)w, sizeof *row);
    double *cx = malloc(sizeof *cx * (size_t)w * WAVES), *sx = malloc(sizeof *sx * (size_t)w * WAVES);
    if (!row || !cx || !sx) {
        free(row);
        free(cx);
        free(sx);
        clx_image_free(img);
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    for (int x = 0; x < w; x++)
        for (int k = 0; k < WAVES; k++) {
            double a = waves[k].kx * (x - dx) + waves[k].phase;
            cx[(size_t)x * WAVES + k] = cos(a);
            sx[(size_t)x * WAVES + k] = sin(a);
        }
    uint16_t *out = img->pixels;
    for (int y = 0; y < h; y++) {
        double cy[WAVES], sy[WAVES];
        for (int k = 0; k < WAVES; k++) {
            double b = waves[k].ky * (y - dy);
            cy[k] = waves[k].amplitude * cos(b);
            sy[k] = waves[k].amplitude * sin(b);
        }
        for (int x = 0; x < w; x++) {
            const double *c = cx + (size_t)x * WAVES, *s = sx + (size_t)x * WAVES;
            double v = 0;
            for (int k = 0; k < WAVES; k++)
                v += c[k] * cy[k] - s[k] * sy[k];
            row[x] = 32768.0 + scale * v;
        }
        for (int x = 0; x < w; x++) {
            double v = floor(row[x] + 0.5);
            out[(size_t)y * w + x] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
        }
    }
    free(row);
    free(cx);
    free(sx);
    return CLX_OK;
}

int workload_images(const struct workload *w, size_t count, unsigned seed, clx_image *reference, clx_image *images,
                    clx_message *msg)
{
    struct wave waves[WAVES];
    uint64_t s = 0x5EED0000ull + seed;
    double total = 0;
    waves_draw(waves, &s);
    for (int k = 0; k < WAVES; k++)
        total += waves[k].amplitude;
    /* The sum's typical excursion is sqrt(sum a^2) / sqrt 2; mapping 4 of
     * those to 25,000 counts leaves the peaks unclipped. */
    double rms = 0;
    for (int k = 0; k < WAVES; k++)
        rms += waves[k].amplitude * waves[k].amplitude / 2;
    double scale = 25000.0 / (4.0 * sqrt(rms) < total ? 4.0 * sqrt(rms) : total);

    memset(reference, 0, sizeof *reference);
    int status = render(waves, scale, w->image_w, w->image_h, 0, 0, reference, msg);
    for (size_t i = 0; status == CLX_OK && i < count; i++) {
        double dx = MAX_OFFSET * (2 * uniform(&s) - 1), dy = MAX_OFFSET * (2 * uniform(&s) - 1);
        memset(&images[i], 0, sizeof images[i]);
        status = render(waves, scale, w->image_w, w->image_h, dx, dy, &images[i], msg);
        if (status != CLX_OK)
            while (i-- > 0)
                clx_image_free(&images[i]);
    }
    if (status != CLX_OK)
        clx_image_free(reference);
    return status;
}
