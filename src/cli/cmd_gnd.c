/*
 * cmd_gnd.c - `clxcorr gnd`: geometrically necessary dislocations from the
 * rows of `clxcorr strain` over a scan. The rows are laid on their scan
 * here; each point's lattice curvature from its neighbours' rotations, the
 * Nye tensor's five components a map fixes and, with a Burgers vector, a
 * total density are the library's (clx_gnd_map, clx_gnd_steps), which
 * says how: gradients only within a grain (the rows' grain column; all one
 * grain without it), the map's rows along -x_s and its columns along -y_s.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "output/csv_output.h"
#include "output/output_guard.h"
#include "plot/record_reader.h"
#include "report.h"

static const char gnd_help[] =
    "Usage: clxcorr gnd [OPTIONS] STRAIN.csv\n"
    "\n"
    "Geometrically necessary dislocations from the rows of `clxcorr strain`\n"
    "over a scan (CSV, TSV or JSON lines with scan_row, scan_col, w1, w2, w3;\n"
    "grain with --grains): each point's lattice curvature from its\n"
    "neighbours' rotations, within its grain, along the sample's x and y\n"
    "(the map's rows run along -x, its columns along -y: kikuchipy's frames),\n"
    "and the five components of Nye's tensor that a map fixes,\n"
    "alpha = kappa^T - tr(kappa) I (Nye 1953, elastic strain gradients left\n"
    "out): alpha12, alpha13, alpha21, alpha23, alpha33 in 1/um. With\n"
    "--burgers, a total density rho_gnd in 1/m^2: the smallest-norm (L2)\n"
    "densities of the lattice's edge and screw dislocations that give them,\n"
    "summed (needs each point's orientation, the rows' phi1, Phi, phi2).\n"
    "\n"
    "Options:\n"
    "      --step X,Y       the scan's steps in um (default: from the rows'\n"
    "                       scan_x and scan_y)\n"
    "      --burgers NM     the Burgers vector's length in nm (nickel: 0.249)\n"
    "      --lattice L      fcc ({111}<110>, default) or bcc ({110}<111>)\n"
    "  -o, --output FILE    write to FILE (default: standard output), as\n"
    "                       FILE.part until complete\n"
    "  -q, --quiet          errors only\n"
    "  -h, --help           this help\n"
    "\n"
    "Columns: scan_row, scan_col, grain (when the rows have it), alpha12,\n"
    "alpha13, alpha21, alpha23, alpha33, rho_gnd (with --burgers); nan where\n"
    "a point has no neighbour of its grain along a direction.\n"
    "\n"
    "Example:\n"
    "  clxcorr strain --grains auto --orientations scan.ang --remap -o s.csv scan.h5\n"
    "  clxcorr gnd --burgers 0.249 -o gnd.csv s.csv\n"
    "\n"
    "Exit status: 0 success, 1 the rows could not be read or written, 2 wrong\n"
    "command line.\n";

enum { OPT_STEP = OPT_OWN, OPT_BURGERS, OPT_LATTICE };

static const struct option gnd_table[] = {
    { "step", required_argument, NULL, OPT_STEP },
    { "burgers", required_argument, NULL, OPT_BURGERS },
    { "lattice", required_argument, NULL, OPT_LATTICE },
    OPTION_OUTPUT, OPTION_QUIET, OPTION_HELP, OPTIONS_END
};

struct gnd_args {
    double step_x, step_y;       /* um; 0: from the rows */
    double burgers_nm;           /* 0: no density */
    clx_lattice lattice;
};

static int gnd_take(void *own, int c, const char *value)
{
    struct gnd_args *a = own;
    char *end;
    switch (c) {
    case OPT_STEP:
        a->step_x = strtod(value, &end);
        if (end == value || *end != ',' || !(a->step_x > 0) ||
            (a->step_y = strtod(end + 1, &end), *end != '\0') || !(a->step_y > 0) || !isfinite(a->step_x) ||
            !isfinite(a->step_y)) {
            report_error("--step: expected X,Y, two positive steps in um, got '%s'", value);
            return -1;
        }
        return 1;
    case OPT_BURGERS:
        a->burgers_nm = strtod(value, &end);
        if (end == value || *end || !(a->burgers_nm > 0) || a->burgers_nm > 10) {
            report_error("--burgers: expected a length in nm from 0 to 10 (nickel: 0.249), got '%s'", value);
            return -1;
        }
        return 1;
    case OPT_LATTICE:
        if (strcmp(value, "fcc") == 0)
            a->lattice = CLX_LATTICE_FCC;
        else if (strcmp(value, "bcc") == 0)
            a->lattice = CLX_LATTICE_BCC;
        else {
            report_error("--lattice: expected fcc or bcc, got '%s'", value);
            return -1;
        }
        return 1;
    }
    return 0;
}

static const struct command_options gnd_command = { "gnd", gnd_help, gnd_table, gnd_take };

/* One scan point of the rows. */
struct point {
    int present;
    int grain;
    double w[3], euler[3];
    double x, y;
};

struct map {
    long rows, cols;
    struct point *p;
    int has_grain, has_euler, has_xy;
};

