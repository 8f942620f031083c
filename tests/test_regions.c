/*
 * test_regions.c - windows files, grids and window checks (src/image/regions.c).
 *
 * Every error path is checked for its status and for the words of its
 * message (line numbers included), since those messages are the user's only
 * guide to fixing a hand-written windows file.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clxcorr.h"

static char dir[1024];   /* short enough that every path built on it fits in 4200 */

static void file_write(const char *name, const char *text, size_t length, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, length, f) != length || fclose(f) != 0) {
        printf("FAIL: cannot write %s\n", path);
        exit(1);
    }
}

/* Reads `text` as a windows file; returns the status, fills regions/count/msg. */
static int read_text(const char *text, clx_region **regions, size_t *count, clx_message *msg,
                     char *path, size_t size)
{
    static int serial;
    char name[32];
    snprintf(name, sizeof name, "windows%d.txt", serial++);
    file_write(name, text, strlen(text), path, size);
    int rc = clx_regions_read(path, regions, count, msg);
    remove(path);
    return rc;
}

static int region_is(const clx_region *r, int x, int y, int w, int h)
{
    return r->x == x && r->y == y && r->w == w && r->h == h;
}

static void test_read_good(void)
{
    clx_region *r;
    size_t n;
    clx_message msg;
    char path[4200];
    const char *text =
        "# windows for the test\n"
        "\n"
        "10 20 64 32\n"
        "   \t \n"
        "  30\t40 64 32   # trailing comment\n"
        "#only a comment\n"
        "+5 0 64 32\r\n"
        "7 8 64 32";   /* no newline at the end */
    int rc = read_text(text, &r, &n, &msg, path, sizeof path);
    CHECK(rc == CLX_OK, "status %s: %s", clx_status_name(rc), msg.text);
    CHECK(rc != CLX_OK || msg.text[0] == '\0', "message not cleared: %s", msg.text);
    CHECK(n == 4, "count %zu", n);
    if (rc == CLX_OK && n == 4) {
        CHECK(region_is(&r[0], 10, 20, 64, 32), "r0 %d %d %d %d", r[0].x, r[0].y, r[0].w, r[0].h);
        CHECK(region_is(&r[1], 30, 40, 64, 32), "r1 %d %d %d %d", r[1].x, r[1].y, r[1].w, r[1].h);
        CHECK(region_is(&r[2], 5, 0, 64, 32), "r2 %d %d %d %d", r[2].x, r[2].y, r[2].w, r[2].h);
        CHECK(region_is(&r[3], 7, 8, 64, 32), "r3 %d %d %d %d", r[3].x, r[3].y, r[3].w, r[3].h);
    }
    free(r);

    /* Many lines: the array grows. */
    char big[64 * 1000];
    size_t at = 0;
    for (int i = 0; i < 1000; i++)
        at += (size_t)snprintf(big + at, sizeof big - at, "%d %d 8 8\n", i, 2 * i);
    rc = read_text(big, &r, &n, &msg, path, sizeof path);
    CHECK(rc == CLX_OK && n == 1000, "status %s count %zu: %s", clx_status_name(rc), n, msg.text);
    if (rc == CLX_OK && n == 1000)
        CHECK(region_is(&r[999], 999, 1998, 8, 8), "r999 %d %d", r[999].x, r[999].y);
    free(r);
}

/* One malformed file: the status, and the message must contain `expect`. */
static void expect_bad(const char *text, int status, const char *expect)
{
    static clx_region stale;
    clx_region *r = &stale;   /* must come back NULL */
    size_t n = 99;
    clx_message msg;
    char path[4200], want[4400];
    int rc = read_text(text, &r, &n, &msg, path, sizeof path);
    snprintf(want, sizeof want, expect, path);
    CHECK(rc == status, "text \"%s\": status %s, want %s (%s)", text, clx_status_name(rc),
          clx_status_name(status), msg.text);
    CHECK(strstr(msg.text, want) != NULL, "text \"%s\": message \"%s\" lacks \"%s\"", text,
          msg.text, want);
    CHECK(r == NULL && n == 0, "text \"%s\": regions %p count %zu after failure", text,
          (void *)r, n);
    if (r != &stale)
        free(r);
}

