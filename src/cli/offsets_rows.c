/*
 * offsets_rows.c - the rows of `clxcorr offsets`: formatted by the
 * stream's lanes as soon as an image's results are in, then written in
 * input order by the calling thread (under MPI, rank 0 writes every rank's
 * rows: mpi_ranks.h), to standard output or to FILE.part, renamed FILE when
 * the run completes (output/csv_output.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offsets_run.h"

int offsets_header_format(const struct offsets_run *r, char *buf, size_t len)
{
    size_t used = 0;
    if (r->sharded) {
        shard_format(&r->shard, buf, len);
        used = strlen(buf);
    }
    return row_format_header(r->format, buf + used, len - used) < 0 ? -1 : 0;
}

const struct row_scan_point *offsets_scan_point(const struct offsets_run *r, size_t item, struct row_scan_point *p)
{
    if (!r->scan)
        return NULL;
    image_item_scan_point(&r->items, item, r->scan, &p->row, &p->col);
    p->x = r->scan->step_x > 0 ? p->col * r->scan->step_x : NAN;
    p->y = r->scan->step_y > 0 ? p->row * r->scan->step_y : NAN;
    return p;
}

int offsets_rows_init(struct offsets_run *r, size_t in_flight, clx_message *msg)
{
    r->ring_size = in_flight;
    r->ring = calloc(r->ring_size, sizeof *r->ring);
    if (r->masking && !(r->expanded = calloc(r->ring_size * r->nregions, sizeof *r->expanded))) {
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    if (r->strain && r->ring)
        r->strains = calloc(r->ring_size, sizeof *r->strains);
    if (!r->ring || (r->strain && !r->strains)) {
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    return CLX_OK;
}

/* The run's images are its scan's points, all of them, in scan order: the
 * HDF5 file's datasets can then have the scan grid's shape. */
static int run_is_whole_scan(const struct offsets_run *r)
{
    if (!r->scan || r->first != 0 || r->count != (size_t)r->scan->rows * (size_t)r->scan->cols)
        return 0;
    for (size_t i = 0; i < r->count; i++) {
        long row, col;
        image_item_scan_point(&r->items, i, r->scan, &row, &col);
        if ((size_t)(row * r->scan->cols + col) != i)
            return 0;
    }
    return 1;
}

static int h5_open(struct offsets_run *r, clx_message *msg)
{
    const struct h5_output_shape shape = {
        .images = r->count,
        .scan = r->scan,
        .grid = run_is_whole_scan(r),
        .regions = r->regions,
        .nregions = r->nregions,
        .format = r->format,
        .mode = r->strain ? "strain" : r->meta.plan && r->meta.plan->mode == CLX_MODE_ACCURATE ? "accurate" : "seed",
    };
    return h5_output_open(&r->h5, r->output, &shape, r->meta.argc, r->meta.argv, msg);
}

int offsets_output_open(struct offsets_run *r, clx_message *msg)
{
    if (r->mpi && mpi_rank() != 0)
        return CLX_OK;
    char header[1024];
    int status;
    if (r->format->kind == ROW_FORMAT_H5)
        status = h5_open(r, msg);
    else if (r->format->kind == ROW_FORMAT_VTK || r->format->kind == ROW_FORMAT_OPENPIV) {
        const struct field_output_shape shape = { r->count, r->regions, r->nregions, r->format };
        status = field_output_open(&r->field, r->output, &shape, msg);
    }
    else if (r->resume.complete)
        return CLX_OK;   /* --resume found FILE complete: nothing to write */
    else if (offsets_header_format(r, header, sizeof header) != 0)
        status = (snprintf(msg->text, sizeof msg->text, "the header does not fit"), CLX_ERR_HOST_MEMORY);
    else if (r->resume.part) {
        status = csv_output_continue(&r->out, r->output, r->resume.part, header, r->kept, r->resume.bytes,
                                     &r->fingerprint, offsets_rows_per_image(r), msg);
        r->resume.part = NULL;
    } else
        status = csv_output_open(&r->out, r->output, header, r->output ? &r->fingerprint : NULL,
                                 offsets_rows_per_image(r), msg);
    r->out_open = status == CLX_OK;
    return status;
}

/* strain: pattern j's fit, then its row (none for HDF5: the writer takes the strain). */
static int strain_row_format(struct offsets_run *r, size_t j, const clx_result *results, clx_message *msg)
{
    size_t item = offsets_item_index(r, j);
    clx_strain_row *s = &r->strains[j % r->ring_size];
    if (r->unreadable && r->unreadable[j])
        results = r->unreadable_results;
    int status = clx_strain_job_fit(r->strain, item, results, r->nregions, s, msg);
    if (status != CLX_OK || r->h5)
        return status;
    struct row_scan_point point;
    char *name = image_item_name(&r->items, item);
    status = name ? row_format_pattern(r->format, &r->ring[j % r->ring_size], name,
                                       offsets_scan_point(r, item, &point), s)
                  : CLX_ERR_HOST_MEMORY;
    free(name);
    if (status != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "out of memory");
    return status;
}

/* Image j's results for every window: as measured, or with --mask the
 * measured ones in their places among the masked ones' (the slot of image
 * j, which it holds until its rows are written). */
static const clx_result *all_windows(struct offsets_run *r, size_t j, const clx_result *results)
{
    return r->masking ? r->expanded + (j % r->ring_size) * r->nregions : results;
}


/* Image j's rows as text: its name, its own reference's (pairs and
 * sequences), a sequence's totals, then the results. */
