/*
 * h5ebsd_headers.c - each EBSD HDF5 layout's header: grid, steps, pattern
 * centre, tilts and orientations, in clx_scan_info's units and convention
 * (h5ebsd_headers.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "image/h5ebsd_headers.h"
#include "image/hdf5_read.h"
#include "image/pattern_centre.h"
#include "image/sample_frames.h"

#define DEGREES (180.0 / M_PI)

void h5ebsd_header_free(struct h5ebsd_header *h)
{
    free(h->pattern_centres);
    free(h->euler);
    free(h->position);
    h->pattern_centres = h->euler = NULL;
    h->position = NULL;
}

static int problem(struct h5ebsd_header *h, const char *fmt, const char *path)
{
    snprintf(h->problem, sizeof h->problem, fmt, path);
    return -1;
}

/* A header value, or `otherwise` when the file does not have it. */
static double value_or(hid_t scan, const char *path, double otherwise)
{
    double v;
    return h5_read_double(scan, path, &v) == 0 ? v : otherwise;
}

/* The scan grid from two header values, both required. */
static int read_grid(hid_t scan, const char *rows, const char *cols, struct h5ebsd_header *h)
{
    long long r, c;
    if (h5_read_long(scan, rows, &r) != 0 || r < 1)
        return problem(h, "no scan grid: %s is missing or not a positive integer", rows);
    if (h5_read_long(scan, cols, &c) != 0 || c < 1)
        return problem(h, "no scan grid: %s is missing or not a positive integer", cols);
    if (r > 1 << 24 || c > 1 << 24)
        return problem(h, "the scan grid in %s is absurdly large", rows);
    h->info.rows = (int)r;
    h->info.cols = (int)c;
    h->rows_from = rows;
    h->cols_from = cols;
    return 0;
}

/* One side of the pattern size, when the header gives it: a value that is
 * there but garbled is a problem, not a size left unchecked. */
static int read_side(hid_t scan, const char *path, long long *side, const char **from, struct h5ebsd_header *h)
{
    long long v;
    if (!h5_exists(scan, path))
        return 0;
    if (h5_read_long(scan, path, &v) != 0 || v < 1)
        return problem(h, "%s is not a positive integer", path);
    *side = v;
    *from = path;
    return 0;
}

static int read_size(hid_t scan, const char *height, const char *width, struct h5ebsd_header *h)
{
    return read_side(scan, height, &h->height, &h->height_from, h) || read_side(scan, width, &h->width, &h->width_from, h)
           ? -1 : 0;
}

/*
 * The pattern centre from three datasets of one value or one per entry,
 * converted to Bruker's convention: one centre into info, or one per entry
 * into h->pattern_centres. Missing: none, and that is no problem.
 */
static int read_pattern_centre(hid_t scan, const char *const paths[3], size_t n, enum pc_convention from, int width,
                               int height, struct h5ebsd_header *h)
{
    double *v[3] = { NULL, NULL, NULL };
    int single[3] = { 1, 1, 1 }, ok = 1;
    for (int k = 0; k < 3 && ok; k++)
        ok = h5_read_doubles(scan, paths[k], n, &v[k], &single[k]) == 0;
    if (!ok) {
        for (int k = 0; k < 3; k++)
            free(v[k]);
        return 0;
    }
    clx_scan_info *s = &h->info;
    int per_point = n > 1 && !(single[0] && single[1] && single[2]);
    if (per_point && !(h->pattern_centres = malloc(sizeof(double) * 3 * n))) {
        for (int k = 0; k < 3; k++)
            free(v[k]);
        return problem(h, "out of memory for the pattern centres in %s", paths[0]);
    }
    for (size_t i = 0; i < (per_point ? n : 1); i++) {
        double in[3] = { v[0][i], v[1][i], v[2][i] }, out[3];
        pc_to_bruker(from, in, width, height, s->binning, s->pixel_size, out);
        if (per_point)
            memcpy(h->pattern_centres + 3 * i, out, sizeof out);
        else {
            s->pcx = out[0];
            s->pcy = out[1];
            s->pcz = out[2];
        }
    }
    s->has_pc = 1;
    s->pc_per_point = per_point;
    snprintf(s->pc_convention, sizeof s->pc_convention, "%s", pc_convention_name(from));
    for (int k = 0; k < 3; k++)
        free(v[k]);
    return 0;
}

