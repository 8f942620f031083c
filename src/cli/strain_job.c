/*
 * strain_job.c - `clxcorr strain`'s geometry and the fit of each pattern
 * (strain_job.h). What the command line gives wins over the pattern file's
 * header; what neither gives is asked for by name.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "strain_job.h"

void strain_options_init(struct strain_options *o)
{
    memset(o, 0, sizeof *o);
    o->sample_tilt = o->detector_tilt = o->pixel_size = o->step_x = o->step_y = NAN;
    clx_strain_options_init(&o->fit);
    o->remap_tol = 0.01;
    o->remap_passes = 4;
    o->pc_mode = STRAIN_PC_AUTO;
    o->grain_angle = 5;
    o->min_grain = 10;
    o->symmetry = -1;
}

/* ---- the reference pattern's own file -------------------------------------- */

/* What the reference's pattern file says of it, when the reference is a pattern of one. */
struct reference_pattern {
    int known;                   /* the reference is a pattern of a file with a scan */
    clx_scan_info scan;
    int has_pc;
    double pc[3];
    long row, col;               /* its scan point; -1 without a grid */
    double euler[3];             /* its orientation in the file (NAN: none) */
};

static void reference_pattern_read(const char *entry, const char *scan_name, struct reference_pattern *rp)
{
    char *path = NULL;
    int page = -1, row = -1, col = -1;
    clx_image_file *f = NULL;
    clx_message msg;
    memset(rp, 0, sizeof *rp);
    rp->row = rp->col = -1;
    rp->euler[0] = rp->euler[1] = rp->euler[2] = NAN;
    if (clx_image_name_split(entry, &path, &page, &row, &col) != CLX_OK || !path)
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

/* ---- set-up ---------------------------------------------------------------- */

static int pc_resolve(struct strain_job *job, const struct strain_options *o, const struct reference_pattern *rp)
{
    const clx_scan_info *s = job->scan;
    clx_message msg;
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
    } else {
        report_error("strain needs the pattern centre: give --pc PCX,PCY,PCZ (Bruker's convention: from the left "
                     "over the width, from the top over the height, distance over the height), or a pattern file "
                     "whose header has it");
        return -1;
    }
    double pc[3] = { job->detector.pcx, job->detector.pcy, job->detector.pcz };
    if (clx_detector_pc_check(pc, &msg) != CLX_OK) {
        report_error("the reference's %s (from %s)", msg.text, job->pc_from);
        return -1;
    }
    return 0;
}

/* A tilt from the command line, else the reference's file, else the run's file. */
static int tilt_resolve(double given, double from_reference, double from_scan, const char *option, const char *what,
                        double *out, const char **from)
{
    *out = isfinite(given) ? given : isfinite(from_reference) ? from_reference : from_scan;
    *from = isfinite(given) ? option : isfinite(from_reference) ? "the reference's pattern file" : "the patterns' file";
    if (!isfinite(*out)) {
        report_error("strain needs the %s: give %s DEG (the pattern file does not say)", what, option);
        return -1;
    }
    return 0;
}

/* The reference's scan point, which the beam-shift model moves the centre from. */
static int ref_point_resolve(struct strain_job *job, const struct strain_options *o,
                             const struct reference_pattern *rp)
{
    const clx_scan_info *s = job->scan;
    if (o->have_ref_point) {
        job->ref_row = o->ref_row;
        job->ref_col = o->ref_col;
    } else if (rp->known && rp->row >= 0 && s) {
        job->ref_row = rp->row;
        job->ref_col = rp->col;
    } else if (!s) {
        job->ref_row = job->ref_col = 0;    /* an image list: the reference is its first point */
    } else {
        report_error("--ref-point ROW,COL: the reference's scan point is needed to move the pattern centre "
                     "across the scan (or name the reference as FILE#ROW,COL)");
        return -1;
    }
    return 0;
}

