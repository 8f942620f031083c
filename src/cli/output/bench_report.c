/*
 * bench_report.c - `clxcorr bench` results as JSON, CSV and an SVG chart.
 *
 * Numbers are printed with printf in the C locale (the command never calls
 * setlocale), so the decimal separator is always a point. Each writer checks
 * the stream once at the end: stdio keeps the error indicator set after the
 * first failed write, so checking every fprintf would add nothing.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/bench_report.h"
#include "output/json_out.h"

/* ---- strings ---- */

/* The length of a fixed-size field, which may fill its array with no NUL. */
static size_t field_len(const char *s, size_t size)
{
    const char *end = memchr(s, '\0', size);
    return end ? (size_t)(end - s) : size;
}

#define FIELD(s) (s), field_len((s), sizeof(s))

/* Characters in s[0..len), for estimating how wide text is drawn. */
static size_t text_chars(const char *s, size_t len)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += ((unsigned char)s[i] & 0xC0) != 0x80;
    return count;
}

/* A measured value: negative means not measured, and NaN or infinity is
 * never printed. */
static int measured(double v)
{
    return isfinite(v) && v >= 0;
}

static int stage_count(const struct bench_row *r)
{
    return r->nstages < 0 ? 0 : r->nstages > BENCH_MAX_STAGES ? BENCH_MAX_STAGES : r->nstages;
}

/* Flushes so that a failure to write buffered text is reported too. */
static int stream_status(FILE *f)
{
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

/* "fft" and "error": absent reads better as null than as "". */
static void json_text_or_null(struct json_object *o, const char *key, const char *s, size_t len)
{
    json_key(o, key);
    if (len > 0)
        json_string(o->f, s, len);
    else
        fputs("null", o->f);
}

static void json_value(FILE *f, const char *format, double v)
{
    if (measured(v))
        fprintf(f, format, v);
    else
        fputs("null", f);
}

static void json_number(struct json_object *o, const char *key, const char *format, double v)
{
    json_key(o, key);
    json_value(o->f, format, v);
}

static double files_vs_memory(const struct bench_row *r)
{
    return measured(r->files_rate) && measured(r->memory_rate) && r->memory_rate > 0
               ? r->files_rate / r->memory_rate : -1;
}

/* bytes/ms * 1e-6 = GB/s; -1 (null) where the stage has no size or no time. */
static double stage_gbs(const struct bench_stage *s)
{
    if (!measured(s->bytes_per_batch) || !measured(s->ms_per_batch) || s->bytes_per_batch == 0 ||
        s->ms_per_batch == 0)
        return -1;
    return s->bytes_per_batch / s->ms_per_batch * 1e-6;
}

static void json_stages(FILE *f, const struct bench_row *r)
{
    fputc('[', f);
    for (int i = 0; i < stage_count(r); i++) {
        const struct bench_stage *s = &r->stages[i];
        fprintf(f, "%s\n        {\"name\": ", i ? "," : "");
        json_string(f, FIELD(s->name));
        fputs(", \"ms_per_batch\": ", f);
        json_value(f, "%.6g", s->ms_per_batch);
        fputs(", \"bytes_per_batch\": ", f);
        json_value(f, "%.15g", s->bytes_per_batch > 0 ? s->bytes_per_batch : -1);
        fputs(", \"gbytes_per_s\": ", f);
        json_value(f, "%.6g", stage_gbs(s));
        fputc('}', f);
    }
    fputs(stage_count(r) ? "\n      ]" : "]", f);
}

static void json_row(FILE *f, const struct bench_row *r)
{
    struct json_object o = {f, "      ", 0};
    fputs("    {", f);
    json_text(&o, "device", FIELD(r->device));
    json_text(&o, "vendor", FIELD(r->vendor));
    json_text(&o, "driver", FIELD(r->driver));
    json_text(&o, "platform", FIELD(r->platform));
    json_text(&o, "workload", FIELD(r->workload));
    json_text(&o, "description", FIELD(r->description));
    json_text(&o, "mode", FIELD(r->mode));
    json_text(&o, "method", FIELD(r->method));
    json_text_or_null(&o, "fft", FIELD(r->fft));
    json_int(&o, "image_w", r->image_w);
    json_int(&o, "image_h", r->image_h);
    json_int(&o, "win_w", r->win_w);
    json_int(&o, "win_h", r->win_h);
    json_int(&o, "windows", r->nwin);
    json_int(&o, "batch", r->batch);
    json_int(&o, "lanes", r->lanes);
    json_int(&o, "loaders", r->loaders);
    json_number(&o, "memory_images_per_s", "%.1f", r->memory_rate);
    json_number(&o, "files_images_per_s", "%.1f", r->files_rate);
    json_number(&o, "files_vs_memory", "%.4f", files_vs_memory(r));
    json_int(&o, "memory_images", (long long)r->memory_images);
    json_int(&o, "files_images", (long long)r->files_images);
    json_number(&o, "bus_gbs", "%.6g", r->bus_gbs);
    json_number(&o, "bus_peak_gbs", "%.6g", r->bus_peak_gbs);
    json_number(&o, "memory_peak_gbs", "%.6g", r->memory_peak_gbs);
    json_key(&o, "stages");
    json_stages(f, r);
    json_text_or_null(&o, "error", FIELD(r->error));
    fputs("\n    }", f);
}

int bench_write_json(FILE *f, const struct bench_meta *meta, const struct bench_row *rows, size_t n)
{
    const char *head[][2] = {{"clxcorr", meta ? meta->version : NULL},
                             {"date", meta ? meta->date : NULL},
                             {"host", meta ? meta->host : NULL},
                             {"command", meta ? meta->command : NULL}};
    struct json_object o = {f, "  ", 0};
    fputc('{', f);
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
        json_key(&o, head[i][0]);
        if (head[i][1])
            json_string(f, head[i][1], strlen(head[i][1]));
        else
            fputs("null", f);
    }
    json_key(&o, "results");
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_row(f, &rows[i]);
    }
    fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
    return stream_status(f);
}

