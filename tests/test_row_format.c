/*
 * test_row_format.c - offsets rows as CSV, TSV and JSON lines (row_format.c):
 * the default CSV byte for byte as offsets has always written it, in both
 * modes; chosen columns in a chosen order; each format's escaping of image
 * names and of numbers JSON has not; and every --format and --columns
 * error with its message.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output/csv_output.h"
#include "output/row_format.h"

static const clx_region regions[3] = { { 20, 20, 100, 100 }, { 104, 20, 100, 100 }, { 0, 7, 32, 31 } };

/* Results with awkward values: negative zeros, a large peak, exponents. */
static const clx_result results[3] = {
    { 1.558909, 5.689843, 158622112.0, 1, 5, 0, 0.999087, 2.562, 2, 1.21593e-05, 9.082e-05, 8.991e-05,
      0.001723528, -0.001529547, -0.001528631, 0.0002547503 },
    { -0.0, -0.0000004, 9.43663e8, 0, 0, 8, 0.5, 1.0994, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
    { -12.3456789, 0.25, 3.5e-5, -3, 2, 34, -0.25, 123456.7, 12, 1.5, 0.25, 1e-9, -0.0, 0.1, -1e-7, 3 },
};

/* Formats the three rows; the text, NUL-terminated (static). */
static const char *format_rows(const struct row_format *f, const char *name)
{
    static char out[8192];
    struct csv_text t = { 0 };
    int status = row_format_image(f, &t, name, NULL, NULL, regions, 3, results);
    CHECK(status == CLX_OK && t.rows == 3, "row_format_image: status %d, %zu rows", status, t.rows);
    snprintf(out, sizeof out, "%.*s", (int)t.len, t.text ? t.text : "");
    csv_text_free(&t);
    return out;
}

/* The default CSV, both modes, as the offsets command has always written
 * it (the numbers in printf's forms; names quoted per RFC 4180). */
static const char *const default_csv[6] = {
        "samples/data/image_0001.tif,0,69.5,69.5,1.558909,5.689843,158622112,0\n"
        "samples/data/image_0001.tif,1,153.5,69.5,-0.000000,-0.000000,943663000,8\n"
        "samples/data/image_0001.tif,2,15.5,22.0,-12.345679,0.250000,3.5e-05,34\n"
        "",
        "\"a,b \"\"c\"\".tif\",0,69.5,69.5,1.558909,5.689843,158622112,0\n"
        "\"a,b \"\"c\"\".tif\",1,153.5,69.5,-0.000000,-0.000000,943663000,8\n"
        "\"a,b \"\"c\"\".tif\",2,15.5,22.0,-12.345679,0.250000,3.5e-05,34\n"
        "",
        "\"x\n"
        "y.tif\",0,69.5,69.5,1.558909,5.689843,158622112,0\n"
        "\"x\n"
        "y.tif\",1,153.5,69.5,-0.000000,-0.000000,943663000,8\n"
        "\"x\n"
        "y.tif\",2,15.5,22.0,-12.345679,0.250000,3.5e-05,34\n"
        "",
        "samples/data/image_0001.tif,0,69.5,69.5,1.558909,5.689843,158622112,0,0.999087,2.562,2\n"
        "samples/data/image_0001.tif,1,153.5,69.5,-0.000000,-0.000000,943663000,8,0.500000,1.099,0\n"
        "samples/data/image_0001.tif,2,15.5,22.0,-12.345679,0.250000,3.5e-05,34,-0.250000,1.235e+05,12\n"
        "",
        "\"a,b \"\"c\"\".tif\",0,69.5,69.5,1.558909,5.689843,158622112,0,0.999087,2.562,2\n"
        "\"a,b \"\"c\"\".tif\",1,153.5,69.5,-0.000000,-0.000000,943663000,8,0.500000,1.099,0\n"
        "\"a,b \"\"c\"\".tif\",2,15.5,22.0,-12.345679,0.250000,3.5e-05,34,-0.250000,1.235e+05,12\n"
        "",
        "\"x\n"
        "y.tif\",0,69.5,69.5,1.558909,5.689843,158622112,0,0.999087,2.562,2\n"
        "\"x\n"
        "y.tif\",1,153.5,69.5,-0.000000,-0.000000,943663000,8,0.500000,1.099,0\n"
        "\"x\n"
        "y.tif\",2,15.5,22.0,-12.345679,0.250000,3.5e-05,34,-0.250000,1.235e+05,12\n"
        "",
};

static void check_default_csv(void)
{
    const char *names[] = { "samples/data/image_0001.tif", "a,b \"c\".tif", "x\ny.tif" };
    for (int quality = 0; quality <= 1; quality++)
        for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
            struct row_format f;
            row_format_init(&f, quality);
            const char *got = format_rows(&f, names[n]);
            const char *want = default_csv[quality * 3 + n];
            CHECK(strcmp(got, want) == 0, "quality %d, name '%s': row_format wrote\n%s\nexpected\n%s", quality,
                  names[n], got, want);
        }
    struct row_format f;
    char header[256];
    row_format_init(&f, 1);
    CHECK(row_format_header(&f, header, sizeof header) > 0 &&
              strcmp(header, "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations\n") == 0,
          "accurate header: %s", header);
    row_format_init(&f, 0);
    CHECK(row_format_header(&f, header, sizeof header) > 0 &&
              strcmp(header, "image,region,x,y,dx,dy,peak,flags\n") == 0,
          "seed header: %s", header);
    CHECK(row_format_header(&f, header, 10) == -1, "a header that does not fit");
}

