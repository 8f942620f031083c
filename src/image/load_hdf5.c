/*
 * load_hdf5.c - EBSD pattern containers in HDF5 (an image_format backend):
 * h5ebsd as kikuchipy, EDAX OIM and Bruker Esprit write it, Oxford's H5OINA
 * and EMsoft's EBSD output. Which layout a file has, and what its header
 * says, is h5ebsd_headers.c's; this file opens the file, chooses the scan,
 * checks the header against the pattern dataset and reads patterns.
 *
 * Reading is made for runs of 100,000 patterns, from several loader
 * threads on one open file, and HDF5 serialises every call (its
 * thread-safe build holds one global lock), so the readers call it as
 * little as they can:
 *   - a contiguous, unfiltered dataset of 8- or 16-bit pixels (what
 *     acquisition software writes) is read with pread at the pattern's
 *     offset in the file, in parallel and with no copy;
 *   - a dataset chunked one pattern per chunk, unfiltered or LZF (kikuchipy,
 *     H5OINA), asks HDF5 only where the chunk lies, then preads it and
 *     decodes the LZF in the loader thread, in parallel;
 *   - anything else (gzip, other chunk shapes, other types) goes through
 *     H5Dread, serialised, with a chunk cache large enough that patterns
 *     read in order decompress each chunk once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "image/h5ebsd_headers.h"
#include "image/hdf5_read.h"
#include "image/loaders.h"
#include "image/lzf_filter.h"
#include "runtime/message.h"

/* The chunk cache of a chunked pattern dataset: this many chunks, within these bounds. */
#define CACHE_CHUNKS 64
#define CACHE_MIN_BYTES ((size_t)16 << 20)
#define CACHE_MAX_BYTES ((size_t)1 << 30)
/* Hash slots of the chunk cache: a prime well above the chunks it holds. */
#define CACHE_SLOTS 12421

static const unsigned char hdf5_magic[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

struct hdf5_file {
    hid_t file, scan, patterns;       /* the scan is the root for layouts without scan groups */
    const struct h5ebsd_layout *layout;
    char scan_name[128], dataset[160]; /* for messages: "Scan 1", "EBSD/Data/Pattern" */
    clx_pixel_type type;              /* what the patterns read as */
    int floats;                       /* they are stored as floating point */
    char stored[40];                  /* their stored type where it is not h->type's (clx_image_file's stored) */
    int width, height;
    hsize_t count;                    /* patterns in the dataset */
    int *entry_of_page;               /* the dataset entry of each page (Bruker ROIs); NULL: the page's index */
    enum { READ_H5DREAD, READ_CONTIGUOUS, READ_CHUNKS } path;   /* how patterns are read (see above) */
    int lzf;                          /* READ_CHUNKS: the chunks are LZF-compressed */
    int fd;                           /* the file, for READ_CONTIGUOUS and READ_CHUNKS */
    off_t offset;                     /* READ_CONTIGUOUS: the data's offset in the file */
    size_t pattern_bytes;             /* one stored pattern */
};

/* Without HDF5's thread-safe build, every HDF5 call of the readers is serialised here. */
static pthread_mutex_t unsafe_lock = PTHREAD_MUTEX_INITIALIZER;

static int library_threadsafe(void)
{
    hbool_t safe = 0;
    return H5is_library_threadsafe(&safe) >= 0 && safe;
}

/* ---- probe ----------------------------------------------------------------- */

static int has_container_name(const char *path)
{
    static const char *const endings[] = { ".h5", ".hdf5", ".h5ebsd", ".h5oina", ".oh5", ".he5" };
    size_t n = path ? strlen(path) : 0;
    for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++) {
        size_t m = strlen(endings[i]);
        if (n > m && strcasecmp(path + n - m, endings[i]) == 0)
            return 1;
    }
    return 0;
}

static int hdf5_probe(const char *path, const unsigned char *head, size_t length)
{
    if (length >= sizeof hdf5_magic && memcmp(head, hdf5_magic, sizeof hdf5_magic) == 0)
        return 1;
    /* A user block puts the signature at 512, 1024, ... bytes: ask HDF5, for container names only. */
    if (!has_container_name(path))
        return 0;
    struct h5_quiet q;
    h5_quiet_begin(&q);
    htri_t is = H5Fis_hdf5(path);
    h5_quiet_end(&q);
    return is > 0;
}

