/*
 * offsets_piv.c - `clxcorr offsets --reference pairs` through PIV's
 * deforming passes (clx_multipass): --passes N or a window per pass
 * (--window 64,32,16), or the validation options, on a --grid-step grid.
 *
 * The pairs go through one device in batches: both frames of each pair are
 * read here, the multi-pass measures, validates and replaces, and each
 * pair's rows go to offsets_rows.c like any other run's, in input order.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offsets_run.h"

/* The multi-pass's last grid is the --grid-step grid the rows name. */
static int grids_agree(const struct offsets_run *r, clx_multipass *mp, clx_message *msg)
{
    size_t n;
    const clx_region *regions = clx_multipass_regions(mp, &n);
    int same = n == r->nregions;
    for (size_t w = 0; same && w < n; w++)
        same = regions[w].x == r->regions[w].x && regions[w].y == r->regions[w].y && regions[w].w == r->regions[w].w;
    if (!same)
        snprintf(msg->text, sizeof msg->text, "internal error: the passes' grid (%zu windows) is not the rows' (%zu)",
                 n, r->nregions);
    return same ? CLX_OK : CLX_ERR_REGION;
}

/* The passes are ready: --explain, --meta and -v say how they measure, and
 * the output opens (so a job the device refuses leaves no file behind). */
static int passes_started(struct offsets_run *r, clx_multipass *mp, const clx_multipass_options *o,
                          clx_message *msg)
{
    clx_context *ctx = r->ctxs[0];
    int batch = clx_multipass_batch_size(mp);
    if (r->ndevices > 1)
        report_info("deforming passes run on one device: %s", clx_context_device(ctx)->name);
    for (int k = 0; r->explain && k < o->passes; k++)
        fprintf(stderr, "clxcorr: pass %d (%d px windows): %s\n", k + 1, o->window[k],
                clx_plan_explanation(clx_multipass_plan(mp, k)));
    report_info("%s: %d passes, batches of %d pairs", clx_context_device(ctx)->name, o->passes, batch);
    run_meta_device(&r->meta, 0, ctx, clx_multipass_plan(mp, o->passes - 1));
    r->meta.lanes = 1;
    int status = grids_agree(r, mp, msg);
    if (status == CLX_OK)
        status = offsets_rows_init(r, (size_t)batch, msg);
    if (status != CLX_OK)
        return status;
    r->all_set_up = 1;
    r->meta.t_ready = now_seconds();
    offsets_interrupts_settle();
    return offsets_output_open(r, msg);
}

/* Item i, of the run's size: an error names the file and the problem. */
static int frame_load(const struct offsets_run *r, size_t i, clx_image *img, clx_message *msg)
{
    int status = image_item_load(&r->items, i, img, msg);
    if (status != CLX_OK || (img->width == r->ref.width && img->height == r->ref.height))
        return status;
    char *name = image_item_name(&r->items, i);
    snprintf(msg->text, sizeof msg->text, "%s is %dx%d but the first pair's %s is %dx%d", name ? name : "an image",
             img->width, img->height, r->reference, r->ref.width, r->ref.height);
    free(name);
    clx_image_free(img);
    return CLX_ERR_SIZE;
}

/* Pairs j0 .. j0+n-1: read, measured through every pass, their rows
 * written. */
static int batch_run(struct offsets_run *r, clx_multipass *mp, size_t j0, size_t n, clx_image *a, clx_image *b,
                     clx_result *results, clx_message *msg)
{
    int status = CLX_OK;
    size_t loaded = 0;
    for (size_t i = 0; i < n; i++) {
        if ((status = frame_load(r, offsets_reference_item(r, j0 + i), &a[i], msg)) != CLX_OK)
            break;
        if ((status = frame_load(r, offsets_item_index(r, j0 + i), &b[i], msg)) != CLX_OK) {
            clx_image_free(&a[i]);
            break;
        }
        loaded++;
    }
    if (status == CLX_OK &&
        (status = clx_multipass_run(mp, a, b, n, results, n * r->nregions)) != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "%s", clx_context_message(r->ctxs[0]));
    for (size_t i = 0; i < loaded; i++) {
        clx_image_free(&a[i]);
        clx_image_free(&b[i]);
    }
    for (size_t i = 0; status == CLX_OK && i < n; i++) {
        const clx_result *own = results + i * r->nregions;
        if ((status = offsets_rows_format(r, j0 + i, own, r->nregions, msg)) == CLX_OK &&
            (status = offsets_rows_write(r, j0 + i, own, r->nregions, msg)) == CLX_OK)
            r->done++;
    }
    return status;
}

enum offsets_stream_end offsets_piv_stream(struct offsets_run *r, const clx_multipass_options *o, clx_message *why)
{
    clx_multipass *mp = NULL;
    clx_image *a = NULL, *b = NULL;
    clx_result *results = NULL;
    int status = clx_multipass_create(r->ctxs[0], r->ref.width, r->ref.height, o, &mp);
    if (status != CLX_OK) {
        snprintf(why->text, sizeof why->text, "%s", clx_context_message(r->ctxs[0]));
        return OFFSETS_FAILED;
    }
    size_t batch = (size_t)clx_multipass_batch_size(mp);
    a = calloc(batch, sizeof *a);
    b = calloc(batch, sizeof *b);
    results = malloc(batch * r->nregions * sizeof *results);
    if (!a || !b || !results) {
        snprintf(why->text, sizeof why->text, "out of memory for %zu pairs of results", batch);
        status = CLX_ERR_HOST_MEMORY;
    } else {
        status = passes_started(r, mp, o, why);
    }
    progress_start(&r->progress, r->count);
    for (size_t j = 0; status == CLX_OK && j < r->local_count; j += batch) {
        if (offsets_interrupted()) {
            status = CLX_ERR_CANCELLED;
            break;
        }
        size_t n = r->local_count - j < batch ? r->local_count - j : batch;
        status = batch_run(r, mp, j, n, a, b, results, why);
        r->device_images[0] = r->done;
        progress_update(&r->progress, r->done);
    }
    progress_finish(&r->progress);
    clx_multipass_release(mp);
    free(a);
    free(b);
    free(results);
    return status == CLX_OK ? OFFSETS_STREAMED : OFFSETS_FAILED;
}
