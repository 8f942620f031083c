/*
 * job.c - a strain job made and released (job.h, clx_strain_job in
 * clxcorr.h): the geometry, orientations, grains and references in that
 * order, then the windows, checked once by fitting the reference against
 * itself (every shift 0 must give a fit).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strain/job.h"

void clx_strain_job_options_init(clx_strain_job_options *o)
{
    memset(o, 0, sizeof *o);
    o->sample_tilt = o->detector_tilt = o->pixel_size = o->step_x = o->step_y = NAN;
    clx_strain_options_init(&o->fit);
    o->pattern_centres = CLX_PC_AUTO;
    o->remap_tol = 0.01;
    o->remap_passes = 4;
    o->grain_angle = 5;
    o->min_grain = 10;
    o->symmetry = -1;
}

/* The references: the one given, or each grain's, its pattern loaded for
 * the stream's references. */
static int references_resolve(clx_strain_job *job, const struct job_reference_pattern *rp, clx_message *msg)
{
    job->nreferences = job->grain_count > 0 ? (size_t)job->grain_count : 1;
    job->references = calloc(job->nreferences, sizeof *job->references);
    if (!job->references)
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    if (job->grain_count == 0) {
        clx_strain_reference *r = &job->references[0];
        r->detector = job->detector;
        r->row = rp->row;
        r->col = rp->col;
        r->pattern = SIZE_MAX;
        r->patterns = job->count;
        /* --euler's or --orientations' at its point, else its file's own. */
        if (job_orientation_at(job, rp->row, rp->col, -1, r->euler) != 0 && rp->known)
            memcpy(r->euler, rp->euler, sizeof r->euler);
        return CLX_OK;
    }
    for (size_t k = 0; k < job->count; k++)
        if (job->pattern_grain[k] > 0)
            job->references[job->pattern_grain[k] - 1].patterns++;
    for (size_t g = 0; g < job->nreferences; g++) {
        clx_strain_reference *r = &job->references[g];
        size_t k = job->grain_pattern[g];
        double pc[3];
        clx_message why;
        r->pattern = k;
        r->detector = job->detector;
        clx_strain_job_pattern_centre(job, k, pc);
        r->detector.pcx = pc[0];
        r->detector.pcy = pc[1];
        r->detector.pcz = pc[2];
        job_pattern_point(job, k, &r->row, &r->col);
        job_pattern_orientation(job, k, r->euler);
        int status = clx_image_file_read(job->file, job->pages[k], &r->image, &why);
        if (status != CLX_OK)
            return job_fail(msg, status, "grain %zu's reference: %s", g + 1, why.text);
    }
    return CLX_OK;
}

/* kikuchipy's azimuthal and twist angles turn the detector about two more
 * axes, which the fit does not model: refused, not ignored. */
static int angles_check(const clx_strain_job *job, clx_message *msg)
{
    const clx_scan_info *s = job->scan;
    const double *angles[2] = { s ? &s->azimuthal : NULL, s ? &s->twist : NULL };
    for (int k = 0; k < 2; k++)
        if (angles[k] && isfinite(*angles[k]) && fabs(*angles[k]) > 1e-9)
            return job_fail(msg, CLX_ERR_ARGUMENT, "the patterns' file gives a detector %s angle of %g degrees: "
                            "strain models a detector turned about its x axis alone (sample and detector tilts)",
                            k ? "twist" : "azimuthal", *angles[k]);
    return CLX_OK;
}

/* The windows' centres, and the geometry and windows checked at once: the
 * reference against itself (every shift 0) must give a fit. */
static int windows_set(clx_strain_job *job, const clx_region *regions, size_t n, clx_message *msg)
{
    int least = job->fit.min_windows > 4 ? job->fit.min_windows : 4;
    if (n < (size_t)least)
        return job_fail(msg, CLX_ERR_ARGUMENT, "strain needs at least %d windows per pattern (8 unknowns, 2 "
                        "equations a window); the run has %zu", least, n);
    job->nwindows = n;
    job->x = malloc(n * sizeof *job->x);
    job->y = malloc(n * sizeof *job->y);
    job->regions = malloc(n * sizeof *job->regions);
    clx_result *zero = calloc(n, sizeof *zero);
    if (!job->x || !job->y || !job->regions || !zero) {
        free(zero);
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    }
    memcpy(job->regions, regions, n * sizeof *regions);
    for (size_t w = 0; w < n; w++) {
        job->x[w] = regions[w].x + (regions[w].w - 1) / 2.0;
        job->y[w] = regions[w].y + (regions[w].h - 1) / 2.0;
        zero[w].zncc = zero[w].peak_ratio = NAN;   /* not screened */
    }
    clx_strain probe;
    clx_message why;
    int status = clx_strain_fit(&job->detector, NULL, NULL, job->x, job->y, zero, n, NULL, &job->fit, &probe, &why);
    free(zero);
    if (status != CLX_OK)
        return job_fail(msg, status, "strain geometry: %s", why.text);
    if (probe.flags & CLX_STRAIN_SINGULAR)
        return job_fail(msg, CLX_ERR_ARGUMENT, "the %zu windows do not fix the strain (they lie on a line, or "
                        "nearly): spread them over the pattern (--grid with at least 2 rows and 2 columns)", n);
    return CLX_OK;
}

