/*
 * job_geometry.c - a strain job's geometry (job.h): what the options give
 * wins over the reference's own pattern file, which wins over the
 * patterns' file; what none gives is asked for by the command's option.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strain/job.h"

void job_reference_read(const char *entry, const char *scan_name, struct job_reference_pattern *rp)
{
    char *path = NULL;
    int page = -1, row = -1, col = -1;
    clx_image_file *f = NULL;
    clx_message msg;
    memset(rp, 0, sizeof *rp);
    rp->row = rp->col = -1;
    rp->euler[0] = rp->euler[1] = rp->euler[2] = NAN;
    if (!entry || clx_image_name_split(entry, &path, &page, &row, &col) != CLX_OK || !path)
        return;
    if (clx_image_file_open_scan(path, scan_name, &f, &msg) == CLX_OK && clx_image_file_scan(f)) {
        const clx_scan_info *s = clx_image_file_scan(f);
        if (row >= 0 && s->cols > 0)
            page = row * s->cols + col;
        if (page < 0)
            page = 0;
        rp->known = 1;
        rp->scan = *s;
        rp->has_pc = clx_image_file_pattern_centre(f, page, rp->pc) == CLX_OK;
        if (clx_image_file_euler(f, page, rp->euler) != CLX_OK)
            rp->euler[0] = rp->euler[1] = rp->euler[2] = NAN;
        if (s->cols > 0) {
            rp->row = page / s->cols;
            rp->col = page % s->cols;
        }
    }
    clx_image_file_close(f);
    free(path);
}

static int pc_resolve(clx_strain_job *job, const struct job_reference_pattern *rp, clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    const clx_scan_info *s = job->scan;
    job->pc_from = "--pc";
    if (o->have_pc)
        memcpy(&job->detector.pcx, o->pc, sizeof o->pc);
    else if (rp->has_pc) {
        job->detector.pcx = rp->pc[0];
        job->detector.pcy = rp->pc[1];
        job->detector.pcz = rp->pc[2];
        job->pc_from = "the reference's pattern file (its point)";
    } else if (s && s->has_pc) {
        job->detector.pcx = s->pcx;
        job->detector.pcy = s->pcy;
        job->detector.pcz = s->pcz;
        job->pc_from = "the patterns' file";
    } else
        return job_fail(msg, CLX_ERR_ARGUMENT, "strain needs the pattern centre: give --pc PCX,PCY,PCZ (Bruker's "
                        "convention: from the left over the width, from the top over the height, distance over the "
                        "height), or a pattern file whose header has it");
    double pc[3] = { job->detector.pcx, job->detector.pcy, job->detector.pcz };
    clx_message why;
    if (clx_detector_pc_check(pc, &why) != CLX_OK)
        return job_fail(msg, CLX_ERR_ARGUMENT, "the reference's %s (from %s)", why.text, job->pc_from);
    return CLX_OK;
}

/* A tilt from the options, else the reference's file, else the patterns' file. */
static int tilt_resolve(double given, double from_reference, double from_scan, const char *option, const char *what,
                        double *out, const char **from, clx_message *msg)
{
    *out = isfinite(given) ? given : isfinite(from_reference) ? from_reference : from_scan;
    *from = isfinite(given) ? option : isfinite(from_reference) ? "the reference's pattern file" : "the patterns' file";
    if (!isfinite(*out))
        return job_fail(msg, CLX_ERR_ARGUMENT, "strain needs the %s: give %s DEG (the pattern file does not say)",
                        what, option);
    return CLX_OK;
}

/* The reference's scan point, which the beam-shift model moves the centre from. */
static int ref_point_resolve(clx_strain_job *job, const struct job_reference_pattern *rp, clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    if (o->have_ref_point) {
        job->ref_row = o->ref_row;
        job->ref_col = o->ref_col;
    } else if (rp->known && rp->row >= 0 && job->scan) {
        job->ref_row = rp->row;
        job->ref_col = rp->col;
    } else if (!job->scan) {
        job->ref_row = job->ref_col = 0;    /* patterns of no scan: the reference is the first point */
    } else
        return job_fail(msg, CLX_ERR_ARGUMENT, "--ref-point ROW,COL: the reference's scan point is needed to move "
                        "the pattern centre across the scan (or name the reference as FILE#ROW,COL)");
    return CLX_OK;
}

