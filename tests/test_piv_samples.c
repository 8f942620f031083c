/*
 * test_piv_samples.c - clxcorr-samples --piv: the flows' trajectories (RK4
 * against each flow's closed form, to 1e-9 px), flow.txt read back, the
 * Lamb-Oseen vortex's peak speed where it belongs; then sets written by the
 * generator ($CLXCORR_SAMPLES): truth_field.csv against flow.txt's exact
 * displacement at every window centre (to its 9 decimals), and frame B of
 * a uniform flow by a whole number of pixels equal to frame A moved by it,
 * pixel for pixel (the particles are integrated over each pixel exactly, so
 * a whole-pixel move moves the pixels).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "check.h"
#include "flow.h"

static const struct flow flows[] = {
    { FLOW_UNIFORM, 1.0, 0, 0, 3.3, -1.7, 0, 0, 0, 0 },
    { FLOW_ROTATION, 2.0, 100.5, 90.25, 0, 0, 0.013, 0, 0, 0 },
    { FLOW_SHEAR, 1.5, 100.5, 90.25, 0, 0, 0, -0.02, 0, 0 },
    { FLOW_VORTEX, 1.0, 128.0, 120.0, 0, 0, 0, 0, 24.0, 6.0 },
    { FLOW_VORTEX, 0.5, 0.0, 0.0, 0, 0, 0, 0, 10.0, -9.0 },
};

static void check_trajectories(void)
{
    for (size_t k = 0; k < sizeof flows / sizeof flows[0]; k++) {
        double worst = 0.0;
        for (int i = 0; i <= 40; i++)
            for (int j = 0; j <= 40; j++) {
                double x = -20.0 + 7.3 * i, y = -15.0 + 6.9 * j, x1, y1, x2, y2;
                flow_advect(&flows[k], x, y, &x1, &y1);
                flow_advect_exact(&flows[k], x, y, &x2, &y2);
                worst = fmax(worst, hypot(x1 - x2, y1 - y2));
            }
        CHECK(worst < 1e-9, "%s flow %zu: RK4 off the closed form by %g px", flow_kind_name(flows[k].kind), k, worst);
    }
}

/* The vortex's tangential speed peaks at P, at r = 1.1209 rc. */
static void check_vortex(void)
{
    const struct flow *f = &flows[3];
    double best = 0.0, at = 0.0;
    for (double r = 0.5; r < 100.0; r += 0.001) {
        double u, v;
        flow_velocity(f, f->cx + r, f->cy, &u, &v);
        if (v > best) {
            best = v;
            at = r;
        }
    }
    CHECK(fabs(best - f->peak_speed) < 1e-6 && fabs(at / f->core_radius - 1.12091) < 1e-4,
          "vortex: peak speed %.9g at r = %.4f rc", best, at / f->core_radius);
}

static void check_flow_file(const char *dir)
{
    char path[512], why[256];
    struct flow back;
    for (size_t k = 0; k < sizeof flows / sizeof flows[0]; k++) {
        snprintf(path, sizeof path, "%s/flow-%zu.txt", dir, k);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot write %s", path);
        if (!f)
            return;
        flow_write(f, &flows[k]);
        fclose(f);
        int status = flow_read(path, &back, why, sizeof why);
        double x1, y1, x2, y2;
        flow_advect_exact(&flows[k], 37.0, 11.0, &x1, &y1);
        flow_advect_exact(&back, 37.0, 11.0, &x2, &y2);
        CHECK(status == 0 && back.kind == flows[k].kind && x1 == x2 && y1 == y2, "flow.txt %zu read back: %s", k,
              status == 0 ? "another flow" : why);
    }
}

