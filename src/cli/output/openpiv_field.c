/* openpiv_field.c - one image's field in openpiv.tools.save's text layout,
 * in OpenPIV's axes (field_output.h says which and why). */
#include "config.h"

#include <math.h>

#include "output/csv_output.h"
#include "output/field_output.h"

int openpiv_field_write(FILE *f, const struct field_output_shape *shape, const clx_result *results)
{
    const clx_region *regions = shape->regions;
    double y_min = INFINITY, y_max = -INFINITY;
    for (size_t w = 0; w < shape->nregions; w++) {
        double y = regions[w].y + (regions[w].h - 1) / 2.0;
        y_min = y < y_min ? y : y_min;
        y_max = y > y_max ? y : y_max;
    }
    fputs("# x\ty\tu\tv\tflags\tmask\n", f);
    for (size_t w = 0; w < shape->nregions; w++) {
        const clx_result *r = &results[w];
        int masked = (r->flags & ROW_FLAG_MASKED) != 0;
        int invalid = (r->flags & ~ROW_FLAG_MASKED) != 0;
        double x = regions[w].x + (regions[w].w - 1) / 2.0;
        double y = y_min + y_max - (regions[w].y + (regions[w].h - 1) / 2.0);
        /* OpenPIV fills masked vectors with 0; -0.0 would print as such. */
        double u = masked ? 0.0 : r->dx, v = masked ? 0.0 : 0.0 - r->dy;
        fprintf(f, "%.6e\t%.6e\t%.6e\t%.6e\t%.6e\t%.6e\n", x, y, u, v, (double)invalid, (double)masked);
    }
    return ferror(f) ? -1 : 0;
}
