/*
 * test_bench_report.c - the JSON, CSV and SVG of `clxcorr bench`
 * (src/cli/output/bench_report.c), written for two devices and three
 * workloads and read back: each output is parsed for syntax (a JSON checker,
 * an RFC 4180 reader, an XML tag matcher) and checked for what it must say.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output/bench_report.h"

/* A comma, a quote and an ampersand: each output must escape it its own way. */
#define DEVICE_A "Acme \"Turbo\" GPU, R&D"
#define ERROR_A "CL_OUT_OF_RESOURCES: \"direct\" kernel\nneeds \x01 more local memory"

enum format { JSON, CSV, SVG };

static const struct bench_meta meta = {"0.9.0", "2025-06-01T12:00:00Z", "gpu-01", "clxcorr bench --json r.json"};

static void stage_add(struct bench_row *r, const char *name, double ms, double bytes)
{
    struct bench_stage *s = &r->stages[r->nstages++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->ms_per_batch = ms;
    s->bytes_per_batch = bytes;
}

static void row_set(struct bench_row *r, const char *device, const char *driver, const char *workload,
                    const char *description, const char *method, double memory_rate, double files_rate)
{
    memset(r, 0, sizeof *r);
    snprintf(r->device, sizeof r->device, "%s", device);
    snprintf(r->vendor, sizeof r->vendor, "%s", strcmp(device, DEVICE_A) ? "Lake Semiconductors" : "Acme");
    snprintf(r->driver, sizeof r->driver, "%s", driver);
    snprintf(r->platform, sizeof r->platform, "%s", strcmp(device, DEVICE_A) ? "Portable Computing Language"
                                                                              : "Acme OpenCL");
    snprintf(r->workload, sizeof r->workload, "%s", workload);
    snprintf(r->description, sizeof r->description, "%s", description);
    snprintf(r->mode, sizeof r->mode, "seed");
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->fft, sizeof r->fft, "%s", strcmp(method, "fft") ? "" : "vkfft");
    r->image_w = r->image_h = 512;
    r->win_w = r->win_h = 64;
    r->nwin = 200;
    r->batch = 32;
    r->lanes = 2;
    r->loaders = 4;
    r->memory_rate = memory_rate;
    r->files_rate = files_rate;
    r->memory_images = memory_rate < 0 ? 0 : 10000;
    r->files_images = files_rate < 0 ? 0 : 5000;
    r->bus_gbs = 12.5;
    r->bus_peak_gbs = 25;
    r->memory_peak_gbs = -1;
}

/* Rows 0-2 device A, 3-5 device B; workloads ebsd-900, mid-512, piv-32 each. */
static void rows_make(struct bench_row *rows)
{
    row_set(&rows[0], DEVICE_A, "1.2.3", "ebsd-900", "900x900 16-bit, 50 windows of 100x100", "fft", 24712.3,
            19100);
    stage_add(&rows[0], "upload", 0.8, 1.6e7);   /* 20 GB/s */
    stage_add(&rows[0], "sums", 0.2, 0);
    stage_add(&rows[0], "prepare", 0.1, 0);
    stage_add(&rows[0], "fft forward", 1.5, 0);
    stage_add(&rows[0], "multiply", 0.5, 0);
    stage_add(&rows[0], "fft inverse", 1.0, 0);
    stage_add(&rows[0], "argmax", 0.25, 0);
    stage_add(&rows[0], "neighbourhood", 0.05, 0);
    stage_add(&rows[0], "download", 0.1, 0);
    stage_add(&rows[0], "subpixel", 0.07, 0);   /* other */
    row_set(&rows[1], DEVICE_A, "1.2.3", "mid-512", "512x512 16-bit, 200 windows of 64x64", "fft", 5000, -1);
    rows[1].bus_gbs = NAN;
    rows[1].memory_peak_gbs = INFINITY;
    stage_add(&rows[1], "upload", INFINITY, 1e6);
    row_set(&rows[2], DEVICE_A, "1.2.3", "piv-32", "256x256 8-bit, 1000 windows of 32x32", "direct", -1, -1);
    snprintf(rows[2].error, sizeof rows[2].error, "%s", ERROR_A);
    row_set(&rows[3], "CPU Lake", "2024.1", "ebsd-900", "900x900 16-bit, 50 windows of 100x100", "fft", 20.5,
            18.2);
    row_set(&rows[4], "CPU Lake", "2024.1", "mid-512", "512x512 16-bit, 200 windows of 64x64", "fft", 80, 70);
    row_set(&rows[5], "CPU Lake", "2024.1", "piv-32", "256x256 8-bit, 1000 windows of 32x32", "direct", 15000,
            9000);
    stage_add(&rows[5], "direct", 4, 0);
}