/* ---- open ------------------------------------------------------------------ */

static int h5_fail(clx_message *msg, int status, const char *path, const char *what)
{
    char why[512];
    h5_last_error(why, sizeof why);
    return msg_fail(msg, status, "%s: %s%s%s", path, what, why[0] ? ": " : "", why);
}

/* The layout whose Manufacturer the root names, else EMsoft's by its header group or its pattern dataset. */
static const struct h5ebsd_layout *layout_find(hid_t file, char *manufacturer, size_t len)
{
    manufacturer[0] = '\0';
    if (h5_root_string(file, "Manufacturer", manufacturer, len) == 0) {
        for (int i = 0; h5ebsd_layouts[i]; i++)
            if (h5ebsd_layouts[i]->manufacturer && strcasecmp(h5ebsd_layouts[i]->manufacturer, manufacturer) == 0)
                return h5ebsd_layouts[i];
    }
    for (int i = 0; h5ebsd_layouts[i]; i++)
        if (!h5ebsd_layouts[i]->manufacturer &&
            ((h5ebsd_layouts[i]->marker && h5_exists(file, h5ebsd_layouts[i]->marker)) ||
             h5_exists(file, h5ebsd_layouts[i]->patterns)))
            return h5ebsd_layouts[i];
    return NULL;
}

/* "A, B and C" of a list of names, into buf. */
static void join_names(char **names, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s'%s'", i == 0 ? "" : i + 1 == n ? " and " : ", ",
                                 names[i]);
}

/*
 * The scan group to read: `wanted`, or the only group that holds the
 * layout's pattern dataset. Sets h->scan, h->scan_name and h->dataset.
 */
static int scan_choose(struct hdf5_file *h, const char *path, const char *wanted, clx_message *msg)
{
    const struct h5ebsd_layout *l = h->layout;
    /* "an EDAX h5 file", "a Bruker h5 file" */
    const char *article = strchr("AEIOU", l->format[0]) ? "an" : "a";
    if (!l->manufacturer) {
        /* One scan, at the root. */
        if (!h5_exists(h->file, l->patterns))
            return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s %s file without patterns: it has %s but no %s", path, article,
                            l->format, l->marker, l->patterns);
        snprintf(h->dataset, sizeof h->dataset, "%s", l->patterns);
        h->scan = H5Gopen2(h->file, "/", H5P_DEFAULT);
        return h->scan < 0 ? h5_fail(msg, CLX_ERR_FORMAT, path, "cannot open the root group") : CLX_OK;
    }
    char **names = NULL, list[512];
    size_t n = 0;
    const char *dataset = l->patterns;
    if (h5_groups_holding(h->file, dataset, &names, &n) == 0 && n == 0 && l->patterns_alt) {
        h5_names_free(names, n);
        dataset = l->patterns_alt;
        if (h5_groups_holding(h->file, dataset, &names, &n) != 0)
            return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
    }
    if (n == 0) {
        h5_names_free(names, n);
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s %s file without patterns: no top-level group holds %s%s%s", path,
                        article, l->format, l->patterns, l->patterns_alt ? " or " : "",
                        l->patterns_alt ? l->patterns_alt : "");
    }
    join_names(names, n, list, sizeof list);
    size_t chosen = n;
    for (size_t i = 0; wanted && i < n; i++)
        if (strcmp(names[i], wanted) == 0)
            chosen = i;
    int status = CLX_OK;
    if (wanted && chosen == n)
        status = msg_fail(msg, CLX_ERR_ARGUMENT, "%s has no scan '%s' with patterns; its scans: %s", path, wanted,
                          list);
    else if (!wanted && n > 1)
        status = msg_fail(msg, CLX_ERR_ARGUMENT, "%s holds %zu scans (%s): choose one with --scan NAME", path, n,
                          list);
    else {
        if (!wanted)
            chosen = 0;
        snprintf(h->scan_name, sizeof h->scan_name, "%s", names[chosen]);
        snprintf(h->dataset, sizeof h->dataset, "%s", dataset);
        h->scan = H5Gopen2(h->file, names[chosen], H5P_DEFAULT);
        if (h->scan < 0)
            status = h5_fail(msg, CLX_ERR_FORMAT, path, "cannot open the scan group");
    }
    h5_names_free(names, n);
    return status;
}

