/*
 * ref_main.c - clxcorr-ref: the host reference (host_ref.c) run on image
 * files, printing the same CSV as `clxcorr offsets`, so that shell tests can
 * compare the two.
 *
 *   clxcorr-ref [--fit-size F] [--max-shift R] [--estimator E] --regions FILE REFERENCE IMAGE...
 *   clxcorr-ref [--fit-size F] [--max-shift R] [--estimator E] --grid NXxNY --window WxH [--margin M] REFERENCE IMAGE...
 *   clxcorr-ref --surface R (--regions FILE | --grid ...) REFERENCE IMAGE...
 *
 * Files and windows are read with the library's public loaders; everything
 * after that is host_ref.c. Rows are printed only once every image has been
 * processed, so that an error leaves standard output empty. --surface
 * prints the correlation surfaces `clxcorr correlate --max-shift R` writes
 * instead (page,ux,uy,c: page = image x windows + window, in order).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "host_ref.h"

#define PROG "clxcorr-ref"

/* Windows larger than this in either dimension are correlated through the FFT. */
#define DIRECT_MAX_SIDE 24

typedef struct row {
    char *image;        /* as printed: the argument, with "#page" for multi-page files */
    size_t region;
    clx_result result;
} row;

typedef struct rows {
    row *items;
    size_t count, capacity;
    /* --surface R: (2rx+1) x (2ry+1) values per page (rx = min(R, w - 1),
     * ry = min(R, h - 1)), pages in image-then-window order */
    int surface, rx, ry;
    double *values;
    size_t pages;
} rows;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " [--fit-size F] --regions FILE REFERENCE IMAGE...\n"
            "       " PROG " [--fit-size F] --grid NXxNY --window WxH [--margin M] REFERENCE IMAGE...\n"
            "\n"
            "The double-precision host reference of `clxcorr offsets --mode seed`: prints\n"
            "image,region,x,y,dx,dy,peak,flags for every image and window.\n"
            "\n"
            "  --fit-size F     the F x F values the estimator sees (odd, >= 3; default 5)\n"
            "  --estimator E    lsq (the F x F least-squares fit, default), gauss3,\n"
            "                   parabola3 or centroid (as clxcorr offsets --estimator)\n"
            "  --max-shift R    search only |dx|, |dy| <= R (default: every shift)\n"
            "  --surface R      print the correlation C(ux, uy) for |ux|, |uy| <= R (at most\n"
            "                   the window's largest shifts) instead: page,ux,uy,c per\n"
            "                   value (clxcorr correlate's pages)\n"
            "  --regions FILE   windows, one \"x y w h\" per line\n"
            "  --grid NXxNY     a regular grid of NX x NY windows ...\n"
            "  --window WxH     ... of W x H pixels ...\n"
            "  --margin M       ... keeping M pixels free on every side (default 0)\n");
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry '" PROG " --help'.\n", stderr);
    va_end(ap);
    return 2;
}

static int parse_int(const char *s, int *value)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < INT_MIN || v > INT_MAX)
        return -1;
    *value = (int)v;
    return 0;
}

/* "AxB" with positive A and B. */
static int parse_pair(const char *s, int *a, int *b)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || (*end != 'x' && *end != 'X'))
        return -1;
    const char *second = end + 1;
    long y = strtol(second, &end, 10);
    if (errno || end == second || *end || x < 1 || y < 1 || x > INT_MAX || y > INT_MAX)
        return -1;
    *a = (int)x;
    *b = (int)y;
    return 0;
}

static char *image_name(const char *path, int page, int pages)
{
    size_t n = strlen(path) + 16;
    char *name = malloc(n);
    if (name == NULL)
        return NULL;
    /* The page suffix is 0-based, like clx_image_file_read's page index. */
    if (pages > 1)
        snprintf(name, n, "%s#%d", path, page);
    else
        snprintf(name, n, "%s", path);
    return name;
}

static int rows_add(rows *list, char *image, size_t region, const clx_result *result)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 256;
        row *items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return -1;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count].image = image;
    list->items[list->count].region = region;
    list->items[list->count].result = *result;
    list->count++;
    return 0;
}

static void rows_free(rows *list)
{
    free(list->items);
    free(list->values);
    list->items = NULL;
    list->values = NULL;
    list->count = list->capacity = list->pages = 0;
}

