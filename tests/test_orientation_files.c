/*
 * test_orientation_files.c - the orientation maps of .ang and .ctf files
 * (src/image/orientation_files.c, clx_orientation_map_read).
 *
 * - tests/data/orientations/scan.ang, written by orix (make_fixture.py
 *   there): its grid, steps and angles, and its point that was not indexed;
 * - .ang and .ctf files written here: CRLF line ends, tabs, a .ctf's
 *   degrees and its phase 0, the format found by content whatever the name;
 * - damaged files: each is refused with CLX_ERR_FORMAT and one line that
 *   names the file and the line, and leaves no map behind.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clxcorr.h"

#define DEG (M_PI / 180.0)

static char dir[1024];

static void file_write(const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("FAIL: cannot write %s\n", path);
        exit(1);
    }
}

/* Point k's angles are (a, b, c) degrees (NAN: not indexed), to `tol` radians. */
static int angles_are(const clx_orientation_map *m, int k, double a, double b, double c, double tol)
{
    const double *e = &m->euler[3 * k];
    if (isnan(a))
        return isnan(e[0]) && isnan(e[1]) && isnan(e[2]);
    return fabs(e[0] - a * DEG) < tol && fabs(e[1] - b * DEG) < tol && fabs(e[2] - c * DEG) < tol;
}

/* orix's file: Bunge angles (30 + 10 k, 40 + 5 k, 50 + k) degrees, rounded by
 * orix to 5 decimals of a radian; point 4 not indexed. */
static void test_orix_fixture(void)
{
    const char *srcdir = getenv("TESTS_SRCDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/data/orientations/scan.ang", srcdir ? srcdir : "tests");
    clx_orientation_map m;
    clx_message msg;
    int rc = clx_orientation_map_read(path, &m, &msg);
    CHECK(rc == CLX_OK, "%s: %s", clx_status_name(rc), msg.text);
    if (rc != CLX_OK)
        return;
    CHECK(strcmp(m.format, "EDAX ang") == 0, "format '%s'", m.format);
    CHECK(m.rows == 2 && m.cols == 3, "grid %d x %d", m.rows, m.cols);
    CHECK(m.step_x == 1.5 && m.step_y == 2.0, "steps %g, %g", m.step_x, m.step_y);
    for (int k = 0; k < 6; k++)
        if (k == 4)
            CHECK(angles_are(&m, k, NAN, 0, 0, 0), "point 4 is not indexed: %g %g %g", m.euler[12], m.euler[13],
                  m.euler[14]);
        else
            CHECK(angles_are(&m, k, 30 + 10 * k, 40 + 5 * k, 50 + k, 1e-5), "point %d: %g %g %g", k,
                  m.euler[3 * k], m.euler[3 * k + 1], m.euler[3 * k + 2]);
    /* orix writes "# Symmetry 43" for m-3m, and each point's image quality. */
    CHECK(m.symmetry == CLX_SYMMETRY_CUBIC && isfinite(m.quality[0]), "symmetry %d, quality %g", m.symmetry,
          m.quality[0]);
    clx_orientation_map_free(&m);
    CHECK(m.euler == NULL && m.rows == 0, "freed map not cleared");
}

