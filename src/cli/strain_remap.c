/* strain_remap.c - `clxcorr strain --remap` (strain_remap.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "offsets_run.h"
#include "strain_remap.h"

int strain_remap_setup(struct offsets_run *r, int passes, double tol_degrees)
{
    if (r->mpi) {
        report_error("--remap does not run under mpirun yet: run one process per GPU with --shard, or one process");
        return -1;
    }
    struct strain_remap *m = calloc(1, sizeof *m);
    if (!m) {
        report_error("out of memory");
        return -1;
    }
    pthread_mutex_init(&m->lock, NULL);
    m->tol_degrees = tol_degrees;
    m->passes = passes;
    r->remap = m;
    clx_image f32;
    clx_message msg;
    if (clx_image_alloc(&f32, r->ref.width, r->ref.height, CLX_PIXEL_F32, &msg) != CLX_OK ||
        clx_image_copy_to(&r->ref, &f32, &msg) != CLX_OK) {
        report_error("reference: %s", msg.text);
        return -1;
    }
    clx_image_free(&r->ref);
    r->ref = f32;
    return 0;
}

void strain_remap_free(struct strain_remap *m)
{
    if (!m)
        return;
    clx_warp_release(m->warp);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

int strain_remap_load(struct offsets_run *r, size_t j, clx_image *staged, clx_message *msg)
{
    size_t item = offsets_item_index(r, j);
    if (!clx_strain_job_remapped(r->strain, item))
        return image_item_load_into(&r->items, item, staged, NULL, 0, msg);
    clx_image img;
    int status = image_item_load(&r->items, item, &img, msg);
    if (status != CLX_OK)
        return status;
    struct strain_remap *m = r->remap;
    pthread_mutex_lock(&m->lock);
    status = m->warp ? CLX_OK : clx_warp_create(r->ctxs[0], &m->warp);
    if (status == CLX_OK)
        status = clx_strain_job_warp(r->strain, m->warp, item, &img, staged, msg);
    if (status != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "--remap: %s", clx_context_message(r->ctxs[0]));
    pthread_mutex_unlock(&m->lock);
    clx_image_free(&img);
    return status;
}

/* A pass's lane, as soon as image j's results are in: its fit, and the
 * map the next pass remaps it by; the settled ones counted. */
static int estimate(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct offsets_run *r = user;
    int settled = 0;
    int status = clx_strain_job_remap_estimate(r->strain, offsets_item_index(r, j), results, nregions, &settled, msg);
    if (status == CLX_OK && settled)
        __atomic_add_fetch(&r->remap->settled_count, 1, __ATOMIC_RELAXED);
    return status;
}

/* Nothing is written before the last pass. */
static int pass_deliver(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    (void)user;
    (void)j;
    (void)results;
    (void)nregions;
    (void)msg;
    return CLX_OK;
}

static int load_remapped(void *user, size_t j, clx_image *staged, clx_message *msg)
{
    return strain_remap_load(user, j, staged, msg);
}

int strain_remap_passes(struct offsets_run *r, const clx_plan_options *plan, const clx_stream_options *stream,
                        clx_message *why)
{
    struct strain_remap *m = r->remap;
    clx_stream_options so = *stream;
    so.started = NULL;
    so.progress = NULL;
    so.finish = estimate;
    so.device_images = NULL;
    for (int pass = 1; pass <= m->passes; pass++) {
        m->settled_count = 0;
        size_t done = 0;
        if (clx_stream_run_devices(r->ctxs, r->ndevices, &r->ref, r->regions, r->nregions, plan, &so,
                                   r->local_count, load_remapped, pass_deliver, r, &done) != CLX_OK) {
            snprintf(why->text, sizeof why->text, "--remap pass %d: %s", pass, clx_context_message(r->ctxs[0]));
            return -1;
        }
        report_info("--remap pass %d of at most %d: %zu of %zu patterns settled (rotation changed by less than "
                    "%g degree)", pass, m->passes, m->settled_count, r->local_count, m->tol_degrees);
        /* The first pass only measures: every pattern is remapped at least once. */
        if (pass > 1 && m->settled_count == r->local_count)
            break;
    }
    return 0;
}
