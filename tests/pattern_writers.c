/* pattern_writers.c - small EBSD pattern files for the tests (pattern_writers.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern_writers.h"

void buf_bytes(struct byte_buf *b, const void *bytes, size_t n)
{
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->size + n)
            cap *= 2;
        unsigned char *grown = realloc(b->data, cap);
        if (!grown) {
            fprintf(stderr, "pattern_writers: out of memory\n");
            exit(99);
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
}

void buf_u8(struct byte_buf *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    buf_bytes(b, &c, 1);
}

void buf_u32(struct byte_buf *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        buf_u8(b, (v >> (8 * i)) & 0xff);
}

void buf_i64(struct byte_buf *b, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        buf_u8(b, (unsigned)(u >> (8 * i)) & 0xff);
}

void buf_f64(struct byte_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    buf_i64(b, (int64_t)u);
}

void buf_text(struct byte_buf *b, const char *text)
{
    buf_bytes(b, text, strlen(text));
}

void buf_put_u32(struct byte_buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

void buf_put_i64(struct byte_buf *b, size_t at, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (unsigned char)(u >> (8 * i));
}

int buf_save(const struct byte_buf *b, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = b->size ? fwrite(b->data, 1, b->size, f) : 0;
    return fclose(f) == 0 && n == b->size ? 0 : -1;
}

void buf_free(struct byte_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

unsigned pw_pixel(int page, int x, int y, int bits)
{
    if (bits == 8)
        return (unsigned)(page * 37 + x * 5 + y * 11) & 0xffu;
    /* Both bytes vary, so that a byte-order mistake shows. */
    return (unsigned)(page * 4099 + x * 263 + y * 1031 + 17) & 0xffffu;
}

void pw_pattern(struct byte_buf *b, int page, int width, int height, int bits)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            unsigned v = pw_pixel(page, x, y, bits);
            buf_u8(b, v & 0xff);
            if (bits == 16)
                buf_u8(b, v >> 8);
        }
}

/* ---- EDAX UP1/UP2 ----------------------------------------------------------- */

void up_build(struct byte_buf *b, const struct up_spec *s)
{
    buf_u32(b, s->version);
    buf_u32(b, (uint32_t)s->width);
    buf_u32(b, (uint32_t)s->height);
    buf_u32(b, s->version == 1 ? 16 : 42);
    if (s->version != 1) {
        buf_u8(b, 1);   /* "extraPatterns", as kikuchipy's dummy files have it */
        buf_u32(b, s->cols);
        buf_u32(b, s->rows);
        buf_u8(b, (unsigned)s->hexagonal);
        buf_f64(b, s->step_x);
        buf_f64(b, s->step_y);
    }
    for (int p = 0; p < s->patterns; p++)
        pw_pattern(b, p, s->width, s->height, s->bits);
}

/* ---- Oxford .ebsp ----------------------------------------------------------- */

size_t ebsp_table_at(int version)
{
    return version == 0 ? 0 : version < 4 ? 8 : 9;
}

size_t ebsp_record_header(int version)
{
    return version >= 5 ? 24 : 16;
}

static size_t ebsp_footer_size(const struct ebsp_spec *s)
{
    return s->version == 0 ? 0 : s->version == 1 ? 16 : s->positions ? 18 : 1;
}

static void ebsp_record(struct byte_buf *b, const struct ebsp_spec *s, int point)
{
    int row = point / s->cols, col = point % s->cols, bytes = s->width * s->height * s->bits / 8;
    if (s->version >= 5) {
        buf_u32(b, (uint32_t)col);
        buf_u32(b, (uint32_t)row);
    }
    buf_u32(b, 0);   /* not compressed */
    buf_u32(b, (uint32_t)s->height);
    buf_u32(b, (uint32_t)s->width);
    buf_u32(b, (uint32_t)bytes);
    pw_pattern(b, point, s->width, s->height, s->bits);
    if (s->version == 1) {
        buf_f64(b, col * s->step);
        buf_f64(b, row * s->step);
    } else if (s->version >= 2 && s->positions) {
        buf_u8(b, 1);
        buf_f64(b, col * s->step);
        buf_u8(b, 1);
        buf_f64(b, row * s->step);
    } else if (s->version >= 2) {
        buf_u8(b, 0);
    }
}

void ebsp_build(struct byte_buf *b, const struct ebsp_spec *s)
{
    int n = s->rows * s->cols;
    size_t record = ebsp_record_header(s->version) + (size_t)(s->width * s->height * s->bits / 8) +
                    ebsp_footer_size(s);
    if (s->version > 0)
        buf_i64(b, -(int64_t)s->version);
    if (s->version >= 4)
        buf_u8(b, 0);   /* the byte of unknown meaning */
    size_t first = ebsp_table_at(s->version) + 8 * (size_t)n;
    /* The file slot of each point: in order, or point 0 in the last slot. */
    int slot = 0;
    int *slot_of = malloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; k++) {
        int point = s->point0_last ? (k + 1) % n : k;
        if (point != s->missing)
            slot_of[point] = slot++;
    }
    for (int p = 0; p < n; p++)
        buf_i64(b, p == s->missing ? 0 : (int64_t)(first + (size_t)slot_of[p] * record));
    for (int k = 0; k < n; k++) {
        int point = s->point0_last ? (k + 1) % n : k;
        if (point != s->missing)
            ebsp_record(b, s, point);
    }
    free(slot_of);
}

/* ---- NORDIF Setting.txt ----------------------------------------------------- */

static void line(struct byte_buf *b, const char *key, const char *value, const char *unit)
{
    if (!value)
        return;
    buf_text(b, key);
    buf_text(b, "\t");
    buf_text(b, value);
    buf_text(b, "\t");
    buf_text(b, unit);
    buf_text(b, "\r\n");
}

static void section(struct byte_buf *b, const char *name)
{
    buf_text(b, "\t\t\r\n");
    buf_text(b, name);
    buf_text(b, "\t\t\r\n");
}

void nordif_settings_build(struct byte_buf *b, const struct nordif_spec *s)
{
    const char *in = s->resolution_section ? s->resolution_section : "[Acquisition settings]";
    int acquisition = strcmp(in, "[Acquisition settings]") == 0, calibration = strcmp(in, "[Calibration settings]") == 0;
    buf_text(b, "[NORDIF]\t\t\r\nSoftware version\t3.1.2\t\r\n");
    /* Other sections have a Resolution too, and come first: each key must be found in its own. */
    section(b, "[Electron image]");
    line(b, "Resolution", "1024x768", "px");
    section(b, "[Microscope]");
    line(b, "Manufacturer", "Zeiss", "");
    line(b, "Accelerating voltage", "20", "kV");
    line(b, "A line kikuchipy does not know", "1", "");
    line(b, "Tilt angle", s->tilt, "\xb0");
    section(b, "[Detector angles]");
    line(b, "Azimuthal", s->azimuthal, "\xb0");
    line(b, "Elevation", s->elevation, "\xb0");
    section(b, "[Calibration settings]");
    line(b, "Resolution", calibration ? s->resolution : "7x5", "px");
    section(b, "[Acquisition settings]");
    line(b, "Frame rate", "100", "fps");
    line(b, "Resolution", acquisition ? s->resolution : NULL, "px");
    line(b, "Exposure time", "9000", "\xb5s");
    section(b, "[Area]");
    line(b, "Top", "89.200 (223)", "\xb5m (px)");
    line(b, "Step size", s->step, "\xb5m");
    line(b, "Number of samples", s->samples, "#");
    buf_text(b, "\t\t\r\n");
}
