/* kernel_params.c - defaults, overrides and the build-option string of the kernels. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/kernel_params.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

static const char *pixel_ctype(clx_pixel_type t)
{
    switch (t) {
    case CLX_PIXEL_U8: return "uchar";
    case CLX_PIXEL_U16: return "ushort";
    case CLX_PIXEL_F32: return "float";
    }
    return "?";
}

static int largest_pow2_at_most(size_t n, int cap)
{
    int p = 1;
    while ((size_t)p * 2 <= n && p * 2 <= cap)
        p *= 2;
    return p;
}

void kernel_params_defaults(struct kernel_params *p, const struct device_entry *dev)
{
    size_t maxwg = dev->max_work_group_size;
    memset(p, 0, sizeof *p);
    p->sums_wg = largest_pow2_at_most(maxwg, 256);
    p->sums_items = 1;
    p->argmax_wg = largest_pow2_at_most(maxwg, 256);
    /* Used by argmax forms 1 and 2 only: a few work-groups per correlation
     * so that small batches still fill the device. */
    p->argmax_parts = 4;
    /* Rows of 32 keep prepare's reads and writes coalesced. */
    p->prepare_tx = largest_pow2_at_most(maxwg, 32);
    p->prepare_ty = largest_pow2_at_most(maxwg / (size_t)p->prepare_tx, 8);
    p->prep_vec = 1;
    p->sample_tx = largest_pow2_at_most(maxwg, 16);
    p->sample_ty = largest_pow2_at_most(maxwg / (size_t)p->sample_tx, 8);
    p->tile_wg = largest_pow2_at_most(maxwg, 256);
    p->window_alpha = 0.25;
    p->interp = 1;
    p->fit_size = 5;
#ifdef HAVE_VKFFT
    /* VkFFT where it is built in: measured faster (bench/gpu-throughput.sh,
     * seed mode, 100 x 100 windows) by 1.9x on an H200 and 1.08x on PoCL 5;
     * fft=clfft still picks clFFT. */
    p->fft_backend = 1;
#endif
    p->pixel = CLX_PIXEL_U16;
    p->vendor = dev->vendor;
    p->opencl_c_major = dev->opencl_c_major;
    /* The direct kernel's shape until its correlator sizes it for a job. */
    p->direct.tx = 16;
    p->direct.ty = 8;
    p->direct.spx = 4;
    p->direct.ipi = 1;
    p->direct.rows = 8;
    p->direct.split = 1;
    p->direct.hybrid_tex = 1;
    p->direct.hybrid_den = 2;
    p->direct.few_wg = largest_pow2_at_most(maxwg, 64);
    /* A 3x3 stage until the filter sizes its own. */
    p->filter.radius = 1;
    p->filter.border = CLX_BORDER_MIRROR;
    p->filter.k = 8;
    p->filter.rows_tx = largest_pow2_at_most(maxwg, 64);
    p->filter.rows_ty = largest_pow2_at_most(maxwg / (size_t)p->filter.rows_tx, 4);
    p->filter.cols_tx = largest_pow2_at_most(maxwg, 32);
    p->filter.cols_ty = largest_pow2_at_most(maxwg / (size_t)p->filter.cols_tx, 4);
}

