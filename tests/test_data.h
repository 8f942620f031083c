/*
 * test_data.h - what the device tests share: a small PRNG, synthetic images
 * with known shifts, and opening a device (or skipping).
 */
#ifndef CLX_TEST_DATA_H
#define CLX_TEST_DATA_H

#include <stdint.h>
#include "clxcorr.h"

/* Automake's "skipped" exit status. */
#define TEST_SKIP 77


/* splitmix64: deterministic on every platform. */
uint64_t td_next(uint64_t *state);
double td_uniform(uint64_t *state);     /* [0, 1) */

/* Uniform random pixels in [0, max] (max <= 255 for U8, <= 65535 for U16). */
void td_random_image(clx_image *img, int w, int h, clx_pixel_type type, double max, uint64_t seed);

/*
 * A smooth texture of random Gaussian spots on a gentle gradient, defined at
 * real coordinates and sampled at (x - dx, y - dy): the same pattern moved by
 * (dx, dy). Values fit U8 when type is U8 (scaled to 0..250), else 0..60000.
 */
void td_textured_image(clx_image *img, int w, int h, clx_pixel_type type, double dx, double dy,
                       uint64_t seed);

/*
 * Opens the default device (CLXCORR_DEVICE selects another). Returns 0, or
 * TEST_SKIP after printing why when no OpenCL device exists; exits on other
 * errors.
 */
int td_open_context(clx_context **ctx, int need_fp64);
/* 1 under `make check-oclgrind` (CLXCORR_TEST_SIMULATOR set): a simulator
 * runs a kernel a thousand times slower than a CPU device, so the tests run
 * their small cases only, on the FFT-free (direct) path, and say so. */
int td_simulator(void);
/* CLXCORR_TEST_SIMULATOR=quick (.ci/run's Oclgrind subset): the simulated
 * tests' smallest case only. */
int td_simulator_quick(void);

#endif
