/*
 * offsets_setup.c - `clxcorr offsets` before its first image: the image
 * list, the reference, the windows (those a --mask leaves), this process's share of the images (a
 * shard, then an MPI rank's chunks), --quiver, --resume and --skip-bad
 * state, the devices, and what --meta will say of them.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_open.h"
#include "offsets_run.h"
#include "output/output_guard.h"
#include "strain_remap.h"

/*
 * --reference pairs: a list line "A B" (a line that names no file but two
 * names split at its last run of blanks) is two entries, the pair's.
 */
static int pairs_lines_split(struct image_list *list)
{
    struct image_list split = { NULL, 0, 0, list->scan };
    for (size_t i = 0; i < list->count; i++) {
        char *e = list->entries[i];
        size_t n = strlen(e), cut = n;
        while (cut > 0 && e[cut - 1] != ' ' && e[cut - 1] != '\t')
            cut--;
        size_t end = cut;
        while (end > 0 && (e[end - 1] == ' ' || e[end - 1] == '\t'))
            end--;
        int two = cut > 0 && cut < n && end > 0 && access(e, F_OK) != 0;
        char *first = two ? strndup(e, end) : NULL;
        int status = two ? (first ? image_list_add(&split, first) : -1) : image_list_add(&split, e);
        if (status == 0 && two)
            status = image_list_add(&split, e + cut);
        free(first);
        if (status != 0) {
            image_list_free(&split);
            report_error("out of memory");
            return -1;
        }
    }
    image_list_free(list);
    *list = split;
    return 0;
}

/* No output (-o, --meta, --quiver) may be an input, nor two outputs one file. */
static int outputs_guard(const struct offsets_args *a)
{
    const struct output_guard outs[] = { { "-o", a->out.path }, { "--meta", a->meta }, { "--quiver", a->quiver } };
    char *reference = NULL;
    int page;
    if (clx_image_name_split(a->reference, &reference, &page, NULL, NULL) != CLX_OK) {
        report_error("out of memory");
        return -1;
    }
    const char *list = a->img.list_path && strcmp(a->img.list_path, "-") != 0 ? a->img.list_path : NULL;
    const char *files[] = { reference, a->win.regions_path, list };
    int status = output_guard_check(outs, 3, files, 3, &a->img.images);
    free(reference);
    return status;
}

/* The image list (--list read now), and the reference: the REFERENCE
 * argument, or with --reference pairs the first pair's first image, which
 * gives the run its size. */
static int inputs_load(struct offsets_args *a, struct offsets_run *r)
{
    clx_message msg;
    if (image_options_read_list(&a->img) != 0)
        return -1;
    if (a->pairing == PAIRING_PAIRS && pairs_lines_split(&a->img.images) != 0)
        return -1;
    if (a->img.images.count == 0) {
        report_error("no images to process: %s lists none", a->img.list_path);
        return -1;
    }
    if (a->pairing == PAIRING_PAIRS)
        a->reference = a->img.images.entries[0];
    /* --grains: every argument is the scan's; its first pattern sizes the
     * run until the grains' references are known (strain_setup). */
    if (a->strain && a->strain->grains && !a->reference) {
        const char *entry = a->img.images.entries[0];
        size_t n = strlen(entry) + 4;
        if (strchr(entry, '#') || !(a->first_page = malloc(n)))
            a->reference = entry;
        else {
            snprintf(a->first_page, n, "%s#0", entry);
            a->reference = a->first_page;
        }
    }
    if (outputs_guard(a) != 0)
        return -1;
    if (image_entry_load_single(a->reference, a->img.images.scan, &r->ref, &msg) != CLX_OK) {
        report_error("reference: %s", msg.text);
        return -1;
    }
    return 0;
}