/* ---- CSV ---- */

/*
 * The stage columns of the CSV. The pipelines name their stages by what they
 * do (the seed and accurate modes, FFT and direct differ), and the columns
 * sum them by role so that methods and devices can be compared:
 *   upload    "upload"
 *   prepare   "sums", "prepare", "filter", "sample"
 *   correlate "fft ..." (forward, inverse), "multiply", "direct...", "correlate"
 *   peaks     "argmax", "peak..." ("peaks"), "neighbourhood", "second peak"
 *   download  "download"
 *   other     any other stage
 * A stage goes to the first column one of whose prefixes begins its name.
 */
static const struct {
    const char *column;
    const char *prefixes[5];
} stage_columns[] = {
    {"upload_ms", {"upload"}},
    {"prepare_ms", {"sums", "prepare", "filter", "sample"}},
    {"correlate_ms", {"fft", "multiply", "direct", "correlate"}},
    {"peaks_ms", {"argmax", "peak", "neighbourhood", "second peak"}},
    {"download_ms", {"download"}},
};
#define NSTAGE_COLUMNS (sizeof stage_columns / sizeof stage_columns[0])   /* and other_ms after them */

static size_t stage_column(const char *name, size_t len)
{
    for (size_t c = 0; c < NSTAGE_COLUMNS; c++)
        for (const char *const *p = stage_columns[c].prefixes; *p; p++)
            if (strlen(*p) <= len && memcmp(name, *p, strlen(*p)) == 0)
                return c;
    return NSTAGE_COLUMNS;
}

