/*
 * clxcorr.h - the public C API of libclxcorr.
 *
 * libclxcorr measures how subregions ("windows") of images move relative to a
 * reference image. For every image and window it cross-correlates the window
 * of the image with the same window of the reference on an OpenCL device,
 * finds the correlation peak, refines it to sub-pixel accuracy and reports
 * the offset (dx, dy): the position of a feature in the image minus its
 * position in the reference.
 *
 * A typical program:
 *
 *     clx_context *ctx;
 *     clx_message msg;
 *     clx_context_options copt;
 *     clx_context_options_init(&copt);            // default device
 *     if (clx_context_open(&copt, &ctx, &msg) != CLX_OK) { puts(msg.text); ... }
 *
 *     clx_plan_options popt;
 *     clx_plan_options_init(&popt);
 *     clx_plan *plan;
 *     if (clx_plan_create(ctx, &reference, regions, nregions, &popt, &plan) != CLX_OK)
 *         puts(clx_context_message(ctx));
 *
 *     for each group of at most clx_plan_batch_size(plan) images:
 *         clx_plan_push(plan, images, n);         // upload and enqueue
 *         clx_plan_read(plan, results, n * nregions);  // wait, fit, fill
 *
 *     clx_plan_release(plan);
 *     clx_context_release(ctx);
 *
 * Errors: every function that can fail returns an int status, CLX_OK (0) on
 * success and a negative clx_status otherwise. Functions that work on a
 * context keep a one-line description of the last error in it
 * (clx_context_message); functions without a context fill a clx_message the
 * caller passes (NULL is allowed). The library never prints.
 *
 * Threads: a context and its plans may be used by one thread at a time.
 * Different contexts may be used from different threads at once.
 *
 * Lifetimes: release every plan and filter before the context it was made
 * on. The library keeps a table of the contexts, plans and filters it has
 * handed out, so misuse is refused instead of crashing: a NULL one gives
 * CLX_ERR_ARGUMENT, and one that was released already (or never came from
 * the library) gives CLX_ERR_STATE, without being read (getters answer 0,
 * NULL or ""; a second release does nothing). A context released with plans
 * or filters still open releases them too, with a warning in its log. What
 * cannot be caught: a stale pointer to an object whose address a new object
 * of the same kind has been given since.
 *
 * Linking: `pkg-config --cflags --libs clxcorr` (add --static for
 * libclxcorr.a); samples/api_example.c is a whole program.
 */
#ifndef CLXCORR_H
#define CLXCORR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes and messages                                                 */
/* ------------------------------------------------------------------------ */

typedef enum clx_status {
    CLX_OK = 0,
    CLX_ERR_ARGUMENT = -1,       /* an argument is out of range or NULL */
    CLX_ERR_HOST_MEMORY = -2,    /* malloc failed */
    CLX_ERR_IO = -3,             /* a file is missing or cannot be read/written */
    CLX_ERR_FORMAT = -4,         /* an image or text file is corrupt or unsupported */
    CLX_ERR_NO_DEVICE = -5,      /* no OpenCL device matches or can run the job */
    CLX_ERR_UNSUPPORTED = -6,    /* the device lacks a needed feature (e.g. fp64) */
    CLX_ERR_OPENCL = -7,         /* an OpenCL call failed */
    CLX_ERR_DEVICE_MEMORY = -8,  /* out of device memory or resources */
    CLX_ERR_BUILD = -9,          /* a kernel failed to compile */
    CLX_ERR_FFT = -10,           /* the FFT library failed */
    CLX_ERR_SIZE = -11,          /* an image does not have the reference's size */
    CLX_ERR_REGION = -12,        /* a window is invalid or outside the image */
    CLX_ERR_STATE = -13,         /* a call out of order (read before push, ...), or a context, plan or
                                    filter used after its release */
    CLX_ERR_CANCELLED = -14      /* the caller stopped the run (clx_stream_options.cancelled) */
} clx_status;

/* The name of a status ("CLX_ERR_IO"), never NULL. */
const char *clx_status_name(int status);

/* A one-line error description, filled by functions that have no context
 * (text is "" after success). */
typedef struct clx_message {
    char text[1024];
} clx_message;

/* The library version ("0.1.0") and its build features ("clfft vkfft hdf5"). */
const char *clx_version(void);
const char *clx_build_features(void);

/* ------------------------------------------------------------------------ */
/* Images                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum clx_pixel_type {
    CLX_PIXEL_U8 = 1,   /* unsigned 8-bit */
    CLX_PIXEL_U16 = 2,  /* unsigned 16-bit */
    CLX_PIXEL_F32 = 3   /* 32-bit float (finite values only) */
} clx_pixel_type;

/* A grayscale image, row-major, rows tightly packed (no padding). */
typedef struct clx_image {
    int width;
    int height;
    clx_pixel_type type;
    void *pixels;       /* width * height * clx_pixel_size(type) bytes */
} clx_image;

/* Bytes per pixel of the type (1, 2 or 4); 0 for an unknown type. */
size_t clx_pixel_size(clx_pixel_type type);
/* The type for messages: "8-bit", "16-bit", "32-bit float" ("unknown"). */
const char *clx_pixel_type_name(clx_pixel_type type);

/* Allocates pixels for an image of the given size and type (uninitialised). */
int clx_image_alloc(clx_image *image, int width, int height, clx_pixel_type type,
                    clx_message *msg);
/* Frees the pixels and clears the struct; safe on a zeroed struct. */
void clx_image_free(clx_image *image);

/* CLX_ERR_FORMAT "WHERE: non-finite pixel value at (x, y)" for the first
 * NaN or infinity of a CLX_PIXEL_F32 image (row by row), where WHERE names
 * the image (a file, "PATH: page N", "image 3"); CLX_OK when every pixel is
 * finite, and for the integer types. One NaN would spread through the
 * pre-filter into every window near it: the image loaders refuse such
 * pixels with this check, and images made in memory are checked with it. */
int clx_image_check_finite(const clx_image *image, const char *where, clx_message *msg);

/* Copies src's pixels into dst's (same size), converting to dst's type,
 * which must be as wide or wider (8 -> 16 bit -> float): never lossy. */
int clx_image_copy_to(const clx_image *src, clx_image *dst, clx_message *msg);

/* A run of image rows: first .. first + count - 1. */
typedef struct clx_rows {
    int first, count;
} clx_rows;

/* Like clx_image_copy_to, where only the rows in `rows` (nrows runs inside
 * the image) are wanted: with one pixel type, those rows alone are copied
 * and the others left as they were; else the whole image. rows NULL: every row. */
int clx_image_copy_rows_to(const clx_image *src, clx_image *dst, const clx_rows *rows, size_t nrows,
                           clx_message *msg);

/*
 * An image file: TIFF (8/16-bit unsigned, 32-bit float; strips or tiles; any
 * compression libtiff reads; every page of a multi-page file is one image),
 * PNG (8/16-bit), JPEG, BMP and PGM/PPM. Colour images are converted to
 * luminance (0.299 R + 0.587 G + 0.114 B, rounded for integer types).
 *
 * EBSD pattern files are image files too, one page per pattern in scan
 * order (row by row): the HDF5 containers h5ebsd (as kikuchipy, EDAX OIM
 * and Bruker Esprit write it), Oxford's H5OINA and EMsoft's EBSD output
 * (when the library is built with HDF5, see clx_build_features), and the
 * binary EDAX UP1/UP2, NORDIF Pattern.dat (with its Setting.txt) and Oxford
 * .ebsp files. Their scan grid and geometry: clx_image_file_scan. Patterns
 * stored as 8-bit unsigned read as CLX_PIXEL_U8, 16-bit unsigned as
 * CLX_PIXEL_U16, any other type (signed, 32/64-bit, float) as CLX_PIXEL_F32.
 *
 * The format is recognised from the file's first bytes, or, for the binary
 * pattern files, which have no magic number, from the file's name (.up1,
 * .up2, .ebsp, and a .dat with a Setting.txt beside it).
 */
typedef struct clx_image_file clx_image_file;

/* Opens an image file and reads its header: CLX_ERR_IO when it cannot be
 * read, CLX_ERR_FORMAT when it is no image clxcorr reads. A container with
 * several scans is refused (CLX_ERR_ARGUMENT, naming them): open one with
 * clx_image_file_open_scan. */
int clx_image_file_open(const char *path, clx_image_file **file, clx_message *msg);
/* The same, for the scan (an HDF5 container's top-level scan group, e.g.
 * "Scan 1") called `scan`; NULL: the only one. Files that hold no scans
 * (TIFF, ..., and single-scan pattern files) ignore the name. */
int clx_image_file_open_scan(const char *path, const char *scan, clx_image_file **file, clx_message *msg);
/* Number of images (pages) in the file: 1 except for multi-page TIFF and
 * pattern files (one per pattern). */
int clx_image_file_pages(const clx_image_file *file);

/*
 * A pattern file's scan: its grid and the geometry its header gives.
 *
 * The pattern centre is given in one convention whatever the file's (the
 * Bruker convention, which kikuchipy also uses): pcx is the distance from
 * the pattern's left edge over its width, pcy from its top edge over its
 * height, pcz the detector distance over its height, all in the stored
 * (binned) pattern's pixels. Files in the EDAX/TSL, Oxford or EMsoft
 * convention are converted (as kikuchipy converts them; pc_convention
 * names the file's own). Angles are in degrees.
 */
typedef struct clx_scan_info {
    char format[32];            /* "kikuchipy h5ebsd", "EDAX h5", "Bruker h5", "Oxford H5OINA", "EMsoft",
                                   "EDAX UP1", "EDAX UP2", "NORDIF", "Oxford ebsp" */
    char scan[128];             /* the scan read: its group, or "" */
    int rows, cols;             /* the scan grid, rows x cols = pages; 0 x 0: patterns without a grid */
    double step_x, step_y;      /* grid step in µm; 0 when the file does not say */
    int has_pc;                 /* the file gives a pattern centre */
    int pc_per_point;           /* ... one per pattern (clx_image_file_pattern_centre) */
    double pcx, pcy, pcz;       /* the pattern centre (the first pattern's, when per point) */
    char pc_convention[16];     /* the file's convention: "Bruker", "TSL", "Oxford", "EMsoft" ("" without) */
    double sample_tilt;         /* degrees; NAN when the file does not say */
    double detector_tilt;       /* degrees (the camera's elevation); NAN when the file does not say */
    double azimuthal, twist;    /* degrees; NAN when the file does not say */
    double pixel_size;          /* unbinned detector pixel, µm; NAN when the file does not say */
    int binning;                /* 0 when the file does not say */
    int has_euler;              /* crystal orientations per pattern (clx_image_file_euler) */
    unsigned placeholders;      /* CLX_SCAN_PLACEHOLDER_*: values the writer put in for ones it did not know */
    int symmetry;               /* the orientations' clx_symmetry (every phase's); -1: not known */
} clx_scan_info;