/*
 * Each pattern's centre (--pattern-centres): the file's own per point, or
 * the reference's moved with the beam (kikuchipy's extrapolate_pc), or the
 * reference's for all. The beam-shift model needs a real pixel size: from
 * --pixel-size, or a header that holds a calibration, never a writer's
 * placeholder (kikuchipy writes 1 um when it knows none), which the reader
 * has already set aside (clx_scan_info.placeholders).
 */
static int centres_resolve(struct strain_job *job, const struct strain_options *o, const struct reference_pattern *rp)
{
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
    job->centres = o->pc_mode;
    if (job->centres == STRAIN_PC_AUTO)
        job->centres = file_pcs && !o->have_pc ? STRAIN_PC_FILE
                       : isfinite(pixel) && job->step_x > 0 && job->step_y > 0 && positioned ? STRAIN_PC_BEAM_SHIFT
                       : STRAIN_PC_FIXED;
    switch (job->centres) {
    case STRAIN_PC_FILE:
        if (!file_pcs) {
            report_error("--pattern-centres file: %s", s ? "the patterns' file gives one pattern centre, not one per "
                                                           "point" : "the patterns are no pattern file's scan");
            return -1;
        }
        if (o->have_pc) {
            report_error("--pattern-centres file takes each pattern's centre from the file, --pc the reference's "
                         "from the command line: give one of them");
            return -1;
        }
        return 0;
    case STRAIN_PC_BEAM_SHIFT:
        if (!isfinite(pixel)) {
            report_error("--pattern-centres beam-shift needs the size of a pattern pixel on the detector: give "
                         "--pixel-size UM (unbinned pixel x binning)%s", placeholder ?
                         "; the file's detector_pixel_size of 1 um is kikuchipy's placeholder for an unknown size" : "");
            return -1;
        }
        if (!positioned) {
            report_error("--pattern-centres beam-shift needs each pattern's scan point: a pattern file's scan, or "
                         "--scan-cols C for a list of images");
            return -1;
        }
        /* --step may say 0: the beam does not move along that axis. */
        if (!isfinite(o->step_x) && (!(job->step_x > 0) || !(job->step_y > 0))) {
            report_error("--pattern-centres beam-shift needs the scan's steps: give --step X,Y in um (the pattern "
                         "file does not say)");
            return -1;
        }
        job->pixel_um = pixel;
        return ref_point_resolve(job, o, rp);
    default:
        return 0;
    }
}

/* --explain: the geometry the fit uses, each value with where it came from. */
static void geometry_explain(const struct strain_job *job, const struct strain_options *o)
{
    const clx_detector *d = &job->detector;
    const clx_scan_info *s = job->scan;
    report_note("strain geometry (kikuchipy's conventions, doc/hrebsd-conventions.md): %dx%d patterns", d->width,
                d->height);
    report_note("  reference's pattern centre (%.5f, %.5f, %.5f), Bruker's convention, from %s", d->pcx, d->pcy,
                d->pcz, job->pc_from);
    report_note("  sample tilt %g degrees from %s; detector tilt %g degrees from %s", d->sample_tilt,
                job->sample_tilt_from, d->detector_tilt, job->detector_tilt_from);
    switch (job->centres) {
    case STRAIN_PC_FILE:
        report_note("  each pattern's centre: the file's own, one per point%s",
                    o->pc_mode == STRAIN_PC_AUTO ? " (--pattern-centres auto)" : "");
        break;
    case STRAIN_PC_BEAM_SHIFT:
        report_note("  each pattern's centre: the reference's moved with the beam (kikuchipy's extrapolate_pc) "
                    "from point (%ld, %ld), pattern pixel %g um from %s, steps %g x %g um from %s", job->ref_row,
                    job->ref_col, job->pixel_um, job->pixel_from, job->step_x, job->step_y, job->steps_from);
        break;
    default:
        report_note("  each pattern's centre: the reference's%s", o->pc_mode == STRAIN_PC_FIXED ? " (--pattern-centres "
                    "fixed)" : s && (s->placeholders & CLX_SCAN_PLACEHOLDER_PIXEL_SIZE)
                    ? " (the file's detector pixel size of 1 um is kikuchipy's placeholder: no beam-shift model; "
                      "--pixel-size UM gives one)" : " (no per-point centres, no pixel size and step for a beam "
                      "shift)");
        break;
    }
    if (s && (s->placeholders & CLX_SCAN_PLACEHOLDER_STEP))
        report_note("  the file's steps of 1 x 1 um may be kikuchipy's placeholder for unknown steps");
}

