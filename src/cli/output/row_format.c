/* row_format.c - offsets as CSV, TSV or JSON lines (see row_format.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json_out.h"
#include "output/row_format.h"

static const char *const column_names[ROW_COLUMN_COUNT] = {
    "image", "reference", "region", "x", "y", "dx", "dy", "total_dx", "total_dy", "peak", "flags", "zncc",
    "peak_ratio", "iterations",
    "znssd", "sigma_dx", "sigma_dy", "dudx", "dudy", "dvdx", "dvdy", "exx", "eyy", "exy",
    "scan_row", "scan_col", "scan_x", "scan_y",
    "e11", "e12", "e13", "e22", "e23", "e33", "w1", "w2", "w3", "residual", "windows", "flags",
    "grain", "ref_row", "ref_col", "phi1", "Phi", "phi2",
};
/* The scan point's columns, and the strain's. */
#define FIRST_SCAN_COLUMN ROW_COLUMN_SCAN_ROW
#define FIRST_STRAIN_COLUMN ROW_COLUMN_E11
#define FIRST_EXTRA_STRAIN_COLUMN ROW_COLUMN_GRAIN

/* Whether a format of this family (offsets' per window, or strain's per
 * pattern) has column c: the image and scan columns belong to both. */
static int in_family(enum row_column c, int strain)
{
    if (c == ROW_COLUMN_IMAGE || (c >= FIRST_SCAN_COLUMN && c < FIRST_STRAIN_COLUMN))
        return 1;
    return strain ? c >= FIRST_STRAIN_COLUMN : c < FIRST_SCAN_COLUMN;
}

/* The group of an offsets column beyond seed mode's (0: seed mode's own). */
static unsigned group_of(enum row_column c)
{
    if (c == ROW_COLUMN_REFERENCE)
        return ROW_GROUP_PAIRS;
    if (c == ROW_COLUMN_TOTAL_DX || c == ROW_COLUMN_TOTAL_DY)
        return ROW_GROUP_TOTALS;
    if (c >= ROW_COLUMN_ZNCC && c <= ROW_COLUMN_ITERATIONS)
        return ROW_GROUP_ACCURATE;
    if (c >= ROW_COLUMN_ZNSSD && c <= ROW_COLUMN_SIGMA_DY)
        return ROW_GROUP_ICGN;
    if (c >= ROW_COLUMN_DUDX && c <= ROW_COLUMN_EXY)
        return ROW_GROUP_SHAPE;
    return 0;
}

void row_green_lagrange(const clx_result *r, double e[3])
{
    e[0] = r->dudx + 0.5 * (r->dudx * r->dudx + r->dvdx * r->dvdx);
    e[1] = r->dvdy + 0.5 * (r->dudy * r->dudy + r->dvdy * r->dvdy);
    e[2] = 0.5 * (r->dudy + r->dvdx + r->dudx * r->dudy + r->dvdx * r->dvdy);
}

unsigned row_groups_of(const clx_plan_options *plan)
{
    if (plan->mode != CLX_MODE_ACCURATE)
        return 0;
    if (plan->refine == 0 || plan->refiner != CLX_REFINER_ICGN)
        return ROW_GROUP_ACCURATE;
    return ROW_GROUP_ACCURATE | ROW_GROUP_ICGN | (plan->shape == 1 ? ROW_GROUP_SHAPE : 0);
}

/* The offsets columns of `groups` in the default order, from `first`, into
 * f->columns from index n; returns the new count. */
static size_t default_columns(struct row_format *f, size_t n, int first, unsigned groups)
{
    for (int c = first; c < FIRST_SCAN_COLUMN; c++) {
        unsigned g = group_of((enum row_column)c);
        if (g == 0 || (groups & g))
            f->columns[n++] = (enum row_column)c;
    }
    return n;
}

const char *row_column_name(enum row_column column)
{
    return column >= 0 && column < ROW_COLUMN_COUNT ? column_names[column] : "?";
}

void row_format_init(struct row_format *f, unsigned groups)
{
    f->kind = ROW_FORMAT_CSV;
    f->ncolumns = default_columns(f, 0, ROW_COLUMN_IMAGE, groups);
    f->chosen = 0;
    f->strain = 0;
}

