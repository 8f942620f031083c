/*
 * loader.c - clxcorr-loader: how fast loader threads turn image files into
 * staged pixels, as `clxcorr offsets` does in its load callback, with the
 * files in the page cache (each is read once before timing).
 *
 *   old: clx_image_load into a fresh image, then clx_image_copy_to into the
 *        thread's staging buffer (what the loaders did);
 *   new: clx_image_load_into straight into the staging buffer.
 *
 * The staging buffers are allocated and touched before timing, as the
 * stream's pinned ones are. Thread t loads images t, t + T, ...; each
 * figure is the median of --repeat runs, old and new taking turns so that
 * a busy machine hurts both alike. Uses the public API only.
 *
 *   clxcorr-loader [--threads T[,T...]] [--images N] [--repeat R]
 *                  [--count C] [FILE...]
 *
 * Without FILEs it writes C (default 64) 900x900 16-bit TIFF files into a
 * temporary directory (under $TMPDIR) and removes them afterwards.
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

struct job {
    char **paths;
    size_t npaths, images;
    int threads, index, use_new;
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
    for (size_t i = (size_t)j->index; i < j->images && !j->failed; i += (size_t)j->threads, j->loaded++) {
        const char *path = j->paths[i % j->npaths];
        int status = j->use_new ? clx_image_load_into(path, 0, &j->staged, &j->msg)
                                : load_old(path, &j->staged, &j->msg);
        j->failed = status != CLX_OK;
    }
    j->seconds = now() - start;
    return NULL;
}

/* One timed run: images/s overall, and ms per image per thread (mean over the threads). */
static int run_once(struct job *jobs, int threads, int use_new, double *rate, double *ms_per_image)
{
    pthread_t tid[MAX_THREADS];
    double start = now();
    for (int t = 0; t < threads; t++) {
        jobs[t].threads = threads;
        jobs[t].index = t;
        jobs[t].use_new = use_new;
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

/* A smooth pattern with noise, different in every file, like a camera's. */
static int files_write(const char *dir, int count, char **paths)
{
    clx_image img;
    clx_message msg;
    if (clx_image_alloc(&img, SIDE, SIDE, CLX_PIXEL_U16, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
        return -1;
    }
    uint32_t seed = 12345;
    uint16_t *p = img.pixels;
    for (int k = 0; k < count; k++) {
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++) {
                seed = seed * 1664525u + 1013904223u;
                p[(size_t)y * SIDE + x] = (uint16_t)(20000 + 50 * ((x + 3 * k) % 97) + 40 * (y % 89) + (seed >> 24));
            }
        char path[4200];
        snprintf(path, sizeof path, "%s/image_%04d.tif", dir, k);
        clx_tiff_writer *w;
        int status = clx_tiff_writer_open(path, 0, &w, &msg);
        if (status == CLX_OK) {
            status = clx_tiff_writer_page(w, &img, NULL, &msg);
            int closed = clx_tiff_writer_close(w, status == CLX_OK, status == CLX_OK ? &msg : NULL);
            status = status == CLX_OK ? closed : status;
        }
        if (status != CLX_OK || !(paths[k] = strdup(path))) {
            fprintf(stderr, "clxcorr-loader: %s\n", status != CLX_OK ? msg.text : "out of memory");
            clx_image_free(&img);
            return -1;
        }
    }
    clx_image_free(&img);
    return 0;
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

/* The new path must stage exactly what the old one did. */
static int paths_agree(const char *path, const clx_image *like)
{
    clx_image a = *like, b = *like;
    size_t bytes = (size_t)like->width * like->height * clx_pixel_size(like->type);
    clx_message msg;
    a.pixels = malloc(bytes);
    b.pixels = malloc(bytes);
    int same = a.pixels && b.pixels && load_old(path, &a, &msg) == CLX_OK
               && clx_image_load_into(path, 0, &b, &msg) == CLX_OK && memcmp(a.pixels, b.pixels, bytes) == 0;
    if (!same)
        fprintf(stderr, "clxcorr-loader: %s: the old and new paths disagree (%s)\n", path, msg.text);
    free(a.pixels);
    free(b.pixels);
    return same ? 0 : -1;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "threads", required_argument, NULL, 'j' }, { "images", required_argument, NULL, 'n' },
        { "repeat", required_argument, NULL, 'r' }, { "count", required_argument, NULL, 'c' },
        { NULL, 0, NULL, 0 }
    };
    const char *thread_list = "1,2";
    long images = 2000;
    int repeat = 5, count = 64, c;
    while ((c = getopt_long(argc, argv, "j:n:r:c:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': thread_list = optarg; break;
        case 'n': images = atol(optarg); break;
        case 'r': repeat = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: clxcorr-loader [--threads T[,T...]] [--images N] [--repeat R] [--count C] "
                            "[FILE...]\n");
            return 2;
        }
    }
    if (images < 1 || repeat < 1 || repeat > MAX_REPEAT || count < 1) {
        fprintf(stderr, "clxcorr-loader: --images, --repeat (up to %d) and --count must be positive\n", MAX_REPEAT);
        return 2;
    }

    char dir[1024] = "";
    size_t npaths = argc > optind ? (size_t)(argc - optind) : (size_t)count;
    char **paths = calloc(npaths, sizeof *paths);
    int status = paths ? 0 : -1;
    if (status == 0 && argc > optind) {
        for (size_t i = 0; i < npaths && status == 0; i++)
            status = (paths[i] = strdup(argv[optind + (int)i])) ? 0 : -1;
    } else if (status == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/clxcorr-loader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        status = mkdtemp(dir) ? files_write(dir, count, paths) : -1;
        if (status == 0)
            printf("wrote %d files of %dx%d 16-bit pixels into %s\n", count, SIDE, SIDE, dir);
    }

    /* Staged as the stream stages: 16-bit, or float for float files. */
    clx_image first = { 0 };
    clx_message msg;
    if (status == 0 && clx_image_load(paths[0], 0, &first, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
        status = -1;
    }
    clx_image like = { first.width, first.height, first.type == CLX_PIXEL_F32 ? CLX_PIXEL_F32 : CLX_PIXEL_U16,
                       NULL };
    clx_image_free(&first);
    if (status == 0)
        status = files_warm(paths, npaths);
    if (status == 0)
        status = paths_agree(paths[0], &like);

    struct job jobs[MAX_THREADS];
    memset(jobs, 0, sizeof jobs);
    if (status == 0)
        printf("%zu files, %ld images per run, median of %d runs; %ld online CPUs\n", npaths, images, repeat,
               sysconf(_SC_NPROCESSORS_ONLN));
    for (const char *t = thread_list; status == 0 && *t;) {
        char *end;
        long threads = strtol(t, &end, 10);
        if (end == t || threads < 1 || threads > MAX_THREADS) {
            fprintf(stderr, "clxcorr-loader: bad thread count in \"%s\"\n", thread_list);
            status = -1;
            break;
        }
        t = *end == ',' ? end + 1 : end;
        for (int k = 0; k < threads && status == 0; k++) {
            jobs[k].paths = paths;
            jobs[k].npaths = npaths;
            jobs[k].images = (size_t)images;
            if (clx_image_alloc(&jobs[k].staged, like.width, like.height, like.type, &msg) != CLX_OK) {
                fprintf(stderr, "clxcorr-loader: %s\n", msg.text);
                status = -1;
            } else {
                memset(jobs[k].staged.pixels, 0, (size_t)like.width * like.height * clx_pixel_size(like.type));
            }
        }
        double rate[2][MAX_REPEAT], ms[2][MAX_REPEAT];
        /* One untimed run of each first: threads, allocator and caches settle. */
        for (int r = -1; r < repeat && status == 0; r++)
            for (int use_new = 0; use_new < 2 && status == 0; use_new++) {
                double x = 0, y = 0;
                status = run_once(jobs, (int)threads, use_new, &x, &y);
                if (r >= 0) {
                    rate[use_new][r] = x;
                    ms[use_new][r] = y;
                }
            }
        for (int use_new = 0; use_new < 2 && status == 0; use_new++)
            printf("%-3s %3ld thread%s %8.3f ms/image/thread %9.0f images/s\n", use_new ? "new" : "old", threads,
                   threads == 1 ? " " : "s", median(ms[use_new], repeat), median(rate[use_new], repeat));
        for (int k = 0; k < threads; k++)
            clx_image_free(&jobs[k].staged);
    }

    for (size_t i = 0; paths && i < npaths; i++) {
        if (dir[0] && paths[i])
            remove(paths[i]);
        free(paths[i]);
    }
    free(paths);
    if (dir[0])
        rmdir(dir);
    return status == 0 ? 0 : 1;
}
