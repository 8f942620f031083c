/*
 * offsets_report.c - the end of a `clxcorr offsets` run: what stopped it
 * (Ctrl-C, a rank, an image, a device), the output closed, how it went
 * (-v), the --quiver picture and the --meta file.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "offsets_run.h"

/* The name of the run's image i into label, for a message. */
static void image_label(const struct offsets_run *r, size_t i, char *label, size_t len)
{
    char *name = i < r->items.count ? image_item_name(&r->items, i) : NULL;
    snprintf(label, len, "%s", name ? name : "?");
    free(name);
}

/*
 * Under MPI, after a failure in the run: a rank other than 0 sends its rows
 * and error to rank 0 and waits for the end; rank 0 first writes the other
 * ranks' rows before its own failure, then reports the failure that comes
 * first in input order (its own, another rank's, or a write error).
 */
static void rank_failure_report(struct offsets_run *r, const char *why)
{
    int own = r->done < r->local_count;
    size_t stopped = own ? r->first + offsets_run_index(r, r->done) : 0;
    char text[sizeof(clx_message)], label[512];
    if (own) {
        image_label(r, stopped, label, sizeof label);
        snprintf(text, sizeof text, "image %zu of %zu (%.200s): %.700s", stopped + 1, r->items.count, label, why);
    } else {
        snprintf(text, sizeof text, "%s", why);
    }
    if (mpi_rank() != 0)
        mpi_split_send_failure(&r->split, text);

    clx_message msg;
    if (own && r->split.failed_rank < 0 &&
        mpi_split_write_others(&r->split, offsets_run_index(r, r->done), &r->out, &msg) != CLX_OK &&
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

/* What stopped the run, if anything did; returns whether it failed. */
static int failure_report(struct offsets_run *r, int failed, const char *why)
{
    int sig = offsets_interrupted();
    if (failed && sig && !r->mpi) {
        /* --resume continues the text outputs only: an h5 or field run starts again. */
        int text = r->format->kind == ROW_FORMAT_CSV || r->format->kind == ROW_FORMAT_TSV ||
                   r->format->kind == ROW_FORMAT_JSONL;
        report_error("interrupted by %s after %zu images%s", sig == SIGINT ? "SIGINT" : "SIGTERM",
                     r->kept + r->done,
                     text && r->output && strcmp(r->output, "-") != 0 ? " (continue with --resume)" : "");
    } else if (failed && r->mpi) {
        rank_failure_report(r, why);
    } else if (failed) {
        report_error("%s", why);
    } else if (r->items.status != CLX_OK) {
        /* The stream ran up to the list's first entry that cannot be opened. */
        report_error("%s", r->items.msg.text);
        failed = 1;
    }
    return failed;
}

/* -v: the rate once the plans were ready, and each device's share. */
static void summary_report(const struct offsets_run *r, size_t written, double elapsed)
{
    report_info("%zu images x %zu windows in %.2f s once the plans were ready (%.1f images/s)", written,
                r->nregions, elapsed, elapsed > 0 ? written / elapsed : 0.0);
    for (size_t d = 0; r->ndevices > 1 && d < r->ndevices; d++)
        report_info("device %zu (%s): %zu images", d, clx_context_device(r->ctxs[d])->name, r->device_images[d]);
    if (r->nunreadable > 0)
        report_warning("%zu of %zu images could not be read; their rows are flagged 64 (--skip-bad)",
                       r->nunreadable, r->local_count);
}

/* --quiver: the picture of each window's mean offset over the images this run correlated. */
static int quiver_draw(struct offsets_run *r, const char *path, size_t images)
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
    struct quiver_options o = { .width = 0, .title = title };
    clx_message msg;
    int status = quiver_write_png(path, &r->ref, arrows, r->nregions, &o, &msg);
    free(arrows);
    if (status != CLX_OK) {
        report_error("--quiver: %s", msg.text);
        return -1;
    }
    report_info("wrote %s", path);
    return 0;
}

/* strain, -v or --explain: the host time in the fits, summed over the
 * lanes (and over --remap's passes), against the run's wall time: measured,
 * so that the fit's cost is not guessed from throughput. */
static void fit_time_report(const struct offsets_run *r)
{
    if (!r->strain || (!r->explain && report_verbosity() < 2))
        return;
    double fit = clx_strain_job_fit_seconds(r->strain), total = now_seconds() - r->meta.t_start;
    fprintf(stderr, "clxcorr: strain fit: %.3g s on the host (summed over %d lane%s), %.3g %% of the run's %.2f s "
            "wall time\n", fit, r->meta.lanes, r->meta.lanes == 1 ? "" : "s", total > 0 ? 100 * fit / total : 0.0,
            total);
}

/* --meta: written by rank 0 alone, complete or with the error that ended the run. */
static int meta_write(struct offsets_run *r, const char *path, size_t written, int status)
{
    r->meta.t_end = now_seconds();
    if (r->strain) {
        r->meta.strain = 1;
        r->meta.strain_fit_seconds = clx_strain_job_fit_seconds(r->strain);
    }
    for (size_t d = 0; d < r->ndevices && d < RUN_META_MAX_DEVICES; d++)
        r->meta.devices[d].images = r->device_images[d];
    if (!path || (r->mpi && mpi_rank() != 0))
        return 0;
    return run_meta_write(&r->meta, path, written, status == EXIT_OK ? NULL : report_last_error());
}

int offsets_report(struct offsets_run *r, const struct offsets_args *a, int failed, const char *why)
{
    double elapsed = r->meta.t_ready > 0 ? now_seconds() - r->meta.t_ready : 0;
    failed = failure_report(r, failed, why);
    size_t written = r->kept + (r->mpi ? r->split.written : r->done);
    failed = offsets_output_close(r, failed, written) != 0;
    int status = failed ? EXIT_FAILURE_RUN : EXIT_OK;
    if (!failed) {
        summary_report(r, written, elapsed);
        fit_time_report(r);
    }
    if (status == EXIT_OK && a->quiver && quiver_draw(r, a->quiver, written - r->kept) != 0)
        status = EXIT_FAILURE_RUN;
    if (meta_write(r, a->meta, written, status) != 0)
        status = EXIT_FAILURE_RUN;
    /* Rank 0 ends every rank: the others may be waiting to send rows. */
    if (failed && r->mpi && mpi_rank() == 0)
        mpi_abort();
    return status;
}