/* The pattern type a dataset's elements read as, and whether pread can take them as they are. */
static int pixel_type_of(hid_t type, clx_pixel_type *out, int *as_stored)
{
    H5T_class_t class = H5Tget_class(type);
    size_t size = H5Tget_size(type);
    int unsigned_int = class == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE;
    if (class != H5T_INTEGER && class != H5T_FLOAT)
        return -1;
    /* Numbers of the sizes C has, whose bits fit: HDF5 1.10 accepts a damaged
     * type of 200 bytes for 8 bits and then overruns converting it. */
    size_t precision = H5Tget_precision(type);
    if (class == H5T_INTEGER ? size != 1 && size != 2 && size != 4 && size != 8 : size != 4 && size != 8)
        return -1;
    if (precision == 0 || precision > 8 * size)
        return -1;
    *out = unsigned_int && size == 1 ? CLX_PIXEL_U8 : unsigned_int && size == 2 ? CLX_PIXEL_U16 : CLX_PIXEL_F32;
    *as_stored = (*out == CLX_PIXEL_U8 && H5Tequal(type, H5T_NATIVE_UCHAR) > 0) ||
                 (*out == CLX_PIXEL_U16 && H5Tequal(type, H5T_NATIVE_USHORT) > 0);
    return 0;
}

/* What a dataset's elements are where they read as another type (see
 * clx_image_file's stored): "32-bit signed integer", "64-bit float"; "" for
 * 8/16-bit unsigned and 32-bit float, which read as they are. */
static void stored_name(hid_t type, char *buf, size_t len)
{
    H5T_class_t class = H5Tget_class(type);
    size_t bits = 8 * H5Tget_size(type);
    int is_signed = class == H5T_INTEGER && H5Tget_sign(type) != H5T_SGN_NONE;
    if ((class == H5T_FLOAT && bits == 32) || (class == H5T_INTEGER && !is_signed && bits <= 16))
        buf[0] = '\0';
    else
        snprintf(buf, len, "%zu-bit %s", bits, class == H5T_FLOAT ? "float" : is_signed ? "signed integer"
                                                                             : "unsigned integer");
}

/* A chunk cache that holds CACHE_CHUNKS of the dataset's chunks (none for contiguous data). */
static hid_t access_list(hid_t dcpl, size_t element)
{
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    hsize_t chunk[3];
    if (dapl < 0 || H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 3, chunk) != 3)
        return dapl;
    size_t bytes = (size_t)chunk[0] * chunk[1] * chunk[2] * element * CACHE_CHUNKS;
    bytes = bytes < CACHE_MIN_BYTES ? CACHE_MIN_BYTES : bytes > CACHE_MAX_BYTES ? CACHE_MAX_BYTES : bytes;
    H5Pset_chunk_cache(dapl, CACHE_SLOTS, bytes, 1.0);
    return dapl;
}

/*
 * How the patterns of a dataset (dims: count, height, width) are read: in
 * place where they are stored as they read (as_stored) and either lie one
 * after another (*offset set) or one to a chunk, unfiltered or with LZF
 * alone (*lzf set); else through H5Dread.
 */
