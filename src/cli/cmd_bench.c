/*
 * cmd_bench.c - `clxcorr bench`: the standard workloads on one or every
 * device, for comparing devices and vendors.
 *
 * For each device, workload and mode:
 *   from memory  synthetic images decoded once, streamed through
 *                clx_stream_run as `offsets` streams files (loaders copy into
 *                pinned memory, lanes overlap transfers and kernels); the
 *                clock starts when the plans are ready
 *   from files   the same images written as TIFF files once and read back
 *                (from the page cache) by the loaders
 *   stages       a separate run on a profiling context, one batch at a time
 *                so that stages do not overlap: the device time of each stage
 *                per batch from OpenCL profiling events, and the bytes it
 *                must move, hence its bandwidth
 *   peaks        pinned upload and device copy bandwidth, measured once per
 *                device (OpenCL does not report a device's peak)
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "output/bench_report.h"
#include "report.h"
#include "workloads.h"

#define DEFAULT_IMAGES 16
#define DEFAULT_FILES 64
#define MAX_ROWS 256
#define STAGE_BATCHES 4

_Static_assert(sizeof ((struct bench_stage *)0)->name == sizeof ((clx_stage_time *)0)->name,
               "stage names are copied whole");

static const char bench_help[] =
    "Usage: clxcorr bench [OPTIONS]\n"
    "\n"
    "Run the standard workloads on one device or on every device and report\n"
    "images per second from memory and from files, the device time of each\n"
    "pipeline stage, and the achieved bus and memory bandwidth next to the\n"
    "device's measured peaks. The images are synthetic (a texture moved by known\n"
    "sub-pixel offsets), so the benchmark needs no data and runs the same\n"
    "shapes everywhere.\n"
    "\n"
    "Workloads:\n"
    "  ebsd-900  900x900 16-bit, 50 windows of 100x100 (EBSD patterns)\n"
    "  mid-512   512x512 16-bit, 36 windows of 64x64\n"
    "  piv-32    1024x1024 16-bit, 63x63 windows of 32x32 overlapping by half (PIV)\n"
    "\n"
    "Options:\n"
    "  -d, --device SPEC    a device as for offsets, or 'all': every device that can\n"
    "                       run clxcorr, one after the other (default: the default\n"
    "                       device)\n"
    "      --workload LIST  comma-separated workload names (default: all three)\n"
    "      --mode M         seed, accurate or both (default both)\n"
    "      --seconds S      stream each figure for about S seconds (default 2)\n"
    "  -n, --images N       distinct images in memory per workload (default 16)\n"
    "      --files N        TIFF files for the from-files figure (default 64;\n"
    "                       0: no from-files figure)\n"
    "      --dir DIR        where the files are written (default: $TMPDIR or /tmp);\n"
    "                       they are removed at the end\n"
    "  -j, --threads N      loader threads (default: one per core, at most 32)\n"
    "      --lanes N        batches at work on a device at once, as offsets takes\n"
    "                       it (default: 3 on GPUs)\n"
    "      --param K=V,...  kernel parameters for every plan, as offsets takes them\n"
    "                       (an unknown KEY lists the known ones), to time variants\n"
    "  -o, --output PREFIX  also write PREFIX.json, PREFIX.csv and PREFIX.svg (a\n"
    "                       chart comparing the devices)\n"
    "  -v, --verbose        library detail too\n"
    "  -q, --quiet          the table only, no progress lines\n"
    "  -h, --help           this help\n"
    "\n"
    "Stage times come from a separate run that pushes one batch at a time on a\n"
    "profiling queue; the images/s figures come from the overlapped pipeline.\n";

struct bench_args {
    struct device_options device;  /* --device: one, or 'all', one after the other */
    struct output_options out;     /* -o PREFIX */
    const char *workloads;
    int seed, accurate;
    double seconds;
    int nimages, nfiles, loaders;
    int lanes;                     /* --lanes: 0 for the stream's default */
    const char *dir;
    const char *params;            /* --param KEY=VALUE,...: every plan's kernel parameters */
};

/* bench's --mode is its own: it takes "both" too. */
enum { OPT_WORKLOAD = OPT_OWN, OPT_BENCH_MODE, OPT_SECONDS, OPT_FILES, OPT_DIR, OPT_BENCH_LANES };

