/*
 * cmd_correlate.c - `clxcorr correlate`: the correlation surfaces themselves,
 * as 32-bit float TIFF pages, for image pairs in the four forms of the
 * definition-based correlation thesis (one-to-one, one-to-many, n-to-mn,
 * n-to-m), windowed or whole-image. A page index goes to standard output.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_open.h"
#include "image_list.h"
#include "output/output_guard.h"
#include "options.h"
#include "report.h"

enum form {
    FORM_ONE_TO_ONE,
    FORM_ONE_TO_MANY,
    FORM_N_TO_MN,
    FORM_N_TO_M
};

struct correlate_args {
    enum form form;
    int lefts;
    struct window_options win;
    struct image_options img;
    struct mode_options mode;
    struct device_options device;
    struct output_options out;     /* -o OUT.tif */
};

static const char correlate_help[] =
    "Usage: clxcorr correlate [OPTIONS] -o OUT.tif IMAGE...\n"
    "\n"
    "Write cross-correlation surfaces C(u) = sum_p r(p) d(p + u) of zero-mean\n"
    "windows, r from a left image and d from a right image, as 32-bit float\n"
    "TIFF pages: one page per (left, right) pair and window.\n"
    "\n"
    "Forms (which pairs; the IMAGE list is read in this order):\n"
    "  --form one-to-one   LEFT RIGHT\n"
    "  --form one-to-many  LEFT RIGHT...: the left with each right (default)\n"
    "  --form n-to-mn      LEFT_1..LEFT_N, then the M rights of LEFT_1, the M\n"
    "                      rights of LEFT_2, ... (N from --lefts)\n"
    "  --form n-to-m       LEFT_1..LEFT_N RIGHT_1..RIGHT_M: every left with\n"
    "                      every right (N from --lefts)\n"
    "  --lefts N           number of left images for n-to-mn and n-to-m\n"
    "\n"
    "Windows (default: each whole image is one window):\n"
    "  -r, --regions FILE   windows file: \"x y w h\" per line, all one size\n"
    "  -g, --grid NXxNY     a grid of windows ...\n"
    "  -w, --window WxH     ... of this size ...\n"
    "  -m, --margin M       ... keeping M pixels free at the borders\n"
    "      --grid-step S    a window every S pixels instead of --grid (as offsets)\n"
    "\n"
    "Surfaces:\n"
    "      --max-shift R    only the shifts |ux|, |uy| <= R (default: all shifts of\n"
    "                       the window, a (2w-1) x (2h-1) surface)\n"
    "  Each page is (2 Rx + 1) x (2 Ry + 1) pixels: pixel (x, y) holds C at\n"
    "  u = (x - Rx, y - Ry), so the zero shift is the centre pixel. A peak at\n"
    "  u means the right image's content sits u pixels right/down of the left's.\n"
    "  Its ImageDescription names the pair, the window and the shift range;\n"
    "  standard output lists the pages as CSV\n"
    "  (page,left,right,region,x,y,w,h,rx,ry).\n"
    "\n"
    "Other options:\n"
    "  -o, --output FILE    the TIFF to write (written as FILE.part until complete)\n"
    "  -l, --list FILE      more images from FILE, one per line ('-': standard input)\n"
    "      --scan NAME      the scan to read in pattern files of several scans\n"
    "      --method M       fft, direct or auto (default; see clxcorr offsets --help)\n"
    "      --explain        say which method was used and why\n"
    "      --double         every device stage in double precision\n"
    "  -b, --batch B        right images per device batch\n"
    "  -d, --device SPEC    the OpenCL device (see clxcorr offsets --help)\n"
    "      --no-cache       do not use cached compiled kernels\n"
    "  -v, --verbose / -q, --quiet / -h, --help\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (OUT.tif then stays OUT.tif.part),\n"
    "2 wrong command line.\n";

enum { OPT_FORM = OPT_OWN, OPT_LEFTS };

