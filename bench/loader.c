/*
 * loader.c - clxcorr-loader: how fast loader threads turn image files into
 * staged pixels, as `clxcorr offsets` does in its load callback, with the
 * files in the page cache (each is read once before timing).
 *
 *   old:  clx_image_load into a fresh image, then clx_image_copy_to into the
 *         thread's staging buffer (what the loaders did);
 *   new:  clx_image_load_into straight into the staging buffer;
 *   file: clx_image_file_read_into from one pattern file (EDAX UP2, .ebsp,
 *         NORDIF, h5ebsd ...) that every thread reads at once, opened
 *         once, as the loaders read a scan of patterns.
 *
 * The staging buffers are allocated and touched before timing, as the
 * stream's pinned ones are. Thread t loads images t, t + T, ...; each
 * figure is the median of --repeat runs, the ways taking turns so that a
 * busy machine hurts them alike. Uses the public API only.
 *
 *   clxcorr-loader [--threads T[,T...]] [--images N] [--repeat R]
 *                  [--count C] [--up2] [--pattern-file P] [FILE...]
 *
 * Without FILEs it writes C (default 64) 900x900 16-bit TIFF files into a
 * temporary directory (under $TMPDIR) and removes them afterwards; with
 * --up2, the same patterns also as one EDAX UP2 file there, which the
 * "file" way reads, so that it and the TIFF ways read the same pixels.
 * --pattern-file P is the file the "file" way reads instead (its patterns
 * must have the images' size); with --count 0 and no FILEs, that way runs
 * alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clxcorr.h"

#define SIDE 900
#define MAX_THREADS 256
#define MAX_REPEAT 99

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The ways of loading that are timed. */
enum way { WAY_OLD, WAY_NEW, WAY_FILE, WAYS };
static const char *const way_names[WAYS] = { "old", "new", "file" };

struct job {
    char **paths;
    size_t npaths, images;
    clx_image_file *file;   /* WAY_FILE: the pattern file all threads read */
    int threads, index;
    enum way way;
    clx_image staged;
    double seconds;      /* this thread's time */
    size_t loaded;
    int failed;
    clx_message msg;
};

static int load_old(const char *path, clx_image *staged, clx_message *msg)
{
    clx_image img;
    int status = clx_image_load(path, 0, &img, msg);
    if (status == CLX_OK)
        status = clx_image_copy_to(&img, staged, msg);
    clx_image_free(&img);
    return status;
}

static void *job_run(void *arg)
{
    struct job *j = arg;
    double start = now();
    j->loaded = 0;
    int pages = j->file ? clx_image_file_pages(j->file) : 0;
    for (size_t i = (size_t)j->index; i < j->images && !j->failed; i += (size_t)j->threads, j->loaded++) {
        int status;
        if (j->way == WAY_FILE)
            status = clx_image_file_read_into(j->file, (int)(i % (size_t)pages), &j->staged, &j->msg);
        else if (j->way == WAY_NEW)
            status = clx_image_load_into(j->paths[i % j->npaths], 0, &j->staged, &j->msg);
        else
            status = load_old(j->paths[i % j->npaths], &j->staged, &j->msg);
        j->failed = status != CLX_OK;
    }
    j->seconds = now() - start;
    return NULL;
}

/* One timed run: images/s overall, and ms per image per thread (mean over the threads). */
static int run_once(struct job *jobs, int threads, enum way way, double *rate, double *ms_per_image)
{
    pthread_t tid[MAX_THREADS];
    double start = now();
    for (int t = 0; t < threads; t++) {
        jobs[t].threads = threads;
        jobs[t].index = t;
        jobs[t].way = way;
        jobs[t].failed = 0;
        if (pthread_create(&tid[t], NULL, job_run, &jobs[t]) != 0) {
            fprintf(stderr, "clxcorr-loader: cannot start thread %d\n", t);
            return -1;
        }
    }
    size_t total = 0;
    double per_image = 0;
    int failed = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        if (jobs[t].failed && !failed++)
            fprintf(stderr, "clxcorr-loader: %s\n", jobs[t].msg.text);
        total += jobs[t].loaded;
        per_image += jobs[t].loaded ? jobs[t].seconds / (double)jobs[t].loaded : 0;
    }
    double wall = now() - start;
    *rate = total / wall;
    *ms_per_image = 1e3 * per_image / threads;
    return failed ? -1 : 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Appends an EDAX UP2 header (version 3) for `count` patterns in one row. */