static const struct option bench_table[] = {
    OPTION_DEVICE,
    { "workload", required_argument, NULL, OPT_WORKLOAD },
    { "mode", required_argument, NULL, OPT_BENCH_MODE },
    { "seconds", required_argument, NULL, OPT_SECONDS },
    { "images", required_argument, NULL, 'n' },
    { "files", required_argument, NULL, OPT_FILES },
    { "dir", required_argument, NULL, OPT_DIR },
    { "threads", required_argument, NULL, 'j' },
    { "lanes", required_argument, NULL, OPT_BENCH_LANES },
    OPTION_PARAM,
    OPTION_OUTPUT,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

static int parse_bench_mode(const char *text, struct bench_args *a)
{
    a->seed = strcmp(text, "seed") == 0 || strcmp(text, "both") == 0;
    a->accurate = strcmp(text, "accurate") == 0 || strcmp(text, "both") == 0;
    if (!a->seed && !a->accurate) {
        report_error("--mode: unknown mode '%s' (seed, accurate or both)", text);
        return -1;
    }
    return 0;
}

static int bench_take(void *own, int c, const char *value)
{
    struct bench_args *a = own;
    switch (c) {
    case OPT_WORKLOAD:
        a->workloads = value;
        return 1;
    case OPT_BENCH_MODE: return option_taken(parse_bench_mode(value, a));
    case OPT_SECONDS: return option_taken(parse_double(value, "--seconds", 0.01, 3600, &a->seconds));
    case 'n': return option_taken(parse_int(value, "--images", 1, 1024, &a->nimages));
    case OPT_FILES: return option_taken(parse_int(value, "--files", 0, 100000, &a->nfiles));
    case OPT_DIR:
        a->dir = value;
        return 1;
    case 'j': return option_taken(parse_int(value, "--threads", 1, 32, &a->loaders));
    case OPT_BENCH_LANES: return option_taken(parse_int(value, "--lanes", 1, 16, &a->lanes));
    case OPT_PARAM:
        a->params = value;
        return 1;
    }
    return 0;
}

static const struct command_options bench_options = { "bench", bench_help, bench_table, bench_take };

/* --workload's names are known ones. */
static int workloads_check(const char *list)
{
    for (const char *s = list; s && *s;) {
        size_t n = strcspn(s, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), s);
        if (!workload_named(name)) {
            report_error("--workload: unknown workload '%s' (ebsd-900, mid-512 or piv-32)", name);
            return -1;
        }
        s += n + (s[n] == ',');
    }
    return 0;
}