/* Two steps of one scan, as far as a file's rounding goes. */
static int steps_agree(double a, double b)
{
    return !(a > 0) || !(b > 0) || fabs(a - b) <= 0.01 * fmax(a, b);
}

/* --orientations FILE: read, and its grid checked against the patterns'
 * scan points (strain_job_orientation says how a pattern finds its point). */
static int orientations_read(struct strain_job *job, const char *path)
{
    clx_message msg;
    clx_orientation_map *m = &job->orientations;
    if (clx_orientation_map_read(path, m, &msg) != CLX_OK) {
        report_error("--orientations: %s", msg.text);
        return -1;
    }
    size_t points = (size_t)m->rows * (size_t)m->cols, patterns = job->items->count;
    const clx_scan_info *s = job->scan;
    if (s && (m->rows != s->rows || m->cols != s->cols)) {
        report_error("--orientations %s: a grid of %d x %d points (rows x columns), where the patterns' scan has "
                     "%d x %d", path, m->rows, m->cols, s->rows, s->cols);
        return -1;
    }
    if (!s && job->scan_cols > 0 && ((size_t)m->cols != job->scan_cols || patterns > points)) {
        report_error("--orientations %s: a grid of %d x %d points (rows x columns), where --scan-cols %zu lays the "
                     "%zu patterns out on %zu x %zu", path, m->rows, m->cols, job->scan_cols, patterns,
                     (patterns + job->scan_cols - 1) / job->scan_cols, job->scan_cols);
        return -1;
    }
    if (!s && job->scan_cols == 0 && patterns != points) {
        report_error("--orientations %s: %zu points (%d x %d), for %zu patterns: without a scan the patterns take "
                     "the points in order, one each (--scan-cols C matches them by scan point)", path, points,
                     m->rows, m->cols, patterns);
        return -1;
    }
    if ((s || job->scan_cols > 0) && (!steps_agree(m->step_x, job->step_x) || !steps_agree(m->step_y, job->step_y))) {
        report_error("--orientations %s: steps of %g x %g um, where the patterns' scan has %g x %g um: not the same "
                     "scan", path, m->step_x, m->step_y, job->step_x, job->step_y);
        return -1;
    }
    report_info("orientations: %s (%s), %d x %d points", path, m->format, m->rows, m->cols);
    return 0;
}

static int orientation_resolve(struct strain_job *job, const struct strain_options *o)
{
    clx_message msg;
    job->fit.stiffness = NULL;
    if (o->orientations && orientations_read(job, o->orientations) != 0)
        return -1;
    /* Each pattern's orientation: --euler's, --orientations', or the
     * file's own; for the full strain, and the refined orientations. */
    job->given_euler = o->have_euler;
    memcpy(job->euler, o->euler, sizeof job->euler);
    job->file_euler = !o->have_euler && !o->orientations && job->scan && job->scan->has_euler;
    if (!o->stiffness)
        return 0;
    if (clx_stiffness_parse(o->stiffness, job->stiffness, &msg) != CLX_OK) {
        report_error("--stiffness: %s", msg.text);
        return -1;
    }
    if (!o->have_euler && !o->orientations && !job->file_euler) {
        report_error("--stiffness needs each pattern's crystal orientation: the patterns' file gives none; give "
                     "--orientations FILE (.ang, .ctf) or --euler PHI1,PHI,PHI2 (Bunge, degrees)");
        return -1;
    }
    job->fit.stiffness = job->stiffness;
    return 0;
}

/* The orientation at a scan point (row, col; -1: unknown) or of page `page`
 * of the patterns' file: --euler's, --orientations', or the file's. */