/*
 * Each pattern's centre: the file's own per point, or the reference's
 * moved with the beam (kikuchipy's extrapolate_pc), or the reference's for
 * all. The beam-shift model needs a real pixel size: from the options, or
 * a header that holds a calibration, never a writer's placeholder
 * (kikuchipy writes 1 um when it knows none), which the reader has already
 * set aside (clx_scan_info.placeholders).
 */
static int centres_resolve(clx_strain_job *job, const struct job_reference_pattern *rp, clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    const clx_scan_info *s = job->scan;
    double pixel = o->pixel_size;
    job->pixel_from = "--pixel-size";
    if (!isfinite(pixel) && s && isfinite(s->pixel_size) && s->pixel_size > 0) {
        pixel = s->pixel_size * (s->binning > 0 ? s->binning : 1);
        job->pixel_from = "the patterns' file";
    }
    job->step_x = isfinite(o->step_x) ? o->step_x : s ? s->step_x : 0;
    job->step_y = isfinite(o->step_y) ? o->step_y : s ? s->step_y : 0;
    job->steps_from = isfinite(o->step_x) ? "--step" : "the patterns' file";
    job->scan_cols = s ? 0 : (size_t)o->scan_cols;
    int positioned = s != NULL || job->scan_cols > 0;
    int file_pcs = s && s->pc_per_point;
    int placeholder = s && (s->placeholders & CLX_SCAN_PLACEHOLDER_PIXEL_SIZE);
    job->pixel_um = NAN;
    job->centres = o->pattern_centres;
    if (job->centres == CLX_PC_AUTO)
        job->centres = file_pcs && !o->have_pc ? CLX_PC_FILE
                       : isfinite(pixel) && job->step_x > 0 && job->step_y > 0 && positioned ? CLX_PC_BEAM_SHIFT
                       : CLX_PC_FIXED;
    switch (job->centres) {
    case CLX_PC_FILE:
        if (!file_pcs)
            return job_fail(msg, CLX_ERR_ARGUMENT, "--pattern-centres file: %s", s ? "the patterns' file gives one "
                            "pattern centre, not one per point" : "the patterns are no pattern file's scan");
        if (o->have_pc)
            return job_fail(msg, CLX_ERR_ARGUMENT, "--pattern-centres file takes each pattern's centre from the "
                            "file, --pc the reference's from the command line: give one of them");
        return CLX_OK;
    case CLX_PC_BEAM_SHIFT:
        if (!isfinite(pixel))
            return job_fail(msg, CLX_ERR_ARGUMENT, "--pattern-centres beam-shift needs the size of a pattern pixel "
                            "on the detector: give --pixel-size UM (unbinned pixel x binning)%s", placeholder ?
                            "; the file's detector_pixel_size of 1 um is kikuchipy's placeholder for an unknown size"
                            : "");
        if (!positioned)
            return job_fail(msg, CLX_ERR_ARGUMENT, "--pattern-centres beam-shift needs each pattern's scan point: a "
                            "pattern file's scan, or --scan-cols C for a list of images");
        /* --step may say 0: the beam does not move along that axis. */
        if (!isfinite(o->step_x) && (!(job->step_x > 0) || !(job->step_y > 0)))
            return job_fail(msg, CLX_ERR_ARGUMENT, "--pattern-centres beam-shift needs the scan's steps: give "
                            "--step X,Y in um (the pattern file does not say)");
        job->pixel_um = pixel;
        return ref_point_resolve(job, rp, msg);
    default:
        return CLX_OK;
    }
}

int job_geometry_resolve(clx_strain_job *job, const struct job_reference_pattern *rp, clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    const clx_scan_info *s = job->scan;
    int status = pc_resolve(job, rp, msg);
    if (status == CLX_OK)
        status = tilt_resolve(o->sample_tilt, rp->known ? rp->scan.sample_tilt : NAN, s ? s->sample_tilt : NAN,
                              "--sample-tilt", "sample tilt", &job->detector.sample_tilt, &job->sample_tilt_from, msg);
    if (status == CLX_OK)
        status = tilt_resolve(o->detector_tilt, rp->known ? rp->scan.detector_tilt : NAN,
                              s ? s->detector_tilt : NAN, "--detector-tilt", "detector tilt",
                              &job->detector.detector_tilt, &job->detector_tilt_from, msg);
    if (status == CLX_OK)
        status = centres_resolve(job, rp, msg);
    return status;
}

