/*
 * job_fit.c - a strain job's patterns, one at a time from any thread
 * (job.h): the fit of a pattern's window results into its row (timed: the
 * fit's share of a run is measured, not inferred), and the remapping
 * state each pass's fits update.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strain/job.h"

static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

static unsigned long long clock_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

double clx_strain_job_fit_seconds(const clx_strain_job *job)
{
    return 1e-9 * (double)__atomic_load_n(&job->fit_ns, __ATOMIC_RELAXED);
}

static int fit_untimed(const clx_strain_job *job, size_t k, const clx_result *results, clx_strain_row *out,
                       clx_message *msg)
{
    double pc[3], euler[3];
    int grain = job->grain_count ? job->pattern_grain[k] : 0;
    const clx_strain_reference *ref = &job->references[clx_strain_job_reference_of(job, k)];
    const double *remapped_by = job->map ? job->map[k] : NULL;
    out->grain = grain;
    out->ref_row = ref->row;
    out->ref_col = ref->col;
    out->euler[0] = out->euler[1] = out->euler[2] = NAN;
    if (job->grain_count && grain == 0) {
        /* A point in no grain has no reference: no numbers. */
        memset(&out->fit, 0, sizeof out->fit);
        for (int i = 0; i < 9; i++)
            out->fit.e[i] = out->fit.beta[i] = out->fit.beta_detector[i] = NAN;
        out->fit.w[0] = out->fit.w[1] = out->fit.w[2] = out->fit.residual = NAN;
        out->fit.flags = CLX_STRAIN_NO_GRAIN;
        out->ref_row = out->ref_col = -1;
        return CLX_OK;
    }
    clx_strain_job_pattern_centre(job, k, pc);
    int known = job_pattern_orientation(job, k, euler) == 0;
    /* A remapped pattern (clx_strain_job_warp draws every one whose map is
     * not the identity) is drawn from its reference's centre. */
    int warped = remapped_by && memcmp(remapped_by, identity, sizeof identity) != 0;
    int status = clx_strain_fit(&ref->detector, warped ? NULL : pc, remapped_by, job->x, job->y, results,
                                job->nwindows, known ? euler : NULL, &job->fit, &out->fit, msg);
    if (status == CLX_OK)
        clx_orientation_refine(ref->euler, out->fit.w, out->euler);
    return status;
}

static int pattern_check(const clx_strain_job *job, size_t k, size_t region_count, clx_message *msg)
{
    if (k >= job->count)
        return job_fail(msg, CLX_ERR_ARGUMENT, "pattern %zu of a strain job of %zu", k, job->count);
    if (region_count != job->nwindows)
        return job_fail(msg, CLX_ERR_ARGUMENT, "%zu window results for a strain job of %zu windows", region_count,
                        job->nwindows);
    return CLX_OK;
}

int clx_strain_job_fit(clx_strain_job *job, size_t k, const clx_result *results, size_t region_count,
                       clx_strain_row *row, clx_message *msg)
{
    int status = pattern_check(job, k, region_count, msg);
    if (status != CLX_OK)
        return status;
    unsigned long long start = clock_ns();
    status = fit_untimed(job, k, results, row, msg);
    __atomic_add_fetch(&job->fit_ns, clock_ns() - start, __ATOMIC_RELAXED);
    if (job->settled && !job->settled[k])
        row->fit.flags |= CLX_STRAIN_UNSETTLED;
    return status;
}

/* ---- remapping --------------------------------------------------------------- */

int clx_strain_job_remapped(const clx_strain_job *job, size_t k)
{
    return job->map && k < job->count && memcmp(job->map[k], identity, sizeof identity) != 0;
}

int clx_strain_job_remap_estimate(clx_strain_job *job, size_t k, const clx_result *results, size_t region_count,
                                  int *settled, clx_message *msg)
{
    clx_strain_row row;
    if (!job->map)
        return job_fail(msg, CLX_ERR_STATE, "a strain job made without remap does not remap");
    int status = pattern_check(job, k, region_count, msg);
    if (status == CLX_OK) {
        unsigned long long start = clock_ns();
        status = fit_untimed(job, k, results, &row, msg);
        __atomic_add_fetch(&job->fit_ns, clock_ns() - start, __ATOMIC_RELAXED);
    }
    if (status != CLX_OK)
        return status;
    const clx_strain *s = &row.fit;
    if (s->flags & (CLX_STRAIN_FEW_WINDOWS | CLX_STRAIN_SINGULAR | CLX_STRAIN_NO_GRAIN))
        job->settled[k] = 1;   /* nothing to remap by: left as it is */
    else {
        double change = 0;
        for (int i = 0; i < 3; i++)
            change = fmax(change, fabs(s->w[i] - job->w[k][i]));
        memcpy(job->w[k], s->w, sizeof s->w);
        job->settled[k] = change < job->options.remap_tol * M_PI / 180;
        clx_remap_map(s->beta_detector, !job->options.remap_rotation, job->map[k]);
    }
    if (settled)
        *settled = job->settled[k];
    return CLX_OK;
}
