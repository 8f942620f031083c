/* plot_numbers.h - round numbers for the pictures' scales and axes. */
#ifndef CLX_PLOT_NUMBERS_H
#define CLX_PLOT_NUMBERS_H

#include <stddef.h>

/* The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is
 * >= x (x > 0); 1 for x <= 0 or not finite. */
double nice_ceil(double x);

/* The largest of those round values that is <= x (x > 0); 1 for x <= 0 or
 * not finite. */
double nice_floor(double x);

/* A step of 1, 2 or 5 times a power of ten giving about `count` intervals
 * over `range`. */
double nice_step(double range, int count);

/* Writes v with enough decimals to tell apart values `step` apart, and no
 * "-0". */
void format_number(char *out, size_t len, double v, double step);

/* format_number with a true minus sign (U+2212) for a negative value, as
 * typeset numbers have it: a tick label. */
void format_tick(char *out, size_t len, double v, double step);

/*
 * The power of ten that tick labels read better in, when the largest tick
 * (in size) is below 0.01 or at least 10^4: the exponent of that tick, so
 * that -0.0010, -0.0005, ... read -1.0, -0.5, ... times 10^-3. 0 for ticks
 * that read well as they are, and for none (largest 0).
 */
int tick_exponent(double largest);

/* "×10⁻³" for exponent -3 (UTF-8, superscript digits); "" for 0. */
void format_power(char *out, size_t len, int exponent);

#endif