/* kikuchipy writes a detector pixel of 1 um when it knows none: pixel_size
 * is then NAN, and this flag says why. */
#define CLX_SCAN_PLACEHOLDER_PIXEL_SIZE 1u
/* ... and steps of 1 um, which may also be real: step_x and step_y are kept. */
#define CLX_SCAN_PLACEHOLDER_STEP       2u
/* ... and a crystal map of identity rotations in a phase of no space group
 * when nothing was indexed: has_euler is then 0. */
#define CLX_SCAN_PLACEHOLDER_ORIENTATIONS 4u

/* The scan of a pattern file; NULL for other image files. */
const clx_scan_info *clx_image_file_scan(const clx_image_file *file);
/* Page `page`'s pattern centre (pcx, pcy, pcz as in clx_scan_info):
 * CLX_ERR_STATE when the file gives none. */
int clx_image_file_pattern_centre(const clx_image_file *file, int page, double pc[3]);
/* Page `page`'s crystal orientation as Bunge Euler angles (phi1, Phi,
 * phi2) in radians, in clxcorr's sample frame (kikuchipy's: Bruker's and
 * Oxford's files are turned into it, doc/hrebsd-conventions.md):
 * CLX_ERR_STATE when the file gives none, NAN where the point was not
 * indexed. */
int clx_image_file_euler(const clx_image_file *file, int page, double euler[3]);
/* The Laue groups whose misorientations clx_misorientation knows. */
typedef enum clx_symmetry {
    CLX_SYMMETRY_CUBIC,         /* m-3m: 24 rotations */
    CLX_SYMMETRY_HEXAGONAL      /* 6/mmm: 12 rotations (c along z, a1 along x, as orix) */
} clx_symmetry;

/*
 * The crystal orientations of an indexed scan, from the text files that
 * indexing software writes: EDAX TSL's .ang (angles in radians) and Oxford
 * HKL's .ctf (degrees), both over a square grid, row by row. The format is
 * recognised from the first line ('#', "Channel Text File"), else the
 * name's extension. The angles are Bunge's in clxcorr's sample frame
 * (kikuchipy's, which is EDAX's; Oxford's are turned into it), as
 * clx_image_file_euler gives a container's.
 */
typedef struct clx_orientation_map {
    char format[16];            /* "EDAX ang" or "Oxford ctf" */
    int rows, cols;             /* the grid: .ang's NROWS x NCOLS_ODD, .ctf's YCells x XCells */
    double step_x, step_y;      /* µm; 0 when the header does not say */
    double *euler;              /* 3 per point, at (row * cols + col): Bunge (phi1, Phi, phi2) in radians;
                                   NAN where the point was not indexed (.ang's 4 pi, .ctf's phase 0) */
    double *quality;            /* per point: .ang's IQ, .ctf's band contrast BC (NAN: not in the file) */
    int symmetry;               /* clx_symmetry when every phase is m-3m or 6/mmm (.ang's Symmetry 43
                                   or 62, .ctf's Laue group 11 or 9); -1 otherwise */
} clx_orientation_map;

/* Reads `path` into *map (which clx_orientation_map_free releases):
 * CLX_ERR_IO when it cannot be read, CLX_ERR_FORMAT with msg "PATH:LINE:
 * what is wrong" for a file that is neither format, a grid other than
 * square, a line that does not parse, or points that are missing, extra or
 * not where their x and y say. */
int clx_orientation_map_read(const char *path, clx_orientation_map *map, clx_message *msg);
void clx_orientation_map_free(clx_orientation_map *map);

/* Decodes page `page` (0-based) into `image` (which the caller frees). */
int clx_image_file_read(clx_image_file *file, int page, clx_image *image,
                        clx_message *msg);
/* Closes the file (NULL allowed). */
void clx_image_file_close(clx_image_file *file);

/*
 * Reads page `page` of an open file into pixels the caller owns, as
 * clx_image_load_into does (same size, pixels no wider than dst's). For
 * pattern files it may be called from several threads at once on one open
 * file (clx_image_file_shared says so), which is how a run of 100,000
 * patterns reads a container without opening it for every pattern.
 */
int clx_image_file_read_into(clx_image_file *file, int page, clx_image *dst, clx_message *msg);
/* Non-zero when clx_image_file_read_into may run in several threads at once on this file. */
int clx_image_file_shared(const clx_image_file *file);

/* Opens, reads one page and closes. */
int clx_image_load(const char *path, int page, clx_image *image, clx_message *msg);

/*
 * Like clx_image_load, into pixels the caller owns (e.g. pinned staging
 * memory): dst's width, height, type and pixels are set, and the page must
 * have that size (else CLX_ERR_SIZE) and pixels no wider than dst's (else
 * CLX_ERR_FORMAT); narrower ones are widened as by clx_image_copy_to.
 * Uncompressed greyscale TIFF strips are read from the file straight into
 * dst, with no copy; other files are decoded and then copied. After a
 * failure dst's pixels are undefined (partly written).
 */
int clx_image_load_into(const char *path, int page, clx_image *dst, clx_message *msg);

/*
 * Like clx_image_load_into and clx_image_file_read_into, where only the
 * rows in `rows` (nrows runs inside the image, e.g. clx_plan_rows_read's)
 * are wanted: they are read as those functions read them; any other row
 * may be left as it was or read too. Uncompressed greyscale TIFF strips
 * are read for the runs alone; other files are read whole. rows NULL: every row.
 */
int clx_image_load_rows_into(const char *path, int page, clx_image *dst, const clx_rows *rows, size_t nrows,
                             clx_message *msg);
int clx_image_file_read_rows_into(clx_image_file *file, int page, clx_image *dst, const clx_rows *rows,
                                  size_t nrows, clx_message *msg);

/*
 * Image names, as the clxcorr command and the bindings take them: "PATH#N"
 * names page N (0-based) of a multi-page TIFF or pattern N of an EBSD
 * pattern file, "PATH#ROW,COL" the pattern at that point of a pattern
 * file's scan grid (0-based), unless a file with the name's literal text
 * exists; any other name is the whole file.
 *
 * clx_image_name_split gives the file's path (malloc'd: free() it), the
 * page (-1: none named) and the scan point (-1, -1: none; row and col may
 * be NULL). Only out of memory fails (CLX_ERR_HOST_MEMORY).
 */
int clx_image_name_split(const char *name, char **path, int *page, int *row, int *col);
/*
 * Opens the file a name names (the scan `scan` of containers that hold
 * several; NULL: the only one) and gives the pages it stands for,
 * *first_page to *last_page: the one page or scan point it names, else all
 * of the file's. A page or point the file does not have is CLX_ERR_ARGUMENT
 * (msg says what it has); *file is NULL after any failure.
 */
int clx_image_name_open(const char *name, const char *scan, clx_image_file **file, int *first_page, int *last_page,
                        clx_message *msg);

/*
 * Writing images: a TIFF file page by page (8/16-bit unsigned or 32-bit
 * float, uncompressed). The file is written as PATH.part and renamed to
 * PATH by clx_tiff_writer_close(..., complete = 1), so an interrupted run
 * never leaves a file that looks complete. `bigtiff` selects the BigTIFF
 * format, needed above 4 GB.
 */
typedef struct clx_tiff_writer clx_tiff_writer;

int clx_tiff_writer_open(const char *path, int bigtiff, clx_tiff_writer **writer, clx_message *msg);
/* Appends one page; `description` (may be NULL) becomes its ImageDescription. */
int clx_tiff_writer_page(clx_tiff_writer *writer, const clx_image *page, const char *description,
                         clx_message *msg);
/* complete: finish and rename to PATH; otherwise close and leave PATH.part.
 * Always frees the writer. */
int clx_tiff_writer_close(clx_tiff_writer *writer, int complete, clx_message *msg);

/* ------------------------------------------------------------------------ */
/* Output files                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Every file libclxcorr and the clxcorr command write goes through these, so
 * that writing never destroys what a path names:
 * - a regular file, or a name that does not exist yet, is written to a
 *   temporary in the same directory, synced and renamed over the name only
 *   when complete (a symbolic link is followed: the file it names is
 *   replaced, the link kept; an existing file's permissions are kept);
 * - anything else (a FIFO, a character device such as /dev/null or
 *   /dev/full, a terminal, /dev/stdout, a socket) is written directly and
 *   never unlinked or renamed over; a writer that must seek (TIFF, HDF5)
 *   refuses it with CLX_ERR_ARGUMENT.
 * With CLX_OUTPUT_PART the temporary is PATH.part, kept after a failure
 * (a run's partial output) and locked while a process writes it, so that a
 * second process writing the same output is refused (CLX_ERR_STATE) rather
 * than mixing its bytes in; otherwise it is a unique PATH.PID.N.tmp,
 * removed after a failure.
 */
typedef struct clx_output clx_output;

enum clx_output_flags {
    CLX_OUTPUT_PART = 1,       /* the temporary is PATH.part, kept after a failure */
    CLX_OUTPUT_SEEKABLE = 2,   /* the writer seeks: what is not a regular file is refused */
    CLX_OUTPUT_CONTINUE = 4    /* with PART: an existing PATH.part is opened as it is, not emptied */
};

int clx_output_open(const char *path, unsigned flags, clx_output **output, clx_message *msg);
/* The file descriptor the bytes go to (for libraries that write by name or
 * descriptor), and its name: PATH.part, the temporary, or PATH when direct. */
int clx_output_fd(const clx_output *output);
const char *clx_output_name(const clx_output *output);
/* 1 when PATH is written directly (not a regular file), else 0. */
int clx_output_direct(const clx_output *output);
/* Writes all of data (retrying short writes); a failure names the file. */
int clx_output_write(clx_output *output, const void *data, size_t len, clx_message *msg);
/* Makes what was written durable (fsync; a no-op where PATH is direct). */
int clx_output_sync(clx_output *output, clx_message *msg);
/* Cuts the temporary to `size` bytes and continues writing there. */
int clx_output_truncate(clx_output *output, long long size, clx_message *msg);
/*
 * complete: syncs, renames the temporary over PATH and syncs the directory.
 * Otherwise a PATH.part stays as it is and a unique temporary is removed.
 * Always frees the output.
 */
