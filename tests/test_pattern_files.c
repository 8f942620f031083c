/*
 * test_pattern_files.c - the binary EBSD pattern files: EDAX UP1/UP2
 * (src/image/load_up.c), NORDIF Pattern.dat + Setting.txt (load_nordif.c)
 * and Oxford .ebsp (load_ebsp.c), through the public API.
 *
 * - Files written by the public tools (tests/data/ebsd: PyEBSDIndex's UP2
 *   and UP1, kikuchipy's Pattern.dat with a Setting.txt in NORDIF's
 *   layout) against the patterns they were made from, which the project's
 *   generator makes again here (make_fixtures.py gives the command): every
 *   pixel, the grid, the steps and the angles.
 * - Files written here (tests/pattern_writers.c) in every version and
 *   layout the readers accept, read back pixel by pixel, also from several
 *   threads on one open file.
 * - Damaged and lying files of each format: the status, a one-line message
 *   that names the file (and what is wrong), and no file or pixels left.
 *
 * Needs TESTS_SRCDIR and CLXCORR_SAMPLES (make check sets them). KEEP=1
 * keeps the temporary directory for a look.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clxcorr.h"
#include "pattern_writers.h"

/* The fixtures' scan: make_fixtures.py. */
#define FIX_W 96
#define FIX_H 80
#define FIX_ROWS 2
#define FIX_COLS 3
#define FIX_COUNT (FIX_ROWS * FIX_COLS)

/* Threads reading one open file at once, and how many reads each makes. */
#define READERS 4
#define READS_EACH 60

static char dir[1024];
static const char *srcdir;