static int read_path_of(hid_t dataset, hid_t dcpl, int as_stored, const hsize_t dims[3], off_t *offset, int *lzf)
{
    int filters = H5Pget_nfilters(dcpl);
    *offset = -1;
    *lzf = 0;
    if (!as_stored || filters < 0)
        return READ_H5DREAD;
    if (H5Pget_layout(dcpl) == H5D_CONTIGUOUS) {
        haddr_t at = H5Dget_offset(dataset);
        if (filters != 0 || at == HADDR_UNDEF)
            return READ_H5DREAD;
        *offset = (off_t)at;
        return READ_CONTIGUOUS;
    }
#if H5_VERSION_GE(1, 10, 5)
    hsize_t chunk[3];
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 3, chunk) != 3 || chunk[0] != 1 ||
        chunk[1] != dims[1] || chunk[2] != dims[2] || filters > 1)
        return READ_H5DREAD;
    if (filters == 1) {
        unsigned flags = 0;
        size_t nvalues = 0;
        if (H5Pget_filter2(dcpl, 0, &flags, &nvalues, NULL, 0, NULL, NULL) != (H5Z_filter_t)LZF_FILTER_ID)
            return READ_H5DREAD;
        *lzf = 1;
    }
    return READ_CHUNKS;
#else
    (void)dims;
    return READ_H5DREAD;   /* H5Dget_chunk_info_by_coord came with HDF5 1.10.5 */
#endif
}

/* Opens the pattern dataset: its size and type, and the pread path where the data allows it. */
static int patterns_open(struct hdf5_file *h, const char *path, clx_message *msg)
{
    hid_t probe = H5Dopen2(h->scan, h->dataset, H5P_DEFAULT);
    if (probe < 0)
        return h5_fail(msg, CLX_ERR_FORMAT, path, h->dataset);
    hid_t dcpl = H5Dget_create_plist(probe), type = H5Dget_type(probe), space = H5Dget_space(probe);
    hsize_t dims[3];
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1, as_stored = 0, status = CLX_OK;
    if (rank == 3)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (rank != 3 || dims[0] < 1)
        status = msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s: expected patterns (count, height, width), found a "
                          "dataset of rank %d", path, h->scan_name, h->scan_name[0] ? "/" : "", h->dataset, rank);
    else if (pixel_type_of(type, &h->type, &as_stored) != 0)
        status = msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s does not hold numbers of 1 to 8 bytes", path, h->scan_name,
                          h->scan_name[0] ? "/" : "", h->dataset);
    else if ((status = image_size_check(path, "pattern", (long long)dims[2], (long long)dims[1], msg)) == CLX_OK) {
        h->count = dims[0];
        h->floats = H5Tget_class(type) == H5T_FLOAT;
        stored_name(type, h->stored, sizeof h->stored);
        h->height = (int)dims[1];
        h->width = (int)dims[2];
        h->pattern_bytes = (size_t)h->width * h->height * H5Tget_size(type);
        h->path = read_path_of(probe, dcpl, as_stored, dims, &h->offset, &h->lzf);
        hid_t dapl = access_list(dcpl, H5Tget_size(type));
        h->patterns = H5Dopen2(h->scan, h->dataset, dapl);
        if (dapl >= 0)
            H5Pclose(dapl);
        if (h->patterns < 0)
            status = h5_fail(msg, CLX_ERR_FORMAT, path, h->dataset);
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(probe);
    if (status == CLX_OK && h->path != READ_H5DREAD && (h->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        h->path = READ_H5DREAD;
    return status;
}

/* An array of 3 values per entry in the order of pages (entry_of_page), or NULL. */
static double *by_page(const double *per_entry, const int *entry_of_page, size_t n)
{
    if (!per_entry)
        return NULL;
    double *out = malloc(sizeof *out * 3 * n);
    for (size_t p = 0; out && p < n; p++)
        memcpy(out + 3 * p, per_entry + 3 * (size_t)(entry_of_page ? entry_of_page[p] : (int)p), 3 * sizeof *out);
    return out;
}

/* The header checked against the dataset, and the scan and per-page arrays made from it. */
static int header_apply(clx_image_file *file, struct hdf5_file *h, struct h5ebsd_header *hd, clx_message *msg)
{
    const char *path = file->path, *sep = h->scan_name[0] ? ": " : "";
    size_t n = (size_t)h->count;
    if (hd->problem[0])
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s", path, h->scan_name, sep, hd->problem);
    if (hd->width && hd->width != h->width)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s says patterns %lld wide but %s holds %dx%d", path,
                        h->scan_name, sep, hd->width_from, hd->width, h->dataset, h->width, h->height);
    if (hd->height && hd->height != h->height)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s says patterns %lld high but %s holds %dx%d", path,
                        h->scan_name, sep, hd->height_from, hd->height, h->dataset, h->width, h->height);
    if (hd->info.rows > 0 && (size_t)hd->info.rows * hd->info.cols != n)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s and %s say a scan of %d x %d points but %s holds %zu "
                        "patterns", path, h->scan_name, sep, hd->rows_from, hd->cols_from, hd->info.rows,
                        hd->info.cols, h->dataset, n);
    if (hd->position) {
        if (!(h->entry_of_page = malloc(sizeof(int) * n)))
            return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
        for (size_t j = 0; j < n; j++)
            h->entry_of_page[hd->position[j]] = (int)j;
    }
    file->scan = hd->info;
    snprintf(file->scan.format, sizeof file->scan.format, "%s", h->layout->format);
    snprintf(file->scan.scan, sizeof file->scan.scan, "%s", h->scan_name);
    file->pattern_centres = by_page(hd->pattern_centres, h->entry_of_page, n);
    file->euler = by_page(hd->euler, h->entry_of_page, n);
    if ((hd->pattern_centres && !file->pattern_centres) || (hd->euler && !file->euler))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
    if (file->pattern_centres) {
        file->scan.pcx = file->pattern_centres[0];
        file->scan.pcy = file->pattern_centres[1];
        file->scan.pcz = file->pattern_centres[2];
    } else if (file->scan.has_pc) {
        /* One centre for the scan: every page has it. */
        if (!(file->pattern_centres = malloc(sizeof(double) * 3 * n)))
            return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", path);
        for (size_t p = 0; p < n; p++) {
            file->pattern_centres[3 * p] = file->scan.pcx;
            file->pattern_centres[3 * p + 1] = file->scan.pcy;
            file->pattern_centres[3 * p + 2] = file->scan.pcz;
        }
    }
    file->pages = (int)n;
    return CLX_OK;
}