/* One page of --surface R appended (2R+1)^2 values. */
static int surface_add(rows *list, const clx_image *reference, const clx_image *image, const clx_region *r,
                       int use_fft)
{
    list->rx = list->surface < r->w - 1 ? list->surface : r->w - 1;
    list->ry = list->surface < r->h - 1 ? list->surface : r->h - 1;
    size_t n = (size_t)(2 * list->rx + 1) * (2 * list->ry + 1);
    double *grown = realloc(list->values, (list->pages + 1) * n * sizeof *grown);
    if (grown == NULL) {
        fail("out of memory");
        return -1;
    }
    list->values = grown;
    href_surface(reference, image, r, use_fft, list->rx, list->ry, grown + list->pages * n);
    list->pages++;
    return 0;
}

/* Every page of one image file against the reference; rows appended, names into *names. */
static int process_file(const char *path, const clx_image *reference, const clx_region *regions,
                        size_t count, int fit_size, int max_shift, clx_estimator estimator, rows *out,
                        char ***names, size_t *name_count)
{
    clx_message msg;
    clx_image_file *file;
    if (clx_image_file_open(path, &file, &msg) != CLX_OK) {
        fail("%s", msg.text);
        return -1;
    }
    int pages = clx_image_file_pages(file);
    int use_fft = regions[0].w > DIRECT_MAX_SIDE || regions[0].h > DIRECT_MAX_SIDE;

    for (int page = 0; page < pages; page++) {
        clx_image image;
        if (clx_image_file_read(file, page, &image, &msg) != CLX_OK) {
            fail("%s", msg.text);
            clx_image_file_close(file);
            return -1;
        }
        if (image.width != reference->width || image.height != reference->height) {
            fail("%s: the image is %dx%d, the reference %dx%d", path, image.width, image.height,
                 reference->width, reference->height);
            clx_image_free(&image);
            clx_image_file_close(file);
            return -1;
        }
        char *name = image_name(path, page, pages);
        char **grown = name ? realloc(*names, (*name_count + 1) * sizeof **names) : NULL;
        if (grown == NULL) {
            free(name);
            fail("out of memory");
            clx_image_free(&image);
            clx_image_file_close(file);
            return -1;
        }
        *names = grown;
        (*names)[(*name_count)++] = name;

        for (size_t k = 0; k < count; k++) {
            if (out->surface) {
                if (surface_add(out, reference, &image, &regions[k], use_fft) != 0) {
                    clx_image_free(&image);
                    clx_image_file_close(file);
                    return -1;
                }
                continue;
            }
            clx_result result;
            href_offset_estimator(reference, &image, &regions[k], fit_size, use_fft, max_shift, estimator, &result);
            if (rows_add(out, name, k, &result) != 0) {
                fail("out of memory");
                clx_image_free(&image);
                clx_image_file_close(file);
                return -1;
            }
        }
        clx_image_free(&image);
    }
    clx_image_file_close(file);
    return 0;
}

