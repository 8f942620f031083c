/*
 * print_kernel_options.c - prints, one per line, the kernel files a plan
 * builds and, after a '|', the build options the library gives them, for a
 * spread of jobs: both correlation paths
 * (each configuring its own layouts, as a plan does), every direct-kernel
 * variant that is OpenCL C 1.2, the seed kernels' variants (sums_items,
 * prep_vec, prep_pad, argmax_form, fft_pack), float and double, every pixel type, full and
 * bounded searches, several vendors (AMD's and Intel's with the work-group
 * shapes shipped for each SIMD width), each interpolation (and the
 * B-splines' prefilter), IC-GN with either shape function (and its vector
 * form); and the pre-filter stages: both paths,
 * radii 1 to 64, every border rule, epilogue and input. kernels_spir.sh
 * compiles every kernel with each line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "ops/correlator.h"
#include "ops/fft_backend.h"
#include "params/tuning_db.h"
#include "runtime/program_build.h"

/* The kernels a plan on each path builds. */
static const char *const kernels_fft = "window_sums.cl prepare.cl spectrum_multiply.cl argmax.cl neighbourhood.cl";
static const char *const kernels_fft_pack = "window_sums.cl prepare.cl fft_pack.cl argmax.cl neighbourhood.cl";
static const char *const kernels_direct = "window_sums.cl prepare.cl correlate_direct.cl argmax.cl neighbourhood.cl";
static const char *const kernels_direct_few = "correlate_direct_few.cl";
/* The accurate mode's own kernels, built with either path's layout. */
static const char *const kernels_accurate = "sample_windows.cl tile_prepare.cl zncc.cl peak_offsets.cl";

static int print(const char *kernels, struct kernel_params *p)
{
    char buf[2048];
    if (kernel_options_format(p, buf, sizeof buf))
        return 1;
    printf("%s|%s\n", kernels, buf);
    return 0;
}

/* Pre-filter stages as src/ops/filter_chain.c builds them: the tiled path for radius
 * 1 and 2, the separable path for any radius (1 and 2 included, as forced
 * in tests), first stages reading each pixel type, later ones reals. */
static int print_filters(const struct device_entry *dev)
{
    const int radii[] = { 1, 2, 3, 17, 64 };
    const clx_pixel_type pixels[] = { CLX_PIXEL_U8, CLX_PIXEL_U16, CLX_PIXEL_F32 };
    int bad = 0, n = 0;
    for (size_t r = 0; r < sizeof radii / sizeof radii[0]; r++)
        for (int border = 0; border < 3; border++)
            for (int epilogue = 0; epilogue < 3; epilogue++) {
                struct kernel_params p;
                kernel_params_defaults(&p, dev);
                p.filter_r = radii[r];
                p.filter_border = border;
                p.filter_epilogue = epilogue;
                p.filter_input_real = n % 4 == 3;
                p.pixel = pixels[n % 3];
                p.use_double = n % 5 == 1;
                n++;
                bad |= print(radii[r] <= 2 ? "filter_tiled.cl filter_separable.cl filter_vector.cl"
                                           : "filter_separable.cl filter_vector.cl", &p);
            }
    return bad;
}

/* The shipped tuning of dev's vendor and SIMD width (src/params/tuning_db.c). */
static int shipped_apply(const struct device_entry *dev, struct kernel_params *p)
{
    clx_tuning t;
    const char *why;
    char error[512];
    tuning_shipped(dev, CLX_MODE_SEED, &t, &why);
    if (t.params[0] && kernel_params_override(p, t.params, error, sizeof error) != 0) {
        fprintf(stderr, "print-kernel-options: shipped tuning '%s': %s\n", t.params, error);
        return 1;
    }
    return 0;
}