void row_format_init_strain(struct row_format *f)
{
    f->kind = ROW_FORMAT_CSV;
    f->ncolumns = 0;
    f->columns[f->ncolumns++] = ROW_COLUMN_IMAGE;
    for (int c = FIRST_STRAIN_COLUMN; c < FIRST_EXTRA_STRAIN_COLUMN; c++)
        f->columns[f->ncolumns++] = (enum row_column)c;
    f->chosen = 0;
    f->strain = 1;
}

void row_format_use_scan(struct row_format *f, unsigned groups, int position)
{
    size_t n = 0;
    if (f->chosen)
        return;
    f->columns[n++] = ROW_COLUMN_SCAN_ROW;
    f->columns[n++] = ROW_COLUMN_SCAN_COL;
    if (position) {
        f->columns[n++] = ROW_COLUMN_SCAN_X;
        f->columns[n++] = ROW_COLUMN_SCAN_Y;
    }
    if (f->strain)
        for (int c = FIRST_STRAIN_COLUMN; c < FIRST_EXTRA_STRAIN_COLUMN; c++)
            f->columns[n++] = (enum row_column)c;
    else
        n = default_columns(f, n, ROW_COLUMN_REGION, groups);
    f->ncolumns = n;
}

void row_format_strain_extras(struct row_format *f, int grains, int orientations)
{
    if (f->chosen || !f->strain)
        return;
    /* After the rotation and before residual, windows and flags: grain and
     * reference, then the orientation. */
    enum row_column extras[6];
    size_t n = 0, at = 0;
    if (grains) {
        extras[n++] = ROW_COLUMN_GRAIN;
        extras[n++] = ROW_COLUMN_REF_ROW;
        extras[n++] = ROW_COLUMN_REF_COL;
    }
    if (orientations) {
        extras[n++] = ROW_COLUMN_PHI1;
        extras[n++] = ROW_COLUMN_PHI;
        extras[n++] = ROW_COLUMN_PHI2;
    }
    while (at < f->ncolumns && f->columns[at] != ROW_COLUMN_RESIDUAL)
        at++;
    memmove(f->columns + at + n, f->columns + at, (f->ncolumns - at) * sizeof *f->columns);
    memcpy(f->columns + at, extras, n * sizeof *extras);
    f->ncolumns += n;
}

int row_format_check_scan(const struct row_format *f, int scan, clx_message *msg)
{
    for (size_t i = 0; i < f->ncolumns; i++) {
        enum row_column c = f->columns[i];
        if (c < FIRST_SCAN_COLUMN || c >= FIRST_STRAIN_COLUMN)
            continue;
        if (scan == 0) {
            snprintf(msg->text, sizeof msg->text, "--columns: %s is written for runs over one EBSD pattern file "
                     "with a scan grid", column_names[c]);
            return CLX_ERR_ARGUMENT;
        }
        if (scan == 1 && (c == ROW_COLUMN_SCAN_X || c == ROW_COLUMN_SCAN_Y)) {
            snprintf(msg->text, sizeof msg->text, "--columns: %s needs the scan's step, which its file does not "
                     "give (scan_row and scan_col can be written)", column_names[c]);
            return CLX_ERR_ARGUMENT;
        }
    }
    return CLX_OK;
}

int row_format_set_kind(struct row_format *f, const char *name, clx_message *msg)
{
    static const char *const kinds[] = { "csv", "tsv", "jsonl", "h5", "vtk", "openpiv" };
    for (int k = 0; k < 6; k++)
        if (strcmp(name, kinds[k]) == 0) {
            f->kind = (enum row_format_kind)k;
            return CLX_OK;
        }
    snprintf(msg->text, sizeof msg->text, "--format: unknown format '%.100s' (csv, tsv, jsonl, h5, vtk or openpiv)",
             name);
    return CLX_ERR_ARGUMENT;
}

static int column_named(const char *name, size_t len, int strain)
{
    for (int c = 0; c < ROW_COLUMN_COUNT; c++)
        if (in_family((enum row_column)c, strain) && strlen(column_names[c]) == len &&
            strncmp(name, column_names[c], len) == 0)
            return c;
    return -1;
}