/* A field, in quotes with quotes doubled when it holds a comma, quote or line end (RFC 4180). */
static void csv_field(FILE *f, const char *s, size_t len)
{
    int quote = 0;
    for (size_t i = 0; i < len; i++)
        quote |= s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (!quote) {
        fwrite(s, 1, len, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

/* ",value", or "," alone where it was not measured. */
static void csv_number(FILE *f, const char *format, double v)
{
    fputc(',', f);
    if (measured(v))
        fprintf(f, format, v);
}

static void csv_row(FILE *f, const struct bench_row *r)
{
    const struct {
        const char *s;
        size_t len;
    } text[] = {{FIELD(r->device)}, {FIELD(r->vendor)}, {FIELD(r->driver)}, {FIELD(r->workload)},
                {FIELD(r->description)}, {FIELD(r->mode)}, {FIELD(r->method)}, {FIELD(r->fft)}};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        if (i)
            fputc(',', f);
        csv_field(f, text[i].s, text[i].len);
    }
    fprintf(f, ",%d,%d,%d,%d,%d,%d,%d,%d", r->image_w, r->image_h, r->win_w, r->win_h, r->nwin, r->batch,
            r->lanes, r->loaders);
    csv_number(f, "%.1f", r->memory_rate);
    csv_number(f, "%.1f", r->files_rate);
    csv_number(f, "%.4f", files_vs_memory(r));
    csv_number(f, "%.6g", r->bus_gbs);
    csv_number(f, "%.6g", r->bus_peak_gbs);
    csv_number(f, "%.6g", r->memory_peak_gbs);

    double ms[NSTAGE_COLUMNS + 1] = {0};
    int timed[NSTAGE_COLUMNS + 1] = {0};
    for (int i = 0; i < stage_count(r); i++) {
        const struct bench_stage *s = &r->stages[i];
        if (!measured(s->ms_per_batch))
            continue;
        size_t c = stage_column(FIELD(s->name));
        ms[c] += s->ms_per_batch;
        timed[c] = 1;
    }
    for (size_t c = 0; c <= NSTAGE_COLUMNS; c++)
        csv_number(f, "%.6g", timed[c] ? ms[c] : -1);
    fputc(',', f);
    csv_field(f, FIELD(r->error));
    fputc('\n', f);
}

int bench_write_csv(FILE *f, const struct bench_row *rows, size_t n)
{
    fputs("device,vendor,driver,workload,description,mode,method,fft,image_w,image_h,win_w,win_h,windows,"
          "batch,lanes,loaders,memory_images_per_s,files_images_per_s,files_vs_memory,bus_gbs,bus_peak_gbs,"
          "memory_peak_gbs", f);
    for (size_t c = 0; c < NSTAGE_COLUMNS; c++)
        fprintf(f, ",%s", stage_columns[c].column);
    fputs(",other_ms,error\n", f);
    for (size_t i = 0; i < n; i++)
        csv_row(f, &rows[i]);
    return stream_status(f);
}

/* ---- SVG ---- */

/* Okabe and Ito's colours, told apart with the common colour vision
 * deficiencies; black last, as hatching in it reads worst. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#F0E442", "#000000"};
#define NCOLOURS (sizeof palette / sizeof palette[0])

/* Geometry in pixels. Text is measured as FONT_W em per character, the
 * average width of a sans-serif face, since the viewer picks the font. */
#define FONT_W 0.6
#define PLOT_LEFT 72.0      /* the y axis: room for its labels and title */
#define PLOT_TOP 72.0       /* below the title and the meta line */
#define PLOT_H 360.0
#define PLOT_BOTTOM (PLOT_TOP + PLOT_H)
#define MARGIN_RIGHT 24.0
#define MIN_WIDTH 720.0     /* the title and the legend's key fit */
#define SLOT_W 40.0         /* a device's place in a group: bar, files bar, space */
#define MEM_BAR_W 20.0
#define FILES_BAR_W 11.0    /* narrower, beside the memory bar */
#define GROUP_GAP 24.0
#define DESC_LINES_MAX 3    /* a description wraps to this many lines before its group widens */
#define LINE_H 18.0         /* legend lines */
#define NOTE_H 15.0         /* lines of the notes on failures */

/* Where each row goes in the chart. */
struct place {
    int group;      /* (workload, mode), numbered as they first appear */
    int series;     /* the device, numbered likewise: its colour and legend line */
    int slot;       /* the bar's place within the group */
    int note;       /* the failure's note number, 0 when the row did not fail */
};

struct chart {
    const struct bench_row *rows;
    size_t n;
    struct place *at;        /* per row */
    size_t *group_first;     /* per group: its first row, for labels */
    size_t *series_first;    /* per series: its first row, for the legend */
    int ngroups, nseries, nslots;
    int nnotes;              /* failed rows, numbered for their notes */
    int any_na;              /* a row with neither a rate nor an error: the key explains "n/a" */
    int lo, hi;              /* the y axis spans 10^lo .. 10^hi images/s */
    double width, height;
    double pitch;            /* x distance between groups */
    double group_w;          /* the width of each group's bars and labels */
    int desc_lines;          /* the most lines of any group's description */
    double legend_y;         /* baseline of the legend's first line */
};

static int same_text(const char *a, const char *b, size_t size)
{
    return strncmp(a, b, size) == 0;
}

static int same_group(const struct bench_row *a, const struct bench_row *b)
{
    return same_text(a->workload, b->workload, sizeof a->workload) && same_text(a->mode, b->mode, sizeof a->mode);
}

static int same_series(const struct bench_row *a, const struct bench_row *b)
{
    return same_text(a->device, b->device, sizeof a->device) && same_text(a->vendor, b->vendor, sizeof a->vendor) &&
           same_text(a->driver, b->driver, sizeof a->driver) &&
           same_text(a->platform, b->platform, sizeof a->platform);
}

/* A rate the chart can draw: the log scale has no place for 0. */
static int plotted(double rate)
{
    return isfinite(rate) && rate > 0;
}

static int row_failed(const struct bench_row *r)
{
    return r->error[0] != '\0';
}

static int row_has_bar(const struct bench_row *r)
{
    return !row_failed(r) && (plotted(r->memory_rate) || plotted(r->files_rate));
}

/* The first line of s[0..len) wrapped at spaces to at most `chars`
 * characters (a longer word is cut): sets *start and returns the end of the
 * line without its spaces, and sets *next where the next line starts. */
static size_t wrap_line(const char *s, size_t len, size_t chars, size_t *start, size_t *next)
{
    size_t i = 0, count = 0, space = 0;
    int have_space = 0;
    while (i < len && s[i] == ' ')
        i++;
    *start = i;
    while (i < len) {
        if (s[i] == ' ') {
            space = i;
            have_space = 1;
        }
        if (count == (chars ? chars : 1))
            break;
        unsigned long c;
        i += utf8_next(s + i, len - i, &c);
        count++;
    }
    size_t end = i < len && have_space ? space : i;
    *next = end;
    while (*next < len && s[*next] == ' ')
        (*next)++;
    while (end > *start && s[end - 1] == ' ')
        end--;
    return end;
}

static int wrap_count(const char *s, size_t len, size_t chars)
{
    int lines = 0;
    size_t at = 0, start, next;
    do {
        wrap_line(s + at, len - at, chars, &start, &next);
        at += next;
        lines++;
    } while (at < len);
    return lines;
}

/* Characters of `font_size` text that fit in `width` pixels. */
static size_t chars_in(double width, double font_size)
{
    return width > font_size * FONT_W ? (size_t)(width / (font_size * FONT_W)) : 1;
}

/* Text as XML character data, at most max_chars characters (the last one
 * then an ellipsis). Control characters, which XML 1.0 forbids even as
 * references, become spaces. */
static void xml_text(FILE *f, const char *s, size_t len, size_t max_chars)
{
    size_t shown = text_chars(s, len) > max_chars ? max_chars - 1 : SIZE_MAX;
    for (size_t i = 0, count = 0; i < len && count < shown; count++) {
        unsigned long c;
        i += utf8_next(s + i, len - i, &c);
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            utf8_put(f, c < 0x20 ? ' ' : c == 0xFFFE || c == 0xFFFF ? 0xFFFD : c);
        }
    }
    if (shown != SIZE_MAX)
        fputs("&#8230;", f);
}

static void xml_string(FILE *f, const char *s)
{
    xml_text(f, s, strlen(s), SIZE_MAX);
}

/* "1", "10", "1k", "100k", "1M"; "0.1" below 1. */
static void decade_label(char *buf, size_t size, int k)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T"};
    if (k < 0) {
        snprintf(buf, size, "%g", pow(10, k));
        return;
    }
    int p = k / 3 < 4 ? k / 3 : 4;
    snprintf(buf, size, "%.0f%s", pow(10, k - 3 * p), prefix[p]);
}

