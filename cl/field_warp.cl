/*
 * field_warp.cl - images deformed by a displacement field, for the deforming
 * multi-pass (src/pipeline/multipass.c): out(x) = image(x + scale d(x)),
 * d the image's field given on a regular grid and interpolated bicubically
 * (Catmull-Rom, edge values held beyond the grid, as
 * src/ops/displacement_field.c's field_at does on the host), the image
 * sampled with interp.h's kernel (the B-splines: on its coefficients).
 * With scale -1/2 for frame A and +1/2 for frame B, a feature that moved
 * by d lies at the same place in both outputs (symmetric deformation).
 *
 * src, out: nimages w x h images of reals; fields: per image 2 nx ny reals
 * (u row by row, then v); grid point (i, j) at (x0 + i sx, y0 + j sy).
 * NDRange: global (w, h, nimages) rounded up.
 */
#include "common.h"
#include "interp.h"

static void catmull_rom(real t, real *w)
{
    const real t2 = t * t, t3 = t2 * t;
    w[0] = (real)0.5 * (-t3 + 2 * t2 - t);
    w[1] = (real)0.5 * (3 * t3 - 5 * t2 + 2);
    w[2] = (real)0.5 * (-3 * t3 + 4 * t2 + t);
    w[3] = (real)0.5 * (t3 - t2);
}

__kernel void field_warp(__global const real *src, int w, int h, __global const real *fields, int nx, int ny,
                         real x0, real y0, real sx, real sy, real scale, __global real *out)
{
    const int x = get_global_id(0), y = get_global_id(1), img = get_global_id(2);
    if (x >= w || y >= h)
        return;
    __global const real *fu = fields + (size_t)img * 2 * nx * ny, *fv = fu + nx * ny;
    real gx = nx > 1 ? (x - x0) / sx : 0, gy = ny > 1 ? (y - y0) / sy : 0;
    gx = clamp(gx, (real)0, (real)(nx - 1));
    gy = clamp(gy, (real)0, (real)(ny - 1));
    const int i0 = (int)floor(gx), j0 = (int)floor(gy);
    real wx[4], wy[4], u = 0, v = 0;
    catmull_rom(gx - i0, wx);
    catmull_rom(gy - j0, wy);
    for (int b = 0; b < 4; b++) {
        const int j = clamp(j0 - 1 + b, 0, ny - 1);
        for (int a = 0; a < 4; a++) {
            const int k = j * nx + clamp(i0 - 1 + a, 0, nx - 1);
            u += wx[a] * wy[b] * fu[k];
            v += wx[a] * wy[b] * fv[k];
        }
    }
    /* The image sampled where the field moves this pixel (interp.h). */
    __global const real *image = src + (size_t)img * w * h;
    out[(size_t)img * w * h + (size_t)y * w + x] = sample_at(image, w, h, x + scale * u, y + scale * v);
}