int clx_output_close(clx_output *output, int complete, clx_message *msg);

/* A whole file at once (open, write, close complete): a small file made in
 * memory, such as a JSON report or a cache entry. */
int clx_output_write_file(const char *path, const void *data, size_t len, clx_message *msg);

/*
 * Whether writing `output` would overwrite `input`: 1 when they are one file
 * (same device and inode, through links), when they are the same name, or
 * when input is output's temporary PATH.part; else 0.
 */
int clx_output_overwrites(const char *output, const char *input);

/* ------------------------------------------------------------------------ */
/* Windows (regions)                                                         */
/* ------------------------------------------------------------------------ */

/* A window: top-left corner (x, y) and size (w, h) in pixels. */
typedef struct clx_region {
    int x, y, w, h;
} clx_region;

/*
 * Reads a windows file: one "x y w h" per line, '#' starts a comment, blank
 * lines are ignored. *regions is malloc'd (free() it).
 */
int clx_regions_read(const char *path, clx_region **regions, size_t *count,
                     clx_message *msg);

/*
 * A regular grid of nx * ny windows of w x h, row by row, spread evenly over
 * the image with `margin` pixels kept free on every side.
 */
int clx_regions_grid(int nx, int ny, int w, int h, int margin, int image_width,
                     int image_height, clx_region **regions, size_t *count,
                     clx_message *msg);

/* Checks that all windows have one size, at least 2 x 2, and lie inside the image. */
int clx_regions_check(const clx_region *regions, size_t count, int image_width,
                      int image_height, clx_message *msg);

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum clx_device_type {
    CLX_DEVICE_OTHER = 0,
    CLX_DEVICE_GPU = 1,
    CLX_DEVICE_CPU = 2,
    CLX_DEVICE_ACCELERATOR = 3
} clx_device_type;

typedef struct clx_device_info {
    int platform_index;          /* P of "P:D" */
    int device_index;            /* D of "P:D" */
    char platform_name[128];
    char name[128];
    char vendor[128];
    char driver_version[128];
    char opencl_c_version[64];   /* e.g. "OpenCL C 1.2 PoCL" */
    clx_device_type type;
    unsigned compute_units;
    unsigned long long global_memory;   /* bytes */
    unsigned long long local_memory;    /* bytes */
    unsigned long long max_allocation;  /* bytes, largest single buffer */
    int has_fp64;                /* cl_khr_fp64 or OpenCL 3.0 __opencl_c_fp64 */
    int compiler_available;
    int available;
} clx_device_info;

/* Lists every device of every platform. *devices is malloc'd (free() it). */
int clx_devices_list(clx_device_info **devices, size_t *count, clx_message *msg);

/* "GPU", "CPU", "accelerator" or "other". */
const char *clx_device_type_name(clx_device_type type);

/* ------------------------------------------------------------------------ */
/* Context: one OpenCL device and its queue, kernel cache and last error     */
/* ------------------------------------------------------------------------ */

typedef struct clx_context clx_context;

typedef enum clx_log_level {
    CLX_LOG_WARNING = 0,
    CLX_LOG_INFO = 1,
    CLX_LOG_DEBUG = 2
} clx_log_level;

typedef void (*clx_log_fn)(void *user, clx_log_level level, const char *line);

typedef struct clx_context_options {
    /*
     * Which device: "P:D" (platform and device index as `clxcorr devices`
     * lists them), a case-insensitive substring of the device name, or
     * "gpu", "cpu", "accelerator". NULL or "" means the environment variable
     * CLXCORR_DEVICE if set, else the first GPU, else the first device.
     * Devices that cannot run the job are skipped, with the reason logged
     * as a warning.
     */
    const char *device;
    int need_fp64;           /* skip devices without double precision */
    int no_cache;            /* do not read or write compiled kernel binaries */
    const char *cache_dir;   /* NULL: $XDG_CACHE_HOME/clxcorr (or ~/.cache/clxcorr) */
    const char *kernel_dir;  /* NULL: CLXCORR_KERNEL_DIR, the source tree, or the install dir */
    clx_log_fn log;          /* NULL: no log */
    void *log_user;
    clx_log_level log_level; /* lines above this level are not produced */
    int no_tuning;           /* plans ignore the tuning file (clx_tune) and take the shipped defaults */
    int profile;             /* time each pipeline stage (clx_context_stage_times); costs a little */
} clx_context_options;

/* Fills in the defaults: every field 0 or NULL, log_level CLX_LOG_WARNING. */
void clx_context_options_init(clx_context_options *options);

/*
 * Opens a device (options NULL: the defaults). CLX_ERR_NO_DEVICE when no
 * device matches options->device or can run the job; CLX_ERR_IO when no
 * kernel directory is found. *context is NULL after a failure.
 */
int clx_context_open(const clx_context_options *options, clx_context **context,
                     clx_message *msg);
/* Releases the context (NULL allowed), and any plans and filters still open
 * on it (see "Lifetimes" above). */
void clx_context_release(clx_context *context);

/* The device the context runs on (NULL for a NULL or released context). */
const clx_device_info *clx_context_device(const clx_context *context);

/* The last error of this context or of a plan made on it ("" if none). */
const char *clx_context_message(const clx_context *context);

/* ------------------------------------------------------------------------ */
/* Pre-filters                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Separable image filters on the device: `clxcorr filter`, and the accurate
 * mode's pre-filter. A filter is a chain of up to CLX_FILTER_MAX_STAGES
 * stages, written as a spec string with stages joined by '+':
 *
 *   gaussian:S             Gaussian smoothing, sigma S pixels (radius ceil(3 S))
 *   highpass:S             the image minus its Gaussian blur of sigma S
 *   background:S           background removal: the same, for a wide S
 *   background-divide:S    the image divided by its Gaussian blur of sigma S
 *                          (0 where the blur is <= 1e-6)
 *   taps:a,b,c,...         any separable kernel: these 2r+1 taps along x and
 *                          then along y (not normalised); the first weights
 *                          the pixel r left of (above) the output
 *
 * e.g. "background:20+gaussian:1". Sigma is at most 64 / 3 = 21.33 (radius
 * ceil(3 S) <= CLX_FILTER_MAX_RADIUS). Each stage filters the previous
 * stage's output; highpass and background subtract from, and
 * background-divide divides, that stage's own input. Radii 1 and 2 (3x3 and
 * 5x5) run on a tiled fast path; larger radii on a general separable path.
 */
#define CLX_FILTER_MAX_STAGES 4
#define CLX_FILTER_MAX_RADIUS 64

typedef enum clx_border {
    CLX_BORDER_CLAMP = 0,   /* the nearest pixel inside: ...aaa|abc */
    CLX_BORDER_MIRROR = 1,  /* reflected about the edge pixel: ...cb|abc */
    CLX_BORDER_ZERO = 2     /* zero outside: ...000|abc */
} clx_border;

typedef struct clx_filter_options {
    const char *spec;        /* the stages, as above */
    clx_border border;       /* how pixels outside the source ROI are read (default: mirror) */
    /*
     * The source ROI is read and the same-sized target ROI written; a
     * filter treats its source ROI as the whole image (borders apply at the
     * ROI's edges). Source w = 0 or h = 0: the whole image. Target w = 0 or
     * h = 0: the source ROI's size at the target's (x, y) (so all zeros with
     * a whole-image source is the whole image). Pixels of the output
     * outside the target ROI are the input's.
     */
    clx_region source_roi, target_roi;
    int use_double;          /* filter in double precision (needs fp64) */
} clx_filter_options;

/* Fills in the defaults: no spec (set one), mirror border, whole-image ROIs, float. */
void clx_filter_options_init(clx_filter_options *options);

/* Checks a spec string; msg names what is wrong. */
int clx_filter_spec_check(const char *spec, clx_message *msg);

typedef struct clx_filter clx_filter;

/* Checks the options (a bad spec: CLX_ERR_ARGUMENT; use_double without fp64:
 * CLX_ERR_UNSUPPORTED); kernels are built on first use. */
int clx_filter_create(clx_context *context, const clx_filter_options *options, clx_filter **filter);
/* Filters `input` (any pixel type) into `output`, a new CLX_PIXEL_F32 image
 * of the input's size (the caller frees it). CLX_ERR_REGION when the ROIs
 * do not fit the input. */
int clx_filter_apply(clx_filter *filter, const clx_image *input, clx_image *output);
/* Releases the filter and its device memory (NULL allowed). */
void clx_filter_release(clx_filter *filter);

/* ------------------------------------------------------------------------ */
/* Plan: one reference, one window list, one set of options                  */
/* ------------------------------------------------------------------------ */

typedef enum clx_mode {
    /* Pre-filter, window offset and iterative sub-pixel refinement: an order
     * of magnitude more accurate than the seed method (the default). */
    CLX_MODE_ACCURATE = 0,
    /* doc/conventions.md's seed method, step for step. */
    CLX_MODE_SEED = 1
} clx_mode;

/* "accurate" or "seed". */
const char *clx_mode_name(clx_mode mode);

/* Window functions applied to windows before they are correlated. */
typedef enum clx_window_fn {
    CLX_WINDOW_NONE = 0,
    CLX_WINDOW_HANN = 1,
    CLX_WINDOW_TUKEY = 2    /* flat middle, cosine tapers over window_alpha of the width */
} clx_window_fn;

/* How the correlations are computed. */
typedef enum clx_method {
    CLX_METHOD_AUTO = 0,    /* whichever is faster on this device for this job, measured once and cached */
    CLX_METHOD_FFT = 1,     /* C = IFFT(conj(FFT(r)) FFT(d)) over a padded layout */
    CLX_METHOD_DIRECT = 2   /* the sum of doc/conventions.md evaluated directly, shift by shift */
} clx_method;

/* "auto", "fft" or "direct". */
const char *clx_method_name(clx_method method);

/* How the sub-pixel part of a peak is estimated from the values around it. */
typedef enum clx_estimator {
    CLX_ESTIMATOR_DEFAULT = 0,   /* the mode's: lsq (over F x F in seed mode, 3 x 3 in accurate mode) */
    CLX_ESTIMATOR_LSQ = 1,       /* the seed's quadratic least-squares fit over F x F values */
    CLX_ESTIMATOR_GAUSS3 = 2,    /* a three-point Gaussian through the peak, per axis */
    CLX_ESTIMATOR_PARABOLA3 = 3, /* a three-point parabola through the peak, per axis */
    CLX_ESTIMATOR_CENTROID = 4   /* the centroid of the F x F values above their minimum */
} clx_estimator;

