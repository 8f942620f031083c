/*
 * offsets_run.h - what the files of `clxcorr offsets` share: the command
 * line it was given, and one run of it.
 *
 *   cmd_offsets.c      the command: its options, then set up, stream, report
 *   offsets_setup.c    the run's set-up: reference, windows (less those
 *                      --mask leaves out: window_mask.h), this process's
 *                      images (a shard, an MPI rank's chunks), devices
 *   offsets_resume.c   --resume: the earlier output's whole images are kept
 *   offsets_stream.c   the images through the devices: loading, the plans
 *                      ready, progress, Ctrl-C, the MPI ranks' agreement
 *   offsets_piv.c      or, for PIV's deforming passes, the pairs through
 *                      clx_multipass on one device
 *   offsets_rows.c     the rows: formatted by the lanes, written in order
 *                      (or with --format h5 put in the HDF5 file's columns,
 *                      with vtk or openpiv in a file per image)
 *   offsets_report.c   the end: what failed or how it went, --quiver, --meta
 *
 * The images of one process are the whole list, or with --shard K/N the
 * K-th of N runs of it; under mpirun each rank takes its chunks of those
 * (mpi_ranks.h) and rank 0 writes every rank's rows.
 */
#ifndef CLX_OFFSETS_RUN_H
#define CLX_OFFSETS_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "clxcorr.h"
#include "image_list.h"
#include "mpi_ranks.h"
#include "options.h"
#include "output/csv_output.h"
#include "output/field_output.h"
#include "output/h5_output.h"
#include "output/resume.h"
#include "output/row_format.h"
#include "output/run_meta.h"
#include "plot/quiver.h"
#include "report.h"
#include "shard.h"
#include "window_mask.h"

/* --remap's state, defined in strain_remap.h: its functions take a run, so
 * the run names it without including it (the files that use it do). */
struct strain_remap;

/* What each image is measured against (--reference). */
enum offsets_pairing {
    PAIRING_FIRST,               /* the REFERENCE argument, for every image */
    PAIRING_PREVIOUS,            /* the image before it (the first: REFERENCE) */
    PAIRING_PAIRS                /* images two by two: the first of a pair is the second's reference */
};

/* The command line (cmd_offsets.c). */
struct offsets_args {
    struct window_options win;
    struct image_options img;
    struct mode_options mode;
    struct device_options device;
    struct output_options out;   /* -o, --format, --columns */
    struct row_format format;    /* --format and --columns, resolved once the mode is known */
    const char *meta;            /* --meta FILE.json */
    int resume;                  /* --resume */
    int skip_bad;                /* --skip-bad */
    const char *quiver;          /* --quiver FILE.png */
    const char *mask;            /* --mask FILE */
    double mask_max;             /* --mask-max F: the masked fraction above which a window is left out */
    int mask_max_given;
    const char *shard_text;      /* --shard as given */
    int shard_index, shard_count;    /* --shard K/N; 0: the whole list */
    clx_stream_options stream;
    const char *reference;       /* NULL with --reference pairs: the first pair's first image sizes the run */
    char *first_page;            /* strain --grains: "SCAN#0", which sizes the run (reference points there) */
    enum offsets_pairing pairing;    /* --reference */
    /* --reference pairs with --passes, a window per pass or a validation
     * option: PIV's deforming passes (offsets_piv.c) and their options. */
    int piv;
    clx_multipass_options multipass_options;
    const char *validation_option;   /* the first validation option given, for messages */
    clx_strain_job_options *strain;   /* `clxcorr strain`: its options; NULL for offsets */
};

