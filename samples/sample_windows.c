/* sample_windows.c - the step grid's windows (sample_windows.h). */
#include "sample_files.h"
#include "sample_windows.h"

int step_grid_nx(const struct step_grid *g)
{
    return (g->width - 2 * g->margin - g->win_w) / g->step + 1;
}

int step_grid_ny(const struct step_grid *g)
{
    return (g->height - 2 * g->margin - g->win_h) / g->step + 1;
}

static void corner(const struct step_grid *g, int k, int *x, int *y)
{
    *x = g->margin + (k % step_grid_nx(g)) * g->step;
    *y = g->margin + (k / step_grid_nx(g)) * g->step;
}

void step_grid_centre(const struct step_grid *g, int k, double *x, double *y)
{
    int x0, y0;
    corner(g, k, &x0, &y0);
    *x = x0 + 0.5 * (g->win_w - 1);
    *y = y0 + 0.5 * (g->win_h - 1);
}

int step_grid_write(const struct step_grid *g, const char *dir)
{
    char tmp[PATH_BYTES], final[PATH_BYTES];
    FILE *f = text_create(dir, "regions.txt", tmp, final);
    if (!f)
        return -1;
    fprintf(f, "# clxcorr-samples windows: x y w h (top-left corner and size, pixels)\n");
    fprintf(f, "# %d x %d windows of %d x %d every %d px in a %d x %d image, margin %d\n", step_grid_nx(g),
            step_grid_ny(g), g->win_w, g->win_h, g->step, g->width, g->height, g->margin);
    for (int k = 0; k < step_grid_nx(g) * step_grid_ny(g); k++) {
        int x, y;
        corner(g, k, &x, &y);
        fprintf(f, "%d %d %d %d\n", x, y, g->win_w, g->win_h);
    }
    return text_commit(f, tmp, final);
}