/* "lsq", "gauss3", "parabola3" or "centroid". */
const char *clx_estimator_name(clx_estimator estimator);

/* How the accurate mode's refinement samples windows at fractional offsets. */
typedef enum clx_interp {
    CLX_INTERP_DEFAULT = 0,   /* the refiner's (IC-GN: the cubic B-spline; correlation: Lanczos-3), unless the
                                 params (interp=N) or the tuning say otherwise */
    CLX_INTERP_LANCZOS3 = 1,  /* sinc(t) sinc(t/3), 6 x 6 taps */
    CLX_INTERP_KEYS = 2,      /* Keys' cubic convolution (a = -0.5), 4 x 4 taps */
    CLX_INTERP_BSPLINE3 = 3,  /* cubic B-spline on each image's prefiltered coefficients, 4 x 4 taps */
    CLX_INTERP_BSPLINE5 = 4   /* quintic B-spline, likewise, 6 x 6 taps */
} clx_interp;

/* "default", "lanczos3", "keys", "bspline3" or "bspline5". */
const char *clx_interp_name(clx_interp interp);

/* How the accurate mode refines each window's offset after its correlation
 * passes. */
typedef enum clx_refiner {
    /* Inverse-compositional Gauss-Newton on the zero-normalised sum of
     * squared differences (ZNSSD), the image window warped by a shape
     * function (clx_plan_options.shape) and sampled with the chosen
     * interpolation; iterates on the device; reports each offset's
     * standard deviation. */
    CLX_REFINER_ICGN = 0,
    /* Correlation refinement: the image window resampled at the estimate,
     * correlated over one pixel, the residual peak added (translation only). */
    CLX_REFINER_CORRELATION = 1
} clx_refiner;

/* "icgn" or "correlation". */
const char *clx_refiner_name(clx_refiner refiner);

typedef struct clx_plan_options {
    clx_mode mode;      /* CLX_MODE_ACCURATE (default) or CLX_MODE_SEED */
    clx_method method;  /* CLX_METHOD_AUTO (default), _FFT or _DIRECT */
    int max_shift;      /* search only shifts with |ux|, |uy| <= max_shift; 0: every shift of the window */
    clx_estimator estimator; /* the sub-pixel estimator (CLX_ESTIMATOR_DEFAULT: the mode's) */
    int fit_size;       /* F of the F x F values the estimator sees: odd, >= 3
                           (0: the mode's, 5 in seed mode, 3 in accurate mode) */
    int batch;          /* images per push; 0: sized from device memory */
    int use_double;     /* every device stage in double (needs fp64) */
    size_t expected_images; /* images the caller will push in all, if known (0: unknown);
                               an automatic batch is not made larger than this */
    int plans_sharing_device; /* plans that run on this device at once, this one included (0 or 1:
                                 only this one): an automatic batch leaves the others room */
    int pairs;              /* each image comes with its own reference: pushes go through
                               clx_plan_push_pairs, whose references' windows are prepared on the
                               device with the images (PIV frame pairs, a sequence against the
                               previous image); seed mode, or accurate mode with IC-GN */
    const char *params;     /* kernel tuning overrides, "KEY=VALUE,...": the kernels' -D
                               macros in lower case (direct_split=2,argmax_wg=128); NULL: none */

    /* Accurate mode only (clx_plan_options_init sets the defaults
     * bench/accuracy.sh and bench/interp-bias.sh chose: background:8+gaussian:0.7, Hann,
     * the refiner's passes, IC-GN of up to 8 iterations to 0.001 px with
     * the cubic B-spline, window-offset passes over 2 px): */
    const char *prefilter;  /* filter spec (see clx_filter_options); NULL or "none": none */
    clx_window_fn window;   /* window function */
    double window_alpha;    /* Tukey's taper fraction, 0..1 */
    int passes;             /* correlation passes: 1 plus window-offset passes (>= 1; 0: the refiner's
                               default, 1 with IC-GN, whose own iterations take the first pass's
                               offset from there, 2 otherwise) */
    int refine;             /* at most this many sub-pixel refinement iterations (>= 0; 0: no refinement) */
    double tolerance;       /* refinement stops below this correction, in pixels (IC-GN: the norm of the
                               update, its gradient terms as displacements at the window's edge) */
    int fine_shift;         /* search radius of the window-offset passes (refinement: 1 px) */
    clx_interp interp;      /* the refinement's interpolation (CLX_INTERP_DEFAULT: the refiner's) */
    clx_refiner refiner;    /* how offsets are refined (default CLX_REFINER_ICGN) */
    int shape;              /* IC-GN's shape function: 0 translation, 1 first order (default), whose
                               gradients clx_result then carries (the other refiners ignore it) */
} clx_plan_options;

/* Fills in the defaults: accurate mode, automatic method and batch, the
 * accurate mode's defaults above, every other field 0 or NULL. */
void clx_plan_options_init(clx_plan_options *options);

/* Fills in what the options leave to the mode and the refiner, as
 * clx_plan_create does: the estimator, F, the passes (the interpolation
 * stays CLX_INTERP_DEFAULT: the tuning or params may still choose it). */
void clx_plan_options_resolve(clx_plan_options *options);

typedef struct clx_plan clx_plan;

/*
 * Prepares everything that does not depend on the images: kernels, FFT
 * plans, device buffers and the reference's spectra. All windows must have
 * one size and lie inside the reference; every image pushed later must have
 * the reference's width and height. The regions are copied; options NULL
 * means the defaults. Errors: CLX_ERR_REGION (a window outside the
 * reference, windows of two sizes, none), CLX_ERR_ARGUMENT (an option out
 * of range, a NULL argument), CLX_ERR_UNSUPPORTED (use_double without
 * fp64), CLX_ERR_DEVICE_MEMORY, CLX_ERR_BUILD; the context's message says
 * which. Several plans may exist on one context at once; their pushes and
 * reads may interleave.
 */
int clx_plan_create(clx_context *context, const clx_image *reference,
                    const clx_region *regions, size_t region_count,
                    const clx_plan_options *options, clx_plan **plan);
/* Waits for the plan's work on the device and releases it (NULL allowed). */
void clx_plan_release(clx_plan *plan);

/* The most images one clx_plan_push accepts. */
int clx_plan_batch_size(const clx_plan *plan);
/* The number of windows: each pushed image gives this many results. */
size_t clx_plan_region_count(const clx_plan *plan);

/* The path in use (never CLX_METHOD_AUTO), and one line on how it was chosen
 * (for CLX_METHOD_AUTO: the per-window times measured for both). */
clx_method clx_plan_method(const clx_plan *plan);
const char *clx_plan_explanation(const clx_plan *plan);

/* The FFT library of the path in use ("vkfft", "clfft"), or "" on the direct path. */
const char *clx_plan_fft(const clx_plan *plan);

/*
 * Replaces the reference image (same size; the windows stay): only the
 * reference's windows or spectra are recomputed, kernels and plans are kept.
 * Not while a push is unread.
 */
int clx_plan_set_reference(clx_plan *plan, const clx_image *reference);

/*
 * Uploads `count` images (1 <= count <= batch size) and enqueues their
 * correlation. Images may have any pixel type. Returns before the device
 * has finished; call clx_plan_read next (CLX_ERR_STATE: a push whose
 * results were not read yet; CLX_ERR_SIZE: an image not of the reference's
 * size). The images may be freed when it returns.
 */
int clx_plan_push(clx_plan *plan, const clx_image *images, size_t count);

/*
 * Like clx_plan_push, for `count` images of one pixel type laid out back to
 * back at `pixels` (each the reference's width x height, rows contiguous):
 * they are uploaded from there without a copy, which is fastest when the
 * memory is pinned (clx_stream does that). The pixels must stay untouched
 * until clx_plan_read returns.
 */
int clx_plan_push_pixels(clx_plan *plan, const void *pixels, clx_pixel_type type, size_t count);

/*
 * For a plan made with options.pairs: uploads `count` pairs and enqueues
 * their correlation, image i of `images` against image i of `references`
 * (the windows of both at the plan's positions; offsets are image minus
 * reference). The plan's own reference only gave the size. Otherwise as
 * clx_plan_push (clx_plan_push and clx_plan_push_pixels answer
 * CLX_ERR_STATE for such a plan, and this call for any other).
 */
int clx_plan_push_pairs(clx_plan *plan, const clx_image *references, const clx_image *images, size_t count);

/* As clx_plan_push_pairs, for pixels laid out as clx_plan_push_pixels takes
 * them, references and images each of one pixel type. */
int clx_plan_push_pair_pixels(clx_plan *plan, const void *reference_pixels, const void *pixels,
                              clx_pixel_type type, size_t count);

/* Result flags (bit set; 0 means the estimate is trusted). */
#define CLX_FLAG_FIT_FAILED   1u  /* the F x F fit has no maximum near the peak: sub-pixel part set to 0 */
#define CLX_FLAG_EDGE         2u  /* the integer peak lies on the border of the searched shifts */
#define CLX_FLAG_NO_PEAK      4u  /* the correlation maximum is not positive, or (accurate mode) zncc is NaN:
                                     flat or unrelated windows */
#define CLX_FLAG_OUTLIER      8u  /* the normalised median test rejects it against its grid neighbours */
#define CLX_FLAG_CLAMPED     16u  /* the moved window had to be kept inside the image */
#define CLX_FLAG_UNCONVERGED 32u  /* refinement stopped before its correction fell below the tolerance */
#define CLX_FLAG_REPLACED   256u  /* (clx_multipass) a rejected vector (always with CLX_FLAG_OUTLIER), replaced
                                     from its valid neighbours */

typedef struct clx_result {
    double dx, dy;      /* offset: position in the image minus position in the reference */
    double peak;        /* correlation value at the (first pass's) integer peak */
    int ix, iy;         /* that integer peak */
    unsigned flags;     /* CLX_FLAG_* */
    /* Accurate mode (NaN or 0 in seed mode): */
    double zncc;        /* zero-normalised correlation of the windows at the final offset */
    double peak_ratio;  /* first pass's peak over its highest other local maximum */
    int iterations;     /* refinement iterations done */
    /* IC-GN refinement (NaN otherwise): */
    double znssd;       /* the final zero-normalised sum of squared differences, 2 (1 - zncc) */
    double sigma_dx, sigma_dy; /* standard deviations of dx and dy (px), from the residual and the Hessian */
    /* IC-GN with shape 1 (NaN otherwise): the displacement's gradient over
     * the window, in reference coordinates (du/dx with u = dx, and so on). */
    double dudx, dudy, dvdx, dvdy;
} clx_result;

