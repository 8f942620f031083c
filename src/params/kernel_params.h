/*
 * kernel_params.h - every parameter the kernels are built with, in one
 * table (internal).
 *
 * KERNEL_PARAMS below lists each parameter once: its struct member (and
 * --param key), the -D macro the kernels see, its type, whether and how a
 * user may override it, its range, its default and what it means. The
 * struct, the default values, the build options, the override parser and
 * the listing --explain prints are all made from that list (the X-macro
 * pattern), so that a new parameter is one line here and its #ifndef
 * default in the kernel, not four places to keep in step.
 *
 * Where a value comes from, lowest first: the defaults (which suit the
 * device), the correlators sizing their own kernels for a job, the tuning
 * file or the shipped per-vendor values (params/tuning_db.h), and the
 * caller's "KEY=VALUE,..." string. Overrides are parsed once into a
 * struct kernel_overrides, which remembers which parameters it sets.
 */
#ifndef CLX_KERNEL_PARAMS_H
#define CLX_KERNEL_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <CL/cl.h>
#include "clxcorr.h"
#include "runtime/device.h"

/* kernel_params.fft: the FFT path's library. */
#define FFT_CLFFT 0
#define FFT_VKFFT 1
#define FFT_AUTO 2             /* whichever method_choice measures faster for the job */
#define FFT_CPU 3              /* clxcorr's own, for CPU devices (src/ops/fft_cpu.c) */
#define FFT_LOCAL 4            /* clxcorr's own, for GPUs, the multiply fused (src/ops/fft_local.c) */

/* kernel_params.interp: the refinement's interpolation (cl/interp.h). */
#define INTERP_KEYS 0
#define INTERP_LANCZOS3 1
#define INTERP_BSPLINE3 2      /* the B-splines sample coefficients (ops/bspline_prefilter.h), not pixels */
#define INTERP_BSPLINE5 3
#define INTERP_IS_BSPLINE(interp) ((interp) == INTERP_BSPLINE3 || (interp) == INTERP_BSPLINE5)
#define INTERP_TAPS(interp) ((interp) == INTERP_KEYS || (interp) == INTERP_BSPLINE3 ? 4 : 6)

/*
 * X(member, MACRO, type, key, min, max, default, meaning)
 *   member   the struct member, and the --param key where there is one
 *   MACRO    the -D macro (NONE: not passed to the kernels)
 *   type     INT, REAL (a double) or PIXEL (clx_pixel_type; the kernels see
 *            PIXEL_T as a C type and PIXEL_IS_FLOAT)
 *   key      JOB: set by the job or by the code that sizes a kernel, not a
 *            --param key; ANY: an integer in [min, max]; POW2: a power of
 *            two in [min, max]; NAMED: a name (fft: clfft, vkfft, auto, cpu)
 *   default  an expression of the device (dev; WG(cap): the largest power of
 *            two up to cap that fits a work-group; WG_AFTER(used, cap): the
 *            same with `used` work-items taken) and of the members above it
 */