/* 24712.3 -> "24.7k": three significant digits, with the axis's prefixes. */
static void rate_label(char *buf, size_t size, double v)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T"};
    if (v < 1) {
        snprintf(buf, size, "%.2g", v);
        return;
    }
    int e = (int)floor(log10(v));
    double rounded = round(v / pow(10, e - 2)) * pow(10, e - 2);
    if (rounded >= pow(10, e + 1))   /* 999.7 is 1.00k */
        e++;
    int p = e / 3 < 4 ? e / 3 : 4;
    int decimals = 2 - (e - 3 * p) > 0 ? 2 - (e - 3 * p) : 0;
    snprintf(buf, size, "%.*f%s", decimals, rounded / pow(10, 3 * p), prefix[p]);
}

static double rate_y(const struct chart *c, double rate)
{
    return PLOT_BOTTOM - (log10(rate) - c->lo) * PLOT_H / (c->hi - c->lo);
}

static double group_left(const struct chart *c, int g)
{
    return PLOT_LEFT + g * c->pitch + (c->pitch - c->group_w) / 2;
}

static double slot_left(const struct chart *c, int g, int slot)
{
    return group_left(c, g) + (c->group_w - c->nslots * SLOT_W) / 2 + slot * SLOT_W;
}

/* "device (platform, driver X)", the legend's line for a series. */
static void series_name(char *buf, size_t size, const struct bench_row *r)
{
    int np = (int)field_len(r->platform, sizeof r->platform), nd = (int)field_len(r->driver, sizeof r->driver);
    snprintf(buf, size, "%.*s%s%.*s%s%s%.*s%s", (int)field_len(r->device, sizeof r->device), r->device,
             np || nd ? " (" : "", np, r->platform, np && nd ? ", " : "", nd ? "driver " : "", nd, r->driver,
             np || nd ? ")" : "");
}

