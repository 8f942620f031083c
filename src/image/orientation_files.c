/*
 * orientation_files.c - the crystal orientations of an indexed scan from
 * the two text formats every EBSD package writes: EDAX TSL's .ang and
 * Oxford HKL Channel 5's .ctf (clx_orientation_map_read).
 *
 * .ang: header lines start with '#' ("# NCOLS_ODD: 100", "# NROWS: 80",
 * "# XSTEP: 0.5", "# GRID: SqrGrid"), then one line a point of
 * whitespace-separated numbers, phi1 PHI phi2 (radians) x y IQ CI phase
 * ...; points that were not indexed carry the angles 4 pi.
 * .ctf: "Channel Text File", then tab-separated "key value" lines (XCells,
 * YCells, XStep, YStep) and the phases, up to the column line "Phase X Y
 * Bands Error Euler1 Euler2 Euler3 MAD BC BS"; then one line a point, the
 * angles in degrees, phase 0 where the point was not indexed.
 *
 * Both go row by row over a square grid. Each point's x and y are checked
 * against its place in the grid, so that a file whose rows were cut or
 * shuffled is refused rather than matched to the wrong patterns; every
 * problem names the file and its line, as these files are often edited or
 * cut by hand. EDAX's angles are in clxcorr's (kikuchipy's) sample frame
 * as written; Oxford's are turned into it (sample_frames.h), as the HDF5
 * containers' are (h5ebsd_headers.c; doc/hrebsd-conventions.md).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "image/sample_frames.h"
#include "runtime/message.h"

#define DEGREE (M_PI / 180.0)
/* EDAX's angles for a point that was not indexed (4 pi), with room for its rounding to 5 decimals. */
#define ANG_NOT_INDEXED (4.0 * M_PI - 1e-3)
/* The most numbers read from one line: the .ang columns and more. */
#define MAX_FIELDS 32

enum orientation_format { FORMAT_ANG, FORMAT_CTF };

/* One file being read: where it is, for the messages. */
struct reader {
    const char *path;
    FILE *f;
    char *line;
    size_t capacity;
    size_t number;               /* the line read last, from 1 */
};

/* The next line without its end ("\n" or "\r\n"): 1, 0 at the end, -1 on a read error. */
static int line_next(struct reader *r)
{
    ssize_t n = getline(&r->line, &r->capacity, r->f);
    if (n < 0)
        return ferror(r->f) ? -1 : 0;
    r->number++;
    while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
        r->line[--n] = '\0';
    return 1;
}

static int is_blank(const char *s)
{
    return s[strspn(s, " \t\r\v\f")] == '\0';
}

/* Every whitespace-separated field of `text` as a finite number: their
 * count, or -1 when one is not a number (its start in *bad). */
static int numbers_split(const char *text, double *v, int max, const char **bad)
{
    const char *p = text;
    int n = 0;
    for (;;) {
        p += strspn(p, " \t\v\f");
        if (!*p)
            return n;
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || (*end && !strchr(" \t\v\f", *end)) || !isfinite(x) || n == max) {
            *bad = p;
            return -1;
        }
        v[n++] = x;
        p = end;
    }
}

/* The text of a line for a message: its first characters. */
#define QUOTED "\"%.40s\""

/* ---- the grid the header gives ------------------------------------------ */

struct grid_header {
    int symmetry;                /* clx_symmetry of every phase; -1: not given, -2: another or several */
    long rows, cols, cols_even;  /* -1: not given */
    double step_x, step_y;       /* 0: not given */
    size_t rows_line, cols_line; /* where they were given, for messages */
};

/* A header value that must be a positive whole number. */
static int header_count(const struct reader *r, const char *key, const char *value, long *out, clx_message *msg)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (end == value || !is_blank(end) || v < 1 || v > 1L << 24)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: %s must be a whole number of points from 1, got " QUOTED,
                        r->path, r->number, key, value);
    *out = v;
    return CLX_OK;
}