int main(void)
{
    /* The last job is a refinement's: the direct path's few-shifts form. */
    const struct { int w, h, max_shift, fit; } jobs[] = { { 7, 5, 0, 5 }, { 100, 100, 0, 7 }, { 11, 13, 0, 5 },
                                                          { 64, 48, 6, 5 }, { 100, 100, 1, 3 } };
    const clx_pixel_type pixels[] = { CLX_PIXEL_U8, CLX_PIXEL_U16, CLX_PIXEL_F32 };
    const enum device_vendor vendors[] = { VENDOR_OTHER, VENDOR_NVIDIA, VENDOR_AMD, VENDOR_INTEL, VENDOR_POCL };
    const struct correlator_ops *paths[] = { &correlator_fft, &correlator_direct };
    struct device_entry dev;
    int n = 0, bad = 0;

    memset(&dev, 0, sizeof dev);
    dev.max_work_group_size = 1024;
    dev.info.local_memory = 48 * 1024;
    dev.info.compute_units = 16;
    dev.info.type = CLX_DEVICE_GPU;
    dev.opencl_c_major = 1;
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
        for (int px = 0; px < 3; px++)
            for (int dbl = 0; dbl < 2; dbl++)
                for (int path = 0; path < 2; path++) {
                    struct kernel_params p;
                    dev.vendor = vendors[n % 5];
                    /* AMD's and Intel's shipped work-group shapes, for
                     * each of their SIMD widths in turn. */
                    dev.simd_width = dev.vendor == VENDOR_AMD     ? ((n / 5) % 2 ? 64 : 32)
                                     : dev.vendor == VENDOR_INTEL ? ((n / 5) % 2 ? 8 : 16)
                                                                  : 0;
                    n++;
                    kernel_params_defaults(&p, &dev);
                    if (shipped_apply(&dev, &p) != 0)
                        return 1;
                    p.win_w = jobs[j].w;
                    p.win_h = jobs[j].h;
                    p.search_rx = jobs[j].max_shift ? jobs[j].max_shift : p.win_w - 1;
                    p.search_ry = jobs[j].max_shift ? jobs[j].max_shift : p.win_h - 1;
                    p.pixel = pixels[px];
                    p.use_double = dbl;
                    p.fit_size = jobs[j].fit;
                    paths[path]->configure(&dev, &p, 4 * p.win_w);
                    const char *kernels = path == 0 ? kernels_fft : p.direct_few ? kernels_direct_few : kernels_direct;
                    bad |= print(kernels, &p);
                    /* The seed kernels' variants (tune searches them): each
                     * value once over the jobs, atomics in single precision;
                     * the FFT path packing pairs of tiles (the line above
                     * does not). */
                    p.sums_items = 1 + n % 8;
                    p.prep_vec = 1 << (n % 3);
                    p.prep_pad = n % 3;
                    p.argmax_form = dbl ? (int[]){ 0, 1, 3 }[n % 3] : n % 4;
                    p.argmax_parts = 1 + n % 16;
                    p.fft_pack = path == 0;
                    bad |= print(path == 0 ? kernels_fft_pack : kernels, &p);
                    /* The accurate mode: each window function and
                     * interpolator, and the B-splines' prefilter. */
                    p.window_fn = n % 3;
                    p.interp = n % 4;
                    bad |= print(kernels_accurate, &p);
                    if (p.interp == INTERP_BSPLINE3 || p.interp == INTERP_BSPLINE5)
                        bad |= print("bspline_prefilter.cl", &p);
                    /* IC-GN: both shape functions, a work-group size each. */
                    p.shape = n % 2;
                    p.icgn_wg = 64 << (n % 3);
                    bad |= print("icgn.cl icgn_vector.cl icgn_noise.cl", &p);
                    p.shape = 0;
                    if (paths[path] == &correlator_direct && !p.direct_few && !dbl) {
                        /* The texture and hybrid variants, and a split. */
                        p.direct_source = 1;
                        bad |= print(kernels, &p);
                        p.direct_source = 2;
                        p.direct_split = 3;
                        bad |= print(kernels, &p);
                    }
                }
    bad |= print_filters(&dev);
    /* The HR-EBSD remapping's warp (src/ops/warp.c): each input pixel type,
     * both interpolators of pixels (it refuses the B-splines). */
    for (int px = 0; px < 3; px++) {
        struct kernel_params p;
        kernel_params_defaults(&p, &dev);
        p.pixel = pixels[px];
        p.interp = px % 2;
        bad |= print("warp_pattern.cl", &p);
    }
    /* The deforming multi-pass's warp (src/pipeline/multipass.c): cubic
     * B-spline sampling, in floats and in doubles. */
    for (int use_double = 0; use_double < 2; use_double++) {
        struct kernel_params p;
        kernel_params_defaults(&p, &dev);
        p.win_w = p.win_h = 64;
        p.interp = INTERP_BSPLINE3;
        p.use_double = use_double;
        bad |= print("field_warp.cl", &p);
    }
    /* The cpu FFT backend's transforms (src/ops/fft_cpu.c): every radix, float and double. */
    const int fft_sizes[][2] = { { 200, 200 }, { 64, 64 }, { 42, 70 }, { 14, 6 } };
    for (size_t s = 0; s < sizeof fft_sizes / sizeof fft_sizes[0]; s++) {
        char buf[256];
        fft_cpu_build_options(fft_sizes[s][0], fft_sizes[s][1], (int)s % 2, buf, sizeof buf);
        printf("fft_cpu.cl|%s\n", buf);
    }
    /* The local FFT backend's (src/ops/fft_local.c): every radix, float and double, its line counts. */
    for (size_t s = 0; s < sizeof fft_sizes / sizeof fft_sizes[0]; s++) {
        char buf[768];
        fft_local_build_options(fft_sizes[s][0], fft_sizes[s][1], (int)s % 2, s % 2 ? 4 : 8, s % 2 ? 4 : 8, 128, buf,
                                sizeof buf);
        printf("fft_local.cl|%s\n", buf);
    }
    return bad;
}