/* The columns gnd reads, by name. */
enum { C_ROW, C_COL, C_W1, C_W2, C_W3, C_GRAIN, C_PHI1, C_PHI, C_PHI2, C_X, C_Y, C_COUNT };
static const char *const column_names[C_COUNT] = { "scan_row", "scan_col", "w1", "w2", "w3", "grain",
                                                   "phi1", "Phi", "phi2", "scan_x", "scan_y" };

/* Reads the rows into a map of their scan points. */
static int map_read(const char *path, struct map *m)
{
    struct record_reader r;
    clx_message msg;
    long first;
    int where[C_COUNT], status;
    memset(m, 0, sizeof *m);
    if (record_reader_open(&r, path, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        return -1;
    }
    if ((status = record_read(&r, &first, &msg)) != 1) {
        report_error("%s", status == 0 ? "the rows file is empty" : msg.text);
        record_reader_close(&r);
        return -1;
    }
    for (int k = 0; k < C_COUNT; k++) {
        where[k] = -1;
        for (size_t f = 0; f < r.fields; f++)
            if (strcmp(record_field(&r, f), column_names[k]) == 0)
                where[k] = (int)f;
    }
    for (int k = C_ROW; k <= C_W3; k++)
        if (where[k] < 0) {
            report_error("%s: no %s column: gnd reads the rows of clxcorr strain over a scan", path, column_names[k]);
            record_reader_close(&r);
            return -1;
        }
    m->has_grain = where[C_GRAIN] >= 0;
    m->has_euler = where[C_PHI1] >= 0 && where[C_PHI] >= 0 && where[C_PHI2] >= 0;
    m->has_xy = where[C_X] >= 0 && where[C_Y] >= 0;
    size_t cap = 0, n = 0;
    struct { long row, col; struct point p; } *rows = NULL;
    while ((status = record_read(&r, &first, &msg)) == 1) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            void *bigger = realloc(rows, cap * sizeof *rows);
            if (!bigger) {
                report_error("out of memory");
                status = -1;
                break;
            }
            rows = bigger;
        }
        double v[C_COUNT];
        for (int k = 0; k < C_COUNT; k++) {
            v[k] = NAN;
            if (where[k] >= 0 && ((size_t)where[k] >= r.fields ||
                                  field_real(record_field(&r, (size_t)where[k]), FIELD_NAN, &v[k]) != 0)) {
                report_error("%s:%ld: %s is not a number", path, first, column_names[k]);
                status = -1;
                break;
            }
        }
        if (status < 0)
            break;
        if (!(v[C_ROW] >= 0) || !(v[C_COL] >= 0) || v[C_ROW] != floor(v[C_ROW]) || v[C_COL] != floor(v[C_COL]) ||
            v[C_ROW] > 1e7 || v[C_COL] > 1e7) {
            report_error("%s:%ld: scan point %g,%g is not a grid point", path, first, v[C_ROW], v[C_COL]);
            status = -1;
            break;
        }
        rows[n].row = (long)v[C_ROW];
        rows[n].col = (long)v[C_COL];
        struct point *p = &rows[n].p;
        p->present = 1;
        p->grain = m->has_grain && isfinite(v[C_GRAIN]) ? (int)v[C_GRAIN] : 1;
        for (int k = 0; k < 3; k++) {
            p->w[k] = v[C_W1 + k];
            p->euler[k] = v[C_PHI1 + k];
        }
        p->x = v[C_X];
        p->y = v[C_Y];
        m->rows = rows[n].row + 1 > m->rows ? rows[n].row + 1 : m->rows;
        m->cols = rows[n].col + 1 > m->cols ? rows[n].col + 1 : m->cols;
        n++;
    }
    if (status == 0 && n == 0) {
        report_error("%s: no rows after the header", path);
        status = -1;
    } else if (status != 0 && status != -1) {
        report_error("%s", msg.text);
        status = -1;
    }
    record_reader_close(&r);
    if (status == 0 && !(m->p = calloc((size_t)m->rows * (size_t)m->cols, sizeof *m->p))) {
        report_error("out of memory");
        status = -1;
    }
    for (size_t i = 0; status == 0 && i < n; i++) {
        struct point *slot = &m->p[rows[i].row * m->cols + rows[i].col];
        if (slot->present) {
            report_error("%s: scan point %ld,%ld has two rows", path, rows[i].row, rows[i].col);
            status = -1;
        }
        *slot = rows[i].p;
    }
    free(rows);
    return status;
}

/* The map as the library takes it: per point, NAN (0 for the grain)
 * where the rows have no point. */
struct arrays {
    double *w, *euler, *x, *y, *alpha, *rho;
    int *grain;
};