static const char *path_in(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

static void save(const struct byte_buf *b, const char *path)
{
    if (buf_save(b, path) != 0) {
        printf("FAIL: cannot write %s\n", path);
        exit(99);
    }
}

/* ---- reading and comparing ---------------------------------------------------- */

static clx_image_file *open_ok(const char *path)
{
    clx_image_file *f = NULL;
    clx_message msg;
    int rc = clx_image_file_open(path, &f, &msg);
    CHECK(rc == CLX_OK && f, "%s: %s", path, msg.text);
    return rc == CLX_OK ? f : NULL;
}

static unsigned pixel_at(const clx_image *im, size_t i)
{
    return im->type == CLX_PIXEL_U8 ? ((const unsigned char *)im->pixels)[i]
         : im->type == CLX_PIXEL_U16 ? ((const unsigned short *)im->pixels)[i]
                                     : (unsigned)((const float *)im->pixels)[i];
}

/* Page `page` decoded, and read into 16-bit and float images, equals pw_pixel(point, ...). */
static void page_check(clx_image_file *f, const char *path, int page, int point, int w, int h, int bits)
{
    clx_image im;
    clx_message msg;
    int rc = clx_image_file_read(f, page, &im, &msg);
    CHECK(rc == CLX_OK, "%s page %d: %s", path, page, msg.text);
    if (rc != CLX_OK)
        return;
    CHECK(im.width == w && im.height == h && im.type == (bits == 8 ? CLX_PIXEL_U8 : CLX_PIXEL_U16),
          "%s page %d: %dx%d type %d", path, page, im.width, im.height, (int)im.type);
    clx_image wide[2];
    clx_pixel_type types[2] = { CLX_PIXEL_U16, CLX_PIXEL_F32 };
    for (int t = 0; t < 2; t++) {
        clx_image_alloc(&wide[t], w, h, types[t], &msg);
        memset(wide[t].pixels, 0xa5, (size_t)w * h * clx_pixel_size(types[t]));
        rc = clx_image_file_read_into(f, page, &wide[t], &msg);
        CHECK(rc == CLX_OK, "%s page %d into type %d: %s", path, page, (int)types[t], msg.text);
    }
    int bad = 0;
    for (int y = 0; y < h && im.width == w; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            unsigned want = pw_pixel(point, x, y, bits);
            bad += pixel_at(&im, i) != want || pixel_at(&wide[0], i) != want || pixel_at(&wide[1], i) != want;
        }
    CHECK(bad == 0, "%s page %d: %d pixels differ from what was written", path, page, bad);
    clx_image_free(&wide[0]);
    clx_image_free(&wide[1]);
    clx_image_free(&im);
}

/* A one-line message that starts with the file's name and contains `words`. */
static void message_check(const char *what, const char *path, const clx_message *msg, const char *words)
{
    CHECK(strncmp(msg->text, path, strlen(path)) == 0, "%s: the message does not name the file: %s", what,
          msg->text);
    CHECK(strstr(msg->text, words) != NULL, "%s: the message lacks \"%s\": %s", what, words, msg->text);
    CHECK(!strchr(msg->text, '\n'), "%s: the message is not one line: %s", what, msg->text);
}

static void open_fails(const char *what, const char *path, int status, const char *words)
{
    clx_image_file *f = (clx_image_file *)&f;   /* must become NULL */
    clx_message msg;
    int rc = clx_image_file_open(path, &f, &msg);
    CHECK(rc == status, "%s: status %s, not %s (%s)", what, clx_status_name(rc), clx_status_name(status), msg.text);
    CHECK(f == NULL, "%s: a failed open gave a file", what);
    if (rc != CLX_OK)
        message_check(what, path, &msg, words);
    else
        clx_image_file_close(f);
}

static void read_fails(const char *what, clx_image_file *f, const char *path, int page, const char *words)
{
    clx_image im;
    clx_message msg;
    int rc = clx_image_file_read(f, page, &im, &msg);
    CHECK(rc == CLX_ERR_FORMAT, "%s: status %s (%s)", what, clx_status_name(rc), msg.text);
    CHECK(!im.pixels && !im.width, "%s: a failed read left an image", what);
    message_check(what, path, &msg, words);
}

static void scan_check(const char *path, clx_image_file *f, const char *format, int rows, int cols, double dx,
                       double dy)
{
    const clx_scan_info *s = clx_image_file_scan(f);
    CHECK(s != NULL, "%s: no scan", path);
    if (!s)
        return;
    CHECK(strcmp(s->format, format) == 0, "%s: format '%s', not '%s'", path, s->format, format);
    CHECK(s->rows == rows && s->cols == cols, "%s: grid %d x %d, not %d x %d", path, s->rows, s->cols, rows, cols);
    CHECK(s->step_x == dx && s->step_y == dy, "%s: steps %g, %g, not %g, %g", path, s->step_x, s->step_y, dx, dy);
    CHECK(!s->has_pc && !s->has_euler && s->binning == 0 && isnan(s->pixel_size) && isnan(s->twist),
          "%s: geometry the file does not give", path);
    double pc[3];
    CHECK(clx_image_file_pattern_centre(f, 0, pc) == CLX_ERR_STATE, "%s: a pattern centre", path);
    CHECK(clx_image_file_shared(f), "%s: reads are not shared", path);
}

/* ---- (a) the fixtures, against the generator's TIFFs ------------------------------------ */

static int generator_run(const char *out)
{
    const char *generator = getenv("CLXCORR_SAMPLES");
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execl(generator, generator, "--out", out, "--size", "96x80", "--count", "6", "--grid", "3x2", "--window",
              "24x24", "--margin", "8", "--max-shift", "2", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Every page of `name` equals the generator's pattern, shifted right by `shift` bits. */
static void fixture_pixels(const char *name, const clx_image *tiffs, int shift)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/data/ebsd/%s", srcdir, name);
    clx_image_file *f = open_ok(path);
    if (!f)
        return;
    CHECK(clx_image_file_pages(f) == FIX_COUNT, "%s: %d pages", name, clx_image_file_pages(f));
    clx_image dst;
    clx_message msg;
    clx_image_alloc(&dst, FIX_W, FIX_H, CLX_PIXEL_U16, &msg);
    for (int p = 0; p < FIX_COUNT && p < clx_image_file_pages(f); p++) {
        int rc = clx_image_file_read_into(f, p, &dst, &msg);
        CHECK(rc == CLX_OK, "%s page %d: %s", name, p, msg.text);
        int bad = 0;
        for (size_t i = 0; rc == CLX_OK && i < (size_t)FIX_W * FIX_H; i++)
            bad += ((unsigned short *)dst.pixels)[i] != ((unsigned short *)tiffs[p].pixels)[i] >> shift;
        CHECK(bad == 0, "%s page %d: %d pixels differ from image_%04d.tif", name, p, bad, p + 1);
    }
    clx_image_free(&dst);
    clx_image_file_close(f);
}

static void fixture_scans(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/data/ebsd/patterns.up2", srcdir);
    clx_image_file *f = open_ok(path);
    if (f)
        scan_check(path, f, "EDAX UP2", FIX_ROWS, FIX_COLS, 1.5, 2.0);
    clx_image_file_close(f);
    snprintf(path, sizeof path, "%s/data/ebsd/patterns8.up1", srcdir);
    if ((f = open_ok(path)))
        scan_check(path, f, "EDAX UP1", 0, 0, 0, 0);
    clx_image_file_close(f);
    snprintf(path, sizeof path, "%s/data/ebsd/nordif/Pattern.dat", srcdir);
    if ((f = open_ok(path))) {
        scan_check(path, f, "NORDIF", FIX_ROWS, FIX_COLS, 1.5, 1.5);
        const clx_scan_info *s = clx_image_file_scan(f);
        /* Setting.txt: Tilt angle 70, Elevation -20, Azimuthal 0. */
        CHECK(s && s->sample_tilt == 70 && s->detector_tilt == 20 && s->azimuthal == 0,
              "%s: tilts %g, %g, azimuthal %g", path, s ? s->sample_tilt : 0, s ? s->detector_tilt : 0,
              s ? s->azimuthal : 0);
    }
    clx_image_file_close(f);
}

static void test_fixtures(void)
{
    char set[1100], path[1200];
    clx_image tiffs[FIX_COUNT];
    clx_message msg;
    snprintf(set, sizeof set, "%s/set", dir);
    if (generator_run(set) != 0) {
        CHECK(0, "the generator %s failed", getenv("CLXCORR_SAMPLES"));
        return;
    }
    for (int i = 0; i < FIX_COUNT; i++) {
        snprintf(path, sizeof path, "%s/image_%04d.tif", set, i + 1);
        int rc = clx_image_load(path, 0, &tiffs[i], &msg);
        if (rc != CLX_OK || tiffs[i].type != CLX_PIXEL_U16 || tiffs[i].width != FIX_W || tiffs[i].height != FIX_H) {
            CHECK(0, "%s: not the 96x80 16-bit image make_fixtures.py used (%s)", path, msg.text);
            return;
        }
    }
    fixture_pixels("patterns.up2", tiffs, 0);
    fixture_pixels("patterns8.up1", tiffs, 8);
    fixture_pixels("nordif/Pattern.dat", tiffs, 8);
    fixture_scans();
    for (int i = 0; i < FIX_COUNT; i++)
        clx_image_free(&tiffs[i]);
}

/* ---- (b) files written here, in every version ------------------------------------------ */

static void test_up_written(void)
{
    char path[4200];
    const struct {
        const char *name;
        struct up_spec spec;
        int rows, cols;
        double dx, dy;
    } cases[] = {
        { "v1.up1", { 1, 8, 5, 4, 0, 0, 0, 0, 0, 7 }, 0, 0, 0, 0 },
        { "v1.up2", { 1, 16, 5, 4, 0, 0, 0, 0, 0, 3 }, 0, 0, 0, 0 },
        { "v3.up1", { 3, 8, 6, 3, 3, 2, 0, 0.5, 0.25, 6 }, 2, 3, 0.5, 0.25 },
        { "v3.up2", { 3, 16, 6, 3, 3, 2, 0, 3.14159, 1.5707, 6 }, 2, 3, 3.14159, 1.5707 },
        /* One pattern more than the grid, as EMsoft says UP2 files hold. */
        { "v3-extra.up2", { 3, 16, 4, 4, 2, 2, 0, 1, 1, 5 }, 2, 2, 1, 1 },
        { "v4.UP2", { 4, 16, 4, 4, 1, 3, 0, 2, 2, 3 }, 3, 1, 2, 2 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct byte_buf b = { 0 };
        up_build(&b, &cases[c].spec);
        save(&b, path_in(path, sizeof path, cases[c].name));
        buf_free(&b);
        clx_image_file *f = open_ok(path);
        if (!f)
            continue;
        const struct up_spec *s = &cases[c].spec;
        int pages = s->version == 1 ? s->patterns : (int)(s->rows * s->cols);
        CHECK(clx_image_file_pages(f) == pages, "%s: %d pages, not %d", path, clx_image_file_pages(f), pages);
        scan_check(path, f, s->bits == 8 ? "EDAX UP1" : "EDAX UP2", cases[c].rows, cases[c].cols, cases[c].dx,
                   cases[c].dy);
        for (int p = 0; p < pages && p < clx_image_file_pages(f); p++)
            page_check(f, path, p, p, s->width, s->height, s->bits);
        clx_image_file_close(f);
    }
}

/* One .ebsp file: its pages are its points, the missing one an error naming it. */
static void ebsp_case(const struct ebsp_spec *s, int grid)
{
    char name[64], path[4200];
    snprintf(name, sizeof name, "v%d-%d-%s%s%s.ebsp", s->version, s->bits, s->positions ? "pos" : "nopos",
             s->missing >= 0 ? "-missing" : "", s->point0_last ? "-last" : "");
    struct byte_buf b = { 0 };
    ebsp_build(&b, s);
    save(&b, path_in(path, sizeof path, name));
    buf_free(&b);
    clx_image_file *f = open_ok(path);
    if (!f)
        return;
    int n = s->rows * s->cols;
    CHECK(clx_image_file_pages(f) == n, "%s: %d pages, not %d", path, clx_image_file_pages(f), n);
    if (grid)
        scan_check(path, f, "Oxford ebsp", s->rows, s->cols, s->step, s->step);
    else
        scan_check(path, f, "Oxford ebsp", 0, 0, 0, 0);
    for (int p = 0; p < n && p < clx_image_file_pages(f); p++) {
        if (p == s->missing) {
            char words[64];
            snprintf(words, sizeof words, "point %d has no pattern stored", p);
            read_fails(name, f, path, p, words);
        } else {
            page_check(f, path, p, p, s->width, s->height, s->bits);
        }
    }
    clx_image_file_close(f);
}

static void test_ebsp_written(void)
{
    for (int version = 0; version <= 5; version++)
        for (int positions = 0; positions <= 1; positions++) {
            /* Versions 0 and 1 have one footer layout each: none, and positions always. */
            if ((version == 0 && positions) || (version == 1 && !positions))
                continue;
            struct ebsp_spec s = { version, version % 2 ? 16 : 8, 5, 4, 3, 2, 1.5, positions, -1, 1 };
            ebsp_case(&s, version > 0 && positions);
            s.missing = 4;
            s.point0_last = 0;
            ebsp_case(&s, 0);   /* only some points stored: no grid, as kikuchipy */
        }
    /* A column of one point per row: the step from the first two x cannot be taken. */
    struct ebsp_spec column = { 2, 8, 4, 4, 1, 3, 2.0, 1, -1, 0 };
    ebsp_case(&column, 0);
}

static void nordif_write(const char *sub, const struct nordif_spec *spec, int patterns, int w, int h)
{
    char d[1100], path[1200];
    snprintf(d, sizeof d, "%s/%s", dir, sub);
    mkdir(d, 0700);
    struct byte_buf b = { 0 };
    if (spec) {
        nordif_settings_build(&b, spec);
        snprintf(path, sizeof path, "%s/Setting.txt", d);
        save(&b, path);
        buf_free(&b);
    }
    for (int p = 0; p < patterns; p++)
        pw_pattern(&b, p, w, h, 8);
    snprintf(path, sizeof path, "%s/Pattern.dat", d);
    save(&b, path);
    buf_free(&b);
}

static void test_nordif_written(void)
{
    char path[4200];
    struct nordif_spec spec = { "7x5", NULL, "3x2", "0.25", "69.5", "-15.5", "2" };
    nordif_write("nordif", &spec, 6, 7, 5);
    clx_image_file *f = open_ok(path_in(path, sizeof path, "nordif/Pattern.dat"));
    if (f) {
        const clx_scan_info *s = clx_image_file_scan(f);
        CHECK(clx_image_file_pages(f) == 6, "%s: %d pages", path, clx_image_file_pages(f));
        scan_check(path, f, "NORDIF", 3, 2, 0.25, 0.25);
        CHECK(s && s->sample_tilt == 69.5 && s->detector_tilt == 15.5 && s->azimuthal == 2,
              "%s: angles %g %g %g", path, s ? s->sample_tilt : 0, s ? s->detector_tilt : 0, s ? s->azimuthal : 0);
        for (int p = 0; p < 6; p++)
            page_check(f, path, p, p, 7, 5, 8);
        clx_image_file_close(f);
    }
    /* Only the pattern size: no grid (as many patterns as the file holds), no step, no angles. */
    struct nordif_spec bare = { "7x5", NULL, NULL, NULL, NULL, NULL, NULL };
    nordif_write("nordif-bare", &bare, 4, 7, 5);
    if ((f = open_ok(path_in(path, sizeof path, "nordif-bare/Pattern.dat")))) {
        const clx_scan_info *s = clx_image_file_scan(f);
        CHECK(clx_image_file_pages(f) == 4, "%s: %d pages", path, clx_image_file_pages(f));
        scan_check(path, f, "NORDIF", 0, 0, 0, 0);
        CHECK(s && isnan(s->sample_tilt) && isnan(s->detector_tilt) && isnan(s->azimuthal), "%s: angles", path);
        page_check(f, path, 3, 3, 7, 5, 8);
        clx_image_file_close(f);
    }
}

struct reader {
    clx_image_file *file;
    int pages, width, height, bits, index, bad;
};

static void *reader_run(void *arg)
{
    struct reader *r = arg;
    clx_image dst;
    clx_message msg;
    clx_image_alloc(&dst, r->width, r->height, CLX_PIXEL_U16, &msg);
    for (int k = 0; k < READS_EACH; k++) {
        int page = (k * 7 + r->index * 3) % r->pages;
        if (clx_image_file_read_into(r->file, page, &dst, &msg) != CLX_OK) {
            r->bad++;
            continue;
        }
        for (int i = 0; i < r->width * r->height; i++)
            r->bad += ((unsigned short *)dst.pixels)[i] != pw_pixel(page, i % r->width, i / r->width, r->bits);
    }
    clx_image_free(&dst);
    return NULL;
}

/* Several threads read one open file at once, as the loader threads do. */
static void threads_read(const char *path, int width, int height, int bits)
{
    clx_image_file *f = open_ok(path);
    if (!f)
        return;
    CHECK(clx_image_file_shared(f), "%s: reads are not shared", path);
    pthread_t tid[READERS];
    struct reader r[READERS];
    for (int t = 0; t < READERS; t++) {
        r[t] = (struct reader){ f, clx_image_file_pages(f), width, height, bits, t, 0 };
        pthread_create(&tid[t], NULL, reader_run, &r[t]);
    }
    for (int t = 0; t < READERS; t++) {
        pthread_join(tid[t], NULL);
        CHECK(r[t].bad == 0, "%s: thread %d: %d bad pixels or reads", path, t, r[t].bad);
    }
    clx_image_file_close(f);
}

static void test_threads(void)
{
    char path[4200];
    threads_read(path_in(path, sizeof path, "v3.up2"), 6, 3, 16);
    threads_read(path_in(path, sizeof path, "v1.up1"), 5, 4, 8);
    threads_read(path_in(path, sizeof path, "v5-16-pos-last.ebsp"), 5, 4, 16);
    threads_read(path_in(path, sizeof path, "nordif/Pattern.dat"), 7, 5, 8);
}

/* ---- (c) damaged and lying files ------------------------------------------------------- */

/* An UP file of `spec`, altered by one u32 at `at` (unless at < 0) and cut to `length` (unless 0). */
static const char *up_damaged(const char *name, const struct up_spec *spec, int at, uint32_t value, size_t length)
{
    static char path[4200];
    struct byte_buf b = { 0 };
    up_build(&b, spec);
    if (at >= 0)
        buf_put_u32(&b, (size_t)at, value);
    if (length)
        b.size = length;
    save(&b, path_in(path, sizeof path, name));
    buf_free(&b);
    return path;
}

static void test_up_errors(void)
{
    const struct up_spec v3 = { 3, 16, 6, 3, 3, 2, 0, 1, 1, 6 }, v1 = { 1, 8, 6, 3, 0, 0, 0, 0, 0, 2 };
    const char *p;
    p = up_damaged("short.up2", &v3, -1, 0, 10);
    open_fails("UP: a 10-byte file", p, CLX_ERR_FORMAT, "truncated EDAX UP file");
    p = up_damaged("short-v3.up2", &v3, -1, 0, 30);
    open_fails("UP: a version-3 header cut short", p, CLX_ERR_FORMAT, "shorter than the 42-byte header");
    p = up_damaged("version2.up2", &v3, 0, 2, 0);
    open_fails("UP: version 2", p, CLX_ERR_UNSUPPORTED, "version 2, whose layout is not public");
    p = up_damaged("version0.up1", &v1, 0, 0, 0);
    open_fails("UP: version 0", p, CLX_ERR_FORMAT, "not an EDAX UP file");
    struct up_spec hex = v3;
    hex.hexagonal = 1;
    p = up_damaged("hex.up2", &hex, -1, 0, 0);
    open_fails("UP: hexagonal grid", p, CLX_ERR_UNSUPPORTED, "hexagonal grid");
    p = up_damaged("wide.up2", &v3, 4, 100000, 0);
    open_fails("UP: 100000 pixels wide", p, CLX_ERR_FORMAT, "too large");
    p = up_damaged("zero-height.up1", &v1, 8, 0, 0);
    open_fails("UP: height 0", p, CLX_ERR_FORMAT, "image size 6x0");
    p = up_damaged("huge-grid.up2", &v3, 17, 100000, 0);
    open_fails("UP: 100000 columns", p, CLX_ERR_FORMAT, "truncated: the header's grid of 2 x 100000");
    p = up_damaged("huge-grid2.up2", &v3, 21, 0xffffffffu, 0);
    open_fails("UP: 2^32-1 rows", p, CLX_ERR_FORMAT, "truncated");
    p = up_damaged("empty-grid.up2", &v3, 21, 0, 0);
    open_fails("UP: 0 rows", p, CLX_ERR_FORMAT, "grid of 0 x 3");
    p = up_damaged("offset-in-header.up2", &v3, 12, 20, 0);
    open_fails("UP: data offset inside the header", p, CLX_ERR_FORMAT, "offset 20 lies inside the header");
    p = up_damaged("offset-past-end.up1", &v1, 12, 0xfffffff0u, 0);
    open_fails("UP: data offset past the end", p, CLX_ERR_FORMAT, "past the end of the file");
    p = up_damaged("truncated.up2", &v3, -1, 0, 42 + 5 * 36 + 10);
    open_fails("UP: five and a bit of six patterns", p, CLX_ERR_FORMAT, "truncated");
    p = up_damaged("no-pattern.up1", &v1, -1, 0, 16 + 17);
    open_fails("UP1: less than one pattern", p, CLX_ERR_FORMAT, "no whole pattern of 6x3");
}

/* An .ebsp file of `spec` with the i64 at `at` replaced (unless at < 0), cut to `length` (unless 0). */
static const char *ebsp_damaged(const char *name, const struct ebsp_spec *spec, long at, int64_t value,
                                size_t length)
{
    static char path[4200];
    struct byte_buf b = { 0 };
    ebsp_build(&b, spec);
    if (at >= 0)
        buf_put_i64(&b, (size_t)at, value);
    if (length)
        b.size = length;
    save(&b, path_in(path, sizeof path, name));
    buf_free(&b);
    return path;
}

static void test_ebsp_errors(void)
{
    const struct ebsp_spec v2 = { 2, 8, 5, 4, 2, 2, 1, 1, -1, 0 }, v5 = { 5, 16, 5, 4, 2, 2, 1, 1, -1, 0 };
    const long table = 8, first = 8 + 4 * 8, record = 16 + 20 + 18;
    const char *p;
    p = ebsp_damaged("short.ebsp", &v2, -1, 0, 5);
    open_fails("ebsp: 5 bytes", p, CLX_ERR_FORMAT, "truncated Oxford .ebsp file");
    p = ebsp_damaged("version6.ebsp", &v2, 0, -6, 0);
    open_fails("ebsp: version 6", p, CLX_ERR_UNSUPPORTED, "version 6");
    p = ebsp_damaged("negative.ebsp", &v2, table + 8 * 2, -100, 0);
    open_fails("ebsp: a negative offset", p, CLX_ERR_FORMAT, "point 2: its pattern's offset -100 lies outside");
    p = ebsp_damaged("beyond.ebsp", &v2, table + 8 * 3, 1000000, 0);
    open_fails("ebsp: an offset past the end", p, CLX_ERR_FORMAT, "point 3: its pattern's offset 1000000 lies outside");
    p = ebsp_damaged("cut.ebsp", &v2, -1, 0, (size_t)(first + 3 * record + 10));
    open_fails("ebsp: the last record cut", p, CLX_ERR_FORMAT, "point 3: its pattern at byte");
    /* Version 2, and four points none of which is stored. */
    char path[4200];
    struct byte_buf b = { 0 };
    for (int i = 0; i < 5; i++)
        buf_i64(&b, i == 0 ? -2 : 0);
    save(&b, path_in(path, sizeof path, "zeros.ebsp"));
    buf_free(&b);
    open_fails("ebsp: a table of zeros only", path, CLX_ERR_FORMAT, "no pattern stored");
    p = ebsp_damaged("gap.ebsp", &v2, table, first + 4, 0);
    open_fails("ebsp: the first record not after the table", p, CLX_ERR_FORMAT, "not where the offset table");
    p = ebsp_damaged("compressed.ebsp", &v2, first, (int64_t)4 << 32 | 1, 0);
    open_fails("ebsp: compressed", p, CLX_ERR_UNSUPPORTED, "compressed patterns");
    /* Rows and columns of 100000 (the i64 at first + 4 covers both). */
    p = ebsp_damaged("huge.ebsp", &v2, first + 4, (int64_t)100000 << 32 | 100000, 0);
    open_fails("ebsp: 100000 x 100000 pixels", p, CLX_ERR_FORMAT, "too large");
    p = ebsp_damaged("bytes.ebsp", &v2, first + 8, (int64_t)60 << 32 | 5, 0);
    open_fails("ebsp: 60 bytes for 20 pixels", p, CLX_ERR_FORMAT, "neither 8- nor 16-bit");
    /* Version 5: the first record's size fields start 8 bytes later. */
    p = ebsp_damaged("v5-compressed.ebsp", &v5, 9 + 4 * 8 + 8, (int64_t)4 << 32 | 1, 0);
    open_fails("ebsp v5: compressed", p, CLX_ERR_UNSUPPORTED, "compressed patterns");
    /* A later record that is not like the first: found when it is read, naming the page. */
    p = ebsp_damaged("unlike.ebsp", &v2, first + 2 * record + 4, (int64_t)5 << 32 | 5, 0);
    clx_image_file *f = open_ok(p);
    if (f) {
        read_fails("ebsp: a record of another size", f, p, 2, ": page 2: the pattern record at byte");
        clx_image_file_close(f);
    }
}

static void test_nordif_errors(void)
{
    char path[4200];
    struct nordif_spec spec = { "7x5", NULL, "3x2", "0.25", "70", "-20", "0" };
    nordif_write("no-settings", NULL, 6, 7, 5);
    open_fails("NORDIF: no Setting.txt", path_in(path, sizeof path, "no-settings/Pattern.dat"), CLX_ERR_FORMAT,
               "only with the Setting.txt");
    struct nordif_spec no_size = spec;
    no_size.resolution = NULL;
    nordif_write("no-size", &no_size, 6, 7, 5);
    open_fails("NORDIF: no Resolution", path_in(path, sizeof path, "no-size/Pattern.dat"), CLX_ERR_FORMAT,
               "no-size/Setting.txt has no 'Resolution' under [Acquisition settings]");
    struct nordif_spec elsewhere = spec;
    elsewhere.resolution_section = "[Calibration settings]";
    nordif_write("size-elsewhere", &elsewhere, 6, 7, 5);
    open_fails("NORDIF: Resolution only in another section", path_in(path, sizeof path, "size-elsewhere/Pattern.dat"),
               CLX_ERR_FORMAT, "has no 'Resolution' under [Acquisition settings]");
    const struct {
        const char *sub, *resolution, *samples, *tilt, *words;
    } bad[] = {
        { "bad-size", "7 by 5", "3x2", "70", "[Acquisition settings] Resolution is '7 by 5', not WIDTHxHEIGHT" },
        { "huge-size", "100000x100000", "3x2", "70", "too large" },
        { "bad-grid", "7x5", "0x2", "70", "[Area] Number of samples is '0x2', not ROWSxCOLUMNS" },
        { "huge-grid", "7x5", "100000x100000", "70", "more patterns than clxcorr reads" },
        { "big-grid", "7x5", "300x300", "70", "truncated: a grid of 300 x 300 patterns of 7x5" },
        { "bad-tilt", "7x5", "3x2", "seventy", "[Microscope] Tilt angle is 'seventy', not a number" },
        { "no-whole", "7x4", NULL, "70", "not a whole number of 7x4 patterns" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nordif_spec s = spec;
        s.resolution = bad[i].resolution;
        s.samples = bad[i].samples;
        s.tilt = bad[i].tilt;
        char sub[64];
        snprintf(sub, sizeof sub, "%s/Pattern.dat", bad[i].sub);
        nordif_write(bad[i].sub, &s, 6, 7, 5);
        open_fails(bad[i].sub, path_in(path, sizeof path, sub), CLX_ERR_FORMAT, bad[i].words);
    }
    nordif_write("truncated", &spec, 5, 7, 5);
    open_fails("NORDIF: five of six patterns", path_in(path, sizeof path, "truncated/Pattern.dat"), CLX_ERR_FORMAT,
               "truncated: a grid of 3 x 2 patterns of 7x5 needs 210 bytes, the file holds 175");
}

/* Names that promise one format, content of another. */
static void test_wrong_content(void)
{
    char path[4200];
    struct byte_buf b = { 0 };
    buf_text(&b, "not a pattern file at all\n");
    save(&b, path_in(path, sizeof path, "text.up2"));
    open_fails("text named .up2", path, CLX_ERR_FORMAT, "truncated EDAX UP file");
    save(&b, path_in(path, sizeof path, "text.ebsp"));
    open_fails("text named .ebsp", path, CLX_ERR_FORMAT, "lies outside the file");
    buf_free(&b);
    /* An UP2 file named .ebsp: its header read as an offset table. */
    const struct up_spec up = { 3, 16, 6, 3, 3, 2, 0, 1, 1, 6 };
    up_build(&b, &up);
    save(&b, path_in(path, sizeof path, "up2.ebsp"));
    open_fails("UP2 named .ebsp", path, CLX_ERR_FORMAT, path);
    buf_free(&b);
    /* An .ebsp file named .up1: version 2 as the UP reader sees its first bytes (FE FF FF FF...). */
    const struct ebsp_spec e = { 2, 8, 5, 4, 2, 2, 1, 1, -1, 0 };
    ebsp_build(&b, &e);
    save(&b, path_in(path, sizeof path, "ebsp.up1"));
    open_fails("ebsp named .up1", path, CLX_ERR_FORMAT, "too large");
    buf_free(&b);
    /* A TIFF named .up2 is a TIFF: magic numbers come first. */
    clx_image im;
    clx_message msg;
    clx_tiff_writer *w;
    clx_image_alloc(&im, 4, 3, CLX_PIXEL_U16, &msg);
    memset(im.pixels, 0, 24);
    path_in(path, sizeof path, "tiff.up2");
    if (clx_tiff_writer_open(path, 0, &w, &msg) == CLX_OK) {
        clx_tiff_writer_page(w, &im, NULL, &msg);
        clx_tiff_writer_close(w, 1, &msg);
    }
    clx_image_free(&im);
    clx_image_file *f = open_ok(path);
    CHECK(f && !clx_image_file_scan(f) && clx_image_file_pages(f) == 1, "%s: not read as a TIFF", path);
    clx_image_file_close(f);
}

static void dir_remove(void)
{
    char command[1200];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        printf("note: could not remove %s\n", dir);
}

int main(void)
{
    srcdir = getenv("TESTS_SRCDIR");
    if (!srcdir || !getenv("CLXCORR_SAMPLES")) {
        printf("FAIL: TESTS_SRCDIR and CLXCORR_SAMPLES must be set (make check sets them)\n");
        return 99;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/clxcorr-patterns-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: cannot create a temporary directory under %s\n", tmp && *tmp ? tmp : "/tmp");
        return 99;
    }
    test_fixtures();
    test_up_written();
    test_ebsp_written();
    test_nordif_written();
    test_threads();
    test_up_errors();
    test_ebsp_errors();
    test_nordif_errors();
    test_wrong_content();
    if (!getenv("KEEP"))
        dir_remove();
    if (test_failures) {
        printf("%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_pattern_files: all checks passed\n");
    return 0;
}