/* A pair's reference column, a sequence's totals. */
static void check_pair_columns(void)
{
    struct row_format f;
    clx_message msg;
    char header[256];
    const double tx[3] = { 1.5, NAN, -0.25 }, ty[3] = { 0.125, 2, 3 };
    const struct row_extras extras = { "a,b.tif", tx, ty };
    row_format_init(&f, ROW_GROUP_PAIRS | ROW_GROUP_TOTALS);
    CHECK(row_format_header(&f, header, sizeof header) > 0 &&
              strcmp(header, "image,reference,region,x,y,dx,dy,total_dx,total_dy,peak,flags\n") == 0,
          "pairs and totals header: %s", header);
    CHECK(row_format_set_columns(&f, "reference,total_dx,region", ROW_GROUP_PAIRS | ROW_GROUP_TOTALS, &msg) == CLX_OK,
          "columns: %s", msg.text);
    struct csv_text t = { 0 };
    CHECK(row_format_image(&f, &t, "b.tif", NULL, &extras, regions, 3, results) == CLX_OK && t.len > 0 &&
              strncmp(t.text, "\"a,b.tif\",1.500000,0\n\"a,b.tif\",nan,1\n\"a,b.tif\",-0.250000,2\n", t.len) == 0,
          "reference and totals: %.*s", (int)t.len, t.text);
    csv_text_free(&t);
    row_format_init(&f, 0);
    CHECK(row_format_set_columns(&f, "image,total_dy", ROW_GROUP_PAIRS, &msg) == CLX_ERR_ARGUMENT &&
              strcmp(msg.text, "--columns: total_dy is written with --reference previous only") == 0,
          "totals without a sequence: %s", msg.text);
}

/* IC-GN's columns and its shape function's, and their precisions. */
static void check_icgn_columns(void)
{
    struct row_format f;
    char header[256];
    row_format_init(&f, ROW_GROUP_ACCURATE | ROW_GROUP_ICGN | ROW_GROUP_SHAPE);
    CHECK(row_format_header(&f, header, sizeof header) > 0 &&
              strcmp(header, "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations,znssd,sigma_dx,sigma_dy,"
                             "dudx,dudy,dvdx,dvdy,exx,eyy,exy\n") == 0,
          "IC-GN shape 1 header: %s", header);
    const char *got = format_rows(&f, "a.tif");
    const char *want =
        "a.tif,0,69.5,69.5,1.558909,5.689843,158622112,0,0.999087,2.562,2,1.21593e-05,9.082e-05,8.991e-05,"
        "0.001723528,-0.001529547,-0.001528631,0.0002547503,0.001726182,0.0002559525,-0.001530602\n"
        "a.tif,1,153.5,69.5,-0.000000,-0.000000,943663000,8,0.500000,1.099,0,nan,nan,nan,nan,nan,nan,nan,nan,nan,"
        "nan\n"
        "a.tif,2,15.5,22.0,-12.345679,0.250000,3.5e-05,34,-0.250000,1.235e+05,12,1.5,0.25,1e-09,-0,0.1,-1e-07,3,"
        "5e-15,7.505,0.0499998\n";
    CHECK(strcmp(got, want) == 0, "IC-GN rows:\n%s\nexpected\n%s", got, want);
    row_format_init(&f, ROW_GROUP_ACCURATE | ROW_GROUP_ICGN);
    CHECK(row_format_header(&f, header, sizeof header) > 0 &&
              strcmp(header, "image,region,x,y,dx,dy,peak,flags,zncc,peak_ratio,iterations,znssd,sigma_dx,"
                             "sigma_dy\n") == 0,
          "IC-GN shape 0 header: %s", header);
}