static int arrays_fill(const struct map *m, struct arrays *a)
{
    size_t n = (size_t)m->rows * (size_t)m->cols;
    memset(a, 0, sizeof *a);
    a->w = malloc(3 * n * sizeof *a->w);
    a->euler = malloc(3 * n * sizeof *a->euler);
    a->x = malloc(n * sizeof *a->x);
    a->y = malloc(n * sizeof *a->y);
    a->alpha = malloc(5 * n * sizeof *a->alpha);
    a->rho = malloc(n * sizeof *a->rho);
    a->grain = malloc(n * sizeof *a->grain);
    if (!a->w || !a->euler || !a->x || !a->y || !a->alpha || !a->rho || !a->grain)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct point *p = &m->p[i];
        for (int k = 0; k < 3; k++) {
            a->w[3 * i + k] = p->present ? p->w[k] : NAN;
            a->euler[3 * i + k] = p->present ? p->euler[k] : NAN;
        }
        a->x[i] = p->present ? p->x : NAN;
        a->y[i] = p->present ? p->y : NAN;
        a->grain[i] = p->present ? p->grain : 0;
    }
    return 0;
}

static void arrays_free(struct arrays *a)
{
    free(a->w);
    free(a->euler);
    free(a->x);
    free(a->y);
    free(a->alpha);
    free(a->rho);
    free(a->grain);
}

int cmd_gnd(int argc, char **argv)
{
    struct gnd_args a = { 0, 0, 0, CLX_LATTICE_FCC };
    struct output_options output = { 0 };
    const struct option_values values = { .output = &output, .own = &a };
    int parsed = options_parse(&gnd_command, &values, argc, argv);
    if (parsed != 0)
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    if (optind != argc - 1) {
        report_error(optind >= argc ? "no rows file given (usage: clxcorr gnd [OPTIONS] STRAIN.csv)"
                                    : "one rows file at a time (usage: clxcorr gnd [OPTIONS] STRAIN.csv)");
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    const struct output_guard guard = { "-o", output.path };
    if (output_guard_check(&guard, 1, (const char *const *)argv + optind, 1, NULL) != 0)
        return EXIT_FAILURE_RUN;
    struct map m;
    if (map_read(path, &m) != 0) {
        free(m.p);
        return EXIT_FAILURE_RUN;
    }
    int status = EXIT_FAILURE_RUN;
    struct arrays arr;
    clx_message msg;
    if (arrays_fill(&m, &arr) != 0) {
        report_error("out of memory");
        goto done;
    }
    double sx = a.step_x, sy = a.step_y;
    if (sx == 0 && (!m.has_xy || clx_gnd_steps(m.rows, m.cols, arr.x, arr.y, &sx, &sy, &msg) != CLX_OK)) {
        report_error("%s: the rows give no scan steps (scan_x, scan_y): give --step X,Y in um", path);
        goto done;
    }
    if (a.burgers_nm > 0 && !m.has_euler) {
        report_error("--burgers: %s has no orientations (phi1, Phi, phi2), which the density needs: run strain "
                     "with the reference's orientation (--orientations, --euler, or a file that has them)", path);
        goto done;
    }
    if (clx_gnd_map(m.rows, m.cols, arr.w, m.has_grain ? arr.grain : NULL, m.has_euler ? arr.euler : NULL, sx, sy,
                    a.lattice, a.burgers_nm > 0 ? a.burgers_nm * 1e-3 : 0, arr.alpha, arr.rho, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    char header[160];
    snprintf(header, sizeof header, "scan_row,scan_col,%salpha12,alpha13,alpha21,alpha23,alpha33%s\n",
             m.has_grain ? "grain," : "", a.burgers_nm > 0 ? ",rho_gnd" : "");
    struct csv_output out;
    if (csv_output_open(&out, output.path, header, NULL, 0, &msg) != CLX_OK) {
        report_error("%s", msg.text);
        goto done;
    }
    int failed = 0;
    for (long r = 0; r < m.rows && !failed; r++)
        for (long c = 0; c < m.cols && !failed; c++) {
            size_t i = (size_t)r * (size_t)m.cols + (size_t)c;
            const struct point *p = &m.p[i];
            const double *alpha = arr.alpha + 5 * i;
            if (!p->present)
                continue;
            char line[512];
            int len = snprintf(line, sizeof line, "%ld,%ld,", r, c);
            if (m.has_grain)
                len += snprintf(line + len, sizeof line - len, "%d,", p->grain);
            for (int k = 0; k < 5; k++)
                len += isfinite(alpha[k]) ? snprintf(line + len, sizeof line - len, "%s%.7g", k ? "," : "", alpha[k])
                                          : snprintf(line + len, sizeof line - len, "%snan", k ? "," : "");
            if (a.burgers_nm > 0)
                len += isfinite(arr.rho[i]) ? snprintf(line + len, sizeof line - len, ",%.5g", arr.rho[i])
                                            : snprintf(line + len, sizeof line - len, ",nan");
            line[len++] = '\n';
            struct csv_text t = { line, (size_t)len, sizeof line, 1 };
            if (csv_output_write(&out, &t, &msg) != CLX_OK) {
                report_error("%s", msg.text);
                failed = 1;
            }
        }
    if (csv_output_close(&out, !failed, &msg) != CLX_OK) {
        if (!failed)
            report_error("%s", msg.text);
        failed = 1;
    }
    status = failed ? EXIT_FAILURE_RUN : EXIT_OK;
done:
    arrays_free(&arr);
    free(m.p);
    return status;
}
