/* sample_files.c - messages, directories, TIFFs and text files (sample_files.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <tiffio.h>

#include "sample_files.h"
#include "sample_rng.h"

#define ROWS_PER_STRIP 16

void report(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* libtiff's own handlers print as they go; keep the last error so that it ends
 * up in our one line instead. */
static char tiff_message[256];

static void tiff_error(const char *module, const char *fmt, va_list ap)
{
    (void)module;
    vsnprintf(tiff_message, sizeof tiff_message, fmt, ap);
}

void tiff_handlers_install(void)
{
    TIFFSetErrorHandler(tiff_error);
    TIFFSetWarningHandler(NULL);
}

int path_join(char *out, const char *dir, const char *name, const char *suffix)
{
    int len = snprintf(out, PATH_BYTES, "%s/%s%s", dir, name, suffix);
    if (len < 0 || len >= PATH_BYTES) {
        report("path too long: %s/%s", dir, name);
        return -1;
    }
    return 0;
}

int directory_make(const char *dir)
{
    char path[PATH_BYTES];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path) {
        report("--out: bad directory name '%s'", dir);
        return -1;
    }
    memcpy(path, dir, len + 1);
    for (size_t k = 1; k <= len; k++) {
        if (path[k] != '/' && path[k] != '\0')
            continue;
        char keep = path[k];
        path[k] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            report("cannot create directory %s: %s", path, strerror(errno));
            return -1;
        }
        path[k] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        report("%s is not a directory", dir);
        return -1;
    }
    return 0;
}

static int file_commit(const char *tmp, const char *final)
{
    if (rename(tmp, final) != 0) {
        report("cannot rename %s to %s: %s", tmp, final, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static TIFF *tiff_create(const char *path, int width, int height)
{
    TIFF *tif = TIFFOpen(path, "w");
    if (!tif)
        return NULL;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)ROWS_PER_STRIP);
    return tif;
}

/* Rounds to the nearest count after the noise; counts what had to be clamped. */
static void row_quantize(const double *row, int n, double noise, gauss_t *g, uint16_t *out, long *clipped)
{
    for (int c = 0; c < n; c++) {
        double v = row[c];
        if (noise > 0.0)
            v += noise * gauss_next(g);
        if (v < 0.0 || v > 65535.0) {
            ++*clipped;
            v = v < 0.0 ? 0.0 : 65535.0;
        }
        out[c] = (uint16_t)floor(v + 0.5);
    }
}

static int tiff_rows_write(TIFF *tif, int width, int height, sample_row_fn row_of, void *user, double noise,
                           gauss_t *g, long *clipped)
{
    double *row = malloc(sizeof(double) * width);
    uint16_t *pixels = malloc(sizeof(uint16_t) * width);
    int status = 0;
    if (!row || !pixels) {
        strcpy(tiff_message, "out of memory");
        status = -1;
    }
    for (int j = 0; j < height && status == 0; j++) {
        row_of(user, j, row);
        row_quantize(row, width, noise, g, pixels, clipped);
        if (TIFFWriteScanline(tif, pixels, (uint32_t)j, 0) < 0)
            status = -1;
    }
    if (status == 0 && TIFFFlush(tif) != 1)
        status = -1;
    free(row);
    free(pixels);
    return status;
}

int tiff_image_write(const char *dir, const char *name, int width, int height, sample_row_fn row, void *user,
                     double noise, uint64_t seed, int file_index)
{
    char final[PATH_BYTES], tmp[PATH_BYTES];
    if (path_join(final, dir, name, "") != 0 || path_join(tmp, dir, name, ".tmp") != 0)
        return -1;
    gauss_t g = { .has_spare = 0 };
    rng_seed(&g.rng, seed, STREAM_NOISE, (uint64_t)file_index);
    long clipped = 0;
    TIFF *tif = tiff_create(tmp, width, height);
    if (!tif) {
        report("cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    tiff_message[0] = '\0';
    int status = tiff_rows_write(tif, width, height, row, user, noise, &g, &clipped);
    TIFFClose(tif);
    if (status != 0) {
        report("cannot write %s: %s", tmp, tiff_message[0] ? tiff_message : "write failed");
        remove(tmp);
        return -1;
    }
    if (clipped > 0)
        report("warning: %s: %ld of %ld pixels clipped to [0, 65535]", name, clipped, (long)width * height);
    return file_commit(tmp, final);
}

FILE *text_create(const char *dir, const char *name, char *tmp, char *final)
{
    if (path_join(final, dir, name, "") != 0 || path_join(tmp, dir, name, ".tmp") != 0)
        return NULL;
    FILE *f = fopen(tmp, "w");
    if (!f)
        report("cannot write %s: %s", tmp, strerror(errno));
    return f;
}

int text_commit(FILE *f, const char *tmp, const char *final)
{
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        report("cannot write %s: %s", tmp, strerror(errno));
        remove(tmp);
        return -1;
    }
    return file_commit(tmp, final);
}

double tidy(double v)
{
    return fabs(v) < 5e-7 ? 0.0 : v;
}
