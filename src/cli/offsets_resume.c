/*
 * offsets_resume.c - `clxcorr offsets --resume -o FILE`: the whole images
 * an earlier run left in FILE.part are kept (output/resume.h checks them),
 * and this run starts after them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offsets_run.h"
#include "output/resume.h"

/*
 * Image i's rows formatted twice, with two sets of results that differ in
 * every column's first character; for each window, how far its two rows
 * agree: the part of its row that does not depend on the results, whatever
 * the format and columns (the name, index and centre columns that come
 * first, or a JSON key). Returns 0, or -1 when out of memory.
 */
/* Pattern rows of strain (`clxcorr strain`): as above, with strains of 1 and of 2. */
static int strain_rows_twice(struct offsets_run *r, const char *name, const struct row_scan_point *at,
                             struct csv_text *a, struct csv_text *b)
{
    clx_strain_row one, two;
    memset(&one, 0, sizeof one);
    memset(&two, 0, sizeof two);
    for (int k = 0; k < 9; k++) {
        one.fit.e[k] = 1;
        two.fit.e[k] = 2;
    }
    for (int k = 0; k < 3; k++) {
        one.fit.w[k] = one.euler[k] = 1;
        two.fit.w[k] = two.euler[k] = 2;
    }
    one.fit.residual = one.fit.windows = 1;
    one.fit.flags = 1;
    two.fit.residual = two.fit.windows = 2;
    two.fit.flags = 2;
    one.grain = one.ref_row = one.ref_col = 1;
    two.grain = two.ref_row = two.ref_col = 2;
    return row_format_pattern(r->format, a, name, at, &one) == CLX_OK &&
           row_format_pattern(r->format, b, name, at, &two) == CLX_OK;
}

static int resume_starts_fill(struct offsets_run *r, size_t i)
{
    size_t n = offsets_rows_per_image(r);
    clx_result *one = calloc(2 * r->nregions, sizeof *one), *two = one + r->nregions;
    struct csv_text a = { 0 }, b = { 0 };
    char *name = image_item_name(&r->items, r->first + i);
    struct row_scan_point point;
    const struct row_scan_point *at = offsets_scan_point(r, r->first + i, &point);
    int ok = one && name;
    for (size_t w = 0; ok && w < r->nregions; w++) {
        one[w].dx = one[w].dy = one[w].peak = one[w].zncc = one[w].peak_ratio = 1;
        two[w].dx = two[w].dy = two[w].peak = two[w].zncc = two[w].peak_ratio = 2;
        one[w].znssd = one[w].sigma_dx = one[w].sigma_dy = 1;
        two[w].znssd = two[w].sigma_dx = two[w].sigma_dy = 2;
        one[w].dudx = one[w].dudy = one[w].dvdx = one[w].dvdy = 1;
        two[w].dudx = two[w].dudy = two[w].dvdx = two[w].dvdy = 2;
        one[w].flags = 1;
        two[w].flags = 2;
        one[w].iterations = 1;
        two[w].iterations = 2;
    }
    if (r->format->strain)
        ok = ok && strain_rows_twice(r, name, at, &a, &b);
    else
        ok = ok && row_format_image(r->format, &a, name, at, NULL, r->regions, n, one) == CLX_OK &&
             row_format_image(r->format, &b, name, at, NULL, r->regions, n, two) == CLX_OK;
    /* Row by row: the common prefix of the two renderings. */
    const char *pa = a.text, *pb = b.text;
    for (size_t w = 0; ok && w < n; w++) {
        const char *ea = memchr(pa, '\n', a.len - (size_t)(pa - a.text));
        const char *eb = memchr(pb, '\n', b.len - (size_t)(pb - b.text));
        size_t k = 0;
        while (pa + k < ea && pb + k < eb && pa[k] == pb[k])
            k++;
        free(r->resume_starts[w]);
        r->resume_starts[w] = strndup(pa, k);
        ok = r->resume_starts[w] != NULL;
        pa = ea + 1;
        pb = eb + 1;
    }
    free(one);
    free(name);
    csv_text_free(&a);
    csv_text_free(&b);
    return ok ? 0 : -1;
}

/* How the row of image i, window w must start (resume_check's row_start).
 * Image i's rows are formatted once, when its first window is asked for. */