/* A header value that must be a positive step in um. */
static int header_step(const struct reader *r, const char *key, const char *value, double *out, clx_message *msg)
{
    char *end;
    double v = strtod(value, &end);
    if (end == value || !is_blank(end) || !isfinite(v) || v <= 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: %s must be a positive step in um, got " QUOTED, r->path,
                        r->number, key, value);
    *out = v;
    return CLX_OK;
}

/* ---- each point ----------------------------------------------------------- */

/* Point k's angles (radians, NAN: not indexed) and its x, y: checked against
 * its place in the grid, within half a step. */
static int point_store(const struct reader *r, clx_orientation_map *map, size_t k, const double angles[3],
                       double quality, const double xy[2], const double origin[2], const char *key_x,
                       const char *key_y, clx_message *msg)
{
    long row = (long)(k / (size_t)map->cols), col = (long)(k % (size_t)map->cols);
    if ((map->step_x > 0 && fabs(xy[0] - origin[0] - col * map->step_x) > 0.5 * map->step_x) ||
        (map->step_y > 0 && fabs(xy[1] - origin[1] - row * map->step_y) > 0.5 * map->step_y))
        return msg_fail(msg, CLX_ERR_FORMAT,
                        "%s:%zu: the point at x %g, y %g is not at row %ld, column %ld of the %d x %d grid "
                        "(%s %g, %s %g um): the file's points must go row by row, every one there",
                        r->path, r->number, xy[0], xy[1], row, col, map->rows, map->cols, key_x, map->step_x,
                        key_y, map->step_y);
    memcpy(&map->euler[3 * k], angles, 3 * sizeof *angles);
    map->quality[k] = quality;
    return CLX_OK;
}

static int grid_allocate(const struct reader *r, const struct grid_header *g, clx_orientation_map *map,
                         const char *rows_key, const char *cols_key, clx_message *msg)
{
    if (g->rows < 0 || g->cols < 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: the header gives no %s: the scan's grid is not known", r->path,
                        r->number, g->rows < 0 ? rows_key : cols_key);
    if ((size_t)g->rows * (size_t)g->cols > (size_t)1 << 28)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: a grid of %ld x %ld points is more than clxcorr reads",
                        r->path, g->rows_line > g->cols_line ? g->rows_line : g->cols_line, g->rows, g->cols);
    map->rows = (int)g->rows;
    map->cols = (int)g->cols;
    map->step_x = g->step_x;
    map->step_y = g->step_y;
    map->symmetry = g->symmetry < 0 ? -1 : g->symmetry;
    map->euler = malloc(sizeof(double) * 3 * (size_t)g->rows * (size_t)g->cols);
    map->quality = malloc(sizeof(double) * (size_t)g->rows * (size_t)g->cols);
    if (!map->euler || !map->quality)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory for %ld x %ld points", r->path, g->rows,
                        g->cols);
    return CLX_OK;
}

/* After the last point: every point of the grid must have been there. */
static int points_complete(const struct reader *r, const clx_orientation_map *map, size_t points,
                           const char *rows_key, const char *cols_key, clx_message *msg)
{
    size_t want = (size_t)map->rows * (size_t)map->cols;
    if (points != want)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: the file ends after %zu of the %zu points its header gives "
                        "(%s %d x %s %d)", r->path, r->number, points, want, rows_key, map->rows, cols_key,
                        map->cols);
    return CLX_OK;
}

static int too_many(const struct reader *r, const clx_orientation_map *map, const char *rows_key,
                    const char *cols_key, clx_message *msg)
{
    return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: more points than the header's %s %d x %s %d", r->path, r->number,
                    rows_key, map->rows, cols_key, map->cols);
}

/* ---- EDAX TSL .ang -------------------------------------------------------- */

/* "# KEY: value" or "# KEY value": the key and its value, in place. */
static void ang_header_split(char *line, char **key, char **value)
{
    char *p = line + 1 + strspn(line + 1, " \t");
    size_t n = strcspn(p, ": \t");
    *key = p;
    p += n;
    if (*p) {
        *p++ = '\0';
        p += strspn(p, ": \t");
    }
    *value = p;
}