/* Orientations from three datasets of one angle each (per entry), in degrees or radians. */
static void read_euler3(hid_t scan, const char *const paths[3], size_t n, int degrees, struct h5ebsd_header *h)
{
    double *v[3] = { NULL, NULL, NULL };
    int single, ok = 1;
    for (int k = 0; k < 3 && ok; k++)
        ok = h5_read_doubles(scan, paths[k], n, &v[k], &single) == 0 && (!single || n == 1);
    if (ok && (h->euler = malloc(sizeof(double) * 3 * n))) {
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                h->euler[3 * i + k] = degrees ? v[k][i] / DEGREES : v[k][i];
        h->info.has_euler = 1;
    }
    for (int k = 0; k < 3; k++)
        free(v[k]);
}

/* Orientations from one (n, 3) dataset, in radians. */
static void read_euler_n3(hid_t scan, const char *path, size_t n, struct h5ebsd_header *h)
{
    if (h5_read_triples(scan, path, n, &h->euler) == 0)
        h->info.has_euler = 1;
}

/* The orientations read, written in Oxford's or Bruker's sample frame, into clxcorr's. */
static void euler_all_from_bruker_oxford_frame(size_t n, struct h5ebsd_header *h)
{
    for (size_t i = 0; h->euler && i < n; i++)
        euler_from_bruker_oxford_frame(h->euler + 3 * i);
}

/* ---- kikuchipy ------------------------------------------------------------- */

static int kikuchipy_header(hid_t scan, size_t n, int width, int height, struct h5ebsd_header *h)
{
    static const char *const pc[3] = { "EBSD/Header/pcx", "EBSD/Header/pcy", "EBSD/Header/pcz" };
    static const char *const euler[3] = { "EBSD/CrystalMap/crystal_map/data/phi1",
                                          "EBSD/CrystalMap/crystal_map/data/Phi",
                                          "EBSD/CrystalMap/crystal_map/data/phi2" };
    clx_scan_info *s = &h->info;
    if (read_grid(scan, "EBSD/Header/n_rows", "EBSD/Header/n_columns", h))
        return -1;
    if (read_size(scan, "EBSD/Header/pattern_height", "EBSD/Header/pattern_width", h))
        return -1;
    s->step_x = value_or(scan, "EBSD/Header/step_x", 0);
    s->step_y = value_or(scan, "EBSD/Header/step_y", 0);
    s->pixel_size = value_or(scan, "EBSD/Header/detector_pixel_size", NAN);
    /* kikuchipy's EBSDDetector has px_size 1 and a signal's axes scale 1
     * until told otherwise, and its writer saves them as they are: a 1 um
     * detector pixel is no real camera's, a 1 um step may be a real one. */
    if (s->pixel_size == 1) {
        s->pixel_size = NAN;
        s->placeholders |= CLX_SCAN_PLACEHOLDER_PIXEL_SIZE;
    }
    if (s->step_x == 1 && s->step_y == 1)
        s->placeholders |= CLX_SCAN_PLACEHOLDER_STEP;
    s->binning = (int)value_or(scan, "EBSD/Header/binning", 0);
    s->detector_tilt = value_or(scan, "EBSD/Header/elevation_angle", NAN);
    s->azimuthal = value_or(scan, "EBSD/Header/azimuth_angle", NAN);
    s->twist = value_or(scan, "EBSD/Header/twist_angle", NAN);
    s->sample_tilt = value_or(scan, "EBSD/Header/sample_tilt", NAN);
    read_euler3(scan, euler, n, 0, h);
    /* orix's crystal map names each phase's space group: 195-230 are
     * cubic (m-3m and its subgroups' Laue group is taken as m-3m), 168-194
     * hexagonal; phases of both, or others, leave it unknown. */
    for (int id = 0; id < 8; id++) {
        char path[96];
        long long group;
        snprintf(path, sizeof path, "EBSD/CrystalMap/crystal_map/header/phases/%d/space_group", id);
        if (h5_read_long(scan, path, &group) != 0)
            continue;
        int sym = group >= 195 && group <= 230 ? CLX_SYMMETRY_CUBIC : group >= 168 && group <= 194
                                                                           ? CLX_SYMMETRY_HEXAGONAL : -2;
        s->symmetry = s->symmetry == -1 || s->symmetry == sym ? sym : -2;
    }
    if (s->symmetry < -1)
        s->symmetry = -1;
    /* A signal never indexed still carries orix's empty crystal map:
     * identity rotations in a phase without a space group. Those are no
     * orientations. */
    if (h->euler && s->symmetry == -1) {
        int identity = 1;
        for (size_t i = 0; identity && i < 3 * n; i++)
            identity = h->euler[i] == 0;
        if (identity) {
            free(h->euler);
            h->euler = NULL;
            s->has_euler = 0;
            s->placeholders |= CLX_SCAN_PLACEHOLDER_ORIENTATIONS;
        }
    }
    return read_pattern_centre(scan, pc, n, PC_BRUKER, width, height, h);
}

