/*
 * test_containers.c - EBSD pattern files in HDF5 (src/image/load_hdf5.c,
 * h5ebsd_headers.c, hdf5_read.c, lzf_filter.c, pattern_centre.c).
 *
 * Three kinds of input:
 *   - the committed fixtures in tests/data/ebsd, written by kikuchipy and
 *     h5py (make_fixtures.py), for the layouts those tools write;
 *   - files written here through the HDF5 C API in the layouts of EDAX OIM,
 *     Bruker Esprit, Oxford H5OINA and EMsoft (4 and 5), as their
 *     documentation and kikuchipy's readers describe them, with the quirks
 *     that matter: names with a leading blank, big-endian values, a Bruker
 *     region of interest stored out of map order, H5OINA's (1, 1) header
 *     values and unprocessed patterns alone;
 *   - damaged files: every header problem gets one message naming the file
 *     and the dataset, and bytes overwritten anywhere in a real file give an
 *     error or patterns, never a crash;
 *   - a copy of a fixture in gzip-compressed chunks of several patterns
 *     (h5_rechunk.c), read through H5Dread and its chunk cache.
 * Pattern centres are checked against kikuchipy's own test vectors.
 * KEEP=1 keeps the temporary directory.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "check.h"
#include "clxcorr.h"
#include "h5_rechunk.h"
#include "image/lzf_filter.h"
#include "image/pattern_centre.h"

static char dir[1024];
static char fixtures[1024];

static void path_make(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
}

static void fixture_path(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", fixtures, name);
}

/* ---- writing HDF5 files ---------------------------------------------------- */

static hid_t file_create(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) {
        printf("FAIL: cannot create %s\n", path);
        exit(1);
    }
    return f;
}

/* A link creation list that makes the path's missing groups. */
static hid_t make_parents(void)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    return lcpl;
}

/* A dataset of `rank` dims of file type `ftype`, written from `data` of memory type `mtype`. */
static void put(hid_t loc, const char *path, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                const void *data)
{
    hid_t lcpl = make_parents(), space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(loc, path, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        printf("FAIL: cannot write the dataset %s\n", path);
        exit(1);
    }
    H5Dclose(d);
    H5Sclose(space);
    H5Pclose(lcpl);
}

/* One number, as a (1,) array of file type `ftype` (EDAX's and Bruker's header values). */
static void put_number(hid_t loc, const char *path, hid_t ftype, double value)
{
    hsize_t one = 1;
    put(loc, path, ftype, H5T_NATIVE_DOUBLE, 1, &one, &value);
}

/* A string: fixed length (1,) as h5py writes np.array([b"..."]), or variable-length scalar as EMsoft does. */
static void put_string(hid_t loc, const char *path, const char *value, int variable)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hsize_t one = 1;
    if (variable) {
        H5Tset_size(type, H5T_VARIABLE);
        put(loc, path, type, type, 0, NULL, &value);
    } else {
        H5Tset_size(type, strlen(value));
        H5Tset_strpad(type, H5T_STR_NULLPAD);
        put(loc, path, type, type, 1, &one, value);
    }
    H5Tclose(type);
}

/* n doubles as a (n,) array of `ftype`. */
static void put_numbers(hid_t loc, const char *path, hid_t ftype, const double *values, size_t n)
{
    hsize_t dims = n;
    put(loc, path, ftype, H5T_NATIVE_DOUBLE, 1, &dims, values);
}

/* The test patterns: pixel (x, y) of pattern p, for any bit depth. */
static unsigned pixel_value(int p, int x, int y, int bits)
{
    unsigned v = (unsigned)(p * 4099 + y * 131 + x * 7 + 3);
    return bits == 8 ? v & 0xff : v & 0xffff;
}