static int up2_header(FILE *f, int count)
{
    unsigned char h[42] = { 0 };
    uint32_t fields[4] = { 3, SIDE, SIDE, sizeof h };
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 4; b++)
            h[4 * i + b] = (unsigned char)(fields[i] >> (8 * b));
    for (int b = 0; b < 4; b++)
        h[17 + b] = (unsigned char)((uint32_t)count >> (8 * b));   /* columns; rows (21) = 1 */
    h[21] = 1;
    h[32] = 0xf0, h[33] = 0x3f, h[40] = 0xf0, h[41] = 0x3f;       /* steps 1.0 (little-endian doubles) */
    return fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : -1;
}

/* Appends the pixels of img, little-endian. */
static int up2_pattern(FILE *f, const clx_image *img)
{
    const uint16_t *p = img->pixels;
    unsigned char row[2 * SIDE];
    for (int y = 0; y < SIDE; y++) {
        for (int x = 0; x < SIDE; x++) {
            row[2 * x] = (unsigned char)(p[(size_t)y * SIDE + x] & 0xff);
            row[2 * x + 1] = (unsigned char)(p[(size_t)y * SIDE + x] >> 8);
        }
        if (fwrite(row, 1, sizeof row, f) != sizeof row)
            return -1;
    }
    return 0;
}

static int tiff_write(const char *path, const clx_image *img, clx_message *msg)
{
    clx_tiff_writer *w;
    int status = clx_tiff_writer_open(path, 0, &w, msg);
    if (status == CLX_OK) {
        status = clx_tiff_writer_page(w, img, NULL, msg);
        int closed = clx_tiff_writer_close(w, status == CLX_OK, status == CLX_OK ? msg : NULL);
        status = status == CLX_OK ? closed : status;
    }
    return status;
}

/*
 * A smooth pattern with noise, different in every file, like a camera's:
 * `count` TIFF files, and where up2 is given the same patterns in that one
 * UP2 file.
 */
static int files_write(const char *dir, int count, char **paths, FILE *up2)
{
    clx_image img;
    clx_message msg;
    if (clx_image_alloc(&img, SIDE, SIDE, CLX_PIXEL_U16, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
        return -1;
    }
    uint32_t seed = 12345;
    uint16_t *p = img.pixels;
    int status = up2 ? up2_header(up2, count) : 0;
    for (int k = 0; k < count && status == 0; k++) {
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++) {
                seed = seed * 1664525u + 1013904223u;
                p[(size_t)y * SIDE + x] = (uint16_t)(20000 + 50 * ((x + 3 * k) % 97) + 40 * (y % 89) + (seed >> 24));
            }
        char path[4200];
        snprintf(path, sizeof path, "%s/image_%04d.tif", dir, k);
        if (tiff_write(path, &img, &msg) != CLX_OK) {
            fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
            status = -1;
        } else if (!(paths[k] = strdup(path))) {
            fprintf(stderr, "clxcorr-loader: out of memory\n");
            status = -1;
        } else if (up2 && up2_pattern(up2, &img) != 0) {
            fprintf(stderr, "clxcorr-loader: cannot write the UP2 file\n");
            status = -1;
        }
    }
    clx_image_free(&img);
    return status;
}

/* Reads every file once, so that the runs find them in the page cache. */
static int files_warm(char **paths, size_t n)
{
    static char buf[1 << 16];
    for (size_t i = 0; i < n; i++) {
        int fd = open(paths[i], O_RDONLY);
        if (fd < 0) {
            perror(paths[i]);
            return -1;
        }
        while (read(fd, buf, sizeof buf) > 0)
            ;
        close(fd);
    }
    return 0;
}

/* The new path must stage exactly what the old one did, and the pattern file's page k what file k holds. */
static int paths_agree(char **paths, size_t npaths, clx_image_file *file, const clx_image *like)
{
    clx_image a = *like, b = *like;
    size_t bytes = (size_t)like->width * like->height * clx_pixel_size(like->type);
    clx_message msg;
    msg.text[0] = '\0';
    a.pixels = malloc(bytes);
    b.pixels = malloc(bytes);
    int same = a.pixels && b.pixels;
    const char *what = "the old and new paths";
    if (same && npaths > 0)
        same = load_old(paths[0], &a, &msg) == CLX_OK && clx_image_load_into(paths[0], 0, &b, &msg) == CLX_OK &&
               memcmp(a.pixels, b.pixels, bytes) == 0;
    /* Only where the pattern file holds the images (--up2): the last of them, for the offsets. */
    if (same && file && npaths > 0 && (size_t)clx_image_file_pages(file) == npaths) {
        int last = (int)npaths - 1;
        what = "the pattern file and the image files";
        same = load_old(paths[last], &a, &msg) == CLX_OK && clx_image_file_read_into(file, last, &b, &msg) == CLX_OK &&
               memcmp(a.pixels, b.pixels, bytes) == 0;
    }
    if (!same)
        fprintf(stderr, "clxcorr-loader: %s disagree (%s)\n", what, msg.text);
    free(a.pixels);
    free(b.pixels);
    return same ? 0 : -1;
}