static int image_rows_format(struct offsets_run *r, size_t j, const clx_result *results, size_t nregions,
                             clx_message *msg)
{
    size_t item = offsets_item_index(r, j), ref_item = offsets_reference_item(r, j);
    struct row_scan_point point;
    char *name = image_item_name(&r->items, item);
    char *ref_name = ref_item != SIZE_MAX ? image_item_name(&r->items, ref_item) : NULL;
    struct row_extras extras = { ref_name ? ref_name : r->reference, r->total_dx, r->total_dy };
    if (r->unreadable && r->unreadable[j])
        results = r->unreadable_results;
    int status = name && (ref_item == SIZE_MAX || ref_name)
                     ? row_format_image(r->format, &r->ring[j % r->ring_size], name,
                                        offsets_scan_point(r, item, &point), &extras, r->regions, nregions, results)
                     : CLX_ERR_HOST_MEMORY;
    free(name);
    free(ref_name);
    if (status != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "out of memory");
    return status;
}

/* A lane's thread, as soon as image j's results are in: its rows as text.
 * A sequence's rows wait for the writer, which knows the totals so far. */
int offsets_rows_format(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct offsets_run *r = user;
    if (r->masking) {
        window_mask_expand(&r->mask, results, &r->masked_result, (clx_result *)all_windows(r, j, results));
        results = all_windows(r, j, results);
        nregions = r->nregions;
    }
    if (r->strain)
        return strain_row_format(r, j, results, msg);
    if (r->h5 || r->field || r->pairing == PAIRING_PREVIOUS)
        return CLX_OK;
    return image_rows_format(r, j, results, nregions, msg);
}

/* A sequence (--reference previous), in input order: each window's
 * displacement summed over the images so far, then image j's rows. An
 * image with no offset (nan) leaves the sums as they were. */
static int sequence_rows_format(struct offsets_run *r, size_t j, const clx_result *results, size_t nregions,
                                clx_message *msg)
{
    for (size_t w = 0; w < nregions; w++) {
        if (!isnan(results[w].dx))
            r->total_dx[w] += results[w].dx;
        if (!isnan(results[w].dy))
            r->total_dy[w] += results[w].dy;
    }
    return image_rows_format(r, j, results, nregions, msg);
}

/* Image j's results into the HDF5 file's columns. */
static int h5_write(struct offsets_run *r, size_t j, const clx_result *results, clx_message *msg)
{
    size_t item = offsets_item_index(r, j);
    struct row_scan_point point;
    char *name = image_item_name(&r->items, item);
    if (!name)
        return (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    int status = r->strain ? h5_output_pattern(r->h5, offsets_run_index(r, j), name,
                                               offsets_scan_point(r, item, &point), &r->strains[j % r->ring_size], msg)
                           : h5_output_image(r->h5, offsets_run_index(r, j), name, offsets_scan_point(r, item, &point),
                                             results, msg);
    free(name);
    return status;
}

/* Image j's field file. */
static int field_write(struct offsets_run *r, size_t j, const clx_result *results, clx_message *msg)
{
    char *name = image_item_name(&r->items, offsets_item_index(r, j));
    if (!name)
        return (snprintf(msg->text, sizeof msg->text, "out of memory"), CLX_ERR_HOST_MEMORY);
    int status = field_output_image(r->field, offsets_run_index(r, j), name, results, msg);
    free(name);
    return status;
}

/* The calling thread, in input order: image j's rows, already formatted.
 * Under MPI, rank 0 writes them after the other ranks' earlier chunks, and
 * the other ranks send them to rank 0. */
int offsets_rows_write(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct offsets_run *r = user;
    const struct csv_text *rows = &r->ring[j % r->ring_size];
    int unreadable = r->unreadable && r->unreadable[j];
    int status;
    results = all_windows(r, j, results);
    if (r->pairing == PAIRING_PREVIOUS && !r->field &&
        (status = sequence_rows_format(r, j, unreadable ? r->unreadable_results : results, r->nregions, msg)) !=
            CLX_OK)
        return status;
    if (r->drawing && !unreadable)
        quiver_mean_add_results(&r->mean, results);
    if (r->h5)
        return h5_write(r, j, unreadable ? r->unreadable_results : results, msg);
    if (r->field)
        return field_write(r, j, unreadable ? r->unreadable_results : results, msg);
    if (!r->mpi)
        return csv_output_write(&r->out, rows, msg);
    if (mpi_rank() == 0)
        return mpi_split_write_own(&r->split, offsets_run_index(r, j), rows, &r->out, msg);
    return mpi_split_send_own(&r->split, offsets_run_index(r, j), rows, msg);
}

int offsets_output_close(struct offsets_run *r, int failed, size_t written)
{
    clx_message msg;
    int opened = r->out_open;
    int closed = CLX_OK;
    if (opened && r->h5)
        closed = h5_output_close(r->h5, !failed, &msg);
    else if (opened && r->field)
        field_output_close(r->field);
    else if (opened)
        closed = csv_output_close(&r->out, !failed, &msg);
    r->h5 = NULL;
    r->field = NULL;
    r->out_open = 0;
    if (closed != CLX_OK && failed) {
        /* What stopped the run was said already; that its output could not
         * be kept either (an HDF5 file on a full disk) is its consequence. */
        report_note("%s", msg.text);
        return -1;
    }
    if (closed != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    if (failed && opened && (r->format->kind == ROW_FORMAT_VTK || r->format->kind == ROW_FORMAT_OPENPIV))
        report_note("stopped after %zu images; their files are whole", written);
    else if (failed && opened && r->format->kind == ROW_FORMAT_H5)
        report_note("stopped after %zu images; their values are in %s.part (the others read as NaN, flags "
                    "as 4294967295)", written, r->output);
    else if (failed && opened && r->output && strcmp(r->output, "-") != 0 && written + r->kept > 0)
        report_note("stopped after %zu images; their rows are in %s.part (the same command with --resume "
                    "continues)", written, r->output);
    return failed ? -1 : 0;
}