/* ---- EDAX OIM -------------------------------------------------------------- */

static int edax_header(hid_t scan, size_t n, int width, int height, struct h5ebsd_header *h)
{
    static const char *const pc[3] = { "EBSD/Header/Pattern Center Calibration/x-star",
                                       "EBSD/Header/Pattern Center Calibration/y-star",
                                       "EBSD/Header/Pattern Center Calibration/z-star" };
    static const char *const euler[3] = { "EBSD/Data/Phi1", "EBSD/Data/Phi", "EBSD/Data/Phi2" };
    clx_scan_info *s = &h->info;
    char grid[64];
    if (h5_read_string(scan, "EBSD/Header/Grid Type", grid, sizeof grid) == 0 && strcasecmp(grid, "SqrGrid") != 0)
        return problem(h, "EBSD/Header/Grid Type is %s: only square grids are read", grid);
    if (read_grid(scan, "EBSD/Header/nRows", "EBSD/Header/nColumns", h))
        return -1;
    if (read_size(scan, "EBSD/Header/Pattern Height", "EBSD/Header/Pattern Width", h))
        return -1;
    s->step_x = value_or(scan, "EBSD/Header/Step X", 0);
    s->step_y = value_or(scan, "EBSD/Header/Step Y", 0);
    s->detector_tilt = value_or(scan, "EBSD/Header/Camera Elevation Angle", NAN);
    s->azimuthal = value_or(scan, "EBSD/Header/Camera Azimuthal Angle", NAN);
    s->sample_tilt = value_or(scan, "EBSD/Header/Sample Tilt", NAN);
    /* EDAX writes the angles in radians, as in its .ang files. */
    read_euler3(scan, euler, n, 0, h);
    return read_pattern_centre(scan, pc, n, PC_TSL, width, height, h);
}

/* ---- Bruker Esprit --------------------------------------------------------- */

/*
 * Bruker writes the patterns of a region of interest in acquisition order,
 * each with its map column and row (IX, IY): the scan grid is their extent,
 * and it must be filled exactly once (a rectangle).
 */
static int bruker_positions(hid_t scan, size_t n, struct h5ebsd_header *h)
{
    static const char *const where[2][2] = { { "EBSD/SEM/IX", "EBSD/SEM/IY" }, { "SEM/SEM IX", "SEM/SEM IY" } };
    for (int w = 0; w < 2; w++) {
        double *ix = NULL, *iy = NULL;
        int single_x, single_y;
        if (h5_read_doubles(scan, where[w][0], n, &ix, &single_x) || h5_read_doubles(scan, where[w][1], n, &iy, &single_y) ||
            (n > 1 && (single_x || single_y))) {
            free(ix);
            free(iy);
            continue;
        }
        double x0 = ix[0], x1 = ix[0], y0 = iy[0], y1 = iy[0];
        for (size_t i = 1; i < n; i++) {
            x0 = fmin(x0, ix[i]), x1 = fmax(x1, ix[i]);
            y0 = fmin(y0, iy[i]), y1 = fmax(y1, iy[i]);
        }
        long long cols = (long long)(x1 - x0) + 1, rows = (long long)(y1 - y0) + 1;
        int ok = rows * cols == (long long)n && (h->position = malloc(sizeof(int) * n));
        unsigned char *seen = ok ? calloc(n, 1) : NULL;
        for (size_t i = 0; ok && seen && i < n; i++) {
            long long p = (long long)(iy[i] - y0) * cols + (long long)(ix[i] - x0);
            ok = p >= 0 && p < (long long)n && !seen[p] && ix[i] == floor(ix[i]) && iy[i] == floor(iy[i]);
            if (ok) {
                seen[p] = 1;
                h->position[i] = (int)p;
            }
        }
        ok = ok && seen;
        free(seen);
        free(ix);
        free(iy);
        if (!ok)
            return problem(h, "%s and its IY do not fill a rectangle exactly once: only rectangular regions of "
                              "interest are read", where[w][0]);
        h->info.rows = (int)rows;
        h->info.cols = (int)cols;
        h->rows_from = where[w][1];
        h->cols_from = where[w][0];
        return 0;
    }
    return 0;   /* no positions: the patterns are in map order */
}