static int ang_header_line(struct reader *r, struct grid_header *g, clx_message *msg)
{
    char *key, *value;
    ang_header_split(r->line, &key, &value);
    if (strcasecmp(key, "GRID") == 0 && strncasecmp(value, "SqrGrid", 7) != 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: GRID is " QUOTED ": only square grids (SqrGrid) are read",
                        r->path, r->number, value);
    if (strcasecmp(key, "NCOLS_ODD") == 0) {
        g->cols_line = r->number;
        return header_count(r, key, value, &g->cols, msg);
    }
    if (strcasecmp(key, "NCOLS_EVEN") == 0)
        return header_count(r, key, value, &g->cols_even, msg);
    if (strcasecmp(key, "NROWS") == 0) {
        g->rows_line = r->number;
        return header_count(r, key, value, &g->rows, msg);
    }
    if (strcasecmp(key, "XSTEP") == 0)
        return header_step(r, key, value, &g->step_x, msg);
    if (strcasecmp(key, "YSTEP") == 0)
        return header_step(r, key, value, &g->step_y, msg);
    /* TSL's symmetry codes: 43 m-3m, 62 6/mmm; a second phase of another
     * symmetry leaves it unknown (-2). */
    if (strcasecmp(key, "Symmetry") == 0) {
        long code = strtol(value, NULL, 10);
        int sym = code == 43 ? CLX_SYMMETRY_CUBIC : code == 62 ? CLX_SYMMETRY_HEXAGONAL : -2;
        g->symmetry = g->symmetry == -1 || g->symmetry == sym ? sym : -2;
    }
    return CLX_OK;
}

static int ang_read(struct reader *r, clx_orientation_map *map, clx_message *msg)
{
    struct grid_header g = { -1, -1, -1, -1, 0, 0, 0, 0 };
    size_t points = 0;
    double origin[2] = { 0, 0 };
    int got, status = CLX_OK;
    snprintf(map->format, sizeof map->format, "EDAX ang");
    while (status == CLX_OK && (got = line_next(r)) > 0) {
        if (r->line[0] == '#') {
            if (map->euler)
                return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: a header line among the points", r->path, r->number);
            status = ang_header_line(r, &g, msg);
            continue;
        }
        if (is_blank(r->line))
            continue;
        if (!map->euler) {
            if (g.cols_even >= 0 && g.cols >= 0 && g.cols_even != g.cols)
                return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: NCOLS_ODD %ld and NCOLS_EVEN %ld differ: not a "
                                "square grid", r->path, g.cols_line, g.cols, g.cols_even);
            if ((status = grid_allocate(r, &g, map, "NROWS", "NCOLS_ODD", msg)) != CLX_OK)
                return status;
        }
        double v[MAX_FIELDS];
        const char *bad = NULL;
        int n = numbers_split(r->line, v, MAX_FIELDS, &bad);
        if (n < 0)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: not a number: " QUOTED " (a point's line is phi1 PHI "
                            "phi2 x y IQ CI phase ...)", r->path, r->number, bad);
        if (n < 5)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: %d numbers, not the columns phi1 PHI phi2 x y IQ CI "
                            "phase ...", r->path, r->number, n);
        if (points == (size_t)map->rows * (size_t)map->cols)
            return too_many(r, map, "NROWS", "NCOLS_ODD", msg);
        if (points == 0)
            memcpy(origin, &v[3], sizeof origin);
        double angles[3] = { v[0], v[1], v[2] };
        if (v[0] >= ANG_NOT_INDEXED || v[1] >= ANG_NOT_INDEXED || v[2] >= ANG_NOT_INDEXED)
            angles[0] = angles[1] = angles[2] = NAN;
        /* IQ, the sixth column, where there is one. */
        status = point_store(r, map, points++, angles, n > 5 ? v[5] : NAN, &v[3], origin, "XSTEP", "YSTEP", msg);
    }
    if (status != CLX_OK)
        return status;
    if (got < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", r->path, strerror(errno));
    if (!map->euler)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: no points after the header", r->path, r->number);
    return points_complete(r, map, points, "NROWS", "NCOLS_ODD", msg);
}

/* ---- Oxford HKL .ctf ------------------------------------------------------ */