int kernel_options_format(const struct kernel_params *p, char *buf, size_t len)
{
    const struct direct_params *d = &p->direct;
    const struct filter_params *f = &p->filter;
    /* OpenCL C 1.2 everywhere, but sub-group built-ins need 2.0 or later
     * (3.0 where the device has it: some accept 1.2 and 3.0 but not 2.0). */
    const char *std = d->broadcast == 1 ? (p->opencl_c_major >= 3 ? "CL3.0" : "CL2.0") : "CL1.2";
    int n = snprintf(buf, len,
                     "-cl-std=%s -D CLX_VENDOR=%d -D USE_DOUBLE=%d -D PIXEL_T=%s -D PIXEL_IS_FLOAT=%d"
                     " -D WIN_W=%d -D WIN_H=%d -D PAD_W=%d -D PAD_H=%d -D CORR_W=%d -D CORR_H=%d"
                     " -D STORE_RX=%d -D STORE_RY=%d -D SEARCH_RX=%d -D SEARCH_RY=%d -D FIT_SIZE=%d"
                     " -D SUMS_WG=%d -D SUMS_ITEMS=%d -D ARGMAX_WG=%d -D ARGMAX_FORM=%d -D ARGMAX_PARTS=%d"
                     " -D PREP_TX=%d -D PREP_TY=%d -D PREP_VEC=%d -D PREP_PAD=%d"
                     " -D SAMPLE_TX=%d -D SAMPLE_TY=%d -D TILE_WG=%d -D INTERP=%d -D WINDOW_FN=%d -D WINDOW_ALPHA=%.17g"
                     " -D FFT_PACK=%d"
                     " -D DIRECT_TX=%d -D DIRECT_TY=%d -D DIRECT_SPX=%d -D DIRECT_IPI=%d -D DIRECT_ROWS=%d"
                     " -D DIRECT_SPLIT=%d -D DIRECT_SOURCE=%d -D DIRECT_HYBRID_TEX=%d -D DIRECT_HYBRID_DEN=%d"
                     " -D DIRECT_BROADCAST=%d -D DIRECT_FEW_WG=%d"
                     " -D FILTER_R=%d -D FILTER_BORDER=%d -D FILTER_EPILOGUE=%d -D FILTER_INPUT_REAL=%d"
                     " -D FILTER_K=%d -D FILTER_ROWS_TX=%d -D FILTER_ROWS_TY=%d"
                     " -D FILTER_COLS_TX=%d -D FILTER_COLS_TY=%d",
                     std, (int)p->vendor, p->use_double ? 1 : 0, pixel_ctype(p->pixel), p->pixel == CLX_PIXEL_F32,
                     p->win_w, p->win_h, p->pad_w, p->pad_h, p->corr_w, p->corr_h, p->store_rx, p->store_ry,
                     p->search_rx, p->search_ry, p->fit_size, p->sums_wg, p->sums_items, p->argmax_wg,
                     p->argmax_form, p->argmax_parts, p->prepare_tx, p->prepare_ty, p->prep_vec, p->prep_pad,
                     p->sample_tx, p->sample_ty, p->tile_wg, p->interp, p->window_fn, p->window_alpha, p->fft_pack,
                     d->tx, d->ty, d->spx, d->ipi, d->rows, d->split, d->source, d->hybrid_tex, d->hybrid_den,
                     d->broadcast, d->few_wg, f->radius, f->border, f->epilogue, f->input_real, f->k,
                     f->rows_tx, f->rows_ty, f->cols_tx, f->cols_ty);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int program_build_params(struct clx_context *ctx, const char *file, const struct kernel_params *p,
                         cl_program *program)
{
    char options[2048];
    *program = NULL;
    if (kernel_options_format(p, options, sizeof options))
        return ctx_fail(ctx, CLX_ERR_ARGUMENT, "kernel options too long");
    return program_build(ctx, file, options, program);
}

/* The FFT libraries by kernel_params.fft_backend, named as fft_backend_named()
 * names them, and FFT_AUTO's name. */
static const char *const fft_names[] = { "clfft", "vkfft", "auto", NULL };

const char *kernel_params_fft_name(const struct kernel_params *p)
{
    size_t known = sizeof fft_names / sizeof fft_names[0] - 1;
    return p->fft_backend >= 0 && (size_t)p->fft_backend < known ? fft_names[p->fft_backend] : "?";
}

/* The overridable values, by the name of their -D macro in lower case. */
struct param_field {
    const char *key;
    size_t offset;
    int min, max;
    int pow2;                  /* must be a power of two */
    const char *const *names;  /* a named choice: the names of 0, 1, ... (NULL-terminated); NULL: an integer */
};

#define FIELD(key, member, min, max, pow2) { key, offsetof(struct kernel_params, member), min, max, pow2, NULL }
#define NAMED(key, member, names) { key, offsetof(struct kernel_params, member), 0, 0, 0, names }
static const struct param_field fields[] = {
    FIELD("sums_wg", sums_wg, 1, 4096, 1),
    FIELD("argmax_wg", argmax_wg, 1, 4096, 1),
    FIELD("sums_items", sums_items, 1, 8, 0),
    FIELD("argmax_form", argmax_form, 0, 2, 0),
    FIELD("argmax_parts", argmax_parts, 1, 64, 0),
    FIELD("prep_tx", prepare_tx, 1, 4096, 0),
    FIELD("prep_ty", prepare_ty, 1, 4096, 0),
    FIELD("prep_vec", prep_vec, 1, 4, 1),
    FIELD("prep_pad", prep_pad, 0, 2, 0),
    FIELD("sample_tx", sample_tx, 1, 4096, 0),
    FIELD("sample_ty", sample_ty, 1, 4096, 0),
    FIELD("tile_wg", tile_wg, 1, 4096, 1),
    FIELD("interp", interp, 0, 1, 0),
    FIELD("fft_pack", fft_pack, 0, 1, 0),
    FIELD("direct_tx", direct.tx, 1, 1024, 0),
    FIELD("direct_ty", direct.ty, 1, 1024, 0),
    FIELD("direct_spx", direct.spx, 1, 32, 0),
    FIELD("direct_ipi", direct.ipi, 1, 16, 0),
    FIELD("direct_rows", direct.rows, 1, 1024, 0),
    FIELD("direct_split", direct.split, 1, 1024, 0),
    FIELD("direct_source", direct.source, 0, 2, 0),
    FIELD("direct_hybrid_tex", direct.hybrid_tex, 0, 64, 0),
    FIELD("direct_hybrid_den", direct.hybrid_den, 1, 64, 0),
    FIELD("direct_broadcast", direct.broadcast, 0, 2, 0),
    FIELD("direct_few", direct.few, 0, 1, 0),
    FIELD("direct_few_wg", direct.few_wg, 1, 1024, 1),
    NAMED("fft", fft_backend, fft_names),
};
#undef FIELD
#undef NAMED

/* A named choice's value: the index of `value` among f->names, or -1 with `why` listing them. */
static int named_value(const struct param_field *f, const char *value, char *why, size_t why_len)
{
    for (int i = 0; f->names[i]; i++)
        if (strcmp(f->names[i], value) == 0)
            return i;
    size_t used = (size_t)snprintf(why, why_len, "parameter %s=%s: expected", f->key, value);
    for (int i = 0; f->names[i] && used < why_len; i++)
        used += (size_t)snprintf(why + used, why_len - used, "%s%s", i ? " or " : " ", f->names[i]);
    return -1;
}

int kernel_params_override(struct kernel_params *p, const char *overrides, char *why, size_t why_len)
{
    const char *s = overrides;
    while (s && *s) {
        size_t n = strcspn(s, ", ");
        char item[128];
        if (n == 0) {
            s++;
            continue;
        }
        if (n >= sizeof item) {
            snprintf(why, why_len, "parameter '%.*s...' is too long", 40, s);
            return -1;
        }
        memcpy(item, s, n);
        item[n] = '\0';
        s += n;
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(why, why_len, "parameter '%s': expected KEY=VALUE", item);
            return -1;
        }
        *eq = '\0';
        const struct param_field *f = NULL;
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (strcmp(fields[i].key, item) == 0)
                f = &fields[i];
        if (!f) {
            size_t used = (size_t)snprintf(why, why_len, "unknown parameter '%s' (known:", item);
            for (size_t i = 0; i < sizeof fields / sizeof fields[0] && used < why_len; i++)
                used += (size_t)snprintf(why + used, why_len - used, " %s", fields[i].key);
            if (used < why_len)
                snprintf(why + used, why_len - used, ")");
            return -1;
        }
        if (f->names) {
            int v = named_value(f, eq + 1, why, why_len);
            if (v < 0)
                return -1;
            *(int *)((char *)p + f->offset) = v;
            continue;
        }
        char *end;
        errno = 0;
        long v = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || *end != '\0' || errno || v < f->min || v > f->max || (f->pow2 && (v & (v - 1)))) {
            snprintf(why, why_len, "parameter %s=%s: expected %s from %d to %d", item, eq + 1,
                     f->pow2 ? "a power of two" : "an integer", f->min, f->max);
            return -1;
        }
        *(int *)((char *)p + f->offset) = (int)v;
    }
    return 0;
}

