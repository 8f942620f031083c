/* tuning_db.c - the tuning file and the shipped per-vendor defaults. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "params/tuning_db.h"
#include "runtime/context.h"
#include "runtime/kernel_cache.h"
#include "runtime/message.h"

#define TUNING_FILE "tuning.tsv"

void tuning_class(clx_mode mode, const struct kernel_params *p, char *out, size_t len)
{
    const char *pixel = p->pixel == CLX_PIXEL_U8 ? "u8" : p->pixel == CLX_PIXEL_U16 ? "u16" : "f32";
    snprintf(out, len, "%s %dx%d %s %s", clx_mode_name(mode), p->win_w, p->win_h, p->use_double ? "double" : "float",
             pixel);
}

int tuning_path(const char *cache_dir, char *out, size_t len)
{
    char dir[PATH_MAX];
    kernel_cache_dir(cache_dir, dir, sizeof dir);
    if (!dir[0])
        return -1;
    return snprintf(out, len, "%s/" TUNING_FILE, dir) < (int)len ? 0 : -1;
}

int tuning_path_of(const struct clx_context *ctx, char *out, size_t len)
{
    if (!ctx->tuning_dir[0])
        return -1;
    return snprintf(out, len, "%s/" TUNING_FILE, ctx->tuning_dir) < (int)len ? 0 : -1;
}

/* ---- shipped defaults ---------------------------------------------------- */

/*
 * Per vendor and kind of device, the values every plan starts from until
 * `clxcorr tune` has measured the device itself; they apply to every window
 * size of the mode. Each line says where its values come from. A device
 * without a line gets the generic defaults (kernel_params_defaults), the
 * starting point of every search.
 *
 * NVIDIA: measured, `clxcorr tune` on an H200 (bench/results/tune-results.txt).
 *
 * AMD and Intel: not measured here (no such device in reach), so nothing
 * was changed but the work-group shapes, which are made of whole SIMD units
 * as the vendors' documents say a work-group should be:
 * - AMD GCN and CDNA (gfx9: MI50 to MI300) run wavefronts of 64 work-items
 *   (AMD Instinct MI200 "CDNA 2" ISA reference guide, ch. 1; AMD's OpenCL
 *   optimization guide: work-groups of a multiple of 64, 256 the usual
 *   best), and RDNA (gfx10 and gfx11) waves of 32 in the OpenCL compiler's
 *   default mode (RDNA 3 ISA reference guide, ch. 1; LLVM's AMDGPU backend
 *   makes wavefrontsize32 the default from gfx10). CLBlast's published
 *   database (src/database/kernels/) keeps AMD GPUs' reduction and copy
 *   work-groups at multiples of 64 as well. Told apart by
 *   CL_DEVICE_WAVEFRONT_WIDTH_AMD.
 * - Intel Xe-LP and Xe-HPG (Arc, DG2) compile kernels for sub-groups of 8,
 *   16 or 32, Xe-HPC (Ponte Vecchio) for 16 or 32 (CL_DEVICE_SUB_GROUP_SIZES_INTEL;
 *   Intel's GPU occupancy calculator lists Xe-HPC's as 32 and 16); Intel's
 *   OpenCL developer guide for its GPUs ("Work-Group Size Recommendations
 *   Summary") asks for power-of-two work-groups of 64 to 256 work-items in
 *   kernels with local memory and barriers, as all of these have. Rows of
 *   16 (Xe-HPG) and 32 (Xe-HPC) keep a row one or two sub-groups wide.
 * A `clxcorr tune` run on such a device replaces them with measured ones.
 *
 * PoCL's CPU device: measured with bench/clxcorr-throughput on the 2-core
 * build machine (PoCL 3.1), seed mode, ebsd-900 (bench/results/cpu-peers-results.txt).
 * The FFT library (fft=cpu) and argmax_form=3 are already the defaults of
 * every CPU device (kernel_params.h); here prepare writes only the windows
 * (prep_pad=2: fft=cpu never reads the padding) with vector loads. The
 * generic batch stays: 4 images looked faster on 2 cores, but on the GPU
 * host's 16 (PoCL 5) it ran 356 images/s against 544 with 16.
 */
enum { SEED = 1 << CLX_MODE_SEED, ACCURATE = 1 << CLX_MODE_ACCURATE };

struct shipped {
    enum device_vendor vendor;
    clx_device_type type;
    int simd;                  /* the device's simd_width, 0: any */
    unsigned modes;            /* SEED, ACCURATE */
    const char *params;
    int batch;
    const char *why;
};