static int orientation_at(const struct strain_job *job, long row, long col, clx_image_file *f, int page,
                          double euler[3])
{
    euler[0] = euler[1] = euler[2] = NAN;
    if (job->given_euler) {
        memcpy(euler, job->euler, 3 * sizeof *euler);
        return 0;
    }
    const clx_orientation_map *m = &job->orientations;
    if (m->euler && row >= 0 && row < m->rows && col >= 0 && col < m->cols) {
        memcpy(euler, &m->euler[3 * ((size_t)row * m->cols + col)], 3 * sizeof *euler);
        return 0;
    }
    if (job->file_euler && f && page >= 0 && clx_image_file_euler(f, page, euler) == CLX_OK)
        return 0;
    return -1;
}

/* Item i's pattern file and page, when it is a pattern of one kept open. */
static clx_image_file *item_file(const struct strain_job *job, size_t i, int *page)
{
    const struct image_item *it = &job->items->items[i];
    *page = it->page;
    return job->items->open && it->page >= 0 ? job->items->open[it->entry] : NULL;
}

/* Item i's scan point: the scan's, --scan-cols', or its index's in the
 * orientation map's grid; -1 when none. */
static void item_point(const struct strain_job *job, size_t i, long *row, long *col)
{
    *row = *col = -1;
    if (job->scan)
        image_item_scan_point(job->items, i, job->scan, row, col);
    else if (job->scan_cols > 0) {
        *row = (long)(i / job->scan_cols);
        *col = (long)(i % job->scan_cols);
    } else if (job->orientations.cols > 0) {
        *row = (long)(i / (size_t)job->orientations.cols);
        *col = (long)(i % (size_t)job->orientations.cols);
    }
}

static int item_orientation(const struct strain_job *job, size_t i, double euler[3])
{
    long row, col;
    int page;
    clx_image_file *f = item_file(job, i, &page);
    item_point(job, i, &row, &col);
    return orientation_at(job, row, col, f, page, euler);
}

/* The references: the REFERENCE argument's, or each grain's, its pattern
 * loaded for the stream in the run's staged type (`ref`'s). */
static int references_resolve(struct strain_job *job, const struct reference_pattern *rp, const clx_image *ref,
                              const struct strain_grains *grains)
{
    job->nreferences = grains && grains->count > 0 ? (size_t)grains->count : 1;
    job->references = calloc(job->nreferences, sizeof *job->references);
    if (!job->references) {
        report_error("out of memory");
        return -1;
    }
    if (!grains || grains->count == 0) {
        struct strain_reference *r = &job->references[0];
        r->detector = job->detector;
        r->row = rp->row;
        r->col = rp->col;
        /* --euler's or --orientations' at its point, else its file's own. */
        if (orientation_at(job, rp->row, rp->col, NULL, -1, r->euler) != 0 && rp->known)
            memcpy(r->euler, rp->euler, sizeof r->euler);
        return 0;
    }
    job->grains = grains;
    job->reference_images = calloc(job->nreferences, sizeof *job->reference_images);
    if (!job->reference_images) {
        report_error("out of memory");
        return -1;
    }
    for (size_t g = 0; g < job->nreferences; g++) {
        struct strain_reference *r = &job->references[g];
        size_t item = grains->reference_item[g];
        double pc[3];
        clx_message msg;
        r->detector = job->detector;
        strain_job_pattern_centre(job, item, pc);
        r->detector.pcx = pc[0];
        r->detector.pcy = pc[1];
        r->detector.pcz = pc[2];
        item_point(job, item, &r->row, &r->col);
        item_orientation(job, item, r->euler);
        clx_image loaded;
        if (image_item_load(job->items, item, &loaded, &msg) != CLX_OK) {
            report_error("grain %zu's reference: %s", g + 1, msg.text);
            return -1;
        }
        int status = clx_image_alloc(&job->reference_images[g], ref->width, ref->height, ref->type, &msg);
        if (status == CLX_OK)
            status = clx_image_copy_to(&loaded, &job->reference_images[g], &msg);
        clx_image_free(&loaded);
        if (status != CLX_OK) {
            report_error("grain %zu's reference: %s", g + 1, msg.text);
            return -1;
        }
    }
    return 0;
}