static void test_written(void)
{
    char path[4200];
    clx_orientation_map m;
    clx_message msg;
    /* An EDAX header as OIM writes it, CRLF line ends, extra columns, a
     * point that was not indexed, an origin other than 0, no final newline. */
    file_write("crlf.ang",
               "# TEM_PIXperUM          1.000000\r\n"
               "# GRID: SqrGrid\r\n"
               "# XSTEP: 0.5\r\n"
               "# YSTEP: 0.25\r\n"
               "# NCOLS_ODD: 2\r\n"
               "# NCOLS_EVEN: 2\r\n"
               "# NROWS: 3\r\n"
               "#\r\n"
               "  0.1 0.2 0.3  10.0 20.0  100.0 0.9 0 55.0 0.7 1 2\r\n"
               "  0.4 0.5 0.6  10.5 20.0  100.0 0.9 0 55.0 0.7 1 2\r\n"
               "\r\n"
               "  12.56637 12.56637 12.56637 10.0 20.25 0 -1 0 0 180 0 0\r\n"
               "  1 1.5 2  10.5 20.25 100 0.9 0 55.0 0.7 1 2\r\n"
               "  6.2 3.1 6.2  10.0 20.5 100 0.9 0 55.0 0.7 1 2\r\n"
               "  0 0 0  10.5 20.5 100 0.9 0 55.0 0.7 1 2",
               path, sizeof path);
    int rc = clx_orientation_map_read(path, &m, &msg);
    CHECK(rc == CLX_OK, "crlf.ang: %s: %s", clx_status_name(rc), msg.text);
    if (rc == CLX_OK) {
        CHECK(m.rows == 3 && m.cols == 2 && m.step_x == 0.5 && m.step_y == 0.25, "grid %d x %d, steps %g %g",
              m.rows, m.cols, m.step_x, m.step_y);
        CHECK(m.euler[0] == 0.1 && m.euler[4] == 0.5 && m.euler[9] == 1 && m.euler[17] == 0, "angles as written");
        CHECK(isnan(m.euler[6]) && isnan(m.euler[7]) && isnan(m.euler[8]), "4 pi: not indexed");
        clx_orientation_map_free(&m);
    }

    /* Oxford Channel 5, tab-separated, degrees; phase 0 not indexed; named
     * .txt: found by its first line. */
    file_write("channel5.txt",
               "Channel Text File\n"
               "Prj\tC:\\scans\\steel.cpr\n"
               "Author\t[Unknown]\n"
               "JobMode\tGrid\n"
               "XCells\t2\n"
               "YCells\t2\n"
               "XStep\t1.5\n"
               "YStep\t1.5\n"
               "AcqE1\t0\n"
               "AcqE2\t0\n"
               "AcqE3\t0\n"
               "Euler angles refer to Sample Coordinate system (CS0)!\tMag\t2000\tCoverage\t100\tDevice\t0\tKV\t20\n"
               "Phases\t1\n"
               "2.866;2.866;2.866\t90;90;90\tIron bcc (old)\t11\t229\n"
               "Phase\tX\tY\tBands\tError\tEuler1\tEuler2\tEuler3\tMAD\tBC\tBS\n"
               "1\t0.0000\t0.0000\t8\t0\t10.5\t20.25\t30\t0.5\t150\t200\n"
               "0\t1.5000\t0.0000\t0\t3\t0\t0\t0\t0\t20\t30\n"
               "1\t0.0000\t1.5000\t8\t0\t359\t90\t1\t0.5\t150\t200\n"
               "1\t1.5000\t1.5000\t8\t0\t45\t45\t45\t0.5\t150\t200\n",
               path, sizeof path);
    rc = clx_orientation_map_read(path, &m, &msg);
    CHECK(rc == CLX_OK, "channel5.txt: %s: %s", clx_status_name(rc), msg.text);
    if (rc == CLX_OK) {
        CHECK(strcmp(m.format, "Oxford ctf") == 0, "format '%s'", m.format);
        CHECK(m.rows == 2 && m.cols == 2 && m.step_x == 1.5 && m.step_y == 1.5, "grid %d x %d", m.rows, m.cols);
        /* Oxford's sample frame turned into kikuchipy's: phi1 + 90 degrees
         * (orix: from_euler((10.5, 20.25, 30)) * from_axes_angles((0, 0, 1),
         * -90 degrees) has Bunge angles (100.5, 20.25, 30)). */
        CHECK(angles_are(&m, 0, 100.5, 20.25, 30, 1e-12), "point 0 in radians: %g", m.euler[0]);
        CHECK(angles_are(&m, 1, NAN, 0, 0, 0), "phase 0: not indexed");
        CHECK(angles_are(&m, 2, 89, 90, 1, 1e-12) && angles_are(&m, 3, 135, 45, 45, 1e-12), "points 2, 3");
        /* BC is each point's quality; Laue group 11 in the phase line is m-3m. */
        CHECK(m.quality[0] == 150 && m.quality[1] == 20 && m.symmetry == CLX_SYMMETRY_CUBIC,
              "quality %g, %g, symmetry %d", m.quality[0], m.quality[1], m.symmetry);
        clx_orientation_map_free(&m);
    }
}

/* `text` (named `name`) is refused with CLX_ERR_FORMAT and a message that
 * starts "PATH:LINE:" and holds `words`; no map is left. */
static void refused(const char *name, const char *text, int line, const char *words)
{
    char path[4200], start[4300];
    clx_orientation_map m;
    clx_message msg;
    file_write(name, text, path, sizeof path);
    int rc = clx_orientation_map_read(path, &m, &msg);
    snprintf(start, sizeof start, "%s:%d: ", path, line);
    CHECK(rc == CLX_ERR_FORMAT, "%s: %s (%s)", name, clx_status_name(rc), msg.text);
    CHECK(strncmp(msg.text, start, strlen(start)) == 0 && strstr(msg.text, words) && !strchr(msg.text, '\n'),
          "%s: message '%s', expected line %d and '%s'", name, msg.text, line, words);
    CHECK(m.euler == NULL, "%s: a map was left", name);
    clx_orientation_map_free(&m);
    remove(path);
}