static int bruker_header(hid_t scan, size_t n, int width, int height, struct h5ebsd_header *h)
{
    static const char *const pc[3] = { "EBSD/Data/PCX", "EBSD/Data/PCY", "EBSD/Data/DD" };
    static const char *const euler[3] = { "EBSD/Data/phi1", "EBSD/Data/PHI", "EBSD/Data/phi2" };
    clx_scan_info *s = &h->info;
    char grid[64];
    if (h5_read_string(scan, "EBSD/Header/Grid Type", grid, sizeof grid) == 0 && strcasecmp(grid, "isometric") != 0)
        return problem(h, "EBSD/Header/Grid Type is %s: only square (isometric) grids are read", grid);
    if (read_grid(scan, "EBSD/Header/NROWS", "EBSD/Header/NCOLS", h) || bruker_positions(scan, n, h) ||
        read_size(scan, "EBSD/Header/PatternHeight", "EBSD/Header/PatternWidth", h))
        return -1;
    s->step_x = value_or(scan, "EBSD/Header/XSTEP", 0);
    s->step_y = value_or(scan, "EBSD/Header/YSTEP", 0);
    s->detector_tilt = value_or(scan, "EBSD/Header/CameraTilt", NAN);
    /* Bruker writes SampleTilt (kikuchipy looks for "Sample Tilt" and finds nothing). */
    s->sample_tilt = value_or(scan, "EBSD/Header/SampleTilt", NAN);
    double full = value_or(scan, "EBSD/Header/DetectorFullHeightMicrons", NAN);
    double unclipped = value_or(scan, "EBSD/Header/UnClippedPatternHeight", NAN);
    s->pixel_size = full > 0 && unclipped > 0 ? full / unclipped : NAN;
    read_euler3(scan, euler, n, 1, h);
    euler_all_from_bruker_oxford_frame(n, h);
    return read_pattern_centre(scan, pc, n, PC_BRUKER, width, height, h);
}

/* ---- Oxford H5OINA --------------------------------------------------------- */

/* The binning in a camera mode such as "8x8 (168x128 px)": kikuchipy's rule,
 * 1024 over the stored height (88 rows is the 8x8 speed mode). 0: none. */
static int oxford_binning(const char *mode)
{
    const char *open = strrchr(mode, '(');
    int w, hgt;
    if (!open || sscanf(open, "(%dx%d px)", &w, &hgt) != 2 || hgt < 1)
        return 0;
    return hgt == 88 ? 8 : (int)lround(1024.0 / hgt);
}