int row_format_set_columns(struct row_format *f, const char *list, unsigned groups, clx_message *msg)
{
    enum row_column chosen[ROW_COLUMN_COUNT];
    size_t n = 0;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        int c = column_named(p, len, f->strain);
        if (len == 0) {
            snprintf(msg->text, sizeof msg->text, "--columns: an empty column name in '%.200s'", list);
            return CLX_ERR_ARGUMENT;
        }
        if (c < 0 && f->strain) {
            snprintf(msg->text, sizeof msg->text,
                     "--columns: unknown column '%.*s' (known: image, e11, e12, e13, e22, e23, e33, w1, w2, w3, "
                     "residual, windows, flags, grain, ref_row, ref_col, phi1, Phi, phi2, and over a scan scan_row, "
                     "scan_col, scan_x, scan_y)",
                     (int)(len > 100 ? 100 : len), p);
            return CLX_ERR_ARGUMENT;
        }
        if (c < 0) {
            snprintf(msg->text, sizeof msg->text,
                     "--columns: unknown column '%.*s' (known: image, region, x, y, dx, dy, peak, flags, in "
                     "accurate mode zncc, peak_ratio, iterations, with IC-GN znssd, sigma_dx, sigma_dy, with "
                     "--shape 1 dudx, dudy, dvdx, dvdy, exx, eyy, exy, over a scan scan_row, scan_col, scan_x, "
                     "scan_y, with --reference pairs or previous reference, with previous total_dx, total_dy)",
                     (int)(len > 100 ? 100 : len), p);
            return CLX_ERR_ARGUMENT;
        }
        unsigned g = f->strain ? 0 : group_of((enum row_column)c);
        if (g && !(groups & g)) {
            snprintf(msg->text, sizeof msg->text, "--columns: %s is written %s only", column_names[c],
                     g == ROW_GROUP_ACCURATE ? "in accurate mode"
                     : g == ROW_GROUP_ICGN   ? "by the IC-GN refinement (accurate mode, --refine icgn)"
                     : g == ROW_GROUP_SHAPE  ? "with --shape 1 (accurate mode, --refine icgn)"
                     : g == ROW_GROUP_PAIRS  ? "with --reference pairs or previous"
                                             : "with --reference previous");
            return CLX_ERR_ARGUMENT;
        }
        for (size_t i = 0; i < n; i++)
            if (chosen[i] == (enum row_column)c) {
                snprintf(msg->text, sizeof msg->text, "--columns: %s is named twice", column_names[c]);
                return CLX_ERR_ARGUMENT;
            }
        /* Every name once: at most ROW_COLUMN_COUNT of them. */
        chosen[n++] = (enum row_column)c;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    memcpy(f->columns, chosen, n * sizeof *chosen);
    f->ncolumns = n;
    f->chosen = 1;
    return CLX_OK;
}

