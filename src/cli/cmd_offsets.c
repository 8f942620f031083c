/*
 * cmd_offsets.c - `clxcorr offsets`: the main job. Reads the reference and
 * the windows, opens the device (or devices), then streams the images
 * through plans in batches and writes one CSV row per image and window, in
 * input order.
 *
 * The images of one process are the whole list, or with --shard K/N the
 * K-th of N runs of it; under mpirun each rank takes its chunks of those
 * (mpi_ranks.h) and rank 0 writes every rank's rows.
 */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_open.h"
#include "image_list.h"
#include "mpi_ranks.h"
#include "options.h"
#include "output/csv_output.h"
#include "output/resume.h"
#include "output/row_format.h"
#include "output/run_meta.h"
#include "plot/quiver.h"
#include "report.h"
#include "shard.h"

struct offsets_args {
    struct window_options win;
    struct image_options img;
    struct mode_options mode;
    struct device_options device;
    struct output_options out;   /* -o, --format, --columns */
    struct row_format format;    /* --format and --columns, resolved once the mode is known */
    const char *meta;            /* --meta FILE.json */
    int resume;                  /* --resume */
    int skip_bad;                /* --skip-bad */
    const char *quiver;          /* --quiver FILE.png */
    const char *shard_text;      /* --shard as given */
    int shard_index, shard_count;    /* --shard K/N; 0: the whole list */
    clx_stream_options stream;
    const char *reference;
};