/* n patterns of w x h as an (n, h, w) dataset of file type `ftype` (8- or 16-bit, or float). */
static void put_patterns(hid_t loc, const char *path, hid_t ftype, int n, int w, int h, int bits)
{
    hsize_t dims[3] = { (hsize_t)n, (hsize_t)h, (hsize_t)w };
    size_t count = (size_t)n * w * h;
    float *values = malloc(count * sizeof *values);
    for (int p = 0; p < n; p++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                values[((size_t)p * h + y) * w + x] = (float)pixel_value(p, x, y, bits);
    put(loc, path, ftype, H5T_NATIVE_FLOAT, 3, dims, values);
    free(values);
}

/* ---- reading back ---------------------------------------------------------- */

static double pixel_at(const clx_image *im, int x, int y)
{
    size_t i = (size_t)y * im->width + x;
    switch (im->type) {
    case CLX_PIXEL_U8: return ((const uint8_t *)im->pixels)[i];
    case CLX_PIXEL_U16: return ((const uint16_t *)im->pixels)[i];
    default: return ((const float *)im->pixels)[i];
    }
}

/* Page `page` of f is pattern `pattern` of the test patterns: every pixel. */
static int page_is_pattern(clx_image_file *f, int page, int pattern, int bits)
{
    clx_image im = { 0 };
    clx_message msg;
    if (clx_image_file_read(f, page, &im, &msg) != CLX_OK) {
        fprintf(stderr, "  page %d: %s\n", page, msg.text);
        return 0;
    }
    int same = 1;
    for (int y = 0; y < im.height && same; y++)
        for (int x = 0; x < im.width && same; x++)
            same = pixel_at(&im, x, y) == pixel_value(pattern, x, y, bits);
    clx_image_free(&im);
    return same;
}

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

/* Opening `path` (scan `scan`) fails with `status` and a message holding every one of the words. */
static void expect_open_error(const char *what, const char *path, const char *scan, int status, const char *words1,
                              const char *words2)
{
    clx_image_file *f = NULL;
    clx_message msg = { "" };
    int got = clx_image_file_open_scan(path, scan, &f, &msg);
    CHECK(got == status, "%s: status %d, expected %d (%s)", what, got, status, msg.text);
    CHECK(got == CLX_OK || f == NULL, "%s: a failed open returned a file", what);
    CHECK(strncmp(msg.text, path, strlen(path)) == 0, "%s: the message does not start with the file: %s", what,
          msg.text);
    CHECK(!strchr(msg.text, '\n'), "%s: the message is not one line: %s", what, msg.text);
    CHECK(!words1 || strstr(msg.text, words1), "%s: '%s' not in: %s", what, words1, msg.text);
    CHECK(!words2 || strstr(msg.text, words2), "%s: '%s' not in: %s", what, words2, msg.text);
    if (got == CLX_OK)
        clx_image_file_close(f);
}

static clx_image_file *open_ok(const char *path, const char *scan)
{
    clx_image_file *f = NULL;
    clx_message msg;
    if (clx_image_file_open_scan(path, scan, &f, &msg) != CLX_OK) {
        CHECK(0, "%s: %s", path, msg.text);
        return NULL;
    }
    return f;
}

/* ---- pattern centres: kikuchipy's test vectors ------------------------------ */

static void test_pattern_centres(void)
{
    /* tests/test_detectors/test_ebsd_detector.py, shapes as (rows, columns). */
    static const struct {
        enum pc_convention from;
        int rows, cols, binning;
        double pixel_size, in[3], out[3];
    } cases[] = {
        { PC_EMSOFT5, 61, 61, 8, 59.2, { 10.632, 145.5187, 19918.9 }, { 0.47821, 0.20181, 0.68948 } },
        { PC_EMSOFT5, 80, 60, 6, 50, { -0.55, -13.00, 16075.2 }, { 0.50153, 0.52708, 0.66980 } },
        { PC_EMSOFT4, 80, 60, 6, 50, { 0.55, -13.00, 16075.2 }, { 0.50153, 0.52708, 0.66980 } },
        { PC_EMSOFT5, 480, 640, 1, 50, { 0, 0, 15000 }, { 0.5, 0.5, 0.625 } },
        { PC_TSL, 60, 80, 1, NAN, { 0.35, 1, 0.65 }, { 0.35, 0, 0.65 } },
        { PC_OXFORD, 60, 80, 1, NAN, { 0.25, 0, 0.75 }, { 0.25, 1, 1 } },
        { PC_BRUKER, 60, 80, 1, NAN, { 0.4, 0.3, 0.6 }, { 0.4, 0.3, 0.6 } },
        /* EBSD_TEST_Ni.h5 (EMsoft 4.2 values, converted as v5 as kikuchipy does). */
        { PC_EMSOFT5, 480, 640, 1, 50, { 20, 20, 15000 }, { 0.46875, 0.458333, 0.625 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double out[3];
        pc_to_bruker(cases[i].from, cases[i].in, cases[i].cols, cases[i].rows, cases[i].binning, cases[i].pixel_size,
                     out);
        for (int k = 0; k < 3; k++)
            CHECK(near(out[k], cases[i].out[k], 6e-6), "case %zu (%s): component %d is %.6f, kikuchipy gives %.6f", i,
                  pc_convention_name(cases[i].from), k, out[k], cases[i].out[k]);
    }
}

/* ---- LZF ------------------------------------------------------------------- */

static void test_lzf(void)
{
    /* "abc" as 3 literals, then a back reference of 9 bytes at distance 3. */
    static const unsigned char stream[] = { 2, 'a', 'b', 'c', 0xE0, 0, 2 };
    unsigned char out[16];
    int too_small = 0;
    size_t n = lzf_decode(stream, sizeof stream, out, sizeof out, &too_small);
    CHECK(n == 12 && memcmp(out, "abcabcabcabc", 12) == 0, "decoded %zu bytes: %.12s", n, out);
    n = lzf_decode(stream, sizeof stream, out, 8, &too_small);
    CHECK(n == 0 && too_small, "an output of 8 bytes for 12: %zu, too_small %d", n, too_small);
    /* A reference before the start of the output. */
    static const unsigned char bad[] = { 0, 'a', 0x20, 5 };
    too_small = 1;
    n = lzf_decode(bad, sizeof bad, out, sizeof out, &too_small);
    CHECK(n == 0 && !too_small, "a reference before the start: %zu, too_small %d", n, too_small);
    /* A literal run past the end of the input. */
    static const unsigned char cut[] = { 5, 'a', 'b' };
    n = lzf_decode(cut, sizeof cut, out, sizeof out, &too_small);
    CHECK(n == 0 && !too_small, "a literal run cut short: %zu", n);
}

/* ---- the committed fixtures ------------------------------------------------ */

/* The fixtures' scan: 2 x 3 patterns of 96 x 80, steps 1.5 and 2.0 µm, pattern centre (0.42, 0.31, 0.58). */
static void check_fixture_scan(const char *what, const clx_scan_info *s, const char *format, double tol)
{
    CHECK(s != NULL, "%s: no scan", what);
    if (!s)
        return;
    CHECK(strcmp(s->format, format) == 0, "%s: format '%s'", what, s->format);
    CHECK(s->rows == 2 && s->cols == 3, "%s: grid %d x %d", what, s->rows, s->cols);
    CHECK(near(s->step_x, 1.5, 1e-6) && near(s->step_y, 2.0, 1e-6), "%s: steps %g, %g", what, s->step_x, s->step_y);
    CHECK(s->has_pc && near(s->pcx, 0.42, tol) && near(s->pcy, 0.31, tol) && near(s->pcz, 0.58, tol),
          "%s: pattern centre (%.7f, %.7f, %.7f)", what, s->pcx, s->pcy, s->pcz);
}

static void test_kikuchipy_fixture(void)
{
    char path[1200];
    fixture_path(path, sizeof path, "patterns.h5");
    clx_image_file *f = open_ok(path, NULL);
    if (!f)
        return;
    const clx_scan_info *s = clx_image_file_scan(f);
    check_fixture_scan("kikuchipy", s, "kikuchipy h5ebsd", 1e-12);
    CHECK(strcmp(s->scan, "Scan 1") == 0 && strcmp(s->pc_convention, "Bruker") == 0, "scan '%s', convention '%s'",
          s->scan, s->pc_convention);
    CHECK(clx_image_file_pages(f) == 6 && clx_image_file_shared(f), "pages %d, shared %d", clx_image_file_pages(f),
          clx_image_file_shared(f));
    double pc[3];
    CHECK(clx_image_file_pattern_centre(f, 5, pc) == CLX_OK && near(pc[0], 0.42, 1e-12), "page 5's pattern centre");
    clx_image im = { 0 };
    clx_message msg;
    CHECK(clx_image_file_read(f, 0, &im, &msg) == CLX_OK && im.width == 96 && im.height == 80 &&
          im.type == CLX_PIXEL_U16, "page 0: %dx%d type %d", im.width, im.height, (int)im.type);
    clx_image_free(&im);
    CHECK(clx_image_file_read(f, 6, &im, &msg) != CLX_OK && strstr(msg.text, "6"), "page 6 of 6: %s", msg.text);
    clx_image_file_close(f);
}

/* The two fixtures hold the same patterns: Oxford's LZF-compressed 8-bit ones are kikuchipy's >> 8. */
static void test_oxford_fixture(void)
{
    char kpath[1200], opath[1200];
    fixture_path(kpath, sizeof kpath, "patterns.h5");
    fixture_path(opath, sizeof opath, "patterns.h5oina");
    clx_image_file *k = open_ok(kpath, NULL), *o = open_ok(opath, NULL);
    if (!k || !o) {
        if (k)
            clx_image_file_close(k);
        if (o)
            clx_image_file_close(o);
        return;
    }
    const clx_scan_info *s = clx_image_file_scan(o);
    /* Stored as float32 in Oxford's convention, converted back. */
    check_fixture_scan("H5OINA", s, "Oxford H5OINA", 1e-6);
    CHECK(strcmp(s->scan, "1") == 0 && strcmp(s->pc_convention, "Oxford") == 0 && s->pc_per_point,
          "scan '%s', convention '%s', per point %d", s->scan, s->pc_convention, s->pc_per_point);
    CHECK(near(s->sample_tilt, 70, 1e-4) && near(s->detector_tilt, 1.5, 1e-4) && s->binning == 8,
          "tilts %g, %g, binning %d", s->sample_tilt, s->detector_tilt, s->binning);
    double euler[3];
    /* Oxford's frame into kikuchipy's: phi1 + 90 degrees. */
    CHECK(s->has_euler && clx_image_file_euler(o, 4, euler) == CLX_OK && near(euler[0], 0.1 + M_PI / 2, 1e-6) &&
          near(euler[2], 0.3, 1e-6), "page 4's orientation (%g, %g, %g)", euler[0], euler[1], euler[2]);
    for (int p = 0; p < 6; p++) {
        clx_image a = { 0 }, b = { 0 };
        clx_message msg;
        int ok = clx_image_file_read(k, p, &a, &msg) == CLX_OK && clx_image_file_read(o, p, &b, &msg) == CLX_OK &&
                 b.type == CLX_PIXEL_U8 && a.width == b.width && a.height == b.height;
        for (int i = 0; ok && i < a.width * a.height; i++)
            ok = ((const uint16_t *)a.pixels)[i] >> 8 == ((const uint8_t *)b.pixels)[i];
        CHECK(ok, "page %d: the H5OINA pattern is not kikuchipy's >> 8 (%s)", p, msg.text);
        clx_image_free(&a);
        clx_image_free(&b);
    }
    clx_image_file_close(k);
    clx_image_file_close(o);
}

static void test_two_scans_fixture(void)
{
    char path[1200], one[1200];
    fixture_path(path, sizeof path, "two_scans.h5");
    fixture_path(one, sizeof one, "patterns.h5");
    expect_open_error("two scans, none chosen", path, NULL, CLX_ERR_ARGUMENT,
                      "holds 2 scans ('Scan 1' and 'Scan 2'): choose one with --scan NAME", NULL);
    expect_open_error("a scan it does not hold", path, "Scan 3", CLX_ERR_ARGUMENT, "has no scan 'Scan 3'",
                      "its scans: 'Scan 1' and 'Scan 2'");
    clx_image_file *a = open_ok(one, NULL), *b = open_ok(path, "Scan 2");
    if (a && b) {
        CHECK(strcmp(clx_image_file_scan(b)->scan, "Scan 2") == 0, "scan name '%s'", clx_image_file_scan(b)->scan);
        /* Scan 2 holds the patterns in reverse order. */
        clx_image x = { 0 }, y = { 0 };
        clx_message msg;
        CHECK(clx_image_file_read(a, 5, &x, &msg) == CLX_OK && clx_image_file_read(b, 0, &y, &msg) == CLX_OK &&
              memcmp(x.pixels, y.pixels, (size_t)x.width * x.height * 2) == 0, "Scan 2's page 0 is not page 5");
        clx_image_free(&x);
        clx_image_free(&y);
    }
    if (a)
        clx_image_file_close(a);
    if (b)
        clx_image_file_close(b);
}

/* ---- EDAX OIM -------------------------------------------------------------- */

/* An OIM 7 file: root names with a leading blank, big-endian 16-bit patterns and header values. */
static void edax_write(const char *path, const char *grid_type)
{
    hid_t f = file_create(path);
    put_string(f, " Manufacturer", "EDAX", 0);
    put_string(f, " Version", "OIM Analysis 7.2.1 x64 [01-23-15]", 0);
    hid_t s = H5Gcreate2(f, "Scan 1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_patterns(s, "EBSD/Data/Pattern", H5T_STD_U16BE, 4, 80, 60, 16);
    put_number(s, "EBSD/Header/nRows", H5T_STD_I32BE, 2);
    put_number(s, "EBSD/Header/nColumns", H5T_STD_I32LE, 2);
    put_number(s, "EBSD/Header/Pattern Height", H5T_STD_I32LE, 60);
    put_number(s, "EBSD/Header/Pattern Width", H5T_STD_I32LE, 80);
    put_number(s, "EBSD/Header/Step X", H5T_IEEE_F32BE, 0.25);
    put_number(s, "EBSD/Header/Step Y", H5T_IEEE_F32LE, 0.5);
    put_string(s, "EBSD/Header/Grid Type", grid_type, 0);
    put_number(s, "EBSD/Header/Pattern Center Calibration/x-star", H5T_IEEE_F32LE, 0.35);
    put_number(s, "EBSD/Header/Pattern Center Calibration/y-star", H5T_IEEE_F32LE, 1);
    put_number(s, "EBSD/Header/Pattern Center Calibration/z-star", H5T_IEEE_F32LE, 0.65);
    put_number(s, "EBSD/Header/Camera Elevation Angle", H5T_IEEE_F32LE, 5);
    put_number(s, "EBSD/Header/Sample Tilt", H5T_IEEE_F32LE, 70);
    const double phi1[4] = { 0.1, 0.2, 0.3, 0.4 }, phi[4] = { 1, 1, 1, 1 }, phi2[4] = { 2, 2, 2, 2.5 };
    put_numbers(s, "EBSD/Data/Phi1", H5T_IEEE_F32LE, phi1, 4);
    put_numbers(s, "EBSD/Data/Phi", H5T_IEEE_F32LE, phi, 4);
    put_numbers(s, "EBSD/Data/Phi2", H5T_IEEE_F32LE, phi2, 4);
    H5Gclose(s);
    H5Fclose(f);
}

static void test_edax(void)
{
    char path[1200];
    path_make(path, sizeof path, "edax.h5");
    edax_write(path, "SqrGrid");
    clx_image_file *f = open_ok(path, NULL);
    if (f) {
        const clx_scan_info *s = clx_image_file_scan(f);
        CHECK(strcmp(s->format, "EDAX h5") == 0 && strcmp(s->scan, "Scan 1") == 0 && s->rows == 2 && s->cols == 2,
              "format '%s', scan '%s', grid %d x %d", s->format, s->scan, s->rows, s->cols);
        CHECK(near(s->step_x, 0.25, 1e-7) && near(s->step_y, 0.5, 1e-7), "steps %g, %g", s->step_x, s->step_y);
        /* kikuchipy's TSL vector for 60 rows x 80 columns. */
        CHECK(s->has_pc && !s->pc_per_point && near(s->pcx, 0.35, 1e-6) && near(s->pcy, 0, 1e-6) &&
              near(s->pcz, 0.65, 1e-6) && strcmp(s->pc_convention, "TSL") == 0, "pattern centre (%g, %g, %g) %s",
              s->pcx, s->pcy, s->pcz, s->pc_convention);
        CHECK(near(s->detector_tilt, 5, 1e-6) && near(s->sample_tilt, 70, 1e-6), "tilts %g, %g", s->detector_tilt,
              s->sample_tilt);
        double e[3];
        CHECK(s->has_euler && clx_image_file_euler(f, 3, e) == CLX_OK && near(e[0], 0.4, 1e-6) &&
              near(e[2], 2.5, 1e-6), "page 3's orientation (%g, %g, %g)", e[0], e[1], e[2]);
        for (int p = 0; p < 4; p++)
            CHECK(page_is_pattern(f, p, p, 16), "page %d: big-endian pixels read wrong", p);
        clx_image_file_close(f);
    }
    edax_write(path, "HexGrid");
    expect_open_error("a hexagonal EDAX grid", path, NULL, CLX_ERR_FORMAT, "Scan 1",
                      "EBSD/Header/Grid Type is HexGrid: only square grids are read");
}

/* ---- Bruker Esprit --------------------------------------------------------- */

/* A region of interest: entry j lies at map column ix[j], row iy[j] (kikuchipy's dummy's). */
static void bruker_write(const char *path, const double *ix, const double *iy, int n, int sem_group)
{
    hid_t f = file_create(path);
    put_string(f, "Manufacturer", "Bruker Nano", 0);
    put_string(f, "Version", "Esprit 2.X", 0);
    hid_t s = H5Gcreate2(f, "Scan 0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_patterns(s, "EBSD/Data/RawPatterns", H5T_STD_U8LE, n, 20, 16, 8);
    /* The whole map's size: the region's positions override it. */
    put_number(s, "EBSD/Header/NROWS", H5T_STD_I32LE, 5);
    put_number(s, "EBSD/Header/NCOLS", H5T_STD_I32LE, 7);
    put_number(s, "EBSD/Header/PatternHeight", H5T_STD_I32LE, 16);
    put_number(s, "EBSD/Header/PatternWidth", H5T_STD_I32LE, 20);
    put_number(s, "EBSD/Header/XSTEP", H5T_IEEE_F64LE, 0.1);
    put_number(s, "EBSD/Header/YSTEP", H5T_IEEE_F64LE, 0.1);
    put_string(s, "EBSD/Header/Grid Type", "isometric", 0);
    put_number(s, "EBSD/Header/CameraTilt", H5T_IEEE_F64LE, 10);
    put_number(s, "EBSD/Header/SampleTilt", H5T_IEEE_F64LE, 70);
    put_number(s, "EBSD/Header/DetectorFullHeightMicrons", H5T_STD_I32LE, 20000);
    put_number(s, "EBSD/Header/UnClippedPatternHeight", H5T_STD_I32LE, 400);
    double pcx[8], pcy[8], dd[8], phi1[8], phi[8], phi2[8];
    for (int j = 0; j < n; j++) {
        pcx[j] = 0.5 + 0.01 * j;
        pcy[j] = 0.2;
        dd[j] = 0.6;
        phi1[j] = 10.0 * j;
        phi[j] = 45;
        phi2[j] = 90;
    }
    put_numbers(s, "EBSD/Data/PCX", H5T_IEEE_F32LE, pcx, (size_t)n);
    put_numbers(s, "EBSD/Data/PCY", H5T_IEEE_F32LE, pcy, (size_t)n);
    put_numbers(s, "EBSD/Data/DD", H5T_IEEE_F32LE, dd, (size_t)n);
    put_numbers(s, "EBSD/Data/phi1", H5T_IEEE_F32LE, phi1, (size_t)n);
    put_numbers(s, "EBSD/Data/PHI", H5T_IEEE_F32LE, phi, (size_t)n);
    put_numbers(s, "EBSD/Data/phi2", H5T_IEEE_F32LE, phi2, (size_t)n);
    put_numbers(s, sem_group ? "SEM/SEM IX" : "EBSD/SEM/IX", H5T_STD_I32LE, ix, (size_t)n);
    put_numbers(s, sem_group ? "SEM/SEM IY" : "EBSD/SEM/IY", H5T_STD_I32LE, iy, (size_t)n);
    H5Gclose(s);
    H5Fclose(f);
}

static void test_bruker(void)
{
    char path[1200];
    path_make(path, sizeof path, "bruker.h5");
    /* kikuchipy's example: 3 rows x 2 columns; map point p holds file entry order[p]. */
    static const double ix[6] = { 1, 1, 2, 2, 1, 2 }, iy[6] = { 1, 0, 0, 1, 2, 2 };
    static const int order[6] = { 1, 2, 0, 3, 4, 5 };
    for (int sem_group = 0; sem_group < 2; sem_group++) {
        bruker_write(path, ix, iy, 6, sem_group);
        clx_image_file *f = open_ok(path, NULL);
        if (!f)
            continue;
        const clx_scan_info *s = clx_image_file_scan(f);
        CHECK(strcmp(s->format, "Bruker h5") == 0 && s->rows == 3 && s->cols == 2, "format '%s', grid %d x %d",
              s->format, s->rows, s->cols);
        CHECK(near(s->pixel_size, 50, 1e-9) && near(s->sample_tilt, 70, 1e-9) && near(s->detector_tilt, 10, 1e-9),
              "pixel size %g, tilts %g, %g", s->pixel_size, s->sample_tilt, s->detector_tilt);
        CHECK(s->pc_per_point && strcmp(s->pc_convention, "Bruker") == 0, "per point %d, convention %s",
              s->pc_per_point, s->pc_convention);
        for (int p = 0; p < 6; p++) {
            double pc[3], e[3];
            CHECK(page_is_pattern(f, p, order[p], 8), "%s: map point %d is not file entry %d",
                  sem_group ? "SEM/SEM IX" : "EBSD/SEM/IX", p, order[p]);
            /* The per-point values move with their patterns (kikuchipy does not move them). */
            CHECK(clx_image_file_pattern_centre(f, p, pc) == CLX_OK && near(pc[0], 0.5 + 0.01 * order[p], 1e-6),
                  "point %d's pattern centre %g", p, pc[0]);
            /* Degrees to radians, and Bruker's frame into kikuchipy's: phi1 + 90 degrees. */
            CHECK(clx_image_file_euler(f, p, e) == CLX_OK && near(e[0], (10.0 * order[p] + 90) * M_PI / 180, 1e-6) &&
                  near(e[1], M_PI / 4, 1e-6), "point %d's orientation (%g, %g, %g): degrees to radians", p, e[0],
                  e[1], e[2]);
        }
        clx_image_file_close(f);
    }
    /* Three points of a 2 x 2 bounding box: not a rectangle. */
    static const double lx[3] = { 0, 1, 0 }, ly[3] = { 0, 0, 1 };
    bruker_write(path, lx, ly, 3, 0);
    expect_open_error("an L-shaped region", path, NULL, CLX_ERR_FORMAT, "Scan 0", "do not fill a rectangle");
    /* A point given twice. */
    static const double tx[4] = { 0, 1, 0, 0 }, ty[4] = { 0, 0, 1, 1 };
    bruker_write(path, tx, ty, 4, 0);
    expect_open_error("a point given twice", path, NULL, CLX_ERR_FORMAT, "EBSD/SEM/IX", "exactly once");
}

/* ---- Oxford H5OINA --------------------------------------------------------- */

/* The scan of oxford_write: 2 rows x 3 columns of 80 x 64 patterns, each point's pattern centre. */
#define OXFORD_W 80
#define OXFORD_H 64

static void oxford_bruker_pc(int p, double pc[3])
{
    pc[0] = 0.45 + 0.01 * p;
    pc[1] = 0.3;
    pc[2] = 0.6;
}

/*
 * An AZtec file as Oxford's H5OINA specification describes it: everything a
 * (1, 1) array, angles in radians, the pattern centre per point in Oxford's
 * convention (x and y over the width, y from the bottom), 16-bit patterns
 * stored contiguously. `dataset`: "Processed Patterns" or, for a file
 * written without processing, "Unprocessed Patterns" alone.
 */
static void oxford_write(const char *path, const char *dataset)
{
    const int n = 6;
    char where[128];
    hid_t f = file_create(path);
    put_string(f, "Manufacturer", "Oxford Instruments", 0);
    put_string(f, "Format Version", "5.0", 0);
    hid_t s = H5Gcreate2(f, "1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    snprintf(where, sizeof where, "EBSD/Data/%s", dataset);
    put_patterns(s, where, H5T_STD_U16LE, n, OXFORD_W, OXFORD_H, 16);
    hsize_t one_one[2] = { 1, 1 }, per_point[2] = { (hsize_t)n, 1 }, triples[2] = { (hsize_t)n, 3 };
    const double cols = 3, rows = 2, w = OXFORD_W, h = OXFORD_H, step_x = 0.5, step_y = 0.25;
    const double tilt = 70 * M_PI / 180, detector[3] = { 0, 93 * M_PI / 180, 0 };
    put(s, "EBSD/Header/X Cells", H5T_STD_I32LE, H5T_NATIVE_DOUBLE, 2, one_one, &cols);
    put(s, "EBSD/Header/Y Cells", H5T_STD_I32LE, H5T_NATIVE_DOUBLE, 2, one_one, &rows);
    put(s, "EBSD/Header/Pattern Width", H5T_STD_I32LE, H5T_NATIVE_DOUBLE, 2, one_one, &w);
    put(s, "EBSD/Header/Pattern Height", H5T_STD_I32LE, H5T_NATIVE_DOUBLE, 2, one_one, &h);
    put(s, "EBSD/Header/X Step", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, one_one, &step_x);
    put(s, "EBSD/Header/Y Step", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, one_one, &step_y);
    put(s, "EBSD/Header/Tilt Angle", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, one_one, &tilt);
    hsize_t three[2] = { 1, 3 };
    put(s, "EBSD/Header/Detector Orientation Euler", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, three, detector);
    /* The camera's full height over the stored one gives the binning: 1024 / 64. */
    put_string(s, "EBSD/Header/Camera Binning Mode", "16x16 (80x64 px)", 0);
    double pcx[6], pcy[6], pcz[6], euler[18];
    for (int p = 0; p < n; p++) {
        double pc[3];
        oxford_bruker_pc(p, pc);
        pcx[p] = pc[0];
        pcy[p] = (1 - pc[1]) * h / w;
        pcz[p] = pc[2] * h / w;
        euler[3 * p] = 0.1 * p;
        euler[3 * p + 1] = 0.7;
        euler[3 * p + 2] = 1.2;
    }
    put(s, "EBSD/Data/Pattern Center X", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, per_point, pcx);
    put(s, "EBSD/Data/Pattern Center Y", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, per_point, pcy);
    put(s, "EBSD/Data/Detector Distance", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, per_point, pcz);
    put(s, "EBSD/Data/Euler", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, triples, euler);
    H5Gclose(s);
    H5Fclose(f);
}

static void test_oxford(void)
{
    static const char *const datasets[] = { "Processed Patterns", "Unprocessed Patterns" };
    char path[1200];
    path_make(path, sizeof path, "oxford.h5oina");
    for (int d = 0; d < 2; d++) {
        oxford_write(path, datasets[d]);
        clx_image_file *f = open_ok(path, NULL);
        if (!f)
            continue;
        const clx_scan_info *s = clx_image_file_scan(f);
        CHECK(strcmp(s->format, "Oxford H5OINA") == 0 && strcmp(s->scan, "1") == 0 && s->rows == 2 && s->cols == 3 &&
              clx_image_file_pages(f) == 6, "%s: format '%s', scan '%s', grid %d x %d, pages %d", datasets[d],
              s->format, s->scan, s->rows, s->cols, clx_image_file_pages(f));
        CHECK(near(s->step_x, 0.5, 1e-7) && near(s->step_y, 0.25, 1e-7), "steps %g, %g", s->step_x, s->step_y);
        /* float32 radians: 1e-4 degrees is their precision. */
        CHECK(near(s->sample_tilt, 70, 1e-4) && near(s->detector_tilt, 3, 1e-4) && s->binning == 16,
              "tilts %g, %g, binning %d", s->sample_tilt, s->detector_tilt, s->binning);
        CHECK(s->has_pc && s->pc_per_point && strcmp(s->pc_convention, "Oxford") == 0,
              "pattern centre: has %d, per point %d, convention '%s'", s->has_pc, s->pc_per_point, s->pc_convention);
        for (int p = 0; p < 6; p++) {
            double pc[3], want[3], e[3];
            oxford_bruker_pc(p, want);
            CHECK(clx_image_file_pattern_centre(f, p, pc) == CLX_OK && near(pc[0], want[0], 1e-6) &&
                  near(pc[1], want[1], 1e-6) && near(pc[2], want[2], 1e-6),
                  "point %d's pattern centre (%.6f, %.6f, %.6f), Bruker's (%.6f, %.6f, %.6f)", p, pc[0], pc[1], pc[2],
                  want[0], want[1], want[2]);
            /* Oxford's frame into kikuchipy's: phi1 + 90 degrees. */
            CHECK(clx_image_file_euler(f, p, e) == CLX_OK && near(e[0], 0.1 * p + M_PI / 2, 1e-6) &&
                  near(e[2], 1.2, 1e-6), "point %d's orientation (%g, %g, %g)", p, e[0], e[1], e[2]);
            CHECK(page_is_pattern(f, p, p, 16), "%s: page %d's pixels", datasets[d], p);
        }
        clx_image_file_close(f);
    }
}

/* ---- EMsoft ---------------------------------------------------------------- */

static void emsoft_write(const char *path, const char *version, int w, int h, int binning, double delta,
                         const double pc[3])
{
    hid_t f = file_create(path);
    put_string(f, "EMheader/EBSD/Version", version, 1);
    put_string(f, "EMheader/EBSD/ProgramName", "EMEBSD.f90", 1);
    put_patterns(f, "EMData/EBSD/EBSDPatterns", H5T_IEEE_F32LE, 2, w, h, 16);
    hsize_t dims[2] = { 2, 3 };
    const double euler[6] = { 2.094, 0.785, 1.047, 0.5, 0.6, 0.7 };
    put(f, "EMData/EBSD/EulerAngles", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, dims, euler);
    put_number(f, "NMLparameters/EBSDNameList/numsx", H5T_STD_I32LE, w);
    put_number(f, "NMLparameters/EBSDNameList/numsy", H5T_STD_I32LE, h);
    put_number(f, "NMLparameters/EBSDNameList/xpc", H5T_IEEE_F32LE, pc[0]);
    put_number(f, "NMLparameters/EBSDNameList/ypc", H5T_IEEE_F32LE, pc[1]);
    put_number(f, "NMLparameters/EBSDNameList/L", H5T_IEEE_F32LE, pc[2]);
    put_number(f, "NMLparameters/EBSDNameList/delta", H5T_IEEE_F32LE, delta);
    put_number(f, "NMLparameters/EBSDNameList/binning", H5T_STD_I32LE, binning);
    put_number(f, "NMLparameters/EBSDNameList/thetac", H5T_IEEE_F32LE, 10);
    H5Fclose(f);
}

static void test_emsoft(void)
{
    char path[1200];
    path_make(path, sizeof path, "emsoft.h5");
    static const struct {
        const char *version;
        int w, h, binning;
        double delta, pc[3], bruker[3];
    } cases[] = {
        { "5_0_20200217_0", 61, 61, 8, 59.2, { 10.632, 145.5187, 19918.9 }, { 0.47821, 0.20181, 0.68948 } },
        { "4_2_0_0", 60, 80, 6, 50, { 0.55, -13.00, 16075.2 }, { 0.50153, 0.52708, 0.66980 } },
    };
    for (int c = 0; c < 2; c++) {
        emsoft_write(path, cases[c].version, cases[c].w, cases[c].h, cases[c].binning, cases[c].delta, cases[c].pc);
        clx_image_file *f = open_ok(path, NULL);
        if (!f)
            continue;
        const clx_scan_info *s = clx_image_file_scan(f);
        CHECK(strcmp(s->format, "EMsoft") == 0 && s->rows == 0 && s->cols == 0 && clx_image_file_pages(f) == 2,
              "EMsoft %s: format '%s', grid %d x %d, pages %d", cases[c].version, s->format, s->rows, s->cols,
              clx_image_file_pages(f));
        /* Stored as float32: 5e-5 is float's precision on these values. */
        CHECK(s->has_pc && near(s->pcx, cases[c].bruker[0], 5e-5) && near(s->pcy, cases[c].bruker[1], 5e-5) &&
              near(s->pcz, cases[c].bruker[2], 5e-5), "EMsoft %s: pattern centre (%.5f, %.5f, %.5f)",
              cases[c].version, s->pcx, s->pcy, s->pcz);
        CHECK(strcmp(s->pc_convention, c == 0 ? "EMsoft" : "EMsoft 4") == 0, "convention '%s'", s->pc_convention);
        CHECK(s->binning == cases[c].binning && near(s->detector_tilt, 10, 1e-6), "binning %d, tilt %g", s->binning,
              s->detector_tilt);
        double e[3];
        CHECK(s->has_euler && clx_image_file_euler(f, 1, e) == CLX_OK && near(e[0], 0.5, 1e-6), "orientation %g",
              e[0]);
        CHECK(page_is_pattern(f, 1, 1, 16), "EMsoft %s: float patterns read wrong", cases[c].version);
        clx_image_file_close(f);
    }
}

/* ---- what is wrong with a file, said --------------------------------------- */

/* A kikuchipy-like file whose header and patterns the caller spoils. */
enum spoil { SPOIL_NONE, SPOIL_NO_ROWS, SPOIL_GRID, SPOIL_SIZE, SPOIL_RANK, SPOIL_STRINGS, SPOIL_NO_PATTERNS };

static void kikuchipy_write(const char *path, enum spoil spoil)
{
    hid_t f = file_create(path);
    put_string(f, "manufacturer", "kikuchipy", 0);
    put_string(f, "version", "0.13.1", 0);
    hid_t s = H5Gcreate2(f, "Scan 1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (spoil == SPOIL_RANK) {
        static const unsigned char flat[48];
        hsize_t dims[2] = { 4, 12 };
        put(s, "EBSD/Data/patterns", H5T_STD_U8LE, H5T_NATIVE_UCHAR, 2, dims, flat);
    } else if (spoil == SPOIL_STRINGS) {
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, 4);
        hsize_t dims[3] = { 4, 2, 2 };
        static const char text[4 * 2 * 2 * 4] = "abc";
        put(s, "EBSD/Data/patterns", type, type, 3, dims, text);
        H5Tclose(type);
    } else if (spoil == SPOIL_NO_PATTERNS) {
        put_number(s, "EBSD/Data/phase_id", H5T_STD_I32LE, 1);
    } else {
        put_patterns(s, "EBSD/Data/patterns", H5T_STD_U8LE, 4, 12, 10, 8);
    }
    if (spoil != SPOIL_NO_ROWS)
        put_number(s, "EBSD/Header/n_rows", H5T_STD_I64LE, spoil == SPOIL_GRID ? 3 : 2);
    put_number(s, "EBSD/Header/n_columns", H5T_STD_I64LE, 2);
    put_number(s, "EBSD/Header/pattern_width", H5T_STD_I64LE, spoil == SPOIL_SIZE ? 13 : 12);
    put_number(s, "EBSD/Header/pattern_height", H5T_STD_I64LE, 10);
    H5Gclose(s);
    H5Fclose(f);
}

static void test_header_errors(void)
{
    char path[1200];
    path_make(path, sizeof path, "spoiled.h5");
    kikuchipy_write(path, SPOIL_NONE);
    clx_image_file *f = open_ok(path, NULL);
    if (f) {
        CHECK(page_is_pattern(f, 3, 3, 8), "the unspoiled file's page 3");
        clx_image_file_close(f);
    }
    kikuchipy_write(path, SPOIL_NO_ROWS);
    expect_open_error("no n_rows", path, NULL, CLX_ERR_FORMAT, "Scan 1",
                      "EBSD/Header/n_rows is missing or not a positive integer");
    kikuchipy_write(path, SPOIL_GRID);
    expect_open_error("a grid of another size", path, NULL, CLX_ERR_FORMAT,
                      "EBSD/Header/n_rows and EBSD/Header/n_columns say a scan of 3 x 2 points",
                      "EBSD/Data/patterns holds 4 patterns");
    kikuchipy_write(path, SPOIL_SIZE);
    expect_open_error("patterns of another size", path, NULL, CLX_ERR_FORMAT,
                      "EBSD/Header/pattern_width says patterns 13 wide", "EBSD/Data/patterns holds 12x10");
    kikuchipy_write(path, SPOIL_RANK);
    expect_open_error("patterns of rank 2", path, NULL, CLX_ERR_FORMAT, "Scan 1/EBSD/Data/patterns",
                      "found a dataset of rank 2");
    kikuchipy_write(path, SPOIL_STRINGS);
    expect_open_error("patterns of strings", path, NULL, CLX_ERR_FORMAT, "Scan 1/EBSD/Data/patterns",
                      "does not hold numbers");
    kikuchipy_write(path, SPOIL_NO_PATTERNS);
    expect_open_error("no patterns", path, NULL, CLX_ERR_FORMAT, "kikuchipy h5ebsd file without patterns",
                      "EBSD/Data/patterns");

    hid_t other = file_create(path);
    put_string(other, "Manufacturer", "Acme Microscopes", 0);
    H5Fclose(other);
    expect_open_error("an unknown manufacturer", path, NULL, CLX_ERR_FORMAT,
                      "no EBSD pattern container clxcorr reads (Manufacturer 'Acme Microscopes'", NULL);
    other = file_create(path);
    H5Fclose(other);
    expect_open_error("an empty HDF5 file", path, NULL, CLX_ERR_FORMAT, "no Manufacturer", NULL);
}

/* The other layouts, each written well and then with one dataset taken away or replaced. */
enum damage { DROP, AS_RANK_2, AS_TEXT, AS_TEXT_PATTERNS, AS_VALUE };

static void dataset_damage(const char *path, const char *dataset, enum damage how, double value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0 || H5Ldelete(f, dataset, H5P_DEFAULT) < 0) {
        printf("FAIL: cannot remove %s from %s\n", dataset, path);
        exit(1);
    }
    static const unsigned char flat[6 * 12];
    hsize_t flat_dims[2] = { 6, 12 }, text_dims[3] = { 6, 2, 2 };
    static const char text[6 * 2 * 2 * 4] = "abc";
    hid_t text_type = H5Tcopy(H5T_C_S1);
    H5Tset_size(text_type, 4);
    switch (how) {
    case DROP: break;
    case AS_RANK_2: put(f, dataset, H5T_STD_U8LE, H5T_NATIVE_UCHAR, 2, flat_dims, flat); break;
    case AS_TEXT: put_string(f, dataset, "n/a", 0); break;
    case AS_TEXT_PATTERNS: put(f, dataset, text_type, text_type, 3, text_dims, text); break;
    case AS_VALUE: put_number(f, dataset, H5T_STD_I32LE, value); break;
    }
    H5Tclose(text_type);
    H5Fclose(f);
}

static void edax_write_square(const char *path)
{
    edax_write(path, "SqrGrid");
}

static void bruker_write_region(const char *path)
{
    static const double ix[6] = { 1, 1, 2, 2, 1, 2 }, iy[6] = { 1, 0, 0, 1, 2, 2 };
    bruker_write(path, ix, iy, 6, 0);
}

static void oxford_write_processed(const char *path)
{
    oxford_write(path, "Processed Patterns");
}

static void emsoft_write_5(const char *path)
{
    static const double pc[3] = { 10.632, 145.5187, 19918.9 };
    emsoft_write(path, "5_0_20200217_0", 61, 61, 8, 59.2, pc);
}

static void test_layout_errors(void)
{
    static const struct {
        const char *what, *file;
        void (*write)(const char *path);
        const char *dataset;
        enum damage how;
        double value;
        const char *words1, *words2;
    } cases[] = {
        { "EDAX: no patterns", "edax.h5", edax_write_square, "Scan 1/EBSD/Data/Pattern", DROP, 0,
          "an EDAX h5 file without patterns", "no top-level group holds EBSD/Data/Pattern" },
        { "EDAX: patterns of rank 2", "edax.h5", edax_write_square, "Scan 1/EBSD/Data/Pattern", AS_RANK_2, 0,
          "Scan 1/EBSD/Data/Pattern", "found a dataset of rank 2" },
        { "EDAX: no nRows", "edax.h5", edax_write_square, "Scan 1/EBSD/Header/nRows", DROP, 0, "Scan 1",
          "EBSD/Header/nRows is missing or not a positive integer" },
        { "EDAX: nColumns as text", "edax.h5", edax_write_square, "Scan 1/EBSD/Header/nColumns", AS_TEXT, 0, "Scan 1",
          "EBSD/Header/nColumns is missing or not a positive integer" },
        { "EDAX: Pattern Width as text", "edax.h5", edax_write_square, "Scan 1/EBSD/Header/Pattern Width", AS_TEXT, 0,
          "Scan 1", "EBSD/Header/Pattern Width is not a positive integer" },
        { "Bruker: no patterns", "bruker.h5", bruker_write_region, "Scan 0/EBSD/Data/RawPatterns", DROP, 0,
          "a Bruker h5 file without patterns", "no top-level group holds EBSD/Data/RawPatterns" },
        { "Bruker: patterns of strings", "bruker.h5", bruker_write_region, "Scan 0/EBSD/Data/RawPatterns",
          AS_TEXT_PATTERNS, 0, "Scan 0/EBSD/Data/RawPatterns", "does not hold numbers" },
        { "Bruker: no NCOLS", "bruker.h5", bruker_write_region, "Scan 0/EBSD/Header/NCOLS", DROP, 0, "Scan 0",
          "EBSD/Header/NCOLS is missing or not a positive integer" },
        { "Bruker: PatternHeight of 17", "bruker.h5", bruker_write_region, "Scan 0/EBSD/Header/PatternHeight",
          AS_VALUE, 17, "EBSD/Header/PatternHeight says patterns 17 high", "EBSD/Data/RawPatterns holds 20x16" },
        { "H5OINA: no patterns", "oxford.h5oina", oxford_write_processed, "1/EBSD/Data/Processed Patterns", DROP, 0,
          "an Oxford H5OINA file without patterns",
          "no top-level group holds EBSD/Data/Processed Patterns or EBSD/Data/Unprocessed Patterns" },
        { "H5OINA: patterns of rank 2", "oxford.h5oina", oxford_write_processed, "1/EBSD/Data/Processed Patterns",
          AS_RANK_2, 0, "1/EBSD/Data/Processed Patterns", "found a dataset of rank 2" },
        { "H5OINA: Y Cells as text", "oxford.h5oina", oxford_write_processed, "1/EBSD/Header/Y Cells", AS_TEXT, 0,
          "1: no scan grid", "EBSD/Header/Y Cells is missing or not a positive integer" },
        { "H5OINA: X Cells of 4", "oxford.h5oina", oxford_write_processed, "1/EBSD/Header/X Cells", AS_VALUE, 4,
          "EBSD/Header/Y Cells and EBSD/Header/X Cells say a scan of 2 x 4 points",
          "EBSD/Data/Processed Patterns holds 6 patterns" },
        { "EMsoft: no patterns", "emsoft.h5", emsoft_write_5, "EMData/EBSD/EBSDPatterns", DROP, 0,
          "an EMsoft file without patterns", "it has EMheader/EBSD but no EMData/EBSD/EBSDPatterns" },
        { "EMsoft: patterns of strings", "emsoft.h5", emsoft_write_5, "EMData/EBSD/EBSDPatterns", AS_TEXT_PATTERNS, 0,
          "EMData/EBSD/EBSDPatterns does not hold numbers", NULL },
        { "EMsoft: patterns of rank 2", "emsoft.h5", emsoft_write_5, "EMData/EBSD/EBSDPatterns", AS_RANK_2, 0,
          "EMData/EBSD/EBSDPatterns: expected patterns", "found a dataset of rank 2" },
        { "EMsoft: numsx as text", "emsoft.h5", emsoft_write_5, "NMLparameters/EBSDNameList/numsx", AS_TEXT, 0,
          "NMLparameters/EBSDNameList/numsx is not a positive integer", NULL },
        { "EMsoft: numsy of 62", "emsoft.h5", emsoft_write_5, "NMLparameters/EBSDNameList/numsy", AS_VALUE, 62,
          "NMLparameters/EBSDNameList/numsy says patterns 62 high", "EMData/EBSD/EBSDPatterns holds 61x61" },
    };
    char path[1200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        path_make(path, sizeof path, cases[i].file);
        cases[i].write(path);
        dataset_damage(path, cases[i].dataset, cases[i].how, cases[i].value);
        expect_open_error(cases[i].what, path, NULL, CLX_ERR_FORMAT, cases[i].words1, cases[i].words2);
    }
}

/* ---- damaged files --------------------------------------------------------- */

static int file_copy(const char *from, const char *to, long keep)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int ok = in && out;
    char buf[4096];
    size_t n;
    long done = 0;
    while (ok && (keep < 0 || done < keep) && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        if (keep >= 0 && done + (long)n > keep)
            n = (size_t)(keep - done);
        ok = fwrite(buf, 1, n, out) == n;
        done += (long)n;
    }
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* Opens the file and reads every page: an error names the file; success gives patterns of the scan's size. */
static void open_and_read_all(const char *what, const char *path)
{
    clx_image_file *f = NULL;
    clx_message msg = { "" };
    int status = clx_image_file_open_scan(path, NULL, &f, &msg);
    if (status != CLX_OK) {
        CHECK(strncmp(msg.text, path, strlen(path)) == 0 && !strchr(msg.text, '\n'),
              "%s: the message does not name the file on one line: %s", what, msg.text);
        return;
    }
    for (int p = 0; p < clx_image_file_pages(f); p++) {
        clx_image im = { 0 };
        status = clx_image_file_read(f, p, &im, &msg);
        CHECK(status == CLX_OK ? im.width == 96 && im.height == 80 : strncmp(msg.text, path, strlen(path)) == 0,
              "%s: page %d: %s", what, p, status == CLX_OK ? "another size" : msg.text);
        clx_image_free(&im);
    }
    clx_image_file_close(f);
}

/* Damage to a fixture: `fixture` is read in place (contiguous or one pattern a chunk) or LZF-decoded in the reader. */
static void test_damaged(const char *fixture)
{
    char src[1200], path[1200];
    fixture_path(src, sizeof src, fixture);
    path_make(path, sizeof path, "damaged.h5");
    long size = file_size(src);
    CHECK(size > 4096, "%s: size %ld", src, size);
    if (size <= 4096)
        return;
    /* Cut short: within the superblock, the metadata, the patterns. */
    static const long cuts[] = { 7, 100, 1000, 3000 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        if (file_copy(src, path, cuts[i]) != 0)
            continue;
        expect_open_error("a file cut short", path, NULL, CLX_ERR_FORMAT, NULL, NULL);
    }
    file_copy(src, path, size - 5000);
    open_and_read_all("the last patterns cut off", path);
    /* Bytes overwritten throughout: errors or patterns, never a crash (sanitizer builds check the reads). */
    unsigned seed = 12345;
    for (int k = 0; k < 120; k++) {
        FILE *f;
        if (file_copy(src, path, -1) != 0 || !(f = fopen(path, "r+b")))
            continue;
        for (int b = 0; b < 4; b++) {
            seed = seed * 1103515245u + 12345u;
            /* Mostly in the first 8 KiB, where HDF5 keeps the superblock, groups and headers. */
            long at = (long)((seed >> 8) % (unsigned long)(k % 3 ? 8192 : size));
            seed = seed * 1103515245u + 12345u;
            fseek(f, at, SEEK_SET);
            fputc((int)(seed >> 16) & 0xff, f);
        }
        fclose(f);
        char what[128];
        snprintf(what, sizeof what, "%s: damaged copy %d", fixture, k);
        open_and_read_all(what, path);
    }
}

/* An H5OINA file whose chunk of pattern 3 is overwritten: the reader decodes
 * the LZF itself (outside HDF5's lock) and names the pattern; the others read. */
static void test_damaged_lzf_chunk(void)
{
    char src[1200], path[1200];
    fixture_path(src, sizeof src, "patterns.h5oina");
    path_make(path, sizeof path, "damaged-chunk.h5oina");
    haddr_t at = HADDR_UNDEF;
    hsize_t coord[3] = { 3, 0, 0 }, stored = 0;
    unsigned mask = 0;
    hid_t f = H5Fopen(src, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, "1/EBSD/Data/Processed Patterns", H5P_DEFAULT) : -1;
    if (d >= 0)
        H5Dget_chunk_info_by_coord(d, coord, &mask, &at, &stored);
    if (d >= 0)
        H5Dclose(d);
    if (f >= 0)
        H5Fclose(f);
    CHECK(at != HADDR_UNDEF && stored > 64 && mask == 0, "%s: pattern 3's chunk: %llu bytes", src,
          (unsigned long long)stored);
    FILE *out;
    if (at == HADDR_UNDEF || stored <= 64 || file_copy(src, path, -1) != 0 || !(out = fopen(path, "r+b")))
        return;
    /* The chunk opens with a back reference, to bytes before its start. */
    fseek(out, (long)at, SEEK_SET);
    fputc(0xFF, out);
    fputc(0xFF, out);
    fputc(0xFF, out);
    fclose(out);
    clx_image_file *file = open_ok(path, NULL);
    if (!file)
        return;
    for (int p = 0; p < 6; p++) {
        clx_image im = { 0 };
        clx_message msg = { "" };
        int status = clx_image_file_read(file, p, &im, &msg);
        if (p == 3)
            CHECK(status == CLX_ERR_FORMAT && strstr(msg.text, "pattern 3: its LZF data is damaged") &&
                  strncmp(msg.text, path, strlen(path)) == 0, "pattern 3: status %d: %s", status, msg.text);
        else
            CHECK(status == CLX_OK, "pattern %d: %s", p, msg.text);
        clx_image_free(&im);
    }
    clx_image_file_close(file);
}

/* ---- gzip, several patterns a chunk ------------------------------------------ */

/* The chunk shape and filter of the copy, so that the test cannot pass on a file read by pread. */
static int is_gzip_in_chunks_of(const char *path, const char *dataset, hsize_t per_chunk)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, dataset, H5P_DEFAULT) : -1;
    hid_t dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
    hsize_t chunk[3] = { 0, 0, 0 };
    unsigned flags = 0;
    size_t nvalues = 0;
    int yes = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 3, chunk) == 3 &&
              chunk[0] == per_chunk && H5Pget_nfilters(dcpl) == 1 &&
              H5Pget_filter2(dcpl, 0, &flags, &nvalues, NULL, 0, NULL, NULL) == H5Z_FILTER_DEFLATE;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (d >= 0)
        H5Dclose(d);
    if (f >= 0)
        H5Fclose(f);
    return yes;
}

/*
 * The kikuchipy fixture copied with gzip (level 4) in chunks of 4 patterns:
 * the path through H5Dread and the chunk cache, where a page's chunk also
 * holds its neighbours (and the last chunk only 2 of its 4). Every page,
 * read forwards and backwards, is the uncompressed file's, and so is the
 * header.
 */
static void test_gzip_chunks(void)
{
    if (!h5_gzip_available()) {
        printf("note: this libhdf5 has no gzip filter: gzip-compressed patterns are not tested\n");
        return;
    }
    char plain_path[1200], gzip_path[1200], err[1400];
    fixture_path(plain_path, sizeof plain_path, "patterns.h5");
    path_make(gzip_path, sizeof gzip_path, "gzip.h5");
    if (h5_copy_rechunked(plain_path, gzip_path, "Scan 1/EBSD/Data/patterns", 4, 4, err, sizeof err) != 0) {
        CHECK(0, "the gzip copy: %s", err);
        return;
    }
    CHECK(is_gzip_in_chunks_of(gzip_path, "Scan 1/EBSD/Data/patterns", 4), "the copy is not gzip in chunks of 4");
    clx_image_file *plain = open_ok(plain_path, NULL), *gzip = open_ok(gzip_path, NULL);
    if (plain && gzip) {
        check_fixture_scan("gzip", clx_image_file_scan(gzip), "kikuchipy h5ebsd", 1e-12);
        CHECK(clx_image_file_pages(gzip) == 6, "gzip: %d pages", clx_image_file_pages(gzip));
        for (int k = 0; k < 12; k++) {
            int p = k < 6 ? k : 11 - k;
            clx_image a = { 0 }, b = { 0 };
            clx_message msg = { "" };
            int same = clx_image_file_read(plain, p, &a, &msg) == CLX_OK &&
                       clx_image_file_read(gzip, p, &b, &msg) == CLX_OK && a.type == b.type &&
                       a.width == b.width && a.height == b.height &&
                       memcmp(a.pixels, b.pixels, (size_t)a.width * a.height * 2) == 0;
            CHECK(same, "gzip: page %d (%s) differs from the uncompressed file's %s", p,
                  k < 6 ? "forwards" : "backwards", msg.text);
            clx_image_free(&a);
            clx_image_free(&b);
        }
    }
    if (plain)
        clx_image_file_close(plain);
    if (gzip)
        clx_image_file_close(gzip);
}

/* ---- many readers ---------------------------------------------------------- */

struct reader {
    clx_image_file *file;
    int first, failures;
    const uint16_t *expected;   /* the 6 pages' pixels */
};

static void *reader_run(void *arg)
{
    struct reader *r = arg;
    clx_image im = { 0 };
    clx_message msg;
    if (clx_image_alloc(&im, 96, 80, CLX_PIXEL_U16, &msg) != CLX_OK) {
        r->failures++;
        return NULL;
    }
    for (int k = 0; k < 300; k++) {
        int page = (r->first + k) % 6;
        if (clx_image_file_read_into(r->file, page, &im, &msg) != CLX_OK ||
            memcmp(im.pixels, r->expected + (size_t)page * 96 * 80, 96 * 80 * 2) != 0)
            r->failures++;
    }
    clx_image_free(&im);
    return NULL;
}

static void test_threads(void)
{
    /* The third is test_gzip_chunks' copy, written here when this libhdf5 has gzip. */
    static const char *const names[] = { "patterns.h5", "patterns.h5oina", "gzip.h5" };
    char kpath[1200];
    fixture_path(kpath, sizeof kpath, "patterns.h5");
    clx_image_file *k = open_ok(kpath, NULL);
    if (!k)
        return;
    uint16_t *expected = malloc((size_t)6 * 96 * 80 * 2);
    for (int p = 0; p < 6; p++) {
        clx_image im = { 0 };
        clx_message msg;
        if (clx_image_file_read(k, p, &im, &msg) == CLX_OK)
            memcpy(expected + (size_t)p * 96 * 80, im.pixels, 96 * 80 * 2);
        clx_image_free(&im);
    }
    clx_image_file_close(k);
    /* The contiguous kikuchipy patterns go by pread, the LZF Oxford ones by pread and a decoder in the thread
     * (read as 16-bit: the 8-bit values widened, so compared with kikuchipy's high bytes), the gzip copy through
     * H5Dread under HDF5's lock, sharing one chunk cache. */
    for (int n = 0; n < 3; n++) {
        char path[1200];
        if (n < 2)
            fixture_path(path, sizeof path, names[n]);
        else if (h5_gzip_available())
            path_make(path, sizeof path, names[n]);
        else
            continue;
        clx_image_file *f = open_ok(path, NULL);
        if (!f)
            continue;
        uint16_t *want = expected;
        if (n == 1) {
            want = malloc((size_t)6 * 96 * 80 * 2);
            for (size_t i = 0; i < (size_t)6 * 96 * 80; i++)
                want[i] = expected[i] >> 8;
        }
        pthread_t threads[6];
        struct reader readers[6];
        for (int t = 0; t < 6; t++) {
            readers[t] = (struct reader){ f, t, 0, want };
            pthread_create(&threads[t], NULL, reader_run, &readers[t]);
        }
        int failures = 0;
        for (int t = 0; t < 6; t++) {
            pthread_join(threads[t], NULL);
            failures += readers[t].failures;
        }
        CHECK(failures == 0, "%s: %d of 1800 reads from 6 threads failed or differed", names[n], failures);
        if (want != expected)
            free(want);
        clx_image_file_close(f);
    }
    free(expected);
}

static void dir_remove(void)
{
    static const char *const names[] = { "edax.h5", "bruker.h5", "oxford.h5oina", "emsoft.h5", "spoiled.h5",
                                         "damaged.h5", "damaged-chunk.h5oina", "gzip.h5" };
    char path[1200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        path_make(path, sizeof path, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR"), *src = getenv("TESTS_SRCDIR");
    snprintf(fixtures, sizeof fixtures, "%s/data/ebsd", src && *src ? src : "tests");
    snprintf(dir, sizeof dir, "%s/clxcorr-containers-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: cannot create a temporary directory under %s\n", tmp && *tmp ? tmp : "/tmp");
        return 1;
    }
    /* This test's own writes: their errors would only be noise. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    test_pattern_centres();
    test_lzf();
    test_kikuchipy_fixture();
    test_oxford_fixture();
    test_two_scans_fixture();
    test_edax();
    test_bruker();
    test_oxford();
    test_emsoft();
    test_header_errors();
    test_layout_errors();
    test_damaged("patterns.h5");
    test_damaged("patterns.h5oina");
    test_damaged_lzf_chunk();
    test_gzip_chunks();
    test_threads();

    if (!getenv("KEEP"))
        dir_remove();
    if (test_failures) {
        printf("%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_containers: all checks passed\n");
    return 0;
}