/* The columns of a .ctf's points that are read, by their place in its column line. */
struct ctf_columns {
    int phase, x, y, euler[3], bc;   /* bc: band contrast, -1 without */
};

/* The column line: "Phase X Y Bands Error Euler1 Euler2 Euler3 MAD BC BS"
 * (in that order in every file seen, but found by name). */
static int ctf_columns_find(const struct reader *r, struct ctf_columns *c, clx_message *msg)
{
    static const char *const names[6] = { "Phase", "X", "Y", "Euler1", "Euler2", "Euler3" };
    int *where[6] = { &c->phase, &c->x, &c->y, &c->euler[0], &c->euler[1], &c->euler[2] };
    for (int k = 0; k < 6; k++)
        *where[k] = -1;
    c->bc = -1;
    char *copy = strdup(r->line), *save = NULL;
    if (!copy)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", r->path);
    int i = 0;
    for (char *word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save), i++) {
        for (int k = 0; k < 6; k++)
            if (strcasecmp(word, names[k]) == 0 && *where[k] < 0)
                *where[k] = i;
        if (strcasecmp(word, "BC") == 0 && i < MAX_FIELDS)
            c->bc = i;
    }
    free(copy);
    for (int k = 0; k < 6; k++)
        if (*where[k] < 0 || *where[k] >= MAX_FIELDS)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: the column line has no %s column (Phase X Y Bands Error "
                            "Euler1 Euler2 Euler3 MAD BC BS)", r->path, r->number, names[k]);
    return CLX_OK;
}

static int ctf_header_line(struct reader *r, struct grid_header *g, clx_message *msg)
{
    char *p = r->line;
    size_t n = strcspn(p, " \t");
    char *value = p + n + strspn(p + n, " \t");
    p[n] = '\0';
    if (strcasecmp(p, "JobMode") == 0 && strncasecmp(value, "Grid", 4) != 0)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: JobMode is " QUOTED ": only grid scans are read", r->path,
                        r->number, value);
    if (strcasecmp(p, "XCells") == 0) {
        g->cols_line = r->number;
        return header_count(r, p, value, &g->cols, msg);
    }
    if (strcasecmp(p, "YCells") == 0) {
        g->rows_line = r->number;
        return header_count(r, p, value, &g->rows, msg);
    }
    if (strcasecmp(p, "XStep") == 0)
        return header_step(r, p, value, &g->step_x, msg);
    if (strcasecmp(p, "YStep") == 0)
        return header_step(r, p, value, &g->step_y, msg);
    /* A phase line: "a;b;c<tab>alpha;beta;gamma<tab>name<tab>Laue group<tab>...": 11 m-3m, 9 6/mmm. */
    if (strchr(p, ';')) {
        char *fields[5] = { p, NULL, NULL, NULL, NULL };
        char *q = value;
        for (int k = 1; k < 5 && q; k++) {
            fields[k] = q;
            q = strchr(q, '\t');
            if (q)
                *q++ = '\0';
        }
        if (fields[3] && fields[2] && strchr(fields[1], ';')) {
            long laue = strtol(fields[3], NULL, 10);
            int sym = laue == 11 ? CLX_SYMMETRY_CUBIC : laue == 9 ? CLX_SYMMETRY_HEXAGONAL : -2;
            g->symmetry = g->symmetry == -1 || g->symmetry == sym ? sym : -2;
        }
    }
    return CLX_OK;
}

