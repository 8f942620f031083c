/* sample_frames.c - vendors' orientations in kikuchipy's sample frame (sample_frames.h). */
#include "config.h"

#include <math.h>

#include "image/sample_frames.h"

void euler_from_bruker_oxford_frame(double euler[3])
{
    if (!isfinite(euler[0]))
        return;
    double phi1 = fmod(euler[0] + M_PI / 2, 2 * M_PI);
    euler[0] = phi1 < 0 ? phi1 + 2 * M_PI : phi1;
}
