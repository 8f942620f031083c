/*
 * fuzz_patterns.h - how fuzz_patterns.c turns one input into pattern files
 * (shared with pattern_seeds.c, which writes its seeds).
 *
 * The binary pattern files are known by their names, so the first byte of
 * an input chooses the name (modulo PATTERN_KINDS), and the rest is the
 * file. For NORDIF the rest is split in two: a u16 (little-endian) length,
 * that many bytes of Setting.txt, and Pattern.dat.
 */
#ifndef CLX_FUZZ_PATTERNS_H
#define CLX_FUZZ_PATTERNS_H

enum pattern_kind {
    PATTERN_UP1,            /* patterns.up1 */
    PATTERN_UP2,            /* patterns.up2 */
    PATTERN_EBSP,           /* patterns.ebsp */
    PATTERN_NORDIF,         /* Setting.txt and Pattern.dat */
    PATTERN_NORDIF_ALONE,   /* Pattern.dat without a Setting.txt */
    PATTERN_KINDS
};

#endif