/* What a writer wrote, NUL-terminated (malloc'd); *rc its status. */
static char *write_text(enum format format, const struct bench_meta *m, const struct bench_row *rows, size_t n,
                        int *rc)
{
    FILE *f = tmpfile();
    if (!f) {
        printf("FAIL: no temporary file\n");
        exit(1);
    }
    *rc = format == JSON ? bench_write_json(f, m, rows, n)
          : format == CSV ? bench_write_csv(f, rows, n)
                          : bench_write_svg(f, m, rows, n);
    long size = ftell(f);
    char *text = malloc((size_t)(size > 0 ? size : 0) + 1);
    rewind(f);
    if (size < 0 || !text || fread(text, 1, (size_t)size, f) != (size_t)size) {
        printf("FAIL: cannot read the output back\n");
        exit(1);
    }
    text[size] = '\0';
    fclose(f);
    return text;
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static int contains_nocase(const char *text, const char *what)
{
    for (const char *p = text; *p; p++) {
        size_t i = 0;
        while (what[i] && tolower((unsigned char)p[i]) == what[i])
            i++;
        if (!what[i])
            return 1;
    }
    return 0;
}

/* ---- a JSON syntax checker (RFC 8259) ---- */

static void json_ws(const char **p)
{
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
        (*p)++;
}

static int json_string_ok(const char **p)
{
    if (*(*p)++ != '"')
        return 0;
    for (;;) {
        unsigned char c = (unsigned char)*(*p)++;
        if (c == '"')
            return 1;
        if (c < 0x20)
            return 0;   /* raw control characters, the end of the text included */
        if (c == '\\') {
            char e = *(*p)++;
            if (e == 'u') {
                for (int i = 0; i < 4; i++)
                    if (!isxdigit((unsigned char)*(*p)++))
                        return 0;
            } else if (!strchr("\"\\/bfnrt", e) || e == '\0') {
                return 0;
            }
        }
    }
}

static int json_number_ok(const char **p)
{
    const char *s = *p;
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (isdigit((unsigned char)*s))
            s++;
    else
        return 0;
    if (*s == '.') {
        if (!isdigit((unsigned char)*++s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
    }
    *p = s;
    return 1;
}

static int json_value_ok(const char **p)
{
    json_ws(p);
    if (**p == '{' || **p == '[') {
        char close = **p == '{' ? '}' : ']';
        int object = close == '}';
        (*p)++;
        json_ws(p);
        if (**p == close) {
            (*p)++;
            return 1;
        }
        for (;;) {
            json_ws(p);
            if (object) {
                if (!json_string_ok(p))
                    return 0;
                json_ws(p);
                if (*(*p)++ != ':')
                    return 0;
            }
            if (!json_value_ok(p))
                return 0;
            json_ws(p);
            char c = *(*p)++;
            if (c == close)
                return 1;
            if (c != ',')
                return 0;
        }
    }
    if (**p == '"')
        return json_string_ok(p);
    for (const char *const *word = (const char *const[]){"true", "false", "null", NULL}; *word; word++)
        if (strncmp(*p, *word, strlen(*word)) == 0) {
            *p += strlen(*word);
            return 1;
        }
    return json_number_ok(p);
}

static int json_ok(const char *text)
{
    const char *p = text;
    if (!json_value_ok(&p))
        return 0;
    json_ws(&p);
    return *p == '\0';
}

/* ---- an RFC 4180 reader ---- */

#define CSV_FIELDS 40
#define CSV_FIELD_SIZE 512

/* Reads one record at *p into fields (unquoted); returns its field count, or
 * -1 when it is malformed (an unclosed quote, text after a closing quote, a
 * quote inside an unquoted field). */
static int csv_record(const char **p, char fields[][CSV_FIELD_SIZE])
{
    const char *s = *p;
    int n = 0;
    for (;;) {
        char *out = n < CSV_FIELDS ? fields[n] : NULL;
        size_t len = 0;
#define PUT(ch) do { if (out && len < CSV_FIELD_SIZE - 1) out[len++] = (ch); } while (0)
        if (*s == '"') {
            for (s++;; s++) {
                if (*s == '\0')
                    return -1;
                if (*s == '"' && s[1] == '"')
                    PUT(*s++);
                else if (*s == '"')
                    break;
                else
                    PUT(*s);
            }
            s++;
            if (*s != ',' && *s != '\n' && *s != '\0')
                return -1;
        } else {
            for (; *s && *s != ',' && *s != '\n'; s++) {
                if (*s == '"')
                    return -1;
                PUT(*s);
            }
        }
#undef PUT
        if (out)
            out[len] = '\0';
        n++;
        if (*s != ',')
            break;
        s++;
    }
    if (*s == '\n')
        s++;
    *p = s;
    return n;
}

/* ---- an XML tag matcher ---- */

/* Every element closed in order inside one root <svg>, and every '&' an
 * entity or character reference. Returns NULL or what is wrong. */
static const char *xml_problem(const char *text)
{
    char stack[32][32];
    int depth = 0, roots = 0;
    for (const char *amp = text; (amp = strchr(amp, '&')); amp++) {
        static const char *const refs[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"};
        int ok = 0;
        for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
            ok |= strncmp(amp, refs[i], strlen(refs[i])) == 0;
        if (!ok)
            return "an unescaped &";
    }
    for (const char *p = text; (p = strchr(p, '<'));) {
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strcspn(name, " \t\n/>");
        const char *end = name + len;
        for (char quote = 0; *end && (quote || *end != '>'); end++)
            if (*end == '"' && !quote)
                quote = '"';
            else if (*end == quote)
                quote = 0;
        if (*end != '>' || len == 0 || len >= sizeof stack[0])
            return "an unterminated or unnamed tag";
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != len || strncmp(stack[depth - 1], name, len) != 0)
                return "a closing tag that does not match";
            depth--;
        } else if (end[-1] != '/') {
            if (depth == 0 && roots++)
                return "more than one root element";
            if (depth == (int)(sizeof stack / sizeof stack[0]))
                return "too deep";
            memcpy(stack[depth], name, len);
            stack[depth++][len] = '\0';
        }
        p = end + 1;
    }
    return depth ? "an element left open" : NULL;
}

/* ---- the tests ---- */

static void test_json(const struct bench_row *rows, size_t n)
{
    int rc;
    char *text = write_text(JSON, &meta, rows, n, &rc);
    CHECK(rc == 0, "status %d", rc);
    CHECK(json_ok(text), "not valid JSON:\n%s", text);
    CHECK(strncmp(text, "{\n  \"clxcorr\": \"0.9.0\",\n  \"date\": \"2025-06-01T12:00:00Z\"", 54) == 0,
          "head: %.80s", text);
    CHECK(strstr(text, "\"command\": \"clxcorr bench --json r.json\""), "no command");
    CHECK(count(text, "\"device\": \"Acme \\\"Turbo\\\" GPU, R&D\"") == 3, "escaped device name");
    CHECK(count(text, "\"error\": \"CL_OUT_OF_RESOURCES: \\\"direct\\\" kernel\\u000aneeds \\u0001 more") == 1,
          "escaped error");
    CHECK(count(text, "\"error\": null") == 5, "measured rows have error null");
    /* Device A's mid-512 row: files not measured. */
    CHECK(strstr(text, "\"memory_images_per_s\": 5000.0,\n      \"files_images_per_s\": null,\n"
                       "      \"files_vs_memory\": null"), "unmeasured files rate");
    CHECK(strstr(text, "\"memory_images_per_s\": 24712.3,\n      \"files_images_per_s\": 19100.0,\n"
                       "      \"files_vs_memory\": 0.7729"), "rates of device A on ebsd-900");
    CHECK(count(text, "\"memory_images_per_s\": null") == 1, "the failed row's rate");
    CHECK(count(text, "\"fft\": null") == 2 && count(text, "\"fft\": \"vkfft\"") == 4, "fft null when direct");
    CHECK(strstr(text, "{\"name\": \"upload\", \"ms_per_batch\": 0.8, \"bytes_per_batch\": 16000000, "
                       "\"gbytes_per_s\": 20}"), "upload stage with GB/s");
    CHECK(strstr(text, "{\"name\": \"fft forward\", \"ms_per_batch\": 1.5, \"bytes_per_batch\": null, "
                       "\"gbytes_per_s\": null}"), "stage without bytes");
    CHECK(strstr(text, "{\"name\": \"upload\", \"ms_per_batch\": null, \"bytes_per_batch\": 1000000, "
                       "\"gbytes_per_s\": null}"), "stage with an infinite time");
    CHECK(strstr(text, "\"bus_gbs\": null") && strstr(text, "\"memory_peak_gbs\": null"), "NaN and inf as null");
    CHECK(count(text, "\"stages\": []") == 3, "rows without stages");
    CHECK(!contains_nocase(text, "nan") && !contains_nocase(text, "inf"), "nan or inf printed");
    free(text);

    /* No rows, no meta: still one valid document. */
    text = write_text(JSON, NULL, rows, 0, &rc);
    CHECK(rc == 0 && json_ok(text), "empty: %s", text);
    CHECK(strstr(text, "\"clxcorr\": null") && strstr(text, "\"results\": []"), "empty: %s", text);
    free(text);
}

static int column(char header[][CSV_FIELD_SIZE], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(header[i], name) == 0)
            return i;
    CHECK(0, "no column %s", name);
    return 0;
}

static void test_csv(const struct bench_row *rows, size_t n)
{
    int rc;
    char *text = write_text(CSV, &meta, rows, n, &rc);
    CHECK(rc == 0, "status %d", rc);
    CHECK(strstr(text, "\"Acme \"\"Turbo\"\" GPU, R&D\","), "quoted device name");
    CHECK(!contains_nocase(text, "nan") && !contains_nocase(text, "inf"), "nan or inf printed");

    static char header[CSV_FIELDS][CSV_FIELD_SIZE], f[CSV_FIELDS][CSV_FIELD_SIZE];
    const char *p = text;
    int columns = csv_record(&p, header);
    CHECK(columns == 29, "header has %d columns", columns);
    CHECK(strcmp(header[0], "device") == 0 && strcmp(header[28], "error") == 0, "header %s .. %s", header[0],
          header[28]);
    int device = column(header, columns, "device"), files = column(header, columns, "files_images_per_s");
    int memory = column(header, columns, "memory_images_per_s"), ratio = column(header, columns, "files_vs_memory");
    int bus = column(header, columns, "bus_gbs"), error = column(header, columns, "error");
    int ms[6] = {column(header, columns, "upload_ms"),   column(header, columns, "prepare_ms"),
                 column(header, columns, "correlate_ms"), column(header, columns, "peaks_ms"),
                 column(header, columns, "download_ms"), column(header, columns, "other_ms")};
    const double expect_ms[6] = {0.8, 0.3, 3.0, 0.3, 0.1, 0.07};

    size_t records = 0;
    for (; *p; records++) {
        int k = csv_record(&p, f);
        CHECK(k == columns, "record %zu has %d fields", records + 1, k);
        if (k != columns || records >= n)
            break;
        const struct bench_row *r = &rows[records];
        CHECK(strcmp(f[device], r->device) == 0, "record %zu device %s", records + 1, f[device]);
        if (records == 0) {
            for (int c = 0; c < 6; c++)
                CHECK(fabs(strtod(f[ms[c]], NULL) - expect_ms[c]) < 1e-9, "%s is %s", header[ms[c]], f[ms[c]]);
            CHECK(strcmp(f[memory], "24712.3") == 0 && strcmp(f[ratio], "0.7729") == 0, "rates %s %s", f[memory],
                  f[ratio]);
        }
        if (records == 1)
            CHECK(f[files][0] == '\0' && f[ratio][0] == '\0' && f[bus][0] == '\0' && f[ms[0]][0] == '\0',
                  "unmeasured: files '%s' ratio '%s' bus '%s' upload '%s'", f[files], f[ratio], f[bus], f[ms[0]]);
        if (records == 2) {
            CHECK(strcmp(f[error], ERROR_A) == 0, "error %s", f[error]);
            CHECK(f[memory][0] == '\0' && f[ms[2]][0] == '\0', "failed row: '%s' '%s'", f[memory], f[ms[2]]);
        } else {
            CHECK(f[error][0] == '\0', "error '%s'", f[error]);
        }
        if (records == 5)
            CHECK(strcmp(f[ms[2]], "4") == 0 && f[ms[5]][0] == '\0', "direct is correlate: '%s' '%s'", f[ms[2]],
                  f[ms[5]]);
    }
    CHECK(records == n, "%zu records for %zu rows", records, n);
    free(text);
}

static void test_svg(const struct bench_row *rows, size_t n)
{
    int rc;
    char *text = write_text(SVG, &meta, rows, n, &rc);
    const char *problem = xml_problem(text);
    CHECK(rc == 0, "status %d", rc);
    CHECK(strncmp(text, "<svg ", 5) == 0, "starts %.20s", text);
    CHECK(strlen(text) > 7 && strcmp(text + strlen(text) - 7, "</svg>\n") == 0, "ends %s",
          text + (strlen(text) > 20 ? strlen(text) - 20 : 0));
    CHECK(!problem, "not well-formed XML: %s", problem);
    CHECK(strstr(text, "Acme &quot;Turbo&quot; GPU, R&amp;D (Acme OpenCL, driver 1.2.3)"), "legend line");
    CHECK(strstr(text, "CPU Lake (Portable Computing Language, driver 2024.1)"), "legend line");
    CHECK(count(text, "<rect class=\"mem\"") == 5, "%zu memory bars", count(text, "<rect class=\"mem\""));
    CHECK(count(text, "<rect class=\"files\"") == 4, "%zu files bars", count(text, "<rect class=\"files\""));
    CHECK(count(text, "fill=\"url(#hatch0)\"") == 1 && count(text, "fill=\"url(#hatch1)\"") == 3,
          "files bars hatched in their device's colour");
    CHECK(count(text, ">failed [1]</text>") == 1 && count(text, "<g class=\"failed\">") == 1, "failure mark");
    CHECK(strstr(text, "[1] Acme &quot;Turbo&quot; GPU, R&amp;D, piv-32 seed: CL_OUT_OF_RESOURCES"), "note");
    const char *decades[] = {">1</text>", ">10</text>", ">100</text>", ">1k</text>", ">10k</text>", ">100k</text>"};
    for (size_t i = 0; i < sizeof decades / sizeof decades[0]; i++)
        CHECK(count(text, decades[i]) == 1, "axis label %s", decades[i]);
    CHECK(strstr(text, ">24.7k</text>") && strstr(text, ">19.1k</text>") && strstr(text, ">20.5</text>"),
          "values above bars");
    CHECK(count(text, "class=\"group\"") == 3 && strstr(text, ">ebsd-900 seed</text>"), "group labels");
    CHECK(strstr(text, "clxcorr 0.9.0"), "meta line");
    CHECK(strstr(text, "images per second (log scale)"), "title");
    for (const char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 && *c != '\n') {
            CHECK(0, "control character %d in the SVG", *c);
            break;
        }
    free(text);

    /* A row with no rate and no error gets "n/a"; no rows still make a document. */
    struct bench_row one = rows[3];
    one.memory_rate = one.files_rate = -1;
    text = write_text(SVG, NULL, &one, 1, &rc);
    problem = xml_problem(text);
    CHECK(rc == 0 && !problem, "n/a chart: %s", problem);
    CHECK(count(text, ">n/a</text>") == 1 && count(text, "<rect class=\"mem\"") == 0, "n/a mark");
    free(text);
    text = write_text(SVG, NULL, rows, 0, &rc);
    problem = xml_problem(text);
    CHECK(rc == 0 && !problem && strstr(text, "no results"), "empty chart: %s", problem);
    free(text);
}

/* Fields that fill their arrays with no NUL, and bytes that are not UTF-8. */
static void test_odd_strings(const struct bench_row *rows)
{
    struct bench_row r = rows[3];
    memset(r.device, 'x', sizeof r.device);
    snprintf(r.driver, sizeof r.driver, "v\xff" "1");
    int rc;
    char *text = write_text(JSON, &meta, &r, 1, &rc);
    char expect[sizeof r.device + 16];
    snprintf(expect, sizeof expect, "\"%.*s\"", (int)sizeof r.device, r.device);
    CHECK(rc == 0 && json_ok(text), "odd strings: not valid JSON");
    CHECK(strstr(text, expect), "an unterminated field is read to its size");
    CHECK(strstr(text, "\"driver\": \"v\xef\xbf\xbd" "1\""), "a bad byte becomes U+FFFD");
    free(text);
    /* The long name is cut short in the legend; a bad byte in the group label is replaced. */
    snprintf(r.workload, sizeof r.workload, "w\xff");
    text = write_text(SVG, &meta, &r, 1, &rc);
    CHECK(rc == 0 && !xml_problem(text), "odd strings: not well-formed SVG");
    CHECK(strstr(text, "xxxxxxxxxx&#8230;</text>") && strstr(text, ">w\xef\xbf\xbd seed</text>") &&
          !strchr(text, '\xff'), "odd strings in the SVG");
    free(text);
}

/* A stream that cannot be written: each writer says so. */
static void test_write_error(const struct bench_row *rows, size_t n)
{
    const char *path = "test_bench_report.tmp";
    FILE *f = fopen(path, "w");
    CHECK(f && fclose(f) == 0, "cannot create %s", path);
    f = fopen(path, "r");
    if (!f)
        return;
    CHECK(bench_write_json(f, &meta, rows, n) == -1, "JSON to a read-only stream");
    clearerr(f);
    CHECK(bench_write_csv(f, rows, n) == -1, "CSV to a read-only stream");
    clearerr(f);
    CHECK(bench_write_svg(f, &meta, rows, n) == -1, "SVG to a read-only stream");
    fclose(f);
    remove(path);
}

int main(void)
{
    struct bench_row rows[6];
    size_t n = sizeof rows / sizeof rows[0];
    rows_make(rows);
    test_json(rows, n);
    test_csv(rows, n);
    test_svg(rows, n);
    test_odd_strings(rows);
    test_write_error(rows, n);
    if (test_failures)
        printf("%d checks failed\n", test_failures);
    return test_failures ? 1 : 0;
}