/* ---- each pattern ---------------------------------------------------------- */

void job_pattern_point(const clx_strain_job *job, size_t k, long *row, long *col)
{
    *row = *col = -1;
    if (job->scan) {
        int page = job->pages[k] < 0 ? 0 : job->pages[k];
        *row = page / job->scan->cols;
        *col = page % job->scan->cols;
    } else if (job->scan_cols > 0) {
        *row = (long)(k / job->scan_cols);
        *col = (long)(k % job->scan_cols);
    } else if (job->orientations.cols > 0) {
        *row = (long)(k / (size_t)job->orientations.cols);
        *col = (long)(k % (size_t)job->orientations.cols);
    }
}

void clx_strain_job_pattern_centre(const clx_strain_job *job, size_t k, double pc[3])
{
    pc[0] = job->detector.pcx;
    pc[1] = job->detector.pcy;
    pc[2] = job->detector.pcz;
    if (job->centres == CLX_PC_FILE && job->file && job->pages[k] >= 0 &&
        clx_image_file_pattern_centre(job->file, job->pages[k], pc) == CLX_OK)
        return;
    if (job->centres != CLX_PC_BEAM_SHIFT || (!job->scan && job->scan_cols == 0))
        return;
    long row, col;
    job_pattern_point(job, k, &row, &col);
    clx_message msg;
    double moved[3];
    if (clx_detector_shift(&job->detector, (double)(col - job->ref_col) * job->step_x,
                           (double)(row - job->ref_row) * job->step_y, job->pixel_um, moved, &msg) == CLX_OK)
        memcpy(pc, moved, sizeof moved);
}

/* ---- the description ------------------------------------------------------- */

struct text {
    char *at;
    size_t size, len;
};

static void say(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->len < t->size ? t->at + t->len : NULL, t->len < t->size ? t->size - t->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

size_t clx_strain_job_describe(const clx_strain_job *job, char *text, size_t size)
{
    struct text t = { text, size, 0 };
    const clx_detector *d = &job->detector;
    const clx_scan_info *s = job->scan;
    clx_pattern_centres asked = job->options.pattern_centres;
    if (text && size)
        text[0] = '\0';
    say(&t, "strain geometry (kikuchipy's conventions, doc/hrebsd-conventions.md): %dx%d patterns\n", d->width,
        d->height);
    say(&t, "  reference's pattern centre (%.5f, %.5f, %.5f), Bruker's convention, from %s\n", d->pcx, d->pcy, d->pcz,
        job->pc_from);
    say(&t, "  sample tilt %g degrees from %s; detector tilt %g degrees from %s\n", d->sample_tilt,
        job->sample_tilt_from, d->detector_tilt, job->detector_tilt_from);
    switch (job->centres) {
    case CLX_PC_FILE:
        say(&t, "  each pattern's centre: the file's own, one per point%s\n",
            asked == CLX_PC_AUTO ? " (--pattern-centres auto)" : "");
        break;
    case CLX_PC_BEAM_SHIFT:
        say(&t, "  each pattern's centre: the reference's moved with the beam (kikuchipy's extrapolate_pc) from point "
            "(%ld, %ld), pattern pixel %g um from %s, steps %g x %g um from %s\n", job->ref_row, job->ref_col,
            job->pixel_um, job->pixel_from, job->step_x, job->step_y, job->steps_from);
        break;
    default:
        say(&t, "  each pattern's centre: the reference's%s\n", asked == CLX_PC_FIXED ? " (--pattern-centres fixed)"
            : s && (s->placeholders & CLX_SCAN_PLACEHOLDER_PIXEL_SIZE)
            ? " (the file's detector pixel size of 1 um is kikuchipy's placeholder: no beam-shift model; "
              "--pixel-size UM gives one)" : " (no per-point centres, no pixel size and step for a beam shift)");
        break;
    }
    if (s && (s->placeholders & CLX_SCAN_PLACEHOLDER_STEP))
        say(&t, "  the file's steps of 1 x 1 um may be kikuchipy's placeholder for unknown steps\n");
    return t.len;
}
