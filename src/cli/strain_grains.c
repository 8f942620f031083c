/* strain_grains.c - `clxcorr strain --grains` (strain_grains.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strain_grains.h"
#include "strain_job.h"

void strain_grains_free(struct strain_grains *g)
{
    free(g->item_grain);
    free(g->reference_item);
    memset(g, 0, sizeof *g);
}

/* Each point's orientation and quality: --orientations FILE's, or the
 * pattern file's own. *symmetry: the file's (-1 unknown). */
static int orientations_load(const struct strain_options *o, const struct image_items *items,
                             const clx_scan_info *scan, double **euler, double **quality, int *symmetry)
{
    size_t n = (size_t)scan->rows * (size_t)scan->cols;
    *quality = NULL;
    *symmetry = -1;
    if (o->orientations) {
        clx_orientation_map m;
        clx_message msg;
        if (clx_orientation_map_read(o->orientations, &m, &msg) != CLX_OK) {
            report_error("--orientations: %s", msg.text);
            return -1;
        }
        if (m.rows != scan->rows || m.cols != scan->cols) {
            report_error("--orientations %s: a grid of %d x %d points (rows x columns), where the patterns' scan has "
                         "%d x %d", o->orientations, m.rows, m.cols, scan->rows, scan->cols);
            clx_orientation_map_free(&m);
            return -1;
        }
        *euler = m.euler;
        *quality = m.quality;
        *symmetry = m.symmetry;
        m.euler = m.quality = NULL;
        clx_orientation_map_free(&m);
        return 0;
    }
    clx_image_file *f = items->open && items->count > 0 ? items->open[items->items[0].entry] : NULL;
    if (!scan->has_euler || !f) {
        report_error("--grains auto segments the scan's orientations: the patterns' file gives none; give "
                     "--orientations FILE (.ang, .ctf), or a grain map (--grains FILE)");
        return -1;
    }
    *symmetry = scan->symmetry;
    if (!(*euler = malloc(3 * n * sizeof **euler))) {
        report_error("out of memory");
        return -1;
    }
    for (size_t p = 0; p < n; p++)
        if (clx_image_file_euler(f, (int)p, *euler + 3 * p) != CLX_OK)
            (*euler)[3 * p] = (*euler)[3 * p + 1] = (*euler)[3 * p + 2] = NAN;
    return 0;
}

/* --grains FILE: an image of rows x cols grain numbers (0: none). */
static int grain_map_read(const char *path, const clx_scan_info *scan, int *grain, int *count)
{
    clx_image img;
    clx_message msg;
    if (clx_image_load(path, 0, &img, &msg) != CLX_OK) {
        report_error("--grains: %s", msg.text);
        return -1;
    }
    int status = 0;
    if (img.width != scan->cols || img.height != scan->rows) {
        report_error("--grains %s: a map of %d x %d (rows x columns), where the patterns' scan has %d x %d", path,
                     img.height, img.width, scan->rows, scan->cols);
        status = -1;
    }
    *count = 0;
    for (size_t i = 0; status == 0 && i < (size_t)img.width * img.height; i++) {
        double v = img.type == CLX_PIXEL_U8    ? ((const unsigned char *)img.pixels)[i]
                   : img.type == CLX_PIXEL_U16 ? ((const unsigned short *)img.pixels)[i]
                                               : ((const float *)img.pixels)[i];
        if (!(v >= 0) || v != floor(v) || v > 1e6) {
            report_error("--grains %s: the point at row %zu, column %zu holds %g, not a grain number (0: none)",
                         path, i / img.width, i % img.width, v);
            status = -1;
        } else {
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
                               int *reference)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        report_error("--grain-references %s: %s", path, strerror(errno));
        return -1;
    }
    char line[256];
    int number = 0, status = 0;
    while (status == 0 && fgets(line, sizeof line, f)) {
        number++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        long g, row, col;
        char tail;
        if (sscanf(line, "%ld %ld %ld %c", &g, &row, &col, &tail) != 3) {
            report_error("--grain-references %s:%d: expected GRAIN ROW COL", path, number);
            status = -1;
        } else if (g < 1 || g > count) {
            report_error("--grain-references %s:%d: grain %ld, where the scan has grains 1 to %d", path, number, g,
                         count);
            status = -1;
        } else if (row < 0 || row >= scan->rows || col < 0 || col >= scan->cols) {
            report_error("--grain-references %s:%d: point %ld,%ld is outside the %d x %d scan", path, number, row,
                         col, scan->rows, scan->cols);
            status = -1;
        } else if (grain[row * scan->cols + col] != g) {
            report_error("--grain-references %s:%d: point %ld,%ld is in grain %d, not %ld", path, number, row, col,
                         grain[row * scan->cols + col], g);
            status = -1;
        } else
            reference[g - 1] = (int)(row * scan->cols + col);
    }
    fclose(f);
    return status;
}

