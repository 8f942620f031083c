/*
 * test_plot.c - the pictures of `clxcorr plot`, without a device:
 *
 *   - round numbers for scales and tick labels, and the scale factor of
 *     small or large ticks ("×10⁻³");
 *   - reading results files: columns in any order, quoted names, CRLF,
 *     missing rows, TSV and JSON lines, and every error naming the file
 *     and line;
 *   - the displacement picture read back: its size as quiver.h states it,
 *     the arrows where the windows are, in the colour of their magnitude,
 *     the longest as long as the windows' spacing, grey elsewhere, flagged
 *     windows grey, the colour bar's ends, the scale arrow, text drawn; a
 *     dense field's arrows thinned; the mean over images, flagged rows
 *     left out;
 *   - the series picture's size, and write errors;
 *   - text: drawn at all, upwards too, whatever bytes a name holds;
 *   - scans: results files of scan points read into a grid (rows in any
 *     order, a missing point, nan values and flags left out, one window,
 *     positions or none, one row per point), several columns at once, the
 *     HDF5 files of --format h5 (as the scan's grid and as a list of
 *     images), and every error; the map's colour scale and size; the map
 *     read back: each cell in its value's colour, the missing point
 *     neutral, the bar's ends and triangles, grain boundaries;
 *   - the tensor figure read back: each panel's cells on its row's
 *     scale, each row's bar, the boundaries; angles in degrees or radians.
 *
 * Anti-aliasing makes the pixels of edges and text a matter of the drawing
 * library and the font: what is checked is what a reader sees, colours
 * inside cells, shafts and bars, and whether there is ink where text goes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image.h>
#pragma GCC diagnostic pop

#ifdef HAVE_HDF5
#include <hdf5.h>
#endif

#include "check.h"
#include "plot/colour_bar.h"
#include "plot/figure.h"
#include "plot/map_plot.h"
#include "plot/map_scale.h"
#include "plot/plot_colours.h"
#include "plot/plot_numbers.h"
#include "plot/quiver.h"
#include "plot/record_reader.h"
#include "plot/results_csv.h"
#include "plot/scan_grid.h"
#include "plot/scan_map.h"
#include "plot/series_plot.h"
#include "plot/tensor_plot.h"
#include "plot/value_layer.h"

static char dir[] = "/tmp/clxcorr-test-plot.XXXXXX";

static const char *temp_path(const char *name)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

static const char *write_file(const char *name, const char *text)
{
    const char *path = temp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(99);
    }
    return path;
}

/* ---- numbers ------------------------------------------------------------- */