static void hdf5_close(clx_image_file *file);

static int hdf5_open(clx_image_file *file, const char *scan, clx_message *msg)
{
    struct h5_quiet q;
    struct h5ebsd_header hd;
    char manufacturer[128];
    int status;

    struct hdf5_file *h = calloc(1, sizeof *h);
    if (!h)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", file->path);
    h->file = h->scan = h->patterns = -1;
    h->fd = -1;
    file->handle = h;
    lzf_filter_register();
    if (!library_threadsafe())
        pthread_mutex_lock(&unsafe_lock);
    h5_quiet_begin(&q);
    memset(&hd, 0, sizeof hd);
    if ((h->file = H5Fopen(file->path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        status = h5_fail(msg, CLX_ERR_FORMAT, file->path, "cannot be read as HDF5");
    else if (!(h->layout = layout_find(h->file, manufacturer, sizeof manufacturer)))
        status = msg_fail(msg, CLX_ERR_FORMAT,
                          "%s: an HDF5 file, but no EBSD pattern container clxcorr reads (%s%s%s; it reads h5ebsd "
                          "from kikuchipy, EDAX and Bruker Nano, Oxford Instruments H5OINA and EMsoft's EBSD output)",
                          file->path, manufacturer[0] ? "Manufacturer '" : "no Manufacturer",
                          manufacturer, manufacturer[0] ? "'" : "");
    else if ((status = scan_choose(h, file->path, scan, msg)) == CLX_OK &&
             (status = patterns_open(h, file->path, msg)) == CLX_OK) {
        image_scan_init(&hd.info, h->layout->format);
        h->layout->header(h->scan, (size_t)h->count, h->width, h->height, &hd);
        status = header_apply(file, h, &hd, msg);
        snprintf(file->stored, sizeof file->stored, "%s", h->stored);
    }
    h5ebsd_header_free(&hd);
    h5_quiet_end(&q);
    if (!library_threadsafe())
        pthread_mutex_unlock(&unsafe_lock);
    if (status != CLX_OK)
        hdf5_close(file);
    return status;
}

/* ---- read ------------------------------------------------------------------ */

/* Reads bytes [at, at + n) of the file into buf for pattern `entry` (pread; any thread). */
static int read_at(clx_image_file *file, struct hdf5_file *h, hsize_t entry, off_t at, void *buf, size_t n,
                   clx_message *msg)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(h->fd, (char *)buf + done, n - done, at + (off_t)done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return msg_fail(msg, got < 0 ? CLX_ERR_IO : CLX_ERR_FORMAT, "%s: %s%s%s: pattern %llu %s", file->path,
                            h->scan_name, h->scan_name[0] ? "/" : "", h->dataset, (unsigned long long)entry,
                            got < 0 ? strerror(errno) : "lies past the end of the file (truncated?)");
        done += (size_t)got;
    }
    return CLX_OK;
}

/* Pattern `entry` of contiguous data straight from the file into dst's pixels. */
static int pattern_pread(clx_image_file *file, struct hdf5_file *h, hsize_t entry, clx_image *dst, clx_message *msg)
{
    off_t at = h->offset + (off_t)entry * (off_t)h->pattern_bytes;
    int status = read_at(file, h, entry, at, dst->pixels, h->pattern_bytes, msg);
    if (status == CLX_OK && dst->type != h->type)
        image_widen(dst, h->type);
    return status;
}

static int pattern_h5read(clx_image_file *file, struct hdf5_file *h, hsize_t entry, clx_image *dst, clx_message *msg);

#if H5_VERSION_GE(1, 10, 5)
/*
 * Pattern `entry`, one chunk of its own: HDF5 says where the chunk lies (the
 * only call under its lock), then this thread reads it and, where it is
 * LZF, decodes it into dst's pixels. A chunk never written holds the fill
 * value: HDF5 reads that one.
 */
static int pattern_chunk(clx_image_file *file, struct hdf5_file *h, hsize_t entry, clx_image *dst, clx_message *msg)
{
    hsize_t coord[3] = { entry, 0, 0 }, stored = 0;
    haddr_t at = HADDR_UNDEF;
    unsigned skipped = 0;   /* bit 0 set: the LZF filter was skipped for this chunk (it did not compress) */
    struct h5_quiet q;
    int safe = library_threadsafe();
    if (!safe)
        pthread_mutex_lock(&unsafe_lock);
    h5_quiet_begin(&q);
    herr_t found = H5Dget_chunk_info_by_coord(h->patterns, coord, &skipped, &at, &stored);
    h5_quiet_end(&q);
    if (!safe)
        pthread_mutex_unlock(&unsafe_lock);
    if (found < 0 || at == HADDR_UNDEF)
        return pattern_h5read(file, h, entry, dst, msg);
    int status;
    if (!h->lzf || (skipped & 1)) {
        status = stored == h->pattern_bytes ? read_at(file, h, entry, (off_t)at, dst->pixels, h->pattern_bytes, msg)
                 : msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s: pattern %llu is stored in %llu bytes, not %zu", file->path,
                            h->scan_name, h->scan_name[0] ? "/" : "", h->dataset, (unsigned long long)entry,
                            (unsigned long long)stored, h->pattern_bytes);
    } else {
        unsigned char *packed = stored > 0 && stored <= 2 * h->pattern_bytes ? malloc((size_t)stored) : NULL;
        int too_small = 0;
        if (!packed)
            status = stored > 0 && stored <= 2 * h->pattern_bytes
                     ? msg_fail(msg, CLX_ERR_HOST_MEMORY, "%s: out of memory", file->path)
                     : msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s: pattern %llu has a chunk of %llu bytes", file->path,
                                h->scan_name, h->scan_name[0] ? "/" : "", h->dataset, (unsigned long long)entry,
                                (unsigned long long)stored);
        else if ((status = read_at(file, h, entry, (off_t)at, packed, (size_t)stored, msg)) == CLX_OK &&
                 lzf_decode(packed, (size_t)stored, dst->pixels, h->pattern_bytes, &too_small) != h->pattern_bytes)
            status = msg_fail(msg, CLX_ERR_FORMAT, "%s: %s%s%s: pattern %llu: its LZF data is damaged", file->path,
                              h->scan_name, h->scan_name[0] ? "/" : "", h->dataset, (unsigned long long)entry);
        free(packed);
    }
    if (status == CLX_OK && dst->type != h->type)
        image_widen(dst, h->type);
    return status;
}
#endif