/* "[2] device, workload mode: error", the note on a failure. */
static void note_text(char *buf, size_t size, const struct bench_row *r, int note)
{
    snprintf(buf, size, "[%d] %.*s, %.*s %.*s: %.*s", note, (int)field_len(r->device, sizeof r->device),
             r->device, (int)field_len(r->workload, sizeof r->workload), r->workload,
             (int)field_len(r->mode, sizeof r->mode), r->mode, (int)field_len(r->error, sizeof r->error), r->error);
}

enum { SERIES_NAME_SIZE = 640, NOTE_SIZE = 720 };

/* Characters of legend text (font size 11) that fit beside a swatch. */
static size_t legend_chars(const struct chart *c)
{
    return chars_in(c->width - PLOT_LEFT - 18 - MARGIN_RIGHT, 11);
}

static void chart_free(struct chart *c)
{
    free(c->at);
    free(c->group_first);
    free(c->series_first);
}

/* Numbers the groups, series, slots and notes. `slots` has room for a
 * number per row: per series, the most rows it has in one group. */
static void chart_number(struct chart *c, int *slots)
{
    const struct bench_row *rows = c->rows;
    for (size_t i = 0; i < c->n; i++) {
        struct place *p = &c->at[i];
        while (p->group < c->ngroups && !same_group(&rows[c->group_first[p->group]], &rows[i]))
            p->group++;
        if (p->group == c->ngroups)
            c->group_first[c->ngroups++] = i;
        while (p->series < c->nseries && !same_series(&rows[c->series_first[p->series]], &rows[i]))
            p->series++;
        if (p->series == c->nseries)
            c->series_first[c->nseries++] = i;
        /* A device with several rows in a group (say, each FFT backend) gets a place for each. */
        for (size_t j = 0; j < i; j++)
            p->slot += c->at[j].group == p->group && c->at[j].series == p->series;
        if (slots[p->series] < p->slot + 1)
            slots[p->series] = p->slot + 1;
        if (row_failed(&rows[i]))
            p->note = ++c->nnotes;
        else if (!row_has_bar(&rows[i]))
            c->any_na = 1;
    }
    /* Each series has the same places in every group, so a device's bars line up across groups. */
    for (int s = 0, offset = 0; s < c->nseries; s++) {
        int k = slots[s];
        slots[s] = offset;
        offset += k;
        c->nslots = offset;
    }
    for (size_t i = 0; i < c->n; i++)
        c->at[i].slot += slots[c->at[i].series];
}

/* The y axis: the decades from the lowest rate to the highest, with room
 * above the tallest bar for its value. */
static void chart_scale(struct chart *c)
{
    double lo_rate = INFINITY, hi_rate = 0;
    for (size_t i = 0; i < c->n; i++) {
        const double rate[2] = {c->rows[i].memory_rate, c->rows[i].files_rate};
        for (int k = 0; k < 2; k++)
            if (!row_failed(&c->rows[i]) && plotted(rate[k])) {
                lo_rate = fmin(lo_rate, rate[k]);
                hi_rate = fmax(hi_rate, rate[k]);
            }
    }
    c->lo = 0;
    c->hi = 1;
    if (hi_rate > 0) {
        /* Bars stand on 1 image/s, or lower where a rate is lower. */
        c->lo = (int)fmin(0, floor(log10(lo_rate)));
        c->hi = (int)fmax(c->lo + 1, ceil(log10(hi_rate)));
        /* Room above the tallest bar for its value, written upwards; it may
         * reach into the margin below the meta line, a decade more would
         * squash every bar. */
        char label[32];
        rate_label(label, sizeof label, hi_rate);
        while (PLOT_BOTTOM - rate_y(c, hi_rate) + strlen(label) * 10 * FONT_W + 4 > PLOT_H + 14)
            c->hi++;
    }
}