static int resume_row_start(void *user, size_t i, size_t window, char *buf, size_t len)
{
    struct offsets_run *r = user;
    if (window == 0 || r->resume_image != i) {
        if (resume_starts_fill(r, i) != 0)
            return -1;
        r->resume_image = i;
    }
    size_t k = strlen(r->resume_starts[window]);
    if (k >= len)
        return -1;
    memcpy(buf, r->resume_starts[window], k);
    return (int)k;
}

/* Appends one "NAME VALUE" line to buf (len bytes, *n used); NAME holds no
 * space (output/resume.c reads the name up to the first one). */
static void option_line(char *buf, size_t len, int *n, const char *name, const char *fmt, ...) CLI_PRINTF(5, 6);

static void option_line(char *buf, size_t len, int *n, const char *name, const char *fmt, ...)
{
    if (*n < 0 || (size_t)*n >= len)
        return;
    *n += snprintf(buf + *n, len - (size_t)*n, "%s ", name);
    if ((size_t)*n >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    *n += vsnprintf(buf + *n, len - (size_t)*n, fmt, ap);
    va_end(ap);
    if ((size_t)*n < len)
        *n += snprintf(buf + *n, len - (size_t)*n, "\n");
}

/*
 * The options that shape a row, as text, one "NAME VALUE" line each, named
 * as the command's options are (FILE.resume keeps them, so that a resume
 * with other ones can say which): the plan's, the rows' form, and strain's.
 * Device choices (--device, --threads, --lanes) are not among them: they
 * change how fast rows come, not what they say.
 */
static void options_text(const struct offsets_args *a, const char *header, char *buf, size_t len)
{
    const clx_plan_options *p = &a->mode.plan;
    int n = 0;
    buf[0] = '\0';
    option_line(buf, len, &n, "clxcorr", "%s", clx_version());
    option_line(buf, len, &n, "command", "%s", a->strain ? "strain" : "offsets");
    /* The header without its line end: --columns and --format shape it. */
    option_line(buf, len, &n, "--columns/--format", "%.*s", (int)strcspn(header, "\n"), header);
    option_line(buf, len, &n, "--mode", "%d", p->mode);
    option_line(buf, len, &n, "--method", "%d", p->method);
    option_line(buf, len, &n, "--max-shift", "%d", p->max_shift);
    option_line(buf, len, &n, "--estimator", "%d", p->estimator);
    option_line(buf, len, &n, "--fit-size", "%d", p->fit_size);
    option_line(buf, len, &n, "--batch", "%d", p->batch);
    option_line(buf, len, &n, "--double", "%d", p->use_double);
    option_line(buf, len, &n, "--param/--fft", "%s", p->params ? p->params : "");
    option_line(buf, len, &n, "--prefilter", "%s", p->prefilter ? p->prefilter : "");
    option_line(buf, len, &n, "--window-fn", "%d %.17g", p->window, p->window_alpha);
    option_line(buf, len, &n, "--passes", "%d", p->passes);
    option_line(buf, len, &n, "--iterations", "%d", p->refine);
    option_line(buf, len, &n, "--tol", "%.17g", p->tolerance);
    option_line(buf, len, &n, "--fine-shift", "%d", p->fine_shift);
    option_line(buf, len, &n, "--interp", "%d", p->interp);
    option_line(buf, len, &n, "--refine", "%d", p->refiner);
    option_line(buf, len, &n, "--shape", "%d", p->shape);
    option_line(buf, len, &n, "--skip-bad", "%d", a->skip_bad);
    const clx_strain_job_options *s = a->strain;
    if (!s)
        return;
    option_line(buf, len, &n, "--pc", "%d %.17g %.17g %.17g", s->have_pc, s->pc[0], s->pc[1], s->pc[2]);
    option_line(buf, len, &n, "--sample-tilt", "%.17g", s->sample_tilt);
    option_line(buf, len, &n, "--detector-tilt", "%.17g", s->detector_tilt);
    option_line(buf, len, &n, "--pixel-size", "%.17g", s->pixel_size);
    option_line(buf, len, &n, "--step", "%.17g %.17g", s->step_x, s->step_y);
    option_line(buf, len, &n, "--scan-cols", "%d", s->scan_cols);
    option_line(buf, len, &n, "--ref-point", "%d %ld %ld", s->have_ref_point, s->ref_row, s->ref_col);
    option_line(buf, len, &n, "--euler", "%d %.17g %.17g %.17g", s->have_euler, s->euler[0], s->euler[1],
                s->euler[2]);
    option_line(buf, len, &n, "--stiffness", "%s", s->stiffness ? s->stiffness : "");
    option_line(buf, len, &n, "--min-zncc", "%.17g", s->fit.min_zncc);
    option_line(buf, len, &n, "--min-peak-ratio", "%.17g", s->fit.min_peak_ratio);
    option_line(buf, len, &n, "--max-residual", "%.17g %.17g", s->fit.residual_factor, s->fit.max_residual);
    option_line(buf, len, &n, "min_windows", "%d", s->fit.min_windows);   /* no option sets it */
    option_line(buf, len, &n, "--remap", "%d %d %.17g %d", s->remap, s->remap_rotation, s->remap_tol,
                s->remap_passes);
    /* Where each pattern's centre and orientation come from, and its grain's
     * reference: each changes the rows as much as the geometry above. */
    option_line(buf, len, &n, "--pattern-centres", "%d", (int)s->pattern_centres);
    option_line(buf, len, &n, "--orientations", "%s", s->orientations ? s->orientations : "");
    option_line(buf, len, &n, "--grains", "%s %.17g %d %d", s->grains ? s->grains : "", s->grain_angle,
                s->min_grain, s->symmetry);
    option_line(buf, len, &n, "--grain-references", "%s", s->grain_references ? s->grain_references : "");
}

int offsets_fingerprint(struct offsets_run *r, const struct offsets_args *a)
{
    char header[1024];
    if (offsets_header_format(r, header, sizeof header) != 0) {
        report_error("out of memory");
        return -1;
    }
    struct run_fingerprint *fp = &r->fingerprint;
    options_text(a, header, fp->options_text, sizeof fp->options_text);
    fp->options = run_hash(RUN_HASH_INIT, fp->options_text, strlen(fp->options_text));
    fp->reference = run_hash(RUN_HASH_INIT, r->reference, strlen(r->reference) + 1);
    int dims[3] = { r->ref.width, r->ref.height, (int)r->ref.type };
    fp->reference = run_hash(fp->reference, dims, sizeof dims);
    fp->reference = run_hash(fp->reference, r->ref.pixels,
                             (size_t)r->ref.width * (size_t)r->ref.height * clx_pixel_size(r->ref.type));
    fp->windows = RUN_HASH_INIT;
    for (size_t w = 0; w < r->nregions; w++) {
        int v[4] = { r->regions[w].x, r->regions[w].y, r->regions[w].w, r->regions[w].h };
        fp->windows = run_hash(fp->windows, v, sizeof v);
    }
    fp->images = RUN_HASH_INIT;
    for (size_t i = 0; i < r->count; i++) {
        char *name = image_item_name(&r->items, r->first + i);
        if (!name) {
            report_error("out of memory");
            return -1;
        }
        fp->images = run_hash(fp->images, name, strlen(name) + 1);
        free(name);
    }
    return 0;
}

int offsets_resume(struct offsets_run *r)
{
    char header[1024];
    r->resume_starts = calloc(offsets_rows_per_image(r), sizeof *r->resume_starts);
    if (!r->resume_starts || offsets_header_format(r, header, sizeof header) != 0) {
        report_error("out of memory");
        return -1;
    }
    struct resume_check c = { header, offsets_rows_per_image(r), r->count, &r->fingerprint, resume_row_start, r };
    if (resume_prepare(r->output, &c, &r->resume) != 0)
        return -1;
    r->resumed = r->resume.found;
    r->kept = r->resume.kept;
    if (!r->resume.found)
        report_note("--resume: no %s.part or %s: starting from the first image", r->output, r->output);
    else if (r->resume.complete)
        report_note("--resume: %s is complete (%zu images): nothing to do", r->output, r->kept);
    else
        report_note("--resume: %zu of %zu images already in %s.part; correlating the other %zu", r->kept,
                    r->count, r->output, r->count - r->kept);
    r->first += r->kept;
    r->count -= r->kept;
    r->local_count = r->count;
    return 0;
}