/*
 * Waits for the images of the last push and writes count * region_count
 * results, image by image, windows in plan order. `capacity` is the number
 * of clx_result elements `results` holds. This ends the push.
 */
int clx_plan_read(clx_plan *plan, clx_result *results, size_t capacity);

/* The size of one correlation surface: (2 Rx + 1) x (2 Ry + 1) for the
 * searched shifts |ux| <= Rx, |uy| <= Ry. */
void clx_plan_surface_size(const clx_plan *plan, int *width, int *height);

/*
 * The rows of each image the plan reads, in order, as runs: returns how
 * many runs there are and writes up to `capacity` of them. A seed plan
 * reads the rows its windows cover (and uploads only those); the accurate
 * mode and pairs read every row (one run). Rows outside the runs of the
 * images pushed may hold anything, so that a loader can skip them
 * (clx_image_load_rows_into). 0 for a NULL or released plan.
 */
size_t clx_plan_rows_read(const clx_plan *plan, clx_rows *rows, size_t capacity);

/*
 * Waits for the images of the last push and copies their correlation
 * surfaces C(u) as floats: count * region_count surfaces, image by image,
 * windows in plan order, each row-major from u = (-Rx, -Ry), so the zero
 * shift is the centre. `capacity` is in floats. The push stays readable with
 * clx_plan_read.
 */
int clx_plan_read_surfaces(clx_plan *plan, float *surfaces, size_t capacity);


/* ------------------------------------------------------------------------ */
/* Streams: many images through several plans at once                       */
/* ------------------------------------------------------------------------ */

/*
 * clx_stream_run processes images 0 .. count-1 with one plan's options and
 * delivers their results in input order, keeping the device busy: loader
 * threads fill batches of pinned host memory, several plans ("lanes", each
 * with its own command queue and thread) upload, correlate and download at
 * once so that one lane's transfers overlap another's kernels, and the
 * calling thread delivers. Memory stays bounded: lanes + 2 batches per device are in
 * flight, whatever `count` is.
 *
 * Images are staged as 16-bit unsigned, or as 32-bit float when the
 * reference is float; `load` converts into that.
 */

/*
 * Fills `image` (width, height, type and pixels already set: pinned memory
 * to write into) with image `index`. Called from the loader threads, several
 * at once for different indices. Returns CLX_OK, or an error status with
 * msg saying what went wrong (the run then stops after delivering every
 * image before `index`).
 */
typedef int (*clx_stream_load_fn)(void *user, size_t index, clx_image *image, clx_message *msg);

/* Receives image `index`'s results (region_count of them, in plan order).
 * Called from the thread that called clx_stream_run, in input order. A
 * status other than CLX_OK (with msg) stops the run. */
typedef int (*clx_stream_deliver_fn)(void *user, size_t index, const clx_result *results, size_t region_count,
                                     clx_message *msg);

/* What clx_stream_run tells its `started` callback once the plans exist. */
typedef struct clx_stream_info {
    const clx_plan *plan;                /* the first device's first plan */
    const clx_plan *const *device_plans; /* each device's first plan, for its method,
                                            explanation and batch */
    size_t devices;
    int lanes;                           /* plans at work, over all devices */
    size_t images_in_flight;             /* at most this many images lie between
                                            loading and delivery: images i and
                                            i + images_in_flight never at once */
} clx_stream_info;

typedef struct clx_stream_options {
    int lanes;              /* plans at work at once on each device; 0: 3 on a GPU, 1 on
                               other devices */
    int loaders;            /* loader threads; 0: one per core of the host, at most 32 (the
                               number clx_stream_options_init fills in) */
    /* Called once the lanes' plans exist, before any image is loaded (may be
     * NULL). A status other than CLX_OK (with msg) ends the run there. */
    int (*started)(void *user, const clx_stream_info *info, clx_message *msg);
    /* Called (may be NULL) from a lane's thread as soon as image `index`'s
     * results are in, several at once for different images, before they are
     * delivered: for work on them that need not wait for the input order
     * (formatting rows, say). A status other than CLX_OK (with msg) stops
     * the run before this image. */
    int (*finish)(void *user, size_t index, const clx_result *results, size_t region_count, clx_message *msg);
    /* Called after each delivered batch (may be NULL): images delivered so far. */
    void (*progress)(void *user, size_t done, size_t count);
    /* If not NULL, one entry per device, filled in by the run: the images
     * each device correlated. */
    size_t *device_images;
    /* With a plan made for pairs (plan options.pairs): loads item `index`'s
     * reference, as `load` loads its image (a loader thread calls both for
     * one item). NULL otherwise. */
    clx_stream_load_fn load_reference;
    /* Polled (may be NULL) by the loader threads before each image: a
     * non-zero return stops the run as a failure would, with
     * CLX_ERR_CANCELLED, after delivering every image before the one not
     * loaded (a signal handler's flag, say). */
    int (*cancelled)(void *user);
    /* Several references (HR-EBSD's one per grain): with reference_count
     * > 0, image `index` is measured against references[reference_of[index]]
     * (each of the run's reference's size and pixel type, all kept by the
     * caller until the run returns), and the run's `reference` only gives
     * the plans their first one. A batch never mixes two references, so
     * images of one reference should come one after the other; a lane's
     * plan takes a batch's reference (clx_plan_set_reference: the
     * reference's windows prepared on the device) when it differs from its
     * last one. Not with pairs. */
    const clx_image *references;
    size_t reference_count;
    const size_t *reference_of;     /* count entries, each < reference_count */
} clx_stream_options;

/* Fills in the defaults: lanes 0 (by device type), loaders one per core, no callbacks. */
void clx_stream_options_init(clx_stream_options *options);

/*
 * Runs the stream; returns CLX_OK when all `count` images were delivered,
 * else the first error's status, with its message in the context (images
 * delivered before it stay delivered; *delivered, if not NULL, says how
 * many).
 */
int clx_stream_run(clx_context *context, const clx_image *reference, const clx_region *regions,
                   size_t region_count, const clx_plan_options *plan_options,
                   const clx_stream_options *stream_options, size_t count, clx_stream_load_fn load,
                   clx_stream_deliver_fn deliver, void *user, size_t *delivered);

/*
 * The same over several devices (contexts[0 .. context_count-1], each opened
 * on its own device; one device may also be given twice): each has its own
 * lanes, plans (with their own method, batch and tuning) and pinned
 * memory, and takes batches from one shared queue as fast as it empties
 * them, so a faster device correlates more images. Results are still
 * delivered in input order, and an error's message (naming the device) is
 * left in contexts[0].
 */
int clx_stream_run_devices(clx_context *const *contexts, size_t context_count, const clx_image *reference,
                           const clx_region *regions, size_t region_count,
                           const clx_plan_options *plan_options, const clx_stream_options *stream_options,
                           size_t count, clx_stream_load_fn load, clx_stream_deliver_fn deliver, void *user,
                           size_t *delivered);

/* ------------------------------------------------------------------------ */
/* Deforming multi-pass: PIV's and DIC's window deformation                  */
/* ------------------------------------------------------------------------ */

/*
 * Frame pairs measured in passes of shrinking windows (Scarano 2002; the
 * "windef" of OpenPIV, PIVlab's multi-pass): pass 1 correlates the frames
 * on a grid of the first window size; between passes the field is
 * validated (normalised median test, the quality and range thresholds),
 * its rejected vectors replaced by the median of their valid neighbours,
 * smoothed, and interpolated to every pixel (a deformed pass's median test
 * judges what it measured beyond the field its frames were deformed by),
 * and both frames are resampled by half of it each way on the device
 * (frame A at x - d/2, frame B at x + d/2), so that the next pass, on its
 * own grid, measures what is left;
 * its offsets are that residual plus the field at its windows' centres.
 * Every pass is a plan of pairs (options.plan; the accurate mode's IC-GN
 * by default; the first of several without a window function, which would
 * halve the displacement it can catch); the results are the last pass's,
 * on its grid.
 */
typedef struct clx_multipass_options {
    int passes;                 /* 1 to 8 */
    int window[8];              /* each pass's square window, px (>= 8), largest first */
    int step;                   /* the last pass's grid step, px (earlier passes keep its overlap ratio) */
    int margin;                 /* px kept free at every border */
    double median_threshold;    /* the normalised median test's threshold (default 2; <= 0: none) */
    double median_epsilon;      /* its noise level, px (default 0.1) */
    double min_peak_ratio;      /* reject below (default 0: no test) */
    double min_zncc;            /* reject below (default -1: no test) */
    double max_displacement;    /* reject |d| above, px (default 0: no test) */
    int replace;                /* the last pass's rejected vectors replaced too (CLX_FLAG_REPLACED;
                                   default 1); 0: kept as measured, flagged CLX_FLAG_OUTLIER */
    clx_plan_options plan;      /* each pass's plan (pairs is set by the multi-pass) */
} clx_multipass_options;

/* Defaults: 3 passes of 64, 32 and 32 px, step 16 (50 % overlap), margin
 * 0, the usual validation, replacement on, clx_plan_options_init's plan. */
void clx_multipass_options_init(clx_multipass_options *options);

typedef struct clx_multipass clx_multipass;

/* Prepares the passes' plans and buffers for frames of width x height.
 * CLX_ERR_ARGUMENT for options out of range or windows that do not fit. */
int clx_multipass_create(clx_context *context, int width, int height, const clx_multipass_options *options,
                         clx_multipass **out);

/* The last pass's windows, in the order of the results (row by row). */
const clx_region *clx_multipass_regions(const clx_multipass *mp, size_t *count);

/* Pass `pass`'s plan (0-based; NULL out of range): for clx_plan_explanation
 * and the other questions a plan answers. The multi-pass keeps it. */
const clx_plan *clx_multipass_plan(const clx_multipass *mp, int pass);

/* The most pairs one clx_multipass_run takes. */
int clx_multipass_batch_size(const clx_multipass *mp);