/* The groups' width (their bars, labels and wrapped descriptions), the
 * chart's width, and its height down to the legend and the notes. */
static void chart_size(struct chart *c)
{
    c->group_w = c->nslots * SLOT_W;
    for (int g = 0; g < c->ngroups; g++) {
        const struct bench_row *r = &c->rows[c->group_first[g]];
        double label = (text_chars(FIELD(r->workload)) + 1 + text_chars(FIELD(r->mode))) * 12 * FONT_W;
        c->group_w = fmax(c->group_w, label);
        while (wrap_count(FIELD(r->description), chars_in(c->group_w, 10)) > DESC_LINES_MAX)
            c->group_w += SLOT_W / 2;
    }
    for (int g = 0; g < c->ngroups; g++) {
        const struct bench_row *r = &c->rows[c->group_first[g]];
        int lines = field_len(r->description, sizeof r->description) ? wrap_count(FIELD(r->description),
                                                                                    chars_in(c->group_w, 10)) : 0;
        c->desc_lines = lines > c->desc_lines ? lines : c->desc_lines;
    }
    c->width = fmax(MIN_WIDTH, PLOT_LEFT + c->ngroups * (c->group_w + GROUP_GAP) + MARGIN_RIGHT);
    c->pitch = c->ngroups ? (c->width - PLOT_LEFT - MARGIN_RIGHT) / c->ngroups : 0;

    c->legend_y = PLOT_BOTTOM + 18 + 14.0 * c->desc_lines + 32;
    double y = c->legend_y + LINE_H * (c->nseries + 1);   /* the devices, then the key */
    char note[NOTE_SIZE];
    for (size_t i = 0; i < c->n; i++)
        if (c->at[i].note) {
            note_text(note, sizeof note, &c->rows[i], c->at[i].note);
            y += NOTE_H * wrap_count(note, strlen(note), legend_chars(c)) + 4;
        }
    c->height = y + 8;
}

/* Numbers the groups, series, slots and notes, and sizes everything. */
static int chart_layout(struct chart *c, const struct bench_row *rows, size_t n)
{
    memset(c, 0, sizeof *c);
    c->rows = rows;
    c->n = n;
    c->at = calloc(n + 1, sizeof *c->at);
    c->group_first = calloc(n + 1, sizeof *c->group_first);
    c->series_first = calloc(n + 1, sizeof *c->series_first);
    int *slots = calloc(n + 1, sizeof *slots);   /* per series: the most rows it has in one group */
    if (!c->at || !c->group_first || !c->series_first || !slots) {
        free(slots);
        return -1;
    }
    chart_number(c, slots);
    free(slots);
    chart_scale(c);
    chart_size(c);
    return 0;
}

/* Text written upwards from (x, y), centred on x. */
static void svg_vertical_text(FILE *f, const char *cls, double x, double y, const char *fill, const char *text)
{
    x += 3.5;   /* the glyphs lie left of the baseline once turned */
    fprintf(f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" font-size=\"10\" "
               "fill=\"%s\">", cls, x, y, x, y, fill);
    xml_string(f, text);
    fputs("</text>\n", f);
}

static void svg_head(FILE *f, const struct chart *c, const struct bench_meta *meta)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", c->width, c->height, c->width, c->height);
    fputs("<title>clxcorr bench &#8212; images per second</title>\n<defs>\n", f);
    /* Hatching: stripes of the device's colour on white, lighter than the solid bar. */
    for (size_t k = 0; k < NCOLOURS && k < (size_t)c->nseries; k++)
        fprintf(f, "<pattern id=\"hatch%zu\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
                   "patternTransform=\"rotate(45)\"><rect width=\"4\" height=\"4\" fill=\"white\"/>"
                   "<line x1=\"1\" y1=\"0\" x2=\"1\" y2=\"4\" stroke=\"%s\" stroke-width=\"2\"/></pattern>\n",
                k, palette[k]);
    fputs("<pattern id=\"hatch-key\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"4\" height=\"4\" fill=\"white\"/>"
          "<line x1=\"1\" y1=\"0\" x2=\"1\" y2=\"4\" stroke=\"#666666\" stroke-width=\"2\"/></pattern>\n</defs>\n", f);
    /* Opaque, so that viewers with a dark background still show black text. */
    fputs("<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n", f);
    fprintf(f, "<text x=\"%.1f\" y=\"30\" font-size=\"18\" font-weight=\"bold\">"
               "clxcorr bench &#8212; images per second (log scale)</text>\n", PLOT_LEFT);
    const char *parts[] = {meta ? meta->date : NULL, meta ? meta->version : NULL, meta ? meta->host : NULL};
    const char *before[] = {"", "clxcorr ", "host "};
    int shown = 0;
    fprintf(f, "<text x=\"%.1f\" y=\"52\" fill=\"#555555\">", PLOT_LEFT);
    for (int i = 0; i < 3; i++)
        if (parts[i] && parts[i][0]) {
            fprintf(f, "%s%s", shown++ ? " &#183; " : "", before[i]);
            xml_string(f, parts[i]);
        }
    fputs("</text>\n", f);
}