int strain_job_setup(struct strain_job *job, const struct strain_options *o, const char *reference,
                     const clx_image *ref, const struct image_items *items, const struct strain_grains *grains,
                     const clx_region *regions, size_t nregions)
{
    struct reference_pattern rp;
    memset(job, 0, sizeof *job);
    job->items = items;
    job->scan = image_items_scan(items);
    job->fit = o->fit;
    job->detector.width = ref->width;
    job->detector.height = ref->height;
    reference_pattern_read(reference, items->list ? items->list->scan : NULL, &rp);
    const clx_scan_info *s = job->scan;
    if (pc_resolve(job, o, &rp) != 0 ||
        tilt_resolve(o->sample_tilt, rp.known ? rp.scan.sample_tilt : NAN, s ? s->sample_tilt : NAN,
                     "--sample-tilt", "sample tilt", &job->detector.sample_tilt, &job->sample_tilt_from) != 0 ||
        tilt_resolve(o->detector_tilt, rp.known ? rp.scan.detector_tilt : NAN, s ? s->detector_tilt : NAN,
                     "--detector-tilt", "detector tilt", &job->detector.detector_tilt,
                     &job->detector_tilt_from) != 0 ||
        centres_resolve(job, o, &rp) != 0 || orientation_resolve(job, o) != 0 ||
        references_resolve(job, &rp, ref, grains) != 0)
        return -1;
    /* kikuchipy's azimuthal and twist angles turn the detector about two
     * more axes, which the fit does not model: refused, not ignored. */
    const double *angles[2] = { s ? &s->azimuthal : NULL, s ? &s->twist : NULL };
    for (int k = 0; k < 2; k++)
        if (angles[k] && isfinite(*angles[k]) && fabs(*angles[k]) > 1e-9) {
            report_error("the patterns' file gives a detector %s angle of %g degrees: strain models a detector "
                         "turned about its x axis alone (sample and detector tilts)", k ? "twist" : "azimuthal",
                         *angles[k]);
            return -1;
        }
    if (o->explain)
        geometry_explain(job, o);
    if (nregions < (size_t)(job->fit.min_windows > 4 ? job->fit.min_windows : 4)) {
        report_error("strain needs at least %d windows per pattern (8 unknowns, 2 equations a window); the run "
                     "has %zu", job->fit.min_windows > 4 ? job->fit.min_windows : 4, nregions);
        return -1;
    }
    job->nwindows = nregions;
    job->x = malloc(nregions * sizeof *job->x);
    job->y = malloc(nregions * sizeof *job->y);
    if (!job->x || !job->y) {
        report_error("out of memory");
        return -1;
    }
    for (size_t w = 0; w < nregions; w++) {
        job->x[w] = regions[w].x + (regions[w].w - 1) / 2.0;
        job->y[w] = regions[w].y + (regions[w].h - 1) / 2.0;
    }
    /* The geometry and the windows are checked once here: the reference
     * against itself (every shift 0) must give a fit. */
    clx_strain probe;
    clx_message msg;
    clx_result *zero = calloc(nregions, sizeof *zero);
    if (!zero) {
        report_error("out of memory");
        return -1;
    }
    for (size_t w = 0; w < nregions; w++)
        zero[w].zncc = zero[w].peak_ratio = NAN;   /* not screened */
    int status = clx_strain_fit(&job->detector, NULL, NULL, job->x, job->y, zero, nregions, NULL, &job->fit, &probe,
                                &msg);
    free(zero);
    if (status != CLX_OK) {
        report_error("strain geometry: %s", msg.text);
        return -1;
    }
    if (probe.flags & CLX_STRAIN_SINGULAR) {
        report_error("the %zu windows do not fix the strain (they lie on a line, or nearly): spread them over the "
                     "pattern (--grid with at least 2 rows and 2 columns)", nregions);
        return -1;
    }
    return 0;
}

