/*
 * h5ebsd_headers.h - the layouts of the EBSD HDF5 containers clxcorr reads,
 * and what each one's header says (internal; load_hdf5.c opens the files).
 *
 * Where the layouts come from: kikuchipy's readers (its io/plugins for h5ebsd and
 * emsoft_ebsd), checked against PyEBSDIndex, EbsdLib and Oxford's H5OINA
 * specification; doc/ebsd-offsets.md, "EBSD pattern files", lists what is read.
 */
#ifndef CLX_H5EBSD_HEADERS_H
#define CLX_H5EBSD_HEADERS_H

#include <stddef.h>
#include <hdf5.h>
#include "clxcorr.h"

/* What a scan's header gives, before load_hdf5.c checks it against the
 * pattern dataset. Per-entry arrays follow the file's order of patterns. */
struct h5ebsd_header {
    clx_scan_info info;        /* grid (rows, cols), steps, geometry; format and scan set by the caller */
    long long height, width;   /* the pattern size the header gives; 0: it gives none */
    /* The datasets that gave the grid and the pattern size, for messages. */
    const char *rows_from, *cols_from, *height_from, *width_from;
    double *pattern_centres;   /* 3 per entry, in clxcorr's (Bruker's) convention; NULL: one or none */
    double *euler;             /* 3 per entry, radians; NULL: none */
    int *position;             /* per entry, its scan position (row * cols + col); NULL: the entry's index */
    char problem[512];         /* why the header cannot be used ("" when it can) */
};

struct h5ebsd_layout {
    const char *format;        /* clx_scan_info.format */
    const char *manufacturer;  /* the root's Manufacturer, case ignored; NULL: recognised at the root by `marker` */
    const char *marker;        /* a group only this layout has, at the root, with or without its patterns */
    const char *patterns;      /* the pattern dataset, under a scan group (or the root) */
    const char *patterns_alt;  /* read when `patterns` is absent (H5OINA's unprocessed patterns); NULL */
    /* Reads the header of `scan` for `entries` patterns of width x height
     * pixels into h (zeroed, info initialised). 0, or -1 with h->problem. */
    int (*header)(hid_t scan, size_t entries, int width, int height, struct h5ebsd_header *h);
};

/* The layouts, NULL-terminated. */
extern const struct h5ebsd_layout *const h5ebsd_layouts[];

void h5ebsd_header_free(struct h5ebsd_header *h);

#endif
