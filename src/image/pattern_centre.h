/*
 * pattern_centre.h - the pattern centre in the one convention clxcorr
 * reports, from each vendor's (internal).
 *
 * clxcorr's convention is Bruker's, which kikuchipy also uses: PCx is the
 * distance of the pattern centre from the pattern's left edge over its
 * width, PCy from its top edge over its height, PCz the detector distance
 * over its height, in the stored (binned) pattern's pixels. The others
 * differ in their origin and in what they divide by; the conversions are
 * kikuchipy's (kikuchipy.detectors.EBSDDetector, _pc_*2bruker), checked
 * against its test values in tests/test_containers.c.
 */
#ifndef CLX_PATTERN_CENTRE_H
#define CLX_PATTERN_CENTRE_H

enum pc_convention {
    PC_BRUKER,      /* (PCx, PCy, PCz) as above */
    PC_TSL,         /* EDAX/TSL (x*, y*, z*): y* from the bottom over the height, z* over min(width, height) */
    PC_OXFORD,      /* Oxford (x, y, z): all over the width, y from the bottom */
    PC_EMSOFT5,     /* EMsoft 5 (xpc, ypc, L): pixels from the centre, x right, y up; L in µm */
    PC_EMSOFT4      /* EMsoft 4: the same with x pointing left */
};

/* The convention's name, as clx_scan_info.pc_convention gives it. */
const char *pc_convention_name(enum pc_convention c);

/*
 * One pattern centre `in` of convention `from` in clxcorr's (Bruker's), for
 * patterns of width x height stored pixels; the EMsoft conventions also
 * need the binning and the unbinned pixel size in µm.
 */
void pc_to_bruker(enum pc_convention from, const double in[3], int width, int height, int binning, double pixel_size,
                  double out[3]);

#endif