#define KERNEL_PARAMS(X)                                                                                             \
    /* the job */                                                                                                    \
    X(use_double, USE_DOUBLE, INT, JOB, 0, 1, 0, "every stage in double precision")                                 \
    X(pixel, PIXEL_T, PIXEL, JOB, 0, 0, CLX_PIXEL_U16, "the uploaded images' pixel type")                            \
    X(win_w, WIN_W, INT, JOB, 0, 0, 0, "window width")                                                              \
    X(win_h, WIN_H, INT, JOB, 0, 0, 0, "window height")                                                             \
    X(pad_w, PAD_W, INT, JOB, 0, 0, 0, "prepared-window row length (FFT: >= 2w; direct: w)")                       \
    X(pad_h, PAD_H, INT, JOB, 0, 0, 0, "prepared-window rows (FFT: >= 2h; direct: h)")                             \
    X(corr_w, CORR_W, INT, JOB, 0, 0, 0, "correlation row length (shift u stored at u mod CORR_W)")               \
    X(corr_h, CORR_H, INT, JOB, 0, 0, 0, "correlation rows")                                                        \
    X(store_rx, STORE_RX, INT, JOB, 0, 0, 0, "largest |shift x| the correlation layout holds")                      \
    X(store_ry, STORE_RY, INT, JOB, 0, 0, 0, "largest |shift y| the correlation layout holds")                      \
    X(search_rx, SEARCH_RX, INT, JOB, 0, 0, 0, "largest |shift x| argmax searches")                                 \
    X(search_ry, SEARCH_RY, INT, JOB, 0, 0, 0, "largest |shift y| argmax searches")                                 \
    X(fit_size, FIT_SIZE, INT, JOB, 0, 0, 5, "F of the F x F neighbourhood the estimator sees")                     \
    X(window_fn, WINDOW_FN, INT, JOB, 0, 2, 0, "window function: 0 none, 1 Hann, 2 Tukey")                          \
    X(window_alpha, WINDOW_ALPHA, REAL, JOB, 0, 1, 0.25, "Tukey's tapered fraction")                                \
    X(vendor, CLX_VENDOR, INT, JOB, 0, 4, dev->vendor, "the device's vendor, for cl/vendor.h's predicates")          \
    X(opencl_c_major, NONE, INT, JOB, 1, 3, dev->opencl_c_major, "the device's OpenCL C version, for -cl-std")       \
    X(subgroups, CLX_SUBGROUPS, INT, JOB, 0, 2, dev->subgroups, "the device's sub-groups: 0 none, 1 khr, 2 intel")     \
    /* the seed kernels (the --param keys, in the order an unknown key lists them) */                                \
    X(sums_wg, SUMS_WG, INT, POW2, 1, 4096, WG(256), "work-items reducing one window")                               \
    X(argmax_wg, ARGMAX_WG, INT, POW2, 1, 4096, WG(256), "work-items searching one correlation")                     \
    X(sums_items, SUMS_ITEMS, INT, ANY, 1, 8, 1, "consecutive pixels per work-item and step in window_sums")        \
    X(argmax_form, ARGMAX_FORM, INT, ANY, 0, 3, (dev->info.type == CLX_DEVICE_CPU ? 3 : 0),                        \
      "0 one work-group per correlation, 1 partial results and a combining kernel, 2 64-bit atomics, "             \
      "3 one work-item per correlation with vector loads (CPUs)")                                                   \
    X(argmax_parts, ARGMAX_PARTS, INT, ANY, 1, 64, 4, "work-groups sharing one correlation in forms 1 and 2")       \
    X(prep_tx, PREP_TX, INT, ANY, 1, 4096, WG(32), "prepare's work-group width (rows of 32 stay coalesced)")        \
    X(prep_ty, PREP_TY, INT, ANY, 1, 4096, WG_AFTER(p->prep_tx, 8), "prepare's work-group height")                  \
    X(prep_vec, PREP_VEC, INT, POW2, 1, 4, 1, "consecutive x per prepare work-item, as vector loads and stores")   \
    X(prep_pad, PREP_PAD, INT, ANY, 0, 2, 0,                                                                         \
      "seed mode's padding: 0 written by prepare, 1 a fill before each prepare, 2 zeroed once")                     \
    /* the accurate mode's kernels */                                                                                \
    X(sample_tx, SAMPLE_TX, INT, ANY, 1, 4096, WG(16), "sample_windows' work-group width")                          \
    X(sample_ty, SAMPLE_TY, INT, ANY, 1, 4096, WG_AFTER(p->sample_tx, 8), "sample_windows' work-group height")     \
    X(tile_wg, TILE_WG, INT, POW2, 1, 4096, WG(256), "work-items per tile in tile_prepare and zncc")                 \
    X(tile_form, NONE, INT, ANY, 0, 1, (dev->info.type == CLX_DEVICE_CPU ? 1 : 0),                                  \
      "tile_prepare and the windows' copy: 0 work-groups, 1 one work-item per tile or row, with vectors (CPUs)")   \
    X(bspline_form, NONE, INT, ANY, 0, 1, (dev->info.type == CLX_DEVICE_CPU ? 1 : 0),                               \
      "the B-spline prefilter: 0 on the pre-filter's separable kernels (GPUs), 1 cl/bspline_prefilter.cl's vector "  \
      "forms (CPUs)")                                                                                                \
    X(interp, INTERP, INT, ANY, 0, 3, INTERP_LANCZOS3,                                                                \
      "sample_windows' interpolation: 0 Keys' cubic, 1 Lanczos-3, 2 cubic B-spline, 3 quintic B-spline")           \
    X(shape, SHAPE, INT, JOB, 0, 1, 0, "IC-GN's shape function: 0 translation, 1 first order")                     \
    X(icgn_wg, ICGN_WG, INT, POW2, 1, 4096, WG(256), "work-items per window or tile in IC-GN (cl/icgn.cl)")         \
    X(icgn_form, NONE, INT, ANY, 0, 1, (dev->info.type == CLX_DEVICE_CPU ? 1 : 0),                                  \
      "IC-GN's iterations: 0 one work-group per tile (cl/icgn.cl), 1 one work-item per tile with vectors "          \
      "(cl/icgn_vector.cl, CPUs)")                                                                                   \
    X(icgn_source, ICGN_SOURCE, INT, ANY, 0, 3, 0,                                                                   \
      "IC-GN's samples (icgn_form 0): 0 global memory, 1 a texture, 2 local-memory strips, 3 both in alternate "   \
      "work-groups")                                                                                                 \
    /* the FFT path */                                                                                               \
    X(fft_pack, FFT_PACK, INT, ANY, 0, 1, 0, "FFT path: 0 R2C/C2R per tile, 1 one C2C per pair of tiles")          \
    X(peak_fuse, NONE, INT, ANY, 0, 1, 1,                                                                            \
      "FFT path with fft=local: 1 the argmax searches as the inverse transform writes, 0 in a kernel of its own")  \
    /* the direct path (its correlator sizes them for each job) */                                                   \
    X(direct_tx, DIRECT_TX, INT, ANY, 1, 1024, 16, "work-group width in shift columns")                             \
    X(direct_ty, DIRECT_TY, INT, ANY, 1, 1024, 8, "work-group height in shift rows")                                \
    X(direct_spx, DIRECT_SPX, INT, ANY, 1, 32, 4, "shifts along x per work-item (register blocking)")              \
    X(direct_ipi, DIRECT_IPI, INT, ANY, 1, 16, 1, "images per work-item")                                            \
    X(direct_rows, DIRECT_ROWS, INT, ANY, 1, 1024, 8, "reference rows per pass through local memory")               \
    X(direct_split, DIRECT_SPLIT, INT, ANY, 1, 1024, 1, "work-groups sharing one shift block's overlap rows")       \
    X(direct_source, DIRECT_SOURCE, INT, ANY, 0, 2, 0, "image windows from 0 local memory, 1 a texture, 2 both")   \
    X(direct_hybrid_tex, DIRECT_HYBRID_TEX, INT, ANY, 0, 64, 1, "work-groups of every direct_hybrid_den that use the texture") \
    X(direct_hybrid_den, DIRECT_HYBRID_DEN, INT, ANY, 1, 64, 2, "see direct_hybrid_tex")                            \
    X(direct_broadcast, DIRECT_BROADCAST, INT, ANY, 0, 2, 0, "reference values via 0 local memory, 1 sub-groups, 2 PTX") \
    X(direct_few, NONE, INT, ANY, 0, 1, 0, "1: the few-shifts form (cl/correlate_direct_few.cl)")                   \
    X(direct_few_wg, DIRECT_FEW_WG, INT, POW2, 1, 1024, WG(64), "the few-shifts form's work-items per tile")         \
    /* the FFT library */                                                                                            \
    X(fft, NONE, INT, NAMED, 0, 4, FFT_DEFAULT_FOR(dev),                                                             \
      "the FFT path's library: clfft, vkfft, cpu or local (clxcorr's own) or auto (measured)")                       \
    /* a pre-filter stage (the filter sizes its own) */                                                              \
    X(filter_r, FILTER_R, INT, JOB, 0, 0, 1, "the stage's 2 r + 1 taps (1, 2: tiled path; any: separable)")         \
    X(filter_border, FILTER_BORDER, INT, JOB, 0, 0, CLX_BORDER_MIRROR, "clx_border: pixels outside the source ROI") \
    X(filter_epilogue, FILTER_EPILOGUE, INT, JOB, 0, 0, 0, "0 filtered, 1 source - filtered, 2 source / filtered")  \
    X(filter_input_real, FILTER_INPUT_REAL, INT, JOB, 0, 0, 0, "the stage reads reals, not PIXEL_T")               \
    X(filter_k, FILTER_K, INT, JOB, 0, 0, 8, "outputs per work-item along y in the column pass")                    \
    X(filter_rows_tx, FILTER_ROWS_TX, INT, JOB, 0, 0, WG(64), "the row pass's work-group width")                    \
    X(filter_rows_ty, FILTER_ROWS_TY, INT, JOB, 0, 0, WG_AFTER(p->filter_rows_tx, 4), "the row pass's height")      \
    X(filter_rows_k, FILTER_ROWS_K, INT, JOB, 0, 0, 1, "outputs per work-item along x in the separable row pass") \
    X(filter_cols_tx, FILTER_COLS_TX, INT, JOB, 0, 0, WG(32), "the column pass's work-group width")                 \
    X(filter_cols_ty, FILTER_COLS_TY, INT, JOB, 0, 0, WG_AFTER(p->filter_cols_tx, 4), "the column pass's height")

