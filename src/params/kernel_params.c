/* kernel_params.c - the parameter table's defaults, build options, overrides and listing. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/kernel_params.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

#ifdef HAVE_VKFFT
/* VkFFT where it is built in: measured faster (bench/gpu-throughput.sh,
 * seed mode, 100 x 100 windows) by 1.9x on an H200 and 1.08x on PoCL 5;
 * fft=clfft still picks clFFT. */
#define FFT_DEFAULT FFT_VKFFT
#else
#define FFT_DEFAULT FFT_CLFFT
#endif
/* CPU devices: clxcorr's own transforms, whose kernels are written for
 * CPUs (bench/results/cpu-peers-results.txt: xx against VkFFT on PoCL). */
#define FFT_DEFAULT_FOR(dev) ((dev)->info.type == CLX_DEVICE_CPU ? FFT_CPU : FFT_DEFAULT)

/* ---- the table, as data -------------------------------------------------- */

enum param_type { TYPE_INT, TYPE_REAL, TYPE_PIXEL };
enum param_key { KEY_JOB, KEY_ANY, KEY_POW2, KEY_NAMED };

struct param_info {
    const char *name;          /* member and --param key */
    const char *macro;         /* -D macro; "NONE": not passed to the kernels */
    enum param_type type;
    enum param_key key;
    int min, max;
    const char *meaning;
    size_t offset;
};

#define INFO(member, macro, type, key, min, max, def, meaning)                                                      \
    { #member, #macro, TYPE_##type, KEY_##key, min, max, meaning, offsetof(struct kernel_params, member) },
static const struct param_info params[] = { KERNEL_PARAMS(INFO) };
#undef INFO

/* The kernel_param_set masks hold every parameter. */
_Static_assert(KP_COUNT <= 64, "more kernel parameters than a kernel_param_set holds");

static int passed_to_kernels(const struct param_info *i)
{
    return strcmp(i->macro, "NONE") != 0;
}

static int *int_of(struct kernel_params *p, const struct param_info *i)
{
    return (int *)((char *)p + i->offset);
}

static int int_value(const struct kernel_params *p, const struct param_info *i)
{
    return i->type == TYPE_PIXEL ? (int)*(const clx_pixel_type *)((const char *)p + i->offset)
                                 : *(const int *)((const char *)p + i->offset);
}

/* ---- defaults ------------------------------------------------------------ */

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
#define WG(cap) largest_pow2_at_most(maxwg, cap)
#define WG_AFTER(used, cap) largest_pow2_at_most(maxwg / (size_t)(used), cap)
#define DEFAULT(member, macro, type, key, min, max, def, meaning) p->member = def;
    memset(p, 0, sizeof *p);
    KERNEL_PARAMS(DEFAULT)
#undef DEFAULT
#undef WG_AFTER
#undef WG
}

/* ---- build options ------------------------------------------------------- */

static const char *pixel_ctype(clx_pixel_type t)
{
    switch (t) {
    case CLX_PIXEL_U8: return "uchar";
    case CLX_PIXEL_U16: return "ushort";
    case CLX_PIXEL_F32: return "float";
    }
    return "?";
}

