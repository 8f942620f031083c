/* filter_ref.c - the host reference of the pre-filters (see filter_ref.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter_ref.h"

static int parse_gaussian(const char *value, struct fref_stage *s)
{
    double sigma = atof(value), sum = 0;
    s->radius = (int)ceil(3 * sigma - 1e-9);
    if (sigma <= 0 || s->radius > 64)
        return -1;
    for (int k = -s->radius; k <= s->radius; k++)
        sum += s->taps[k + s->radius] = exp(-0.5 * k * k / (sigma * sigma));
    for (int k = 0; k <= 2 * s->radius; k++)
        s->taps[k] /= sum;
    return 0;
}

static int parse_stage(const char *text, struct fref_stage *s)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return -1;
    size_t n = (size_t)(colon - text);
    memset(s, 0, sizeof *s);
    if (n == 4 && strncmp(text, "taps", 4) == 0) {
        int count = 0;
        for (const char *p = colon + 1; count < FREF_MAX_TAPS; p = strchr(p, ',') + 1) {
            s->taps[count++] = atof(p);
            if (!strchr(p, ','))
                break;
        }
        s->radius = (count - 1) / 2;
        return count % 2 == 1 && count >= 3 ? 0 : -1;
    }
    if (n == 8 && strncmp(text, "gaussian", 8) == 0)
        s->epilogue = 0;
    else if ((n == 8 && strncmp(text, "highpass", 8) == 0) || (n == 10 && strncmp(text, "background", 10) == 0))
        s->epilogue = 1;
    else if (n == 17 && strncmp(text, "background-divide", 17) == 0)
        s->epilogue = 2;
    else
        return -1;
    return parse_gaussian(colon + 1, s);
}

int fref_parse(const char *spec, struct fref_chain *chain)
{
    char copy[4096];
    if (strlen(spec) >= sizeof copy)
        return -1;
    strcpy(copy, spec);
    chain->nstages = 0;
    char *start = copy;
    for (char *p = copy;; p++) {
        /* '+' before a letter separates stages; before a digit it is a sign. */
        int end = *p == '\0';
        if (end || (*p == '+' && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z')))) {
            *p = '\0';
            if (chain->nstages == 8 || parse_stage(start, &chain->stages[chain->nstages++]))
                return -1;
            if (end)
                return 0;
            start = p + 1;
        }
    }
}

static double pixel(const clx_image *img, int x, int y)
{
    size_t i = (size_t)y * img->width + x;
    switch (img->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)img->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)img->pixels)[i];
    case CLX_PIXEL_F32: return ((const float *)img->pixels)[i];
    }
    return 0;
}

/* Where index i of n is read from: clamp, mirror ("101", repeated) or -1 (zero). */
static int border_at(clx_border border, int i, int n)
{
    if (border == CLX_BORDER_CLAMP)
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (border == CLX_BORDER_ZERO)
        return i < 0 || i >= n ? -1 : i;
    while (i < 0 || i >= n) {
        if (n == 1)
            return 0;
        i = i < 0 ? -i : 2 * (n - 1) - i;
    }
    return i;
}

/* One stage on a w x h image of doubles. */
static void stage_apply(const struct fref_stage *s, clx_border border, const double *in, int w, int h, double *out)
{
    int r = s->radius;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum = 0;
            for (int i = 0; i <= 2 * r; i++) {
                int yy = border_at(border, y - r + i, h);
                for (int j = 0; j <= 2 * r; j++) {
                    int xx = border_at(border, x - r + j, w);
                    if (xx >= 0 && yy >= 0)
                        sum += s->taps[i] * s->taps[j] * in[(size_t)yy * w + xx];
                }
            }
            double v = in[(size_t)y * w + x];
            out[(size_t)y * w + x] = s->epilogue == 0 ? sum : s->epilogue == 1 ? v - sum : sum > 1e-6 ? v / sum : 0;
        }
}

void fref_apply(const struct fref_chain *chain, clx_border border, const clx_image *img, clx_region src,
                clx_region dst, double *out)
{
    size_t n = (size_t)src.w * src.h;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (int y = 0; y < src.h; y++)
        for (int x = 0; x < src.w; x++)
            a[(size_t)y * src.w + x] = pixel(img, src.x + x, src.y + y);
    for (int s = 0; s < chain->nstages; s++) {
        stage_apply(&chain->stages[s], border, a, src.w, src.h, b);
        double *t = a;
        a = b;
        b = t;
    }
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int inside = x >= dst.x && x < dst.x + dst.w && y >= dst.y && y < dst.y + dst.h;
            out[(size_t)y * img->width + x] =
                inside ? a[(size_t)(y - dst.y) * src.w + (x - dst.x)] : pixel(img, x, y);
        }
    free(a);
    free(b);
}
