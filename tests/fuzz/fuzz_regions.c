/*
 * fuzz_regions.c - libFuzzer harness for windows files (clx_regions_read),
 * the window checks (clx_regions_check) and grids (clx_regions_grid).
 *
 * Promises checked on every input:
 *   - a failure leaves no windows and a one-line message naming the file;
 *   - windows read have x, y >= 0 and w, h > 0, and written back as
 *     "x y w h" lines they read back the same;
 *   - clx_regions_check accepts them in their bounding box exactly when they
 *     share one size of at least 2x2, and refuses them in an image one
 *     pixel narrower or lower;
 *   - a grid built from the first window's numbers lies inside its image.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clxcorr.h"
#include "fuzz_file.h"

static void failure_check(const char *what, const char *path, int rc, const clx_message *msg)
{
    if (rc >= 0)
        fuzz_fail("%s: status %d is not an error", what, rc);
    if (path && strncmp(msg->text, path, strlen(path)) != 0)
        fuzz_fail("%s: message does not name the file: \"%s\"", what, msg->text);
    if (!msg->text[0] || strchr(msg->text, '\n') || strchr(msg->text, '\r'))
        fuzz_fail("%s: message is empty or not one line: \"%s\"", what, msg->text);
}

/* Written back in the file's own syntax, the windows must read back the same. */
static void round_trip(const clx_region *regions, size_t count)
{
    size_t cap = count * 48 + 1, used = 0;
    char *text = malloc(cap);
    if (!text)
        fuzz_fail("out of memory");
    for (size_t i = 0; i < count; i++)
        used += (size_t)snprintf(text + used, cap - used, "%d %d %d %d\n", regions[i].x,
                                 regions[i].y, regions[i].w, regions[i].h);
    const char *path = fuzz_file_write((const uint8_t *)text, used);
    free(text);
    clx_region *again;
    size_t n;
    clx_message msg;
    if (clx_regions_read(path, &again, &n, &msg) != CLX_OK)
        fuzz_fail("windows written back do not read: %s", msg.text);
    if (n != count || memcmp(again, regions, count * sizeof *regions) != 0)
        fuzz_fail("windows written back read as other windows (%zu, not %zu)", n, count);
    free(again);
}

static void check_in_box(const clx_region *regions, size_t count)
{
    long long right = 0, bottom = 0;
    int same = 1;
    for (size_t i = 0; i < count; i++) {
        const clx_region *r = &regions[i];
        if (r->x < 0 || r->y < 0 || r->w <= 0 || r->h <= 0)
            fuzz_fail("window %zu read as x=%d y=%d w=%d h=%d", i, r->x, r->y, r->w, r->h);
        if ((long long)r->x + r->w > right)
            right = (long long)r->x + r->w;
        if ((long long)r->y + r->h > bottom)
            bottom = (long long)r->y + r->h;
        same &= r->w == regions[0].w && r->h == regions[0].h;
    }
    if (right > INT_MAX || bottom > INT_MAX)
        return;
    int valid = same && regions[0].w >= 2 && regions[0].h >= 2;
    clx_message msg;
    int rc = clx_regions_check(regions, count, (int)right, (int)bottom, &msg);
    if ((rc == CLX_OK) != valid)
        fuzz_fail("clx_regions_check in the %lldx%lld bounding box: status %d for windows that %s (%s)",
                  right, bottom, rc, valid ? "fit" : "differ in size or are below 2x2", msg.text);
    if (rc != CLX_OK) {
        failure_check("clx_regions_check", NULL, rc, &msg);
        return;
    }
    if (right > 1 && (rc = clx_regions_check(regions, count, (int)right - 1, (int)bottom, &msg)) != CLX_ERR_REGION)
        fuzz_fail("clx_regions_check one pixel narrower than the bounding box: status %d", rc);
    if (bottom > 1 && (rc = clx_regions_check(regions, count, (int)right, (int)bottom - 1, &msg)) != CLX_ERR_REGION)
        fuzz_fail("clx_regions_check one pixel lower than the bounding box: status %d", rc);
}

/* A grid of up to 16x16 windows of the first window's size, with its numbers for the rest. */
static void grid_check(const clx_region *first, size_t count)
{
    int nx = 1 + first->x % 16, ny = 1 + first->y % 16, margin = (int)(count % 8);
    long long width = (long long)first->w + 2 * margin + first->x / 16 % 1024;
    long long height = (long long)first->h + 2 * margin + first->y / 16 % 1024;
    if (width > INT_MAX || height > INT_MAX)
        return;
    clx_region *grid;
    size_t n;
    clx_message msg;
    int rc = clx_regions_grid(nx, ny, first->w, first->h, margin, (int)width, (int)height, &grid, &n, &msg);
    if (first->w < 2 || first->h < 2) {
        if (rc != CLX_ERR_REGION)
            fuzz_fail("grid of %dx%d windows: status %d, not CLX_ERR_REGION", first->w, first->h, rc);
        failure_check("clx_regions_grid", NULL, rc, &msg);
        return;
    }
    if (rc != CLX_OK)
        fuzz_fail("grid %dx%d of %dx%d windows, margin %d, in %lldx%lld: %s", nx, ny, first->w, first->h,
                  margin, width, height, msg.text);
    if (n != (size_t)nx * ny)
        fuzz_fail("grid %dx%d has %zu windows", nx, ny, n);
    rc = clx_regions_check(grid, n, (int)width, (int)height, &msg);
    if (rc != CLX_OK)
        fuzz_fail("grid %dx%d of %dx%d windows, margin %d, in %lldx%lld: %s", nx, ny, first->w, first->h,
                  margin, width, height, msg.text);
    for (size_t i = 0; i < n; i++)
        if (grid[i].x < margin || grid[i].y < margin || (long long)grid[i].x + grid[i].w > width - margin
            || (long long)grid[i].y + grid[i].h > height - margin)
            fuzz_fail("grid window %zu (x=%d y=%d) is in the margin of %d", i, grid[i].x, grid[i].y, margin);
    free(grid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    clx_region *regions = (clx_region *)1;
    size_t count = 1;
    clx_message msg;
    int rc = clx_regions_read(path, &regions, &count, &msg);
    if (rc != CLX_OK) {
        failure_check("clx_regions_read", path, rc, &msg);
        if (regions || count)
            fuzz_fail("clx_regions_read failed but gave %zu windows", count);
        if (fuzz_reporting())
            printf("%s: %s\n", clx_status_name(rc), msg.text + strlen(path));
        return 0;
    }
    if (count == 0 || !regions)
        fuzz_fail("clx_regions_read succeeded without windows");
    if (fuzz_reporting())
        printf("%zu windows, the first x=%d y=%d w=%d h=%d\n", count, regions[0].x, regions[0].y,
               regions[0].w, regions[0].h);
    check_in_box(regions, count);
    grid_check(&regions[0], count);
    round_trip(regions, count);
    free(regions);
    return 0;
}