/* Returns -1 after reporting a usage error, 1 after --help, 0 to run. */
static int parse_args(int argc, char **argv, struct bench_args *a)
{
    const struct option_values values = { .device = &a->device, .output = &a->out, .own = a };
    int parsed = options_parse(&bench_options, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    if (optind < argc) {
        report_error("bench takes no arguments ('%s'); its images are synthetic (see clxcorr bench --help)",
                     argv[optind]);
        return -1;
    }
    return workloads_check(a->workloads);
}

static int workload_selected(const struct bench_args *a, const char *name)
{
    if (!a->workloads)
        return 1;
    size_t len = strlen(name);
    for (const char *s = a->workloads; *s;) {
        size_t n = strcspn(s, ",");
        if (n == len && strncmp(s, name, n) == 0)
            return 1;
        s += n + (s[n] == ',');
    }
    return 0;
}

/* ---- one workload's data ------------------------------------------------- */

struct data {
    const struct workload *w;
    clx_image reference;
    clx_image *images;
    size_t nimages;
    clx_region *regions;
    size_t nregions;
    char **files;              /* written TIFF files, NULL when --files 0 */
    size_t nfiles;
};

static void data_free(struct data *d)
{
    for (size_t i = 0; d->files && i < d->nfiles; i++) {
        if (d->files[i])
            unlink(d->files[i]);
        free(d->files[i]);
    }
    free(d->files);
    for (size_t i = 0; d->images && i < d->nimages; i++)
        clx_image_free(&d->images[i]);
    free(d->images);
    clx_image_free(&d->reference);
    free(d->regions);
    memset(d, 0, sizeof *d);
}

/* Writes the images as files dir/clxcorr-bench-PID-NAME-K.tif, cycling through them. */
static int write_files(struct data *d, const char *dir, size_t nfiles)
{
    clx_message msg;
    d->files = calloc(nfiles, sizeof *d->files);
    if (!d->files)
        return -1;
    d->nfiles = nfiles;
    for (size_t k = 0; k < nfiles; k++) {
        char path[PATH_MAX];
        clx_tiff_writer *tw;
        snprintf(path, sizeof path, "%s/clxcorr-bench-%ld-%s-%zu.tif", dir, (long)getpid(), d->w->name, k);
        if (!(d->files[k] = strdup(path)))
            return -1;
        if (clx_tiff_writer_open(path, 0, &tw, &msg) != CLX_OK ||
            clx_tiff_writer_page(tw, &d->images[k % d->nimages], NULL, &msg) != CLX_OK ||
            clx_tiff_writer_close(tw, 1, &msg) != CLX_OK) {
            report_error("%s", msg.text);
            return -1;
        }
    }
    return 0;
}

static int data_make(struct data *d, const struct workload *w, const struct bench_args *a, const char *dir)
{
    clx_message msg;
    memset(d, 0, sizeof *d);
    d->w = w;
    d->nimages = (size_t)a->nimages;
    d->images = calloc(d->nimages, sizeof *d->images);
    if (!d->images) {
        report_error("out of memory");
        return -1;
    }
    if (workload_regions(w, &d->regions, &d->nregions, &msg) != CLX_OK ||
        workload_images(w, d->nimages, 1, &d->reference, d->images, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return a->nfiles > 0 ? write_files(d, dir, (size_t)a->nfiles) : 0;
}

/* ---- streaming ----------------------------------------------------------- */

#define MAX_ROW_RUNS 64

struct run {
    const struct data *d;
    int from_files;
    double start;
    int batch, lanes;
    char method[16], fft[16];
    /* The rows the plan reads, which the loaders read or copy, as
     * `offsets` reads them (rows NULL: every row). */
    clx_rows row_runs[MAX_ROW_RUNS], *rows;
    size_t nrows;
};

static int load(void *user, size_t i, clx_image *staged, clx_message *msg)
{
    struct run *r = user;
    if (r->from_files)
        return clx_image_load_rows_into(r->d->files[i % r->d->nfiles], 0, staged, r->rows, r->nrows, msg);
    return clx_image_copy_rows_to(&r->d->images[i % r->d->nimages], staged, r->rows, r->nrows, msg);
}

static int deliver(void *user, size_t i, const clx_result *results, size_t n, clx_message *msg)
{
    return CLX_OK;
}

static int started(void *user, const clx_stream_info *info, clx_message *msg)
{
    struct run *r = user;
    const clx_plan *plan = info->plan;
    r->batch = clx_plan_batch_size(plan);
    r->lanes = info->lanes;
    snprintf(r->method, sizeof r->method, "%s", clx_method_name(clx_plan_method(plan)));
    snprintf(r->fft, sizeof r->fft, "%s", clx_plan_fft(plan));
    r->nrows = clx_plan_rows_read(plan, r->row_runs, MAX_ROW_RUNS);
    r->rows = r->nrows <= MAX_ROW_RUNS ? r->row_runs : NULL;
    r->start = now_seconds();
    return CLX_OK;
}

/* Streams `count` images; *rate in images/s from when the plans were ready. */
static int stream(clx_context *ctx, const struct data *d, const clx_plan_options *po, const struct bench_args *a,
                  int from_files, size_t count, struct run *r, double *rate)
{
    clx_stream_options so;
    clx_stream_options_init(&so);
    so.loaders = a->loaders;
    so.lanes = a->lanes;
    so.started = started;
    memset(r, 0, sizeof *r);
    r->d = d;
    r->from_files = from_files;
    if (clx_stream_run(ctx, &d->reference, d->regions, d->nregions, po, &so, count, load, deliver, r, NULL) !=
        CLX_OK)
        return -1;
    double t = now_seconds() - r->start;
    *rate = t > 0 ? count / t : 0;
    return 0;
}

/*
 * Streams for about `seconds`: a run too short to fill the pipeline says
 * little, so the count grows from a guess until a run lasts at least half
 * of `seconds`, and that run is the figure. At least four batches per lane,
 * and never the first run: some drivers (PoCL) compile a kernel for its
 * work-group shape at its first launch, inside the first run's clock.
 */
static int stream_for(clx_context *ctx, const struct data *d, const clx_plan_options *po, const struct bench_args *a,
                      int from_files, double seconds, struct run *r, double *rate, size_t *count)
{
    size_t n = d->nimages * 4;
    for (int run = 0;; run++) {
        if (stream(ctx, d, po, a, from_files, n, r, rate) != 0)
            return -1;
        double t = *rate > 0 ? n / *rate : 0;
        size_t least = (size_t)4 * r->batch * (r->lanes > 0 ? r->lanes : 1);
        if (run > 0 && n >= least && (t >= 0.5 * seconds || n >= ((size_t)1 << 24)))
            break;
        double want = *rate * seconds * 1.1;
        n = want > (double)least ? (size_t)want : least > 2 * n ? least : 2 * n;
    }
    *count = n;
    return 0;
}

/* ---- stage times --------------------------------------------------------- */

/* One batch at a time on the profiling context: device time per stage and batch. */
static int stage_times(clx_context *pctx, const struct data *d, const clx_plan_options *po, struct bench_row *row)
{
    clx_plan *plan = NULL;
    clx_result *results = NULL;
    clx_image *batch = NULL;
    clx_stage_time times[BENCH_MAX_STAGES];
    size_t ntimes = 0;
    int status = clx_plan_create(pctx, &d->reference, d->regions, d->nregions, po, &plan);
    if (status != CLX_OK)
        goto done;
    size_t b = (size_t)clx_plan_batch_size(plan);
    results = malloc(sizeof *results * b * d->nregions);
    batch = malloc(sizeof *batch * b);
    if (!results || !batch) {
        status = CLX_ERR_HOST_MEMORY;
        goto done;
    }
    for (size_t i = 0; i < b; i++)
        batch[i] = d->images[i % d->nimages];
    /* Batch 0 warms up (kernels, FFT library caches). */
    for (int k = 0; k <= STAGE_BATCHES && status == CLX_OK; k++) {
        if (k == 1)
            clx_context_stage_times_reset(pctx);
        status = clx_plan_push(plan, batch, b);
        if (status == CLX_OK)
            status = clx_plan_read(plan, results, b * d->nregions);
    }
    if (status == CLX_OK)
        status = clx_context_stage_times(pctx, times, BENCH_MAX_STAGES, &ntimes);
    for (size_t i = 0; status == CLX_OK && i < ntimes; i++) {
        struct bench_stage *s = &row->stages[row->nstages++];
        memcpy(s->name, times[i].name, sizeof s->name);   /* both 32 bytes, NUL-terminated */
        s->ms_per_batch = times[i].ms / STAGE_BATCHES;
        s->bytes_per_batch = times[i].bytes / STAGE_BATCHES;
        if (strcmp(times[i].name, "upload") == 0 && times[i].ms > 0)
            row->bus_gbs = times[i].bytes / times[i].ms * 1e-6;
    }
done:
    if (status != CLX_OK)
        snprintf(row->error, sizeof row->error, "stage times: %s", clx_context_message(pctx));
    free(results);
    free(batch);
    clx_plan_release(plan);
    return status == CLX_OK ? 0 : -1;
}

/* ---- one device ---------------------------------------------------------- */

static void row_init(struct bench_row *row, const clx_device_info *dev, const struct data *d, clx_mode mode)
{
    memset(row, 0, sizeof *row);
    snprintf(row->device, sizeof row->device, "%s", dev->name);
    snprintf(row->vendor, sizeof row->vendor, "%s", dev->vendor);
    snprintf(row->driver, sizeof row->driver, "%s", dev->driver_version);
    snprintf(row->platform, sizeof row->platform, "%s", dev->platform_name);
    snprintf(row->workload, sizeof row->workload, "%s", d->w->name);
    snprintf(row->description, sizeof row->description, "%s", d->w->description);
    snprintf(row->mode, sizeof row->mode, "%s", clx_mode_name(mode));
    row->image_w = d->w->image_w;
    row->image_h = d->w->image_h;
    row->win_w = d->w->win_w;
    row->win_h = d->w->win_h;
    row->nwin = (int)d->nregions;
    row->memory_rate = row->files_rate = row->bus_gbs = row->bus_peak_gbs = row->memory_peak_gbs = -1;
}

static void measure_row(clx_context *ctx, clx_context *pctx, const struct data *d, clx_mode mode,
                        const struct bench_args *a, struct bench_row *row)
{
    clx_plan_options po;
    struct run r;
    double rate;
    clx_plan_options_init(&po);
    po.mode = mode;
    po.params = a->params;

    size_t count;
    if (stream_for(ctx, d, &po, a, 0, a->seconds, &r, &rate, &count) != 0) {
        snprintf(row->error, sizeof row->error, "%s", clx_context_message(ctx));
        return;
    }
    row->memory_rate = rate;
    row->memory_images = count;
    row->batch = r.batch;
    row->lanes = r.lanes;
    row->loaders = a->loaders;
    snprintf(row->method, sizeof row->method, "%s", r.method);
    snprintf(row->fft, sizeof row->fft, "%s", r.fft);
    report_note("  %-8s %-8s from memory: %.1f images/s over %zu images", d->w->name, row->mode, rate, count);

    if (d->nfiles > 0) {
        if (stream(ctx, d, &po, a, 1, count, &r, &rate) != 0) {
            snprintf(row->error, sizeof row->error, "from files: %s", clx_context_message(ctx));
            return;
        }
        row->files_rate = rate;
        row->files_images = count;
        report_note("  %-8s %-8s from files:  %.1f images/s (%.0f%% of from memory)", d->w->name, row->mode, rate,
                    100.0 * rate / row->memory_rate);
    }
    stage_times(pctx, d, &po, row);
}

/* Every workload and mode on the device `spec`; rows appended to rows[*n]. */
static void bench_device(const char *spec, struct data *data, size_t ndata, const struct bench_args *a,
                         struct bench_row *rows, size_t *n)
{
    clx_context *ctx = NULL, *pctx = NULL;
    clx_context_options copt;
    clx_message msg;
    double bus = -1, memory = -1;

    clx_context_options_init(&copt);
    copt.device = spec;
    copt.log = report_library_log;
    /* No status line: the table goes to the same terminal. */
    copt.log_level = report_library_level(0);
    if (clx_context_open(&copt, &ctx, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return;
    }
    copt.profile = 1;
    if (clx_context_open(&copt, &pctx, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        clx_context_release(ctx);
        return;
    }
    const clx_device_info *dev = clx_context_device(ctx);
    report_note("%s (%s, driver %s):", dev->name, dev->platform_name, dev->driver_version);
    if (clx_context_bandwidth(pctx, &bus, &memory) != CLX_OK) {
        report_warning("%s: no bandwidth peaks: %s", dev->name, clx_context_message(pctx));
        bus = memory = -1;
    } else {
        report_note("  peaks: %.1f GB/s pinned upload, %.1f GB/s device copy", bus, memory);
    }
    for (size_t k = 0; k < ndata; k++)
        for (int m = 0; m < 2 && *n < MAX_ROWS; m++) {
            clx_mode mode = m == 0 ? CLX_MODE_SEED : CLX_MODE_ACCURATE;
            if (!(m == 0 ? a->seed : a->accurate))
                continue;
            struct bench_row *row = &rows[(*n)++];
            row_init(row, dev, &data[k], mode);
            row->bus_peak_gbs = bus;
            row->memory_peak_gbs = memory;
            measure_row(ctx, pctx, &data[k], mode, a, row);
            if (row->error[0])
                report_warning("%s %s on %s: %s", data[k].w->name, row->mode, dev->name, row->error);
        }
    clx_context_release(pctx);
    clx_context_release(ctx);
}

/* ---- output -------------------------------------------------------------- */

static void print_table(const struct bench_row *rows, size_t n)
{
    printf("%-28s %-9s %-8s %-6s %-5s %5s %12s %12s %6s %14s\n", "device", "workload", "mode", "method", "fft",
           "batch", "memory img/s", "files img/s", "files%", "bus GB/s (pk)");
    for (size_t i = 0; i < n; i++) {
        const struct bench_row *r = &rows[i];
        if (r->error[0] && r->memory_rate < 0) {
            printf("%-28.28s %-9s %-8s failed: %s\n", r->device, r->workload, r->mode, r->error);
            continue;
        }
        char files[32] = "-", share[16] = "-", bus[32] = "-";
        if (r->files_rate >= 0) {
            snprintf(files, sizeof files, "%.1f", r->files_rate);
            snprintf(share, sizeof share, "%.0f%%", 100.0 * r->files_rate / r->memory_rate);
        }
        if (r->bus_gbs >= 0)
            snprintf(bus, sizeof bus, "%.1f (%.1f)", r->bus_gbs, r->bus_peak_gbs);
        printf("%-28.28s %-9s %-8s %-6s %-5s %5d %12.1f %12s %6s %14s\n", r->device, r->workload, r->mode, r->method,
               r->fft[0] ? r->fft : "-", r->batch, r->memory_rate, files, share, bus);
        if (r->nstages > 0) {
            printf("    ms per batch:");
            for (int s = 0; s < r->nstages; s++) {
                const struct bench_stage *st = &r->stages[s];
                printf(" %s %.3f", st->name, st->ms_per_batch);
                if (st->bytes_per_batch > 0 && st->ms_per_batch > 0)
                    printf(" (%.0f GB/s)", st->bytes_per_batch / st->ms_per_batch * 1e-6);
                printf("%s", s + 1 < r->nstages ? "," : "\n");
            }
        }
    }
}

static int write_outputs(const char *prefix, const struct bench_meta *meta, const struct bench_row *rows, size_t n)
{
    static const char *const ext[] = { "json", "csv", "svg" };
    for (int k = 0; k < 3; k++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s.%s", prefix, ext[k]);
        /* Made in memory, then written whole through clx_output. */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f) {
            report_error("cannot write %s: out of memory", path);
            return -1;
        }
        int bad = k == 0   ? bench_write_json(f, meta, rows, n)
                  : k == 1 ? bench_write_csv(f, rows, n)
                           : bench_write_svg(f, meta, rows, n);
        bad |= fclose(f) != 0;
        clx_message msg = { "out of memory" };
        bad = bad || clx_output_write_file(path, text, len, &msg) != CLX_OK;
        free(text);
        if (bad) {
            report_error("cannot write %s: %s", path, msg.text);
            return -1;
        }
        report_note("wrote %s", path);
    }
    return 0;
}

/* The data first: the same images for every device. */
static int data_make_all(const struct bench_args *a, const char *dir, struct data *data, size_t *ndata)
{
    for (const struct workload *w = standard_workloads; w->name; w++) {
        if (!workload_selected(a, w->name))
            continue;
        report_note("workload %s: %s; %d images%s", w->name, w->description, a->nimages,
                    a->nfiles ? ", written as TIFF files too" : "");
        if (data_make(&data[(*ndata)++], w, a, dir) != 0)
            return -1;
    }
    return 0;
}

/* --device all: every device that can run clxcorr, one after the other;
 * otherwise the one device. Returns -1 when the devices cannot be listed. */
static int bench_devices(const struct bench_args *a, struct data *data, size_t ndata, struct bench_row *rows,
                         size_t *nrows)
{
    clx_device_info *devices = NULL;
    size_t ndevices = 0;
    clx_message msg;
    if (!a->device.spec || strcmp(a->device.spec, "all") != 0) {
        bench_device(a->device.spec, data, ndata, a, rows, nrows);
        return 0;
    }
    if (clx_devices_list(&devices, &ndevices, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    for (size_t i = 0; i < ndevices; i++) {
        char spec[32];
        if (!devices[i].available || !devices[i].compiler_available) {
            report_warning("skipping %s: not available or no compiler", devices[i].name);
            continue;
        }
        snprintf(spec, sizeof spec, "%d:%d", devices[i].platform_index, devices[i].device_index);
        bench_device(spec, data, ndata, a, rows, nrows);
    }
    free(devices);
    return 0;
}

/* "clxcorr bench ...", for repeating the run. */
static void command_text(int argc, char **argv, char *buf, size_t len)
{
    snprintf(buf, len, "clxcorr");
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " %s", argv[i]);
    }
}

int cmd_bench(int argc, char **argv)
{
    struct bench_args a = {
        .seed = 1, .accurate = 1, .seconds = 2.0, .nimages = DEFAULT_IMAGES, .nfiles = DEFAULT_FILES
    };
    struct data data[8];
    size_t ndata = 0, nrows = 0;
    struct bench_row *rows = NULL;
    int status = EXIT_FAILURE_RUN;

    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0)
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    if (a.loaders == 0) {
        clx_stream_options defaults;
        clx_stream_options_init(&defaults);
        a.loaders = defaults.loaders;
    }
    const char *dir = a.dir ? a.dir : getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    rows = calloc(MAX_ROWS, sizeof *rows);
    if (!rows) {
        report_error("out of memory");
        return EXIT_FAILURE_RUN;
    }
    if (data_make_all(&a, dir, data, &ndata) != 0)
        goto done;
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
    if (bench_devices(&a, data, ndata, rows, &nrows) != 0)
        goto done;
    if (nrows == 0) {
        report_error("no device could be benchmarked");
        goto done;
    }
    print_table(rows, nrows);

    char host[256] = "", command[1024];
    gethostname(host, sizeof host - 1);
    command_text(argc, argv, command, sizeof command);
    struct bench_meta meta = { clx_version(), when, host, command };
    if (a.out.path && write_outputs(a.out.path, &meta, rows, nrows) != 0)
        goto done;
    status = EXIT_OK;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].error[0])
            status = EXIT_FAILURE_RUN;

done:
    for (size_t k = 0; k < ndata; k++)
        data_free(&data[k]);
    free(rows);
    return status;
}
