/*
 * lzf_filter.h - HDF5 filter 32000 (LZF), decompression only (internal).
 *
 * Oxford's H5OINA files of format versions 5 to 7 store their patterns
 * LZF-compressed (h5py's LZF filter), which libhdf5 does not decode by
 * itself. Where no plugin provides it, clxcorr registers its own decoder.
 */
#ifndef CLX_LZF_FILTER_H
#define CLX_LZF_FILTER_H

#include <stddef.h>

/* h5py's registered filter number for LZF. */
#define LZF_FILTER_ID 32000

/* Registers the decoder with HDF5 unless filter 32000 is available already
 * (once per process; any thread). */
void lzf_filter_register(void);

/*
 * Decodes LZF data: in[0 .. in_len) into out[0 .. out_len). Returns the
 * decoded length, or 0 when out is too small (*too_small set) or the data
 * is not valid LZF (*too_small clear).
 */
size_t lzf_decode(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len, int *too_small);

#endif
