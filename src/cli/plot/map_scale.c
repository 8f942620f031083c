/* map_scale.c - a column's unit and colour scale (see map_scale.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "plot/map_scale.h"

int map_column_angle(const char *column)
{
    /* The rotation vector's components, and the refined orientation's Euler angles. */
    if (column[0] == 'w' && column[1] >= '1' && column[1] <= '3' && column[2] == '\0')
        return 1;
    return !strcmp(column, "phi1") || !strcmp(column, "Phi") || !strcmp(column, "phi2");
}

double map_column_factor(const char *column, int radians)
{
    return map_column_angle(column) && !radians ? 180 / M_PI : 1;
}

const char *map_column_unit(const char *column, int radians)
{
    if (!strcmp(column, "dx") || !strcmp(column, "dy") || !strcmp(column, "x") || !strcmp(column, "y") ||
        !strcmp(column, "speed") || !strcmp(column, "sigma_dx") || !strcmp(column, "sigma_dy"))
        return "px";
    if (!strcmp(column, "scan_x") || !strcmp(column, "scan_y"))
        return "\xc2\xb5m";
    if (map_column_angle(column))
        return radians ? "rad" : "\xc2\xb0";
    /* clxcorr gnd's: Nye's tensor in 1/µm, the total density in 1/m^2. */
    if (!strncmp(column, "alpha", 5) && column[5] >= '1' && column[5] <= '3' && column[6] >= '1' && column[6] <= '3' &&
        column[7] == '\0')
        return "\xc2\xb5m\xe2\x81\xbb\xc2\xb9";
    if (!strcmp(column, "rho_gnd"))
        return "m\xe2\x81\xbb\xc2\xb2";
    return "";
}

/* Quantities signed by their nature, whatever the values of one picture:
 * the offsets, their gradients and strains (dudx ... dvdy, exx, eyy, exy),
 * the strain tensor's components e11 ... e33 and the rotations. */
static int column_signed(const char *column)
{
    static const char *const offsets[] = { "dx", "dy", "dudx", "dudy", "dvdx", "dvdy", "exx", "eyy", "exy" };
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        if (!strcmp(column, offsets[i]))
            return 1;
    if (column[0] == 'e' && column[1] >= '1' && column[1] <= '3' && column[2] >= '1' && column[2] <= '3' &&
        column[3] == '\0')
        return 1;
    return column[0] == 'w' && column[1] >= '1' && column[1] <= '3' && column[2] == '\0';
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..1) of n sorted values: the smallest
 * value with at least p n values at or below it. With fewer than 100
 * values the 1st and 99th are the extremes, so that a small map is not
 * clipped. */
static double percentile(const double *sorted, size_t n, double p)
{
    double rank = ceil(p * n - 1e-9);
    size_t i = rank < 1 ? 0 : (size_t)rank - 1;
    return sorted[i < n ? i : n - 1];
}

/* Limits from the values (sorted, n > 0): robust, symmetric when diverging,
 * and never empty. */
static void automatic_limits(const double *sorted, size_t n, struct map_scale *s)
{
    s->lo = percentile(sorted, n, 0.01);
    s->hi = percentile(sorted, n, 0.99);
    if (s->diverging) {
        double reach = fmax(fabs(s->lo), fabs(s->hi));
        s->lo = -reach;
        s->hi = reach;
    }
    if (!(s->hi > s->lo)) {
        /* One value everywhere: a band around it (around 0, of +-1). */
        double half = fabs(s->hi) > 0 ? 0.1 * fabs(s->hi) : 1;
        s->lo -= half;
        s->hi += half;
    }
}

int map_scale_choose(const double *values, size_t count, const struct map_scale_options *o, struct map_scale *s)
{
    double *sorted = malloc((count ? count : 1) * sizeof *sorted);
    size_t n = 0;
    memset(s, 0, sizeof *s);
    if (!sorted)
        return CLX_ERR_HOST_MEMORY;
    for (size_t i = 0; i < count; i++)
        if (isfinite(values[i]))
            sorted[n++] = values[i];
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    int both_signs = n > 0 && sorted[0] < 0 && sorted[n - 1] > 0;
    s->diverging = o->kind == MAP_SCALE_DIVERGING ||
                   (o->kind == MAP_SCALE_AUTO && (column_signed(o->column) || both_signs));
    if (o->fixed) {
        s->fixed = 1;
        s->lo = o->lo;
        s->hi = o->hi;
    } else if (n > 0) {
        automatic_limits(sorted, n, s);
    } else {
        s->lo = s->diverging ? -1 : 0;
        s->hi = 1;
    }
    /* Infinities (peak_ratio's inf) take no part in the limits, but lie
     * beyond them: their end's colour, and its triangle on the bar. */
    for (size_t i = 0; i < count; i++) {
        s->below += !isnan(values[i]) && values[i] < s->lo;
        s->above += !isnan(values[i]) && values[i] > s->hi;
    }
    free(sorted);
    return CLX_OK;
}

struct rgb map_colour(const struct map_scale *s, double v)
{
    if (isnan(v))
        return MAP_NO_VALUE;
    double t = (v - s->lo) / (s->hi - s->lo);
    return s->diverging ? diverging_colour(t) : colour_scale(t);
}