/* Every row of dir/truth_field.csv against dir/flow.txt's closed form. */
static void check_truth(const char *dir, const char *what)
{
    char path[512], why[256], line[256];
    struct flow f;
    snprintf(path, sizeof path, "%s/flow.txt", dir);
    CHECK(flow_read(path, &f, why, sizeof why) == 0, "%s: %s", what, why);
    snprintf(path, sizeof path, "%s/truth_field.csv", dir);
    FILE *in = fopen(path, "r");
    CHECK(in != NULL, "%s: no truth_field.csv", what);
    if (!in)
        return;
    int rows = 0;
    double worst = 0.0;
    while (fgets(line, sizeof line, in)) {
        double x, y, dx, dy, x1, y1;
        int region;
        if (sscanf(line, "frameB_%*d.tif,%d,%lf,%lf,%lf,%lf", &region, &x, &y, &dx, &dy) != 5)
            continue;
        flow_advect_exact(&f, x, y, &x1, &y1);
        worst = fmax(worst, hypot(x1 - x - dx, y1 - y - dy));
        rows++;
    }
    fclose(in);
    CHECK(rows == 2 * 49 && worst < 1e-8, "%s: %d rows, truth off the exact displacement by %g px", what, rows, worst);
}

static uint16_t *tiff_read(const char *path, int *w, int *h)
{
    TIFF *t = TIFFOpen(path, "r");
    uint32_t width = 0, height = 0;
    if (!t)
        return NULL;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &height);
    uint16_t *pixels = malloc(sizeof *pixels * width * height);
    for (uint32_t j = 0; pixels && j < height; j++)
        TIFFReadScanline(t, pixels + (size_t)j * width, j, 0);
    TIFFClose(t);
    *w = (int)width;
    *h = (int)height;
    return pixels;
}

/* Frame B of a flow of (3, -2) px: frame A moved by it, pixel for pixel
 * (within one count: a sum that falls on a rounding tie). */
static void check_whole_pixel_move(const char *dir)
{
    char a_path[512], b_path[512];
    int w, h, w2, h2, worst = 0;
    snprintf(a_path, sizeof a_path, "%s/frameA_0001.tif", dir);
    snprintf(b_path, sizeof b_path, "%s/frameB_0001.tif", dir);
    uint16_t *a = tiff_read(a_path, &w, &h), *b = tiff_read(b_path, &w2, &h2);
    CHECK(a && b && w == w2 && h == h2, "cannot read %s and %s", a_path, b_path);
    for (int j = 2; a && b && j < h; j++)
        for (int i = 0; i + 3 < w; i++) {
            int d = abs((int)b[(size_t)(j - 2) * w + i + 3] - (int)a[(size_t)j * w + i]);
            worst = d > worst ? d : worst;
        }
    CHECK(worst <= 1, "frame B is not frame A moved by (3, -2): a pixel differs by %d counts", worst);
    free(a);
    free(b);
}

/* Runs the generator; 0 when it succeeded. */
static int generate(const char *samples, const char *dir, const char *args)
{
    char command[2048];
    snprintf(command, sizeof command, "'%s' --out '%s' --size 128x128 --count 2 --grid-step 16 --window 32x32 %s",
             samples, dir, args);
    return system(command);
}

int main(void)
{
    const char *samples = getenv("CLXCORR_SAMPLES");
    char dir[] = "/tmp/clxcorr-piv-XXXXXX", sub[512];
    check_trajectories();
    check_vortex();
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 99;
    }
    check_flow_file(dir);
    static const char *const sets[] = { "--piv uniform", "--piv rotation --omega 0.02",
                                        "--piv shear --shear-rate -0.03 --centre 40,70",
                                        "--piv vortex --core-radius 20 --peak-speed 5 --dt 0.7" };
    for (size_t k = 0; samples && k < sizeof sets / sizeof sets[0]; k++) {
        snprintf(sub, sizeof sub, "%s/set%zu", dir, k);
        CHECK(generate(samples, sub, sets[k]) == 0, "clxcorr-samples %s failed", sets[k]);
        check_truth(sub, sets[k]);
    }
    if (samples) {
        snprintf(sub, sizeof sub, "%s/whole", dir);
        CHECK(generate(samples, sub, "--piv uniform --velocity 3,-2") == 0, "clxcorr-samples --velocity 3,-2 failed");
        check_whole_pixel_move(sub);
    } else
        printf("CLXCORR_SAMPLES not set: the generator's files not checked\n");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    if (test_failures)
        return 1;
    printf("ok: trajectories, flow.txt, and the generator's truth and frames\n");
    return 0;
}
