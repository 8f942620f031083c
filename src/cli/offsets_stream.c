/*
 * offsets_stream.c - `clxcorr offsets` streaming this process's images
 * through the devices (clx_stream_run_devices): the loader threads' work,
 * the plans ready, the progress line, Ctrl-C, and under MPI the ranks'
 * agreement that every set-up went well. The rows themselves are
 * offsets_rows.c's.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "offsets_run.h"
#include "strain_remap.h"

/* --skip-bad: image j is not read; its rows say so. A zeroed image goes
 * through the device in its place, and its results are not used. */
static int image_skip(struct offsets_run *r, size_t j, clx_image *staged, const clx_message *why)
{
    memset(staged->pixels, 0, (size_t)staged->width * staged->height * clx_pixel_size(staged->type));
    r->unreadable[j] = 1;
    __atomic_add_fetch(&r->nunreadable, 1, __ATOMIC_RELAXED);
    report_warning("skipped (--skip-bad): %s", why->text);
    return CLX_OK;
}

/* Item i into the staging memory, the rows the plans read at least; an
 * error names the file and the problem. */
static int item_load_checked(struct offsets_run *r, size_t i, clx_image *staged, clx_message *msg)
{
    int status = image_item_load_into(&r->items, i, staged, r->rows_read, r->nrows_read, msg);
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
    if (img.width != r->ref.width || img.height != r->ref.height)
        snprintf(msg->text, sizeof msg->text, "%s is %dx%d but the reference %s is %dx%d", name ? name : "an image",
                 img.width, img.height, r->reference, r->ref.width, r->ref.height);
    else if (img.type > staged->type) {
        /* The library's message names the file's own type (a pattern
         * file's int32 is not called the float it reads as). */
        char why[sizeof msg->text];
        memcpy(why, msg->text, sizeof why);
        snprintf(msg->text, sizeof msg->text, "%.*s; the run stages every image as the reference %s's %s pixels: "
                 "convert it", (int)(sizeof why / 2), why, r->reference, clx_pixel_type_name(staged->type));
    }
    free(name);
    clx_image_free(&img);
    return status;
}

/* Loader threads: decode image j and put it where the stream wants it. */
static int image_load_staged(void *user, size_t j, clx_image *staged, clx_message *msg)
{
    struct offsets_run *r = user;
    int status = r->remap ? strain_remap_load(r, j, staged, msg)
                          : item_load_checked(r, offsets_item_index(r, j), staged, msg);
    if (status != CLX_OK && status != CLX_ERR_HOST_MEMORY && r->skip_bad)
        return image_skip(r, j, staged, msg);
    return status;
}

/* --reference previous or pairs: image j's own reference, an item of the
 * list or the REFERENCE argument. One that cannot be read stops the run
 * (--skip-bad skips images, not the references the next image needs). */
static int reference_load_staged(void *user, size_t j, clx_image *staged, clx_message *msg)
{
    struct offsets_run *r = user;
    size_t ref_item = offsets_reference_item(r, j);
    if (ref_item == SIZE_MAX)
        return clx_image_copy_to(&r->ref, staged, msg);
    return item_load_checked(r, ref_item, staged, msg);
}

/*
 * Ctrl-C or SIGTERM: the loaders stop claiming images, the images already
 * in flight are finished and their rows written, and FILE.part keeps them.
 * A second signal ends the process at once (the handler resets itself).
 *
 * Before the output is opened, though, the run is setting up: opening the
 * devices and building their kernels, which a first build on PoCL takes
 * 10 to 20 s over, inside clBuildProgram, which nothing interrupts. Nothing
 * has been written then (no FILE.part of this run; a --resume run's
 * FILE.part is as the earlier run left it, cut at a whole image), so the
 * handler ends the process there and then, with the message and exit
 * status of an interrupted run. Not under MPI: the ranks end together.
 * Static, as a signal handler can reach nothing else: the process's flags.
 */
static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t setting_up;    /* no output open yet: end at once */
static int stderr_terminal;                 /* a status line may be shown: cleared first */

static void say(const char *text)
{
    size_t n = strlen(text);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, text, n);
        if (w <= 0)
            return;
        text += w;
        n -= (size_t)w;
    }
}