static const struct option correlate_table[] = {
    { "form", required_argument, NULL, OPT_FORM },
    { "lefts", required_argument, NULL, OPT_LEFTS },
    OPTIONS_WINDOWS,
    OPTION_MAX_SHIFT,
    OPTION_METHOD,
    OPTION_EXPLAIN,
    OPTION_DOUBLE,
    OPTION_BATCH,
    OPTION_OUTPUT,
    OPTION_LIST,
    OPTION_SCAN,
    OPTION_DEVICE,
    OPTION_NO_CACHE,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

static int parse_form(const char *s, enum form *form)
{
    static const char *const names[] = { "one-to-one", "one-to-many", "n-to-mn", "n-to-m" };
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *form = (enum form)i;
            return 0;
        }
    report_error("--form: unknown form '%s' (one-to-one, one-to-many, n-to-mn or n-to-m)", s);
    return -1;
}

static int correlate_take(void *own, int c, const char *value)
{
    struct correlate_args *a = own;
    switch (c) {
    case OPT_FORM: return option_taken(parse_form(value, &a->form));
    case OPT_LEFTS: return option_taken(parse_int(value, "--lefts", 1, 1 << 20, &a->lefts));
    }
    return 0;
}

static const struct command_options correlate_options = {
    "correlate", correlate_help, correlate_table, correlate_take
};

