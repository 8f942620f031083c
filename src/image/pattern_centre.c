/* pattern_centre.c - vendors' pattern centres in Bruker's convention (pattern_centre.h). */
#include "config.h"

#include "image/pattern_centre.h"

const char *pc_convention_name(enum pc_convention c)
{
    switch (c) {
    case PC_BRUKER: return "Bruker";
    case PC_TSL: return "TSL";
    case PC_OXFORD: return "Oxford";
    case PC_EMSOFT5: return "EMsoft";
    case PC_EMSOFT4: return "EMsoft 4";
    }
    return "?";
}

void pc_to_bruker(enum pc_convention from, const double in[3], int width, int height, int binning, double pixel_size,
                  double out[3])
{
    double w = width, h = height, b = binning > 0 ? binning : 1;
    switch (from) {
    case PC_BRUKER:
        out[0] = in[0];
        out[1] = in[1];
        out[2] = in[2];
        return;
    case PC_TSL:
        out[0] = in[0];
        out[1] = 1 - in[1];
        out[2] = in[2] * (w < h ? w : h) / h;
        return;
    case PC_OXFORD:
        out[0] = in[0];
        out[1] = 1 - in[1] * w / h;
        out[2] = in[2] * w / h;
        return;
    case PC_EMSOFT5:
    case PC_EMSOFT4:
        out[0] = from == PC_EMSOFT5 ? 0.5 - in[0] / (w * b) : 0.5 + in[0] / (w * b);
        out[1] = 0.5 - in[1] / (h * b);
        out[2] = in[2] / (h * b * pixel_size);
        return;
    }
}