static int oxford_header(hid_t scan, size_t n, int width, int height, struct h5ebsd_header *h)
{
    static const char *const pc[3] = { "EBSD/Data/Pattern Center X", "EBSD/Data/Pattern Center Y",
                                       "EBSD/Data/Detector Distance" };
    clx_scan_info *s = &h->info;
    char mode[128];
    double *euler;
    int single;
    if (read_grid(scan, "EBSD/Header/Y Cells", "EBSD/Header/X Cells", h))
        return -1;
    if (read_size(scan, "EBSD/Header/Pattern Height", "EBSD/Header/Pattern Width", h))
        return -1;
    s->step_x = value_or(scan, "EBSD/Header/X Step", 0);
    s->step_y = value_or(scan, "EBSD/Header/Y Step", 0);
    /* Oxford's angles are radians; the detector's Euler angles tilt it by Phi - 90 degrees. */
    s->sample_tilt = value_or(scan, "EBSD/Header/Tilt Angle", NAN) * DEGREES;
    if (h5_read_doubles(scan, "EBSD/Header/Detector Orientation Euler", 3, &euler, &single) == 0) {
        if (!single)
            s->detector_tilt = euler[1] * DEGREES - 90;
        free(euler);
    }
    if (h5_read_string(scan, "EBSD/Header/Camera Mode", mode, sizeof mode) == 0 ||
        h5_read_string(scan, "EBSD/Header/Camera Binning Mode", mode, sizeof mode) == 0)
        s->binning = oxford_binning(mode);
    read_euler_n3(scan, "EBSD/Data/Euler", n, h);
    euler_all_from_bruker_oxford_frame(n, h);
    return read_pattern_centre(scan, pc, n, PC_OXFORD, width, height, h);
}

/* ---- EMsoft ---------------------------------------------------------------- */

static int emsoft_header(hid_t file, size_t n, int width, int height, struct h5ebsd_header *h)
{
    static const char *const pc[3] = { "NMLparameters/EBSDNameList/xpc", "NMLparameters/EBSDNameList/ypc",
                                       "NMLparameters/EBSDNameList/L" };
    clx_scan_info *s = &h->info;
    char version[64] = "", program[64] = "";
    /* Simulated patterns: a list, no scan grid. */
    s->rows = s->cols = 0;
    if (read_size(file, "NMLparameters/EBSDNameList/numsy", "NMLparameters/EBSDNameList/numsx", h))
        return -1;
    s->pixel_size = value_or(file, "NMLparameters/EBSDNameList/delta", NAN);
    s->binning = (int)value_or(file, "NMLparameters/EBSDNameList/binning", 0);
    s->detector_tilt = value_or(file, "NMLparameters/EBSDNameList/thetac", NAN);
    h5_read_string(file, "EMheader/EBSD/Version", version, sizeof version);
    h5_read_string(file, "EMheader/EBSD/ProgramName", program, sizeof program);
    /* EMEBSD.f90 writes radians; other EMsoft programs (EMsoftOO's) degrees, so those are left out. */
    if (strcmp(program, "EMEBSD.f90") == 0)
        read_euler_n3(file, "EMData/EBSD/EulerAngles", n, h);
    /* EMsoft 4's xpc points the other way. */
    enum pc_convention convention = strncmp(version, "4", 1) == 0 ? PC_EMSOFT4 : PC_EMSOFT5;
    if (!(s->pixel_size > 0))
        return 0;   /* the distance L cannot be converted without the pixel size */
    return read_pattern_centre(file, pc, n, convention, width, height, h);
}

/* ---- the table ------------------------------------------------------------- */

static const struct h5ebsd_layout kikuchipy = { "kikuchipy h5ebsd", "kikuchipy", NULL, "EBSD/Data/patterns", NULL,
                                                kikuchipy_header };
static const struct h5ebsd_layout edax = { "EDAX h5", "EDAX", NULL, "EBSD/Data/Pattern", NULL, edax_header };
static const struct h5ebsd_layout bruker = { "Bruker h5", "Bruker Nano", NULL, "EBSD/Data/RawPatterns", NULL,
                                             bruker_header };
static const struct h5ebsd_layout oxford = { "Oxford H5OINA", "Oxford Instruments", NULL,
                                             "EBSD/Data/Processed Patterns", "EBSD/Data/Unprocessed Patterns",
                                             oxford_header };
/* EMEBSD writes EMheader/EBSD (its master-pattern program EMheader/EBSDmaster, which is no pattern file). */
static const struct h5ebsd_layout emsoft = { "EMsoft", NULL, "EMheader/EBSD", "EMData/EBSD/EBSDPatterns", NULL,
                                             emsoft_header };

const struct h5ebsd_layout *const h5ebsd_layouts[] = { &kikuchipy, &edax, &bruker, &oxford, &emsoft, NULL };