/* Returns -1 after reporting a usage error, 1 after --help, 0 to run. */
static int parse_args(int argc, char **argv, struct correlate_args *a)
{
    const struct option_values values = {
        .windows = &a->win, .images = &a->img, .mode = &a->mode, .device = &a->device, .output = &a->out, .own = a
    };
    a->form = FORM_ONE_TO_MANY;
    a->lefts = 1;
    int parsed = options_parse(&correlate_options, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    if (!a->out.path) {
        report_error("correlate needs -o OUT.tif");
        return -1;
    }
    if (window_options_check(&a->win, 0))
        return -1;
    if (a->lefts != 1 && a->form != FORM_N_TO_MN && a->form != FORM_N_TO_M) {
        report_error("--lefts is only used with --form n-to-mn or n-to-m");
        return -1;
    }
    return image_options_add_args(&a->img, argc, argv, optind, " (see clxcorr correlate --help)");
}

/* The rights of left `i`: entries [*first, *first + *count) of the list. */
struct pairing {
    int lefts;
    size_t rights_per_left;
    int shared;            /* n-to-m: every left has the same rights */
};

static int pairing_of(const struct correlate_args *a, struct pairing *p)
{
    size_t n = a->img.images.count;
    p->lefts = a->form == FORM_N_TO_MN || a->form == FORM_N_TO_M ? a->lefts : 1;
    p->shared = a->form == FORM_N_TO_M;
    if ((size_t)p->lefts >= n) {
        report_error("%zu images for %d left image%s: no right images", n, p->lefts, p->lefts == 1 ? "" : "s");
        return -1;
    }
    size_t rights = n - (size_t)p->lefts;
    if (a->form == FORM_ONE_TO_ONE && rights != 1) {
        report_error("--form one-to-one takes exactly 2 images (LEFT RIGHT), got %zu", n);
        return -1;
    }
    if (a->form == FORM_N_TO_MN && rights % (size_t)p->lefts != 0) {
        report_error("--form n-to-mn: %zu right images do not divide among %d left images", rights, p->lefts);
        return -1;
    }
    p->rights_per_left = a->form == FORM_N_TO_MN ? rights / (size_t)p->lefts : rights;
    return 0;
}

static size_t right_entry(const struct pairing *p, int left, size_t j)
{
    return (size_t)p->lefts + (p->shared ? 0 : (size_t)left * p->rights_per_left) + j;
}

struct job {
    clx_context *ctx;
    clx_plan *plan;
    clx_region *regions;
    size_t nregions;
    clx_tiff_writer *out;
    float *surfaces;
    clx_image *batch;
    int sw, sh;
    size_t pages;
};

static void free_batch(struct job *j, size_t n)
{
    for (size_t i = 0; i < n; i++)
        clx_image_free(&j->batch[i]);
}

/* Correlates `count` right images (list entries from `first`) with the
 * current reference `left`, writing their pages. */
static int correlate_rights(struct job *j, const struct correlate_args *a, const struct pairing *pr, int left,
                            const clx_image *left_image)
{
    size_t batch = (size_t)clx_plan_batch_size(j->plan), surf = (size_t)j->sw * j->sh;
    const char *left_name = a->img.images.entries[left];
    clx_message msg;

    for (size_t done = 0; done < pr->rights_per_left; done += batch) {
        size_t n = pr->rights_per_left - done < batch ? pr->rights_per_left - done : batch;
        for (size_t i = 0; i < n; i++) {
            const char *name = a->img.images.entries[right_entry(pr, left, done + i)];
            if (image_entry_load_single(name, a->img.images.scan, &j->batch[i], &msg) != CLX_OK) {
                report_error("%s", msg.text);
                free_batch(j, i);
                return -1;
            }
            if (j->batch[i].width != left_image->width || j->batch[i].height != left_image->height) {
                report_error("%s is %dx%d but %s is %dx%d", name, j->batch[i].width, j->batch[i].height,
                             left_name, left_image->width, left_image->height);
                free_batch(j, i + 1);
                return -1;
            }
        }
        if (clx_plan_push(j->plan, j->batch, n) != CLX_OK ||
            clx_plan_read_surfaces(j->plan, j->surfaces, n * j->nregions * surf) != CLX_OK) {
            report_error("%s", clx_context_message(j->ctx));
            free_batch(j, n);
            return -1;
        }
        /* Ends the push; the offsets themselves are not wanted here. */
        clx_result *unused = malloc(sizeof *unused * n * j->nregions);
        int read = unused ? clx_plan_read(j->plan, unused, n * j->nregions) : CLX_ERR_HOST_MEMORY;
        free(unused);
        free_batch(j, n);
        if (read != CLX_OK) {
            report_error("%s", unused ? clx_context_message(j->ctx) : "out of memory");
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            const char *right_name = a->img.images.entries[right_entry(pr, left, done + i)];
            for (size_t k = 0; k < j->nregions; k++) {
                const clx_region *r = &j->regions[k];
                char description[2048];
                clx_image page = { j->sw, j->sh, CLX_PIXEL_F32, j->surfaces + (i * j->nregions + k) * surf };
                snprintf(description, sizeof description,
                         "clxcorr correlation surface: left=%s right=%s window=%zu (x=%d y=%d w=%d h=%d); "
                         "pixel (x, y) is the shift (x - %d, y - %d)",
                         left_name, right_name, k, r->x, r->y, r->w, r->h, (j->sw - 1) / 2, (j->sh - 1) / 2);
                if (clx_tiff_writer_page(j->out, &page, description, &msg) != CLX_OK) {
                    report_error("%s", msg.text);
                    return -1;
                }
                printf("%zu,%s,%s,%zu,%d,%d,%d,%d,%d,%d\n", j->pages++, left_name, right_name, k, r->x, r->y, r->w,
                       r->h, (j->sw - 1) / 2, (j->sh - 1) / 2);
            }
        }
        if (fflush(stdout) != 0) {
            report_error("writing standard output failed");
            return -1;
        }
    }
    return 0;
}

static int windows_for(const struct correlate_args *a, const clx_image *img, clx_region **regions, size_t *n)
{
    clx_message msg;
    int status;
    if (a->win.regions_path || a->win.have_grid)
        status = window_options_regions(&a->win, img->width, img->height, regions, n, &msg);
    else {
        /* The whole image as one window. */
        *regions = malloc(sizeof **regions);
        if (!*regions) {
            report_error("out of memory");
            return -1;
        }
        (*regions)[0] = (clx_region){ 0, 0, img->width, img->height };
        *n = 1;
        return 0;
    }
    if (status == CLX_OK && (status = clx_regions_check(*regions, *n, img->width, img->height, &msg)) != CLX_OK) {
        free(*regions);
        *regions = NULL;
    }
    if (status != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

/* What the surfaces need: the windows, the device, the plan for the first
 * left image, room for a batch of surfaces, and the TIFF they go to. */
static int job_open(struct job *j, struct correlate_args *a, const struct pairing *pr, const clx_image *left)
{
    clx_message msg;
    if (windows_for(a, left, &j->regions, &j->nregions) != 0 ||
        open_device(a->device.spec, a->mode.plan.use_double, a->device.no_cache, &j->ctx) != 0)
        return -1;
    a->mode.plan.expected_images = pr->rights_per_left;
    if (clx_plan_create(j->ctx, left, j->regions, j->nregions, &a->mode.plan, &j->plan) != CLX_OK) {
        report_error("%s", clx_context_message(j->ctx));
        return -1;
    }
    if (a->mode.explain)
        fprintf(stderr, "clxcorr: method: %s\n", clx_plan_explanation(j->plan));
    clx_plan_surface_size(j->plan, &j->sw, &j->sh);
    size_t batch = (size_t)clx_plan_batch_size(j->plan), surf = (size_t)j->sw * j->sh;
    size_t total_bytes = (size_t)pr->lefts * pr->rights_per_left * j->nregions * surf * sizeof(float);
    j->surfaces = malloc(sizeof(float) * batch * j->nregions * surf);
    j->batch = calloc(batch, sizeof *j->batch);
    if (!j->surfaces || !j->batch) {
        report_error("out of memory for %zu surfaces of %dx%d", batch * j->nregions, j->sw, j->sh);
        return -1;
    }
    /* Classic TIFF stops at 4 GiB; BigTIFF only when needed, since some
     * readers lack it. */
    if (clx_tiff_writer_open(a->out.path, total_bytes > (3ull << 30), &j->out, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    return 0;
}

/* Every left image in turn, with its rights; *left holds the first one
 * already. Returns 0, or -1 after reporting why not. */
static int correlate_lefts(struct job *j, const struct correlate_args *a, const struct pairing *pr, clx_image *left)
{
    clx_message msg;
    for (int l = 0; l < pr->lefts; l++) {
        if (l > 0) {
            clx_image_free(left);
            if (image_entry_load_single(a->img.images.entries[l], a->img.images.scan, left, &msg) != CLX_OK) {
                report_error("%s", msg.text);
                return -1;
            }
            if (clx_plan_set_reference(j->plan, left) != CLX_OK) {
                report_error("%s: %s", a->img.images.entries[l], clx_context_message(j->ctx));
                return -1;
            }
        }
        if (correlate_rights(j, a, pr, l, left) != 0)
            return -1;
    }
    return 0;
}

/* Closes the TIFF: complete, or after a failure left as OUT.tif.part with
 * the surfaces so far. Returns the exit status. */
static int job_close(struct job *j, const char *path, int failed)
{
    clx_message msg;
    int status = EXIT_FAILURE_RUN;
    if (clx_tiff_writer_close(j->out, !failed, &msg) != CLX_OK)
        report_error("%s", msg.text);
    else if (!failed)
        status = EXIT_OK;
    j->out = NULL;
    if (status == EXIT_OK)
        report_info("%zu surfaces of %dx%d written to %s", j->pages, j->sw, j->sh, path);
    else if (j->pages > 0)
        report_note("stopped after %zu surfaces; they are in %s.part", j->pages, path);
    return status;
}

static void job_free(struct job *j)
{
    clx_message msg;
    if (j->out)
        clx_tiff_writer_close(j->out, 0, &msg);
    free(j->surfaces);
    free(j->batch);
    clx_plan_release(j->plan);
    clx_context_release(j->ctx);
    free(j->regions);
}

int cmd_correlate(int argc, char **argv)
{
    struct correlate_args a;
    struct pairing pr;
    struct job j;
    clx_image left = { 0 };
    clx_message msg;
    int status = EXIT_FAILURE_RUN;

    memset(&a, 0, sizeof a);
    memset(&j, 0, sizeof j);
    mode_options_init(&a.mode);
    /* Surfaces are the seed method's correlations of zero-mean windows. */
    a.mode.plan.mode = CLX_MODE_SEED;
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        image_options_free(&a.img);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (image_options_read_list(&a.img) != 0)
        goto done;
    const struct output_guard out = { "-o", a.out.path };
    const char *files[] = { a.win.regions_path, a.img.list_path && strcmp(a.img.list_path, "-") ? a.img.list_path : NULL };
    if (output_guard_check(&out, 1, files, 2, &a.img.images) != 0)
        goto done;
    if (pairing_of(&a, &pr) != 0) {
        status = EXIT_USAGE;
        goto done;
    }
    if (image_entry_load_single(a.img.images.entries[0], a.img.images.scan, &left, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    if (job_open(&j, &a, &pr, &left) != 0)
        goto done;
    printf("page,left,right,region,x,y,w,h,rx,ry\n");
    status = job_close(&j, a.out.path, correlate_lefts(&j, &a, &pr, &left) != 0);

done:
    job_free(&j);
    clx_image_free(&left);
    image_options_free(&a.img);
    return status;
}