static void test_read_bad(void)
{
    const char *four = "expected 'x y w h' (four integers)";
    char want[128];
    snprintf(want, sizeof want, "%%s:2: %s", four);
    expect_bad("1 2 3 4\n1 2 3\n", CLX_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%%s:3: %s", four);
    expect_bad("# c\n\n1 2 three 4\n", CLX_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%%s:1: %s", four);
    expect_bad("1 2 3.5 4\n", CLX_ERR_FORMAT, want);
    expect_bad("1,2,3,4\n", CLX_ERR_FORMAT, want);
    expect_bad("0x10 2 3 4\n", CLX_ERR_FORMAT, want);
    expect_bad("1 2 3 - 4\n", CLX_ERR_FORMAT, want);
    expect_bad("1 2 3 4x\n", CLX_ERR_FORMAT, want);
    expect_bad("1 2 3 4\n5 6 7 8 9\n", CLX_ERR_FORMAT, "%s:2: unexpected text after 'x y w h': \"9\"");
    expect_bad("1 2 3 4 junk # comment\n", CLX_ERR_FORMAT,
               "%s:1: unexpected text after 'x y w h': \"junk\"");
    expect_bad("1 2 -3 4\n", CLX_ERR_FORMAT, "%s:1: window size must be positive (w=-3 h=4)");
    expect_bad("\n\n\n\n1 2 3 0\n", CLX_ERR_FORMAT, "%s:5: window size must be positive (w=3 h=0)");
    expect_bad("-1 2 3 4\n", CLX_ERR_FORMAT, "%s:1: negative window position (x=-1 y=2)");
    expect_bad("1 2 3 4\n1 2 3 99999999999\n", CLX_ERR_FORMAT, "%s:2: number out of range");
    expect_bad("1 2147483648 3 4\n", CLX_ERR_FORMAT, "%s:1: number out of range");
    expect_bad("", CLX_ERR_FORMAT, "%s: no windows");
    expect_bad("# only comments\n\n   \n", CLX_ERR_FORMAT, "%s: no windows");
}

/* A NUL inside a line, written with its true length. */
static void test_read_nul(void)
{
    static const char text[] = "1 2 3 4\n1 2 3\0 4\n";
    char path[4200], want[4400];
    file_write("nul.txt", text, sizeof text - 1, path, sizeof path);
    clx_region *r = NULL;
    size_t n = 0;
    clx_message msg;
    int rc = clx_regions_read(path, &r, &n, &msg);
    snprintf(want, sizeof want, "%s:2: expected 'x y w h'", path);
    CHECK(rc == CLX_ERR_FORMAT && strstr(msg.text, want), "status %s: %s",
          clx_status_name(rc), msg.text);
    free(r);
    remove(path);
}

static void test_read_missing(void)
{
    clx_region *r = NULL;
    size_t n = 0;
    clx_message msg;
    char path[4200], want[4400];
    snprintf(path, sizeof path, "%s/no-such-file.txt", dir);
    int rc = clx_regions_read(path, &r, &n, &msg);
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    CHECK(rc == CLX_ERR_IO, "status %s", clx_status_name(rc));
    CHECK(strstr(msg.text, want) != NULL, "message \"%s\"", msg.text);
    rc = clx_regions_read(NULL, &r, &n, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT, "NULL path: status %s", clx_status_name(rc));
    rc = clx_regions_read(path, NULL, &n, NULL);
    CHECK(rc == CLX_ERR_ARGUMENT, "NULL regions, NULL msg: status %s", clx_status_name(rc));
}

static void test_grid(void)
{
    clx_region *r = NULL;
    size_t n = 0;
    clx_message msg;

    /* nx = ny = 1: centred, (W - w) / 2 rounded down. */
    int rc = clx_regions_grid(1, 1, 64, 32, 0, 101, 50, &r, &n, &msg);
    CHECK(rc == CLX_OK && n == 1, "1x1: %s %s", clx_status_name(rc), msg.text);
    if (rc == CLX_OK)
        CHECK(region_is(&r[0], 18, 9, 64, 32), "1x1 at %d %d", r[0].x, r[0].y);
    free(r);

    /* nx = 3, ny = 2, margin 5 in 100x60: span x = 100 - 10 - 20 = 70 -> 5, 40, 75;
     * span y = 60 - 10 - 10 = 40 -> 5, 45. Row by row. */
    rc = clx_regions_grid(3, 2, 20, 10, 5, 100, 60, &r, &n, &msg);
    CHECK(rc == CLX_OK && n == 6, "3x2: %s %s", clx_status_name(rc), msg.text);
    if (rc == CLX_OK && n == 6) {
        static const int want[6][2] = { { 5, 5 }, { 40, 5 }, { 75, 5 }, { 5, 45 }, { 40, 45 }, { 75, 45 } };
        for (int i = 0; i < 6; i++)
            CHECK(region_is(&r[i], want[i][0], want[i][1], 20, 10), "3x2 window %d at %d %d, want %d %d",
                  i, r[i].x, r[i].y, want[i][0], want[i][1]);
    }
    free(r);

    /* Rounding: 4 windows over span 10 -> 0, 3.33, 6.67, 10 -> 0, 3, 7, 10; halves go up:
     * 5 windows over span 2 -> 0, 0.5, 1, 1.5, 2 -> 0, 1, 1, 2, 2. */
    rc = clx_regions_grid(4, 5, 10, 10, 0, 20, 12, &r, &n, &msg);
    CHECK(rc == CLX_OK && n == 20, "4x5: %s %s", clx_status_name(rc), msg.text);
    if (rc == CLX_OK && n == 20) {
        static const int xs[4] = { 0, 3, 7, 10 }, ys[5] = { 0, 1, 1, 2, 2 };
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 4; i++)
                CHECK(region_is(&r[j * 4 + i], xs[i], ys[j], 10, 10), "4x5 window (%d,%d) at %d %d",
                      i, j, r[j * 4 + i].x, r[j * 4 + i].y);
        CHECK(clx_regions_check(r, n, 20, 12, &msg) == CLX_OK, "grid fails check: %s", msg.text);
    }
    free(r);

    /* Exactly fitting: the windows touch the margins. nx = 1 with a margin: centred. */
    rc = clx_regions_grid(2, 1, 10, 10, 3, 26, 30, &r, &n, &msg);
    CHECK(rc == CLX_OK && n == 2, "2x1 exact: %s %s", clx_status_name(rc), msg.text);
    if (rc == CLX_OK && n == 2) {
        CHECK(region_is(&r[0], 3, 10, 10, 10), "2x1 window 0 at %d %d", r[0].x, r[0].y);
        CHECK(region_is(&r[1], 13, 10, 10, 10), "2x1 window 1 at %d %d", r[1].x, r[1].y);
    }
    free(r);
}

static void test_grid_bad(void)
{
    static clx_region stale;
    clx_region *r = &stale;
    size_t n = 7;
    clx_message msg;
    int rc = clx_regions_grid(2, 2, 10, 10, 3, 15, 30, &r, &n, &msg);
    CHECK(rc == CLX_ERR_REGION, "no fit: status %s", clx_status_name(rc));
    CHECK(strcmp(msg.text, "grid of 2x2 windows of 10x10 with margin 3 does not fit in a 15x30 image") == 0,
          "no fit: message \"%s\"", msg.text);
    CHECK(r == NULL && n == 0, "no fit: output not cleared");
    rc = clx_regions_grid(1, 1, 10, 40, 0, 100, 30, &r, &n, &msg);
    CHECK(rc == CLX_ERR_REGION && strstr(msg.text, "does not fit in a 100x30 image"),
          "too tall: %s %s", clx_status_name(rc), msg.text);
    rc = clx_regions_grid(0, 1, 10, 10, 0, 100, 30, &r, &n, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT, "nx 0: %s %s", clx_status_name(rc), msg.text);
    rc = clx_regions_grid(1, 1, 1, 10, 0, 100, 30, &r, &n, &msg);
    CHECK(rc == CLX_ERR_REGION && strstr(msg.text, "at least 2x2"), "w 1: %s %s",
          clx_status_name(rc), msg.text);
    rc = clx_regions_grid(1, 1, 10, 10, -1, 100, 30, &r, &n, &msg);
    CHECK(rc == CLX_ERR_ARGUMENT && strstr(msg.text, "margin -1"), "margin -1: %s %s",
          clx_status_name(rc), msg.text);
    /* Huge margins must not overflow into a fit. */
    rc = clx_regions_grid(1, 1, 10, 10, 2000000000, 100, 30, &r, &n, &msg);
    CHECK(rc == CLX_ERR_REGION, "margin 2e9: %s %s", clx_status_name(rc), msg.text);
}

static void expect_check(const clx_region *r, size_t n, int w, int h, int status, const char *text)
{
    clx_message msg;
    int rc = clx_regions_check(r, n, w, h, &msg);
    CHECK(rc == status, "status %s, want %s (%s)", clx_status_name(rc), clx_status_name(status),
          msg.text);
    if (text)
        CHECK(strcmp(msg.text, text) == 0, "message \"%s\", want \"%s\"", msg.text, text);
}

static void test_check(void)
{
    clx_region r[6] = { { 0, 0, 100, 100 }, { 800, 800, 100, 100 }, { 10, 10, 100, 100 },
                        { 20, 20, 100, 100 }, { 30, 30, 100, 100 }, { 40, 40, 100, 100 } };
    expect_check(r, 6, 900, 900, CLX_OK, "");

    r[3].w = r[3].h = 64;
    expect_check(r, 6, 900, 900, CLX_ERR_REGION,
                 "window 3 is 64x64 but window 0 is 100x100: all windows must have one size");
    r[3].w = r[3].h = 100;
    r[3].w = 99;
    expect_check(r, 6, 900, 900, CLX_ERR_REGION,
                 "window 3 is 99x100 but window 0 is 100x100: all windows must have one size");
    r[3].w = 100;

    /* Each side. */
    r[5] = (clx_region){ 850, 10, 100, 100 };
    expect_check(r, 6, 900, 900, CLX_ERR_REGION,
                 "window 5 (x=850 y=10 w=100 h=100) extends outside the 900x900 image");
    r[5] = (clx_region){ 10, 801, 100, 100 };
    expect_check(r, 6, 900, 900, CLX_ERR_REGION,
                 "window 5 (x=10 y=801 w=100 h=100) extends outside the 900x900 image");
    r[5] = (clx_region){ -1, 10, 100, 100 };
    expect_check(r, 6, 900, 900, CLX_ERR_REGION,
                 "window 5 (x=-1 y=10 w=100 h=100) extends outside the 900x900 image");
    r[5] = (clx_region){ 10, -5, 100, 100 };
    expect_check(r, 6, 900, 900, CLX_ERR_REGION,
                 "window 5 (x=10 y=-5 w=100 h=100) extends outside the 900x900 image");
    /* Exactly touching the far edges is inside; x + w must not overflow. */
    r[5] = (clx_region){ 800, 800, 100, 100 };
    expect_check(r, 6, 900, 900, CLX_OK, "");
    r[5] = (clx_region){ 2147483600, 0, 100, 100 };
    expect_check(r, 6, 900, 900, CLX_ERR_REGION, NULL);
    /* Non-square images: width and height are not swapped. */
    clx_region wide = { 150, 0, 40, 20 };
    expect_check(&wide, 1, 200, 20, CLX_OK, "");
    expect_check(&wide, 1, 20, 200, CLX_ERR_REGION,
                 "window 0 (x=150 y=0 w=40 h=20) extends outside the 20x200 image");

    /* At least 2x2. */
    clx_region small[2] = { { 0, 0, 1, 5 }, { 0, 0, 1, 5 } };
    expect_check(small, 2, 100, 100, CLX_ERR_REGION,
                 "window 0 is 1x5: windows must be at least 2x2");
    small[0].w = small[1].w = 5;
    small[0].h = small[1].h = 1;
    expect_check(small, 2, 100, 100, CLX_ERR_REGION,
                 "window 0 is 5x1: windows must be at least 2x2");
    small[0].h = small[1].h = 2;
    small[0].w = small[1].w = 2;
    expect_check(small, 2, 100, 100, CLX_OK, "");

    expect_check(r, 0, 900, 900, CLX_ERR_REGION, "no windows");
    expect_check(NULL, 3, 900, 900, CLX_ERR_ARGUMENT, NULL);
    CHECK(clx_regions_check(r, 1, 900, 900, NULL) == CLX_OK, "NULL msg");
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/clxcorr-regions-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: cannot create a temporary directory under %s\n", tmp && *tmp ? tmp : "/tmp");
        return 1;
    }
    test_read_good();
    test_read_bad();
    test_read_nul();
    test_read_missing();
    test_grid();
    test_grid_bad();
    test_check();
    rmdir(dir);
    if (test_failures) {
        printf("%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_regions: all checks passed\n");
    return 0;
}