static void svg_axes(FILE *f, const struct chart *c)
{
    double right = c->width - MARGIN_RIGHT;
    /* Every other group shaded, so that the eye keeps groups apart. */
    for (int g = 1; g < c->ngroups; g += 2)
        fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f2f2f2\"/>\n",
                PLOT_LEFT + g * c->pitch, PLOT_TOP, c->pitch, PLOT_H);
    for (int k = c->lo; k <= c->hi; k++) {
        char label[32];
        double y = rate_y(c, pow(10, k));
        decade_label(label, sizeof label, k);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cccccc\"/>\n",
                PLOT_LEFT, y, right, y);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PLOT_LEFT - 6,
                y + 4, label);
        /* Unlabelled ticks at 2..9 show how far apart a decade's values lie. */
        for (int m = 2; m <= 9 && k < c->hi; m++) {
            double ym = rate_y(c, m * pow(10, k));
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
                    PLOT_LEFT - 3, ym, PLOT_LEFT, ym);
        }
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", PLOT_LEFT, PLOT_TOP,
            PLOT_LEFT, PLOT_BOTTOM);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", PLOT_LEFT,
            PLOT_BOTTOM, right, PLOT_BOTTOM);
    double ymid = PLOT_TOP + PLOT_H / 2;
    fprintf(f, "<text x=\"18\" y=\"%.1f\" transform=\"rotate(-90 18 %.1f)\" text-anchor=\"middle\">"
               "images per second</text>\n", ymid, ymid);
    if (c->ngroups == 0)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555555\">no results</text>\n",
                (PLOT_LEFT + right) / 2, ymid);
}

/* A bar from the axis up to `rate` in the device's colour, solid or hatched,
 * with its exact value as a tooltip and its rounded value written above it. */
static void svg_bar(FILE *f, const struct chart *c, const struct bench_row *r, const char *cls, double x,
                    double w, size_t colour, int hatched, double rate, size_t images, const char *source)
{
    char label[32], fill[32];
    double y = rate_y(c, rate);
    if (hatched)
        snprintf(fill, sizeof fill, "url(#hatch%zu)", colour);
    else
        snprintf(fill, sizeof fill, "%s", palette[colour]);
    fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\">"
               "<title>", cls, x, y, w, fmax(PLOT_BOTTOM - y, 1), fill, palette[colour]);
    xml_text(f, FIELD(r->device), SIZE_MAX);
    fprintf(f, ": %.1f images/s %s (over %zu images)</title></rect>\n", rate, source, images);
    rate_label(label, sizeof label, rate);
    svg_vertical_text(f, "value", x + w / 2, y - 4, "#222222", label);
}

/* "failed [n]" or "n/a" where a bar would be, over a stub of the device's colour. */
static void svg_mark(FILE *f, const struct bench_row *r, const struct place *p, double x,
                     const char *colour)
{
    char text[32];
    fprintf(f, "<g class=\"%s\"><title>", p->note ? "failed" : "na");
    if (p->note)
        xml_text(f, FIELD(r->error), SIZE_MAX);
    else
        fputs("not measured", f);
    fprintf(f, "</title>\n<rect class=\"stub\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"3\" fill=\"%s\"/>\n",
            x + 4, PLOT_BOTTOM - 3, SLOT_W - 8, colour);
    if (p->note)
        snprintf(text, sizeof text, "failed [%d]", p->note);
    else
        snprintf(text, sizeof text, "n/a");
    svg_vertical_text(f, "mark", x + SLOT_W / 2, PLOT_BOTTOM - 8, p->note ? "#b00020" : "#555555", text);
    fputs("</g>\n", f);
}

