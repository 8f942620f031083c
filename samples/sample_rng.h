/* sample_rng.h - clxcorr-samples' random numbers: xoshiro256** seeded
 * through splitmix64 (Blackman and Vigna), never rand(), so that every libc
 * gives the same files; one stream per purpose and index, so that adding
 * images or noise changes nothing else. */
#ifndef CLX_SAMPLES_RNG_H
#define CLX_SAMPLES_RNG_H

#include <stdint.h>

typedef struct { uint64_t s[4]; } rng_t;

/* The streams: the pattern (or particles), each image's deformation, each
 * file's noise, each PIV pair's particles. */
enum stream { STREAM_PATTERN = 1, STREAM_DEFORM = 2, STREAM_NOISE = 3, STREAM_PARTICLES = 4 };

void rng_seed(rng_t *r, uint64_t seed, enum stream stream, uint64_t index);
uint64_t rng_next(rng_t *r);
/* Uniform in [0, 1), 53 bits. */
double rng_uniform(rng_t *r);
double rng_range(rng_t *r, double lo, double hi);
/* Uniform integer in [lo, hi]. */
int rng_int(rng_t *r, int lo, int hi);

/* Standard normal deviates by Box-Muller, used in pairs. */
typedef struct { rng_t rng; double spare; int has_spare; } gauss_t;
double gauss_next(gauss_t *g);

#endif