static void check_numbers(void)
{
    static const struct {
        double x, ceil, floor;
    } cases[] = {
        { 1.43, 1.5, 1.0 }, { 7.2, 8, 6 }, { 0.31, 0.4, 0.3 }, { 2, 2, 2 }, { 99, 100, 80 }, { 0.0123, 0.015, 0.01 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(fabs(nice_ceil(cases[i].x) - cases[i].ceil) < 1e-12, "nice_ceil(%g) = %g, want %g", cases[i].x,
              nice_ceil(cases[i].x), cases[i].ceil);
        CHECK(fabs(nice_floor(cases[i].x) - cases[i].floor) < 1e-12, "nice_floor(%g) = %g, want %g", cases[i].x,
              nice_floor(cases[i].x), cases[i].floor);
    }
    CHECK(nice_ceil(0) == 1 && nice_floor(-3) == 1 && nice_ceil(NAN) == 1, "degenerate inputs give 1");
    CHECK(nice_step(10, 5) == 2 && nice_step(1.43, 4) == 0.5 && fabs(nice_step(0.9, 4) - 0.2) < 1e-12 &&
              nice_step(23, 8) == 2,
          "nice_step: %g %g %g %g", nice_step(10, 5), nice_step(1.43, 4), nice_step(0.9, 4), nice_step(23, 8));

    char text[32];
    format_number(text, sizeof text, 0.75, 0.25);
    CHECK(strcmp(text, "0.75") == 0, "0.75 by 0.25: %s", text);
    format_number(text, sizeof text, 1.0, 0.5);
    CHECK(strcmp(text, "1.0") == 0, "1 by 0.5: %s", text);
    format_number(text, sizeof text, 40, 20);
    CHECK(strcmp(text, "40") == 0, "40 by 20: %s", text);
    format_number(text, sizeof text, -1e-17, 0.2);
    CHECK(strcmp(text, "0.0") == 0, "no -0: %s", text);
    format_tick(text, sizeof text, -0.5, 0.5);
    CHECK(strcmp(text, "\xe2\x88\x92" "0.5") == 0, "a tick label has a true minus: %s", text);

    /* Ticks below 0.01 or from 10^4 read in a power of ten: -0.0010 is -1.0
     * times 10^-3; 0.02 and 500 stay as they are. */
    CHECK(tick_exponent(0.001) == -3 && tick_exponent(-0.0015) == -3 && tick_exponent(0.008) == -3 &&
              tick_exponent(0.0001) == -4 && tick_exponent(0.02) == 0 && tick_exponent(500) == 0 &&
              tick_exponent(25000) == 4 && tick_exponent(0) == 0 && tick_exponent(NAN) == 0,
          "tick_exponent: %d %d %d %d %d", tick_exponent(0.001), tick_exponent(0.008), tick_exponent(0.0001),
          tick_exponent(0.02), tick_exponent(25000));
    format_power(text, sizeof text, -3);
    CHECK(strcmp(text, "\xc3\x97" "10\xe2\x81\xbb\xc2\xb3") == 0, "x10^-3: '%s'", text);
    format_power(text, sizeof text, 12);
    CHECK(strcmp(text, "\xc3\x97" "10\xc2\xb9\xc2\xb2") == 0, "x10^12: '%s'", text);
    format_power(text, sizeof text, 0);
    CHECK(text[0] == '\0', "no power: '%s'", text);

    /* A bar of a strain of +-1.2e-3: ticks 1.0, 0.5, ... labelled with
     * the factor; a rotation in degrees has its unit only. */
    struct colour_bar bar;
    struct map_scale s = { 1, -1.2e-3, 1.2e-3, 0, 0, 0 };
    colour_bar_plan(&bar, &s, "e11", "", 300);
    CHECK(bar.exponent == -3 && strcmp(bar.label, "e11 (\xc3\x97" "10\xe2\x81\xbb\xc2\xb3)") == 0 &&
              fabs(bar.step - 5e-4) < 1e-12 && bar.first == -2 && bar.last == 2,
          "e11's bar: '%s', step %g, ticks %ld to %ld", bar.label, bar.step, bar.first, bar.last);
    struct map_scale degrees = { 1, -0.36, 0.36, 0, 0, 0 };
    colour_bar_plan(&bar, &degrees, "w3", "\xc2\xb0", 300);
    CHECK(bar.exponent == 0 && strcmp(bar.label, "w3 (\xc2\xb0)") == 0, "w3's bar: '%s'", bar.label);
    colour_bar_plan(&bar, &s, "w3", "rad", 300);
    CHECK(strcmp(bar.label, "w3 (\xc3\x97" "10\xe2\x81\xbb\xc2\xb3 rad)") == 0, "w3 in rad: '%s'", bar.label);
}

/* ---- results files ------------------------------------------------------- */

static void check_results_good(void)
{
    struct results_table t;
    clx_message msg;
    /* Columns in another order, a quoted name with a comma and a quote,
     * CRLF line ends, a blank line, window 1 missing for the second image. */
    const char *path = write_file("good.csv",
                                  "flags,dx,dy,image,region,x,y,peak\r\n"
                                  "0,0.5,-0.25,\"a,\"\"1\"\".tif\",0,10.5,20.5,7\r\n"
                                  "2,1.5,2.0,\"a,\"\"1\"\".tif\",1,30.5,20.5,7\r\n"
                                  "\r\n"
                                  "0,0.75,-0.5,b.tif,0,10.5,20.5,7\r\n");
    int status = results_read(path, &t, &msg);
    CHECK(status == CLX_OK, "good.csv: %s", msg.text);
    if (status != CLX_OK)
        return;
    CHECK(t.images == 2 && t.windows == 2, "%zu images, %zu windows", t.images, t.windows);
    CHECK(strcmp(t.image_names[0], "a,\"1\".tif") == 0 && strcmp(t.image_names[1], "b.tif") == 0,
          "names '%s' '%s'", t.image_names[0], t.image_names[1]);
    CHECK(t.x[0] == 10.5 && t.y[0] == 20.5 && t.x[1] == 30.5 && t.y[1] == 20.5, "centres");
    CHECK(t.dx[0] == 0.5 && t.dy[0] == -0.25 && t.dx[1] == 1.5 && t.flags[1] == 2 && t.dx[2] == 0.75 &&
              t.dy[2] == -0.5,
          "values");
    CHECK(isnan(t.dx[3]) && isnan(t.dy[3]), "window 1 of b.tif has no row: NaN");
    results_free(&t);
}

/* One more column for --colour: read by name (nan kept), speed made from
 * dx, dy when the file has none, a missing one refused by name. */
static void check_results_column(void)
{
    struct results_table t;
    clx_message msg;
    const char *path = write_file("column.csv", "image,region,x,y,dx,dy,flags,exx\n"
                                                "a.tif,0,10.5,20.5,3,4,0,0.001\n"
                                                "a.tif,1,30.5,20.5,nan,nan,128,nan\n");
    int status = results_read_column(path, "exx", &t, &msg);
    CHECK(status == CLX_OK && t.value[0] == 0.001 && isnan(t.value[1]), "exx: %s", msg.text);
    if (status == CLX_OK)
        results_free(&t);
    status = results_read_column(path, "speed", &t, &msg);
    CHECK(status == CLX_OK && t.value[0] == 5 && isnan(t.value[1]), "speed: %s", msg.text);
    if (status == CLX_OK)
        results_free(&t);
    status = results_read_column(path, "zncc", &t, &msg);
    CHECK(status == CLX_ERR_FORMAT && strstr(msg.text, "no 'zncc' column to colour by"), "zncc: %s", msg.text);

    /* peak_ratio as offsets writes it: inf (no second peak), -inf, nan; a
     * bad value is named by its column, not called one. */
    path = write_file("ratio.csv", "image,region,x,y,dx,dy,flags,peak_ratio\n"
                                   "a.tif,0,10.5,20.5,3,4,0,inf\n"
                                   "a.tif,1,30.5,20.5,3,4,0,-inf\n"
                                   "a.tif,2,50.5,20.5,3,4,0,nan\n"
                                   "a.tif,3,70.5,20.5,3,4,0,2.5\n");
    status = results_read_column(path, "peak_ratio", &t, &msg);
    CHECK(status == CLX_OK && isinf(t.value[0]) && t.value[0] > 0 && isinf(t.value[1]) && t.value[1] < 0 &&
              isnan(t.value[2]) && t.value[3] == 2.5,
          "peak_ratio inf, -inf, nan, 2.5: %s", msg.text);
    if (status == CLX_OK)
        results_free(&t);
    path = write_file("bad-ratio.csv", "image,region,x,y,dx,dy,flags,peak_ratio\n"
                                       "a.tif,0,10.5,20.5,3,4,0,1.5\n"
                                       "a.tif,1,30.5,20.5,3,4,0,many\n");
    char want[1024];
    snprintf(want, sizeof want, "%s:3: peak_ratio 'many' is not a number", path);
    status = results_read_column(path, "peak_ratio", &t, &msg);
    CHECK(status == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0, "bad peak_ratio: '%s', want '%s'", msg.text, want);
    if (status == CLX_OK)
        results_free(&t);
}

/* Each bad file fails with its status and exactly this message. */
static void check_results_bad(void)
{
    static const struct {
        const char *name, *text;
        int status;
        const char *message;   /* %s: the path */
    } cases[] = {
        { "empty.csv", "", CLX_ERR_FORMAT, "%s: empty; expected a header line (image,region,x,y,dx,dy,...)" },
        { "no-dx.csv", "image,region,x,y,dy\na,0,1,1,0\n", CLX_ERR_FORMAT,
          "%s:1: no 'dx' column; the header must name image, region, x, y, dx and dy (clxcorr offsets' CSV)" },
        { "header-only.csv", "image,region,x,y,dx,dy\n", CLX_ERR_FORMAT, "%s: no rows after the header" },
        { "short-row.csv", "image,region,x,y,dx,dy\na,0,1,1,0,0\na,1,1\n", CLX_ERR_FORMAT,
          "%s:3: 3 fields, but the header has 6" },
        { "bad-dx.csv", "image,region,x,y,dx,dy\na,0,1,1,0,0\n\na,1,5,1,abc,0\n", CLX_ERR_FORMAT,
          "%s:4: dx 'abc' is not a number" },
        { "bad-region.csv", "image,region,x,y,dx,dy\na,-1,1,1,0,0\n", CLX_ERR_FORMAT,
          "%s:2: region '-1' is not a window index (0 to 999999)" },
        { "bad-flags.csv", "image,region,x,y,dx,dy,flags\na,0,1,1,0,0,x\n", CLX_ERR_FORMAT,
          "%s:2: flags 'x' is not a whole number >= 0" },
        { "inf-x.csv", "image,region,x,y,dx,dy\na,0,inf,1,0,0\n", CLX_ERR_FORMAT, "%s:2: x 'inf' is not a number" },
        { "twice.csv", "image,region,x,y,dx,dy\na,0,1,1,0,0\na,0,1,1,0,0\n", CLX_ERR_FORMAT,
          "%s:3: window 0 of image a again (first on line 2)" },
        { "moved.csv", "image,region,x,y,dx,dy\na,0,1,1,0,0\nb,0,2,1,0,0\n", CLX_ERR_FORMAT,
          "%s:3: window 0 is centred at (2, 1) here but at (1, 1) on line 2" },
        { "open-quote.csv", "image,region,x,y,dx,dy\n\"a,0,1,1,0,0\n", CLX_ERR_FORMAT,
          "%s:2: a quoted field is not closed" },
        { "after-quote.csv", "image,region,x,y,dx,dy\n\"a\"b,0,1,1,0,0\n", CLX_ERR_FORMAT,
          "%s:2: text after the closing quote of field 1" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct results_table t;
        clx_message msg;
        char want[1024];
        const char *path = write_file(cases[i].name, cases[i].text);
        int status = results_read(path, &t, &msg);
        snprintf(want, sizeof want, cases[i].message, path);
        CHECK(status == cases[i].status && strcmp(msg.text, want) == 0, "%s: status %d, message '%s', want '%s'",
              cases[i].name, status, msg.text, want);
        if (status == CLX_OK)
            results_free(&t);
    }
    struct results_table t;
    clx_message msg;
    const char *missing = temp_path("missing.csv");
    char want[1024];
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    CHECK(results_read(missing, &t, &msg) == CLX_ERR_IO && strcmp(msg.text, want) == 0, "missing file: %s",
          msg.text);
}

/* Reads the file's records to the end: CLX_OK, or the first error. */
static int read_every_record(const char *path, clx_message *msg)
{
    struct record_reader r;
    long line;
    int status = record_reader_open(&r, path, msg);
    if (status != CLX_OK)
        return status;
    while ((status = record_read(&r, &line, msg)) == 1)
        ;
    record_reader_close(&r);
    return status;
}

/* TSV and JSON lines read as CSV does: what `offsets --format` writes. */
static void check_results_forms(void)
{
    struct results_table t;
    clx_message msg;
    /* TSV: the writer's escapes in a name, CRLF, a blank line. */
    const char *tsv = write_file("forms.tsv", "image\tregion\tx\ty\tdx\tdy\r\n"
                                              "a\\tb\\\\.tif\t0\t1.5\t2.5\t0.5\t-0.25\r\n\r\n"
                                              "a\\tb\\\\.tif\t1\t7.5\t2.5\tnan\t1\r\n");
    int status = results_read(tsv, &t, &msg);
    CHECK(status == CLX_OK, "forms.tsv: %s", msg.text);
    if (status == CLX_OK) {
        CHECK(t.images == 1 && t.windows == 2 && strcmp(t.image_names[0], "a\tb\\.tif") == 0 && t.x[1] == 7.5 &&
                  t.dx[0] == 0.5 && t.dy[0] == -0.25 && isnan(t.dx[1]) && t.dy[1] == 1,
              "forms.tsv: %zu images, name '%s'", t.images, t.image_names[0]);
        results_free(&t);
    }
    /* JSON lines: keys in another order on each line, null, escapes, a
     * surrogate pair, a leading blank line. */
    const char *jsonl = write_file("forms.jsonl",
                                   "\n{\"image\": \"\\u00b5 \\\"q\\\" \\ud83d\\ude00\", \"region\": 0, \"x\": 1.5, "
                                   "\"y\": 2.5, \"dx\": 0.5, \"dy\": -0.25, \"flags\": 0}\n"
                                   "{\"flags\":8,\"dy\":null,\"dx\":1e-1,\"y\":2.5,\"x\":7.5,\"region\":1,"
                                   "\"image\":\"\\u00b5 \\\"q\\\" \\ud83d\\ude00\"}\n");
    status = results_read(jsonl, &t, &msg);
    CHECK(status == CLX_OK, "forms.jsonl: %s", msg.text);
    if (status == CLX_OK) {
        CHECK(t.images == 1 && t.windows == 2 && strcmp(t.image_names[0], "\xc2\xb5 \"q\" \xf0\x9f\x98\x80") == 0 &&
                  t.dx[0] == 0.5 && fabs(t.dx[1] - 0.1) < 1e-15 && isnan(t.dy[1]) && t.flags[1] == 8,
              "forms.jsonl: %zu images, name '%s'", t.images, t.image_names[0]);
        results_free(&t);
    }
    /* A name that is not UTF-8, as offsets writes it: \udcXX is the byte
     * XX again; another lone surrogate is U+FFFD. */
    const char *odd = write_file("odd.jsonl", "{\"image\":\"a\\udcff\\u00e9\\udc80\\ud800.tif\",\"region\":0,"
                                              "\"x\":1.5,\"y\":2.5,\"dx\":0.5,\"dy\":-0.25}\n");
    status = results_read(odd, &t, &msg);
    CHECK(status == CLX_OK, "odd.jsonl: %s", msg.text);
    if (status == CLX_OK) {
        CHECK(strcmp(t.image_names[0], "a\xff\xc3\xa9\x80\xef\xbf\xbd.tif") == 0, "odd.jsonl: name '%s'",
              t.image_names[0]);
        results_free(&t);
    }
    static const struct {
        const char *name, *text, *message;   /* %s: the path */
    } bad[] = {
        { "missing-key.jsonl", "{\"a\": 1, \"b\": 2}\n{\"a\": 1}\n",
          "%s:2: no key 'b' (the first line's object has it)" },
        { "extra-key.jsonl", "{\"a\": 1}\n{\"a\": 1, \"c\": 2}\n", "%s:2: key 'c' is not in the first line's object" },
        { "twice.jsonl", "{\"a\": 1, \"a\": 2}\n", "%s:1: key 'a' twice" },
        { "nested.jsonl", "{\"a\": [1]}\n", "%s:1: not a JSON object of results: a nested object or array at column 7" },
        { "open.jsonl", "{\"a\": \"x}\n", "%s:1: not a JSON object of results: a string is not closed at column 10" },
        { "not-object.jsonl", "{\"a\": 1}\n[1]\n", "%s:2: not a JSON object of results: expected '{' at column 1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[1024];
        const char *path = write_file(bad[i].name, bad[i].text);
        status = read_every_record(path, &msg);
        snprintf(want, sizeof want, bad[i].message, path);
        CHECK(status == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0, "%s: status %d, '%s', want '%s'", bad[i].name,
              status, msg.text, want);
    }
}

/* ---- the pictures -------------------------------------------------------- */

struct picture {
    int w, h;
    unsigned char *rgb;
};

static int read_png(const char *path, struct picture *p)
{
    int channels;
    p->rgb = stbi_load(path, &p->w, &p->h, &channels, 3);
    return p->rgb ? 0 : -1;
}

static const unsigned char *pixel(const struct picture *p, int x, int y)
{
    return p->rgb + 3 * ((size_t)y * p->w + x);
}

static int same_colour(const unsigned char *px, struct rgb c, int tolerance)
{
    return abs(px[0] - c.r) <= tolerance && abs(px[1] - c.g) <= tolerance && abs(px[2] - c.b) <= tolerance;
}

/* The quiver checks' reference: 200 x 200, a horizontal ramp. */
static clx_image ramp_reference(void)
{
    enum { W = 200, H = 200 };
    static unsigned short pixels[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            pixels[y * W + x] = (unsigned short)(1000 + 100 * x);
    return (clx_image){ W, H, CLX_PIXEL_U16, pixels };
}

static int is_grey(const unsigned char *px)
{
    return px[0] == px[1] && px[1] == px[2];
}

/* Whether the rectangle holds ink: text drawn there, dark on white. */
static int has_ink(const struct picture *p, int x0, int y0, int w, int h)
{
    int dark = 0;
    for (int y = y0; y < y0 + h && y < p->h; y++)
        for (int x = x0; x < x0 + w && x < p->w; x++)
            dark += pixel(p, x, y)[0] < 100 && pixel(p, x, y)[1] < 100 && pixel(p, x, y)[2] < 100;
    return dark >= 10;
}

/* Whether a pixel of the rectangle has colour c. */
static int has_colour(const struct picture *p, int x0, int y0, int w, int h, struct rgb c, int tolerance)
{
    for (int y = y0; y < y0 + h && y < p->h; y++)
        for (int x = x0; x < x0 + w && x < p->w; x++)
            if (same_colour(pixel(p, x, y), c, tolerance))
                return 1;
    return 0;
}

/*
 * A 200 x 200 reference (a horizontal ramp) and three windows in a row, 50
 * px apart: offsets of 2 and 1 px along x, and a flagged one of 40 px down.
 * The image part is 640 x 640 (the smallest default width; scale 3.2).
 */
static void check_quiver(void)
{
    clx_image ref = ramp_reference();
    struct quiver_arrow arrows[3] = {
        { 49.5, 49.5, 2.0, 0.0, 0 },
        { 149.5, 49.5, 1.0, 0.0, 0 },
        { 99.5, 49.5, 0.0, 40.0, CLX_FLAG_OUTLIER },
    };
    struct quiver_options opt = { 0, "test picture", NULL, NULL, 0 };
    clx_message msg;
    const char *path = temp_path("quiver.png");
    int status = quiver_write_png(path, &ref, arrows, 3, &opt, &msg);
    CHECK(status == CLX_OK, "quiver_write_png: %s", msg.text);

    struct picture p;
    if (status != CLX_OK || read_png(path, &p) != 0) {
        CHECK(0, "cannot read %s back", path);
        return;
    }
    /* The size quiver.h states: the image part 640 x 640 (640 is the
     * smallest default width). */
    int want_w = 640 + 3 * QUIVER_MARGIN + QUIVER_LEGEND_WIDTH;
    int want_h = 640 + 2 * QUIVER_MARGIN + QUIVER_TITLE_HEIGHT + QUIVER_CAPTION_HEIGHT;
    CHECK(p.w == want_w && p.h == want_h, "picture %dx%d, want %dx%d", p.w, p.h, want_w, want_h);
    if (p.w != want_w || p.h != want_h) {
        stbi_image_free(p.rgb);
        return;
    }
    double scale = 3.2;
    int ox = QUIVER_MARGIN, oy = QUIVER_MARGIN + QUIVER_TITLE_HEIGHT;
    /* Window spacing 50 px (160 in the picture), the longest trusted
     * offset 2 px: the longest arrow is 160 px (80 per px of offset), the
     * other 80; the colour scale tops out at 2 (steps of 0.5). */
    double y0 = oy + (49.5 + 0.5) * scale;
    double x_first = ox + (49.5 + 0.5) * scale, x_second = ox + (149.5 + 0.5) * scale;
    struct rgb full = colour_scale(1.0), half = colour_scale(0.5);
    /* In the middle of each shaft: the arrow's own colour. */
    const unsigned char *shaft = pixel(&p, (int)(x_first + 60), (int)y0);
    CHECK(same_colour(shaft, full, 2), "first arrow's shaft: %d,%d,%d", shaft[0], shaft[1], shaft[2]);
    shaft = pixel(&p, (int)(x_second + 30), (int)y0);
    CHECK(same_colour(shaft, half, 2), "second arrow's shaft: %d,%d,%d", shaft[0], shaft[1], shaft[2]);
    /* The arrows' ends: the first's head still its colour 6 px before its
     * tip, 160 px on; the grey reference (r = g = b) 8 px beyond the tips,
     * and above the first shaft. */
    CHECK(same_colour(pixel(&p, (int)(x_first + 154), (int)y0), full, 2) &&
              same_colour(pixel(&p, (int)(x_second + 74), (int)y0), half, 2),
          "the arrows reach 160 and 80 px: the longest as long as the spacing");
    const unsigned char *beyond = pixel(&p, (int)(x_second + 88), (int)y0);
    const unsigned char *above = pixel(&p, (int)(x_first + 60), (int)y0 - 12);
    CHECK(is_grey(beyond) && is_grey(above), "grey beyond the tip (%d,%d,%d) and above the shaft (%d,%d,%d)",
          beyond[0], beyond[1], beyond[2], above[0], above[1], above[2]);
    /* The reference's ramp: darker on the left, lighter on the right. */
    CHECK(pixel(&p, ox + 5, oy + 5)[0] < pixel(&p, ox + 630, oy + 5)[0], "the ramp runs left to right");
    /* The flagged arrow points down, grey, capped at the longest trusted
     * arrow's 160 px (not 40 * 80). */
    double xf = ox + (99.5 + 0.5) * scale;
    const unsigned char *flagged = pixel(&p, (int)xf, (int)(y0 + 60));
    CHECK(same_colour(flagged, (struct rgb){ 200, 200, 200 }, 2), "the flagged arrow is grey: %d,%d,%d", flagged[0],
          flagged[1], flagged[2]);
    const unsigned char *past = pixel(&p, (int)xf, (int)(y0 + 172));
    CHECK(is_grey(past) && past[0] != 200, "the flagged arrow ends at 160 px: %d", past[0]);
    /* The legend: the colour bar spans the scale, and under it the scale
     * arrow of 1 px (80 px long) in its colour on the bar. */
    int legend_x = ox + 640 + QUIVER_MARGIN + 8, bar_mid = legend_x + COLOUR_BAR_W / 2;
    int found_top = 0, found_bottom = 0, bar_bottom = oy;
    for (int y = oy; y < oy + 640; y++) {
        found_top |= same_colour(pixel(&p, bar_mid, y), colour_scale(1), 3);
        if (same_colour(pixel(&p, bar_mid, y), colour_scale(0), 3)) {
            found_bottom = 1;
            bar_bottom = y;
        }
    }
    CHECK(found_top && found_bottom, "the colour bar spans the scale (top %d, bottom %d)", found_top, found_bottom);
    CHECK(has_colour(&p, legend_x + 20, bar_bottom + 8, 40, 60, half, 2), "the scale arrow under the bar");
    /* Text: the title, the bar's name, the caption. */
    CHECK(has_ink(&p, ox, QUIVER_MARGIN, 200, QUIVER_TITLE_HEIGHT - 8) && has_ink(&p, legend_x, oy, 100, 16) &&
              has_ink(&p, ox, oy + 640 + 4, 300, QUIVER_CAPTION_HEIGHT - 8),
          "text drawn: title, the bar's name, the caption");
    stbi_image_free(p.rgb);

    /* A chosen width, and a tall reference limited to 1600 px. */
    opt.width = 800;
    CHECK(quiver_write_png(path, &ref, arrows, 3, &opt, &msg) == CLX_OK && read_png(path, &p) == 0 &&
              p.w == 800 + 3 * QUIVER_MARGIN + QUIVER_LEGEND_WIDTH &&
              p.h == 800 + 2 * QUIVER_MARGIN + QUIVER_TITLE_HEIGHT + QUIVER_CAPTION_HEIGHT,
          "--width 800: %dx%d %s", p.w, p.h, msg.text);
    stbi_image_free(p.rgb);
    clx_image tall = { 10, 4000, CLX_PIXEL_U16, calloc(40000, 2) };
    opt.width = 0;
    CHECK(quiver_write_png(path, &tall, arrows, 0, &opt, &msg) == CLX_OK && read_png(path, &p) == 0 &&
              p.h == 1600 + 2 * QUIVER_MARGIN + QUIVER_TITLE_HEIGHT + QUIVER_CAPTION_HEIGHT &&
              p.w == 4 + 3 * QUIVER_MARGIN + QUIVER_LEGEND_WIDTH,
          "a 10 x 4000 reference: %dx%d %s", p.w, p.h, msg.text);
    stbi_image_free(p.rgb);
    free(tall.pixels);

    /* Errors: a bad width, an empty reference, a directory that is not there. */
    opt.width = 20;
    CHECK(quiver_write_png(path, &ref, arrows, 3, &opt, &msg) == CLX_ERR_ARGUMENT &&
              strcmp(msg.text, "picture width 20: from 64 to 8192 pixels") == 0,
          "width 20: %s", msg.text);
    clx_image empty = { 0 };
    CHECK(quiver_write_png(path, &empty, arrows, 3, NULL, &msg) == CLX_ERR_ARGUMENT, "no reference");
    const char *nowhere = temp_path("no-such-dir/q.png");
    char want[1024];
    snprintf(want, sizeof want, "cannot write %s: the directory %.*s does not exist", nowhere,
             (int)(strlen(nowhere) - strlen("/q.png")), nowhere);
    CHECK(quiver_write_png(nowhere, &ref, arrows, 3, NULL, &msg) == CLX_ERR_IO && strcmp(msg.text, want) == 0,
          "unwritable: %s", msg.text);
}

/*
 * Arrows scaled to the grid, as matplotlib's quiver does: a 5 x 5 grid 40
 * px apart (128 in the picture) of offsets of 0.01 px, one of 0.03: the
 * longest arrow is 128 px, whatever the offsets' size. And a dense grid of
 * 61 x 61 windows 3 px apart (9.6 in the picture): only every 2nd window's
 * arrow along each axis (19.2 px apart), unless --arrow-step 1.
 */
static void check_quiver_scaling(void)
{
    clx_image ref = ramp_reference();
    struct quiver_arrow sparse[25], dense[61 * 61];
    for (int k = 0; k < 25; k++)
        sparse[k] = (struct quiver_arrow){ 19.5 + 40 * (k % 5), 19.5 + 40 * (k / 5), k == 12 ? 0.03 : 0.01, 0, 0 };
    struct quiver_options opt = { 0, "grid", NULL, NULL, 0 };
    clx_message msg;
    struct picture p;
    const char *path = temp_path("scaling.png");
    if (quiver_write_png(path, &ref, sparse, 25, &opt, &msg) != CLX_OK || read_png(path, &p) != 0) {
        CHECK(0, "the sparse grid: %s", msg.text);
        return;
    }
    int ox = QUIVER_MARGIN, oy = QUIVER_MARGIN + QUIVER_TITLE_HEIGHT;
    double x0 = ox + 99.5 * 3.2 + 1.6, y0 = oy + 99.5 * 3.2 + 1.6;
    /* Measured along the middle window's shaft: its last pixel of the
     * arrow's colour. */
    int end = 0;
    for (int x = (int)x0; x < (int)x0 + 200; x++)
        if (same_colour(pixel(&p, x, (int)y0), colour_scale(1), 3))
            end = x;
    CHECK(abs(end - (int)(x0 + 128)) <= 3, "the longest arrow is one spacing (128 px) long: %d px",
          end - (int)x0);
    stbi_image_free(p.rgb);

    for (int k = 0; k < 61 * 61; k++)
        dense[k] = (struct quiver_arrow){ 9.5 + 3 * (k % 61), 9.5 + 3 * (k / 61), 0.5, 0.0, 0 };
    for (int step = 0; step <= 1; step++) {
        opt.arrow_step = step;
        if (quiver_write_png(path, &ref, dense, 61 * 61, &opt, &msg) != CLX_OK || read_png(path, &p) != 0) {
            CHECK(0, "the dense grid, step %d: %s", step, msg.text);
            return;
        }
        /* Just right of window (1, 1)'s centre and of (2, 2)'s. */
        const unsigned char *odd = pixel(&p, (int)(ox + 13 * 3.2) + 3, (int)(oy + 13 * 3.2));
        const unsigned char *even = pixel(&p, (int)(ox + 16 * 3.2) + 3, (int)(oy + 16 * 3.2));
        CHECK(!is_grey(even), "step %d: window (2, 2)'s arrow is drawn", step);
        CHECK(step == 0 ? is_grey(odd) : !is_grey(odd), "step %d: window (1, 1)'s arrow is %s", step,
              step == 0 ? "not drawn (every 2nd window's)" : "drawn");
        stbi_image_free(p.rgb);
    }
}

/*
 * --colour: check_quiver's picture with values 1, 3 and 2 (zncc, a
 * sequential scale from 1 to 3): each window's cell is its colour laid at
 * VALUE_ALPHA over the picture without colours, the arrows white.
 */
static void check_quiver_colours(void)
{
    clx_image ref = ramp_reference();
    struct quiver_arrow arrows[3] = {
        { 49.5, 49.5, 2.0, 0.0, 0 },
        { 149.5, 49.5, 1.0, 0.0, 0 },
        { 99.5, 49.5, 0.0, 1.0, 0 },
    };
    double values[3] = { 1.0, 3.0, 2.0 };
    struct quiver_options plain = { 0, "plain", NULL, NULL, 0 }, coloured = { 0, "coloured", values, "zncc", 0 };
    clx_message msg;
    struct picture a, b;
    const char *path_a = temp_path("plain.png");
    CHECK(quiver_write_png(path_a, &ref, arrows, 3, &plain, &msg) == CLX_OK && read_png(path_a, &a) == 0,
          "plain: %s", msg.text);
    const char *path_b = temp_path("coloured.png");
    CHECK(quiver_write_png(path_b, &ref, arrows, 3, &coloured, &msg) == CLX_OK && read_png(path_b, &b) == 0,
          "coloured: %s", msg.text);
    if (!a.rgb || !b.rgb)
        return;
    double scale = 3.2;
    int ox = QUIVER_MARGIN, oy = QUIVER_MARGIN + QUIVER_TITLE_HEIGHT;
    /* 30 px above each centre: inside its cell (160 px wide), off the arrows. */
    for (int k = 0; k < 3; k++) {
        int x = (int)(ox + (arrows[k].x + 0.5) * scale), y = (int)(oy + (arrows[k].y + 0.5) * scale) - 30;
        struct rgb c = colour_scale((values[k] - 1.0) / 2.0);
        const unsigned char *under = pixel(&a, x, y), *got = pixel(&b, x, y);
        struct rgb want = { (unsigned char)lround(under[0] + (c.r - under[0]) * VALUE_ALPHA),
                            (unsigned char)lround(under[1] + (c.g - under[1]) * VALUE_ALPHA),
                            (unsigned char)lround(under[2] + (c.b - under[2]) * VALUE_ALPHA) };
        CHECK(same_colour(got, want, 2), "window %d's cell: %d,%d,%d, want %d,%d,%d", k, got[0], got[1], got[2],
              want.r, want.g, want.b);
    }
    const unsigned char *shaft = pixel(&b, (int)(ox + 50 * scale + 60), (int)(oy + 50 * scale));
    CHECK(same_colour(shaft, (struct rgb){ 255, 255, 255 }, 2), "the arrows are white over colours: %d,%d,%d",
          shaft[0], shaft[1], shaft[2]);

    /* peak_ratio's inf: its cell in the scale's top colour, as the largest
     * finite value's; nan: no cell, the image as it is. */
    double ratios[3] = { 1.0, INFINITY, NAN };
    struct quiver_options with_inf = { 0, "inf", ratios, "peak_ratio", 0 };
    struct picture c;
    const char *path_c = temp_path("inf.png");
    CHECK(quiver_write_png(path_c, &ref, arrows, 3, &with_inf, &msg) == CLX_OK && read_png(path_c, &c) == 0,
          "inf: %s", msg.text);
    if (c.rgb) {
        for (int k = 1; k < 3; k++) {
            int x = (int)(ox + (arrows[k].x + 0.5) * scale), y = (int)(oy + (arrows[k].y + 0.5) * scale) - 30;
            /* One finite value: its band is 0.9 to 1.1, the inf at its top. */
            struct rgb col = colour_scale(1.0);
            const unsigned char *under = pixel(&a, x, y), *got = pixel(&c, x, y);
            struct rgb want = k == 2 ? (struct rgb){ under[0], under[1], under[2] }
                                     : (struct rgb){ (unsigned char)lround(under[0] + (col.r - under[0]) * VALUE_ALPHA),
                                                     (unsigned char)lround(under[1] + (col.g - under[1]) * VALUE_ALPHA),
                                                     (unsigned char)lround(under[2] + (col.b - under[2]) * VALUE_ALPHA) };
            CHECK(same_colour(got, want, 2), "%s window's cell: %d,%d,%d, want %d,%d,%d", k == 1 ? "the inf" : "the nan",
                  got[0], got[1], got[2], want.r, want.g, want.b);
        }
        stbi_image_free(c.rgb);
    }
    stbi_image_free(a.rgb);
    stbi_image_free(b.rgb);
}

static void check_quiver_mean(void)
{
    struct quiver_mean mean;
    struct quiver_arrow arrows[3];
    if (quiver_mean_init(&mean, 3) != CLX_OK) {
        CHECK(0, "quiver_mean_init");
        return;
    }
    quiver_mean_add(&mean, 0, 1, 2, 0);
    quiver_mean_add(&mean, 0, 100, 100, CLX_FLAG_OUTLIER);
    quiver_mean_add(&mean, 1, 1, 1, CLX_FLAG_EDGE);
    quiver_mean_add(&mean, 1, 3, 3, CLX_FLAG_UNCONVERGED);
    quiver_mean_add(&mean, 2, NAN, 1, 0);
    quiver_mean_add(&mean, 7, 1, 1, 0);      /* no such window: ignored */
    clx_result image[3] = { { .dx = 3, .dy = 4 }, { .dx = NAN, .dy = NAN }, { .dx = NAN, .dy = 0 } };
    quiver_mean_add_results(&mean, image);
    quiver_mean_arrows(&mean, arrows);
    CHECK(arrows[0].dx == 2 && arrows[0].dy == 3 && arrows[0].flags == 0,
          "window 0: the unflagged rows' mean (%g, %g), flags %u", arrows[0].dx, arrows[0].dy, arrows[0].flags);
    CHECK(arrows[1].dx == 2 && arrows[1].dy == 2 && arrows[1].flags == (CLX_FLAG_EDGE | CLX_FLAG_UNCONVERGED),
          "window 1: flagged in every image: (%g, %g), flags %u", arrows[1].dx, arrows[1].dy, arrows[1].flags);
    CHECK(isnan(arrows[2].dx) && isnan(arrows[2].dy) && arrows[2].flags == 0, "window 2: no offsets, NaN");
    quiver_mean_free(&mean);
}

static void check_series(void)
{
    struct results_table t;
    clx_message msg;
    const char *csv = write_file("series.csv", "image,region,x,y,dx,dy\n"
                                               "a,0,1,1,0.1,0.2\na,1,5,1,0.3,0.1\n"
                                               "b,0,1,1,0.2,0.3\nb,1,5,1,0.4,0.0\n"
                                               "c,0,1,1,0.3,0.2\n");
    if (results_read(csv, &t, &msg) != CLX_OK) {
        CHECK(0, "series.csv: %s", msg.text);
        return;
    }
    struct series_options opt = { 0, -1, "series" };
    struct picture p;
    const char *path = temp_path("series.png");
    CHECK(series_write_png(path, &t, &opt, &msg) == CLX_OK && read_png(path, &p) == 0 && p.w == 1000 &&
              p.h == series_height(0) && p.h == 720,
          "series: %s", msg.text);
    stbi_image_free(p.rgb);
    opt.width = 500;
    opt.window = 1;
    CHECK(series_write_png(path, &t, &opt, &msg) == CLX_OK && read_png(path, &p) == 0 && p.w == 500 && p.h == 360,
          "one window at width 500: %dx%d %s", p.w, p.h, msg.text);
    stbi_image_free(p.rgb);
    opt.window = 2;
    CHECK(series_write_png(path, &t, &opt, &msg) == CLX_ERR_ARGUMENT &&
              strcmp(msg.text, "window 2: the results have windows 0 to 1") == 0,
          "window 2: %s", msg.text);
    results_free(&t);
}


/* ---- scans and their maps ------------------------------------------------ */

/*
 * A scan of 3 x 2 points (columns x rows), 1.5 um apart, two windows each.
 * The points' mean dx: (0,0) -1; (0,1) -0.4; (0,2) 0.2, window 1 flagged 2
 * (left out); (1,0) 0.6, window 1 flagged 8 (outlier: kept); (1,1) 1,
 * window 1 nan and flagged 64; (1,2) no rows.
 */
static const char scan_in_order[] =
    "scan_row,scan_col,scan_x,scan_y,region,x,y,dx,dy,peak,flags\n"
    "0,0,0.0,0.0,0,50.5,50.5,-1.0,0.5,9,0\n"
    "0,0,0.0,0.0,1,150.5,50.5,-1.0,0.5,9,0\n"
    "0,1,1.5,0.0,0,50.5,50.5,-0.5,0.5,9,0\n"
    "0,1,1.5,0.0,1,150.5,50.5,-0.3,0.5,9,0\n"
    "0,2,3.0,0.0,0,50.5,50.5,0.2,0.5,9,0\n"
    "0,2,3.0,0.0,1,150.5,50.5,9.0,0.5,9,2\n"
    "1,0,0.0,1.5,0,50.5,50.5,0.5,0.5,9,0\n"
    "1,0,0.0,1.5,1,150.5,50.5,0.7,0.5,9,8\n"
    "1,1,1.5,1.5,0,50.5,50.5,1.0,0.5,9,0\n"
    "1,1,1.5,1.5,1,150.5,50.5,nan,nan,nan,64\n";

/* The same rows as TSV, in another order, columns in another order. */
static const char scan_shuffled[] =
    "flags\tdx\tregion\tscan_col\tscan_row\tscan_y\tscan_x\n"
    "64\tnan\t1\t1\t1\t1.5\t1.5\n"
    "0\t0.2\t0\t2\t0\t0.0\t3.0\n"
    "0\t-1.0\t1\t0\t0\t0.0\t0.0\n"
    "8\t0.7\t1\t0\t1\t1.5\t0.0\n"
    "0\t-0.3\t1\t1\t0\t0.0\t1.5\n"
    "0\t1.0\t0\t1\t1\t1.5\t1.5\n"
    "2\t9.0\t1\t2\t0\t0.0\t3.0\n"
    "0\t-0.5\t0\t1\t0\t0.0\t1.5\n"
    "0\t0.5\t0\t0\t1\t1.5\t0.0\n"
    "0\t-1.0\t0\t0\t0\t0.0\t0.0\n";

static int same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) < 1e-12;
}

static void check_grid_values(const char *name, const struct scan_grid *g, const double want[6])
{
    if (g->rows != 2 || g->cols != 3) {
        CHECK(0, "%s: %zu x %zu points, want 3 x 2", name, g->cols, g->rows);
        return;
    }
    for (int i = 0; i < 6; i++)
        CHECK(same_value(g->values[i], want[i]), "%s: point (%d, %d) is %g, want %g", name, i / 3, i % 3,
              g->values[i], want[i]);
}

static void check_scan_grid(void)
{
    struct scan_grid g;
    clx_message msg;
    const double mean[6] = { -1, -0.4, 0.2, 0.6, 1, NAN };
    const double window1[6] = { -1, -0.3, NAN, 0.7, NAN, NAN };
    const char *files[2] = { write_file("scan.csv", scan_in_order), write_file("scan-shuffled.tsv", scan_shuffled) };
    for (int f = 0; f < 2; f++) {
        if (scan_grid_read(files[f], "dx", -1, &g, &msg) != CLX_OK) {
            CHECK(0, "%s: %s", files[f], msg.text);
            continue;
        }
        check_grid_values(files[f], &g, mean);
        CHECK(g.windows == 2 && g.rows_read == 10 && g.rows_used == 8 && g.rows_flagged == 1 && g.rows_nan == 1 &&
                  g.points_with_value == 5,
              "%s: %zu windows, rows %zu read %zu used %zu flagged %zu nan, %zu points", files[f], g.windows,
              g.rows_read, g.rows_used, g.rows_flagged, g.rows_nan, g.points_with_value);
        CHECK(g.positioned && g.step_x == 1.5 && g.step_y == 1.5 && g.x0 == 0 && g.y0 == 0,
              "%s: positions %d, steps %g %g, origin %g %g", files[f], g.positioned, g.step_x, g.step_y, g.x0, g.y0);
        scan_grid_free(&g);
        if (scan_grid_read(files[f], "dx", 1, &g, &msg) != CLX_OK) {
            CHECK(0, "%s, window 1: %s", files[f], msg.text);
            continue;
        }
        check_grid_values("window 1", &g, window1);
        CHECK(g.rows_used == 3 && g.rows_flagged == 1 && g.rows_nan == 1, "window 1: rows %zu used %zu flagged %zu nan",
              g.rows_used, g.rows_flagged, g.rows_nan);
        scan_grid_free(&g);
    }
    /* peak_ratio's inf (no second peak), as offsets writes it: a point's
     * mean with it is inf, drawn at the scale's top (check_map_scale). */
    const char *ratio = write_file("ratio.csv", "scan_row,scan_col,region,peak_ratio\n0,0,0,2\n0,0,1,inf\n"
                                                "0,1,0,3\n0,1,1,nan\n");
    if (scan_grid_read(ratio, "peak_ratio", -1, &g, &msg) != CLX_OK) {
        CHECK(0, "%s: %s", ratio, msg.text);
    } else {
        CHECK(isinf(g.values[0]) && g.values[0] > 0 && g.values[1] == 3 && g.rows_nan == 1,
              "peak_ratio: %g, %g, %zu nan rows", g.values[0], g.values[1], g.rows_nan);
        scan_grid_free(&g);
    }
    /* One row per point (strain), JSON lines, no positions, a point missing. */
    const char *strain = write_file("strain.jsonl", "{\"scan_row\": 1, \"scan_col\": 0, \"e11\": 0.002, \"w1\": null}\n"
                                                    "{\"scan_row\": 0, \"scan_col\": 1, \"e11\": -0.001, \"w1\": 0.5}\n"
                                                    "{\"scan_row\": 0, \"scan_col\": 0, \"e11\": 0.001, \"w1\": 0.1}\n");
    if (scan_grid_read(strain, "e11", -1, &g, &msg) == CLX_OK) {
        CHECK(g.rows == 2 && g.cols == 2 && g.windows == 0 && !g.positioned && g.values[0] == 0.001 &&
                  g.values[1] == -0.001 && g.values[2] == 0.002 && isnan(g.values[3]) && g.points_with_value == 3,
              "strain.jsonl: %zu x %zu, %zu windows, positioned %d", g.cols, g.rows, g.windows, g.positioned);
        scan_grid_free(&g);
    } else {
        CHECK(0, "strain.jsonl: %s", msg.text);
    }
    /* Flags are not left out of a map of flags. */
    if (scan_grid_read(files[0], "flags", -1, &g, &msg) == CLX_OK) {
        CHECK(g.values[2] == 1 && g.values[3] == 4 && g.values[4] == 32 && g.rows_flagged == 0,
              "a map of flags takes every row: %g %g %g", g.values[2], g.values[3], g.values[4]);
        scan_grid_free(&g);
    }
}

/* Each bad scan fails with exactly this message. */
static void check_scan_grid_errors(void)
{
    static const struct {
        const char *name, *text, *column;
        long region;
        const char *message;   /* %s: the path */
    } cases[] = {
        { "offsets.csv", "image,region,x,y,dx,dy\na,0,1,1,0,0\n", "dx", -1,
          "--map needs a results file of a scan: scan_row and scan_col columns; %s has image, region, x, y, dx, dy" },
        { "no-zncc.csv", "scan_row,scan_col,region,dx,flags\n0,0,0,1,0\n", "zncc", -1,
          "--map zncc: %s has no such column; it has scan_row, scan_col, region, dx, flags" },
        { "bad-dx.csv", "scan_row,scan_col,dx\n0,0,1\n\n0,1,abc\n", "dx", -1, "%s:4: dx 'abc' is not a number" },
        { "huge-dx.csv", "scan_row,scan_col,dx\n0,0,1e999\n", "dx", -1, "%s:2: dx '1e999' is not a number" },
        { "bad-row.csv", "scan_row,scan_col,dx\n0.5,0,1\n", "dx", -1,
          "%s:2: scan_row '0.5' is not a whole number from 0 to 99999" },
        { "bad-x.tsv", "scan_row\tscan_col\tscan_x\tscan_y\tdx\n0\t0\tnan\t0\t1\n", "dx", -1,
          "%s:2: scan_x 'nan' is not a number" },
        { "empty.csv", "", "dx", -1, "%s: empty; expected a header line (scan_row,scan_col,...)" },
        { "header.csv", "scan_row,scan_col,dx\n", "dx", -1, "%s: no rows after the header" },
        { "short.csv", "scan_row,scan_col,dx\n0,0\n", "dx", -1, "%s:2: 2 fields, but the header has 3" },
        { "twice.csv", "scan_row,scan_col,region,dx\n0,0,0,1\n1,0,0,1\n0,0,1,1\n0,0,0,2\n", "dx", -1,
          "%s:5: scan point (row 0, column 0), window 0 again (first on line 2)" },
        { "twice-point.csv", "scan_row,scan_col,e11\n0,1,1\n0,1,2\n", "e11", -1,
          "%s:3: scan point (row 0, column 1) again (first on line 2)" },
        { "region.csv", "scan_row,scan_col,region,dx\n0,0,0,1\n0,0,1,1\n", "dx", 2, "--region 2: %s has windows 0 to 1" },
        { "no-region.csv", "scan_row,scan_col,e11\n0,0,1\n", "e11", 0,
          "--region 0: %s has no region column (one row per scan point)" },
        { "huge.csv", "scan_row,scan_col,dx\n99999,99999,1\n", "dx", -1,
          "%s: a scan of 100000 x 100000 points is more than a map can show (100000000)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scan_grid g;
        clx_message msg;
        char want[1024];
        const char *path = write_file(cases[i].name, cases[i].text);
        int status = scan_grid_read(path, cases[i].column, cases[i].region, &g, &msg);
        snprintf(want, sizeof want, cases[i].message, path);
        CHECK(status == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0, "%s: status %d, '%s', want '%s'",
              cases[i].name, status, msg.text, want);
        if (status == CLX_OK)
            scan_grid_free(&g);
    }
}

static void check_map_scale(void)
{
    struct map_scale s;
    struct map_scale_options o = { "zncc", MAP_SCALE_AUTO, 0, 0, 0 };
    /* 200 points from 0.80 to 0.995 and one outlier: the 99th percentile
     * (the 199th of 201) keeps the outlier off the scale. */
    double v[201];
    for (int i = 0; i < 200; i++)
        v[i] = 0.8 + 0.001 * (i < 100 ? 2 * i : 2 * (i - 100) + 1) * 0.98;
    v[200] = 40;
    map_scale_choose(v, 201, &o, &s);
    CHECK(!s.diverging && s.lo > 0.79 && s.lo < 0.81 && s.hi > 0.98 && s.hi < 1 && s.above == 2 && s.below == 2,
          "zncc: diverging %d, %g to %g, %zu below, %zu above", s.diverging, s.lo, s.hi, s.below, s.above);
    double both[3] = { -1, NAN, 2 };
    o.column = "peak";
    map_scale_choose(both, 3, &o, &s);
    CHECK(s.diverging && s.lo == -2 && s.hi == 2, "both signs: diverging %d, %g to %g", s.diverging, s.lo, s.hi);
    double positive[2] = { 0.1, 0.3 };
    o.column = "dx";
    map_scale_choose(positive, 2, &o, &s);
    CHECK(s.diverging && s.lo == -0.3 && s.hi == 0.3, "dx: diverging %d, %g to %g", s.diverging, s.lo, s.hi);
    o.kind = MAP_SCALE_SEQUENTIAL;
    map_scale_choose(positive, 2, &o, &s);
    CHECK(!s.diverging && s.lo == 0.1 && s.hi == 0.3, "dx, sequential: %d, %g to %g", s.diverging, s.lo, s.hi);
    o.column = "e22";
    o.kind = MAP_SCALE_AUTO;
    map_scale_choose(positive, 2, &o, &s);
    CHECK(s.diverging, "strains are signed");
    double flat[2] = { 5, 5 }, none[2] = { NAN, NAN };
    o.column = "residual";
    map_scale_choose(flat, 2, &o, &s);
    CHECK(!s.diverging && fabs(s.lo - 4.5) < 1e-12 && fabs(s.hi - 5.5) < 1e-12, "one value: %g to %g", s.lo, s.hi);
    map_scale_choose(none, 2, &o, &s);
    CHECK(s.lo == 0 && s.hi == 1 && s.below == 0 && s.above == 0, "no values: %g to %g", s.lo, s.hi);
    /* Infinities take no part in the limits, lie beyond them, and take
     * their end's colour; nan is no value. */
    double ratios[5] = { 1.5, INFINITY, 2.5, NAN, 2.0 };
    o.column = "peak_ratio";
    map_scale_choose(ratios, 5, &o, &s);
    CHECK(!s.diverging && s.lo == 1.5 && s.hi == 2.5 && s.above == 1 && s.below == 0,
          "peak_ratio with inf: diverging %d, %g to %g, %zu below, %zu above", s.diverging, s.lo, s.hi, s.below,
          s.above);
    struct rgb top = map_colour(&s, 2.5), at_inf = map_colour(&s, INFINITY), bottom = map_colour(&s, 1.5),
               at_minus_inf = map_colour(&s, -INFINITY), missing = map_colour(&s, NAN);
    CHECK(at_inf.r == top.r && at_inf.g == top.g && at_inf.b == top.b && at_minus_inf.r == bottom.r &&
              at_minus_inf.g == bottom.g && at_minus_inf.b == bottom.b,
          "inf takes the top colour (%d,%d,%d vs %d,%d,%d), -inf the bottom", at_inf.r, at_inf.g, at_inf.b, top.r,
          top.g, top.b);
    CHECK(missing.r == MAP_NO_VALUE.r && missing.g == MAP_NO_VALUE.g && missing.b == MAP_NO_VALUE.b,
          "nan is no value: %d,%d,%d", missing.r, missing.g, missing.b);
    o.column = "residual";
    o.fixed = 1;
    o.lo = 0.2;
    o.hi = 0.25;
    map_scale_choose(positive, 2, &o, &s);
    CHECK(s.fixed && s.lo == 0.2 && s.hi == 0.25 && s.below == 1 && s.above == 1, "--range: %g to %g", s.lo, s.hi);
    CHECK(strcmp(map_column_unit("dy", 0), "px") == 0 && strcmp(map_column_unit("scan_y", 0), "\xc2\xb5m") == 0 &&
              strcmp(map_column_unit("w3", 1), "rad") == 0 && strcmp(map_column_unit("e11", 0), "") == 0 &&
              strcmp(map_column_unit("zncc", 0), "") == 0,
          "units");
    /* Angles in degrees unless radians are asked for. */
    CHECK(strcmp(map_column_unit("w3", 0), "\xc2\xb0") == 0 && strcmp(map_column_unit("phi1", 0), "\xc2\xb0") == 0 &&
              fabs(map_column_factor("w1", 0) - 180 / M_PI) < 1e-12 && map_column_factor("w1", 1) == 1 &&
              map_column_factor("Phi", 0) > 57 && map_column_factor("e11", 0) == 1 && map_column_factor("dx", 0) == 1,
          "angles: %s, factor %g", map_column_unit("w3", 0), map_column_factor("w1", 0));
    CHECK(strcmp(map_column_unit("alpha13", 0), "\xc2\xb5m\xe2\x81\xbb\xc2\xb9") == 0 &&
              strcmp(map_column_unit("rho_gnd", 0), "m\xe2\x81\xbb\xc2\xb2") == 0 &&
              strcmp(map_column_unit("alpha", 0), "") == 0,
          "gnd's units: %s %s", map_column_unit("alpha13", 0), map_column_unit("rho_gnd", 0));
}

/* Text: drawn at all, across and upwards, the same width measured as
 * drawn; bytes that are not UTF-8 (a file name) neither stop the drawing
 * nor fail the picture. The diverging scale is white in the middle. */
static void check_text(void)
{
    struct figure f;
    clx_message msg;
    struct picture p;
    CHECK(text_width(TEXT_LABEL, "x (\xc2\xb5m)") > text_width(TEXT_LABEL, "x (m)") &&
              text_width(TEXT_LABEL, "") == 0 && text_cap_height(TEXT_LABEL) > 5,
          "text is measured: %g", text_width(TEXT_LABEL, "x (\xc2\xb5m)"));
    if (figure_create(&f, 200, 200, &msg) != CLX_OK) {
        CHECK(0, "figure_create: %s", msg.text);
        return;
    }
    double w = text_width(TEXT_LABEL, "scan row");
    text_draw(f.cr, 10, 10, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, "scan row", FIGURE_INK);
    text_draw_up(f.cr, 10, 190, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, "scan row", FIGURE_INK);
    text_draw(f.cr, 10, 150, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, "bad \xff\xc3( name\x01", FIGURE_INK);
    text_draw(f.cr, 10, 170, TEXT_LABEL, TEXT_LEFT, TEXT_TOP, "after it", FIGURE_INK);
    const char *path = temp_path("text.png");
    CHECK(figure_write_png(&f, path, &msg) == CLX_OK, "a name that is not UTF-8: %s", msg.text);
    figure_free(&f);
    if (read_png(path, &p) != 0) {
        CHECK(0, "cannot read %s back", path);
        return;
    }
    CHECK(has_ink(&p, 10, 10, (int)w, 14) && !has_ink(&p, 12 + (int)w, 10, 60, 14), "text across, %g px wide", w);
    CHECK(has_ink(&p, 10, 190 - (int)w, 14, (int)w) && !has_ink(&p, 30, 40, 14, 100), "text upwards");
    CHECK(has_ink(&p, 10, 170, 60, 14), "text after a name that is not UTF-8 is drawn");
    stbi_image_free(p.rgb);
    CHECK(figure_create(&f, 0, 10, &msg) == CLX_ERR_ARGUMENT &&
              strcmp(msg.text, "a picture of 0x10 pixels: each side must be 1 to 16384") == 0,
          "a picture of no pixels: %s", msg.text);
    struct rgb mid = diverging_colour(0.5), low = diverging_colour(0), high = diverging_colour(1);
    CHECK(mid.r == 247 && mid.g == 247 && mid.b == 247 && low.b > low.r && high.r > high.b,
          "diverging: blue, white, red");
}

static void check_map_size(void)
{
    struct scan_grid g = { 0 };
    int w, h;
    g.cols = 3, g.rows = 2;
    map_size(&g, 0, &w, &h);
    CHECK(w == 639 && h == 426, "3 x 2 points: %dx%d, want cells of 213 px", w, h);
    g.cols = 20, g.rows = 30, g.positioned = 1, g.step_x = 2, g.step_y = 1;
    map_size(&g, 0, &w, &h);
    CHECK(w == 640 && h == 480, "20 x 30 points of 2 x 1 um: %dx%d", w, h);
    g.cols = 2000, g.rows = 1000, g.positioned = 0;
    map_size(&g, 0, &w, &h);
    CHECK(w == 4000 && h == 2000, "2000 x 1000 points: %dx%d, cells of 2 px to stay within 4096", w, h);
    g.cols = 300, g.rows = 200;
    map_size(&g, 0, &w, &h);
    CHECK(w == 1200 && h == 800, "300 x 200 points: %dx%d, cells of at least 4 px", w, h);
    g.cols = 150, g.rows = 1;
    map_size(&g, 0, &w, &h);
    CHECK(w == 600 && h == MAP_MIN_SIDE, "a line scan: %dx%d", w, h);
    g.cols = 120, g.rows = 80;
    map_size(&g, 300, &w, &h);
    CHECK(w == 300 && h == 200, "--width 300: %dx%d", w, h);

    /* The axes: in scan columns and rows, whole steps; in µm (4 x 3 points
     * 60 µm apart), one step across and down, though the shorter axis
     * alone would take 20. */
    struct map_axis ax, ay;
    g.cols = 4, g.rows = 3, g.positioned = 0;
    map_size(&g, 0, &w, &h);
    scan_map_axes(&g, w, h, &ax, &ay);
    CHECK(ax.step == 1 && ay.step == 1 && ax.first == 0 && ax.last == 3 && ay.last == 2 &&
              strcmp(ax.name, "scan column") == 0,
          "axes in points: steps %g %g, %g to %g", ax.step, ay.step, ax.first, ax.last);
    g.positioned = 1, g.x0 = 0, g.y0 = 0, g.step_x = g.step_y = 60;
    map_size(&g, 0, &w, &h);
    scan_map_axes(&g, w, h, &ax, &ay);
    CHECK(w == 640 && h == 480 && ax.step == 50 && ay.step == 50 && ax.lo == -30 && ay.hi == 150 &&
              strcmp(ay.name, "y (\xc2\xb5m)") == 0,
          "axes in µm: %dx%d, steps %g %g, x from %g, y to %g", w, h, ax.step, ay.step, ax.lo, ay.hi);
}

/* The colour of cell (row, col)'s centre in a picture drawn in frame f. */
static const unsigned char *cell_pixel(const struct picture *p, const struct map_frame *f, const struct scan_grid *g,
                                       size_t row, size_t col)
{
    return pixel(p, f->map_x + (int)((col + 0.5) * f->map_w / g->cols), f->map_y + (int)((row + 0.5) * f->map_h / g->rows));
}

static int read_map(const char *path, const struct scan_grid *g, const struct map_options *o, struct picture *p,
                    struct map_frame *f)
{
    clx_message msg;
    int status = map_write_png(path, g, o, &msg);
    CHECK(status == CLX_OK, "map_write_png: %s", msg.text);
    if (status != CLX_OK || map_frame_of(g, o, f, &msg) != CLX_OK || read_png(path, p) != 0) {
        CHECK(0, "cannot draw or read back %s", path);
        return -1;
    }
    CHECK(p->w == f->width && p->h == f->height, "picture %dx%d, frame %dx%d", p->w, p->h, f->width, f->height);
    return p->w == f->width && p->h == f->height ? 0 : -1;
}

/* The whole file's bytes, or NULL; *len its length. */
static unsigned char *file_bytes(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bytes = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (bytes = malloc((size_t)*len)) && fread(bytes, 1, (size_t)*len, f) != (size_t)*len) {
        free(bytes);
        bytes = NULL;
    }
    if (f)
        fclose(f);
    return bytes;
}

/* Rows in another order (and TSV): the same grid, the same picture. */
static void check_map_order(void)
{
    const char *names[2] = { "scan.csv", "scan-shuffled.tsv" }, *pictures[2] = { "order-a.png", "order-b.png" };
    struct map_options o = { "dx", "the same title", 0, MAP_SCALE_AUTO, 0, 0, 0, 0, NULL };
    unsigned char *bytes[2] = { NULL, NULL };
    long len[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        struct scan_grid g;
        clx_message msg;
        if (scan_grid_read(temp_path(names[k]), "dx", -1, &g, &msg) != CLX_OK ||
            map_write_png(temp_path(pictures[k]), &g, &o, &msg) != CLX_OK) {
            CHECK(0, "%s: %s", names[k], msg.text);
            return;
        }
        scan_grid_free(&g);
        bytes[k] = file_bytes(temp_path(pictures[k]), &len[k]);
    }
    CHECK(bytes[0] && bytes[1] && len[0] == len[1] && memcmp(bytes[0], bytes[1], (size_t)len[0]) == 0,
          "rows in another order draw another picture (%ld and %ld bytes)", len[0], len[1]);
    free(bytes[0]);
    free(bytes[1]);
}

static void check_map_picture(void)
{
    struct scan_grid g;
    struct map_scale s;
    struct map_frame f;
    struct picture p;
    clx_message msg;
    if (scan_grid_read(temp_path("scan.csv"), "dx", -1, &g, &msg) != CLX_OK) {
        CHECK(0, "scan.csv: %s", msg.text);
        return;
    }
    struct map_options o = { "dx", "dx (px), scan.csv", 0, MAP_SCALE_AUTO, 0, 0, 0, 0, NULL };
    map_scale_choose(g.values, 6, &(struct map_scale_options){ "dx", MAP_SCALE_AUTO, 0, 0, 0 }, &s);
    CHECK(s.diverging && s.lo == -1 && s.hi == 1, "dx of the scan: diverging %d, %g to %g", s.diverging, s.lo, s.hi);
    if (read_map(temp_path("map.png"), &g, &o, &p, &f) == 0) {
        CHECK(f.map_w == 639 && f.map_h == 426, "square cells of 213 px: %dx%d", f.map_w, f.map_h);
        for (size_t i = 0; i < 6; i++) {
            const unsigned char *px = cell_pixel(&p, &f, &g, i / 3, i % 3);
            struct rgb want = map_colour(&s, g.values[i]);
            CHECK(same_colour(px, want, 0), "cell (%zu, %zu) of %g: %d,%d,%d, want %d,%d,%d", i / 3, i % 3,
                  g.values[i], px[0], px[1], px[2], want.r, want.g, want.b);
        }
        CHECK(same_colour(cell_pixel(&p, &f, &g, 1, 2), MAP_NO_VALUE, 0), "the missing point is neutral grey");
        /* The bar: dark red at the top, dark blue at the bottom; no
         * triangles, nothing being clipped. */
        int mid = f.bar_x + f.bar_w / 2;
        CHECK(same_colour(pixel(&p, mid, f.bar_y), map_colour(&s, 1), 6) &&
                  same_colour(pixel(&p, mid, f.bar_y + f.bar_h - 1), map_colour(&s, -1), 6) &&
                  same_colour(pixel(&p, mid, f.bar_y + f.bar_h / 2), map_colour(&s, 0), 6),
              "the bar runs from dark red through white to dark blue");
        CHECK(same_colour(pixel(&p, mid, f.bar_y - 8), (struct rgb){ 255, 255, 255 }, 0) &&
                  same_colour(pixel(&p, mid, f.bar_y + f.bar_h + 8), (struct rgb){ 255, 255, 255 }, 0),
              "no triangles");
        stbi_image_free(p.rgb);
    }
    /* Limits of +-0.5: -1 below, 0.6 and 1 above; they take the ends'
     * colours, and triangles in those colours cap the bar. */
    o.fixed_range = 1, o.lo = -0.5, o.hi = 0.5;
    map_scale_choose(g.values, 6, &(struct map_scale_options){ "dx", MAP_SCALE_AUTO, 1, -0.5, 0.5 }, &s);
    if (read_map(temp_path("map-range.png"), &g, &o, &p, &f) == 0) {
        int mid = f.bar_x + f.bar_w / 2;
        CHECK(same_colour(cell_pixel(&p, &f, &g, 1, 1), map_colour(&s, 0.5), 0) &&
                  same_colour(cell_pixel(&p, &f, &g, 0, 0), map_colour(&s, -0.5), 0),
              "clipped cells in the ends' colours");
        CHECK(same_colour(pixel(&p, mid, f.bar_y - 6), map_colour(&s, 0.5), 0) &&
                  same_colour(pixel(&p, mid, f.bar_y + f.bar_h + 6), map_colour(&s, -0.5), 0),
              "triangles at both ends: %d,%d,%d and %d,%d,%d", pixel(&p, mid, f.bar_y - 6)[0],
              pixel(&p, mid, f.bar_y - 6)[1], pixel(&p, mid, f.bar_y - 6)[2], pixel(&p, mid, f.bar_y + f.bar_h + 6)[0],
              pixel(&p, mid, f.bar_y + f.bar_h + 6)[1], pixel(&p, mid, f.bar_y + f.bar_h + 6)[2]);
        stbi_image_free(p.rgb);
    }
    scan_grid_free(&g);
    check_map_order();
}

/* A grid of rows x cols points of the values given (NaN: none), no positions. */
static struct scan_grid grid_of(size_t rows, size_t cols, const double *values)
{
    struct scan_grid g = { 0 };
    g.rows = rows, g.cols = cols;
    g.values = malloc(rows * cols * sizeof *g.values);
    for (size_t i = 0; i < rows * cols; i++)
        if (!isnan(g.values[i] = values[i]))
            g.points_with_value++;
    g.rows_read = g.rows_used = g.points_with_value;
    return g;
}

/* Whether the pixels across a vertical (or horizontal) line at `at`, from
 * `from` for `length` pixels, are dark there: a boundary drawn. */
static int dark_line(const struct picture *p, int at, int from, int length, int vertical)
{
    int dark = 0;
    for (int k = from; k < from + length; k++) {
        int x = vertical ? at : k, y = vertical ? k : at;
        int darkest = 255;
        for (int d = -1; d <= 1; d++) {
            const unsigned char *px = vertical ? pixel(p, x + d, y) : pixel(p, x, y + d);
            int brightest = px[0] > px[1] ? px[0] : px[1];
            brightest = px[2] > brightest ? px[2] : brightest;
            darkest = brightest < darkest ? brightest : darkest;
        }
        dark += darkest < 80;
    }
    return dark == length;
}

/* Grains 1 | 2 across a 3 x 4 scan (columns 0-1 and 2-3), a point of no
 * grain (0) at (2, 3): boundaries between columns 1 and 2, and around that
 * point; none inside a grain. */
static const double grain_ids[12] = { 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 0 };

static void check_map_grains(void)
{
    double v[12];
    for (int i = 0; i < 12; i++)
        v[i] = 0.1 * (i % 4) - 0.15;
    struct scan_grid g = grid_of(3, 4, v), grains = grid_of(3, 4, grain_ids);
    struct map_options o = { "e11", "grains", 0, MAP_SCALE_AUTO, 0, 0, 0, 0, &grains };
    struct picture p;
    struct map_frame f;
    if (read_map(temp_path("grains.png"), &g, &o, &p, &f) == 0) {
        int cw = f.map_w / 4, ch = f.map_h / 3;
        CHECK(dark_line(&p, f.map_x + 2 * cw, f.map_y + 4, f.map_h - 8, 1), "a boundary between columns 1 and 2");
        CHECK(!dark_line(&p, f.map_x + cw, f.map_y + 4, f.map_h - 8, 1) &&
                  !dark_line(&p, f.map_y + ch, f.map_x + 4, 2 * cw - 8, 0),
              "no boundary inside grain 1");
        CHECK(dark_line(&p, f.map_x + 3 * cw, f.map_y + 2 * ch + 4, ch - 8, 1) &&
                  dark_line(&p, f.map_y + 2 * ch, f.map_x + 3 * cw + 4, cw - 8, 0),
              "a boundary around the point of no grain");
        /* The cells keep their colours away from the lines. */
        struct map_scale s;
        map_scale_choose(g.values, 12, &(struct map_scale_options){ "e11", MAP_SCALE_AUTO, 0, 0, 0 }, &s);
        CHECK(same_colour(cell_pixel(&p, &f, &g, 0, 2), map_colour(&s, v[2]), 0), "cells in their colours");
        stbi_image_free(p.rgb);
    }
    scan_grid_free(&g);
    scan_grid_free(&grains);
}

/* Several columns at once: the grids of one read, an optional column the
 * file lacks left NULL; a required one named. */
static void check_scan_columns(void)
{
    const char *path = write_file("tensor.csv", "scan_row,scan_col,e11,w3,grain,flags\n"
                                                "0,0,0.001,0.01,1,0\n0,1,0.002,0.02,2,0\n"
                                                "1,0,0.003,nan,1,1\n1,1,0.004,0.04,2,32\n");
    const char *columns[4] = { "e11", "w3", "grain", "phi1" };
    struct scan_request q = { "--tensor", columns, 4, 2, -1 };
    struct scan_grid g[4];
    clx_message msg;
    if (scan_grids_read(path, &q, g, &msg) != CLX_OK) {
        CHECK(0, "tensor.csv: %s", msg.text);
        return;
    }
    /* Flag 1 (too few windows) leaves a fit out; 32 (no grain) does not.
     * The grain labels every point, flags or not. */
    CHECK(g[0].values[0] == 0.001 && g[0].values[1] == 0.002 && isnan(g[0].values[2]) && g[0].values[3] == 0.004,
          "e11: %g %g %g %g", g[0].values[0], g[0].values[1], g[0].values[2], g[0].values[3]);
    CHECK(g[1].values[1] == 0.02 && isnan(g[1].values[2]) && g[1].rows_nan == 1 && g[1].rows_flagged == 0, "w3");
    CHECK(g[2].values[0] == 1 && g[2].values[1] == 2 && g[2].values[2] == 1 && g[2].values[3] == 2 &&
              g[2].rows_flagged == 0,
          "grain: %g %g %g %g", g[2].values[0], g[2].values[1], g[2].values[2], g[2].values[3]);
    CHECK(g[3].values == NULL && g[3].rows == 2, "phi1, which the file lacks, has no values");
    for (int k = 0; k < 4; k++)
        scan_grid_free(&g[k]);
    q.required = 4;
    char want[1024];
    snprintf(want, sizeof want, "--tensor phi1: %s has no such column; it has scan_row, scan_col, e11, w3, grain, flags",
             path);
    CHECK(scan_grids_read(path, &q, g, &msg) == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0, "phi1 required: %s",
          msg.text);
    /* A binary file is named as none, not printed. */
    const char *binary = write_file("binary.csv", "\x01\x02\x7f" "abc\n");
    snprintf(want, sizeof want, "%s: not a results file (CSV, TSV, JSON lines or HDF5 as clxcorr writes them)", binary);
    CHECK(scan_grid_read(binary, "dx", -1, g, &msg) == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0, "binary: %s",
          msg.text);
}

/*
 * The tensor figure of a 3 x 4 scan of two grains: each panel's cells in
 * its row's colours (component k's values k + 1 times another's, so that a
 * row's scale is its third panel's), each row's bar from its top colour to
 * its bottom one, the boundary on every panel, the title's and the panels'
 * text; rotations named in degrees or radians.
 */
static void check_tensor(void)
{
    struct scan_grid g[TENSOR_PANELS], grains = grid_of(3, 4, grain_ids);
    for (int k = 0; k < TENSOR_PANELS; k++) {
        double v[12];
        for (int i = 0; i < 12; i++)
            v[i] = (k + 1) * 1e-4 * ((i * 7) % 12 - 5.5);
        g[k] = grid_of(3, 4, v);
    }
    struct tensor_options o = { "strain and rotation", 0, 1, &grains };
    struct tensor_frame f;
    struct picture p;
    clx_message msg;
    const char *path = temp_path("tensor.png");
    if (tensor_write_png(path, g, &o, &msg) != CLX_OK || tensor_frame_of(g, &o, &f, &msg) != CLX_OK ||
        read_png(path, &p) != 0) {
        CHECK(0, "tensor: %s", msg.text);
        return;
    }
    CHECK(p.w == f.width && p.h == f.height && f.map_w == 260 && f.map_h == 195, "%dx%d, frame %dx%d, maps %dx%d",
          p.w, p.h, f.width, f.height, f.map_w, f.map_h);
    for (int k = 0; k < TENSOR_PANELS; k++) {
        const struct tensor_panel *t = &f.panel[k];
        const struct tensor_row *row = &f.row[k / 3];
        struct map_frame mf = { t->map_x, t->map_y, f.map_w, f.map_h, row->bar_x, row->bar_y, COLOUR_BAR_W, f.bar_h,
                                0, 0 };
        int cells = 0;
        for (size_t i = 0; i < 12; i++)
            cells += same_colour(cell_pixel(&p, &mf, &g[k], i / 4, i % 4), map_colour(&row->scale, g[k].values[i]), 0);
        CHECK(cells == 12, "panel %s: %d of 12 cells in their row's colours", tensor_columns[k], cells);
        CHECK(dark_line(&p, t->map_x + f.map_w / 2, t->map_y + 4, f.map_h - 8, 1), "panel %s: the grain boundary",
              tensor_columns[k]);
        CHECK(has_ink(&p, t->map_x, t->map_y - 22, f.map_w, 18), "panel %s: its title", tensor_columns[k]);
        CHECK(k % 3 == 0 || t->map_x > f.panel[k - 1].map_x + f.map_w, "panel %s: right of the one before",
              tensor_columns[k]);
    }
    for (int r = 0; r < TENSOR_ROWS; r++) {
        const struct tensor_row *row = &f.row[r];
        CHECK(row->scale.diverging && row->scale.lo == -row->scale.hi &&
                  fabs(row->scale.hi - (3 * r + 3) * 5.5e-4) < 1e-12,
              "row %d: %g to %g", r, row->scale.lo, row->scale.hi);
        int mid = row->bar_x + COLOUR_BAR_W / 2;
        CHECK(row->bar_x > f.panel[3 * r + 2].map_x + f.map_w &&
                  same_colour(pixel(&p, mid, row->bar_y), map_colour(&row->scale, row->scale.hi), 8) &&
                  same_colour(pixel(&p, mid, row->bar_y + f.bar_h - 1), map_colour(&row->scale, row->scale.lo), 8),
              "row %d: its colour bar, right of its panels", r);
        CHECK(has_ink(&p, row->bar_x, f.panel[3 * r].map_y - 22, 100, 18), "row %d: its bar's label", r);
    }
    /* Normal strains to +-1.65e-3: "normal strain (×10⁻³)"; the rotations
     * (to 4.95e-3) in radians. */
    CHECK(strcmp(f.row[0].label, "normal strain (\xc3\x97" "10\xe2\x81\xbb\xc2\xb3)") == 0 &&
              strcmp(f.row[2].label, "rotation (\xc3\x97" "10\xe2\x81\xbb\xc2\xb3 rad)") == 0,
          "labels '%s' '%s'", f.row[0].label, f.row[2].label);
    CHECK(has_ink(&p, 16, 16, 150, 14), "the title");
    stbi_image_free(p.rgb);
    o.radians = 0;
    tensor_frame_of(g, &o, &f, &msg);
    CHECK(strcmp(f.row[2].label, "rotation (\xc3\x97" "10\xe2\x81\xbb\xc2\xb3 \xc2\xb0)") == 0,
          "rotations in degrees: '%s'", f.row[2].label);
    o.width = 8;
    CHECK(tensor_write_png(path, g, &o, &msg) == CLX_ERR_ARGUMENT &&
              strcmp(msg.text, "panel width 8: from 16 to 8192 pixels") == 0,
          "width 8: %s", msg.text);
    for (int k = 0; k < TENSOR_PANELS; k++)
        scan_grid_free(&g[k]);
    scan_grid_free(&grains);
}

/* HDF5 as --format h5 writes it: write_h5 makes a dataset of doubles (or
 * 32-bit integers) of rank 1 to 3 at the file's root. */
#ifdef HAVE_HDF5
static void write_dataset(hid_t file, const char *name, int rank, const hsize_t *dims, const double *values, int whole)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t set = H5Dcreate2(file, name, whole ? H5T_STD_I32LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose(set);
    H5Sclose(space);
}
#endif

/*
 * strain's HDF5: a scan of 2 x 3 points as the scan's grid (a whole scan in
 * order) and as a list of images in another order with one never written
 * (scan_row -1); offsets' per-window datasets; the same grids as from the
 * CSV, and errors naming the file. Without HDF5, a file with its signature
 * is refused in one line.
 */
static void check_h5_scans(void)
{
    clx_message msg;
    struct scan_grid g;
    char want[1024];
#ifdef HAVE_HDF5
    const double e11[6] = { 1, 2, 3, 4, 5, 6 }, rows[6] = { 0, 0, 0, 1, 1, 1 }, cols[6] = { 0, 1, 2, 0, 1, 2 };
    const double xs[6] = { 0, 1.5, 3, 0, 1.5, 3 }, ys[6] = { 0, 0, 0, 2, 2, 2 }, flags[6] = { 0, 0, 1, 0, 0, 0 };
    const char *grid = temp_path("grid.h5");
    hsize_t dims[3] = { 2, 3, 2 };
    hid_t file = H5Fcreate(grid, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    write_dataset(file, "scan_row", 2, dims, rows, 1);
    write_dataset(file, "scan_col", 2, dims, cols, 1);
    write_dataset(file, "scan_x", 2, dims, xs, 0);
    write_dataset(file, "scan_y", 2, dims, ys, 0);
    write_dataset(file, "e11", 2, dims, e11, 0);
    write_dataset(file, "flags", 2, dims, flags, 1);
    H5Fclose(file);
    if (scan_grid_read(grid, "e11", -1, &g, &msg) == CLX_OK) {
        /* Flag 1 (too few windows): no value at (0, 2). */
        CHECK(g.rows == 2 && g.cols == 3 && g.values[0] == 1 && g.values[4] == 5 && isnan(g.values[2]) &&
                  g.positioned && g.step_x == 1.5 && g.step_y == 2 && g.rows_read == 6 && g.rows_flagged == 1,
              "grid.h5: %zu x %zu, %g %g %g, positioned %d, steps %g %g", g.cols, g.rows, g.values[0], g.values[4],
              g.values[2], g.positioned, g.step_x, g.step_y);
        scan_grid_free(&g);
    } else
        CHECK(0, "grid.h5: %s", msg.text);

    /* A list of 4 images: points (1, 2), (0, 0), one never written, (0, 1). */
    const double list_rows[4] = { 1, 0, -1, 0 }, list_cols[4] = { 2, 0, -1, 1 }, list_e11[4] = { 6, 1, NAN, 2 };
    const char *list = temp_path("list.h5");
    hsize_t n = 4;
    file = H5Fcreate(list, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    write_dataset(file, "scan_row", 1, &n, list_rows, 1);
    write_dataset(file, "scan_col", 1, &n, list_cols, 1);
    write_dataset(file, "e11", 1, &n, list_e11, 0);
    H5Fclose(file);
    if (scan_grid_read(list, "e11", -1, &g, &msg) == CLX_OK) {
        CHECK(g.rows == 2 && g.cols == 3 && g.values[0] == 1 && g.values[1] == 2 && g.values[5] == 6 &&
                  isnan(g.values[3]) && g.rows_read == 3 && !g.positioned,
              "list.h5: %zu x %zu, %g %g %g, %zu rows", g.cols, g.rows, g.values[0], g.values[1], g.values[5],
              g.rows_read);
        scan_grid_free(&g);
    } else
        CHECK(0, "list.h5: %s", msg.text);

    /* offsets' per-window datasets over the grid: dx (2, 3, 2), flags per
     * window; window 1 of (0, 0) flagged 2 (left out), of (1, 1) 8 (kept). */
    const double dx[12] = { 1, 3, 2, 2, 3, 3, 4, 4, 5, 7, 6, 6 };
    const double window_flags[12] = { 0, 2, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0 };
    const char *windows = temp_path("windows.h5");
    file = H5Fcreate(windows, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    write_dataset(file, "scan_row", 2, dims, rows, 1);
    write_dataset(file, "scan_col", 2, dims, cols, 1);
    write_dataset(file, "dx", 3, dims, dx, 0);
    write_dataset(file, "flags", 3, dims, window_flags, 1);
    write_dataset(file, "bad", 2, (hsize_t[]){ 3, 2 }, e11, 0);
    H5Fclose(file);
    if (scan_grid_read(windows, "dx", -1, &g, &msg) == CLX_OK) {
        CHECK(g.windows == 2 && g.values[0] == 1 && g.values[1] == 2 && g.values[4] == 6 && g.rows_flagged == 1 &&
                  g.rows_read == 12,
              "windows.h5: %zu windows, %g %g %g, %zu flagged", g.windows, g.values[0], g.values[1], g.values[4],
              g.rows_flagged);
        scan_grid_free(&g);
    } else
        CHECK(0, "windows.h5: %s", msg.text);
    if (scan_grid_read(windows, "dx", 1, &g, &msg) == CLX_OK) {
        CHECK(isnan(g.values[0]) && g.values[4] == 7, "windows.h5, window 1: %g %g", g.values[0], g.values[4]);
        scan_grid_free(&g);
    } else
        CHECK(0, "windows.h5, window 1: %s", msg.text);

    static const struct {
        const char *path_name, *column, *message;   /* %s: the path */
    } bad[] = {
        { "windows.h5", "e11", "--map e11: %s has no such column; it has bad, dx, flags, scan_col, scan_row" },
        { "windows.h5", "bad", "%s: the dataset bad (3 x 2) is not shaped as its scan_row (2 x 3)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = temp_path(bad[i].path_name);
        snprintf(want, sizeof want, bad[i].message, path);
        CHECK(scan_grid_read(path, bad[i].column, -1, &g, &msg) == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0,
              "%s, %s: '%s', want '%s'", bad[i].path_name, bad[i].column, msg.text, want);
    }
    const char *no_scan = temp_path("no-scan.h5");
    file = H5Fcreate(no_scan, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    write_dataset(file, "dx", 1, &n, list_e11, 0);
    H5Fclose(file);
    snprintf(want, sizeof want, "--map needs a results file of a scan: scan_row and scan_col columns; %s has dx",
             no_scan);
    CHECK(scan_grid_read(no_scan, "dx", -1, &g, &msg) == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0,
          "no scan: %s", msg.text);
    /* The signature, then nothing HDF5 can read. */
    const char *broken = write_file("broken.h5", "\x89HDF\r\n\x1a\n and then nothing");
    snprintf(want, sizeof want, "%s: cannot be read as HDF5", broken);
    CHECK(scan_grid_read(broken, "dx", -1, &g, &msg) == CLX_ERR_IO && strcmp(msg.text, want) == 0, "broken: %s",
          msg.text);
#else
    const char *h5 = write_file("strain.h5", "\x89HDF\r\n\x1a\n and the rest");
    snprintf(want, sizeof want, "%s: an HDF5 file, and this clxcorr was built without HDF5 (install libhdf5-dev and "
             "build again, or write the results as CSV)", h5);
    CHECK(scan_grid_read(h5, "e11", -1, &g, &msg) == CLX_ERR_FORMAT && strcmp(msg.text, want) == 0,
          "HDF5 without HDF5: %s", msg.text);
#endif
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror(dir);
        return 99;
    }
    check_numbers();
    check_results_good();
    check_results_bad();
    check_results_forms();
    check_results_column();
    check_quiver();
    check_quiver_scaling();
    check_quiver_colours();
    check_quiver_mean();
    check_series();
    check_scan_grid();
    check_scan_grid_errors();
    check_text();
    check_map_scale();
    check_map_size();
    check_map_picture();
    check_map_grains();
    check_scan_columns();
    check_tensor();
    check_h5_scans();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