int kernel_options_format(const struct kernel_params *p, char *buf, size_t len)
{
    /* OpenCL C 1.2 everywhere, but cl_khr_subgroups' built-ins need 2.0 or
     * later (3.0 where the device has it: some accept 1.2 and 3.0 but not
     * 2.0); Intel's cl_intel_subgroups gives them to 1.2. */
    const char *std = p->direct_broadcast == 1 && p->subgroups != 2 ? (p->opencl_c_major >= 3 ? "CL3.0" : "CL2.0")
                                                                     : "CL1.2";
    size_t used = (size_t)snprintf(buf, len, "-cl-std=%s", std);
    for (size_t k = 0; k < KP_COUNT && used < len; k++) {
        const struct param_info *i = &params[k];
        if (!passed_to_kernels(i))
            continue;
        if (i->type == TYPE_REAL)
            used += (size_t)snprintf(buf + used, len - used, " -D %s=%.17g", i->macro,
                                     *(const double *)((const char *)p + i->offset));
        else if (i->type == TYPE_PIXEL)
            used += (size_t)snprintf(buf + used, len - used, " -D %s=%s -D PIXEL_IS_FLOAT=%d", i->macro,
                                     pixel_ctype(p->pixel), p->pixel == CLX_PIXEL_F32);
        else
            used += (size_t)snprintf(buf + used, len - used, " -D %s=%d", i->macro, int_value(p, i));
    }
    return used < len ? 0 : -1;
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

/* ---- overrides ----------------------------------------------------------- */

/* The FFT libraries by kernel_params.fft (FFT_CLFFT, FFT_VKFFT, FFT_AUTO),
 * named as fft_backend_named() names them. */
static const char *const fft_names[] = { "clfft", "vkfft", "auto", "cpu", "local", NULL };

const char *kernel_params_fft_name(const struct kernel_params *p)
{
    return p->fft >= FFT_CLFFT && p->fft <= FFT_LOCAL ? fft_names[p->fft] : "?";
}

void kernel_overrides_init(struct kernel_overrides *o)
{
    memset(o, 0, sizeof *o);
}

/* The overridable parameter called `key`, or NULL. */
static const struct param_info *find_key(const char *key)
{
    for (size_t k = 0; k < KP_COUNT; k++)
        if (params[k].key != KEY_JOB && strcmp(params[k].name, key) == 0)
            return &params[k];
    return NULL;
}

/* Lists the keys after "unknown parameter 'KEY' (known:". */
static void unknown_key(const char *key, char *why, size_t why_len)
{
    size_t used = (size_t)snprintf(why, why_len, "unknown parameter '%s' (known:", key);
    for (size_t k = 0; k < KP_COUNT && used < why_len; k++)
        if (params[k].key != KEY_JOB)
            used += (size_t)snprintf(why + used, why_len - used, " %s", params[k].name);
    if (used < why_len)
        snprintf(why + used, why_len - used, ")");
}

/* KEY=VALUE's value for parameter i: 0 with *v, or -1 with `why`. */
static int parse_value(const struct param_info *i, const char *value, int *v, char *why, size_t why_len)
{
    if (i->key == KEY_NAMED) {
        for (int n = 0; fft_names[n]; n++)
            if (strcmp(fft_names[n], value) == 0) {
                *v = n;
                return 0;
            }
        size_t used = (size_t)snprintf(why, why_len, "parameter %s=%s: expected", i->name, value);
        for (int n = 0; fft_names[n] && used < why_len; n++)
            used += (size_t)snprintf(why + used, why_len - used, "%s%s", n ? " or " : " ", fft_names[n]);
        return -1;
    }
    char *end;
    errno = 0;
    long l = strtol(value, &end, 10);
    int pow2 = i->key == KEY_POW2;
    if (end == value || *end != '\0' || errno || l < i->min || l > i->max || (pow2 && (l & (l - 1)))) {
        snprintf(why, why_len, "parameter %s=%s: expected %s from %d to %d", i->name, value,
                 pow2 ? "a power of two" : "an integer", i->min, i->max);
        return -1;
    }
    *v = (int)l;
    return 0;
}

int kernel_overrides_parse(struct kernel_overrides *o, const char *text, int tuning, char *why, size_t why_len)
{
    struct kernel_overrides parsed = *o;
    const char *s = text;
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
        const struct param_info *i = find_key(item);
        int v;
        if (!i) {
            unknown_key(item, why, why_len);
            return -1;
        }
        if (parse_value(i, eq + 1, &v, why, why_len))
            return -1;
        kernel_param_set bit = UINT64_C(1) << (size_t)(i - params);
        *int_of(&parsed.values, i) = v;
        parsed.given |= bit;
        parsed.from_tuning = tuning ? parsed.from_tuning | bit : parsed.from_tuning & ~bit;
    }
    *o = parsed;
    return 0;
}

void kernel_overrides_apply(const struct kernel_overrides *o, kernel_param_set which, struct kernel_params *p)
{
    if (!o)
        return;
    for (size_t k = 0; k < KP_COUNT; k++)
        if (o->given & which & (UINT64_C(1) << k))
            *int_of(p, &params[k]) = *(const int *)((const char *)&o->values + params[k].offset);
}