static int patterns_take(clx_strain_job *job, const clx_strain_patterns *p, clx_message *msg)
{
    size_t n = p->count ? p->count : 1;
    job->count = p->count;
    job->detector.width = p->width;
    job->detector.height = p->height;
    job->scan = p->file ? clx_image_file_scan(p->file) : NULL;
    if (job->scan && job->scan->rows < 1)
        job->scan = NULL;
    job->file = job->scan ? p->file : NULL;
    job->pages = malloc(n * sizeof *job->pages);
    job->order = malloc(n * sizeof *job->order);
    if (!job->pages || !job->order)
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    for (size_t k = 0; k < p->count; k++) {
        job->pages[k] = p->pages ? p->pages[k] : (int)k;
        job->order[k] = k;
    }
    return CLX_OK;
}

/* --remap: each pattern's map starts as the identity, unsettled. */
static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

static int remap_setup(clx_strain_job *job, clx_message *msg)
{
    size_t n = job->count ? job->count : 1;
    if (!(job->map = malloc(n * sizeof *job->map)) || !(job->w = calloc(n, sizeof *job->w)) ||
        !(job->settled = calloc(n, 1)))
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    for (size_t k = 0; k < n; k++)
        memcpy(job->map[k], identity, sizeof identity);
    return CLX_OK;
}

static void remap_free(clx_strain_job *job)
{
    free(job->map);
    free(job->w);
    free(job->settled);
}

int clx_strain_job_create(const clx_strain_job_options *options, const clx_strain_patterns *patterns,
                          const clx_region *regions, size_t region_count, clx_strain_job **out, clx_message *msg)
{
    *out = NULL;
    if (!options || !patterns || (!regions && region_count))
        return job_fail(msg, CLX_ERR_ARGUMENT, "clx_strain_job_create: options, patterns and regions are needed");
    if (patterns->width < 1 || patterns->height < 1)
        return job_fail(msg, CLX_ERR_ARGUMENT, "clx_strain_job_create: patterns of %d x %d px", patterns->width,
                        patterns->height);
    clx_strain_job *job = calloc(1, sizeof *job);
    if (!job)
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    job->options = *options;
    job->fit = options->fit;
    struct job_reference_pattern rp;
    int status = patterns_take(job, patterns, msg);
    if (status == CLX_OK)
        status = job_grains_assign(job, msg);
    if (status == CLX_OK) {
        job_reference_read(patterns->reference, patterns->scan, &rp);
        status = job_geometry_resolve(job, &rp, msg);
    }
    if (status == CLX_OK)
        status = job_orientations_resolve(job, msg);
    if (status == CLX_OK)
        status = references_resolve(job, &rp, msg);
    if (status == CLX_OK)
        status = angles_check(job, msg);
    if (status == CLX_OK)
        status = windows_set(job, regions, region_count, msg);
    if (status == CLX_OK && options->remap)
        status = remap_setup(job, msg);
    if (status != CLX_OK) {
        clx_strain_job_release(job);
        return status;
    }
    *out = job;
    return CLX_OK;
}

void clx_strain_job_release(clx_strain_job *job)
{
    if (!job)
        return;
    for (size_t g = 0; job->references && g < job->nreferences; g++)
        clx_image_free(&job->references[g].image);
    free(job->references);
    free(job->regions);
    free(job->x);
    free(job->y);
    free(job->pages);
    free(job->order);
    free(job->pattern_grain);
    free(job->grain_pattern);
    clx_orientation_map_free(&job->orientations);
    remap_free(job);
    free(job);
}

/* ---- what the job resolved -------------------------------------------------- */

const size_t *clx_strain_job_order(const clx_strain_job *job)
{
    return job->order;
}

const clx_strain_reference *clx_strain_job_references(const clx_strain_job *job, size_t *count)
{
    *count = job->nreferences;
    return job->references;
}

size_t clx_strain_job_reference_of(const clx_strain_job *job, size_t k)
{
    if (job->grain_count == 0)
        return 0;
    int g = job->pattern_grain[k];
    return g > 0 ? (size_t)(g - 1) : 0;
}

int clx_strain_job_grains(const clx_strain_job *job, const char **from)
{
    if (from)
        *from = job->grains_from;
    return job->grain_count;
}