void strain_job_free(struct strain_job *job)
{
    for (size_t g = 0; job->reference_images && g < job->nreferences; g++)
        clx_image_free(&job->reference_images[g]);
    free(job->reference_images);
    free(job->references);
    job->reference_images = NULL;
    job->references = NULL;
    free(job->x);
    free(job->y);
    job->x = job->y = NULL;
    clx_orientation_map_free(&job->orientations);
}

/* ---- each pattern ---------------------------------------------------------- */

void strain_job_pattern_centre(const struct strain_job *job, size_t i, double pc[3])
{
    int page;
    clx_image_file *f = item_file(job, i, &page);
    pc[0] = job->detector.pcx;
    pc[1] = job->detector.pcy;
    pc[2] = job->detector.pcz;
    if (job->centres == STRAIN_PC_FILE && f && clx_image_file_pattern_centre(f, page, pc) == CLX_OK)
        return;
    if (job->centres != STRAIN_PC_BEAM_SHIFT)
        return;
    long row, col;
    if (job->scan)
        image_item_scan_point(job->items, i, job->scan, &row, &col);
    else if (job->scan_cols > 0) {
        row = (long)(i / job->scan_cols);
        col = (long)(i % job->scan_cols);
    } else
        return;
    clx_message msg;
    double moved[3];
    if (clx_detector_shift(&job->detector, (double)(col - job->ref_col) * job->step_x,
                           (double)(row - job->ref_row) * job->step_y, job->pixel_um, moved, &msg) == CLX_OK)
        memcpy(pc, moved, sizeof moved);
}

/* The monotonic clock in ns: the fit's share of the run is measured, not
 * inferred from throughput. */
static unsigned long long clock_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

double strain_job_fit_seconds(const struct strain_job *job)
{
    return 1e-9 * (double)__atomic_load_n(&job->fit_ns, __ATOMIC_RELAXED);
}

size_t strain_job_reference_of(const struct strain_job *job, size_t i)
{
    if (!job->grains)
        return 0;
    int g = job->grains->item_grain[i];
    return g > 0 ? (size_t)(g - 1) : 0;
}

static int fit_untimed(const struct strain_job *job, size_t i, const double *remapped_by, const clx_result *results,
                       struct strain_row *out, clx_message *msg)
{
    double pc[3], euler[3];
    int grain = job->grains ? job->grains->item_grain[i] : 0;
    const struct strain_reference *ref = &job->references[strain_job_reference_of(job, i)];
    out->grain = grain;
    out->ref_row = ref->row;
    out->ref_col = ref->col;
    out->euler[0] = out->euler[1] = out->euler[2] = NAN;
    if (job->grains && grain == 0) {
        /* A point in no grain has no reference: no numbers. */
        memset(&out->fit, 0, sizeof out->fit);
        for (int k = 0; k < 9; k++)
            out->fit.e[k] = out->fit.beta[k] = out->fit.beta_detector[k] = NAN;
        out->fit.w[0] = out->fit.w[1] = out->fit.w[2] = out->fit.residual = NAN;
        out->fit.flags = CLX_STRAIN_NO_GRAIN;
        out->ref_row = out->ref_col = -1;
        return CLX_OK;
    }
    strain_job_pattern_centre(job, i, pc);
    int known = item_orientation(job, i, euler) == 0;
    /* A remapped pattern (strain_remap_load warps every one whose map is
     * not the identity) is drawn from its reference's centre. */
    static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    int warped = remapped_by && memcmp(remapped_by, identity, sizeof identity) != 0;
    int status = clx_strain_fit(&ref->detector, warped ? NULL : pc, remapped_by, job->x, job->y, results,
                                job->nwindows, known ? euler : NULL, &job->fit, &out->fit, msg);
    if (status == CLX_OK)
        clx_orientation_refine(ref->euler, out->fit.w, out->euler);
    return status;
}

int strain_job_fit(struct strain_job *job, size_t i, const double *remapped_by, const clx_result *results,
                   struct strain_row *out, clx_message *msg)
{
    unsigned long long start = clock_ns();
    int status = fit_untimed(job, i, remapped_by, results, out, msg);
    __atomic_add_fetch(&job->fit_ns, clock_ns() - start, __ATOMIC_RELAXED);
    return status;
}