static int print_rows(const rows *list, const clx_region *regions)
{
    if (list->surface) {
        int side = 2 * list->rx + 1, n = side * (2 * list->ry + 1);
        printf("page,ux,uy,c\n");
        for (size_t p = 0; p < list->pages; p++)
            for (int i = 0; i < n; i++)
                printf("%zu,%d,%d,%.17g\n", p, i % side - list->rx, i / side - list->ry, list->values[p * (size_t)n + i]);
    } else {
        printf("image,region,x,y,dx,dy,peak,flags\n");
    }
    for (size_t i = 0; i < list->count; i++) {
        const row *r = &list->items[i];
        const clx_region *g = &regions[r->region];
        printf("%s,%zu,%.1f,%.1f,%.6f,%.6f,%.9g,%u\n", r->image, r->region,
               g->x + (g->w - 1) / 2.0, g->y + (g->h - 1) / 2.0, r->result.dx, r->result.dy,
               r->result.peak, r->result.flags);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fail("writing standard output: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_FIT_SIZE = 256, OPT_MAX_SHIFT, OPT_REGIONS, OPT_GRID, OPT_WINDOW, OPT_MARGIN, OPT_ESTIMATOR,
           OPT_SURFACE, OPT_HELP };
    static const struct option options[] = {
        { "fit-size", required_argument, NULL, OPT_FIT_SIZE },
        { "estimator", required_argument, NULL, OPT_ESTIMATOR },
        { "surface", required_argument, NULL, OPT_SURFACE },
        { "max-shift", required_argument, NULL, OPT_MAX_SHIFT },
        { "regions", required_argument, NULL, OPT_REGIONS },
        { "grid", required_argument, NULL, OPT_GRID },
        { "window", required_argument, NULL, OPT_WINDOW },
        { "margin", required_argument, NULL, OPT_MARGIN },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    int fit_size = 5, max_shift = 0, margin = 0, have_grid = 0, have_window = 0, have_margin = 0;
    int nx = 0, ny = 0, ww = 0, wh = 0, surface = 0;
    clx_estimator estimator = CLX_ESTIMATOR_LSQ;
    const char *regions_path = NULL;

    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case OPT_FIT_SIZE:
            if (parse_int(optarg, &fit_size) != 0 || fit_size < 3 || fit_size % 2 == 0)
                return usage_error("--fit-size: '%s' is not an odd integer >= 3", optarg);
            break;
        case OPT_MAX_SHIFT:
            if (parse_int(optarg, &max_shift) != 0 || max_shift < 1)
                return usage_error("--max-shift: '%s' is not a positive integer", optarg);
            break;
        case OPT_ESTIMATOR:
            if (strcmp(optarg, "lsq") == 0)
                estimator = CLX_ESTIMATOR_LSQ;
            else if (strcmp(optarg, "gauss3") == 0)
                estimator = CLX_ESTIMATOR_GAUSS3;
            else if (strcmp(optarg, "parabola3") == 0)
                estimator = CLX_ESTIMATOR_PARABOLA3;
            else if (strcmp(optarg, "centroid") == 0)
                estimator = CLX_ESTIMATOR_CENTROID;
            else
                return usage_error("--estimator: '%s' is not lsq, gauss3, parabola3 or centroid", optarg);
            break;
        case OPT_SURFACE:
            if (parse_int(optarg, &surface) != 0 || surface < 1)
                return usage_error("--surface: '%s' is not a positive integer", optarg);
            break;
        case OPT_REGIONS:
            regions_path = optarg;
            break;
        case OPT_GRID:
            if (parse_pair(optarg, &nx, &ny) != 0)
                return usage_error("--grid: '%s' is not NXxNY (e.g. 5x4)", optarg);
            have_grid = 1;
            break;
        case OPT_WINDOW:
            if (parse_pair(optarg, &ww, &wh) != 0)
                return usage_error("--window: '%s' is not WxH (e.g. 64x64)", optarg);
            have_window = 1;
            break;
        case OPT_MARGIN:
            if (parse_int(optarg, &margin) != 0 || margin < 0)
                return usage_error("--margin: '%s' is not a non-negative integer", optarg);
            have_margin = 1;
            break;
        case OPT_HELP:
            usage(stdout);
            return 0;
        default:
            /* getopt_long has said what is wrong */
            fputs("Try '" PROG " --help'.\n", stderr);
            return 2;
        }
    }

    if (regions_path && (have_grid || have_window || have_margin))
        return usage_error("--regions cannot be combined with --grid, --window or --margin");
    if (!regions_path && !have_grid)
        return usage_error("give the windows with --regions FILE or --grid NXxNY --window WxH");
    if (have_grid != have_window)
        return usage_error("--grid and --window go together");
    if (argc - optind < 2)
        return usage_error("give a reference image and at least one image");

    clx_message msg;
    const char *reference_path = argv[optind];
    clx_image reference;
    if (clx_image_load(reference_path, 0, &reference, &msg) != CLX_OK) {
        fail("%s", msg.text);
        return 1;
    }

    clx_region *regions = NULL;
    size_t count = 0;
    int rc = regions_path
                 ? clx_regions_read(regions_path, &regions, &count, &msg)
                 : clx_regions_grid(nx, ny, ww, wh, margin, reference.width, reference.height,
                                    &regions, &count, &msg);
    if (rc == CLX_OK && count == 0) {
        rc = CLX_ERR_REGION;
        snprintf(msg.text, sizeof msg.text, "no windows given");
    }
    if (rc == CLX_OK)
        rc = clx_regions_check(regions, count, reference.width, reference.height, &msg);
    if (rc != CLX_OK) {
        fail("%s", msg.text);
        free(regions);
        clx_image_free(&reference);
        return 1;
    }

    rows list = { NULL, 0, 0, surface, 0, 0, NULL, 0 };
    char **names = NULL;
    size_t name_count = 0;
    int status = 0;
    for (int i = optind + 1; i < argc && status == 0; i++)
        if (process_file(argv[i], &reference, regions, count, fit_size, max_shift, estimator, &list, &names,
                         &name_count) != 0)
            status = 1;
    if (status == 0 && print_rows(&list, regions) != 0)
        status = 1;

    rows_free(&list);
    for (size_t i = 0; i < name_count; i++)
        free(names[i]);
    free(names);
    free(regions);
    clx_image_free(&reference);
    return status;
}