/*
 * Measures `count` pairs (frames_a[i] the reference of frames_b[i]; 1 <=
 * count <= the batch size) through every pass and writes count *
 * region_count results, pair by pair, windows in clx_multipass_regions'
 * order: dx, dy the displacement at each window's centre, the gradients
 * (with shape 1) the field's, the flags and quality columns the last
 * pass's with CLX_FLAG_OUTLIER and CLX_FLAG_REPLACED from the validation
 * (CLX_FLAG_OUTLIER is the validation's alone, not the plans' own test).
 */
int clx_multipass_run(clx_multipass *mp, const clx_image *frames_a, const clx_image *frames_b, size_t count,
                      clx_result *results, size_t capacity);

/* Releases the multi-pass and its plans (NULL allowed). */
void clx_multipass_release(clx_multipass *mp);

/* ------------------------------------------------------------------------ */
/* Tuning: the best parameters per device, driver and workload class         */
/* ------------------------------------------------------------------------ */

/*
 * A plan takes its kernel parameters, FFT library and largest automatic
 * batch from the tuning file (<cache dir>/tuning.tsv, written by clx_tune)
 * when it has an entry for the device, its driver and the plan's workload
 * class (mode, window size, precision, pixel type), else from the defaults
 * shipped for the device's vendor; clx_plan_options.params overrides
 * either, key by key, and clx_plan_options.batch the batch.
 */
typedef struct clx_tuning {
    char device[128];
    char driver[128];
    char workload[96];        /* the class: "seed 100x100 float u16" */
    char params[512];         /* "KEY=VALUE,...", as clx_plan_options.params */
    int batch;                /* largest automatic batch; 0: sized from memory alone */
    double rate;              /* images/s measured with these values */
    double default_rate;      /* images/s measured with the shipped defaults, in the same run */
    char date[32];            /* when, "YYYY-MM-DD HH:MM" */
} clx_tuning;

/* Every entry of the tuning file in cache_dir (NULL: the default cache
 * directory); none when there is no file. *entries is malloc'd. */
int clx_tuning_list(const char *cache_dir, clx_tuning **entries, size_t *count, clx_message *msg);

/* How the plan's parameters were chosen, in words (tuned when, or shipped). */
const char *clx_plan_tuning(const clx_plan *plan);

/* Every kernel parameter a user may set (clx_plan_options.params) with the
 * value the plan's first correlation pass uses, where that came from
 * (default, sized for the job, tuning, --param) and what it means: one
 * "KEY=VALUE (from) meaning" line each. "" for a NULL or released plan. */
const char *clx_plan_parameters(const clx_plan *plan);

typedef struct clx_tune_options {
    double seconds;           /* images streamed per candidate, in seconds of the defaults' rate (0: 1) */
    double tolerance;         /* largest difference in px from the reference offsets (0: 0.01) */
    int quick;                /* search the FFT library, the batch and the work-group sizes only */
    int dry_run;              /* do not store the result */
    /* One line per step (may be NULL): each candidate, its check and its rate. */
    void (*progress)(void *user, const char *line);
    void *user;
} clx_tune_options;

/* Fills in the defaults: 1 s per candidate, 0.01 px, the full search, stored. */
void clx_tune_options_init(clx_tune_options *options);

/*
 * Searches the kernel parameters, FFT library and batch size for the
 * context's device and the workload class of (plan_options, the regions'
 * size, the reference's pixel type), streaming `images` (cycled) from host
 * memory through the same overlapped pipeline as clx_stream_run. Before any
 * candidate is timed its offsets are checked against a reference run (the
 * shipped defaults, in double precision where the device has it). The
 * search starts from the shipped defaults and changes one parameter at a
 * time, keeping a change that is measurably faster; the best and the
 * defaults are then timed again, alternately, and the best is kept only if
 * it is faster (a tie keeps the defaults). Fills *result and, unless
 * dry_run, stores it in the tuning file, where the next plan for this class
 * finds it.
 */
int clx_tune(clx_context *context, const clx_image *reference, const clx_region *regions, size_t region_count,
             const clx_plan_options *plan_options, const clx_image *images, size_t image_count,
             const clx_tune_options *options, clx_tuning *result);

/* ------------------------------------------------------------------------ */
/* Profiling (clx_context_options.profile)                                   */
/* ------------------------------------------------------------------------ */

typedef struct clx_stage_time {
    char name[32];            /* "upload", "prepare", "fft forward", "argmax", ... */
    double ms;                /* device time, summed over every run of the stage */
    double bytes;             /* bytes the stage must at least read and write, summed (0: not modelled) */
    unsigned long count;      /* runs of the stage */
} clx_stage_time;

/*
 * The device time of each pipeline stage of the plans run on this context
 * (not on clx_stream_run's extra queues) since it was opened or reset, from
 * OpenCL profiling events. Waits for the work enqueued so far.
 * *count is the number of stages filled in (at most capacity).
 * CLX_ERR_STATE when the context was opened without profiling.
 */
int clx_context_stage_times(clx_context *context, clx_stage_time *times, size_t capacity, size_t *count);
/* Starts the stage times afresh (waits for the work enqueued so far). */
void clx_context_stage_times_reset(clx_context *context);

/* Measured peaks: pinned host-to-device upload and device-to-device copy
 * (read + write), in GB/s, measured with buffers of up to 256 MiB (two on the device). */
int clx_context_bandwidth(clx_context *context, double *bus_gbs, double *memory_gbs);

/* ------------------------------------------------------------------------ */
/* HR-EBSD: elastic strain and lattice rotation from window shifts           */
/* ------------------------------------------------------------------------ */

/*
 * The frames, signs and formulas are those of doc/hrebsd-conventions.md,
 * which are kikuchipy's and orix's: pattern pixels (u right, v down) seen
 * from behind the screen towards the sample, the detector frame d (x right,
 * y up the pattern, z from the sample through the screen), the sample frame
 * s (EDAX TSL's RD, TD, ND: x_s = RD, y_s = TD, z_s the outward surface
 * normal), Bunge orientations from s to the crystal, beta the displacement
 * gradient, q = beta r - ((beta r) . n / (r . n)) r the shift of the window
 * seen along r.
 */
typedef struct clx_detector {
    int width, height;          /* pattern size, px */
    double pcx, pcy, pcz;       /* pattern centre, Bruker's convention (as clx_scan_info) */
    double sample_tilt;         /* degrees (typically 70) */
    double detector_tilt;       /* degrees, kikuchipy's tilt (EDAX's camera elevation) */
} clx_detector;

/*
 * CLX_OK for a pattern centre (Bruker's convention) that a detector can
 * have, else CLX_ERR_ARGUMENT with msg saying what is wrong: a value that
 * is not finite, PCx or PCy more than a screen's width or height off the
 * screen, PCz not in (0, 10]; three values of 2 to 100 are named as the
 * percentages they likely are.
 */
int clx_detector_pc_check(const double pc[3], clx_message *msg);

/*
 * The pattern centre of the pattern taken x_um micrometres along the map's
 * columns and y_um along its rows from the reference's scan point, on a
 * detector whose pattern pixels are pixel_um micrometres wide (unbinned
 * pixel times binning): kikuchipy's EBSDDetector.extrapolate_pc (the map's
 * columns run along -y_s, its rows along -x_s). CLX_ERR_ARGUMENT for a pixel
 * size that is not positive or a geometry that is not usable.
 */
int clx_detector_shift(const clx_detector *reference, double x_um, double y_um, double pixel_um, double pc[3],
                       clx_message *msg);

/*
 * Parses a stiffness tensor: "cubic:C11,C12,C44" or
 * "hexagonal:C11,C12,C13,C33,C44" in GPa, into the Voigt 6x6 matrix c
 * (row-major, order 11 22 33 23 13 12, crystal frame). CLX_ERR_ARGUMENT
 * with msg naming what does not parse, or a tensor that is not positive
 * definite.
 */
int clx_stiffness_parse(const char *spec, double c[36], clx_message *msg);

typedef struct clx_strain_options {
    double min_zncc;        /* windows whose zncc is below are not used (default 0.2; NaN zncc: used) */
    double min_peak_ratio;  /* ... whose peak_ratio is below (default 1.0; NaN: used) */
    /* The robust rule: after each fit, the window with the largest residual
     * |q - q_model| is dropped while that residual exceeds both
     * residual_factor times the RMS residual of the other windows used (its
     * own left out, so that a few similar outliers do not hide each other)
     * and max_residual px, and more than min_windows windows remain
     * (defaults 3, 0.1 px). A drop after which the windows would no longer
     * fix beta is not made. */
    double residual_factor, max_residual;
    int min_windows;        /* at least 4 (default 4) */
    /* Voigt 6x6 stiffness (GPa, crystal frame) for the traction-free full
     * strain, with the pattern's orientation; NULL: deviatoric strain. */
    const double *stiffness;
} clx_strain_options;

void clx_strain_options_init(clx_strain_options *options);

/* ---- grains: a reference pattern per grain --------------------------------- */


/* The smallest rotation angle (radians) between two orientations (Bunge,
 * radians, sample to crystal) over the symmetry's equivalents; NAN when
 * either is not finite. */
double clx_misorientation(const double euler_a[3], const double euler_b[3], clx_symmetry symmetry);

/*
 * Grains of a rows x cols map of orientations (3 Bunge angles a point, row by
 * row; NAN: not indexed): 4-connected points whose neighbours differ by
 * less than max_angle (radians) join (MTEX's and OpenXY's threshold
 * segmentation). grain[i] is 1..*count, numbered in the order of their
 * first point, or 0 for a point not indexed or in a grain of fewer than
 * min_points points. CLX_ERR_ARGUMENT for a threshold not in (0, pi).
 */
int clx_grains_segment(int rows, int cols, const double *euler, clx_symmetry symmetry, double max_angle,
                       int min_points, int *grain, int *count, clx_message *msg);

/*
 * Each grain's reference point (reference[g - 1] = row * cols + col): among
 * the grain's points within half its equivalent radius sqrt(points / pi) of
 * its centroid, the one of highest quality (NULL, or NaN: 0), ties to the
 * one nearest the centroid; a grain with no point that near takes its point
 * nearest the centroid.
 */
int clx_grains_references(int rows, int cols, const int *grain, int count, const double *quality, int *reference,
                          clx_message *msg);

/* The orientation (Bunge, radians) of a crystal whose lattice is the
 * reference's turned by the sample-frame rotation vector w (clx_strain.w):
 * g = g_ref R^T, as orix composes g_ref * Rotation.from_matrix(R^T). NANs
 * for NAN input. */
void clx_orientation_refine(const double reference_euler[3], const double w[3], double euler[3]);

/* ---- geometrically necessary dislocations ---------------------------------- */