/* The struct, one member per line of the table. */
#define KP_TYPE_INT int
#define KP_TYPE_REAL double
#define KP_TYPE_PIXEL clx_pixel_type
#define KP_MEMBER(member, macro, type, key, min, max, def, meaning) KP_TYPE_##type member;
struct kernel_params {
    KERNEL_PARAMS(KP_MEMBER)
};
#undef KP_MEMBER

/* Each parameter's index in the table: KP_sums_wg, ... */
#define KP_INDEX(member, macro, type, key, min, max, def, meaning) KP_##member,
enum kernel_param_index {
    KERNEL_PARAMS(KP_INDEX)
    KP_COUNT
};
#undef KP_INDEX

/* A set of parameters, as a bit mask: KP_BIT(fft). */
#define KP_BIT(member) (UINT64_C(1) << KP_##member)
typedef uint64_t kernel_param_set;

/* Overrides parsed once, applied wherever a stage sets its parameters. */
struct kernel_overrides {
    struct kernel_params values;
    kernel_param_set given;       /* the parameters it sets */
    kernel_param_set from_tuning; /* of those, the ones the tuning set and the caller did not */
};

/* Defaults that suit the device; the job's values zero. */
void kernel_params_defaults(struct kernel_params *p, const struct device_entry *dev);