/* Pattern `entry` through HDF5, converted to dst's type. */
static int pattern_h5read(clx_image_file *file, struct hdf5_file *h, hsize_t entry, clx_image *dst, clx_message *msg)
{
    hsize_t start[3] = { entry, 0, 0 }, count[3] = { 1, (hsize_t)h->height, (hsize_t)h->width };
    hsize_t plane[2] = { (hsize_t)h->height, (hsize_t)h->width };
    struct h5_quiet q;
    int status = CLX_OK, safe = library_threadsafe();
    if (!safe)
        pthread_mutex_lock(&unsafe_lock);
    h5_quiet_begin(&q);
    hid_t mtype = dst->type == CLX_PIXEL_U8 ? H5T_NATIVE_UCHAR : dst->type == CLX_PIXEL_U16 ? H5T_NATIVE_USHORT
                                                                                             : H5T_NATIVE_FLOAT;
    hid_t fspace = H5Dget_space(h->patterns), mspace = H5Screate_simple(2, plane, NULL);
    if (fspace < 0 || mspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dread(h->patterns, mtype, mspace, fspace, H5P_DEFAULT, dst->pixels) < 0) {
        char what[400];
        snprintf(what, sizeof what, "%s%s%s: pattern %llu cannot be read", h->scan_name, h->scan_name[0] ? "/" : "",
                 h->dataset, (unsigned long long)entry);
        status = h5_fail(msg, CLX_ERR_FORMAT, file->path, what);
    }
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    h5_quiet_end(&q);
    if (!safe)
        pthread_mutex_unlock(&unsafe_lock);
    return status;
}