static void svg_bars(FILE *f, const struct chart *c)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct bench_row *r = &c->rows[i];
        const struct place *p = &c->at[i];
        size_t colour = (size_t)p->series % NCOLOURS;
        double x = slot_left(c, p->group, p->slot);
        if (!row_has_bar(r)) {
            svg_mark(f, r, p, x, palette[colour]);
            continue;
        }
        if (plotted(r->memory_rate))
            svg_bar(f, c, r, "mem", x + 4, MEM_BAR_W, colour, 0, r->memory_rate, r->memory_images, "from memory");
        if (plotted(r->files_rate))
            svg_bar(f, c, r, "files", x + 6 + MEM_BAR_W, FILES_BAR_W, colour, 1, r->files_rate, r->files_images,
                    "from TIFF files");
    }
}

/* Under each group: "workload mode", and the description wrapped below it. */
static void svg_group_labels(FILE *f, const struct chart *c)
{
    for (int g = 0; g < c->ngroups; g++) {
        const struct bench_row *r = &c->rows[c->group_first[g]];
        double x = group_left(c, g) + c->group_w / 2;
        fprintf(f, "<text class=\"group\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">", x,
                PLOT_BOTTOM + 18);
        xml_text(f, FIELD(r->workload), SIZE_MAX);
        fputc(' ', f);
        xml_text(f, FIELD(r->mode), SIZE_MAX);
        fputs("</text>\n", f);
        size_t len = field_len(r->description, sizeof r->description), at = 0, start, next;
        for (int line = 0; at < len; line++, at += next) {
            size_t end = wrap_line(r->description + at, len - at, chars_in(c->group_w, 10), &start, &next);
            fprintf(f, "<text class=\"description\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" "
                       "fill=\"#555555\">", x, PLOT_BOTTOM + 32 + 14.0 * line);
            xml_text(f, r->description + at + start, end - start, SIZE_MAX);
            fputs("</text>\n", f);
        }
    }
}

static void svg_swatch(FILE *f, double x, double y, const char *fill)
{
    fprintf(f, "<rect class=\"swatch\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" "
               "stroke=\"#666666\"/>\n", x, y - 10, fill);
}

/* A swatch and its words; returns where the next item of the line may start. */
static double svg_key(FILE *f, double x, double y, const char *fill, const char *text)
{
    svg_swatch(f, x, y, fill);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n", x + 18, y, text);
    return x + 18 + strlen(text) * 11 * FONT_W + 24;
}

/* A line per device, what the bars mean, then the reasons for failures. */
static void svg_legend(FILE *f, const struct chart *c)
{
    char text[NOTE_SIZE > SERIES_NAME_SIZE ? NOTE_SIZE : SERIES_NAME_SIZE];
    double y = c->legend_y;
    for (int s = 0; s < c->nseries; s++, y += LINE_H) {
        series_name(text, sizeof text, &c->rows[c->series_first[s]]);
        svg_swatch(f, PLOT_LEFT, y, palette[(size_t)s % NCOLOURS]);
        fprintf(f, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", PLOT_LEFT + 18, y);
        xml_text(f, text, strlen(text), legend_chars(c));
        fputs("</text>\n", f);
    }
    double x = svg_key(f, PLOT_LEFT, y, "#666666", "solid: from host memory");
    x = svg_key(f, x, y, "url(#hatch-key)", "hatched: from TIFF files (page cache)");
    if (c->any_na)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">n/a: not measured</text>\n", x, y);
    y += LINE_H;
    for (size_t i = 0; i < c->n; i++) {
        if (!c->at[i].note)
            continue;
        note_text(text, sizeof text, &c->rows[i], c->at[i].note);
        size_t len = strlen(text), at = 0, start, next;
        for (; at < len; at += next, y += NOTE_H) {
            size_t end = wrap_line(text + at, len - at, legend_chars(c), &start, &next);
            fprintf(f, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#b00020\">",
                    PLOT_LEFT + (at ? 18 : 0), y);
            xml_text(f, text + at + start, end - start, SIZE_MAX);
            fputs("</text>\n", f);
        }
        y += 4;
    }
}

int bench_write_svg(FILE *f, const struct bench_meta *meta, const struct bench_row *rows, size_t n)
{
    struct chart c;
    if (chart_layout(&c, rows, n) != 0) {
        chart_free(&c);
        return -1;
    }
    svg_head(f, &c, meta);
    svg_axes(f, &c);
    svg_bars(f, &c);
    svg_group_labels(f, &c);
    svg_legend(f, &c);
    fputs("</svg>\n", f);
    chart_free(&c);
    return stream_status(f);
}
