/*
 * kernel_params.h - every -D macro the kernels see, in one struct (internal).
 *
 * The option string comes from one function (kernel_options_format), so the
 * options are in one place, logged at debug level, printed in full when a
 * build fails and part of the binary cache key. Defaults suit the device;
 * the correlators size their own kernels for a job; `params` strings
 * ("direct_split=2,argmax_wg=128") override any value.
 */
#ifndef CLX_KERNEL_PARAMS_H
#define CLX_KERNEL_PARAMS_H

#include <stddef.h>
#include "clxcorr.h"
#include <CL/cl.h>
#include "runtime/device.h"

/* The direct correlation kernels' shapes (cl/correlate_direct.cl, cl/correlate_direct_few.cl). */
struct direct_params {
    int tx, ty;               /* DIRECT_TX x DIRECT_TY: work-group (shift columns x shift rows) */
    int spx;                  /* DIRECT_SPX: shifts along x per work-item (register blocking) */
    int ipi;                  /* DIRECT_IPI: images per work-item */
    int rows;                 /* DIRECT_ROWS: reference rows per pass through local memory */
    int split;                /* DIRECT_SPLIT: work-groups sharing one shift block's overlap rows */
    int source;               /* DIRECT_SOURCE: image windows from 0 local memory, 1 a texture, 2 both */
    int hybrid_tex, hybrid_den; /* DIRECT_HYBRID_TEX of every DIRECT_HYBRID_DEN work-groups use the texture */
    int broadcast;            /* DIRECT_BROADCAST: reference values via 0 local memory, 1 sub-groups, 2 PTX */
    int few;                  /* 1: the few-shifts form instead (cl/correlate_direct_few.cl) */
    int few_wg;               /* DIRECT_FEW_WG: its work-items per tile */
};

/* A pre-filter stage's kernels (cl/filter_tiled.cl, cl/filter_separable.cl). */
struct filter_params {
    int radius;               /* FILTER_R: the stage's 2 r + 1 taps (1, 2: tiled path; any: separable) */
    int border;               /* FILTER_BORDER: clx_border, how pixels outside the source ROI are read */
    int epilogue;             /* FILTER_EPILOGUE: 0 filtered, 1 source - filtered, 2 source / filtered */
    int input_real;           /* FILTER_INPUT_REAL: the stage reads reals (a previous stage's output), not PIXEL_T */
    int k;                    /* FILTER_K: outputs per work-item along y in the column pass (register blocking) */
    int rows_tx, rows_ty;     /* FILTER_ROWS_TX x FILTER_ROWS_TY: the row pass's work-group */
    int cols_tx, cols_ty;     /* FILTER_COLS_TX x FILTER_COLS_TY: the column pass's work-group */
};

/* kernel_params.fft_backend: whichever library method_choice measures faster. */
#define FFT_AUTO 2

struct kernel_params {
    int use_double;           /* USE_DOUBLE: every stage in double */
    clx_pixel_type pixel;     /* PIXEL_T: the uploaded image's pixel type */
    int win_w, win_h;         /* WIN_W, WIN_H: window size */
    int pad_w, pad_h;         /* PAD_W, PAD_H: prepared-window layout (FFT: >= 2w x 2h; direct: w x h) */
    int corr_w, corr_h;       /* CORR_W, CORR_H: correlation layout (shift u stored at u mod CORR_W) */
    int store_rx, store_ry;   /* STORE_RX, STORE_RY: largest |shift| the correlation layout holds */
    int search_rx, search_ry; /* SEARCH_RX, SEARCH_RY: largest |shift| argmax searches */
    int fit_size;             /* FIT_SIZE: F of the F x F neighbourhood */
    int sums_wg;              /* SUMS_WG: work-items reducing one window (power of 2) */
    int sums_items;           /* SUMS_ITEMS: consecutive pixels per work-item and step in window_sums (1..8) */
    int argmax_wg;            /* ARGMAX_WG: work-items searching one correlation (power of 2) */
    int argmax_form;          /* ARGMAX_FORM: 0 one work-group per correlation, 1 partial results and a
                                 combining kernel, 2 64-bit atomics (single precision only) */
    int argmax_parts;         /* ARGMAX_PARTS: work-groups sharing one correlation in forms 1 and 2 (1..64) */
    int prepare_tx, prepare_ty; /* PREP_TX x PREP_TY: prepare's work-group */
    int prep_vec;             /* PREP_VEC: consecutive x per prepare work-item, vector loads and stores (1, 2, 4) */
    int prep_pad;             /* PREP_PAD: the seed mode's padding of prepared windows: 0 written by prepare,
                                 1 zeroed by a fill before every prepare, 2 zeroed once when allocated */
    int sample_tx, sample_ty; /* SAMPLE_TX x SAMPLE_TY: sample_windows' work-group */
    int tile_wg;              /* TILE_WG: work-items per tile in tile_prepare and zncc (power of 2) */
    int interp;               /* INTERP: sample_windows' interpolation, 0 cubic, 1 Lanczos-3 */
    int window_fn;            /* WINDOW_FN: 0 none, 1 Hann, 2 Tukey */
    int fft_pack;             /* FFT_PACK: the FFT path's transforms, 0 R2C/C2R per tile, 1 one C2C per pair of
                                 tiles (cl/fft_pack.cl) */
    double window_alpha;      /* WINDOW_ALPHA: Tukey's tapered fraction */
    struct direct_params direct;
    struct filter_params filter;
    enum device_vendor vendor;  /* CLX_VENDOR: for cl/vendor.h's predicates */
    int opencl_c_major;       /* the device's OpenCL C version, for -cl-std */
    int fft_backend;          /* not a kernel macro: the FFT path's library, 0 clFFT, 1 VkFFT, FFT_AUTO
                                 (key fft=clfft|vkfft|auto; stage_create resolves auto by measuring) */
};

/* Work-group sizes that suit the device (everything else zeroed). */
void kernel_params_defaults(struct kernel_params *p, const struct device_entry *dev);

/* The build options for p. Returns 0, or -1 if len is too small. */
int kernel_options_format(const struct kernel_params *p, char *buf, size_t len);

/*
 * Applies "KEY=VALUE,KEY=VALUE" overrides (keys: the macros in lower case,
 * e.g. direct_split, sums_wg; fft=clfft|vkfft picks the FFT library). Returns
 * 0, or -1 with `why` saying which key or value is wrong.
 */
int kernel_params_override(struct kernel_params *p, const char *overrides, char *why, size_t why_len);

/* The name of p's FFT library ("clfft", "vkfft"), as fft_backend_named() takes it. */
const char *kernel_params_fft_name(const struct kernel_params *p);

struct clx_context;
/* cl/<file> built for the context's device with p's options
 * (runtime/program_build.h: once per OpenCL context). */
int program_build_params(struct clx_context *ctx, const char *file, const struct kernel_params *p,
                         cl_program *program);

/* Checks the work-group shapes against the device; 0 or -1 with `why`. */
int kernel_params_check(const struct kernel_params *p, const struct device_entry *dev, char *why,
                        size_t why_len);

#endif