static void on_interrupt(int sig)
{
    interrupted = sig;
    if (!setting_up)
        return;
    /* write() and _exit() alone: both are async-signal-safe. */
    if (stderr_terminal)
        say("\r\033[K");
    say(sig == SIGINT ? "clxcorr: error: interrupted by SIGINT while setting up (before the first image): nothing "
                        "written\n"
                      : "clxcorr: error: interrupted by SIGTERM while setting up (before the first image): nothing "
                        "written\n");
    _exit(128 + sig);
}

void offsets_interrupts_catch(int at_once_while_setting_up)
{
    stderr_terminal = isatty(STDERR_FILENO);
    setting_up = at_once_while_setting_up;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void offsets_interrupts_settle(void)
{
    setting_up = 0;
}

int offsets_interrupted(void)
{
    return interrupted;
}

static int run_cancelled(void *user)
{
    return interrupted != 0;
}

/* Under MPI, every rank says once whether its set-up went well. */
static int ranks_agree(struct offsets_run *r, int status, const char *text, clx_message *msg)
{
    if (!r->mpi || r->agreed)
        return status;
    r->agreed = 1;
    return mpi_agree(status, text, msg);
}

/* --explain: every kernel parameter the plan's first pass uses, one line
 * each, indented under the "parameters:" line. */
static void explain_parameters(const char *lines)
{
    for (const char *line = lines; *line;) {
        size_t n = strcspn(line, "\n");
        fprintf(stderr, "clxcorr:   %.*s\n", (int)n, line);
        line += n + (line[n] == '\n');
    }
}

/* --explain: the scan the images come from, its grid and geometry. */
static void explain_scan(const clx_scan_info *s)
{
    fprintf(stderr, "clxcorr: scan: %s%s%s%s, %d x %d points (rows x columns)", s->format, s->scan[0] ? " '" : "",
            s->scan, s->scan[0] ? "'" : "", s->rows, s->cols);
    if (s->step_x > 0 && s->step_y > 0)
        fprintf(stderr, ", step %g x %g um", s->step_x, s->step_y);
    fputc('\n', stderr);
    if (s->has_pc)
        fprintf(stderr, "clxcorr:   pattern centre %.5f, %.5f, %.5f (%s; Bruker's convention, from the file's %s)\n",
                s->pcx, s->pcy, s->pcz, s->pc_per_point ? "the first point's, one per point" : "one for the scan",
                s->pc_convention);
    else
        fprintf(stderr, "clxcorr:   no pattern centre in the file\n");
    fprintf(stderr, "clxcorr:   sample tilt %g, detector tilt %g, azimuthal %g, twist %g (degrees; nan: not in the "
            "file); detector pixel %g um%s, binning %d (0: not in the file)%s\n", s->sample_tilt, s->detector_tilt,
            s->azimuthal, s->twist, s->pixel_size,
            s->placeholders & CLX_SCAN_PLACEHOLDER_PIXEL_SIZE ? " (the file's 1 um is kikuchipy's placeholder)" : "",
            s->binning, s->has_euler ? "; orientations per point" : "");
    if (s->placeholders & CLX_SCAN_PLACEHOLDER_STEP)
        fprintf(stderr, "clxcorr:   the steps of 1 x 1 um may be kikuchipy's placeholder for unknown steps\n");
    if (s->placeholders & CLX_SCAN_PLACEHOLDER_ORIENTATIONS)
        fprintf(stderr, "clxcorr:   the crystal map is kikuchipy's empty one (identity rotations, no space group): "
                "no orientations\n");
}

/* The rows the loaders read: those the plans read (the same windows and
 * mode give every device's plan the same ones), or every row if they differ. */
static int rows_read_set(struct offsets_run *r, const clx_stream_info *info, clx_message *msg)
{
    size_t n = clx_plan_rows_read(info->plan, NULL, 0);
    clx_rows *rows = calloc(2 * n + 1, sizeof *rows), *other = rows + n;
    if (!rows) {
        snprintf(msg->text, sizeof msg->text, "out of host memory");
        return CLX_ERR_HOST_MEMORY;
    }
    clx_plan_rows_read(info->plan, rows, n);
    for (size_t d = 1; d < info->devices; d++)
        if (clx_plan_rows_read(info->device_plans[d], other, n) != n || memcmp(rows, other, n * sizeof *rows) != 0) {
            free(rows);
            return CLX_OK;
        }
    free(r->rows_read);
    r->rows_read = rows;
    r->nrows_read = n;
    return CLX_OK;
}

/* The plans exist: the output is opened only now, so that a job the device
 * refuses leaves no file behind. */
static int started(void *user, const clx_stream_info *info, clx_message *msg)
{
    struct offsets_run *r = user;
    int status = ranks_agree(r, CLX_OK, NULL, msg);
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
            explain_parameters(clx_plan_parameters(plan));
        }
        if (r->explain && r->scan && d == 0)
            explain_scan(r->scan);
        report_info("%s: batches of %d images", name, clx_plan_batch_size(plan));
        run_meta_device(&r->meta, d, r->ctxs[d], plan);
    }
    r->meta.lanes = info->lanes;
    report_info("%d lanes at work at once", info->lanes);
    if ((status = rows_read_set(r, info, msg)) != CLX_OK)
        return status;
    status = offsets_rows_init(r, info->images_in_flight, msg);
    if (status != CLX_OK)
        return status;
    r->meta.t_ready = now_seconds();
    offsets_interrupts_settle();
    return offsets_output_open(r, msg);
}

