/* field_output.c - one field file per image: names, whole files, the grid (see field_output.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/field_output.h"

struct field_output {
    char *path;
    struct field_output_shape shape;
    struct field_grid grid;              /* vtk */
};

int field_output_path(const char *path, size_t images, size_t index, char *buf, size_t len)
{
    int n;
    if (images == 1)
        n = snprintf(buf, len, "%s", path);
    else {
        const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
        size_t stem = dot && dot > (slash ? slash : path) ? (size_t)(dot - path) : strlen(path);
        n = snprintf(buf, len, "%.*s_%04zu%s", (int)stem, path, index + 1, path + stem);
    }
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct values of n ints, sorted, into values (n of room); their count. */
static size_t distinct(int *values, size_t n)
{
    size_t k = 0;
    qsort(values, n, sizeof *values, compare_ints);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || values[k - 1] != values[i])
            values[k++] = values[i];
    return k;
}

static size_t position_of(const int *values, size_t n, int v)
{
    const int *at = bsearch(&v, values, n, sizeof *values, compare_ints);
    return (size_t)(at - values);
}

int field_grid_detect(const clx_region *regions, size_t n, struct field_grid *grid)
{
    int *xs = malloc((n ? n : 1) * sizeof *xs), *ys = malloc((n ? n : 1) * sizeof *ys);
    int status = -1;
    memset(grid, 0, sizeof *grid);
    if (!xs || !ys || n == 0)
        goto done;
    for (size_t w = 0; w < n; w++) {
        xs[w] = regions[w].x;
        ys[w] = regions[w].y;
    }
    grid->nx = distinct(xs, n);
    grid->ny = distinct(ys, n);
    if (grid->nx * grid->ny != n || !(grid->grid_at = malloc(n * sizeof *grid->grid_at)))
        goto done;
    for (size_t c = 0; c < n; c++)
        grid->grid_at[c] = n;
    for (size_t w = 0; w < n; w++) {
        size_t c = position_of(ys, grid->ny, regions[w].y) * grid->nx + position_of(xs, grid->nx, regions[w].x);
        if (grid->grid_at[c] != n)
            goto done;      /* two windows at one corner: not a grid */
        grid->grid_at[c] = w;
    }
    status = 0;
done:
    if (status != 0) {
        free(grid->grid_at);
        grid->grid_at = NULL;
    }
    free(xs);
    free(ys);
    return status;
}

int field_output_open(struct field_output **out, const char *path, const struct field_output_shape *shape,
                      clx_message *msg)
{
    struct field_output *o = calloc(1, sizeof *o);
    *out = NULL;
    if (!o || !(o->path = strdup(path))) {
        free(o);
        snprintf(msg->text, sizeof msg->text, "out of memory");
        return CLX_ERR_HOST_MEMORY;
    }
    o->shape = *shape;
    if (shape->format->kind == ROW_FORMAT_VTK && field_grid_detect(shape->regions, shape->nregions, &o->grid) != 0) {
        snprintf(msg->text, sizeof msg->text,
                 "--format vtk writes windows on a full grid (--grid, --grid-step, or a windows file laid out so); "
                 "these %zu windows are not one: write csv", shape->nregions);
        field_output_close(o);
        return CLX_ERR_ARGUMENT;
    }
    *out = o;
    return CLX_OK;
}

int field_output_image(struct field_output *o, size_t index, const char *name, const clx_result *results,
                       clx_message *msg)
{
    char final[4096];
    if (field_output_path(o->path, o->shape.images, index, final, sizeof final) != 0) {
        snprintf(msg->text, sizeof msg->text, "%.200s: the file name is too long", o->path);
        return CLX_ERR_ARGUMENT;
    }
    /* Made in memory, then written whole by clx_output (a temporary renamed
     * over the name when complete): an earlier file of the name stays until
     * this one is whole. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(msg->text, sizeof msg->text, "%.900s: out of host memory", final);
        return CLX_ERR_HOST_MEMORY;
    }
    int written = o->shape.format->kind == ROW_FORMAT_VTK
                      ? vtk_field_write(f, &o->grid, &o->shape, name, results)
                      : openpiv_field_write(f, &o->shape, results);
    int failed = fclose(f) != 0 || written != 0;
    int status = failed ? (snprintf(msg->text, sizeof msg->text, "%.900s: out of host memory", final),
                           CLX_ERR_HOST_MEMORY)
                        : clx_output_write_file(final, text, len, msg);
    free(text);
    return status;
}

void field_output_close(struct field_output *o)
{
    if (!o)
        return;
    free(o->grid.grid_at);
    free(o->path);
    free(o);
}