int kernel_params_check(const struct kernel_params *p, const struct device_entry *dev, char *why, size_t why_len)
{
    const struct { const char *what; size_t items; } groups[] = {
        { "sums_wg", (size_t)p->sums_wg },
        { "argmax_wg", (size_t)p->argmax_wg },
        { "prep_tx x prep_ty", (size_t)p->prepare_tx * p->prepare_ty },
        { "sample_tx x sample_ty", (size_t)p->sample_tx * p->sample_ty },
        { "tile_wg", (size_t)p->tile_wg },
        { "direct_tx x direct_ty", (size_t)p->direct.tx * p->direct.ty },
        { "direct_few_wg", (size_t)p->direct.few_wg },
        { "filter_rows_tx x filter_rows_ty", (size_t)p->filter.rows_tx * p->filter.rows_ty },
        { "filter_cols_tx x filter_cols_ty", (size_t)p->filter.cols_tx * p->filter.cols_ty },
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (groups[i].items > dev->max_work_group_size) {
            snprintf(why, why_len, "%s = %zu work-items: %s allows at most %zu per work-group", groups[i].what,
                     groups[i].items, dev->info.name, dev->max_work_group_size);
            return -1;
        }
    /* sample_windows holds a patch of the image and its filtered rows. */
    size_t taps = p->interp == 0 ? 4 : 6;
    size_t sample_local = (p->use_double ? sizeof(double) : sizeof(float)) *
                          ((p->sample_ty + taps - 1) * (p->sample_tx + taps - 1 + p->sample_tx) + 2 * taps);
    if (sample_local > dev->info.local_memory) {
        snprintf(why, why_len, "sample_tx x sample_ty = %dx%d needs %zu bytes of local memory: %s has %llu",
                 p->sample_tx, p->sample_ty, sample_local, dev->info.name, dev->info.local_memory);
        return -1;
    }
    /* Form 2 packs a float's bits and an index into one 64-bit word for atom_max. */
    if (p->argmax_form == 2 && p->use_double) {
        snprintf(why, why_len, "argmax_form=2 packs single-precision values into 64-bit atomics: not with double "
                 "precision (use argmax_form=0 or 1)");
        return -1;
    }
    if (p->argmax_form == 2 && !dev->has_int64_atomics) {
        snprintf(why, why_len, "argmax_form=2 needs 64-bit atomics (cl_khr_int64_extended_atomics): %s lacks them "
                 "(use argmax_form=0 or 1)", dev->info.name);
        return -1;
    }
    if (p->direct.hybrid_tex > p->direct.hybrid_den) {
        snprintf(why, why_len, "direct_hybrid_tex (%d) is more than direct_hybrid_den (%d)", p->direct.hybrid_tex,
                 p->direct.hybrid_den);
        return -1;
    }
    return 0;
}