static void progress_show(void *user, size_t done, size_t count)
{
    struct offsets_run *r = user;
    progress_update(&r->progress, r->mpi ? r->split.written : done);
}

enum offsets_stream_end offsets_stream(struct offsets_run *r, const clx_plan_options *plan,
                                       const clx_stream_options *stream, clx_message *why)
{
    clx_stream_options so = *stream;
    so.started = started;
    so.finish = offsets_rows_format;
    so.progress = progress_show;
    so.device_images = r->device_images;
    so.cancelled = run_cancelled;
    so.load_reference = r->pairing != PAIRING_FIRST ? reference_load_staged : NULL;

    /* The images before an entry that cannot be opened still get their rows. */
    progress_start(&r->progress, r->count);
    int failed = 0;
    if (r->remap && r->local_count > 0 && strain_remap_passes(r, plan, stream, why) != 0) {
        progress_finish(&r->progress);
        return OFFSETS_FAILED;
    }
    if (r->local_count > 0) {
        failed = clx_stream_run_devices(r->ctxs, r->ndevices, &r->ref, offsets_measured_regions(r),
                                        offsets_measured_count(r), plan, &so,
                                        r->local_count, image_load_staged, offsets_rows_write, r, &r->done) != CLX_OK;
        if (failed)
            snprintf(why->text, sizeof why->text, "%s", clx_context_message(r->ctxs[0]));
    } else if (r->sharded || r->mpi || r->resumed) {
        /* An empty shard still writes its header lines; a rank without
         * images still takes part in the agreement. */
        clx_stream_info none = { 0 };
        none.images_in_flight = 1;
        failed = started(r, &none, why) != CLX_OK;
    }
    /* Otherwise the list's first entry is broken: offsets_report says so. */
    if (failed && r->mpi && !r->agreed)
        return OFFSETS_NOT_SET_UP;      /* this rank's set-up failed: offsets_setup_failed agrees on it */
    if (failed && r->mpi && !r->all_set_up) {
        /* Another rank's set-up failed; rank 0 names it. */
        progress_finish(&r->progress);
        if (mpi_rank() == 0)
            report_error("%s", why->text);
        return OFFSETS_NOT_SET_UP;
    }
    if (!failed && r->mpi && mpi_rank() == 0)
        failed = mpi_split_write_others(&r->split, r->count, &r->out, why) != CLX_OK;
    progress_finish(&r->progress);
    return failed ? OFFSETS_FAILED : OFFSETS_STREAMED;
}

void offsets_setup_failed(struct offsets_run *r)
{
    clx_message first;
    if (!r->mpi || r->agreed)
        return;
    /* Unless rank 0 was the first to fail: it said so already. */
    if (ranks_agree(r, CLX_ERR_ARGUMENT, report_last_error(), &first) != CLX_OK && mpi_rank() == 0 &&
        strncmp(first.text, "rank 0 ", 7) != 0)
        report_error("%s", first.text);
}