int row_format_header(const struct row_format *f, char *out, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return -1;
    out[0] = '\0';
    if (f->kind == ROW_FORMAT_JSONL)
        return 0;
    for (size_t i = 0; i < f->ncolumns; i++) {
        int n = snprintf(out + used, len - used, "%s%s", i ? (f->kind == ROW_FORMAT_TSV ? "\t" : ",") : "",
                         column_names[f->columns[i]]);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    if (used + 1 >= len)
        return -1;
    out[used++] = '\n';
    out[used] = '\0';
    return (int)used;
}

/* ---- text ----------------------------------------------------------------- */

/*
 * As in csv_output.c, formatting runs on the lanes for every row, so it
 * avoids printf where it can: room is reserved once per image, and
 * fixed-point numbers are written from integers (printf's text except, at
 * most, the last digit of a value within a rounding error of a tie).
 */

static int text_reserve(struct csv_text *t, size_t more)
{
    if (t->cap - t->len > more)
        return 0;
    size_t cap = 2 * t->cap + more + 256;
    char *grown = realloc(t->text, cap);
    if (!grown)
        return -1;
    t->text = grown;
    t->cap = cap;
    return 0;
}

static void put_char(struct csv_text *t, char c)
{
    t->text[t->len++] = c;
}

static void put_bytes(struct csv_text *t, const char *s, size_t n)
{
    memcpy(t->text + t->len, s, n);
    t->len += n;
}

static void put_uint(struct csv_text *t, unsigned long long v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        put_char(t, digits[--n]);
}

/* v with `decimals` decimals (as "%.*f"); printf itself for what integers
 * cannot hold exactly. Needs 32 bytes of room. */
static void put_signed(struct csv_text *t, long long v)
{
    if (v < 0)
        put_char(t, '-');
    put_uint(t, (unsigned long long)(v < 0 ? -v : v));
}

static void put_fixed(struct csv_text *t, double v, int decimals)
{
    static const double scale[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
    double scaled = v * scale[decimals];
    if (isnan(v)) {
        /* One spelling whatever the sign bit: printf writes -nan for a
         * negative NaN (0/0 of a flat window), which readers differ on. */
        put_bytes(t, "nan", 3);
        return;
    }
    if (!isfinite(v) || fabs(scaled) >= 9e15) {
        t->len += (size_t)snprintf(t->text + t->len, 32, "%.*f", decimals, v);
        return;
    }
    long long units = llrint(scaled);
    if (units < 0 || (units == 0 && signbit(v)))
        put_char(t, '-');
    unsigned long long u = (unsigned long long)(units < 0 ? -units : units);
    unsigned long long div = (unsigned long long)scale[decimals], frac = u % div;
    put_uint(t, u / div);
    if (decimals == 0)
        return;
    put_char(t, '.');
    for (int d = decimals - 1; d >= 0; d--) {
        t->text[t->len + (size_t)d] = (char)('0' + frac % 10);
        frac /= 10;
    }
    t->len += (size_t)decimals;
}

/*
 * "%.*g" without printf where the digits are certain: glibc's %g takes
 * about a microsecond, and the accurate mode's eleven such columns made the
 * rows, formatted by the lanes' threads, the limit of an offsets run from
 * files (7,500 images/s on an H200 against 12,700 with four columns, issue
 * 36). v is scaled to `digits` significant digits with one rounding (the
 * powers of ten up to 1e22 are exact), an error far below the 1e-6 kept
 * from a rounding tie for digits <= 9; ties, a rounding that carries into
 * another digit, and what is out of range go to printf, so the text is
 * printf's byte for byte (tests/test_row_format.c compares millions).
 * Returns 0 when it leaves v to printf.
 */
int row_put_general_fast(char *out, double v, int digits)
{
    static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    double a = fabs(v);
    if (digits < 1 || digits > 9 || !(a >= 1e-290 && a < 1e290))
        return 0;
    int x = (int)floor(log10(a));     /* the exponent, perhaps one off: checked below */
    double scaled = 0;
    for (int tries = 0; tries < 3; tries++) {
        int k = digits - 1 - x;
        if (k > 22 || k < -22)
            return 0;
        scaled = k >= 0 ? a * p10[k] : a / p10[-k];
        if (scaled < p10[digits - 1])
            x--;
        else if (scaled >= p10[digits])
            x++;
        else
            break;
    }
    if (!(scaled >= p10[digits - 1] && scaled < p10[digits]))
        return 0;
    double whole = floor(scaled), frac = scaled - whole;
    if (fabs(frac - 0.5) < 1e-6)
        return 0;
    unsigned long m = (unsigned long)whole + (frac > 0.5);
    if ((double)m >= p10[digits])
        return 0;
    char d[12];
    for (int i = digits - 1; i >= 0; i--, m /= 10)
        d[i] = (char)('0' + m % 10);
    int last = digits - 1;             /* the last digit written: trailing zeros go */
    while (last > 0 && d[last] == '0')
        last--;
    int n = 0;
    if (v < 0)
        out[n++] = '-';
    if (x >= -4 && x < digits) {
        if (x >= 0) {
            for (int i = 0; i <= x; i++)
                out[n++] = d[i];
            if (last > x) {
                out[n++] = '.';
                for (int i = x + 1; i <= last; i++)
                    out[n++] = d[i];
            }
        } else {
            out[n++] = '0';
            out[n++] = '.';
            for (int i = 0; i < -x - 1; i++)
                out[n++] = '0';
            for (int i = 0; i <= last; i++)
                out[n++] = d[i];
        }
    } else {
        out[n++] = d[0];
        if (last > 0) {
            out[n++] = '.';
            for (int i = 1; i <= last; i++)
                out[n++] = d[i];
        }
        out[n++] = 'e';
        out[n++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[n++] = (char)('0' + ax / 100);
        out[n++] = (char)('0' + ax / 10 % 10);
        out[n++] = (char)('0' + ax % 10);
    }
    return n;
}

/* "%.*g"; 32 bytes of room. */
static void put_general(struct csv_text *t, double v, int digits)
{
    if (isnan(v)) {
        put_bytes(t, "nan", 3);
        return;
    }
    int n = row_put_general_fast(t->text + t->len, v, digits);
    if (n > 0)
        t->len += (size_t)n;
    else
        t->len += (size_t)snprintf(t->text + t->len, 32, "%.*g", digits, v);
}

/* ---- the image name, escaped once per image --------------------------------- */

/* The name as the format writes it, into t (6 * strlen + 2 bytes of room). */
static void put_name(struct csv_text *t, enum row_format_kind kind, const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    if (kind == ROW_FORMAT_CSV) {
        int quoted = strpbrk(name, ",\"\r\n") != NULL;
        if (quoted)
            put_char(t, '"');
        for (; *s; s++) {
            if (*s == '"')
                put_char(t, '"');
            put_char(t, (char)*s);
        }
        if (quoted)
            put_char(t, '"');
    } else if (kind == ROW_FORMAT_TSV) {
        for (; *s; s++) {
            const char *escape = *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : *s == '\\' ? "\\\\" : NULL;
            if (escape)
                put_bytes(t, escape, 2);
            else
                put_char(t, (char)*s);
        }
    } else {
        /* A name that is not UTF-8 comes back byte for byte: its other
         * bytes as \udcXX (json_char). */
        put_char(t, '"');
        for (size_t left = strlen(name); left > 0;) {
            char out[8];
            size_t n, taken = json_char((const char *)s, left, 1, out, &n);
            put_bytes(t, out, n);
            s += taken;
            left -= taken;
        }
        put_char(t, '"');
    }
}

/* ---- rows ------------------------------------------------------------------ */

/* A real for JSON: null where JSON has no number. */
static void put_json_real(struct csv_text *t, double v, int decimals, int general)
{
    if (!isfinite(v))
        put_bytes(t, "null", 4);
    else if (general)
        put_general(t, v, decimals);
    else
        put_fixed(t, v, decimals);
}

static void put_value(struct csv_text *t, enum row_format_kind kind, enum row_column c, const struct csv_text *name,
                      const struct row_scan_point *point, const struct row_extras *extras, const struct csv_text *ref,
                      size_t index, const clx_region *r, const clx_result *res)
{
    int json = kind == ROW_FORMAT_JSONL;
    static const struct row_scan_point none = { -1, -1, NAN, NAN };
    if (!point)
        point = &none;
    switch (c) {
    case ROW_COLUMN_IMAGE: put_bytes(t, name->text, name->len); break;
    case ROW_COLUMN_REFERENCE: put_bytes(t, ref->text, ref->len); break;
    case ROW_COLUMN_TOTAL_DX:
    case ROW_COLUMN_TOTAL_DY: {
        const double *total = c == ROW_COLUMN_TOTAL_DX ? extras->total_dx : extras->total_dy;
        double v = total ? total[index] : NAN;
        json ? put_json_real(t, v, 6, 0) : put_fixed(t, v, 6);
        break;
    }
    case ROW_COLUMN_REGION: put_uint(t, index); break;
    case ROW_COLUMN_X: put_fixed(t, r->x + (r->w - 1) / 2.0, 1); break;
    case ROW_COLUMN_Y: put_fixed(t, r->y + (r->h - 1) / 2.0, 1); break;
    case ROW_COLUMN_DX: json ? put_json_real(t, res->dx, 6, 0) : put_fixed(t, res->dx, 6); break;
    case ROW_COLUMN_DY: json ? put_json_real(t, res->dy, 6, 0) : put_fixed(t, res->dy, 6); break;
    case ROW_COLUMN_PEAK: json ? put_json_real(t, res->peak, 9, 1) : put_general(t, res->peak, 9); break;
    case ROW_COLUMN_FLAGS: put_uint(t, res->flags); break;
    case ROW_COLUMN_ZNCC: json ? put_json_real(t, res->zncc, 6, 0) : put_fixed(t, res->zncc, 6); break;
    case ROW_COLUMN_PEAK_RATIO:
        json ? put_json_real(t, res->peak_ratio, 4, 1) : put_general(t, res->peak_ratio, 4);
        break;
    case ROW_COLUMN_ITERATIONS: put_signed(t, res->iterations); break;
    case ROW_COLUMN_ZNSSD: json ? put_json_real(t, res->znssd, 6, 1) : put_general(t, res->znssd, 6); break;
    case ROW_COLUMN_SIGMA_DX: json ? put_json_real(t, res->sigma_dx, 4, 1) : put_general(t, res->sigma_dx, 4); break;
    case ROW_COLUMN_SIGMA_DY: json ? put_json_real(t, res->sigma_dy, 4, 1) : put_general(t, res->sigma_dy, 4); break;
    case ROW_COLUMN_DUDX: json ? put_json_real(t, res->dudx, 7, 1) : put_general(t, res->dudx, 7); break;
    case ROW_COLUMN_DUDY: json ? put_json_real(t, res->dudy, 7, 1) : put_general(t, res->dudy, 7); break;
    case ROW_COLUMN_DVDX: json ? put_json_real(t, res->dvdx, 7, 1) : put_general(t, res->dvdx, 7); break;
    case ROW_COLUMN_DVDY: json ? put_json_real(t, res->dvdy, 7, 1) : put_general(t, res->dvdy, 7); break;
    case ROW_COLUMN_EXX:
    case ROW_COLUMN_EYY:
    case ROW_COLUMN_EXY: {
        double e[3];
        row_green_lagrange(res, e);
        json ? put_json_real(t, e[c - ROW_COLUMN_EXX], 7, 1) : put_general(t, e[c - ROW_COLUMN_EXX], 7);
        break;
    }
    case ROW_COLUMN_SCAN_ROW: put_signed(t, point->row); break;
    case ROW_COLUMN_SCAN_COL: put_signed(t, point->col); break;
    case ROW_COLUMN_SCAN_X: json ? put_json_real(t, point->x, 4, 0) : put_fixed(t, point->x, 4); break;
    case ROW_COLUMN_SCAN_Y: json ? put_json_real(t, point->y, 4, 0) : put_fixed(t, point->y, 4); break;
    default: break;   /* the strain's: put_strain_value */
    }
}

/* Strains and rotations of 1e-5 and less: 7 significant digits. */
static void put_strain_value(struct csv_text *t, enum row_format_kind kind, enum row_column c,
                             const clx_strain_row *row)
{
    int json = kind == ROW_FORMAT_JSONL;
    static const int tensor[6] = { 0, 1, 2, 4, 5, 8 };   /* e11 e12 e13 e22 e23 e33 in e[9] */
    const clx_strain *s = &row->fit;
    double v;
    if (c >= ROW_COLUMN_E11 && c <= ROW_COLUMN_E33)
        v = s->e[tensor[c - ROW_COLUMN_E11]];
    else if (c >= ROW_COLUMN_W1 && c <= ROW_COLUMN_W3)
        v = s->w[c - ROW_COLUMN_W1];
    else if (c == ROW_COLUMN_RESIDUAL) {
        json ? put_json_real(t, s->residual, 4, 0) : put_fixed(t, s->residual, 4);
        return;
    } else if (c == ROW_COLUMN_WINDOWS) {
        put_signed(t, s->windows);
        return;
    } else if (c == ROW_COLUMN_STRAIN_FLAGS) {
        put_uint(t, s->flags);
        return;
    } else if (c == ROW_COLUMN_GRAIN || c == ROW_COLUMN_REF_ROW || c == ROW_COLUMN_REF_COL) {
        put_signed(t, c == ROW_COLUMN_GRAIN ? row->grain : c == ROW_COLUMN_REF_ROW ? row->ref_row : row->ref_col);
        return;
    } else if (c >= ROW_COLUMN_PHI1 && c <= ROW_COLUMN_PHI2) {
        /* Radians to 1e-9: an orientation's 0.2 arc-milliseconds. */
        json ? put_json_real(t, row->euler[c - ROW_COLUMN_PHI1], 9, 0) : put_fixed(t, row->euler[c - ROW_COLUMN_PHI1], 9);
        return;
    } else
        return;
    json ? put_json_real(t, v, 7, 1) : put_general(t, v, 7);
}

int row_format_image(const struct row_format *f, struct csv_text *t, const char *image_name,
                     const struct row_scan_point *point, const struct row_extras *extras,
                     const clx_region *regions, size_t nregions, const clx_result *results)
{
    static const struct row_extras none = { "", NULL, NULL };
    struct csv_text name = { 0 }, ref = { 0 };
    if (!extras)
        extras = &none;
    const char *ref_name = extras->reference ? extras->reference : "";
    if (text_reserve(&name, 6 * strlen(image_name) + 3) != 0 || text_reserve(&ref, 6 * strlen(ref_name) + 3) != 0) {
        csv_text_free(&name);
        return CLX_ERR_HOST_MEMORY;
    }
    put_name(&name, f->kind, image_name);
    put_name(&ref, f->kind, ref_name);

    /* Per row: the names, and per column at most 32 characters of number,
     * a JSON key of at most 12 with its quotes and colon, and a separator. */
    size_t row_room = name.len + ref.len + f->ncolumns * (32 + 16 + 1) + 4;
    t->len = 0;
    t->rows = 0;
    if (text_reserve(t, row_room * nregions) != 0) {
        csv_text_free(&name);
        csv_text_free(&ref);
        return CLX_ERR_HOST_MEMORY;
    }
    char separator = f->kind == ROW_FORMAT_TSV ? '\t' : ',';
    for (size_t i = 0; i < nregions; i++) {
        if (f->kind == ROW_FORMAT_JSONL)
            put_char(t, '{');
        for (size_t k = 0; k < f->ncolumns; k++) {
            if (k)
                put_char(t, separator);
            if (f->kind == ROW_FORMAT_JSONL) {
                put_char(t, '"');
                put_bytes(t, column_names[f->columns[k]], strlen(column_names[f->columns[k]]));
                put_bytes(t, "\":", 2);
            }
            put_value(t, f->kind, f->columns[k], &name, point, extras, &ref, i, &regions[i], &results[i]);
        }
        if (f->kind == ROW_FORMAT_JSONL)
            put_char(t, '}');
        put_char(t, '\n');
        t->rows++;
    }
    csv_text_free(&name);
    csv_text_free(&ref);
    return CLX_OK;
}

int row_format_pattern(const struct row_format *f, struct csv_text *t, const char *image_name,
                       const struct row_scan_point *point, const clx_strain_row *strain)
{
    struct csv_text name = { 0 };
    if (text_reserve(&name, 6 * strlen(image_name) + 3) != 0)
        return CLX_ERR_HOST_MEMORY;
    put_name(&name, f->kind, image_name);
    t->len = 0;
    t->rows = 0;
    if (text_reserve(t, name.len + f->ncolumns * (32 + 16 + 1) + 4) != 0) {
        csv_text_free(&name);
        return CLX_ERR_HOST_MEMORY;
    }
    char separator = f->kind == ROW_FORMAT_TSV ? '\t' : ',';
    if (f->kind == ROW_FORMAT_JSONL)
        put_char(t, '{');
    for (size_t k = 0; k < f->ncolumns; k++) {
        enum row_column c = f->columns[k];
        if (k)
            put_char(t, separator);
        if (f->kind == ROW_FORMAT_JSONL) {
            put_char(t, '"');
            put_bytes(t, column_names[c], strlen(column_names[c]));
            put_bytes(t, "\":", 2);
        }
        if (c >= FIRST_STRAIN_COLUMN)
            put_strain_value(t, f->kind, c, strain);
        else
            put_value(t, f->kind, c, &name, point, NULL, NULL, 0, NULL, NULL);
    }
    if (f->kind == ROW_FORMAT_JSONL)
        put_char(t, '}');
    put_char(t, '\n');
    t->rows = 1;
    csv_text_free(&name);
    return CLX_OK;
}
