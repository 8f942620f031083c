/*
 * strain_run.c - a strain job (src/strain/job.h) on the devices: the warp
 * of a remapped pattern, and the whole job through clx_stream_run_devices
 * (remapping passes until the patterns settle, then the rows' pass). The
 * command drives the same job through its own stream (shards, ranks,
 * outputs) with the same calls: clx_strain_job_remap_estimate between
 * passes, clx_strain_job_warp in its loaders, clx_strain_job_fit per row.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "strain/job.h"

void clx_strain_job_plan_options(clx_plan_options *o)
{
    clx_plan_options_init(o);
    /* bench/strain-accuracy.sh: under Poisson noise a Tukey window's wider
     * plateau halves the strain error of Hann's, at the same accuracy
     * without noise. */
    o->window = CLX_WINDOW_TUKEY;
    o->window_alpha = 0.5;
}

int clx_strain_job_warp(const clx_strain_job *job, clx_warp *warp, size_t k, const clx_image *image,
                        clx_image *staged, clx_message *msg)
{
    if (!job->map || k >= job->count || !warp)
        return job_fail(msg, CLX_ERR_STATE, "pattern %zu of a strain job is not remapped", k);
    double pc[3], h[9];
    clx_image warped;
    clx_strain_job_pattern_centre(job, k, pc);
    clx_remap_homography(&job->references[clx_strain_job_reference_of(job, k)].detector, pc, job->map[k], h);
    int status = clx_warp_apply(warp, image, h, &warped);
    if (status != CLX_OK)
        return status;
    status = clx_image_copy_to(&warped, staged, msg);
    clx_image_free(&warped);
    return status;
}

/* ---- the whole job ------------------------------------------------------------ */

struct run {
    clx_strain_job *job;
    clx_context *context;        /* the warp's */
    clx_warp *warp;              /* made on the first remapped pattern */
    pthread_mutex_t lock;        /* one loader at a time in the warp */
    clx_stream_load_fn load;
    clx_strain_deliver_fn deliver;
    void *user;
    clx_strain_row *rows;        /* per pattern, fitted by the lanes, delivered in order */
    size_t settled;              /* a remapping pass's settled patterns */
    int (*cancelled)(void *user); /* the caller's (stream options), called with its user */
};

/* The caller's cancelled callback, with the caller's user (the stream's is the run). */
static int cancelled(void *user)
{
    struct run *r = user;
    return r->cancelled(r->user);
}

/* Pattern k: the caller's, remapped by the job's map when it has one. */
static int load(void *user, size_t k, clx_image *staged, clx_message *msg)
{
    struct run *r = user;
    if (!clx_strain_job_remapped(r->job, k))
        return r->load(r->user, k, staged, msg);
    clx_image image;
    int status = clx_image_alloc(&image, staged->width, staged->height, staged->type, msg);
    if (status != CLX_OK)
        return status;
    status = r->load(r->user, k, &image, msg);
    if (status == CLX_OK) {
        pthread_mutex_lock(&r->lock);
        status = r->warp ? CLX_OK : clx_warp_create(r->context, &r->warp);
        if (status == CLX_OK)
            status = clx_strain_job_warp(r->job, r->warp, k, &image, staged, msg);
        if (status != CLX_OK)
            job_fail(msg, status, "--remap: %s", clx_context_message(r->context));
        pthread_mutex_unlock(&r->lock);
    }
    clx_image_free(&image);
    return status;
}

static int estimate(void *user, size_t k, const clx_result *results, size_t n, clx_message *msg)
{
    struct run *r = user;
    return clx_strain_job_remap_estimate(r->job, k, results, n, NULL, msg);
}

static int count_settled(void *user, size_t k, const clx_result *results, size_t n, clx_message *msg)
{
    struct run *r = user;
    (void)results;
    (void)n;
    (void)msg;
    r->settled += r->job->settled[k];
    return CLX_OK;
}

static int fit(void *user, size_t k, const clx_result *results, size_t n, clx_message *msg)
{
    struct run *r = user;
    return clx_strain_job_fit(r->job, k, results, n, &r->rows[k], msg);
}

static int deliver(void *user, size_t k, const clx_result *results, size_t n, clx_message *msg)
{
    struct run *r = user;
    (void)results;
    (void)n;
    return r->deliver(r->user, k, &r->rows[k], msg);
}

/* The run's staged reference (float when remapping: the warp's output)
 * and, with grains, each grain's in its type. */