/* The items in order grain by grain (stable: scan order within a grain),
 * those in no grain last; item_grain follows. */
static int items_order(struct image_items *items, const int *point_grain, int count, struct strain_grains *g)
{
    size_t n = items->count;
    struct image_item *sorted = malloc(n * sizeof *sorted);
    g->item_grain = malloc(n * sizeof *g->item_grain);
    if (!sorted || !g->item_grain) {
        free(sorted);
        report_error("out of memory");
        return -1;
    }
    size_t k = 0;
    for (int grain = 1; grain <= count + 1; grain++)
        for (size_t i = 0; i < n; i++) {
            int p = items->items[i].page < 0 ? 0 : items->items[i].page;
            int gi = point_grain[p];
            if (gi == (grain <= count ? grain : 0)) {
                sorted[k] = items->items[i];
                g->item_grain[k++] = gi;
            }
        }
    memcpy(items->items, sorted, n * sizeof *sorted);
    free(sorted);
    return 0;
}

int strain_grains_assign(const struct strain_options *o, struct image_items *items, struct strain_grains *g)
{
    memset(g, 0, sizeof *g);
    if (!o->grains)
        return 0;
    const clx_scan_info *scan = image_items_scan(items);
    if (!scan || scan->rows < 1 || scan->cols < 1) {
        report_error("--grains needs the patterns of one pattern file's scan (a grid of rows x columns)");
        return -1;
    }
    size_t n = (size_t)scan->rows * (size_t)scan->cols;
    int *grain = calloc(n, sizeof *grain), *reference = NULL, count = 0, status = -1;
    double *euler = NULL, *quality = NULL;
    clx_message msg;
    if (!grain) {
        report_error("out of memory");
        return -1;
    }
    if (strcmp(o->grains, "auto") == 0) {
        int symmetry;
        if (orientations_load(o, items, scan, &euler, &quality, &symmetry) != 0)
            goto done;
        if (o->symmetry >= 0)
            symmetry = o->symmetry;
        if (symmetry < 0) {
            report_error("--grains auto: the crystal symmetry is not known from %s: give --symmetry cubic or "
                         "hexagonal", o->orientations ? o->orientations : "the patterns' file");
            goto done;
        }
        if (clx_grains_segment(scan->rows, scan->cols, euler, (clx_symmetry)symmetry, o->grain_angle * M_PI / 180,
                               o->min_grain, grain, &count, &msg) != CLX_OK) {
            report_error("--grains: %s", msg.text);
            goto done;
        }
        g->from = o->orientations ? "the orientations of --orientations" : "the patterns' file's orientations";
    } else {
        if (grain_map_read(o->grains, scan, grain, &count) != 0)
            goto done;
        /* The indexing's quality chooses the references here too. */
        int symmetry;
        if (o->orientations && orientations_load(o, items, scan, &euler, &quality, &symmetry) != 0)
            goto done;
        g->from = o->grains;
    }
    if (count == 0) {
        report_error("--grains: no grain of %d points or more in the scan", o->min_grain);
        goto done;
    }
    if (!(reference = malloc((size_t)count * sizeof *reference)) ||
        clx_grains_references(scan->rows, scan->cols, grain, count, quality, reference, &msg) != CLX_OK) {
        report_error("--grains: %s", reference ? msg.text : "out of memory");
        goto done;
    }
    if (o->grain_references && references_override(o->grain_references, scan, grain, count, reference) != 0)
        goto done;
    if (items_order(items, grain, count, g) != 0)
        goto done;
    /* Each grain's reference must be one of the run's patterns. */
    if (!(g->reference_item = malloc((size_t)count * sizeof *g->reference_item))) {
        report_error("out of memory");
        goto done;
    }
    for (int k = 0; k < count; k++) {
        g->reference_item[k] = SIZE_MAX;
        for (size_t i = 0; i < items->count; i++)
            if (items->items[i].page == reference[k]) {
                g->reference_item[k] = i;
                break;
            }
        if (g->reference_item[k] == SIZE_MAX) {
            report_error("grain %d's reference, point %d,%d, is not among the patterns of the run", k + 1,
                         reference[k] / scan->cols, reference[k] % scan->cols);
            goto done;
        }
    }
    g->count = count;
    status = 0;
done:
    if (status != 0)
        strain_grains_free(g);
    free(grain);
    free(reference);
    free(euler);
    free(quality);
    return status;
}