static const struct shipped shipped[] = {
    /* Seed mode on the H200: nothing beat the generic defaults (VkFFT,
     * batch 128) by more than the noise. Accurate mode: argmax_wg=64 was
     * +3.8 % there; since second_peak shares its group's best (eb708a7),
     * 128 takes the peaks from 2.45 to 2.24 ms per batch on an H100, and 256
     * no further (clxcorr bench --param, issue 23). Batches of 64: three
     * lanes of them ran 12,200-12,500 patterns/s on an H200 against 10,900-
     * 11,700 for 128 and 8,600-9,100 for 256 (bench/gpu-accurate-sweep.sh,
     * issue 36). */
    { VENDOR_NVIDIA, CLX_DEVICE_GPU, 0, ACCURATE, "argmax_wg=128", 64,
      "shipped defaults for NVIDIA GPUs (tuned on an H200, bench/results/tune-results.txt)" },
    /* Seed mode: prepare writing the windows only, four values a
     * work-item, took prepare from 0.745 to 0.286 ms per 128-pattern batch
     * on an H100 (clxcorr bench --param, issue 23; prep_pad=2 alone 0.410).
     * The padding stays zero with every FFT backend (prepare_windows.h).
     * clxcorr's own GPU transforms with the multiply fused (fft=local):
     * 3.15 ms per batch for the correlation against VkFFT's 3.58 (forward,
     * multiply, inverse), and 19,199-21,819 patterns/s against 17,836-18,628
     * in three interleaved rounds of bench/clxcorr-throughput (issue 23,
     * bench/results/gpu-accurate-push-results.txt). The accurate mode keeps VkFFT:
     * 10,571 against 11,694 in the same command. */
    /* Batches of 64: 24,500-25,800 patterns/s on an H200 against 19,600-
     * 20,900 for 128 in three interleaved rounds (27,000-29,600 against
     * 25,000 in two more; bench/gpu-accurate-sweep.sh with MODE=seed,
     * issue 36), and half the pinned memory to set up. */
    { VENDOR_NVIDIA, CLX_DEVICE_GPU, 0, SEED, "prep_pad=2,prep_vec=4,fft=local", 64,
      "shipped defaults for NVIDIA GPUs (measured on an H100, issue 23)" },
    { VENDOR_AMD, CLX_DEVICE_GPU, 64, SEED | ACCURATE,
      "sums_wg=256,argmax_wg=256,tile_wg=256,icgn_wg=256,prep_tx=64,prep_ty=4,sample_tx=64,sample_ty=4,"
      "direct_few_wg=64", 0,
      "shipped defaults for AMD GCN and CDNA GPUs (wavefronts of 64; from AMD's CDNA ISA and OpenCL guides, "
      "not measured: see src/params/tuning_db.c)" },
    { VENDOR_AMD, CLX_DEVICE_GPU, 32, SEED | ACCURATE,
      "sums_wg=128,argmax_wg=128,tile_wg=128,icgn_wg=128,prep_tx=32,prep_ty=8,sample_tx=32,sample_ty=4,"
      "direct_few_wg=32", 0,
      "shipped defaults for AMD RDNA GPUs (waves of 32; from AMD's RDNA ISA guide, not measured: see "
      "src/params/tuning_db.c)" },
    { VENDOR_INTEL, CLX_DEVICE_GPU, 8, SEED | ACCURATE,
      "sums_wg=128,argmax_wg=128,tile_wg=128,icgn_wg=128,prep_tx=16,prep_ty=8,sample_tx=16,sample_ty=8,"
      "direct_few_wg=32", 0,
      "shipped defaults for Intel Xe-LP and Xe-HPG GPUs (sub-groups of 8, 16, 32; from Intel's OpenCL GPU guide, "
      "not measured: see src/params/tuning_db.c)" },
    { VENDOR_INTEL, CLX_DEVICE_GPU, 16, SEED | ACCURATE,
      "sums_wg=256,argmax_wg=256,tile_wg=256,icgn_wg=256,prep_tx=32,prep_ty=8,sample_tx=32,sample_ty=8,"
      "direct_few_wg=32", 0,
      "shipped defaults for Intel Xe-HPC GPUs (sub-groups of 16, 32; from Intel's OpenCL GPU guide, not "
      "measured: see src/params/tuning_db.c)" },
    { VENDOR_POCL, CLX_DEVICE_CPU, 0, SEED, "prep_pad=2,prep_vec=4", 0,
      "shipped defaults for PoCL's CPU device (measured on PoCL 3.1, bench/results/cpu-peers-results.txt)" },
    { VENDOR_OTHER, CLX_DEVICE_OTHER, 0, 0, NULL, 0, NULL }
};

void tuning_shipped(const struct device_entry *dev, clx_mode mode, clx_tuning *out, const char **why)
{
    memset(out, 0, sizeof *out);
    snprintf(out->device, sizeof out->device, "%s", dev->info.name);
    snprintf(out->driver, sizeof out->driver, "%s", dev->info.driver_version);
    *why = "the generic defaults (no tuning for this device)";
    for (size_t i = 0; shipped[i].params; i++)
        if (shipped[i].vendor == dev->vendor && shipped[i].type == dev->info.type &&
            (shipped[i].modes & (1u << mode)) && (!shipped[i].simd || shipped[i].simd == dev->simd_width)) {
            snprintf(out->params, sizeof out->params, "%s", shipped[i].params);
            out->batch = shipped[i].batch;
            *why = shipped[i].why;
        }
}

/* ---- the file ------------------------------------------------------------ */