static int references_stage(const clx_strain_job *job, const clx_image *given, clx_image *ref, clx_image **grains,
                            clx_message *msg)
{
    const clx_image *first = given ? given : job->grain_count ? &job->references[0].image : NULL;
    if (!first)
        return job_fail(msg, CLX_ERR_ARGUMENT, "clx_strain_job_run: no reference image");
    clx_pixel_type type = job->map ? CLX_PIXEL_F32 : first->type;
    int status = clx_image_alloc(ref, first->width, first->height, type, msg);
    if (status == CLX_OK)
        status = clx_image_copy_to(first, ref, msg);
    if (status != CLX_OK || job->grain_count == 0)
        return status;
    if (!(*grains = calloc(job->nreferences, sizeof **grains)))
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    for (size_t g = 0; g < job->nreferences && status == CLX_OK; g++) {
        status = clx_image_alloc(&(*grains)[g], ref->width, ref->height, type, msg);
        if (status == CLX_OK)
            status = clx_image_copy_to(&job->references[g].image, &(*grains)[g], msg);
    }
    return status;
}

int clx_strain_job_run(clx_strain_job *job, clx_context *const *contexts, size_t ncontexts,
                       const clx_image *reference, const clx_plan_options *plan, const clx_stream_options *stream,
                       clx_stream_load_fn load_fn, clx_strain_deliver_fn deliver_fn, void *user, clx_message *msg)
{
    if (!job || !contexts || ncontexts == 0 || !load_fn || !deliver_fn)
        return job_fail(msg, CLX_ERR_ARGUMENT, "clx_strain_job_run: a job, contexts, load and deliver are needed");
    clx_plan_options plan_defaults;
    if (!plan) {
        clx_strain_job_plan_options(&plan_defaults);
        plan = &plan_defaults;
    }
    clx_stream_options so;
    clx_stream_options_init(&so);
    if (stream) {
        so.lanes = stream->lanes;
        so.loaders = stream->loaders;
        so.cancelled = stream->cancelled ? cancelled : NULL;
        so.device_images = stream->device_images;
    }
    struct run r = { job, contexts[0], NULL, PTHREAD_MUTEX_INITIALIZER, load_fn, deliver_fn, user, NULL, 0,
                     stream ? stream->cancelled : NULL };
    clx_image ref = { 0 }, *grains = NULL;
    size_t *reference_of = NULL;
    int status = references_stage(job, reference, &ref, &grains, msg);
    if (status == CLX_OK && !(r.rows = calloc(job->count ? job->count : 1, sizeof *r.rows)))
        status = job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    if (status == CLX_OK && grains) {
        if (!(reference_of = malloc((job->count ? job->count : 1) * sizeof *reference_of)))
            status = job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
        for (size_t k = 0; status == CLX_OK && k < job->count; k++)
            reference_of[k] = clx_strain_job_reference_of(job, k);
        so.references = grains;
        so.reference_count = job->nreferences;
        so.reference_of = reference_of;
    }
    /* Remapping: the first pass only measures, so every pattern is
     * remapped at least once; then until all settle. */
    for (int pass = 1; status == CLX_OK && job->map && job->count > 0 && pass <= job->options.remap_passes; pass++) {
        so.finish = estimate;
        r.settled = 0;
        status = clx_stream_run_devices(contexts, ncontexts, &ref, job->regions, job->nwindows, plan, &so, job->count, load, count_settled,
                                        &r, NULL);
        if (status != CLX_OK)
            job_fail(msg, status, "--remap pass %d: %s", pass, clx_context_message(contexts[0]));
        else
            job_info(job, "--remap pass %d of at most %d: %zu of %zu patterns settled", pass,
                     job->options.remap_passes, r.settled, job->count);
        if (status == CLX_OK && pass > 1 && r.settled == job->count)
            break;
    }
    if (status == CLX_OK && job->count > 0) {
        so.finish = fit;
        status = clx_stream_run_devices(contexts, ncontexts, &ref, job->regions, job->nwindows, plan, &so, job->count, load, deliver, &r,
                                        NULL);
        if (status != CLX_OK && status != CLX_ERR_CANCELLED)
            job_fail(msg, status, "%s", clx_context_message(contexts[0]));
    }
    clx_image_free(&ref);
    for (size_t g = 0; grains && g < job->nreferences; g++)
        clx_image_free(&grains[g]);
    free(grains);
    free(reference_of);
    free(r.rows);
    clx_warp_release(r.warp);
    pthread_mutex_destroy(&r.lock);
    return status;
}