/* The build options for p. Returns 0, or -1 if len is too small. */
int kernel_options_format(const struct kernel_params *p, char *buf, size_t len);

/* An empty set of overrides. */
void kernel_overrides_init(struct kernel_overrides *o);

/*
 * Adds "KEY=VALUE,KEY=VALUE" (keys: the table's overridable members, e.g.
 * direct_split, sums_wg; fft=clfft|vkfft|auto) to o, a later value of a key
 * replacing an earlier one; `tuning` says they come from the tuning file.
 * Returns 0, or -1 with `why` saying which key or value is wrong (o is then
 * unchanged).
 */
int kernel_overrides_parse(struct kernel_overrides *o, const char *text, int tuning, char *why, size_t why_len);

/* Copies o's values of the parameters in `which` (and o) into p. */
void kernel_overrides_apply(const struct kernel_overrides *o, kernel_param_set which, struct kernel_params *p);

/* Parses `text` and applies it to p at once (tests and benchmarks); 0, or -1 with `why`. */
int kernel_params_override(struct kernel_params *p, const char *text, char *why, size_t why_len);

/*
 * One line per overridable parameter of p: "KEY=VALUE (where from) meaning",
 * where from being "--param" or "tuning" for those o gives (o may be NULL),
 * else "default" when it has the device's default value, else "sized for
 * the job". For --explain.
 */
void kernel_params_describe(const struct kernel_params *p, const struct kernel_overrides *o,
                            const struct device_entry *dev, char *buf, size_t len);

/* The name of p's FFT library ("clfft", "vkfft", "auto"), as fft_backend_named() takes it. */
const char *kernel_params_fft_name(const struct kernel_params *p);

/* Checks the work-group shapes against the device; 0 or -1 with `why`. */
int kernel_params_check(const struct kernel_params *p, const struct device_entry *dev, char *why,
                        size_t why_len);

struct clx_context;
/* cl/<file> built for the context's device with p's options
 * (runtime/program_build.h: once per OpenCL context). */
int program_build_params(struct clx_context *ctx, const char *file, const struct kernel_params *p,
                         cl_program *program);

#endif
