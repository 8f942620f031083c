/* plot_numbers.c - round numbers for scales and axes (see plot_numbers.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot/plot_numbers.h"

/* The round mantissas of nice_ceil and nice_floor: steps of at most 1.5x. */
static const double mantissas[] = { 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
#define MANTISSAS (sizeof mantissas / sizeof mantissas[0])

double nice_ceil(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1;
    double power = pow(10, floor(log10(x)));
    for (size_t i = 0; i < MANTISSAS; i++)
        /* A little slack, so that 2.0000000001 stays 2. */
        if (mantissas[i] * power >= x * (1 - 1e-9))
            return mantissas[i] * power;
    return 10 * power;
}

double nice_floor(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1;
    double power = pow(10, floor(log10(x)));
    for (size_t i = MANTISSAS; i-- > 0;)
        if (mantissas[i] * power <= x * (1 + 1e-9))
            return mantissas[i] * power;
    return power;
}

double nice_step(double range, int count)
{
    if (!(range > 0) || !isfinite(range) || count < 1)
        return 1;
    double raw = range / count, power = pow(10, floor(log10(raw)));
    double m = raw / power;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * power;
}

void format_number(char *out, size_t len, double v, double step)
{
    int decimals = 0;
    if (step > 0 && isfinite(step)) {
        /* Enough for the step itself: 0.25 needs 2, 0.5 needs 1, 20 none. */
        while (decimals < 6 && fabs(step * pow(10, decimals) - round(step * pow(10, decimals))) > 1e-6)
            decimals++;
    }
    if (fabs(v) < step * 1e-6)
        v = 0;
    snprintf(out, len, "%.*f", decimals, v);
}

void format_tick(char *out, size_t len, double v, double step)
{
    char plain[64];
    format_number(plain, sizeof plain, v, step);
    snprintf(out, len, "%s%s", plain[0] == '-' ? "\xe2\x88\x92" : "", plain[0] == '-' ? plain + 1 : plain);
}

int tick_exponent(double largest)
{
    largest = fabs(largest);
    if (!(largest > 0) || !isfinite(largest) || (largest >= 0.01 && largest < 1e4))
        return 0;
    /* A little slack, so that 0.001 computed as 0.000999... is 10^-3. */
    return (int)floor(log10(largest) + 1e-9);
}

void format_power(char *out, size_t len, int exponent)
{
    /* U+2070, U+00B9, U+00B2, U+00B3, U+2074 ... U+2079; U+207B the minus. */
    static const char *const digits[10] = { "\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3", "\xe2\x81\xb4",
                                            "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9" };
    char number[16], power[64] = "";
    if (exponent == 0) {
        snprintf(out, len, "%s", "");
        return;
    }
    snprintf(number, sizeof number, "%d", exponent < 0 ? -exponent : exponent);
    if (exponent < 0)
        strcat(power, "\xe2\x81\xbb");
    for (const char *d = number; *d; d++)
        strcat(power, digits[*d - '0']);
    /* "\xc3\x97" is U+00D7, the multiplication sign. */
    snprintf(out, len, "\xc3\x97" "10%s", power);
}