static const char offsets_help[] =
    "Usage: clxcorr offsets [OPTIONS] REFERENCE IMAGE...\n"
    "       clxcorr offsets [OPTIONS] --list FILE REFERENCE [IMAGE...]\n"
    "\n"
    "Measure how windows of each IMAGE moved relative to the same windows of\n"
    "REFERENCE: one CSV row per image and window, in input order.\n"
    "\n"
    "Windows (either --regions or --grid with --window):\n"
    "  -r, --regions FILE   windows file: \"x y w h\" per line (top-left corner and\n"
    "                       size in pixels), '#' starts a comment; all one size\n"
    "  -g, --grid NXxNY     a grid of NX x NY windows spread evenly over the image\n"
    "  -w, --window WxH     the grid's window size\n"
    "  -m, --margin M       pixels the grid keeps free at every border (default 0)\n"
    "\n"
    "Images:\n"
    "  -l, --list FILE      also read image paths from FILE, one per line ('-' for\n"
    "                       standard input; blank lines and '#' lines are skipped)\n"
    "      --shard K/N      process only the K-th of N equal runs of consecutive\n"
    "                       images (K from 1), e.g. one per task of a Slurm job\n"
    "                       array; the output starts with a '# clxcorr shard' line\n"
    "                       that `clxcorr merge` checks when it joins the shards\n"
    "      --skip-bad       an image that cannot be read (missing, corrupt, another\n"
    "                       size) is a warning and rows flagged 64 with nan\n"
    "                       offsets, not the end of the run\n"
    "  Formats: TIFF (8/16-bit unsigned, 32-bit float, any compression), PNG,\n"
    "  JPEG, BMP, PGM; colour is converted to luminance. Every image must have\n"
    "  the reference's size. Each page of a multi-page TIFF is one image, named\n"
    "  PATH#N (0-based); PATH#N on the command line picks one page.\n"
    "\n"
    "Mode:\n"
    "      --mode M         accurate (default): pre-filter, window offset and\n"
    "                       iterative sub-pixel refinement, an order of magnitude\n"
    "                       more accurate than seed; seed: ALGORITHM.md's seed method\n"
    "                       step for step (zero-mean windows, linear correlation,\n"
    "                       integer peak, F x F least-squares fit)\n"
    "      --method M       how correlations are computed: fft, direct (the sum\n"
    "                       evaluated shift by shift; wins for small windows or a\n"
    "                       small --max-shift) or auto (default: whichever was\n"
    "                       measured faster on this device for this job; measured\n"
    "                       once, then cached in $XDG_CACHE_HOME/clxcorr)\n"
    "      --max-shift R    search only offsets with |dx|, |dy| <= R pixels (default:\n"
    "                       every shift the window allows); a peak at R is flagged\n"
    "      --explain        say which method was used and why (measured times),\n"
    "                       and where the kernel parameters came from (tuned by\n"
    "                       `clxcorr tune`, or shipped defaults)\n"
    "      --estimator E    sub-pixel estimator: lsq (the seed's F x F quadratic fit,\n"
    "                       default), gauss3, parabola3 (three-point fits per axis)\n"
    "                       or centroid; where it finds no maximum, accurate mode\n"
    "                       falls back to parabola3\n"
    "  -F, --fit-size F     the F x F values the estimator sees, odd, >= 3\n"
    "                       (default 5 in seed mode, 3 in accurate mode)\n"
    "      --fft LIB        the FFT library of the FFT path: vkfft, clfft, or auto\n"
    "                       (both timed for this device and job, once, then cached\n"
    "                       like --method auto). Default: the one `clxcorr tune`\n"
    "                       stored for this device and window size, else VkFFT\n"
    "                       when this build has it, else clFFT\n"
    "      --double         every device stage in double precision (needs a\n"
    "                       device with fp64)\n"
    "\n"
    "Accurate mode (defaults chosen by bench/accuracy.sh):\n"
    "      --prefilter SPEC filters applied to every image first (default\n"
    "                       background:8, i.e. minus its Gaussian blur of sigma 8 px;\n"
    "                       'none', or see clxcorr filter --help for SPEC)\n"
    "      --window-fn W    window function: hann (default), none, tukey[:ALPHA]\n"
    "                       (ALPHA: the tapered fraction, default 0.25)\n"
    "      --passes N       correlation passes: the first over the whole search range,\n"
    "                       then N-1 with the image window moved by the rounded offset\n"
    "                       (default 2)\n"
    "      --refine N       at most N refinement iterations: the image window sampled\n"
    "                       at the sub-pixel offset (Lanczos-3 interpolation),\n"
    "                       correlated, and the residual added, divided by the\n"
    "                       estimator's gain as measured so far (default 8)\n"
    "      --tol T          refinement stops when its step is below T px\n"
    "                       (default 0.001)\n"
    "      --fine-shift R   search radius of the window-offset passes (default 2;\n"
    "                       refinement iterations search 1 px)\n"
    "\n"
    "Batches:\n"
    "  -b, --batch B        images per device batch (default: sized from device\n"
    "                       memory, at most 128 on GPUs and 16 on other devices)\n"
    "  -j, --threads N      threads that read and decode images (default: one per\n"
    "                       core of the host, at most 32)\n"
    "      --lanes N        batches at work on the device at once, each with its\n"
    "                       own queue, so that transfers overlap kernels (default:\n"
    "                       3 on GPUs, 1 on other devices)\n"
    "      --param KEY=VAL  override a kernel tuning parameter (repeatable), e.g.\n"
    "                       direct_split=2; an unknown KEY lists the known ones.\n"
    "                       Without it the values `clxcorr tune` stored for this\n"
    "                       device and workload are used, else shipped defaults\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE    write the rows to FILE (default: standard output); it is\n"
    "                       written as FILE.part and renamed when the run completes\n"
    "      --format F       csv (default), tsv, or jsonl (JSON lines: one object per\n"
    "                       row, no header; nan as null)\n"
    "      --columns LIST   the columns to write, in this order, e.g. image,dx,dy\n"
    "                       (default: all of the mode's, as listed below)\n"
    "      --quiver FILE    also draw FILE (PNG): the reference with one arrow per\n"
    "                       window, its mean offset over the images, coloured by\n"
    "                       magnitude, with a scale (as clxcorr plot draws it)\n"
    "      --resume         continue the run that left FILE.part (Ctrl-C, a crash, a\n"
    "                       full disk): its rows are checked, image by image, and kept\n"
    "                       as far as they are whole and in order; the rest of the\n"
    "                       images are appended. Same command otherwise; needs -o\n"
    "      --meta FILE      also write FILE (JSON): the clxcorr version, command,\n"
    "                       host, inputs, every option, each device (driver,\n"
    "                       method and why, tuning values, batch, images) and the\n"
    "                       timings, so that the result can be reproduced; written\n"
    "                       at the end, with \"status\": \"failed\" and the error if\n"
    "                       the run failed\n"
    "  Columns: image,region,x,y,dx,dy,peak,flags (seed mode), and in accurate\n"
    "  mode also zncc,peak_ratio,iterations\n"
    "    region  0-based index in the window list\n"
    "    x, y    window centre in reference coordinates: x0 + (w-1)/2\n"
    "    dx, dy  offset in pixels: position of a feature in the image minus its\n"
    "            position in the reference (an image moved 3 px right and 1 px\n"
    "            down gives dx = 3, dy = 1)\n"
    "    peak    the (first pass's) correlation maximum, not normalised\n"
    "    flags   0 when the estimate is trusted, else the sum of:\n"
    "            1  the estimator found no maximum near the peak (sub-pixel part 0)\n"
    "            2  the integer peak lies on the border of the searched shifts\n"
    "               (--max-shift or the window's largest shift in the first pass,\n"
    "               --fine-shift in window-offset passes, 1 px in refinement;\n"
    "               the last pass decides)\n"
    "            4  the correlation maximum is not positive (flat or unrelated\n"
    "               windows)\n"
    "            8  outlier: the normalised median test over the 8 grid neighbours\n"
    "               (Westerweel & Scarano 2005) exceeds 2 with epsilon 0.1 px in dx\n"
    "               or dy (windows on a grid only)\n"
    "           16  the moved window had to be kept inside the image\n"
    "           32  refinement stopped before the residual fell below --tol\n"
    "           64  the image could not be read (--skip-bad): dx, dy, peak nan\n"
    "    zncc        zero-normalised correlation of the windows at the final offset\n"
    "    peak_ratio  first pass's peak over its highest other local maximum\n"
    "    iterations  refinement iterations done\n"
    "\n"
    "Devices:\n"
    "  -d, --device SPEC    P:D (see `clxcorr devices`), a case-insensitive part of\n"
    "                       the device, vendor or platform name, or gpu, cpu,\n"
    "                       accelerator (default: $CLXCORR_DEVICE, else the first\n"
    "                       GPU, else the first device); a comma-separated list of\n"
    "                       those, or 'all' (every GPU; every device when there is\n"
    "                       no GPU), to share the batches among several devices:\n"
    "                       each takes the next batch as soon as it has room, so a\n"
    "                       faster device correlates more images. Each device uses\n"
    "                       its own method, batch and tuning; for output that does\n"
    "                       not depend on which device took an image, give --method\n"
    "                       and --fft, and use devices of one kind\n"
    "  Under mpirun (in a build with MPI, see --version), the images are dealt to\n"
    "  the ranks in chunks, each rank uses the device of this list (default: all)\n"
    "  matching its rank on its node, and rank 0 writes every row, in input order.\n"
    "      --no-cache       do not use compiled kernels cached in\n"
    "                       $XDG_CACHE_HOME/clxcorr (~/.cache/clxcorr)\n"
    "\n"
    "  -v, --verbose        say what is happening (twice: debug detail)\n"
    "  -q, --quiet          errors only: no progress line, no warnings\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (rows written so far are complete;\n"
    "an output FILE then stays FILE.part), 2 wrong command line, 130 or 143\n"
    "interrupted by SIGINT (Ctrl-C) or SIGTERM: the images in flight are finished\n"
    "and their rows written first; a second Ctrl-C ends it at once.\n";