/* One run: what the stream's callbacks (called from its threads) need. */
struct offsets_run {
    clx_context **ctxs;          /* one per device */
    size_t ndevices;
    size_t *device_images;       /* the images each device correlated */
    const char *reference;       /* its name, for messages */
    clx_image ref;
    /* The rows of each image the plans read (clx_plan_rows_read), set once
     * they exist: the loaders read no others. NULL: every row. */
    clx_rows *rows_read;
    size_t nrows_read;
    clx_region *regions;         /* every window: one row each */
    size_t nregions;
    /* --mask: the windows measured (the library's), and each image's
     * results for every window (the masked ones' nan and ROW_FLAG_MASKED)
     * in expanded[(j % ring_size) * nregions], filled by the lane that
     * formats image j's rows. */
    int masking;
    struct window_mask mask;
    clx_result masked_result;
    clx_result *expanded;
    struct image_items items;
    const clx_scan_info *scan;   /* the one pattern file's scan all images come from, or NULL */
    enum offsets_pairing pairing;
    double *total_dx, *total_dy; /* PAIRING_PREVIOUS: each window's displacement summed so far */
    /* This process's images: index j is items[first + (mpi ? split's j-th : j)]. */
    size_t first;                /* --shard: the shard's first image */
    size_t count;                /* the shard's images (all ranks together) */
    size_t local_count;          /* this process's images */
    size_t done;                 /* of them, those whose rows were delivered */
    struct shard shard;
    int sharded;
    int resumed;                 /* --resume found an earlier output */
    size_t kept;                 /* its whole images, not correlated again */
    struct resume_state resume;  /* --resume: what it found (FILE.part, locked and cut, until the output takes it) */
    struct run_fingerprint fingerprint;   /* what FILE.resume records of this run */
    struct mpi_split split;
    int mpi;
    int agreed;                  /* MPI: the set-up agreement took place */
    int all_set_up;              /* MPI: and every rank was ready */
    int usage_error;             /* the set-up failed on the command line itself (exit 2) */
    const char *output;          /* --output, NULL: standard output */
    const struct row_format *format;
    struct csv_output out;       /* the rows of text, or */
    struct h5_output *h5;        /* --format h5: the columns as datasets */
    struct field_output *field;  /* --format vtk, openpiv: a file per image */
    int out_open;
    int explain;
    struct progress_line progress;
    struct run_meta meta;        /* for --meta */
    /* Rows formatted by the lanes (offsets_rows_format), written in order
     * by the calling thread (offsets_rows_write): image j's in
     * ring[j % ring_size], which holds every image between formatting and
     * writing. */
    struct csv_text *ring;
    size_t ring_size;
    /* --skip-bad: which of this process's images could not be read (by
     * index j, set by the loaders), their rows' results, and how many. */
    int skip_bad;
    unsigned char *unreadable;
    clx_result *unreadable_results;
    size_t nunreadable;
    /* --quiver: each window's mean offset over the images delivered. */
    struct quiver_mean mean;
    int drawing;
    /* --resume: how each window's row of the image being checked starts. */
    size_t resume_image;
    char **resume_starts;
    /* `clxcorr strain`: the library's job (the geometry, grains, fits and
     * remapping), and each image's row between its fit (by a lane) and its
     * writing, in strains[j % ring_size]. */
    clx_strain_job *strain;      /* NULL for offsets */
    clx_strain_row *strains;
    clx_image *grain_references; /* strain --grains: each grain's reference in the run's staged type */
    size_t ngrain_references;
    size_t *reference_of;            /* with grains: each stream index's reference */
    struct strain_remap *remap;  /* --remap: each image's map, NULL without */
};

/* The windows the library measures: all, or those --mask keeps. */
static inline const clx_region *offsets_measured_regions(const struct offsets_run *r)
{
    return r->masking ? r->mask.measured : r->regions;
}

static inline size_t offsets_measured_count(const struct offsets_run *r)
{
    return r->masking ? r->mask.nmeasured : r->nregions;
}

/* Rows per image: one per window, or for strain one per pattern. */
static inline size_t offsets_rows_per_image(const struct offsets_run *r)
{
    return r->format->strain ? 1 : r->nregions;
}

/* The run's index (within the shard) of this process's image j, and its
 * index in the run's items. */
static inline size_t offsets_run_index(const struct offsets_run *r, size_t j)
{
    return r->mpi ? mpi_split_global(&r->split, j) : j;
}

static inline size_t offsets_item_index(const struct offsets_run *r, size_t j)
{
    size_t k = r->first + offsets_run_index(r, j);
    return r->pairing == PAIRING_PAIRS ? 2 * k + 1 : k;
}

/* The item that is image j's reference; SIZE_MAX: the REFERENCE argument. */
static inline size_t offsets_reference_item(const struct offsets_run *r, size_t j)
{
    size_t k = r->first + offsets_run_index(r, j);
    if (r->pairing == PAIRING_PAIRS)
        return 2 * k;
    return r->pairing == PAIRING_PREVIOUS && k > 0 ? k - 1 : SIZE_MAX;
}

/* ---- cmd_offsets.c ---- */

/* The options of a run that offsets and strain share, beside options.h's
 * groups (offsets_take takes them; a command numbers its own from
 * OPT_RUN_OWN). */
enum { OPT_LANES = OPT_OWN, OPT_SHARD, OPT_META, OPT_RESUME, OPT_SKIP_BAD, OPT_QUIVER, OPT_PAIRING, OPT_MASK,
       OPT_MASK_MAX, OPT_PIV_MEDIAN_THRESHOLD, OPT_PIV_MIN_PEAK_RATIO, OPT_PIV_MIN_ZNCC, OPT_PIV_MAX_DISPLACEMENT,
       OPT_PIV_KEEP_OUTLIERS, OPT_RUN_OWN };
#define OPTIONS_RUN_IMAGES { "shard", required_argument, NULL, OPT_SHARD }, \
    { "skip-bad", no_argument, NULL, OPT_SKIP_BAD }
