/* sample_files.h - how clxcorr-samples writes: one line on stderr per
 * problem, directories, 16-bit TIFFs and text files, each written under a
 * temporary name and renamed, so that an interrupted run leaves no
 * truncated file under a final name. */
#ifndef CLX_SAMPLES_FILES_H
#define CLX_SAMPLES_FILES_H

#include <stdint.h>
#include <stdio.h>

#define PROG "clxcorr-samples"
#define PATH_BYTES 4096

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* One line on stderr, prefixed with the program's name. */
void report(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* libtiff's messages into the next report instead of onto stderr. */
void tiff_handlers_install(void);

int path_join(char *out, const char *dir, const char *name, const char *suffix);
/* mkdir -p. */
int directory_make(const char *dir);

/* Row j of an image in counts (before noise and rounding): width values into out. */
typedef void (*sample_row_fn)(void *user, int j, double *out);

/*
 * Writes dir/name, a 16-bit TIFF of width x height whose rows `row` gives,
 * plus Gaussian noise of `noise` counts from the noise stream of
 * file_index, rounded to the nearest count (values outside [0, 65535]
 * clamped, with a warning that counts them).
 */
int tiff_image_write(const char *dir, const char *name, int width, int height, sample_row_fn row, void *user,
                     double noise, uint64_t seed, int file_index);

/* dir/name opened as dir/name.tmp (tmp and final: PATH_BYTES each), and
 * renamed dir/name when committed whole. */
FILE *text_create(const char *dir, const char *name, char *tmp, char *final);
int text_commit(FILE *f, const char *tmp, const char *final);

/* Keeps "-0.000000" out of %.6f columns. */
double tidy(double v);

#endif