/* The rotation vector (sample frame) of R_b R_a^T, the turn from rotation
 * w_a to rotation w_b (clx_strain.w of two points): the exact difference a
 * curvature is made of. NANs for NAN input. */
void clx_rotation_difference(const double w_a[3], const double w_b[3], double d[3]);

/*
 * The five components of Nye's dislocation density tensor a map fixes, from
 * the lattice curvature along the sample's x and y (kappa_x[i] = d theta_i /
 * d x, rad per um): alpha = kappa^T - tr(kappa) I (Nye 1953; Pantleon 2008,
 * the elastic strain's gradients left out), as alpha12, alpha13, alpha21,
 * alpha23, alpha33 in 1/um.
 */
void clx_nye_components(const double kappa_x[3], const double kappa_y[3], double alpha[5]);

typedef enum clx_lattice {
    CLX_LATTICE_FCC,            /* {111}<110>: 12 edge and 6 screw dislocations */
    CLX_LATTICE_BCC             /* {110}<111>: 12 edge and 4 screw */
} clx_lattice;

/*
 * A total GND density (1/m^2) from the five components (clx_nye_components)
 * at a point of orientation euler (Bunge, radians): the smallest-norm (L2)
 * densities of the lattice's dislocation types, Burgers vector burgers_um
 * long, that give them, summed as |rho|. NAN (CLX_OK) where a component or
 * the orientation is NAN; CLX_ERR_ARGUMENT for an unknown lattice or a
 * Burgers vector that is not positive.
 */
int clx_gnd_density(const double alpha[5], const double euler[3], clx_lattice lattice, double burgers_um,
                    double *density, clx_message *msg);

/*
 * Nye's components (and a density) over a map of rotations: `clxcorr gnd`'s
 * computation. A map of rows x cols scan points, point (row, col) at index
 * i = row * cols + col; its rows run along -x_s and its columns along -y_s
 * (kikuchipy's frames, doc/hrebsd-conventions.md), step_x um apart from one
 * column to the next, step_y um from one row to the next.
 *
 *   w        3 per point: the rotation vector (clx_strain.w, rad, sample
 *            frame); NAN where the point has none (not measured, or no row
 *            for it)
 *   grain    per point, or NULL (all one grain): a point's curvature comes
 *            only from neighbours of its own grain; a point of grain <= 0
 *            is in none (NANs)
 *   euler    3 per point: the orientation (Bunge, radians, as clx_strain_row's
 *            euler), which the density needs; NULL without burgers_um
 *
 * Each point's d theta along a map direction is its neighbours' exact
 * rotation difference (clx_rotation_difference) over the step: central
 * (half the difference between the one before and the one after) where
 * both neighbours are usable (measured, same grain), one-sided where one
 * is, NAN where neither or where the point itself is not usable. Then
 * kappa_x = -(d theta / d row) / step_y, kappa_y = -(d theta / d col) /
 * step_x, and alpha[5 i ...] = clx_nye_components (alpha12, alpha13,
 * alpha21, alpha23, alpha33, 1/um), NAN where a gradient is missing. With
 * burgers_um > 0, rho[i] = clx_gnd_density at the point's orientation
 * (1/m^2; NAN where alpha or euler is). rho may be NULL without burgers_um.
 *
 * A step must be positive and finite (it may be 0 along an axis of one
 * point). CLX_ERR_ARGUMENT for a bad size or step, burgers_um > 0 without
 * euler or rho, an unknown lattice (with burgers_um); nothing is written
 * then.
 */
int clx_gnd_map(long rows, long cols, const double *w, const int *grain, const double *euler, double step_x,
                double step_y, clx_lattice lattice, double burgers_um, double *alpha, double *rho, clx_message *msg);

/*
 * A map's steps (um) from its points' positions, as `clxcorr gnd` takes
 * them from strain's scan_x and scan_y: x and y per point (row * cols +
 * col, um), NAN where a point has none; *step_x is the first positive
 * finite x difference between horizontal neighbours (row by row), *step_y
 * the first positive one in y between vertical neighbours (0 when none).
 * CLX_ERR_ARGUMENT when no step_x is found, or no step_y in a map of two
 * rows or more.
 */
int clx_gnd_steps(long rows, long cols, const double *x, const double *y, double *step_x, double *step_y,
                  clx_message *msg);

#define CLX_STRAIN_FEW_WINDOWS 1u   /* fewer than min_windows usable windows: no numbers (NaN) */
#define CLX_STRAIN_SINGULAR    2u   /* the windows do not fix beta (on a line, say): NaN */
#define CLX_STRAIN_DEVIATORIC  4u   /* e is the deviatoric strain (no stiffness or no orientation) */
#define CLX_STRAIN_DROPPED     8u   /* the robust rule dropped windows */
#define CLX_STRAIN_UNSETTLED  16u   /* remapping: the rotation had not settled (set by the caller) */
#define CLX_STRAIN_NO_GRAIN   32u   /* a reference per grain: the point is in none (set by the caller): NaN */

typedef struct clx_strain {
    double e[9];            /* strain U - I (F = R U), sample frame, row-major 3x3 (tensor shears) */
    double w[3];            /* R's rotation vector (radians): w1, w2, w3 about x_s, y_s, z_s; for small
                               rotations the antisymmetric part of beta, W32, W13, W21 */
    double beta[9];         /* displacement gradient F - I, sample frame, row-major */
    double beta_detector[9];/* the same in the detector frame (what a pattern is remapped by) */
    double residual;        /* RMS |q - q_model| over the windows used, px */
    int windows;            /* windows used */
    unsigned flags;         /* CLX_STRAIN_* */
} clx_strain;

/*
 * Fits one pattern's beta to its n windows' shifts by least squares, with
 * beta_33 (detector frame) = 0, then reports it in the sample frame:
 * F = I + beta = R U (polar decomposition), e = U - I whatever the
 * rotation (sym(beta) would carry a large rotation's second-order part),
 * w = R's rotation vector. remapped_by: the direction map M the test
 * pattern was remapped by (clx_remap_map, clx_remap_homography) before it
 * was correlated, or NULL; the fit then reports the test pattern's own
 * F = M F_remapped. x[i],
 * y[i]: window i's centre in reference pixels; results[i]: its offset
 * (flagged windows are not used; zncc and peak_ratio are screened as the
 * options say). test_pc: the test pattern's centre (Bruker convention), or
 * NULL for the reference's: the shift a moved source gives is taken off
 * first. euler: the pattern's Bunge angles (radians), used with
 * options->stiffness for the traction-free full strain; NULL (or NaN
 * angles): deviatoric, e = 3 U / tr U - I (the shifts do not fix F's
 * scale c; this is the same for any), else e = c U - I with c such that sigma_33 = 0 in the sample
 * frame (a traction-free surface). Returns CLX_OK (out->flags may say why there are no
 * numbers), or CLX_ERR_ARGUMENT for a geometry that is not usable
 * (clx_detector_pc_check, sizes, tilts, min_windows < 4) with msg. options NULL: the
 * defaults.
 * The fit uses the exact projection, of which the formula above is the
 * first order: the feature seen along r in the reference is seen along F r
 * (F = I + beta) from the test pattern's source, so shifts of rotations of
 * several degrees are fitted exactly. The shifts fix F only up to a factor;
 * beta_33 = 0 takes the F with F_33 = 1 (detector frame).
 */
int clx_strain_fit(const clx_detector *reference, const double test_pc[3], const double remapped_by[9],
                   const double *x, const double *y, const clx_result *results, size_t n, const double euler[3],
                   const clx_strain_options *options, clx_strain *out, clx_message *msg);

/*
 * The direction map a test pattern is remapped by, from its measured
 * beta_detector: the rotation of I + beta = Rot U (Britton and Wilkinson's
 * remapping; `whole` 0), or all of I + beta (`whole` 1: the remapped
 * pattern is then the reference nearly exactly, and its small remaining
 * shifts are measured without the sub-pixel estimator's bias of larger
 * ones). A beta that is not finite (a failed fit) gives the identity.
 */
void clx_remap_map(const double beta_detector[9], int whole, double map[9]);

/*
 * The projective map, in pattern pixels, that remaps a test pattern by the
 * direction map M (clx_remap_map; NULL: the identity) and draws it from the
 * reference's pattern centre: the remapped pattern along direction d (from
 * the reference's source) is the test pattern along M d (from its own,
 * pc: its centre, NULL: the detector's). h (row-major 3x3) takes an output
 * pixel (u, v, 1) to the test pattern's pixel to sample (divide by the
 * third component): h = P K_pc M K_ref^-1 P, K = [[L, 0, x0], [0, L, y0],
 * [0, 0, 1]] in screen coordinates, P = diag(1, -1, 1). The shift a test
 * pattern's own centre gives is so taken out with the deformation: fit the
 * remapped pattern with clx_strain_fit's test_pc NULL (the reference's)
 * and M as remapped_by, and it reports the test pattern's own F = M
 * F_remapped.
 */
void clx_remap_homography(const clx_detector *detector, const double pc[3], const double map[9], double h[9]);

/* ------------------------------------------------------------------------ */
/* Warp: a pattern resampled through a projective map, on the device         */
/* ------------------------------------------------------------------------ */

typedef struct clx_warp clx_warp;

/* Kernels are built on first use. */
int clx_warp_create(clx_context *context, clx_warp **warp);
/*
 * output(u, v) = input at h (u, v, 1) (row-major 3x3, divided by its third
 * component), interpolated with a quintic B-spline on the input's
 * prefiltered coefficients (the warp's own, whatever the plan's
 * clx_interp); points outside the input read it mirrored at its borders,
 * those more than 8 px out the value 8 px out, and those behind the
 * source the value at (-8, -8).
 * `output` is a new CLX_PIXEL_F32 image of the input's size (the caller
 * frees it).
 */
int clx_warp_apply(clx_warp *warp, const clx_image *input, const double h[9], clx_image *output);
/* Releases the warp and its device memory (NULL allowed). */
void clx_warp_release(clx_warp *warp);

/* ------------------------------------------------------------------------ */
/* HR-EBSD job: a scan's patterns to one strain row each                      */
/* ------------------------------------------------------------------------ */