enum { OPT_LANES = OPT_OWN, OPT_SHARD, OPT_META, OPT_RESUME, OPT_SKIP_BAD, OPT_QUIVER };

static const struct option offsets_table[] = {
    OPTIONS_WINDOWS,
    OPTION_LIST,
    { "shard", required_argument, NULL, OPT_SHARD },
    { "skip-bad", no_argument, NULL, OPT_SKIP_BAD },
    OPTION_MODE,
    OPTION_METHOD,
    OPTION_MAX_SHIFT,
    OPTION_EXPLAIN,
    OPTION_ESTIMATOR,
    OPTION_FIT_SIZE,
    OPTION_FFT,
    OPTION_DOUBLE,
    OPTIONS_ACCURATE,
    OPTION_BATCH,
    { "threads", required_argument, NULL, 'j' },
    { "lanes", required_argument, NULL, OPT_LANES },
    OPTION_PARAM,
    OPTION_OUTPUT,
    OPTION_FORMAT,
    OPTION_COLUMNS,
    { "quiver", required_argument, NULL, OPT_QUIVER },
    { "resume", no_argument, NULL, OPT_RESUME },
    { "meta", required_argument, NULL, OPT_META },
    OPTION_DEVICE,
    OPTION_NO_CACHE,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

static int offsets_take(void *own, int c, const char *value)
{
    struct offsets_args *a = own;
    switch (c) {
    case 'j': return option_taken(parse_int(value, "--threads", 1, 32, &a->stream.loaders));
    case OPT_LANES: return option_taken(parse_int(value, "--lanes", 1, 16, &a->stream.lanes));
    case OPT_SHARD:
        a->shard_text = value;
        return option_taken(shard_parse(value, &a->shard_index, &a->shard_count));
    case OPT_META: a->meta = value; return 1;
    case OPT_RESUME: a->resume = 1; return 1;
    case OPT_SKIP_BAD: a->skip_bad = 1; return 1;
    case OPT_QUIVER: a->quiver = value; return 1;
    }
    return 0;
}

static const struct command_options offsets_options = { "offsets", offsets_help, offsets_table, offsets_take };

/* The rows' form, now that the mode (and so its columns) is known. */
static int resolve_format(struct offsets_args *a)
{
    clx_message msg;
    int quality = a->mode.plan.mode == CLX_MODE_ACCURATE;
    row_format_init(&a->format, quality);
    if ((a->out.format && row_format_set_kind(&a->format, a->out.format, &msg) != CLX_OK) ||
        (a->out.columns && row_format_set_columns(&a->format, a->out.columns, quality, &msg) != CLX_OK)) {
        report_error("%s", msg.text);
        return -1;
    }
    if (a->shard_count && a->format.kind == ROW_FORMAT_JSONL) {
        report_error("--shard writes CSV or TSV (its first line describes the shard for merge); "
                     "convert the merged file if JSON lines are wanted");
        return -1;
    }
    return 0;
}

/* Returns -1 after reporting a usage error, 1 after --help, 0 to run. */
static int parse_args(int argc, char **argv, struct offsets_args *a)
{
    const struct option_values values = {
        .windows = &a->win, .images = &a->img, .mode = &a->mode, .device = &a->device, .output = &a->out, .own = a
    };
    int parsed = options_parse(&offsets_options, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    if (optind >= argc) {
        report_error("no reference image given (usage: clxcorr offsets [OPTIONS] REFERENCE IMAGE...)");
        return -1;
    }
    a->reference = argv[optind++];
    if (a->resume && (!a->out.path || strcmp(a->out.path, "-") == 0)) {
        report_error("--resume continues the output FILE of an earlier run: give it with -o FILE");
        return -1;
    }
    if (window_options_check(&a->win, 1) || resolve_format(a))
        return -1;
    return image_options_add_args(&a->img, argc, argv, optind, ": name them after the reference or use --list FILE");
}

static int load_windows(const struct offsets_args *a, const clx_image *ref, clx_region **regions, size_t *n)
{
    clx_message msg;
    int status = window_options_regions(&a->win, ref->width, ref->height, regions, n, &msg);
    if (status == CLX_OK) {
        status = clx_regions_check(*regions, *n, ref->width, ref->height, &msg);
        if (status != CLX_OK) {
            free(*regions);
            *regions = NULL;
        }
    }
    if (status != CLX_OK) {
        if (a->win.regions_path && !strstr(msg.text, a->win.regions_path))
            report_error("%s: %s", a->win.regions_path, msg.text);
        else
            report_error("%s", msg.text);
    }
    return status;
}
/* One run: what the stream's callbacks (called from its threads) need. */
struct run {
    clx_context **ctxs;          /* one per device */
    size_t ndevices;
    const char *reference;       /* its name, for messages */
    const clx_image *ref;
    clx_region *regions;
    size_t nregions;
    struct image_items items;
    /* This process's images: index j is items[first + (mpi ? split's j-th : j)]. */
    size_t first;                /* --shard: the shard's first image */
    size_t count;                /* the shard's images (all ranks together) */
    struct shard shard;
    int sharded;
    int resumed;                 /* --resume found an earlier output */
    size_t kept;                 /* its whole images, not correlated again */
    struct mpi_split split;
    int mpi;
    int agreed;                  /* MPI: the set-up agreement took place */
    int all_set_up;              /* MPI: and every rank was ready */
    const char *output;          /* --output, NULL: standard output */
    const struct row_format *format;
    struct csv_output out;
    int out_open;
    int explain;
    struct progress progress;
    struct run_meta meta;        /* for --meta */
    /* Rows formatted by the lanes (format_rows), written in order by the
     * calling thread (write_rows): image j's in ring[j % ring_size], which
     * holds every image between formatting and writing. */
    struct csv_text *ring;
    size_t ring_size;
    /* --skip-bad: which of this process's images could not be read (by
     * index j, set by the loaders), their rows' results, and how many. */
    int skip_bad;
    unsigned char *unreadable;
    clx_result *unreadable_results;
    size_t nunreadable;
    /* --quiver: each window's mean offset over the images delivered. */
    struct quiver_mean mean;
    int drawing;
    /* --resume: how each window's row of the image being checked starts. */
    size_t resume_image;
    char **resume_starts;
};

/* The run's index (within the shard) of this process's image j. */
static size_t run_index(const struct run *r, size_t j)
{
    return r->mpi ? mpi_split_global(&r->split, j) : j;
}

static size_t item_of(const struct run *r, size_t j)
{
    return r->first + run_index(r, j);
}

/* --skip-bad: image j is not read; its rows say so. A zeroed image goes
 * through the device in its place, and its results are not used. */
static int skip_image(struct run *r, size_t j, clx_image *staged, const clx_message *why)
{
    memset(staged->pixels, 0, (size_t)staged->width * staged->height * clx_pixel_size(staged->type));
    r->unreadable[j] = 1;
    __atomic_add_fetch(&r->nunreadable, 1, __ATOMIC_RELAXED);
    report_warning("skipped (--skip-bad): %s", why->text);
    return CLX_OK;
}

/* Image j into the staging memory; an error names the file and the problem. */
static int load_checked(struct run *r, size_t j, clx_image *staged, clx_message *msg)
{
    size_t i = item_of(r, j);
    int status = image_item_load_into(&r->items, i, staged, msg);
    if (status != CLX_ERR_SIZE && status != CLX_ERR_FORMAT)
        return status;
    /*
     * A size or pixel type the run cannot stage, or a broken file (then the
     * library's message stands): decoding it on its own tells which, and
     * gives what to set beside the reference's. The run stops here, so the
     * second decode costs nothing.
     */
    clx_image img;
    clx_message decode_msg;
    if (image_item_load(&r->items, i, &img, &decode_msg) != CLX_OK)
        return status;
    char *name = image_item_name(&r->items, i);
    if (img.width != r->ref->width || img.height != r->ref->height)
        snprintf(msg->text, sizeof msg->text, "%s is %dx%d but the reference %s is %dx%d", name ? name : "an image",
                 img.width, img.height, r->reference, r->ref->width, r->ref->height);
    else if (img.type > staged->type)
        snprintf(msg->text, sizeof msg->text,
                 "%s has %s pixels, which the run cannot stage beside the reference %s's %s: convert it",
                 name ? name : "an image", img.type == CLX_PIXEL_F32 ? "32-bit float" : "integer", r->reference,
                 r->ref->type == CLX_PIXEL_F32 ? "float" : "integer ones");
    free(name);
    clx_image_free(&img);
    return status;
}

/* Loader threads: decode image j and put it where the stream wants it. */
static int load_image(void *user, size_t j, clx_image *staged, clx_message *msg)
{
    struct run *r = user;
    int status = load_checked(r, j, staged, msg);
    if (status != CLX_OK && status != CLX_ERR_HOST_MEMORY && r->skip_bad)
        return skip_image(r, j, staged, msg);
    return status;
}

/* A lane's thread, as soon as image j's results are in: its rows as text. */
static int format_rows(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct run *r = user;
    char *name = image_item_name(&r->items, item_of(r, j));
    if (r->unreadable && r->unreadable[j])
        results = r->unreadable_results;
    int status = name ? row_format_image(r->format, &r->ring[j % r->ring_size], name, r->regions, nregions,
                                         results)
                      : CLX_ERR_HOST_MEMORY;
    free(name);
    if (status != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "out of memory");
    return status;
}

/* The calling thread, in input order: image j's rows, already formatted.
 * Under MPI, rank 0 writes them after the other ranks' earlier chunks, and
 * the other ranks send them to rank 0. */
static int write_rows(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct run *r = user;
    const struct csv_text *rows = &r->ring[j % r->ring_size];
    if (r->drawing && !(r->unreadable && r->unreadable[j]))
        quiver_mean_add_results(&r->mean, results);
    if (!r->mpi)
        return csv_output_write(&r->out, rows, msg);
    if (mpi_rank() == 0)
        return mpi_split_write_own(&r->split, run_index(r, j), rows, &r->out, msg);
    return mpi_split_send_own(&r->split, run_index(r, j), rows, msg);
}

/*
 * Ctrl-C or SIGTERM: the loaders stop claiming images, the images already
 * in flight are finished and their rows written, and FILE.part keeps them.
 * A second signal ends the process at once (the handler resets itself).
 */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    interrupted = sig;
}

static void catch_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int run_cancelled(void *user)
{
    return interrupted != 0;
}

/* Under MPI, every rank says once whether its set-up went well. */
static int agree(struct run *r, int status, const char *text, clx_message *msg)
{
    if (!r->mpi || r->agreed)
        return status;
    r->agreed = 1;
    return mpi_agree(status, text, msg);
}

/* The lines before the rows: a shard's comment line, then the format's header. */
static int run_header(const struct run *r, char *buf, size_t len)
{
    size_t used = 0;
    if (r->sharded) {
        shard_format(&r->shard, buf, len);
        used = strlen(buf);
    }
    return row_format_header(r->format, buf + used, len - used) < 0 ? -1 : 0;
}

/* The plans exist: the output is opened only now, so that a job the device
 * refuses leaves no file behind. */
static int started(void *user, const clx_stream_info *info, clx_message *msg)
{
    struct run *r = user;
    int status = agree(r, CLX_OK, NULL, msg);
    if (status != CLX_OK)
        return status;
    r->all_set_up = 1;
    for (size_t d = 0; d < info->devices; d++) {
        const clx_plan *plan = info->device_plans[d];
        const char *name = clx_context_device(r->ctxs[d])->name;
        if (r->explain) {
            if (info->devices > 1)
                fprintf(stderr, "clxcorr: device %zu (%s):\n", d, name);
            fprintf(stderr, "clxcorr: method: %s\n", clx_plan_explanation(plan));
            fprintf(stderr, "clxcorr: parameters: %s\n", clx_plan_tuning(plan));
        }
        report_info("%s: batches of %d images", name, clx_plan_batch_size(plan));
        run_meta_device(&r->meta, d, r->ctxs[d], plan);
    }
    r->meta.lanes = info->lanes;
    report_info("%d lanes at work at once", info->lanes);
    r->ring_size = info->images_in_flight;
    r->ring = calloc(r->ring_size, sizeof *r->ring);
    if (!r->ring) {
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    r->meta.t_ready = now_seconds();
    if (r->mpi && mpi_rank() != 0)
        return CLX_OK;
    char header[1024];
    if (r->resumed)
        status = csv_output_open_append(&r->out, r->output, msg);
    else if (run_header(r, header, sizeof header) != 0)
        status = (snprintf(msg->text, sizeof msg->text, "the header does not fit"), CLX_ERR_HOST_MEMORY);
    else
        status = csv_output_open(&r->out, r->output, header, msg);
    r->out_open = status == CLX_OK;
    return status;
}

static void show_progress(void *user, size_t done, size_t count)
{
    struct run *r = user;
    progress_update(&r->progress, r->mpi ? r->split.written : done);
}

/* Expands the list into images and picks this process's share: a shard,
 * then, under MPI, this rank's chunks. Returns the images to correlate here. */
static int select_images(const struct offsets_args *a, struct run *r, size_t *local_count)
{
    r->items.keep_unreadable = a->skip_bad;
    if (image_items_expand(&a->img.images, &r->items) != CLX_OK) {
        report_error("out of memory");
        return -1;
    }
    size_t total = r->items.count;
    if ((a->shard_count || r->mpi) && r->items.status != CLX_OK) {
        /* Shards and ranks split a list they must know whole. */
        report_error("%s", r->items.msg.text);
        return -1;
    }
    r->first = 0;
    r->count = total;
    if (a->shard_count) {
        r->sharded = 1;
        r->shard.index = a->shard_index;
        r->shard.count = a->shard_count;
        r->shard.total = total;
        r->shard.windows = r->nregions;
        r->shard.list = SHARD_LIST_HASH_INIT;
        for (size_t i = 0; i < total; i++) {
            char *name = image_item_name(&r->items, i);
            if (!name) {
                report_error("out of memory");
                return -1;
            }
            r->shard.list = shard_list_hash(r->shard.list, name);
            free(name);
        }
        shard_range(a->shard_index, a->shard_count, total, &r->shard.first, &r->shard.images);
        r->first = r->shard.first;
        r->count = r->shard.images;
    }
    *local_count = r->count;
    if (r->mpi) {
        mpi_split_init(&r->split, r->count, r->nregions);
        *local_count = mpi_split_local_count(&r->split);
    }
    return 0;
}

/* The devices this process uses: those of --device, or under MPI the one
 * of them matching this rank's place on its node. */
static int open_run_devices(const struct offsets_args *a, struct run *r)
{
    struct device_specs specs;
    const char *spec = a->device.spec;
    if (r->mpi && !spec)
        spec = getenv("CLXCORR_DEVICE") ? getenv("CLXCORR_DEVICE") : "all";
    if (device_specs_parse(spec, &specs) != 0)
        return -1;
    int status;
    if (r->mpi) {
        struct device_specs mine = { &specs.specs[(size_t)mpi_local_rank() % specs.count], 1 };
        status = open_devices(&mine, a->mode.plan.use_double, a->device.no_cache, &r->ctxs);
        r->ndevices = 1;
    } else {
        status = open_devices(&specs, a->mode.plan.use_double, a->device.no_cache, &r->ctxs);
        r->ndevices = specs.count;
    }
    device_specs_free(&specs);
    return status;
}

/*
 * --resume: how the row of image i, window w must start. Whatever the
 * format and columns, that is the part of the row that does not depend on
 * the results: the rows formatted with two sets of results that differ in
 * every column's first character agree exactly that far (the name, index
 * and centre columns that come first, or a JSON key). Image i's rows are
 * formatted once, when its first window is asked for.
 */
static int resume_row_start(void *user, size_t i, size_t window, char *buf, size_t len)
{
    struct run *r = user;
    if (window == 0 || r->resume_image != i) {
        size_t n = r->nregions;
        clx_result *one = calloc(2 * n, sizeof *one), *two = one + n;
        struct csv_text a = { 0 }, b = { 0 };
        char *name = image_item_name(&r->items, r->first + i);
        int ok = one && name;
        for (size_t w = 0; ok && w < n; w++) {
            one[w].dx = one[w].dy = one[w].peak = one[w].zncc = one[w].peak_ratio = 1;
            two[w].dx = two[w].dy = two[w].peak = two[w].zncc = two[w].peak_ratio = 2;
            one[w].flags = 1;
            two[w].flags = 2;
            one[w].iterations = 1;
            two[w].iterations = 2;
        }
        ok = ok && row_format_image(r->format, &a, name, r->regions, n, one) == CLX_OK &&
             row_format_image(r->format, &b, name, r->regions, n, two) == CLX_OK;
        /* Row by row: the common prefix of the two renderings. */
        const char *pa = a.text, *pb = b.text;
        for (size_t w = 0; ok && w < n; w++) {
            const char *ea = memchr(pa, '\n', a.len - (size_t)(pa - a.text));
            const char *eb = memchr(pb, '\n', b.len - (size_t)(pb - b.text));
            size_t k = 0;
            while (pa + k < ea && pb + k < eb && pa[k] == pb[k])
                k++;
            free(r->resume_starts[w]);
            r->resume_starts[w] = strndup(pa, k);
            ok = r->resume_starts[w] != NULL;
            pa = ea + 1;
            pb = eb + 1;
        }
        free(one);
        free(name);
        csv_text_free(&a);
        csv_text_free(&b);
        if (!ok)
            return -1;
        r->resume_image = i;
    }
    size_t k = strlen(r->resume_starts[window]);
    if (k >= len)
        return -1;
    memcpy(buf, r->resume_starts[window], k);
    return (int)k;
}

/* --resume: keeps the whole images of the earlier output and moves the
 * run's start past them. */
static int resume_run(struct run *r, size_t *local_count)
{
    char header[1024];
    r->resume_starts = calloc(r->nregions, sizeof *r->resume_starts);
    if (!r->resume_starts || run_header(r, header, sizeof header) != 0) {
        report_error("out of memory");
        return -1;
    }
    struct resume_check c = { header, r->nregions, r->count, resume_row_start, r };
    if (resume_prepare(r->output, &c, &r->kept, &r->resumed) != 0)
        return -1;
    if (!r->resumed)
        report_note("--resume: no %s.part or %s: starting from the first image", r->output, r->output);
    else
        report_note("--resume: %zu of %zu images already in %s.part; correlating the other %zu", r->kept,
                    r->count, r->output, r->count - r->kept);
    r->first += r->kept;
    r->count -= r->kept;
    *local_count = r->count;
    return 0;
}

/* --quiver: the picture of each window's mean offset over the images this run correlated. */
static int draw_quiver(struct run *r, const char *path, const clx_image *ref, size_t images)
{
    struct quiver_arrow *arrows = calloc(r->nregions, sizeof *arrows);
    if (!arrows) {
        report_error("out of memory");
        return -1;
    }
    for (size_t w = 0; w < r->nregions; w++) {
        arrows[w].x = r->regions[w].x + (r->regions[w].w - 1) / 2.0;
        arrows[w].y = r->regions[w].y + (r->regions[w].h - 1) / 2.0;
    }
    quiver_mean_arrows(&r->mean, arrows);
    char title[256];
    snprintf(title, sizeof title, "mean offset over %zu images%s, reference %s", images,
             r->kept ? " (this run's)" : "", r->reference);
    struct quiver_options o = { 0, title };
    clx_message msg;
    int status = quiver_write_png(path, ref, arrows, r->nregions, &o, &msg);
    free(arrows);
    if (status != CLX_OK) {
        report_error("--quiver: %s", msg.text);
        return -1;
    }
    report_info("wrote %s", path);
    return 0;
}

/* The name of the run's image i, for a message (static storage). */
static const char *image_label(const struct run *r, size_t i)
{
    static char label[512];
    char *name = i < r->items.count ? image_item_name(&r->items, i) : NULL;
    snprintf(label, sizeof label, "%s", name ? name : "?");
    free(name);
    return label;
}

/*
 * Under MPI, after a failure in the run: a rank other than 0 sends its rows
 * and error to rank 0 and waits for the end; rank 0 first writes the other
 * ranks' rows before its own failure, then reports the failure that comes
 * first in input order (its own, another rank's, or a write error).
 */
static void report_rank_failure(struct run *r, size_t done_images, size_t local_count, const char *why)
{
    int own = done_images < local_count;
    size_t stopped = own ? r->first + run_index(r, done_images) : 0;
    char text[sizeof(clx_message)];
    if (own)
        snprintf(text, sizeof text, "image %zu of %zu (%.200s): %.700s", stopped + 1, r->items.count,
                 image_label(r, stopped), why);
    else
        snprintf(text, sizeof text, "%s", why);
    if (mpi_rank() != 0)
        mpi_split_send_failure(&r->split, text);

    clx_message msg;
    if (own && r->split.failed_rank < 0 &&
        mpi_split_write_others(&r->split, run_index(r, done_images), &r->out, &msg) != CLX_OK &&
        r->split.failed_rank < 0) {
        report_error("%s", msg.text);
        return;
    }
    if (r->split.failed_rank >= 0)
        report_error("%s", r->split.failure.text);
    else if (own)
        report_error("rank 0 on %s: %s", mpi_host(), text);
    else
        report_error("%s", text);
}

int cmd_offsets(int argc, char **argv)
{
    struct offsets_args a;
    struct run r;
    clx_image ref = { 0 };
    clx_message msg;
    int status = EXIT_FAILURE_RUN;
    size_t local_count = 0, done_images = 0;
    size_t *device_images = NULL;

    memset(&a, 0, sizeof a);
    memset(&r, 0, sizeof r);
    run_meta_begin(&r.meta, argc, argv);
    mode_options_init(&a.mode);
    clx_stream_options_init(&a.stream);
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        image_options_free(&a.img);
        mode_options_free(&a.mode);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    r.mpi = mpi_active();
    catch_interrupts();
    if (image_options_read_list(&a.img) != 0)
        goto done;
    if (a.img.images.count == 0) {
        report_error("no images to process: %s lists none", a.img.list_path);
        goto done;
    }
    if (image_entry_load_single(a.reference, &ref, &msg) != CLX_OK) {
        report_error("reference: %s", msg.text);
        goto done;
    }
    r.output = a.out.path;
    r.format = &a.format;
    if (load_windows(&a, &ref, &r.regions, &r.nregions) != CLX_OK || select_images(&a, &r, &local_count) != 0)
        goto done;
    if (a.quiver && r.mpi) {
        report_error("--quiver under mpirun: rank 0 has only the rows' text; draw the picture from the output "
                     "with clxcorr plot");
        goto done;
    }
    if (a.quiver) {
        if (quiver_mean_init(&r.mean, r.nregions) != CLX_OK) {
            report_error("out of memory");
            goto done;
        }
        r.drawing = 1;
    }
    if (a.resume && r.mpi) {
        report_error("--resume does not run under mpirun yet: resume with one process, or use --shard");
        goto done;
    }
    if (a.resume && resume_run(&r, &local_count) != 0)
        goto done;
    /* A process without images (an empty shard, a rank beyond the chunks) needs no device. */
    if (local_count > 0 && open_run_devices(&a, &r) != 0)
        goto done;
    device_images = calloc(r.ndevices ? r.ndevices : 1, sizeof *device_images);
    if (!device_images) {
        report_error("out of memory");
        goto done;
    }

    r.reference = a.reference;
    r.ref = &ref;
    r.explain = a.mode.explain;
    a.stream.started = started;
    a.stream.finish = format_rows;
    a.stream.progress = show_progress;
    a.stream.device_images = device_images;
    a.stream.cancelled = run_cancelled;
    if (a.skip_bad) {
        r.skip_bad = 1;
        r.unreadable = calloc(local_count ? local_count : 1, 1);
        r.unreadable_results = calloc(r.nregions, sizeof *r.unreadable_results);
        if (!r.unreadable || !r.unreadable_results) {
            report_error("out of memory");
            goto done;
        }
        for (size_t w = 0; w < r.nregions; w++) {
            clx_result *u = &r.unreadable_results[w];
            u->dx = u->dy = u->peak = u->zncc = u->peak_ratio = NAN;
            u->flags = ROW_FLAG_UNREADABLE;
        }
    }
    r.meta.reference = a.reference;
    r.meta.images = r.count;
    r.meta.windows = r.nregions;
    r.meta.output = a.out.path;
    r.meta.plan = &a.mode.plan;
    r.meta.loaders = a.stream.loaders;
    r.meta.shard = a.shard_text;
    r.meta.mpi_ranks = r.mpi ? mpi_size() : 0;

    /* The images before an entry that cannot be opened still get their rows. */
    progress_start(&r.progress, r.count);
    int failed;
    const char *why = msg.text;
    if (local_count > 0) {
        failed = clx_stream_run_devices(r.ctxs, r.ndevices, &ref, r.regions, r.nregions, &a.mode.plan, &a.stream,
                                        local_count, load_image, write_rows, &r, &done_images) != CLX_OK;
        why = clx_context_message(r.ctxs[0]);
    } else if (r.sharded || r.mpi || r.resumed) {
        /* An empty shard still writes its header lines; a rank without
         * images still takes part in the agreement. */
        clx_stream_info none = { 0 };
        none.images_in_flight = 1;
        failed = started(&r, &none, &msg) != CLX_OK;
    } else {
        failed = 0;             /* the list's first entry is broken: reported below */
    }
    if (failed && r.mpi && !r.agreed)
        goto done;              /* this rank's set-up failed: agreed on below */
    if (failed && r.mpi && !r.all_set_up) {
        /* Another rank's set-up failed; rank 0 names it. */
        progress_finish(&r.progress);
        if (mpi_rank() == 0)
            report_error("%s", why);
        goto done;
    }
    if (!failed && r.mpi && mpi_rank() == 0) {
        failed = mpi_split_write_others(&r.split, r.count, &r.out, &msg) != CLX_OK;
        why = msg.text;
    }
    progress_finish(&r.progress);
    double elapsed = r.meta.t_ready > 0 ? now_seconds() - r.meta.t_ready : 0;

    if (failed && interrupted && !r.mpi) {
        report_error("interrupted by %s after %zu images%s", interrupted == SIGINT ? "SIGINT" : "SIGTERM",
                     r.kept + done_images, a.out.path && strcmp(a.out.path, "-") != 0 ? " (continue with --resume)" : "");
    } else if (failed && r.mpi) {
        report_rank_failure(&r, done_images, local_count, why);
    } else if (failed) {
        report_error("%s", why);
    } else if (r.items.status != CLX_OK) {
        report_error("%s", r.items.msg.text);
        failed = 1;
    }
    size_t written = r.kept + (r.mpi ? r.split.written : done_images);
    int opened = r.out_open;
    int closed = opened ? csv_output_close(&r.out, !failed, &msg) : CLX_OK;
    r.out_open = 0;
    if (closed != CLX_OK) {
        report_error("%s", msg.text);
        failed = 1;
    } else if (failed) {
        if (opened && a.out.path && strcmp(a.out.path, "-") != 0)
            report_note("stopped after %zu images; their rows are in %s.part (the same command with --resume "
                        "continues)", written, a.out.path);
    } else {
        status = EXIT_OK;
        report_info("%zu images x %zu windows in %.2f s once the plans were ready (%.1f images/s)", written,
                    r.nregions, elapsed, elapsed > 0 ? written / elapsed : 0.0);
        for (size_t d = 0; r.ndevices > 1 && d < r.ndevices; d++)
            report_info("device %zu (%s): %zu images", d, clx_context_device(r.ctxs[d])->name, device_images[d]);
        if (r.nunreadable > 0)
            report_warning("%zu of %zu images could not be read; their rows are flagged 64 (--skip-bad)",
                           r.nunreadable, local_count);
    }
    if (status == EXIT_OK && a.quiver && draw_quiver(&r, a.quiver, &ref, written - r.kept) != 0)
        status = EXIT_FAILURE_RUN;
    r.meta.t_end = now_seconds();
    for (size_t d = 0; d < r.ndevices && d < RUN_META_MAX_DEVICES; d++)
        r.meta.devices[d].images = device_images[d];
    if (a.meta && (!r.mpi || mpi_rank() == 0) &&
        run_meta_write(&r.meta, a.meta, written, status == EXIT_OK ? NULL : report_last_error()) != 0)
        status = EXIT_FAILURE_RUN;
    /* Rank 0 ends every rank: the others may be waiting to send rows. */
    if (failed && r.mpi && mpi_rank() == 0)
        mpi_abort();

done:
    if (r.mpi && !r.agreed) {
        /* A set-up failure: every rank stops; rank 0 names the first to fail
         * (unless that was itself, which said so already). */
        clx_message first;
        if (agree(&r, CLX_ERR_ARGUMENT, report_last_error(), &first) != CLX_OK && mpi_rank() == 0 &&
            strncmp(first.text, "rank 0 ", 7) != 0)
            report_error("%s", first.text);
    }
    if (r.out_open)
        csv_output_close(&r.out, 0, &msg);
    mpi_split_free(&r.split);
    image_items_free(&r.items);
    for (size_t k = 0; r.ring && k < r.ring_size; k++)
        csv_text_free(&r.ring[k]);
    free(r.ring);
    free(device_images);
    free(r.unreadable);
    free(r.unreadable_results);
    if (r.drawing)
        quiver_mean_free(&r.mean);
    for (size_t w = 0; r.resume_starts && w < r.nregions; w++)
        free(r.resume_starts[w]);
    free(r.resume_starts);
    close_devices(r.ctxs, r.ndevices);
    free(r.regions);
    clx_image_free(&ref);
    image_options_free(&a.img);
    mode_options_free(&a.mode);
    /* Interrupted: the shell's convention, 128 + the signal. */
    if (interrupted && status != EXIT_OK)
        status = 128 + interrupted;
    return status;
}