/* The staging buffers' size and type: the first image's or the pattern file's, 16-bit or float as the stream stages. */
static int staging_like(char **paths, size_t npaths, clx_image_file *file, clx_image *like)
{
    clx_image first = { 0 };
    clx_message msg;
    int status = npaths ? clx_image_load(paths[0], 0, &first, &msg) : clx_image_file_read(file, 0, &first, &msg);
    if (status != CLX_OK) {
        fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
        return -1;
    }
    *like = (clx_image){ first.width, first.height, first.type == CLX_PIXEL_F32 ? CLX_PIXEL_F32 : CLX_PIXEL_U16,
                         NULL };
    clx_image_free(&first);
    if (file && npaths) {
        clx_image page = { 0 };
        status = clx_image_file_read(file, 0, &page, &msg);
        if (status == CLX_OK && (page.width != like->width || page.height != like->height)) {
            snprintf(msg.text, sizeof msg.text, "the pattern file's patterns are %dx%d, the images %dx%d",
                     page.width, page.height, like->width, like->height);
            status = CLX_ERR_SIZE;
        }
        clx_image_free(&page);
        if (status != CLX_OK) {
            fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
            return -1;
        }
    }
    return 0;
}

/* Times every way at one thread count: the medians of `repeat` runs, printed. */
static int threads_time(struct job *jobs, long threads, int repeat, const int *ways, const clx_image *like)
{
    clx_message msg;
    int status = 0;
    for (int k = 0; k < threads && status == 0; k++) {
        if (clx_image_alloc(&jobs[k].staged, like->width, like->height, like->type, &msg) != CLX_OK) {
            fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
            status = -1;
        } else {
            memset(jobs[k].staged.pixels, 0, (size_t)like->width * like->height * clx_pixel_size(like->type));
        }
    }
    double rate[WAYS][MAX_REPEAT], ms[WAYS][MAX_REPEAT];
    /* One untimed run of each first: threads, allocator and caches settle. */
    for (int r = -1; r < repeat && status == 0; r++)
        for (int way = 0; way < WAYS && status == 0; way++) {
            double x = 0, y = 0;
            if (!ways[way])
                continue;
            status = run_once(jobs, (int)threads, (enum way)way, &x, &y);
            if (r >= 0) {
                rate[way][r] = x;
                ms[way][r] = y;
            }
        }
    for (int way = 0; way < WAYS && status == 0; way++) {
        if (!ways[way])
            continue;
        double m = median(ms[way], repeat);
        printf("%-4s %3ld thread%s %8.3f ms/image/thread %7.0f images/s/thread %9.0f images/s\n", way_names[way],
               threads, threads == 1 ? " " : "s", m, 1e3 / m, median(rate[way], repeat));
    }
    for (int k = 0; k < threads; k++)
        clx_image_free(&jobs[k].staged);
    return status;
}

/* Times every way at each thread count of the list "1,2,4". */
static int thread_counts_time(const char *thread_list, char **paths, size_t npaths, clx_image_file *file,
                              size_t images, int repeat, const clx_image *like)
{
    static struct job jobs[MAX_THREADS];
    int ways[WAYS] = { npaths > 0, npaths > 0, file != NULL };
    for (int k = 0; k < MAX_THREADS; k++)
        jobs[k] = (struct job){ .paths = paths, .npaths = npaths, .images = images, .file = file };
    for (const char *t = thread_list; *t;) {
        char *end;
        long threads = strtol(t, &end, 10);
        if (end == t || threads < 1 || threads > MAX_THREADS) {
            fprintf(stderr, "clxcorr-loader: bad thread count in \"%s\"\n", thread_list);
            return -1;
        }
        t = *end == ',' ? end + 1 : end;
        if (threads_time(jobs, threads, repeat, ways, like) != 0)
            return -1;
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: clxcorr-loader [--threads T[,T...]] [--images N] [--repeat R] [--count C] [--up2] "
                    "[--pattern-file P] [FILE...]\n");
}

