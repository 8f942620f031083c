/*
 * crossover.c - clxcorr-crossover: where the direct path overtakes the FFT
 * path on a device, and which direct-kernel variant is fastest there.
 *
 * For each window size and search radius it times, with the same routine the
 * automatic choice uses (method_time), the correlation stage alone (prepared
 * windows in, correlations out) per window: one image's windows, and a
 * batch of images. Then, for each of those cells, it lets the automatic
 * choice decide as a plan would (method_choose, measuring afresh: the
 * context's cache is a new temporary directory) and says what the choice
 * costs against the faster path of the table. A second table compares
 * direct-kernel variants on a few jobs.
 *
 *   clxcorr-crossover [--device SPEC] [--windows N] [--images B] [--double]
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/method_choice.h"
#include "runtime/context.h"

static double time_or_nan(struct clx_context *ctx, const struct correlator_ops *ops, const struct kernel_params *p,
                          const char *overrides, int nwin, int ntiles, int run)
{
    double ms;
    char why[512];
    struct kernel_overrides o;
    kernel_overrides_init(&o);
    if (overrides && kernel_overrides_parse(&o, overrides, 0, why, sizeof why)) {
        fprintf(stderr, "  (%s %s: %s)\n", ops->name, overrides, why);
        return -1;
    }
    if (method_time(ctx, ops, p, &o, nwin, ntiles, run, &ms) != CLX_OK) {
        fprintf(stderr, "  (%s %s: %s)\n", ops->name, overrides ? overrides : "", clx_context_message(ctx));
        return -1;
    }
    return ms / run;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "device", required_argument, NULL, 'd' }, { "windows", required_argument, NULL, 'w' },
        { "images", required_argument, NULL, 'b' }, { "double", no_argument, NULL, 'D' }, { NULL, 0, NULL, 0 }
    };
    const char *device = NULL;
    int nwin = 50, images = 128, use_double = 0, c;
    while ((c = getopt_long(argc, argv, "d:w:b:D", longopts, NULL)) != -1) {
        if (c == 'd')
            device = optarg;
        else if (c == 'w')
            nwin = atoi(optarg);
        else if (c == 'b')
            images = atoi(optarg);
        else if (c == 'D')
            use_double = 1;
        else
            return 2;
    }
    clx_context_options copt;
    clx_context *ctx;
    clx_message msg;
    clx_context_options_init(&copt);
    copt.device = device;
    copt.need_fp64 = use_double;
    /* A cache of our own: the automatic choice must measure, not read an
     * earlier run's decision. */
    char cache_dir[] = "/tmp/clxcorr-crossover.XXXXXX";
    if (!mkdtemp(cache_dir)) {
        perror("clxcorr-crossover: mkdtemp");
        return 1;
    }
    copt.cache_dir = cache_dir;
    if (clx_context_open(&copt, &ctx, &msg) != CLX_OK) {
        fprintf(stderr, "clxcorr-crossover: %s\n", msg.text);
        return 1;
    }
    printf("device: %s (%s), %d windows, batch of %d images, %s\n", ctx->dev.info.name, ctx->dev.info.driver_version,
           nwin, images, use_double ? "double" : "float");

    const struct { int w, r; } jobs[] = {
        { 8, 0 },  { 16, 0 }, { 24, 0 }, { 32, 0 }, { 48, 0 }, { 64, 0 }, { 96, 0 }, { 112, 0 }, { 128, 0 },
        { 64, 4 }, { 64, 8 }, { 64, 16 }, { 100, 4 }, { 100, 8 }, { 100, 16 }, { 100, 32 }, { 128, 8 }, { 128, 16 },
    };
    printf("\nms per window, correlation stage only (prepared windows in, correlations out); auto: what the\n"
           "automatic choice picked, measuring on its own, and its time over the faster path's (1.00: it picked\n"
           "the faster; direct batch -1: not run, one image's direct time was already over 20x the FFT's)\n");
    printf("%8s %6s | %10s %10s %7s %12s | %10s %12s %7s %12s\n", "window", "R", "fft 1img", "direct 1img",
           "winner", "auto", "fft batch", "direct batch", "winner", "auto");
    int cells = 0, right = 0;
    double worst = 1;
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        struct kernel_params p;
        kernel_params_defaults(&p, &ctx->dev);
        p.use_double = use_double;
        p.win_w = p.win_h = jobs[j].w;
        p.search_rx = p.search_ry = jobs[j].r > 0 ? jobs[j].r : jobs[j].w - 1;
        p.fit_size = 5;
        double f1 = time_or_nan(ctx, &correlator_fft, &p, NULL, nwin, nwin, nwin);
        double d1 = time_or_nan(ctx, &correlator_direct, &p, NULL, nwin, nwin, nwin);
        double fb = time_or_nan(ctx, &correlator_fft, &p, NULL, nwin, nwin * images, nwin * images);
        /* A full batch of a large full-range direct job can take long on a CPU:
         * estimate it from one image when that is far behind already. */
        double db = d1 > 20 * f1 && d1 > 1.0 ? -1
                                             : time_or_nan(ctx, &correlator_direct, &p, NULL, nwin, nwin * images,
                                                           nwin * images);
        /* The automatic choice for the same two cells, and what it costs. */
        struct method_choice c1, cb;
        if (method_choose(ctx, CLX_METHOD_AUTO, &p, nwin, nwin, &c1) != CLX_OK ||
            method_choose(ctx, CLX_METHOD_AUTO, &p, nwin, nwin * images, &cb) != CLX_OK) {
            fprintf(stderr, "clxcorr-crossover: %s\n", clx_context_message(ctx));
            return 1;
        }
        int auto1_direct = c1.correlator == &correlator_direct, autob_direct = cb.correlator == &correlator_direct;
        double best1 = d1 < f1 ? d1 : f1, bestb = db >= 0 && db < fb ? db : fb;
        /* A batch's direct time not run: one image's stands for it. */
        double ratio1 = (auto1_direct ? d1 : f1) / best1;
        double ratiob = (autob_direct ? (db >= 0 ? db : d1) : fb) / bestb;
        cells += 2;
        right += (auto1_direct == (d1 < f1)) + (autob_direct == (db >= 0 && db < fb));
        worst = ratio1 > worst ? ratio1 : worst;
        worst = ratiob > worst ? ratiob : worst;
        printf("%5dx%-3d %6d | %10.5f %10.5f %7s %6s x%.2f | %10.5f %12.5f %7s %6s x%.2f\n", jobs[j].w, jobs[j].w,
               p.search_rx, f1, d1, d1 < f1 ? "direct" : "fft", c1.correlator->name, ratio1, fb, db,
               db >= 0 && db < fb ? "direct" : "fft", cb.correlator->name, ratiob);
        fflush(stdout);
    }
    printf("auto picked the faster path in %d of %d cells (%.0f %%); at worst %.2f times the faster path's time\n",
           right, cells, 100.0 * right / cells, worst);

    printf("\ndirect-kernel variants, ms per window over a batch\n");
    const char *variants[] = {
        "",
        "direct_source=1",
        "direct_source=2",
        "direct_source=2,direct_hybrid_tex=1,direct_hybrid_den=4",
        "direct_broadcast=1",
        "direct_broadcast=2",
        "direct_ipi=2",
        "direct_spx=8",
        "direct_spx=2",
        "direct_tx=8,direct_ty=8",
        "direct_rows=16",
        "direct_split=2",
    };
    const struct { int w, r; } vjobs[] = { { 32, 0 }, { 64, 8 }, { 100, 8 } };
    for (size_t j = 0; j < sizeof vjobs / sizeof vjobs[0]; j++) {
        struct kernel_params p;
        kernel_params_defaults(&p, &ctx->dev);
        p.use_double = use_double;
        p.win_w = p.win_h = vjobs[j].w;
        p.search_rx = p.search_ry = vjobs[j].r > 0 ? vjobs[j].r : vjobs[j].w - 1;
        p.fit_size = 5;
        struct kernel_params shown = p;
        correlator_direct.configure(&ctx->dev, &shown, nwin * images);
        printf("%dx%d R=%d (default shape: tx %d ty %d spx %d ipi %d rows %d split %d)\n", vjobs[j].w, vjobs[j].w,
               p.search_rx, shown.direct_tx, shown.direct_ty, shown.direct_spx, shown.direct_ipi, shown.direct_rows,
               shown.direct_split);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            double ms = time_or_nan(ctx, &correlator_direct, &p, variants[v], nwin, nwin * images, nwin * images);
            printf("  %-56s %10.5f\n", variants[v][0] ? variants[v] : "defaults", ms);
            fflush(stdout);
        }
    }
    clx_context_release(ctx);
    /* The temporary cache: kernel binaries and the choices. */
    char command[sizeof cache_dir + 16];
    snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
    if (system(command) != 0)
        fprintf(stderr, "clxcorr-crossover: could not remove %s\n", cache_dir);
    return 0;
}