#define ANG_HEAD "# GRID: SqrGrid\n# XSTEP: 1\n# YSTEP: 1\n# NCOLS_ODD: 2\n# NCOLS_EVEN: 2\n# NROWS: 2\n"
#define P00 "0.1 0.2 0.3 0 0 1 1 0\n"
#define P01 "0.1 0.2 0.3 1 0 1 1 0\n"
#define P10 "0.1 0.2 0.3 0 1 1 1 0\n"
#define P11 "0.1 0.2 0.3 1 1 1 1 0\n"
#define CTF_HEAD "Channel Text File\nJobMode\tGrid\nXCells\t2\nYCells\t1\nXStep\t1\nYStep\t1\n"
#define CTF_COLUMNS "Phase\tX\tY\tBands\tError\tEuler1\tEuler2\tEuler3\tMAD\tBC\tBS\n"

static void test_refused(void)
{
    refused("word.ang", ANG_HEAD P00 "0.1 0.2 x3 1 0 1 1 0\n" P10 P11, 8, "not a number: \"x3 1 0");
    refused("short.ang", ANG_HEAD P00 P01 "0.1 0.2 0.3 0\n" P11, 9, "4 numbers, not the columns phi1 PHI phi2 x y");
    refused("cut.ang", ANG_HEAD P00 P01 P10, 9, "the file ends after 3 of the 4 points its header gives (NROWS 2");
    refused("extra.ang", ANG_HEAD P00 P01 P10 P11 P11, 11, "more points than the header's NROWS 2 x NCOLS_ODD 2");
    refused("swapped.ang", ANG_HEAD P00 P10 P01 P11, 8, "the point at x 0, y 1 is not at row 0, column 1");
    refused("hex.ang", "# GRID: HexGrid\n# NROWS: 2\n" P00, 1, "only square grids");
    refused("norows.ang", "# NCOLS_ODD: 2\n# XSTEP: 1\n" P00 P01, 3, "the header gives no NROWS");
    refused("badcols.ang", "# NCOLS_ODD: two\n", 1, "NCOLS_ODD must be a whole number");
    refused("badstep.ang", "# XSTEP: -1\n", 1, "XSTEP must be a positive step");
    refused("oddeven.ang", "# NCOLS_ODD: 3\n# NCOLS_EVEN: 2\n# NROWS: 2\n" P00, 1, "NCOLS_ODD 3 and NCOLS_EVEN 2 differ");
    refused("nopoints.ang", ANG_HEAD, 6, "no points after the header");
    refused("nocolumns.ctf", CTF_HEAD "Phases\t1\n", 7, "no column line");
    refused("noeuler.ctf", CTF_HEAD "Phase\tX\tY\tBands\tError\tMAD\n", 7, "no Euler1 column");
    refused("cells.ctf", "Channel Text File\nXCells\t0\n", 2, "XCells must be a whole number of points from 1");
    refused("spot.ctf", "Channel Text File\nJobMode\tInteractive\n", 2, "only grid scans");
    refused("nogrid.ctf", "Channel Text File\nXCells\t2\n" CTF_COLUMNS, 3, "the header gives no YCells");
    refused("word.ctf", CTF_HEAD CTF_COLUMNS "1\t0\t0\t8\t0\t1\t2\tthree\t0.5\t1\t1\n", 8, "not a number: \"three");
    refused("few.ctf", CTF_HEAD CTF_COLUMNS "1\t0\t0\t8\t0\t1\t2\n", 8, "7 numbers, where the column line has at least 8");
    refused("cut.ctf", CTF_HEAD CTF_COLUMNS "1\t0\t0\t8\t0\t1\t2\t3\t0.5\t1\t1\n", 8,
            "the file ends after 1 of the 2 points its header gives (YCells 1 x XCells 2)");
    refused("other.txt", "phi1 PHI phi2\n1 2 3\n", 1, "neither an EDAX .ang file");

    /* Missing and empty files. */
    char path[4200];
    clx_orientation_map m;
    clx_message msg;
    snprintf(path, sizeof path, "%s/none.ang", dir);
    CHECK(clx_orientation_map_read(path, &m, &msg) == CLX_ERR_IO && strstr(msg.text, "none.ang"), "missing: %s",
          msg.text);
    file_write("empty.ctf", "", path, sizeof path);
    CHECK(clx_orientation_map_read(path, &m, &msg) == CLX_ERR_FORMAT && strstr(msg.text, "empty file"), "empty: %s",
          msg.text);
    remove(path);
    CHECK(clx_orientation_map_read(NULL, &m, &msg) == CLX_ERR_ARGUMENT, "NULL path");
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/clxcorr-orientations-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: cannot create a temporary directory under %s\n", tmp && *tmp ? tmp : "/tmp");
        return 1;
    }
    test_orix_fixture();
    test_written();
    test_refused();
    char path[4200];
    snprintf(path, sizeof path, "%s/crlf.ang", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/channel5.txt", dir);
    remove(path);
    rmdir(dir);
    if (test_failures) {
        printf("%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_orientation_files: all checks passed\n");
    return 0;
}
