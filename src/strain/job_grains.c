/*
 * job_grains.c - a reference per grain for a strain job (job.h): the
 * scan's grains (clx_grains_segment over the orientations, or a grain map
 * the user made), each grain's reference point (clx_grains_references, or
 * the user's), and the patterns put in order grain by grain.
 *
 * The order is fixed before anything else splits the patterns (the
 * command's shards, MPI ranks, --resume), so that every process sees the
 * same: each grain's points in scan order, grain after grain, the points
 * in no grain last. A stream then measures each grain against its own
 * reference with no reference switch inside a grain.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strain/job.h"

/* Each point's orientation and quality: --orientations FILE's, or the
 * pattern file's own. *symmetry: the file's (-1 unknown). */
static int orientations_load(const clx_strain_job *job, double **euler, double **quality, int *symmetry,
                             clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    const clx_scan_info *scan = job->scan;
    size_t n = (size_t)scan->rows * (size_t)scan->cols;
    *quality = NULL;
    *symmetry = -1;
    if (o->orientations) {
        clx_orientation_map m;
        clx_message why;
        int status = clx_orientation_map_read(o->orientations, &m, &why);
        if (status != CLX_OK)
            return job_fail(msg, status, "--orientations: %s", why.text);
        if (m.rows != scan->rows || m.cols != scan->cols) {
            job_fail(msg, CLX_ERR_ARGUMENT, "--orientations %s: a grid of %d x %d points (rows x columns), where the "
                     "patterns' scan has %d x %d", o->orientations, m.rows, m.cols, scan->rows, scan->cols);
            clx_orientation_map_free(&m);
            return CLX_ERR_ARGUMENT;
        }
        *euler = m.euler;
        *quality = m.quality;
        *symmetry = m.symmetry;
        m.euler = m.quality = NULL;
        clx_orientation_map_free(&m);
        return CLX_OK;
    }
    if (!scan->has_euler || !job->file || job->count == 0)
        return job_fail(msg, CLX_ERR_ARGUMENT, "--grains auto segments the scan's orientations: the patterns' file "
                        "gives none; give --orientations FILE (.ang, .ctf), or a grain map (--grains FILE)");
    *symmetry = scan->symmetry;
    if (!(*euler = malloc(3 * n * sizeof **euler)))
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    for (size_t p = 0; p < n; p++)
        if (clx_image_file_euler(job->file, (int)p, *euler + 3 * p) != CLX_OK)
            (*euler)[3 * p] = (*euler)[3 * p + 1] = (*euler)[3 * p + 2] = NAN;
    return CLX_OK;
}

/* --grains FILE: an image of rows x cols grain numbers (0: none). */
static int grain_map_read(const char *path, const clx_scan_info *scan, int *grain, int *count, clx_message *msg)
{
    clx_image img;
    clx_message why;
    int status = clx_image_load(path, 0, &img, &why);
    if (status != CLX_OK)
        return job_fail(msg, status, "--grains: %s", why.text);
    status = CLX_OK;
    if (img.width != scan->cols || img.height != scan->rows)
        status = job_fail(msg, CLX_ERR_ARGUMENT, "--grains %s: a map of %d x %d (rows x columns), where the "
                          "patterns' scan has %d x %d", path, img.height, img.width, scan->rows, scan->cols);
    *count = 0;
    for (size_t i = 0; status == CLX_OK && i < (size_t)img.width * img.height; i++) {
        double v = img.type == CLX_PIXEL_U8    ? ((const unsigned char *)img.pixels)[i]
                   : img.type == CLX_PIXEL_U16 ? ((const unsigned short *)img.pixels)[i]
                                               : ((const float *)img.pixels)[i];
        if (!(v >= 0) || v != floor(v) || v > 1e6)
            status = job_fail(msg, CLX_ERR_ARGUMENT, "--grains %s: the point at row %zu, column %zu holds %g, not a "
                              "grain number (0: none)", path, i / img.width, i % img.width, v);
        else {
            grain[i] = (int)v;
            *count = grain[i] > *count ? grain[i] : *count;
        }
    }
    clx_image_free(&img);
    return status;
}

/* --grain-references FILE: "GRAIN ROW COL" lines ('#' comments) that
 * replace the chosen references. */
static int references_override(const char *path, const clx_scan_info *scan, const int *grain, int count,
                               int *reference, clx_message *msg)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return job_fail(msg, CLX_ERR_IO, "--grain-references %s: %s", path, strerror(errno));
    char line[256];
    int number = 0, status = CLX_OK;
    while (status == CLX_OK && fgets(line, sizeof line, f)) {
        number++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        long g, row, col;
        char tail;
        if (sscanf(line, "%ld %ld %ld %c", &g, &row, &col, &tail) != 3)
            status = job_fail(msg, CLX_ERR_FORMAT, "--grain-references %s:%d: expected GRAIN ROW COL", path, number);
        else if (g < 1 || g > count)
            status = job_fail(msg, CLX_ERR_ARGUMENT, "--grain-references %s:%d: grain %ld, where the scan has grains "
                              "1 to %d", path, number, g, count);
        else if (row < 0 || row >= scan->rows || col < 0 || col >= scan->cols)
            status = job_fail(msg, CLX_ERR_ARGUMENT, "--grain-references %s:%d: point %ld,%ld is outside the %d x %d "
                              "scan", path, number, row, col, scan->rows, scan->cols);
        else if (grain[row * scan->cols + col] != g)
            status = job_fail(msg, CLX_ERR_ARGUMENT, "--grain-references %s:%d: point %ld,%ld is in grain %d, not "
                              "%ld", path, number, row, col, grain[row * scan->cols + col], g);
        else
            reference[g - 1] = (int)(row * scan->cols + col);
    }
    fclose(f);
    return status;
}

