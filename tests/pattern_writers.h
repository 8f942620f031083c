/*
 * pattern_writers.h - small EBSD pattern files written byte by byte, for
 * the tests (test_pattern_files.c) and the fuzzer's seeds
 * (tests/fuzz/pattern_seeds.c): EDAX UP1/UP2, Oxford .ebsp and NORDIF, in
 * every layout the readers accept, from the published descriptions of the
 * formats (kikuchipy, PyEBSDIndex), not from the readers' code.
 *
 * Every pixel has a known value (pw_pixel), so that what is read back can
 * be checked pixel by pixel. Files are built in memory first (struct
 * byte_buf), so that a caller can alter any byte before writing them.
 */
#ifndef CLX_PATTERN_WRITERS_H
#define CLX_PATTERN_WRITERS_H

#include <stddef.h>
#include <stdint.h>

struct byte_buf {
    unsigned char *data;
    size_t size, cap;
};

void buf_bytes(struct byte_buf *b, const void *bytes, size_t n);
void buf_u8(struct byte_buf *b, unsigned v);
void buf_u32(struct byte_buf *b, uint32_t v);
void buf_i64(struct byte_buf *b, int64_t v);
void buf_f64(struct byte_buf *b, double v);
void buf_text(struct byte_buf *b, const char *text);
/* Overwrites 4 or 8 little-endian bytes at `at` (for damaged variants). */
void buf_put_u32(struct byte_buf *b, size_t at, uint32_t v);
void buf_put_i64(struct byte_buf *b, size_t at, int64_t v);
/* Writes the buffer as the whole of `path`: 0, or -1. */
int buf_save(const struct byte_buf *b, const char *path);
void buf_free(struct byte_buf *b);

/* Pixel (x, y) of pattern `page`, on `bits` (8 or 16) bits. */
unsigned pw_pixel(int page, int x, int y, int bits);
/* Appends pattern `page`, little-endian. */
void pw_pattern(struct byte_buf *b, int page, int width, int height, int bits);

/* An EDAX UP file: version 1 (16-byte header) or 3 and later (42 bytes). */
struct up_spec {
    uint32_t version;
    int bits;                   /* 8: UP1, 16: UP2 */
    int width, height;
    uint32_t cols, rows;        /* version >= 3 */
    int hexagonal;
    double step_x, step_y;
    int patterns;               /* written after the header */
};
void up_build(struct byte_buf *b, const struct up_spec *s);

/* An Oxford .ebsp file of `rows x cols` points in scan order. */
struct ebsp_spec {
    int version;                /* 0 to 5 */
    int bits;                   /* 8 or 16 */
    int width, height;
    int cols, rows;
    double step;                /* beam positions: column x step, row x step (µm) */
    int positions;              /* versions 2 to 5: footers with positions (else PyEBSDIndex's one 0 byte) */
    int missing;                /* the point whose table entry is 0 (no record), or -1 */
    int point0_last;            /* records in the order 1, 2, ..., 0, as AZtec stores them */
};
void ebsp_build(struct byte_buf *b, const struct ebsp_spec *s);
/* Where the table starts, and how long a record's header is, for a version. */
size_t ebsp_table_at(int version);
size_t ebsp_record_header(int version);

/*
 * NORDIF's Setting.txt, in NORDIF 3.1's layout (Latin-1, CRLF, the units
 * µ and ° as single bytes). Each value may be NULL to leave its line out;
 * `resolution_section` names the section the acquisition Resolution is in.
 */
struct nordif_spec {
    const char *resolution;     /* "WxH" */
    const char *resolution_section;
    const char *samples;        /* "ROWSxCOLS" */
    const char *step, *tilt, *elevation, *azimuthal;
};
void nordif_settings_build(struct byte_buf *b, const struct nordif_spec *s);

#endif