static int hdf5_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg)
{
    struct hdf5_file *h = file->handle;
    int status = image_fit_check(file, page, h->width, h->height, h->type, dst, msg);
    if (status != CLX_OK)
        return status;
    hsize_t entry = h->entry_of_page ? (hsize_t)h->entry_of_page[page] : (hsize_t)page;
    switch (h->path) {
    case READ_CONTIGUOUS:
        return pattern_pread(file, h, entry, dst, msg);
#if H5_VERSION_GE(1, 10, 5)
    case READ_CHUNKS:
        return pattern_chunk(file, h, entry, dst, msg);
#endif
    default:
        status = pattern_h5read(file, h, entry, dst, msg);
        /* Floats as a float TIFF's are: a NaN would spread through the
         * pre-filter into the windows around it (and a float64 beyond
         * float's range reads as an infinity). Integers are always finite. */
        return status == CLX_OK && h->floats ? image_finite_check(file, page, dst, msg) : status;
    }
}

static int hdf5_read(clx_image_file *file, int page, clx_image *image, clx_message *msg)
{
    struct hdf5_file *h = file->handle;
    int status = image_make(file->path, h->width, h->height, h->type, image, msg);
    return status == CLX_OK ? hdf5_read_into(file, page, image, msg) : status;
}

static void hdf5_close(clx_image_file *file)
{
    struct hdf5_file *h = file->handle;
    if (!h)
        return;
    int safe = library_threadsafe();
    if (!safe)
        pthread_mutex_lock(&unsafe_lock);
    if (h->patterns >= 0)
        H5Dclose(h->patterns);
    if (h->scan >= 0)
        H5Gclose(h->scan);
    if (h->file >= 0)
        H5Fclose(h->file);
    if (!safe)
        pthread_mutex_unlock(&unsafe_lock);
    if (h->fd >= 0)
        close(h->fd);
    free(h->entry_of_page);
    free(h);
    file->handle = NULL;
}

const struct image_format image_format_hdf5 = {
    .name = "HDF5 pattern container",
    .probe = hdf5_probe,
    .open = hdf5_open,
    .read = hdf5_read,
    .read_into = hdf5_read_into,
    .close = hdf5_close,
    .shared_reads = 1,
};