/* The patterns in order grain by grain (stable: scan order within a
 * grain), those in no grain last; pattern_grain and order follow. */
static int patterns_order(clx_strain_job *job, const int *point_grain, int count, clx_message *msg)
{
    size_t n = job->count;
    int *pages = malloc((n ? n : 1) * sizeof *pages);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    job->pattern_grain = malloc((n ? n : 1) * sizeof *job->pattern_grain);
    if (!pages || !order || !job->pattern_grain) {
        free(pages);
        free(order);
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    }
    size_t k = 0;
    for (int grain = 1; grain <= count + 1; grain++)
        for (size_t i = 0; i < n; i++) {
            int p = job->pages[i] < 0 ? 0 : job->pages[i];
            int gi = point_grain[p];
            if (gi == (grain <= count ? grain : 0)) {
                pages[k] = job->pages[i];
                order[k] = job->order[i];
                job->pattern_grain[k++] = gi;
            }
        }
    free(job->pages);
    free(job->order);
    job->pages = pages;
    job->order = order;
    return CLX_OK;
}

int job_grains_assign(clx_strain_job *job, clx_message *msg)
{
    const clx_strain_job_options *o = &job->options;
    const clx_scan_info *scan = job->scan;
    if (!o->grains)
        return CLX_OK;
    if (!scan || scan->rows < 1 || scan->cols < 1)
        return job_fail(msg, CLX_ERR_ARGUMENT, "--grains needs the patterns of one pattern file's scan (a grid of "
                        "rows x columns)");
    size_t n = (size_t)scan->rows * (size_t)scan->cols;
    int *grain = calloc(n, sizeof *grain), *reference = NULL, count = 0, status;
    double *euler = NULL, *quality = NULL;
    clx_message why;
    if (!grain)
        return job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
    if (strcmp(o->grains, "auto") == 0) {
        int symmetry;
        if ((status = orientations_load(job, &euler, &quality, &symmetry, msg)) != CLX_OK)
            goto done;
        if (o->symmetry >= 0)
            symmetry = o->symmetry;
        if (symmetry < 0) {
            status = job_fail(msg, CLX_ERR_ARGUMENT, "--grains auto: the crystal symmetry is not known from %s: give "
                              "--symmetry cubic or hexagonal", o->orientations ? o->orientations
                              : "the patterns' file");
            goto done;
        }
        if ((status = clx_grains_segment(scan->rows, scan->cols, euler, (clx_symmetry)symmetry,
                                         o->grain_angle * M_PI / 180, o->min_grain, grain, &count, &why)) != CLX_OK) {
            job_fail(msg, status, "--grains: %s", why.text);
            goto done;
        }
        job->grains_from = o->orientations ? "the orientations of --orientations"
                                           : "the patterns' file's orientations";
    } else {
        if ((status = grain_map_read(o->grains, scan, grain, &count, msg)) != CLX_OK)
            goto done;
        /* The indexing's quality chooses the references here too. */
        int symmetry;
        if (o->orientations && (status = orientations_load(job, &euler, &quality, &symmetry, msg)) != CLX_OK)
            goto done;
        job->grains_from = o->grains;
    }
    if (count == 0) {
        status = job_fail(msg, CLX_ERR_ARGUMENT, "--grains: no grain of %d points or more in the scan", o->min_grain);
        goto done;
    }
    if (!(reference = malloc((size_t)count * sizeof *reference))) {
        status = job_fail(msg, CLX_ERR_HOST_MEMORY, "--grains: out of memory");
        goto done;
    }
    if ((status = clx_grains_references(scan->rows, scan->cols, grain, count, quality, reference, &why)) != CLX_OK) {
        job_fail(msg, status, "--grains: %s", why.text);
        goto done;
    }
    if (o->grain_references &&
        (status = references_override(o->grain_references, scan, grain, count, reference, msg)) != CLX_OK)
        goto done;
    if ((status = patterns_order(job, grain, count, msg)) != CLX_OK)
        goto done;
    /* Each grain's reference must be one of the job's patterns. */
    if (!(job->grain_pattern = malloc((size_t)count * sizeof *job->grain_pattern))) {
        status = job_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
        goto done;
    }
    for (int g = 0; g < count; g++) {
        job->grain_pattern[g] = SIZE_MAX;
        for (size_t k = 0; k < job->count; k++)
            if (job->pages[k] == reference[g]) {
                job->grain_pattern[g] = k;
                break;
            }
        if (job->grain_pattern[g] == SIZE_MAX) {
            status = job_fail(msg, CLX_ERR_ARGUMENT, "grain %d's reference, point %d,%d, is not among the patterns of "
                              "the run", g + 1, reference[g] / scan->cols, reference[g] % scan->cols);
            goto done;
        }
    }
    job->grain_count = count;
    status = CLX_OK;
done:
    free(grain);
    free(reference);
    free(euler);
    free(quality);
    return status;
}
