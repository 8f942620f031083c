/*
 * job_orientations.c - each pattern's crystal orientation for a strain job
 * (job.h): one for all (--euler), an indexed scan's by scan point
 * (--orientations), or the pattern file's own; and the stiffness that
 * needs one for the traction-free strain.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "strain/job.h"

/* Two steps of one scan, as far as a file's rounding goes. */
static int steps_agree(double a, double b)
{
    return !(a > 0) || !(b > 0) || fabs(a - b) <= 0.01 * fmax(a, b);
}

/* --orientations FILE: read, and its grid checked against the patterns'
 * scan points (job_pattern_point says how a pattern finds its point). */
static int orientations_read(clx_strain_job *job, const char *path, clx_message *msg)
{
    clx_message why;
    clx_orientation_map *m = &job->orientations;
    int status = clx_orientation_map_read(path, m, &why);
    if (status != CLX_OK)
        return job_fail(msg, status, "--orientations: %s", why.text);
    size_t points = (size_t)m->rows * (size_t)m->cols, patterns = job->count;
    const clx_scan_info *s = job->scan;
    if (s && (m->rows != s->rows || m->cols != s->cols))
        return job_fail(msg, CLX_ERR_ARGUMENT, "--orientations %s: a grid of %d x %d points (rows x columns), where "
                        "the patterns' scan has %d x %d", path, m->rows, m->cols, s->rows, s->cols);
    if (!s && job->scan_cols > 0 && ((size_t)m->cols != job->scan_cols || patterns > points))
        return job_fail(msg, CLX_ERR_ARGUMENT, "--orientations %s: a grid of %d x %d points (rows x columns), where "
                        "--scan-cols %zu lays the %zu patterns out on %zu x %zu", path, m->rows, m->cols,
                        job->scan_cols, patterns, (patterns + job->scan_cols - 1) / job->scan_cols, job->scan_cols);
    if (!s && job->scan_cols == 0 && patterns != points)
        return job_fail(msg, CLX_ERR_ARGUMENT, "--orientations %s: %zu points (%d x %d), for %zu patterns: without a "
                        "scan the patterns take the points in order, one each (--scan-cols C matches them by scan "
                        "point)", path, points, m->rows, m->cols, patterns);
    if ((s || job->scan_cols > 0) && (!steps_agree(m->step_x, job->step_x) || !steps_agree(m->step_y, job->step_y)))
        return job_fail(msg, CLX_ERR_ARGUMENT, "--orientations %s: steps of %g x %g um, where the patterns' scan has "
                        "%g x %g um: not the same scan", path, m->step_x, m->step_y, job->step_x, job->step_y);
    job_info(job, "orientations: %s (%s), %d x %d points", path, m->format, m->rows, m->cols);
    return CLX_OK;
}

int job_orientations_resolve(clx_strain_job *job, clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    clx_message why;
    job->fit.stiffness = NULL;
    if (o->have_euler && o->orientations)
        return job_fail(msg, CLX_ERR_ARGUMENT, "--euler and --orientations both give the orientation: give one of "
                        "them");
    if (o->orientations) {
        int status = orientations_read(job, o->orientations, msg);
        if (status != CLX_OK)
            return status;
    }
    /* Each pattern's orientation: --euler's, --orientations', or the
     * file's own; for the full strain, and the refined orientations. */
    job->file_euler = !o->have_euler && !o->orientations && job->scan && job->scan->has_euler;
    if (!o->stiffness)
        return CLX_OK;
    if (clx_stiffness_parse(o->stiffness, job->stiffness, &why) != CLX_OK)
        return job_fail(msg, CLX_ERR_ARGUMENT, "--stiffness: %s", why.text);
    if (!o->have_euler && !o->orientations && !job->file_euler)
        return job_fail(msg, CLX_ERR_ARGUMENT, "--stiffness needs each pattern's crystal orientation: the patterns' "
                        "file gives none; give --orientations FILE (.ang, .ctf) or --euler PHI1,PHI,PHI2 (Bunge, "
                        "degrees)");
    job->fit.stiffness = job->stiffness;
    return CLX_OK;
}

int job_orientation_at(const clx_strain_job *job, long row, long col, int page, double euler[3])
{
    euler[0] = euler[1] = euler[2] = NAN;
    if (job->options.have_euler) {
        memcpy(euler, job->options.euler, 3 * sizeof *euler);
        return 0;
    }
    const clx_orientation_map *m = &job->orientations;
    if (m->euler && row >= 0 && row < m->rows && col >= 0 && col < m->cols) {
        memcpy(euler, &m->euler[3 * ((size_t)row * m->cols + col)], 3 * sizeof *euler);
        return 0;
    }
    if (job->file_euler && job->file && page >= 0 && clx_image_file_euler(job->file, page, euler) == CLX_OK)
        return 0;
    return -1;
}

int job_pattern_orientation(const clx_strain_job *job, size_t k, double euler[3])
{
    long row, col;
    job_pattern_point(job, k, &row, &col);
    return job_orientation_at(job, row, col, job->pages[k], euler);
}