/* The image files: FILEs, or `count` written into a new directory `dir` (with `up2_path` beside them). */
static int inputs_make(int argc, char **argv, int count, char *dir, size_t dir_size, char *up2_path,
                       char ***paths, size_t *npaths)
{
    *npaths = argc > optind ? (size_t)(argc - optind) : (size_t)count;
    *paths = calloc(*npaths ? *npaths : 1, sizeof **paths);
    if (!*paths)
        return -1;
    if (argc > optind) {
        for (size_t i = 0; i < *npaths; i++)
            if (!((*paths)[i] = strdup(argv[optind + (int)i])))
                return -1;
        return 0;
    }
    if (count == 0 && !up2_path)
        return 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dir_size, "%s/clxcorr-loader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    FILE *up2 = NULL;
    if (up2_path) {
        snprintf(up2_path, 4200, "%s/patterns.up2", dir);
        if (!(up2 = fopen(up2_path, "wb")))
            return -1;
    }
    int status = files_write(dir, count, *paths, up2);
    if (up2 && fclose(up2) != 0)
        status = -1;
    if (status == 0)
        printf("wrote %d files of %dx%d 16-bit pixels%s into %s\n", count, SIDE, SIDE,
               up2_path ? ", and one UP2 file of them all," : "", dir);
    return status;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "threads", required_argument, NULL, 'j' }, { "images", required_argument, NULL, 'n' },
        { "repeat", required_argument, NULL, 'r' }, { "count", required_argument, NULL, 'c' },
        { "up2", no_argument, NULL, 'u' }, { "pattern-file", required_argument, NULL, 'p' },
        { NULL, 0, NULL, 0 }
    };
    const char *thread_list = "1,2", *pattern_file = NULL;
    long images = 2000;
    int repeat = 5, count = 64, write_up2 = 0, c;
    while ((c = getopt_long(argc, argv, "j:n:r:c:up:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': thread_list = optarg; break;
        case 'n': images = atol(optarg); break;
        case 'r': repeat = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'u': write_up2 = 1; break;
        case 'p': pattern_file = optarg; break;
        default: usage(); return 2;
        }
    }
    if (images < 1 || repeat < 1 || repeat > MAX_REPEAT || count < 0 || (count == 0 && !pattern_file) ||
        (write_up2 && (pattern_file || argc > optind || count == 0))) {
        fprintf(stderr, "clxcorr-loader: --images, --repeat (up to %d) and --count must be positive (--count 0 "
                        "only with --pattern-file); --up2 writes its own files, without --pattern-file or FILEs\n",
                MAX_REPEAT);
        return 2;
    }

    char dir[1024] = "", up2_path[4200] = "";
    char **paths = NULL;
    size_t npaths = 0;
    clx_image_file *file = NULL;
    clx_message msg;
    int status = inputs_make(argc, argv, count, dir, sizeof dir, write_up2 ? up2_path : NULL, &paths, &npaths);
    if (status != 0)
        fprintf(stderr, "clxcorr-loader: cannot make the input files\n");
    if (status == 0 && (pattern_file || write_up2)) {
        const char *p = pattern_file ? pattern_file : up2_path;
        if (clx_image_file_open(p, &file, &msg) != CLX_OK || !clx_image_file_shared(file)) {
            fprintf(stderr, "clxcorr-loader: %s\n", file ? "its reads cannot be shared between threads" : msg.text);
            status = -1;
        }
    }
    clx_image like;
    if (status == 0)
        status = staging_like(paths, npaths, file, &like);
    if (status == 0)
        status = files_warm(paths, npaths);
    char *pattern_path[1] = { pattern_file ? (char *)pattern_file : up2_path };
    if (status == 0 && file)
        status = files_warm(pattern_path, 1);
    if (status == 0)
        status = paths_agree(paths, npaths, file, &like);
    if (status == 0) {
        printf("%zu files%s, %ld images per run, median of %d runs; %ld online CPUs\n", npaths,
               file ? " and a pattern file" : "", images, repeat, sysconf(_SC_NPROCESSORS_ONLN));
        status = thread_counts_time(thread_list, paths, npaths, file, (size_t)images, repeat, &like);
    }

    clx_image_file_close(file);
    for (size_t i = 0; paths && i < npaths; i++) {
        if (dir[0] && paths[i])
            remove(paths[i]);
        free(paths[i]);
    }
    free(paths);
    if (up2_path[0])
        remove(up2_path);
    if (dir[0])
        rmdir(dir);
    return status == 0 ? 0 : 1;
}