int kernel_params_override(struct kernel_params *p, const char *text, char *why, size_t why_len)
{
    struct kernel_overrides o;
    kernel_overrides_init(&o);
    if (kernel_overrides_parse(&o, text, 0, why, why_len))
        return -1;
    kernel_overrides_apply(&o, o.given, p);
    return 0;
}

/* ---- listing ------------------------------------------------------------- */

void kernel_params_describe(const struct kernel_params *p, const struct kernel_overrides *o,
                            const struct device_entry *dev, char *buf, size_t len)
{
    struct kernel_params defaults;
    size_t used = 0;
    kernel_params_defaults(&defaults, dev);
    buf[0] = '\0';
    for (size_t k = 0; k < KP_COUNT && used < len; k++) {
        const struct param_info *i = &params[k];
        kernel_param_set bit = UINT64_C(1) << k;
        if (i->key == KEY_JOB)
            continue;
        int v = int_value(p, i);
        const char *from = o && (o->given & bit) ? (o->from_tuning & bit ? "tuning" : "--param")
                           : v == int_value(&defaults, i) ? "default"
                                                          : "sized for the job";
        if (i->key == KEY_NAMED)
            used += (size_t)snprintf(buf + used, len - used, "%s=%s (%s) %s\n", i->name, kernel_params_fft_name(p),
                                     from, i->meaning);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s=%d (%s) %s\n", i->name, v, from, i->meaning);
    }
}

/* ---- checks -------------------------------------------------------------- */

int kernel_params_check(const struct kernel_params *p, const struct device_entry *dev, char *why, size_t why_len)
{
    const struct { const char *what; size_t items; } groups[] = {
        { "sums_wg", (size_t)p->sums_wg },
        { "argmax_wg", (size_t)p->argmax_wg },
        { "prep_tx x prep_ty", (size_t)p->prep_tx * p->prep_ty },
        { "sample_tx x sample_ty", (size_t)p->sample_tx * p->sample_ty },
        { "tile_wg", (size_t)p->tile_wg },
        { "icgn_wg", (size_t)p->icgn_wg },
        { "direct_tx x direct_ty", (size_t)p->direct_tx * p->direct_ty },
        { "direct_few_wg", (size_t)p->direct_few_wg },
        { "filter_rows_tx x filter_rows_ty", (size_t)p->filter_rows_tx * p->filter_rows_ty },
        { "filter_cols_tx x filter_cols_ty", (size_t)p->filter_cols_tx * p->filter_cols_ty },
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (groups[i].items > dev->max_work_group_size) {
            snprintf(why, why_len, "%s = %zu work-items: %s allows at most %zu per work-group", groups[i].what,
                     groups[i].items, dev->info.name, dev->max_work_group_size);
            return -1;
        }
    /* sample_windows holds a patch of the image and its filtered rows. */
    size_t taps = INTERP_TAPS(p->interp);
    size_t sample_local = (p->use_double ? sizeof(double) : sizeof(float)) *
                          ((p->sample_ty + taps - 1) * (p->sample_tx + taps - 1 + p->sample_tx) + 2 * taps);
    if (sample_local > dev->info.local_memory) {
        snprintf(why, why_len, "sample_tx x sample_ty = %dx%d needs %zu bytes of local memory: %s has %llu",
                 p->sample_tx, p->sample_ty, sample_local, dev->info.name, dev->info.local_memory);
        return -1;
    }
    /* IC-GN reduces up to 3 + 6 sums per work-item at once (cl/icgn.cl). */
    size_t icgn_local = (p->use_double ? sizeof(double) : sizeof(float)) * (size_t)p->icgn_wg * 9 + 256;
    if (icgn_local > dev->info.local_memory) {
        snprintf(why, why_len, "icgn_wg = %d needs %zu bytes of local memory: %s has %llu", p->icgn_wg, icgn_local,
                 dev->info.name, dev->info.local_memory);
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
    if (p->direct_hybrid_tex > p->direct_hybrid_den) {
        snprintf(why, why_len, "direct_hybrid_tex (%d) is more than direct_hybrid_den (%d)", p->direct_hybrid_tex,
                 p->direct_hybrid_den);
        return -1;
    }
    return 0;
}