static void check_columns_and_formats(void)
{
    struct row_format f;
    clx_message msg;
    char header[256];

    row_format_init(&f, 1);
    CHECK(row_format_set_columns(&f, "dy,image,dx,iterations", 1, &msg) == CLX_OK, "columns: %s", msg.text);
    CHECK(row_format_header(&f, header, sizeof header) > 0 && strcmp(header, "dy,image,dx,iterations\n") == 0,
          "header: %s", header);
    const char *got = format_rows(&f, "a.tif");
    CHECK(strcmp(got, "5.689843,a.tif,1.558909,2\n"
                      "-0.000000,a.tif,-0.000000,0\n"
                      "0.250000,a.tif,-12.345679,12\n") == 0,
          "chosen columns:\n%s", got);

    CHECK(row_format_set_kind(&f, "tsv", &msg) == CLX_OK, "tsv: %s", msg.text);
    CHECK(row_format_set_columns(&f, "image,region,x,y,flags", 1, &msg) == CLX_OK, "columns: %s", msg.text);
    CHECK(row_format_header(&f, header, sizeof header) > 0 && strcmp(header, "image\tregion\tx\ty\tflags\n") == 0,
          "tsv header: %s", header);
    got = format_rows(&f, "dir\\a\tb\nc.tif");
    CHECK(strcmp(got, "dir\\\\a\\tb\\nc.tif\t0\t69.5\t69.5\t0\n"
                      "dir\\\\a\\tb\\nc.tif\t1\t153.5\t69.5\t8\n"
                      "dir\\\\a\\tb\\nc.tif\t2\t15.5\t22.0\t34\n") == 0,
          "tsv rows:\n%s", got);

    CHECK(row_format_set_kind(&f, "jsonl", &msg) == CLX_OK, "jsonl: %s", msg.text);
    row_format_init(&f, 1);
    row_format_set_kind(&f, "jsonl", &msg);
    CHECK(row_format_header(&f, header, sizeof header) == 0 && header[0] == '\0', "JSON lines have no header");
    /* Not UTF-8: 0xff, and a UTF-8 surrogate's bytes, each as \udcXX
     * (Python's surrogateescape gives them back); valid UTF-8 as it is. */
    got = format_rows(&f, "q\"b\\s\x01 \xc3\xa9\xff\xed\xb3\xbf.tif");
    const char *want_first = "{\"image\":\"q\\\"b\\\\s\\u0001 \xc3\xa9\\udcff\\udced\\udcb3\\udcbf.tif\",\"region\":0,\"x\":69.5,"
                             "\"y\":69.5,\"dx\":1.558909,\"dy\":5.689843,\"peak\":158622112,\"flags\":0,"
                             "\"zncc\":0.999087,\"peak_ratio\":2.562,\"iterations\":2}\n";
    CHECK(strncmp(got, want_first, strlen(want_first)) == 0, "first JSON line:\n%s\nwant\n%s", got, want_first);
    CHECK(strstr(got, "\"peak\":3.5e-05,") &&
              strstr(got, "\"zncc\":-0.250000,\"peak_ratio\":1.235e+05,\"iterations\":12}\n"),
          "third JSON line:\n%s", got);

    /* JSON has no NaN: null. */
    clx_result nan_result = results[0];
    nan_result.dx = NAN;
    nan_result.zncc = INFINITY;
    struct csv_text t = { 0 };
    row_format_set_columns(&f, "dx,dy,zncc", 1, &msg);
    CHECK(row_format_image(&f, &t, "n.tif", NULL, NULL, regions, 1, &nan_result) == CLX_OK && t.len > 0 &&
              strncmp(t.text, "{\"dx\":null,\"dy\":5.689843,\"zncc\":null}\n", t.len) == 0,
          "NaN and infinity: %.*s", (int)t.len, t.text);
    csv_text_free(&t);
}