static int ctf_read(struct reader *r, clx_orientation_map *map, clx_message *msg)
{
    struct grid_header g = { -1, -1, -1, -1, 0, 0, 0, 0 };
    struct ctf_columns c;
    size_t points = 0;
    double origin[2] = { 0, 0 };
    int got, status = CLX_OK, columns = 0;
    snprintf(map->format, sizeof map->format, "Oxford ctf");
    while (status == CLX_OK && (got = line_next(r)) > 0) {
        if (!columns) {
            if (strncasecmp(r->line, "Phase\t", 6) == 0 || strncasecmp(r->line, "Phase X", 7) == 0) {
                if ((status = ctf_columns_find(r, &c, msg)) != CLX_OK ||
                    (status = grid_allocate(r, &g, map, "YCells", "XCells", msg)) != CLX_OK)
                    return status;
                columns = 1;
            } else {
                status = ctf_header_line(r, &g, msg);
            }
            continue;
        }
        if (is_blank(r->line))
            continue;
        double v[MAX_FIELDS];
        const char *bad = NULL;
        int n = numbers_split(r->line, v, MAX_FIELDS, &bad);
        if (n < 0)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: not a number: " QUOTED " (a point's line is Phase X Y "
                            "Bands Error Euler1 Euler2 Euler3 MAD BC BS)", r->path, r->number, bad);
        const int used[6] = { c.phase, c.x, c.y, c.euler[0], c.euler[1], c.euler[2] };
        int needed = 0;
        for (int k = 0; k < 6; k++)
            needed = used[k] + 1 > needed ? used[k] + 1 : needed;
        if (n < needed)
            return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: %d numbers, where the column line has at least %d",
                            r->path, r->number, n, needed);
        if (points == (size_t)map->rows * (size_t)map->cols)
            return too_many(r, map, "YCells", "XCells", msg);
        double xy[2] = { v[c.x], v[c.y] };
        if (points == 0)
            memcpy(origin, xy, sizeof origin);
        double angles[3];
        for (int k = 0; k < 3; k++)
            angles[k] = v[c.phase] == 0 ? NAN : v[c.euler[k]] * DEGREE;
        euler_from_bruker_oxford_frame(angles);
        status = point_store(r, map, points++, angles, c.bc >= 0 && c.bc < n ? v[c.bc] : NAN, xy, origin, "XStep",
                             "YStep", msg);
    }
    if (status != CLX_OK)
        return status;
    if (got < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", r->path, strerror(errno));
    if (!columns)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s:%zu: no column line (Phase X Y Bands Error Euler1 Euler2 Euler3 "
                        "MAD BC BS): not a .ctf file, or cut short", r->path, r->number);
    return points_complete(r, map, points, "YCells", "XCells", msg);
}

/* ---- the format ------------------------------------------------------------ */

/* By the first line ('#' or "Channel Text File"), else by the name's extension. */
static int format_find(const char *path, const char *first, enum orientation_format *format)
{
    const char *dot = strrchr(path, '.');
    if (first[0] == '#')
        *format = FORMAT_ANG;
    else if (strncasecmp(first, "Channel Text File", 17) == 0)
        *format = FORMAT_CTF;
    else if (dot && strcasecmp(dot, ".ang") == 0)
        *format = FORMAT_ANG;
    else if (dot && strcasecmp(dot, ".ctf") == 0)
        *format = FORMAT_CTF;
    else
        return 0;
    return 1;
}

int clx_orientation_map_read(const char *path, clx_orientation_map *map, clx_message *msg)
{
    msg_clear(msg);
    if (!map)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_orientation_map_read: map is NULL");
    memset(map, 0, sizeof *map);
    if (!path || !*path)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_orientation_map_read: no path given");
    struct reader r = { path, fopen(path, "r"), NULL, 0, 0 };
    if (!r.f)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    enum orientation_format format;
    int got = line_next(&r), status;
    if (got < 0)
        status = msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    else if (got == 0)
        status = msg_fail(msg, CLX_ERR_FORMAT, "%s: empty file", path);
    else if (!format_find(path, r.line, &format))
        status = msg_fail(msg, CLX_ERR_FORMAT, "%s:1: neither an EDAX .ang file (header lines '# ...') nor an "
                          "Oxford .ctf file ('Channel Text File')", path);
    else if (format == FORMAT_ANG) {
        /* The first line is read again as the header's (or the first point's). */
        rewind(r.f);
        r.number = 0;
        status = ang_read(&r, map, msg);
    } else {
        status = ctf_read(&r, map, msg);
    }
    free(r.line);
    fclose(r.f);
    if (status != CLX_OK)
        clx_orientation_map_free(map);
    return status;
}

void clx_orientation_map_free(clx_orientation_map *map)
{
    if (!map)
        return;
    free(map->euler);
    free(map->quality);
    memset(map, 0, sizeof *map);
}