/* The windows, checked against the reference; an error names the windows file. */
static int windows_load(const struct offsets_args *a, struct offsets_run *r)
{
    clx_message msg;
    int status = window_options_regions(&a->win, r->ref.width, r->ref.height, &r->regions, &r->nregions, &msg);
    if (status == CLX_OK) {
        status = clx_regions_check(r->regions, r->nregions, r->ref.width, r->ref.height, &msg);
        if (status != CLX_OK) {
            free(r->regions);
            r->regions = NULL;
        }
    }
    if (status != CLX_OK) {
        if (a->win.regions_path && !strstr(msg.text, a->win.regions_path))
            report_error("%s: %s", a->win.regions_path, msg.text);
        else
            report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

/* --mask: the windows measured, and the results of those left out. */
static int mask_setup(const struct offsets_args *a, struct offsets_run *r)
{
    clx_message msg;
    if (!a->mask)
        return 0;
    if (window_mask_apply(&r->mask, a->mask, a->mask_max, r->ref.width, r->ref.height, r->regions, r->nregions,
                          &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    r->masking = 1;
    clx_result *m = &r->masked_result;
    m->dx = m->dy = m->peak = m->zncc = m->peak_ratio = m->znssd = m->sigma_dx = m->sigma_dy = NAN;
    m->dudx = m->dudy = m->dvdx = m->dvdy = NAN;
    m->flags = ROW_FLAG_MASKED;
    report_info("--mask: %zu of %zu windows measured", r->mask.nmeasured, r->nregions);
    return 0;
}

/* --shard K/N: the shard's images, and what its comment line says of the whole run. */
static int shard_select(const struct offsets_args *a, struct offsets_run *r)
{
    size_t total = r->items.count;
    r->sharded = 1;
    r->shard.index = a->shard_index;
    r->shard.count = a->shard_count;
    r->shard.total = total;
    r->shard.windows = offsets_rows_per_image(r);
    r->shard.list = SHARD_LIST_HASH_INIT;
    for (size_t i = 0; i < total; i++) {
        char *name = image_item_name(&r->items, i);
        if (!name) {
            report_error("out of memory");
            return -1;
        }
        r->shard.list = shard_list_hash(r->shard.list, name);
        free(name);
    }
    shard_range(a->shard_index, a->shard_count, total, &r->shard.first, &r->shard.images);
    r->first = r->shard.first;
    r->count = r->shard.images;
    return 0;
}

static int strain_open(const struct offsets_args *a, struct offsets_run *r);

/* Expands the list into images and picks this process's share: a shard,
 * then, under MPI, this rank's chunks (r->local_count of them). */
static int images_select(const struct offsets_args *a, struct offsets_run *r)
{
    r->items.keep_unreadable = a->skip_bad;
    if (image_items_expand(&a->img.images, &r->items) != CLX_OK) {
        report_error("out of memory");
        return -1;
    }
    if ((a->shard_count || r->mpi || (a->strain && a->strain->grains)) && r->items.status != CLX_OK) {
        /* Shards and ranks split a list they must know whole, and grains order it. */
        report_error("%s", r->items.msg.text);
        return -1;
    }
    /* Before anything splits the list: every process orders it alike. */
    if (strain_open(a, r) != 0)
        return -1;
    r->first = 0;
    r->count = r->items.count;
    r->pairing = a->pairing;
    if (a->pairing == PAIRING_PAIRS) {
        if (r->items.count % 2 != 0) {
            report_error("--reference pairs takes the images two by two (frame A, frame B): %zu is an odd number"
                         "%s", r->items.count, r->items.status != CLX_OK ? " (the list stops at a bad entry)" : "");
            /* Known only now, a multi-page TIFF being a page per image, but
             * the command line's fault, unless a bad entry cut the list. */
            r->usage_error = r->items.status == CLX_OK;
            return -1;
        }
        r->count = r->items.count / 2;
    }
    if (a->pairing != PAIRING_FIRST && r->mpi) {
        report_error("--reference %s runs in one process: not under mpirun",
                     a->pairing == PAIRING_PAIRS ? "pairs" : "previous");
        return -1;
    }
    if (a->pairing == PAIRING_PREVIOUS && (!(r->total_dx = calloc(r->nregions, sizeof *r->total_dx)) ||
                                           !(r->total_dy = calloc(r->nregions, sizeof *r->total_dy)))) {
        report_error("out of memory");
        return -1;
    }
    if (a->shard_count && shard_select(a, r) != 0)
        return -1;
    r->local_count = r->count;
    if (r->mpi) {
        mpi_split_init(&r->split, r->count, offsets_rows_per_image(r));
        r->local_count = mpi_split_local_count(&r->split);
    }
    return 0;
}

/* A run over one pattern file's scan: its rows name scan points, not files. */
static int scan_setup(struct offsets_args *a, struct offsets_run *r)
{
    clx_message msg;
    r->scan = image_items_scan(&r->items);
    int stepped = r->scan && r->scan->step_x > 0 && r->scan->step_y > 0;
    if (r->scan)
        row_format_use_scan(&a->format, row_groups_of(&a->mode.plan), stepped);
    if (row_format_check_scan(&a->format, r->scan ? 1 + stepped : 0, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

/* The strain job's INFO lines (the orientations read) as -v's. */
static void strain_log(void *user, clx_log_level level, const char *line)
{
    (void)user;
    if (level <= CLX_LOG_INFO)
        report_info("%s", line);
}

/*
 * `clxcorr strain`: the library's job over the run's images, made before
 * anything splits the list (shards, MPI ranks, --resume), since with
 * --grains it orders the images grain by grain, alike in every process.
 * --explain describes the geometry it resolved.
 */
static int strain_open(const struct offsets_args *a, struct offsets_run *r)
{
    if (!a->strain)
        return 0;
    const clx_scan_info *scan = image_items_scan(&r->items);
    size_t n = r->items.count;
    int *pages = malloc((n ? n : 1) * sizeof *pages);
    struct image_item *ordered = malloc((n ? n : 1) * sizeof *ordered);
    clx_message msg;
    if (!pages || !ordered) {
        free(pages);
        free(ordered);
        report_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pages[i] = r->items.items[i].page;
    clx_strain_patterns patterns = { n, r->ref.width, r->ref.height,
                                     scan ? r->items.open[r->items.items[0].entry] : NULL, pages, a->reference,
                                     a->img.images.scan };
    a->strain->explain = a->mode.explain;
    a->strain->log = strain_log;
    int status = clx_strain_job_create(a->strain, &patterns, r->regions, r->nregions, &r->strain, &msg);
    free(pages);
    if (status != CLX_OK) {
        free(ordered);
        report_error("%s", msg.text);
        return -1;
    }
    /* The run's images in the job's order (grain by grain with --grains). */
    const size_t *order = clx_strain_job_order(r->strain);
    for (size_t k = 0; k < n; k++)
        ordered[k] = r->items.items[order[k]];
    memcpy(r->items.items, ordered, n * sizeof *ordered);
    free(ordered);
    if (a->mode.explain) {
        size_t len = clx_strain_job_describe(r->strain, NULL, 0) + 1;
        char *text = malloc(len);
        if (text) {
            clx_strain_job_describe(r->strain, text, len);
            for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
                report_note("%s", line);
        }
        free(text);
    }
    return 0;
}

/* `clxcorr strain`: the columns the job's references allow, --remap's
 * passes, and with --grains the stream's reference per grain. */
static int strain_setup(struct offsets_args *a, struct offsets_run *r)
{
    if (!r->strain)
        return 0;
    const clx_strain_job *job = r->strain;
    size_t nrefs;
    const clx_strain_reference *refs = clx_strain_job_references(job, &nrefs);
    const char *from;
    int grains = clx_strain_job_grains(job, &from);
    /* The refined orientations, where a reference's orientation is known. */
    int oriented = 0;
    for (size_t g = 0; g < nrefs; g++)
        oriented |= isfinite(refs[g].euler[0]);
    row_format_strain_extras(&a->format, grains > 0, oriented);
    if (a->strain->remap && strain_remap_setup(r, a->strain->remap_passes, a->strain->remap_tol) != 0)
        return -1;
    if (grains == 0)
        return 0;
    /* Each stream index's grain reference, in the run's staged type. */
    r->reference_of = malloc((r->local_count ? r->local_count : 1) * sizeof *r->reference_of);
    r->grain_references = calloc(nrefs, sizeof *r->grain_references);
    if (!r->reference_of || !r->grain_references) {
        report_error("out of memory");
        return -1;
    }
    r->ngrain_references = nrefs;
    for (size_t j = 0; j < r->local_count; j++)
        r->reference_of[j] = clx_strain_job_reference_of(job, offsets_item_index(r, j));
    for (size_t g = 0; g < nrefs; g++) {
        clx_message msg;
        if (clx_image_alloc(&r->grain_references[g], r->ref.width, r->ref.height, r->ref.type, &msg) != CLX_OK ||
            clx_image_copy_to(&refs[g].image, &r->grain_references[g], &msg) != CLX_OK) {
            report_error("grain %zu's reference: %s", g + 1, msg.text);
            return -1;
        }
    }
    a->stream.references = r->grain_references;
    a->stream.reference_count = nrefs;
    a->stream.reference_of = r->reference_of;
    report_info("--grains: %d grains from %s, each against its own reference", grains, from);
    if (r->explain) {
        report_note("grains: %d from %s; rows come grain by grain", grains, from);
        for (size_t g = 0; g < nrefs; g++)
            report_note("  grain %zu: %zu patterns, reference at point %ld,%ld", g + 1, refs[g].patterns, refs[g].row,
                        refs[g].col);
    }
    return 0;
}

static int quiver_setup(const struct offsets_args *a, struct offsets_run *r)
{
    if (a->quiver && r->mpi) {
        report_error("--quiver under mpirun: rank 0 has only the rows' text; draw the picture from the output "
                     "with clxcorr plot");
        return -1;
    }
    if (a->quiver) {
        if (quiver_mean_init(&r->mean, r->nregions) != CLX_OK) {
            report_error("out of memory");
            return -1;
        }
        r->drawing = 1;
    }
    return 0;
}

/* --resume under MPI: rank 0 owns the output, so it alone checks and cuts
 * it; every rank then deals what is left of the run anew. */
static int resume_ranks(struct offsets_run *r, int status)
{
    size_t kept = r->kept;
    if (mpi_share(status == 0 ? CLX_OK : CLX_ERR_ARGUMENT, &kept) != CLX_OK)
        return -1;
    if (mpi_rank() != 0) {
        r->kept = kept;
        r->first += kept;
        r->count -= kept;
    }
    mpi_split_free(&r->split);
    mpi_split_init(&r->split, r->count, offsets_rows_per_image(r));
    r->local_count = mpi_split_local_count(&r->split);
    return 0;
}

static int resume_setup(const struct offsets_args *a, struct offsets_run *r)
{
    if ((a->format.kind == ROW_FORMAT_H5 || a->format.kind == ROW_FORMAT_VTK ||
         a->format.kind == ROW_FORMAT_OPENPIV) && r->mpi) {
        report_error("--format %s is not written under mpirun yet: write CSV (or run one process)", a->out.format);
        return -1;
    }
    int status = 0;
    if (r->output && strcmp(r->output, "-") != 0 && (!r->mpi || mpi_rank() == 0))
        status = offsets_fingerprint(r, a);
    if (a->resume && status == 0 && (!r->mpi || mpi_rank() == 0))
        status = offsets_resume(r);
    if (a->resume && r->mpi)
        return resume_ranks(r, status);
    return status;
}

/* The devices this process uses: those of --device, or under MPI the one
 * of them matching this rank's place on its node. */
static int devices_open(const struct offsets_args *a, struct offsets_run *r)
{
    struct device_specs specs;
    const char *spec = a->device.spec;
    if (r->mpi && !spec)
        spec = getenv("CLXCORR_DEVICE") ? getenv("CLXCORR_DEVICE") : "all";
    if (device_specs_parse(spec, &specs) != 0)
        return -1;
    int status;
    if (r->mpi) {
        struct device_specs mine = { &specs.specs[(size_t)mpi_local_rank() % specs.count], 1 };
        status = open_devices(&mine, a->mode.plan.use_double, a->device.no_cache, &r->ctxs);
        r->ndevices = 1;
    } else {
        status = open_devices(&specs, a->mode.plan.use_double, a->device.no_cache, &r->ctxs);
        r->ndevices = specs.count;
    }
    device_specs_free(&specs);
    return status;
}

/* --skip-bad: room to mark this process's unreadable images, and the
 * results their rows show. */
static int skip_bad_setup(struct offsets_run *r)
{
    r->skip_bad = 1;
    r->unreadable = calloc(r->local_count ? r->local_count : 1, 1);
    r->unreadable_results = calloc(r->nregions, sizeof *r->unreadable_results);
    if (!r->unreadable || !r->unreadable_results) {
        report_error("out of memory");
        return -1;
    }
    for (size_t w = 0; w < r->nregions; w++) {
        clx_result *u = &r->unreadable_results[w];
        u->dx = u->dy = u->peak = u->zncc = u->peak_ratio = NAN;
        u->flags = ROW_FLAG_UNREADABLE | (r->masking && r->mask.masked[w] ? ROW_FLAG_MASKED : 0);
    }
    return 0;
}

/* What --meta says of the run's inputs and options. */
static void meta_setup(const struct offsets_args *a, struct offsets_run *r)
{
    r->meta.reference = a->reference;
    r->meta.images = r->count;
    r->meta.windows = r->nregions;
    r->meta.output = a->out.path;
    r->meta.plan = &a->mode.plan;
    r->meta.loaders = a->stream.loaders;
    r->meta.shard = a->shard_text;
    r->meta.scan = r->scan;
    r->meta.mpi_ranks = r->mpi ? mpi_size() : 0;
}

int offsets_setup(struct offsets_args *a, struct offsets_run *r)
{
    r->output = a->out.path;
    r->format = &a->format;
    r->explain = a->mode.explain;
    if (inputs_load(a, r) != 0)
        return -1;
    r->reference = a->reference;
    if (windows_load(a, r) != 0 || mask_setup(a, r) != 0 || images_select(a, r) != 0 || scan_setup(a, r) != 0 ||
        strain_setup(a, r) != 0 || quiver_setup(a, r) != 0 || resume_setup(a, r) != 0)
        return -1;
    /* A process without images (an empty shard, a rank beyond the chunks) needs no device. */
    if (r->local_count > 0 && devices_open(a, r) != 0)
        return -1;
    r->device_images = calloc(r->ndevices ? r->ndevices : 1, sizeof *r->device_images);
    if (!r->device_images) {
        report_error("out of memory");
        return -1;
    }
    if (a->skip_bad && skip_bad_setup(r) != 0)
        return -1;
    meta_setup(a, r);
    return 0;
}

void offsets_run_free(struct offsets_run *r)
{
    clx_message msg;
    if (r->out_open && r->h5)
        h5_output_close(r->h5, 0, &msg);
    else if (r->out_open && r->field)
        field_output_close(r->field);
    else if (r->out_open)
        csv_output_close(&r->out, 0, &msg);
    if (r->resume.part)
        clx_output_close(r->resume.part, 0, &msg);
    mpi_split_free(&r->split);
    image_items_free(&r->items);
    for (size_t k = 0; r->ring && k < r->ring_size; k++)
        csv_text_free(&r->ring[k]);
    free(r->ring);
    free(r->device_images);
    free(r->unreadable);
    free(r->unreadable_results);
    free(r->total_dx);
    free(r->total_dy);
    if (r->drawing)
        quiver_mean_free(&r->mean);
    for (size_t w = 0; r->resume_starts && w < offsets_rows_per_image(r); w++)
        free(r->resume_starts[w]);
    free(r->resume_starts);
    clx_strain_job_release(r->strain);
    strain_remap_free(r->remap);
    free(r->strains);
    free(r->reference_of);
    for (size_t g = 0; r->grain_references && g < r->ngrain_references; g++)
        clx_image_free(&r->grain_references[g]);
    free(r->grain_references);
    close_devices(r->ctxs, r->ndevices);
    free(r->regions);
    free(r->rows_read);
    window_mask_free(&r->mask);
    free(r->expanded);
    clx_image_free(&r->ref);
}