static void check_errors(void)
{
    static const struct {
        const char *list;
        unsigned quality;   /* the run's column groups */
        const char *message;
    } bad[] = {
        { "image,speed", 1,
          "--columns: unknown column 'speed' (known: image, region, x, y, dx, dy, peak, flags, in accurate mode "
          "zncc, peak_ratio, iterations, with IC-GN znssd, sigma_dx, sigma_dy, with --shape 1 dudx, dudy, dvdx, dvdy, "
          "exx, eyy, exy, over a scan scan_row, scan_col, scan_x, scan_y, with --reference pairs or previous reference, with "
          "previous total_dx, total_dy)" },
        { "dx,dy,dx", 1, "--columns: dx is named twice" },
        { "image,,dx", 1, "--columns: an empty column name in 'image,,dx'" },
        { "image,", 1, "--columns: an empty column name in 'image,'" },
        { "", 1, "--columns: an empty column name in ''" },
        { "dx,zncc", 0, "--columns: zncc is written in accurate mode only" },
        { "dx,sigma_dx", ROW_GROUP_ACCURATE,
          "--columns: sigma_dx is written by the IC-GN refinement (accurate mode, --refine icgn) only" },
        { "dudy", ROW_GROUP_ACCURATE | ROW_GROUP_ICGN,
          "--columns: dudy is written with --shape 1 (accurate mode, --refine icgn) only" },
        { "DX", 1,
          "--columns: unknown column 'DX' (known: image, region, x, y, dx, dy, peak, flags, in accurate mode "
          "zncc, peak_ratio, iterations, with IC-GN znssd, sigma_dx, sigma_dy, with --shape 1 dudx, dudy, dvdx, dvdy, "
          "exx, eyy, exy, over a scan scan_row, scan_col, scan_x, scan_y, with --reference pairs or previous reference, with "
          "previous total_dx, total_dy)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct row_format f;
        clx_message msg;
        row_format_init(&f, bad[i].quality);
        int status = row_format_set_columns(&f, bad[i].list, bad[i].quality, &msg);
        CHECK(status == CLX_ERR_ARGUMENT && strcmp(msg.text, bad[i].message) == 0, "'%s': %d '%s'", bad[i].list,
              status, msg.text);
        struct row_format fresh;
        row_format_init(&fresh, bad[i].quality);
        CHECK(f.ncolumns == fresh.ncolumns && memcmp(f.columns, fresh.columns, f.ncolumns * sizeof *f.columns) == 0,
              "'%s' changed the columns", bad[i].list);
    }
    struct row_format f;
    clx_message msg;
    row_format_init(&f, 0);
    CHECK(row_format_set_kind(&f, "xml", &msg) == CLX_ERR_ARGUMENT &&
              strcmp(msg.text, "--format: unknown format 'xml' (csv, tsv, jsonl, h5, vtk or openpiv)") == 0 && f.kind == ROW_FORMAT_CSV,
          "xml: %s", msg.text);
    CHECK(row_format_set_columns(&f, "peak_ratio", 0, &msg) == CLX_ERR_ARGUMENT, "peak_ratio in seed mode");
    CHECK(row_format_set_columns(&f, "region,flags", 0, &msg) == CLX_OK && f.ncolumns == 2 &&
              f.columns[0] == ROW_COLUMN_REGION && f.columns[1] == ROW_COLUMN_FLAGS,
          "region,flags in seed mode: %s", msg.text);
    CHECK(strcmp(row_column_name(ROW_COLUMN_PEAK_RATIO), "peak_ratio") == 0, "column names");
}

/* Green-Lagrange strains: none for a rigid rotation (however large), the
 * quadratic term for a stretch and for a simple shear. */
static void check_green_lagrange(void)
{
    double angle = 0.3, e[3];
    clx_result rotation = { .dudx = cos(angle) - 1, .dudy = -sin(angle), .dvdx = sin(angle), .dvdy = cos(angle) - 1 };
    row_green_lagrange(&rotation, e);
    CHECK(fabs(e[0]) < 1e-15 && fabs(e[1]) < 1e-15 && fabs(e[2]) < 1e-15, "rotation by 0.3 rad: E = %g %g %g", e[0],
          e[1], e[2]);
    clx_result stretch = { .dudx = 0.1, .dudy = 0, .dvdx = 0, .dvdy = -0.02 };
    row_green_lagrange(&stretch, e);
    CHECK(fabs(e[0] - 0.105) < 1e-15 && fabs(e[1] - (-0.02 + 0.0002)) < 1e-15 && e[2] == 0,
          "stretch 0.1, -0.02: E = %g %g %g", e[0], e[1], e[2]);
    clx_result shear = { .dudx = 0, .dudy = 0.2, .dvdx = 0, .dvdy = 0 };   /* x moves with y */
    row_green_lagrange(&shear, e);
    CHECK(e[0] == 0 && fabs(e[1] - 0.02) < 1e-15 && fabs(e[2] - 0.1) < 1e-15, "simple shear 0.2: E = %g %g %g", e[0],
          e[1], e[2]);
}

/* A value from a small generator of our own (the test is the same on every libc). */
static double draw(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/* The fast %g writer against printf byte for byte: random values over 60
 * decades, values near each digit count's rounding ties and exact ties
 * (n + 0.5 scaled by powers of two), carries (9.9999995...), small and
 * large exponents, both signs, the digit counts the rows use. The
 * fast path must also take most values, or it saves nothing. */
static void check_general_numbers(void)
{
    static const int digit_counts[] = { 4, 6, 7, 9 };
    unsigned long long state = 12345;
    long compared = 0, fast = 0, wrong = 0;
    for (int i = 0; i < 1500000; i++) {
        int digits = digit_counts[i % 4];
        double v;
        switch (i % 5) {
        case 0: v = draw(&state) * pow(10, (int)(draw(&state) * 60) - 30); break;
        case 1: v = ((double)(long)(draw(&state) * 1e9) + 0.5) * pow(2, (int)(draw(&state) * 40) - 45); break;
        case 2: v = (floor(draw(&state) * pow(10, digits)) + 0.5) * pow(10, (int)(draw(&state) * 12) - 6 - digits); break;
        case 3: v = (pow(10, digits) - 0.5 + (draw(&state) - 0.5) * 1e-3) * pow(10, (int)(draw(&state) * 20) - 10 - digits); break;
        default: v = (draw(&state) - 0.5) * 0.01; break;
        }
        if (i & 1)
            v = -v;
        char want[64], got[64];
        snprintf(want, sizeof want, "%.*g", digits, v);
        int n = row_put_general_fast(got, v, digits);
        compared++;
        if (n == 0)
            continue;
        fast++;
        got[n] = '\0';
        if (strcmp(got, want) != 0 && wrong++ < 5)
            CHECK(0, "%%.%dg of %.17g: printf writes %s, the fast path %s", digits, v, want, got);
    }
    CHECK(wrong == 0, "%ld of %ld values differ from printf", wrong, compared);
    CHECK(fast > compared / 2, "only %ld of %ld values took the fast path", fast, compared);
    char out[64];
    CHECK(row_put_general_fast(out, 0.0, 7) == 0 && row_put_general_fast(out, INFINITY, 7) == 0 &&
              row_put_general_fast(out, 1234.5, 4) == 0,
          "zero, infinity and an exact tie are left to printf");
}

int main(void)
{
    check_general_numbers();
    check_default_csv();
    check_icgn_columns();
    check_pair_columns();
    check_green_lagrange();
    check_columns_and_formats();
    check_errors();
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