#define OPTIONS_RUN_BATCHES { "threads", required_argument, NULL, 'j' }, \
    { "lanes", required_argument, NULL, OPT_LANES }
#define OPTIONS_RUN_OUTPUT { "resume", no_argument, NULL, OPT_RESUME }, \
    { "meta", required_argument, NULL, OPT_META }
int offsets_take(void *own, int c, const char *value);

/* Parses a run's command line with `command`'s table (offsets' or
 * strain's): -1 after a usage error, 1 after --help, 0 to run. */
int offsets_parse_args(const struct command_options *command, int argc, char **argv, struct offsets_args *a);

/* The command once its arguments are parsed by `parse` (offsets' or
 * strain's: returns -1 after a usage error, 1 after --help, 0 to run):
 * set up, stream, report. Returns the exit status. */
int offsets_main(int argc, char **argv, struct offsets_args *a, int (*parse)(int, char **, struct offsets_args *));

/* ---- offsets_setup.c ---- */

/* Everything before the first image: returns 0, or -1 after reporting why. */
int offsets_setup(struct offsets_args *a, struct offsets_run *r);
/* Closes the output if a failure left it open, and frees the run. */
void offsets_run_free(struct offsets_run *r);

/* ---- offsets_resume.c ---- */

/* The run's fingerprint (resume.h) into r->fingerprint, once the
 * reference, windows and images are known. Returns 0, or -1 after
 * reporting why not. */
int offsets_fingerprint(struct offsets_run *r, const struct offsets_args *a);
/* --resume: keeps the whole images of the earlier output and moves the
 * run's start past them. Returns 0, or -1 after reporting why not. */
int offsets_resume(struct offsets_run *r);

/* ---- offsets_stream.c ---- */

/* Ctrl-C and SIGTERM stop the run after the images in flight; while it
 * is still setting up (building kernels: no output yet), at once when
 * `at_once_while_setting_up`. */
void offsets_interrupts_catch(int at_once_while_setting_up);
/* The output is about to be opened (call it just before
 * offsets_output_open): from now on an interrupt lets the images in flight
 * finish. */
void offsets_interrupts_settle(void);
/* The signal that stopped the run, or 0. */
int offsets_interrupted(void);

enum offsets_stream_end {
    OFFSETS_STREAMED,            /* every image went through */
    OFFSETS_FAILED,              /* the run failed: offsets_report says why */
    OFFSETS_NOT_SET_UP           /* MPI: a rank's set-up failed; said, or agreed on by offsets_setup_failed */
};
/* Streams this process's images through the devices; `why` says why it failed. */
enum offsets_stream_end offsets_stream(struct offsets_run *r, const clx_plan_options *plan,
                                       const clx_stream_options *stream, clx_message *why);
/* ---- offsets_piv.c ---- */

/* This process's pairs through the deforming passes `o` on the first
 * device; `why` says why it failed. */
enum offsets_stream_end offsets_piv_stream(struct offsets_run *r, const clx_multipass_options *o, clx_message *why);

/* Under MPI, after a set-up that failed before the ranks agreed: every
 * rank stops, and rank 0 names the first to fail. A no-op otherwise. */
void offsets_setup_failed(struct offsets_run *r);

/* ---- offsets_rows.c ---- */

/* The lines before the rows into buf: a shard's comment line, then the
 * format's header. Returns 0, or -1 when they do not fit. */
int offsets_header_format(const struct offsets_run *r, char *buf, size_t len);
/* Item i's scan point into *p, for its rows; NULL when the run is over no scan. */
const struct row_scan_point *offsets_scan_point(const struct offsets_run *r, size_t item, struct row_scan_point *p);
/* Room for the rows of `in_flight` images between formatting and writing. */
int offsets_rows_init(struct offsets_run *r, size_t in_flight, clx_message *msg);
/* Opens the output (rank 0 only under MPI), now that the plans exist. */
int offsets_output_open(struct offsets_run *r, clx_message *msg);
/* The stream's callbacks: image j's rows formatted by a lane, then written
 * in input order by the calling thread. */
int offsets_rows_format(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg);
int offsets_rows_write(void *user, size_t j, const clx_result *results, size_t nregions, clx_message *msg);
/* Closes the output after the run: FILE complete, or after a failure
 * FILE.part with the `written` images' rows (a note says so). Returns 0, or
 * -1 when the run had failed or closing fails. */
int offsets_output_close(struct offsets_run *r, int failed, size_t written);

/* ---- offsets_report.c ---- */

/* The end of a streamed run: the failure if any, the output closed, the
 * summary, --quiver and --meta. Returns the exit status. */
int offsets_report(struct offsets_run *r, const struct offsets_args *a, int failed, const char *why);

#endif
