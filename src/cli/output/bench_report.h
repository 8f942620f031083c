/*
 * bench_report.h - the results of `clxcorr bench` as JSON (everything, for
 * scripts), CSV (one line per device and workload, for spreadsheets) and SVG
 * (a bar chart of images per second that compares devices side by side).
 *
 * The writers only format: they take rows that the benchmark filled in and
 * print them, so that results from several machines can be merged into one
 * array and charted together. A value that was not measured is negative;
 * it, and any NaN or infinity, is written as JSON null, an empty CSV field
 * and no bar.
 */
#ifndef CLX_BENCH_REPORT_H
#define CLX_BENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#define BENCH_MAX_STAGES 16

/* One timed stage of the pipeline, averaged over the batches of a run. */
struct bench_stage {
    char name[32];          /* "upload", "prepare", "fft forward", ... */
    double ms_per_batch;    /* device time per batch from OpenCL profiling events */
    double bytes_per_batch; /* bytes the stage must move at least (0: not modelled) */
};

/* One workload on one device. The device strings are as OpenCL reports them;
 * devices are told apart by device, vendor, driver and platform together. */
struct bench_row {
    char device[256], vendor[128], driver[128], platform[128];
    char workload[64];      /* "ebsd-900", "mid-512", "piv-32" */
    char description[128];  /* "900x900 16-bit, 50 windows of 100x100" */
    char mode[16];          /* "seed" or "accurate" */
    char method[16];        /* "fft" or "direct" */
    char fft[16];           /* "vkfft", "clfft" or "" (direct) */
    int image_w, image_h, win_w, win_h, nwin, batch, lanes, loaders;
    double memory_rate;     /* images/s streamed from host memory; < 0: not measured */
    double files_rate;      /* images/s read from TIFF files in the page cache; < 0: not measured */
    size_t memory_images, files_images;  /* images each figure was measured over */
    double bus_gbs;         /* achieved host-to-device GB/s during the upload stage (< 0: not measured) */
    double bus_peak_gbs;    /* measured peak pinned host-to-device GB/s on this device (< 0: unknown) */
    double memory_peak_gbs; /* measured device-to-device copy GB/s (< 0: unknown) */
    int nstages;            /* stages[0 .. nstages-1] are filled in */
    struct bench_stage stages[BENCH_MAX_STAGES];
    char error[256];        /* "" when measured; else why this workload failed on this device */
};

/* The run as a whole; any member may be NULL (written as null, or left out
 * of the chart). */
struct bench_meta {
    const char *version;    /* clxcorr's version */
    const char *date;       /* when the run started, e.g. ISO 8601 */
    const char *host;       /* the machine's name */
    const char *command;    /* the command line, for repeating the run */
};

/*
 * Each writer returns 0, or -1 when writing to `f` failed (its error
 * indicator is set, or flushing failed) or, for the SVG, memory ran out.
 * Strings that are not valid UTF-8 have the bad bytes replaced by U+FFFD in
 * JSON and SVG, which must be UTF-8; CSV fields are written byte for byte.
 */

/* {"clxcorr": version, "date", "host", "command", "results": [ one object per
 * row ]}. A result's keys are the struct's fields, named as the CSV columns
 * (nwin is "windows", rates are "memory_images_per_s" and
 * "files_images_per_s"), plus "files_vs_memory"; "stages" is an array of
 * {"name", "ms_per_batch", "bytes_per_batch", "gbytes_per_s"}: bytes null when
 * not modelled, GB/s from bytes and time, null when either is 0. "fft" and
 * "error" are null when empty. */
int bench_write_json(FILE *f, const struct bench_meta *meta, const struct bench_row *rows, size_t n);

/* A header line, then one line per row (RFC 4180 quoting, "\n" line ends like
 * the offsets CSV): device,vendor,driver,workload,description,mode,method,fft,
 * image_w,image_h,win_w,win_h,windows,batch,lanes,loaders,memory_images_per_s,
 * files_images_per_s,files_vs_memory,bus_gbs,bus_peak_gbs,memory_peak_gbs,
 * upload_ms,prepare_ms,correlate_ms,peaks_ms,download_ms,other_ms,error.
 * The *_ms columns sum the stages' ms per batch by the mapping in
 * bench_report.c; a column no stage went to is empty. */
int bench_write_csv(FILE *f, const struct bench_row *rows, size_t n);

/* A self-contained SVG bar chart: a group of bars per (workload, mode) in the
 * order they first appear, a bar per device in each, images per second on a
 * log scale; solid bars from memory, hatched bars from files. */
int bench_write_svg(FILE *f, const struct bench_meta *meta, const struct bench_row *rows, size_t n);

#endif
