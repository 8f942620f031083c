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

#endif