/* Splits a line at tabs into at most n fields (the line is modified). */
static int split_tabs(char *line, char **fields, int n)
{
    int count = 0;
    line[strcspn(line, "\r\n")] = '\0';
    while (count < n) {
        fields[count++] = line;
        char *tab = strchr(line, '\t');
        if (!tab)
            break;
        *tab = '\0';
        line = tab + 1;
    }
    return count;
}

#define FIELDS 8

/* Parses one line into e; 0, or -1 when it is not a complete entry. */
static int parse_entry(char *line, clx_tuning *e)
{
    char *f[FIELDS];
    if (line[0] == '#' || split_tabs(line, f, FIELDS) != FIELDS)
        return -1;
    memset(e, 0, sizeof *e);
    snprintf(e->device, sizeof e->device, "%s", f[0]);
    snprintf(e->driver, sizeof e->driver, "%s", f[1]);
    snprintf(e->workload, sizeof e->workload, "%s", f[2]);
    snprintf(e->params, sizeof e->params, "%s", strcmp(f[3], "-") == 0 ? "" : f[3]);
    e->batch = atoi(f[4]);
    e->rate = atof(f[5]);
    e->default_rate = atof(f[6]);
    snprintf(e->date, sizeof e->date, "%s", f[7]);
    return e->batch >= 0 ? 0 : -1;
}

static void write_entry(FILE *f, const clx_tuning *e)
{
    fprintf(f, "%s\t%s\t%s\t%s\t%d\t%.1f\t%.1f\t%s\n", e->device, e->driver, e->workload,
            e->params[0] ? e->params : "-", e->batch, e->rate, e->default_rate, e->date);
}

static int same_key(const clx_tuning *a, const clx_tuning *b)
{
    return strcmp(a->device, b->device) == 0 && strcmp(a->driver, b->driver) == 0 &&
           strcmp(a->workload, b->workload) == 0;
}

int clx_tuning_list(const char *cache_dir, clx_tuning **entries, size_t *count, clx_message *msg)
{
    char path[PATH_MAX], line[2048];
    size_t n = 0, cap = 0;
    clx_tuning *list = NULL, e;

    msg_clear(msg);
    *entries = NULL;
    *count = 0;
    if (tuning_path(cache_dir, path, sizeof path) != 0)
        return msg_fail(msg, CLX_ERR_IO, "no cache directory: set XDG_CACHE_HOME or HOME");
    FILE *f = fopen(path, "r");
    if (!f)
        return CLX_OK;   /* nothing tuned yet */
    while (fgets(line, sizeof line, f)) {
        if (parse_entry(line, &e) != 0)
            continue;
        if (n == cap) {
            size_t grown = cap ? 2 * cap : 8;
            clx_tuning *more = realloc(list, grown * sizeof *list);
            if (!more) {
                fclose(f);
                free(list);
                return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of memory");
            }
            list = more;
            cap = grown;
        }
        list[n++] = e;
    }
    fclose(f);
    *entries = list;
    *count = n;
    return CLX_OK;
}

/* The file's entry with key's device, driver and workload; 1 if found. */
static int lookup(const char *path, const clx_tuning *key, clx_tuning *out)
{
    char line[2048];
    clx_tuning e;
    int found = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (parse_entry(line, &e) == 0 && same_key(&e, key)) {
            *out = e;   /* the last line for a key wins, as a rewrite keeps one */
            found = 1;
        }
    fclose(f);
    return found;
}

void tuning_for(const struct clx_context *ctx, clx_mode mode, const struct kernel_params *p, clx_tuning *out,
                char *how, size_t how_len)
{
    const char *why;
    tuning_shipped(&ctx->dev, mode, out, &why);
    tuning_class(mode, p, out->workload, sizeof out->workload);
    snprintf(how, how_len, "%s", why);
    char path[PATH_MAX];
    if (ctx->ignore_tuning || tuning_path_of(ctx, path, sizeof path) != 0)
        return;
    clx_tuning found;
    if (lookup(path, out, &found)) {
        *out = found;
        snprintf(how, how_len, "tuned on %s for %s (%.0f images/s against %.0f with the defaults; %s)", found.date,
                 found.workload, found.rate, found.default_rate, path);
    }
}

int tuning_store(const char *path, const clx_tuning *e, clx_message *msg)
{
    char line[2048], copy[2048];
    clx_tuning old;

    /* The directory may not exist yet when no kernel was ever cached. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        kernel_cache_mkdir(dir);
    }
    /* The new file is made in memory and replaces the old one whole
     * (clx_output), so a reader never sees half of it. */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    fputs("# clxcorr tuning file: written by `clxcorr tune`, read by every plan (see clxcorr tune --help)\n", out);
    FILE *in = fopen(path, "r");
    while (in && fgets(line, sizeof line, in)) {
        snprintf(copy, sizeof copy, "%s", line);
        if (parse_entry(copy, &old) == 0 && !same_key(&old, e))
            fputs(line, out);
    }
    if (in)
        fclose(in);
    write_entry(out, e);
    int bad = fclose(out) != 0;
    int status = bad ? msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory")
                     : clx_output_write_file(path, text, len, msg);
    free(text);
    return status;
}