/*
 * What `clxcorr strain` does, as a library object: the geometry resolved
 * from what the caller gives and what the pattern file's header says (what
 * is given wins; what neither gives is asked for by name), each pattern's
 * centre across the scan, its orientation, a reference per grain, the fit
 * of each pattern's window shifts (clx_strain_fit) and the remapping
 * passes. Messages name the missing or wrong value by the command's option
 * (--pc, --sample-tilt, ...; the Python package's keywords are the same
 * with underscores).
 *
 * Either run it whole (clx_strain_job_run: the patterns through a stream,
 * remapped while they settle, a row each in order), or drive the
 * correlations yourself and call clx_strain_job_fit on each pattern's
 * results, with clx_strain_job_remap_estimate and clx_strain_job_warp
 * between passes, as the command does (it streams over its own shards,
 * ranks and outputs). clx_strain_job_fit and _remap_estimate may be called
 * from several threads at once for different patterns; _warp too, each
 * thread with its own warp (or one at a time).
 */
typedef struct clx_strain_job clx_strain_job;

/* Where each pattern's centre comes from (--pattern-centres). */
typedef enum clx_pattern_centres {
    CLX_PC_AUTO,                /* the file's per point, else the beam shift with a real pixel size
                                   and steps, else the reference's */
    CLX_PC_FILE,                /* the pattern file's, one per point */
    CLX_PC_BEAM_SHIFT,          /* the reference's moved with the beam (clx_detector_shift) */
    CLX_PC_FIXED                /* the reference's for every pattern */
} clx_pattern_centres;

/* The job's choices, each the command's option of that name (NAN, NULL or
 * 0: not given; clx_strain_job_options_init fills in the defaults). */
typedef struct clx_strain_job_options {
    int have_pc;
    double pc[3];               /* --pc: the reference's centre, Bruker's convention */
    double sample_tilt;         /* --sample-tilt, degrees */
    double detector_tilt;       /* --detector-tilt, degrees */
    double pixel_size;          /* --pixel-size: a pattern pixel on the detector, um */
    double step_x, step_y;      /* --step, um (0: the beam does not move along that axis) */
    clx_pattern_centres pattern_centres;    /* --pattern-centres (default auto) */
    int scan_cols;              /* --scan-cols: patterns of no file's scan lie C to a scan row */
    int have_ref_point;
    long ref_row, ref_col;      /* --ref-point: the reference's scan point */
    int have_euler;
    double euler[3];            /* --euler: one orientation for all, Bunge, radians */
    const char *orientations;   /* --orientations: an .ang or .ctf file */
    const char *stiffness;      /* --stiffness: clx_stiffness_parse's SPEC */
    clx_strain_options fit;     /* --min-zncc, --min-peak-ratio, --max-residual */
    int remap;                  /* --remap: passes of remapped patterns (clx_strain_job_run) */
    int remap_rotation;         /* --remap-rotation: by the measured rotation alone, not all of F */
    double remap_tol;           /* --remap-tol, degrees (default 0.01) */
    int remap_passes;           /* --remap-passes (default 4) */
    const char *grains;         /* --grains: "auto" or a grain map image; NULL: one reference */
    double grain_angle;         /* --grain-angle, degrees (default 5) */
    int min_grain;              /* --min-grain, points (default 10) */
    int symmetry;               /* --symmetry: a clx_symmetry, -1 (default): the orientations' */
    const char *grain_references;   /* --grain-references: "GRAIN ROW COL" lines */
    int explain;                /* describe the geometry (clx_strain_job_describe) */
    /* INFO lines (the orientations read); NULL: none. */
    clx_log_fn log;
    void *log_user;
} clx_strain_job_options;

void clx_strain_job_options_init(clx_strain_job_options *options);

/* The patterns a job measures, and its reference. */
typedef struct clx_strain_patterns {
    size_t count;               /* patterns */
    int width, height;          /* their size (the reference's) */
    /* The pattern file whose scan they are (its header gives the geometry,
     * each pattern's centre and orientation; kept open by the caller while
     * the job lives), or NULL: patterns of no scan (placed by scan_cols). */
    clx_image_file *file;
    const int *pages;           /* with file: pattern i is page pages[i] (NULL: page i) */
    /* The reference's image name (clx_image_name_split: PATH, PATH#N,
     * PATH#ROW,COL): a pattern file's names its point and its header; NULL:
     * no file's. With grains, the scan's first pattern. */
    const char *reference;
    const char *scan;           /* the scan of containers that hold several (NULL: the only one) */
} clx_strain_patterns;

/*
 * Resolves a job over `patterns`, windows `regions` (at least 4, spread
 * over the pattern): the geometry, orientations, stiffness, grains and
 * references, checked once by fitting the reference against itself.
 * CLX_ERR_ARGUMENT (or the file's status) with msg naming what is missing
 * or wrong; CLX_OK with *job, which clx_strain_job_release frees. With
 * grains the patterns are measured grain by grain (clx_strain_job_order);
 * every other index a job takes or gives is in that order.
 */
int clx_strain_job_create(const clx_strain_job_options *options, const clx_strain_patterns *patterns,
                          const clx_region *regions, size_t region_count, clx_strain_job **job, clx_message *msg);
void clx_strain_job_release(clx_strain_job *job);

/* order[k]: the index in clx_strain_patterns of the job's pattern k (the
 * identity without grains; with them, grain after grain, scan order within
 * one, the points in no grain last). count entries. */
const size_t *clx_strain_job_order(const clx_strain_job *job);

/* The geometry and where each value came from, as lines ending in '\n'
 * (what --explain says); the length it needs, like snprintf. */
size_t clx_strain_job_describe(const clx_strain_job *job, char *text, size_t size);

/* A reference of the job: the one given, or a grain's. */
typedef struct clx_strain_reference {
    clx_detector detector;      /* the geometry, with its pattern's centre */
    long row, col;              /* its scan point (-1: none) */
    double euler[3];            /* its orientation (NAN: unknown) */
    size_t pattern;             /* a grain's: the job's pattern it is; SIZE_MAX for the one given */
    size_t patterns;            /* the job's patterns measured against it */
    /* A grain's pattern as the file stores it (loaded by the job, for the
     * stream's references); width 0 for the one given. */
    clx_image image;
} clx_strain_reference;

/* The references (1, or one per grain; *count), in grain order. */
const clx_strain_reference *clx_strain_job_references(const clx_strain_job *job, size_t *count);
/* Pattern k's reference (an index into clx_strain_job_references; 0 for a
 * pattern in no grain). */
size_t clx_strain_job_reference_of(const clx_strain_job *job, size_t pattern);
/* Grains: how many (0: one reference), and what found them ("--orientations' ..."). */
int clx_strain_job_grains(const clx_strain_job *job, const char **from);
/* Pattern k's centre (Bruker's convention) as the job moves it. */
void clx_strain_job_pattern_centre(const clx_strain_job *job, size_t pattern, double pc[3]);

/* One pattern's row: the fit, and what the job adds to it (the command's
 * columns: e11 ... flags from fit, grain, ref_row, ref_col, phi1, Phi, phi2). */
typedef struct clx_strain_row {
    clx_strain fit;             /* flags gain CLX_STRAIN_UNSETTLED and _NO_GRAIN */
    int grain;                  /* with grains: 1.., 0 for a point in none */
    long ref_row, ref_col;      /* its reference's scan point (-1: none) */
    double euler[3];            /* the reference's orientation turned by the fit's rotation (NAN: unknown) */
} clx_strain_row;

/*
 * Fits pattern k's window results (region_count of them, in the regions'
 * order, measured against its reference, remapped as the job's last
 * estimate says) into *row. A pattern in no grain gets no numbers
 * (CLX_STRAIN_NO_GRAIN). CLX_ERR_ARGUMENT for a region count other than
 * the job's.
 */
int clx_strain_job_fit(clx_strain_job *job, size_t pattern, const clx_result *results, size_t region_count,
                       clx_strain_row *row, clx_message *msg);
/* The host time the fits took so far, summed over the threads, seconds. */
double clx_strain_job_fit_seconds(const clx_strain_job *job);

/*
 * Remapping: after a pass over pattern k's remapped pattern (the first:
 * as it is), its fit gives the map its next pass remaps it by
 * (clx_remap_map); *settled (may be NULL) says whether its rotation changed
 * by less than remap_tol (a failed fit, or one in no grain: settled, left
 * as it is). Rows of clx_strain_job_fit carry CLX_STRAIN_UNSETTLED for a
 * pattern not settled.
 */
int clx_strain_job_remap_estimate(clx_strain_job *job, size_t pattern, const clx_result *results,
                                  size_t region_count, int *settled, clx_message *msg);
/* Whether pattern k is remapped (its map is not the identity). */
int clx_strain_job_remapped(const clx_strain_job *job, size_t pattern);
/* Pattern k's image remapped by its map, drawn from its reference's
 * centre, on `warp`'s device (clx_warp_create; the caller's, used by one
 * thread at a time), into `staged` (converted to its type). */
int clx_strain_job_warp(const clx_strain_job *job, clx_warp *warp, size_t pattern, const clx_image *image,
                        clx_image *staged, clx_message *msg);

/* Receives pattern k's row, in the job's order. A status other than CLX_OK
 * (with msg) stops the run. */
typedef int (*clx_strain_deliver_fn)(void *user, size_t pattern, const clx_strain_row *row, clx_message *msg);

/*
 * The whole job on the devices of `contexts` (clx_stream_run_devices):
 * with remap, passes of every pattern remapped by its last fit until all
 * settle or remap_passes are done, then the rows' pass; each pattern
 * against its reference (`reference` for one, the grains' otherwise, in
 * the type of `reference`, which gives the run its staged type: float for
 * remapping). load(user, k, image, msg) fills pattern k (the job's order)
 * as a stream's loader does; `stream` may give lanes, loaders and
 * cancelled, called with `user` (NULL: the defaults; its other callbacks
 * are the job's): a stop returns CLX_ERR_CANCELLED, the rows before the
 * pattern not loaded delivered. `plan`: the correlation's options (NULL:
 * the command's, clx_strain_job_plan_options). On failure msg says why
 * (the rows before it were delivered).
 */
int clx_strain_job_run(clx_strain_job *job, clx_context *const *contexts, size_t context_count,
                       const clx_image *reference, const clx_plan_options *plan, const clx_stream_options *stream,
                       clx_stream_load_fn load, clx_strain_deliver_fn deliver, void *user, clx_message *msg);

/* The correlation `clxcorr strain` runs unless told otherwise: the accurate
 * mode with a Tukey window of taper 0.5 (half hann's strain error under
 * noise). */
void clx_strain_job_plan_options(clx_plan_options *options);

#ifdef __cplusplus
}
#endif

#endif /* CLXCORR_H */
