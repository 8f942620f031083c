/*
 * test_outliers.c - grid detection and the normalised median test
 * (src/ops/outliers.c): a smooth field with noise keeps every vector, so does a
 * strongly strained and rotated one (the border windows too), a spurious
 * vector is flagged and only it (a wild one too, which must not tilt the
 * trend the test runs on), neighbours without offsets are left out,
 * and windows that do not form a grid are recognised as such.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ops/outliers.h"
#include "test_data.h"

#define NX 7
#define NY 5

int main(void)
{
    clx_region regions[NX * NY];
    clx_result results[NX * NY];
    struct window_grid grid;
    uint64_t seed = 3;

    /* Windows listed column by column, to check the grid is found by position. */
    for (int i = 0; i < NX * NY; i++) {
        int gx = i / NY, gy = i % NY;
        regions[i] = (clx_region){ 10 + 40 * gx, 5 + 30 * gy, 32, 32 };
    }
    CHECK(window_grid_detect(regions, NX * NY, &grid) == 0 && grid.nx == NX && grid.ny == NY, "a 7 x 5 grid");
    for (int gy = 0; gy < NY; gy++)
        for (int gx = 0; gx < NX; gx++)
            CHECK(regions[grid.region_at[gy * NX + gx]].x == 10 + 40 * gx &&
                      regions[grid.region_at[gy * NX + gx]].y == 5 + 30 * gy,
                  "grid cell (%d, %d)", gx, gy);

    /* A smooth field (a shift plus a gradient) with 0.02 px noise: nothing flagged. */
    for (int i = 0; i < NX * NY; i++) {
        results[i] = (clx_result){ 0 };
        results[i].dx = 1.5 + 0.01 * regions[i].x + 0.02 * (td_uniform(&seed) - 0.5);
        results[i].dy = -0.7 + 0.005 * regions[i].y + 0.02 * (td_uniform(&seed) - 0.5);
    }
    outliers_flag(&grid, regions, results);
    int flagged = 0;
    for (int i = 0; i < NX * NY; i++)
        flagged += (results[i].flags & CLX_FLAG_OUTLIER) != 0;
    CHECK(flagged == 0, "a smooth field: %d vectors flagged", flagged);

    /* A homogeneous strain and rotation far steeper than the test's epsilon
     * between neighbours (0.4 px per grid step), plus noise: nothing flagged,
     * border windows included. */
    for (int i = 0; i < NX * NY; i++) {
        double x = regions[i].x, y = regions[i].y;
        results[i].flags = 0;
        results[i].dx = 2 + 0.01 * x - 0.008 * y + 0.02 * (td_uniform(&seed) - 0.5);
        results[i].dy = -1 + 0.006 * x + 0.012 * y + 0.02 * (td_uniform(&seed) - 0.5);
    }
    outliers_flag(&grid, regions, results);
    flagged = 0;
    for (int i = 0; i < NX * NY; i++)
        flagged += (results[i].flags & CLX_FLAG_OUTLIER) != 0;
    CHECK(flagged == 0, "a strained, rotated field: %d vectors flagged", flagged);

    /* One spurious vector in the interior, one on an edge, one in a corner. */
    int bad[3] = { grid.region_at[2 * NX + 3], grid.region_at[0 * NX + 4], grid.region_at[(NY - 1) * NX + NX - 1] };
    results[bad[0]].dx += 3;
    results[bad[1]].dy -= 0.8;
    results[bad[2]].dx -= 5;
    /* A neighbour without an offset is left out of its neighbours' tests. */
    int missing = grid.region_at[3 * NX + 1];
    results[missing].dx = results[missing].dy = NAN;
    outliers_flag(&grid, regions, results);
    flagged = 0;
    for (int i = 0; i < NX * NY; i++) {
        int expected = i == bad[0] || i == bad[1] || i == bad[2];
        int is = (results[i].flags & CLX_FLAG_OUTLIER) != 0;
        flagged += is;
        CHECK(is == expected, "window %d (x=%d y=%d): flagged %d, expected %d", i, regions[i].x, regions[i].y, is,
              expected);
    }
    printf("normalised median test: %d of %d flagged (the 3 spurious ones)\n", flagged, NX * NY);
    window_grid_release(&grid);

    /* A 4 x 3 grid, strained, with one wild vector (12 px off): only it is
     * flagged; a plain least-squares trend, tilted by it, flagged a column. */
    clx_region small[12];
    clx_result few[12];
    for (int i = 0; i < 12; i++) {
        small[i] = (clx_region){ 12 + 52 * (i % 4), 12 + 56 * (i / 4), 40, 40 };
        few[i] = (clx_result){ 0 };
        few[i].dx = 0.37 + 0.002 * small[i].x + 0.005 * (td_uniform(&seed) - 0.5);
        few[i].dy = -1.62 - 0.002 * small[i].y + 0.005 * (td_uniform(&seed) - 0.5);
    }
    few[5].dx = -11.6;
    few[5].dy = 7.9;
    CHECK(window_grid_detect(small, 12, &grid) == 0, "a 4 x 3 grid");
    outliers_flag(&grid, small, few);
    for (int i = 0; i < 12; i++)
        CHECK(((few[i].flags & CLX_FLAG_OUTLIER) != 0) == (i == 5), "4 x 3 grid, window %d: flags %u", i,
              few[i].flags);
    window_grid_release(&grid);

    /* Not grids: a missing window, a stray one, two at one corner. */
    CHECK(window_grid_detect(regions, NX * NY - 1, &grid) != 0, "a grid with a window missing is no grid");
    clx_region odd[4] = { { 0, 0, 8, 8 }, { 10, 0, 8, 8 }, { 0, 10, 8, 8 }, { 13, 11, 8, 8 } };
    CHECK(window_grid_detect(odd, 4, &grid) != 0, "scattered windows are no grid");
    clx_region twice[4] = { { 0, 0, 8, 8 }, { 10, 0, 8, 8 }, { 0, 10, 8, 8 }, { 0, 10, 8, 8 } };
    CHECK(window_grid_detect(twice, 4, &grid) != 0, "two windows at one corner are no grid");
    clx_region one[1] = { { 4, 4, 8, 8 } };
    CHECK(window_grid_detect(one, 1, &grid) == 0 && grid.nx == 1, "one window is a 1 x 1 grid");
    window_grid_release(&grid);

    printf("%s (%d failures)\n", test_failures ? "FAILED" : "passed", test_failures);
    return test_failures ? 1 : 0;
}
