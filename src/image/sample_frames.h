/*
 * sample_frames.h - crystal orientations written in a vendor's sample
 * frame, taken into the one clxcorr reports in: kikuchipy's and orix's,
 * EDAX TSL's RD-TD-ND (internal; doc/hrebsd-conventions.md has the table).
 */
#ifndef CLX_IMAGE_SAMPLE_FRAMES_H
#define CLX_IMAGE_SAMPLE_FRAMES_H

/* Bunge angles (radians) in Oxford Instruments' or Bruker's sample frame,
 * in place: kikuchipy's conversion (its reference-frames tutorial), the
 * orientation g * R with R a rotation of -90 degrees about z, which is phi1
 * + 90 degrees, kept in [0, 2 pi). NaN angles (a point not indexed) stay. */
void euler_from_bruker_oxford_frame(double euler[3]);

#endif
