/* sample_rng.c - xoshiro256** through splitmix64, and normal deviates (sample_rng.h). */
#include "sample_rng.h"

#include <math.h>

static const double TWO_PI = 6.28318530717958647692;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void rng_seed(rng_t *r, uint64_t seed, enum stream stream, uint64_t index)
{
    uint64_t key = ((uint64_t)stream << 48) ^ index;
    uint64_t x = seed ^ splitmix64(&key);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double rng_range(rng_t *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_uniform(r);
}

int rng_int(rng_t *r, int lo, int hi)
{
    return lo + (int)(rng_uniform(r) * (hi - lo + 1));
}

double gauss_next(gauss_t *g)
{
    if (g->has_spare) {
        g->has_spare = 0;
        return g->spare;
    }
    double u1 = 1.0 - rng_uniform(&g->rng);     /* (0, 1]: log(u1) is finite */
    double u2 = rng_uniform(&g->rng);
    double radius = sqrt(-2.0 * log(u1));
    g->spare = radius * sin(TWO_PI * u2);
    g->has_spare = 1;
    return radius * cos(TWO_PI * u2);
}
