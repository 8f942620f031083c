/* strain_remap.c - `clxcorr strain --remap` (strain_remap.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "offsets_run.h"
#include "strain_remap.h"

static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

int strain_remap_setup(struct offsets_run *r, int passes, double tol_degrees, int whole)
{
    struct strain_remap *m = calloc(1, sizeof *m);
    size_t n = r->local_count ? r->local_count : 1;
    if (r->mpi) {
        report_error("--remap does not run under mpirun yet: run one process per GPU with --shard, or one process");
        free(m);
        return -1;
    }
    if (!m || !(m->map = malloc(n * sizeof *m->map)) || !(m->w = calloc(n, sizeof *m->w)) ||
        !(m->settled = calloc(n, 1))) {
        report_error("out of memory");
        if (m)
            strain_remap_free(m);
        return -1;
    }
    for (size_t j = 0; j < n; j++)
        memcpy(m->map[j], identity, sizeof identity);
    pthread_mutex_init(&m->lock, NULL);
    m->whole = whole;
    m->tol = tol_degrees * M_PI / 180;
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
    free(m->map);
    free(m->w);
    free(m->settled);
    free(m);
}

int strain_remap_load(struct offsets_run *r, size_t j, clx_image *staged, clx_message *msg)
{
    struct strain_remap *m = r->remap;
    size_t item = offsets_item_index(r, j);
    if (memcmp(m->map[j], identity, sizeof identity) == 0)
        return image_item_load_into(&r->items, item, staged, NULL, 0, msg);
    clx_image img, warped;
    int status = image_item_load(&r->items, item, &img, msg);
    if (status != CLX_OK)
        return status;
    double pc[3], h[9];
    const struct strain_job *job = r->strain;
    strain_job_pattern_centre(job, item, pc);
    clx_remap_homography(&job->references[strain_job_reference_of(job, item)].detector, pc, m->map[j], h);
    pthread_mutex_lock(&m->lock);
    status = m->warp ? CLX_OK : clx_warp_create(r->ctxs[0], &m->warp);
    if (status == CLX_OK)
        status = clx_warp_apply(m->warp, &img, h, &warped);
    if (status != CLX_OK)
        snprintf(msg->text, sizeof msg->text, "--remap: %s", clx_context_message(r->ctxs[0]));
    pthread_mutex_unlock(&m->lock);
    clx_image_free(&img);
    if (status == CLX_OK) {
        status = clx_image_copy_to(&warped, staged, msg);
        clx_image_free(&warped);
    }
    return status;
}

/* A pass's lane, as soon as image j's results are in: its fit, and the map the next pass remaps it by. */
static int estimate(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct offsets_run *r = user;
    struct strain_remap *m = r->remap;
    struct strain_row row;
    (void)nregions;
    int status = strain_job_fit(r->strain, offsets_item_index(r, j), m->map[j], results, &row, msg);
    if (status != CLX_OK)
        return status;
    const clx_strain s = row.fit;
    if (s.flags & (CLX_STRAIN_FEW_WINDOWS | CLX_STRAIN_SINGULAR | CLX_STRAIN_NO_GRAIN)) {
        m->settled[j] = 1;   /* nothing to remap by: left as it is */
        return CLX_OK;
    }
    double change = 0;
    for (int k = 0; k < 3; k++)
        change = fmax(change, fabs(s.w[k] - m->w[j][k]));
    memcpy(m->w[j], s.w, sizeof s.w);
    m->settled[j] = change < m->tol;
    clx_remap_map(s.beta_detector, m->whole, m->map[j]);
    return CLX_OK;
}

static int count_settled(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg)
{
    struct offsets_run *r = user;
    (void)results;
    (void)nregions;
    (void)msg;
    r->remap->settled_count += r->remap->settled[j];
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
                                   r->local_count, load_remapped, count_settled, r, &done) != CLX_OK) {
            snprintf(why->text, sizeof why->text, "--remap pass %d: %s", pass, clx_context_message(r->ctxs[0]));
            return -1;
        }
        report_info("--remap pass %d of at most %d: %zu of %zu patterns settled (rotation changed by less than "
                    "%g degree)", pass, m->passes, m->settled_count, r->local_count, m->tol * 180 / M_PI);
        /* The first pass only measures: every pattern is remapped at least once. */
        if (pass > 1 && m->settled_count == r->local_count)
            break;
    }
    return 0;
}
