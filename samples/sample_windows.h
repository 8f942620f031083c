/* sample_windows.h - the windows of clxcorr-samples --piv and --dic: one
 * every `step` px across and down from the margin, as many as fit before
 * the far margin, row by row: exactly the windows of
 * `clxcorr offsets --grid-step STEP --window WxH --margin M`. */
#ifndef CLX_SAMPLES_WINDOWS_H
#define CLX_SAMPLES_WINDOWS_H

struct step_grid {
    int width, height;        /* the image */
    int step, win_w, win_h, margin;
};

/* Windows across, down. */
int step_grid_nx(const struct step_grid *g);
int step_grid_ny(const struct step_grid *g);
/* Window k's centre, x0 + (w - 1) / 2 and y0 + (h - 1) / 2. */
void step_grid_centre(const struct step_grid *g, int k, double *x, double *y);
/* regions.txt in dir ("x y w h" per window). 0, or -1 after reporting. */
int step_grid_write(const struct step_grid *g, const char *dir);

#endif
