/*
 * vtk_field.c - one image's field as a VTK legacy file (field_output.h):
 * binary, because the legacy format's ASCII form has no portable way to
 * write nan (VTK's own reader parses numbers with iostreams), and masked or
 * unreadable windows are nan.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "output/field_output.h"

/* The legacy format's binary data is big-endian, whatever the host. */
static void put_big_endian(FILE *f, const void *value, size_t size)
{
    const unsigned char *bytes = value;
    unsigned char out[8];
    const uint16_t probe = 1;
    int little = *(const unsigned char *)&probe == 1;
    for (size_t i = 0; i < size; i++)
        out[i] = bytes[little ? size - 1 - i : i];
    fwrite(out, 1, size, f);
}

static void put_double(FILE *f, double v)
{
    put_big_endian(f, &v, sizeof v);
}

static void put_int(FILE *f, int32_t v)
{
    put_big_endian(f, &v, sizeof v);
}

/* The columns that go to SCALARS arrays: all chosen but the image's name,
 * the points' coordinates, the displacement's (the VECTORS) and the scan's. */
static int is_scalar(enum row_column c)
{
    return c != ROW_COLUMN_IMAGE && c != ROW_COLUMN_X && c != ROW_COLUMN_Y && c != ROW_COLUMN_DX &&
           c != ROW_COLUMN_DY && (c < ROW_COLUMN_SCAN_ROW || c > ROW_COLUMN_SCAN_Y);
}

static int is_integer(enum row_column c)
{
    return c == ROW_COLUMN_REGION || c == ROW_COLUMN_FLAGS || c == ROW_COLUMN_ITERATIONS;
}

/* Column c's value for window w. */
static double column_value(enum row_column c, size_t w, const clx_result *r)
{
    double e[3];
    switch (c) {
    case ROW_COLUMN_REGION: return (double)w;
    case ROW_COLUMN_PEAK: return r->peak;
    case ROW_COLUMN_FLAGS: return r->flags;
    case ROW_COLUMN_ZNCC: return r->zncc;
    case ROW_COLUMN_PEAK_RATIO: return r->peak_ratio;
    case ROW_COLUMN_ITERATIONS: return r->iterations;
    case ROW_COLUMN_ZNSSD: return r->znssd;
    case ROW_COLUMN_SIGMA_DX: return r->sigma_dx;
    case ROW_COLUMN_SIGMA_DY: return r->sigma_dy;
    case ROW_COLUMN_DUDX: return r->dudx;
    case ROW_COLUMN_DUDY: return r->dudy;
    case ROW_COLUMN_DVDX: return r->dvdx;
    case ROW_COLUMN_DVDY: return r->dvdy;
    case ROW_COLUMN_EXX:
    case ROW_COLUMN_EYY:
    case ROW_COLUMN_EXY:
        row_green_lagrange(r, e);
        return e[c - ROW_COLUMN_EXX];
    default: return 0.0;
    }
}

/* The title line: the image's name, on one line of at most 255 bytes. */
static void put_title(FILE *f, const char *name)
{
    char title[256];
    snprintf(title, sizeof title, "clxcorr offsets: %s", name);
    for (char *p = title; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(f, "%s\n", title);
}

int vtk_field_write(FILE *f, const struct field_grid *grid, const struct field_output_shape *shape,
                    const char *name, const clx_result *results)
{
    size_t n = grid->nx * grid->ny;
    const clx_region *regions = shape->regions;
    fputs("# vtk DataFile Version 3.0\n", f);
    put_title(f, name);
    fprintf(f, "BINARY\nDATASET STRUCTURED_GRID\nDIMENSIONS %zu %zu 1\nPOINTS %zu double\n", grid->nx, grid->ny, n);
    for (size_t p = 0; p < n; p++) {
        const clx_region *r = &regions[grid->grid_at[p]];
        put_double(f, r->x + (r->w - 1) / 2.0);
        put_double(f, r->y + (r->h - 1) / 2.0);
        put_double(f, 0.0);
    }
    fprintf(f, "\nPOINT_DATA %zu\nVECTORS displacement double\n", n);
    for (size_t p = 0; p < n; p++) {
        put_double(f, results[grid->grid_at[p]].dx);
        put_double(f, results[grid->grid_at[p]].dy);
        put_double(f, 0.0);
    }
    fputc('\n', f);
    for (size_t k = 0; k < shape->format->ncolumns; k++) {
        enum row_column c = shape->format->columns[k];
        if (!is_scalar(c))
            continue;
        fprintf(f, "SCALARS %s %s 1\nLOOKUP_TABLE default\n", row_column_name(c), is_integer(c) ? "int" : "double");
        for (size_t p = 0; p < n; p++) {
            double v = column_value(c, grid->grid_at[p], &results[grid->grid_at[p]]);
            if (is_integer(c))
                put_int(f, (int32_t)v);
            else
                put_double(f, v);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
