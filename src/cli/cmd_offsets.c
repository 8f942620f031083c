/*
 * cmd_offsets.c - `clxcorr offsets`: the main job. Reads the reference and
 * the windows, opens the device (or devices), then streams the images
 * through plans in batches and writes one CSV row per image and window, in
 * input order. This file is the command line and the order of the steps;
 * offsets_run.h says which file takes which step.
 */
#include "config.h"

#include <stdlib.h>

#include <string.h>

#include "cli.h"
#include "offsets_run.h"

static const char offsets_help[] =
    "Usage: clxcorr offsets [OPTIONS] REFERENCE IMAGE...\n"
    "       clxcorr offsets [OPTIONS] --list FILE REFERENCE [IMAGE...]\n"
    "       clxcorr offsets [OPTIONS] --reference pairs A1 B1 [A2 B2 ...]\n"
    "\n"
    "Measure how windows of each IMAGE moved relative to the same windows of\n"
    "REFERENCE: one CSV row per image and window, in input order.\n"
    "\n"
    "Windows (--regions, or --grid or --grid-step with --window):\n"
    "  -r, --regions FILE   windows file: \"x y w h\" per line (top-left corner and\n"
    "                       size in pixels), '#' starts a comment; all one size\n"
    "  -g, --grid NXxNY     a grid of NX x NY windows spread evenly over the image\n"
    "      --grid-step S    a window every S pixels across and down (overlapping\n"
    "                       when S is below the window size, as PIV sets them:\n"
    "                       --window 32x32 --grid-step 16 is 50 % overlap), from\n"
    "                       the margin on, as many as fit before the far margin;\n"
    "                       rows of windows top to bottom, each left to right\n"
    "  -w, --window WxH     the grid's window size\n"
    "  -m, --margin M       pixels the grid keeps free at every border (default 0)\n"
    "      --mask FILE      an image of the reference's size: pixels of value 0 are\n"
    "                       excluded. Windows (in reference coordinates) whose\n"
    "                       excluded fraction is above --mask-max are not\n"
    "                       measured: their rows, still in window order, carry\n"
    "                       nan offsets and flag 128. The others make no full\n"
    "                       grid, so the neighbour test (flag 8) does not run\n"
    "      --mask-max F     the excluded fraction above which a window is left\n"
    "                       out, 0 to 1 (default 0.5)\n"
    "\n"
    "Images:\n"
    "  -l, --list FILE      also read image paths from FILE, one per line ('-' for\n"
    "                       standard input; blank lines and '#' lines are skipped)\n"
    "      --shard K/N      process only the K-th of N equal runs of consecutive\n"
    "                       images (K from 1), e.g. one per task of a Slurm job\n"
    "                       array; the output starts with a '# clxcorr shard' line\n"
    "                       that `clxcorr merge` checks when it joins the shards\n"
    "      --skip-bad       an image that cannot be read (missing, corrupt, another\n"
    "                       size) is a warning and rows flagged 64 with nan\n"
    "                       offsets, not the end of the run\n"
    "      --reference S    what each image is measured against: first (default: the\n"
    "                       REFERENCE argument), previous (the image before it, the\n"
    "                       first against REFERENCE; columns total_dx,total_dy sum\n"
    "                       the offsets along the sequence) or pairs (no REFERENCE:\n"
    "                       the images two by two, frame A then frame B, from the\n"
    "                       arguments or --list lines, a line 'A B' giving both);\n"
    "                       rows then carry a reference column. Each image's own\n"
    "                       reference is prepared on the device with its batch\n"
    "      --scan NAME      the scan to read in EBSD pattern files that hold several\n"
    "                       (an HDF5 container's top-level group, e.g. 'Scan 1');\n"
    "                       without it a file of several scans is refused\n"
    "  Formats: TIFF (8/16-bit unsigned, 32-bit float, any compression), PNG,\n"
    "  JPEG, BMP, PGM; colour is converted to luminance. Every image must have\n"
    "  the reference's size. Each page of a multi-page TIFF is one image, named\n"
    "  PATH#N (0-based); PATH#N on the command line picks one page.\n"
    "  EBSD pattern files hold one image per pattern, in scan order: h5ebsd\n"
    "  (kikuchipy, EDAX, Bruker), Oxford H5OINA and EMsoft output (builds with\n"
    "  HDF5), EDAX UP1/UP2, NORDIF Pattern.dat (with its Setting.txt), Oxford\n"
    "  .ebsp. FILE#N names pattern N, FILE#ROW,COL the pattern at that scan\n"
    "  point (0-based), for the reference too. A run over one pattern file\n"
    "  with a scan grid writes scan_row,scan_col (and scan_x,scan_y in um when\n"
    "  the file gives the step) in place of the image column.\n"
    "\n"
    "PIV passes (--reference pairs on a --grid-step grid; any of these options):\n"
    "      --passes N       N deforming passes, as OpenPIV's windef and PIVlab's\n"
    "                       multi-pass: after each pass the field is validated,\n"
    "                       rejected vectors replaced by the median of their valid\n"
    "                       neighbours, the field smoothed, and both frames\n"
    "                       resampled on the device by half of it each way (cubic\n"
    "                       B-spline) before the next pass measures what is left.\n"
    "                       The first of several passes correlates without a\n"
    "                       window function (--window-fn weights the later ones:\n"
    "                       Hann's halves the displacement a pass can catch).\n"
    "                       Runs on one device, in batches of up to 16 pairs\n"
    "  -w, --window A,B,... a square window per pass, largest first, the last one\n"
    "                       the grid's: 64,32,32 is three passes (with --passes N\n"
    "                       above the count, the last size repeats); earlier\n"
    "                       passes keep the last one's overlap\n"
    "      --median-threshold T  the normalised median test's threshold over the\n"
    "                       3 x 3 neighbours (Westerweel & Scarano 2005; epsilon\n"
    "                       0.1 px; default 2, 0: no test); after the first pass\n"
    "                       it judges what each pass measured beyond the field\n"
    "                       its frames were deformed by, in two rounds\n"
    "      --min-peak-ratio R    also reject vectors whose peak_ratio is below R\n"
    "      --min-zncc Z     also reject vectors whose zncc is below Z\n"
    "      --max-displacement D  also reject vectors longer than D px\n"
    "      --keep-outliers  the last pass's rejected vectors stay as measured,\n"
    "                       flagged 8, instead of replaced (flags 8 + 256)\n"
    "\n"
    "Mode:\n"
    "      --mode M         accurate (default): pre-filter, window offset and\n"
    "                       iterative sub-pixel refinement, an order of magnitude\n"
    "                       more accurate than seed; seed: the seed method of\n"
    "                       doc/conventions.md step for step (zero-mean windows,\n"
    "                       linear correlation, integer peak, F x F fit)\n"
    "      --method M       how correlations are computed: fft, direct (the sum\n"
    "                       evaluated shift by shift; wins for small windows or a\n"
    "                       small --max-shift) or auto (default: whichever was\n"
    "                       measured faster on this device for this job; measured\n"
    "                       once, then cached in $XDG_CACHE_HOME/clxcorr)\n"
    "      --max-shift R    search only offsets with |dx|, |dy| <= R pixels (default:\n"
    "                       every shift the window allows); a peak at R is flagged\n"
    "      --explain        say which method was used and why (measured times),\n"
    "                       and where the kernel parameters came from (tuned by\n"
    "                       `clxcorr tune`, or shipped defaults), then every\n"
    "                       --param KEY with its value, its origin and meaning\n"
    "      --estimator E    sub-pixel estimator: lsq (the seed's F x F quadratic fit,\n"
    "                       default), gauss3, parabola3 (three-point fits per axis)\n"
    "                       or centroid; where it finds no maximum, accurate mode\n"
    "                       falls back to parabola3\n"
    "  -F, --fit-size F     the F x F values the estimator sees, odd, >= 3\n"
    "                       (default 5 in seed mode, 3 in accurate mode)\n"
    "      --fft LIB        the FFT library of the FFT path: vkfft, clfft, cpu\n"
    "                       (clxcorr's own transforms, written for CPU devices),\n"
    "                       local (clxcorr's own for GPUs, the multiply fused\n"
    "                       between its passes), or auto (VkFFT and clFFT timed\n"
    "                       for this device and job, once, then cached like\n"
    "                       --method auto). Default: the one `clxcorr tune`\n"
    "                       stored for this device and window size, else cpu on\n"
    "                       a CPU device, local in seed mode on an NVIDIA GPU,\n"
    "                       else VkFFT when this build has it, else clFFT\n"
    "      --double         every device stage in double precision (needs a\n"
    "                       device with fp64)\n"
    "\n"
    "Accurate mode (defaults chosen by bench/accuracy.sh):\n"
    "      --prefilter SPEC filters applied to every image first (default\n"
    "                       background:8+gaussian:0.7: minus its Gaussian blur of\n"
    "                       sigma 8 px, then a light blur against noise; 'none', or\n"
    "                       see clxcorr filter --help for SPEC)\n"
    "      --window-fn W    window function: hann (default), none, tukey[:ALPHA]\n"
    "                       (ALPHA: the tapered fraction, default 0.25)\n"
    "      --passes N       correlation passes: the first over the whole search range,\n"
    "                       then N-1 with the image window moved by the rounded offset\n"
    "                       (default: 1 with IC-GN, 2 otherwise); with --reference\n"
    "                       pairs, PIV's deforming passes (above)\n"
    "      --refine R       how each offset is refined after the passes: icgn\n"
    "                       (default): inverse-compositional Gauss-Newton on the\n"
    "                       zero-normalised SSD, the image window warped by a shape\n"
    "                       function (--shape) and sampled with --interp, iterating\n"
    "                       on the device; correlation: the window resampled at the\n"
    "                       offset, correlated over 1 px and the residual added,\n"
    "                       divided by the estimator's gain as measured so far;\n"
    "                       none. A number N is --iterations N (0: none)\n"
    "      --iterations N   at most N refinement iterations (default 8)\n"
    "      --tol T          refinement stops when its step is below T px (IC-GN: the\n"
    "                       update's norm, gradients as displacements at the\n"
    "                       window's edge; default 0.001)\n"
    "      --shape S        IC-GN's shape function: 0 translation, 1 first order\n"
    "                       (u, v and their gradients: for windows that strain or\n"
    "                       rotate; adds the columns dudx,dudy,dvdx,dvdy and the\n"
    "                       strains exx,eyy,exy)\n"
    "                       (default 1)\n"
    "      --fine-shift R   search radius of the window-offset passes (default 2;\n"
    "                       correlation refinement searches 1 px)\n"
    "      --interp I       the refinement's interpolation: bspline3 (IC-GN's\n"
    "                       default), bspline5 (cubic or quintic B-spline on\n"
    "                       coefficients prefiltered once per image; the quintic's\n"
    "                       bias is a tenth, its cost a fifth more), lanczos3 (the\n"
    "                       correlation refinement's default) or keys (Keys' cubic);\n"
    "                       bias curves: bench/results/interp-bias-results.txt\n"
    "\n"
    "Batches:\n"
    "  -b, --batch B        images per device batch (default: sized from device\n"
    "                       memory, at most 128 on GPUs and 16 on other devices)\n"
    "  -j, --threads N      threads that read and decode images (default: one per\n"
    "                       core of the host, at most 32)\n"
    "      --lanes N        batches at work on the device at once, each with its\n"
    "                       own queue, so that transfers overlap kernels (default:\n"
    "                       3 on GPUs, 1 on other devices)\n"
    "      --param KEY=VAL  override a kernel tuning parameter (repeatable), e.g.\n"
    "                       direct_split=2; an unknown KEY lists the known ones.\n"
    "                       Without it the values `clxcorr tune` stored for this\n"
    "                       device and workload are used, else shipped defaults\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE    write the rows to FILE (default: standard output); it is\n"
    "                       written as FILE.part and renamed when the run completes\n"
    "                       (a FIFO or device is written as it is, never replaced;\n"
    "                       a FILE that is one of the inputs is refused)\n"
    "      --format F       csv (default), tsv, jsonl (JSON lines: one object per\n"
    "                       row, no header; nan as null; a name's bytes that are\n"
    "                       not UTF-8 as \\udc80..\\udcff, as Python's\n"
    "                       surrogateescape: os.fsencode gives them back), or h5:\n"
    "                       an HDF5 file with\n"
    "                       one dataset per column, shaped (scan rows, scan\n"
    "                       columns, windows) over a whole scan, else (images,\n"
    "                       windows); needs -o FILE (builds with HDF5). Field\n"
    "                       files, one per image (-o OUT.EXT: OUT.EXT for one\n"
    "                       image, else OUT_0001.EXT, OUT_0002.EXT, ...): vtk, a\n"
    "                       VTK legacy binary STRUCTURED_GRID of the window\n"
    "                       centres (x, y, 0; pixels, y down) with the vector\n"
    "                       'displacement' (dx, dy, 0) and a scalar per other\n"
    "                       column (windows on a full grid only); openpiv,\n"
    "                       openpiv.tools.save's text: x y u v flags mask, tab-\n"
    "                       separated, in OpenPIV's axes: y up (y_min + y_max -\n"
    "                       y over the centres), u = dx, v = -dy, px per frame\n"
    "                       pair; flags 1 for any flag but 128, mask 1 (u = v =\n"
    "                       0) for masked windows\n"
    "      --columns LIST   the columns to write, in this order, e.g. image,dx,dy\n"
    "                       (default: all of the mode's, as listed below)\n"
    "      --quiver FILE    also draw FILE (PNG): the reference with one arrow per\n"
    "                       window, its mean offset over the images, coloured by\n"
    "                       magnitude, with a scale (as clxcorr plot draws it)\n"
    "      --resume         continue the run that left FILE.part (Ctrl-C, SIGKILL, a\n"
    "                       crash, a full disk, a power cut): the run's fingerprint in\n"
    "                       FILE.resume must be this one's (options, reference,\n"
    "                       windows, image list), its rows are checked image by image\n"
    "                       and kept as far as they are whole and in order; the rest\n"
    "                       of the images are appended. Same command otherwise; needs -o\n"
    "      --meta FILE      also write FILE (JSON): the clxcorr version, command,\n"
    "                       host, inputs, every option, each device (driver,\n"
    "                       method and why, tuning values, batch, images) and the\n"
    "                       timings, so that the result can be reproduced; written\n"
    "                       at the end, with \"status\": \"failed\" and the error if\n"
    "                       the run failed\n"
    "  Columns: image,region,x,y,dx,dy,peak,flags (seed mode), and in accurate\n"
    "  mode also zncc,peak_ratio,iterations, with IC-GN znssd,sigma_dx,sigma_dy,\n"
    "  and with --shape 1 dudx,dudy,dvdx,dvdy,exx,eyy,exy\n"
    "    region  0-based index in the window list\n"
    "    x, y    window centre in reference coordinates: x0 + (w-1)/2\n"
    "    dx, dy  offset in pixels: position of a feature in the image minus its\n"
    "            position in the reference (an image moved 3 px right and 1 px\n"
    "            down gives dx = 3, dy = 1)\n"
    "    peak    the (first pass's) correlation maximum, not normalised\n"
    "    flags   0 when the estimate is trusted, else the sum of:\n"
    "            1  the estimator found no maximum near the peak (sub-pixel part 0)\n"
    "            2  the integer peak lies on the border of the searched shifts\n"
    "               (--max-shift or the window's largest shift in the first pass,\n"
    "               --fine-shift in window-offset passes, 1 px in refinement;\n"
    "               the last pass decides)\n"
    "            4  the correlation maximum is not positive, or zncc is nan (flat\n"
    "               or unrelated windows)\n"
    "            8  outlier: the normalised median test over the 8 grid neighbours\n"
    "               (Westerweel & Scarano 2005) exceeds 2 with epsilon 0.1 px in dx\n"
    "               or dy (windows on a grid only); PIV passes: rejected by their\n"
    "               validation (--median-threshold and the others)\n"
    "           16  the moved window had to be kept inside the image (IC-GN: the\n"
    "               warped window reaches outside it)\n"
    "           32  refinement stopped before its step fell below --tol, or\n"
    "               IC-GN could not refine the window (its offset is then the\n"
    "               passes')\n"
    "           64  the image could not be read (--skip-bad): dx, dy, peak nan\n"
    "          128  the window is masked (--mask): not measured, dx, dy, peak nan\n"
    "          256  PIV passes: a rejected vector (flag 8), replaced from its valid\n"
    "               neighbours; without --keep-outliers every 8 comes with 256\n"
    "    zncc        zero-normalised correlation of the windows at the final offset;\n"
    "                nan (spelled so in every format but JSON's null) where a\n"
    "                window has no contrast, and the row is flagged 4\n"
    "    peak_ratio  first pass's peak over its highest other local maximum\n"
    "    iterations  refinement iterations done\n"
    "    znssd       IC-GN's final zero-normalised SSD, 2 (1 - zncc)\n"
    "    sigma_dx, sigma_dy  standard deviations of dx and dy (px), from the\n"
    "                residual and the Hessian, both images' noise counted\n"
    "    dudx, dudy, dvdx, dvdy  the displacement's gradient over the window\n"
    "                (reference coordinates; dudy = d(dx)/dy)\n"
    "    exx, eyy, exy  Green-Lagrange strain E = 1/2 (F^T F - I), F = I + grad u\n"
    "                (u = (dx, dy)): exx = dudx + (dudx^2 + dvdx^2)/2, eyy alike,\n"
    "                exy the tensor shear (half the engineering shear), y down\n"
    "\n"
    "Devices:\n"
    "  -d, --device SPEC    P:D (see `clxcorr devices`), a case-insensitive part of\n"
    "                       the device, vendor or platform name, or gpu, cpu,\n"
    "                       accelerator (default: $CLXCORR_DEVICE, else the first\n"
    "                       GPU, else the first device); a comma-separated list of\n"
    "                       those, or 'all' (every GPU; every device when there is\n"
    "                       no GPU), to share the batches among several devices:\n"
    "                       each takes the next batch as soon as it has room, so a\n"
    "                       faster device correlates more images. Each device uses\n"
    "                       its own method, batch and tuning; for output that does\n"
    "                       not depend on which device took an image, give --method\n"
    "                       and --fft, and use devices of one kind\n"
    "  Under mpirun (in a build with MPI, see --version), the images are dealt to\n"
    "  the ranks in chunks, each rank uses the device of this list (default: all)\n"
    "  matching its rank on its node, and rank 0 writes every row, in input order.\n"
    "      --no-cache       do not use compiled kernels cached in\n"
    "                       $XDG_CACHE_HOME/clxcorr (~/.cache/clxcorr)\n"
    "\n"
    "  -v, --verbose        say what is happening (twice: debug detail)\n"
    "  -q, --quiet          errors only: no progress line, no warnings\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (rows written so far are complete;\n"
    "an output FILE then stays FILE.part), 2 wrong command line, 130 or 143\n"
    "interrupted by SIGINT (Ctrl-C) or SIGTERM: the images in flight are finished\n"
    "and their rows written first; a second Ctrl-C ends it at once, as does the\n"
    "first while the run is setting up (building kernels: nothing written yet).\n";


static const struct option offsets_table[] = {
    OPTIONS_WINDOWS,
    { "mask", required_argument, NULL, OPT_MASK },
    { "mask-max", required_argument, NULL, OPT_MASK_MAX },
    { "median-threshold", required_argument, NULL, OPT_PIV_MEDIAN_THRESHOLD },
    { "min-peak-ratio", required_argument, NULL, OPT_PIV_MIN_PEAK_RATIO },
    { "min-zncc", required_argument, NULL, OPT_PIV_MIN_ZNCC },
    { "max-displacement", required_argument, NULL, OPT_PIV_MAX_DISPLACEMENT },
    { "keep-outliers", no_argument, NULL, OPT_PIV_KEEP_OUTLIERS },
    OPTION_LIST,
    OPTION_SCAN,
    OPTIONS_RUN_IMAGES,
    { "reference", required_argument, NULL, OPT_PAIRING },
    OPTION_MODE,
    OPTION_METHOD,
    OPTION_MAX_SHIFT,
    OPTION_EXPLAIN,
    OPTION_ESTIMATOR,
    OPTION_FIT_SIZE,
    OPTION_FFT,
    OPTION_DOUBLE,
    OPTIONS_ACCURATE,
    OPTION_BATCH,
    OPTIONS_RUN_BATCHES,
    OPTION_PARAM,
    OPTION_OUTPUT,
    OPTION_FORMAT,
    OPTION_COLUMNS,
    { "quiver", required_argument, NULL, OPT_QUIVER },
    OPTIONS_RUN_OUTPUT,
    OPTION_DEVICE,
    OPTION_NO_CACHE,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

/* --reference's value: first, previous or pairs. */
static int parse_pairing(const char *text, enum offsets_pairing *out)
{
    static const char *const names[] = { "first", "previous", "pairs" };
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (enum offsets_pairing)i;
            return 0;
        }
    report_error("--reference: unknown scheme '%s' (first, previous or pairs)", text);
    return -1;
}

/* PIV's validation options (into the multi-pass's options). */
static int validation_take(struct offsets_args *a, int c, const char *value)
{
    clx_multipass_options *o = &a->multipass_options;
    static const char *const names[] = { "--median-threshold", "--min-peak-ratio", "--min-zncc",
                                         "--max-displacement", "--keep-outliers" };
    const char *name = names[c - OPT_PIV_MEDIAN_THRESHOLD];
    if (!a->validation_option)
        a->validation_option = name;
    switch (c) {
    case OPT_PIV_MEDIAN_THRESHOLD: return option_taken(parse_double(value, name, 0, 1e6, &o->median_threshold));
    case OPT_PIV_MIN_PEAK_RATIO: return option_taken(parse_double(value, name, 0, 1e6, &o->min_peak_ratio));
    case OPT_PIV_MIN_ZNCC: return option_taken(parse_double(value, name, -1, 1, &o->min_zncc));
    case OPT_PIV_MAX_DISPLACEMENT: return option_taken(parse_double(value, name, 0, 1e6, &o->max_displacement));
    default: o->replace = 0; return 1;
    }
}

int offsets_take(void *own, int c, const char *value)
{
    struct offsets_args *a = own;
    if (c >= OPT_PIV_MEDIAN_THRESHOLD && c <= OPT_PIV_KEEP_OUTLIERS)
        return validation_take(a, c, value);
    switch (c) {
    case OPT_PAIRING: return option_taken(parse_pairing(value, &a->pairing));
    case 'j': return option_taken(parse_int(value, "--threads", 1, 32, &a->stream.loaders));
    case OPT_LANES: return option_taken(parse_int(value, "--lanes", 1, 16, &a->stream.lanes));
    case OPT_SHARD:
        a->shard_text = value;
        return option_taken(shard_parse(value, &a->shard_index, &a->shard_count));
    case OPT_META: a->meta = value; return 1;
    case OPT_RESUME: a->resume = 1; return 1;
    case OPT_SKIP_BAD: a->skip_bad = 1; return 1;
    case OPT_QUIVER: a->quiver = value; return 1;
    case OPT_MASK: a->mask = value; return 1;
    case OPT_MASK_MAX:
        a->mask_max_given = 1;
        return option_taken(parse_double(value, "--mask-max", 0, 1, &a->mask_max));
    }
    return 0;
}

static const struct command_options offsets_options = { "offsets", offsets_help, offsets_table, offsets_take };

/*
 * --reference previous or pairs: what they do not combine with. A shard or
 * a resumed run would cut a sequence's totals; the HDF5 file and the
 * remapping keep one reference's columns.
 */
static int pairing_check(const struct offsets_args *a)
{
    const char *scheme = a->pairing == PAIRING_PAIRS ? "pairs" : "previous";
    if (a->pairing == PAIRING_FIRST)
        return 0;
    const char *other = a->shard_count ? "--shard" : a->resume ? "--resume" : a->quiver ? "--quiver"
                        : a->out.format && strcmp(a->out.format, "h5") == 0 ? "--format h5" : NULL;
    if (other) {
        report_error("--reference %s does not combine with %s", scheme, other);
        return -1;
    }
    const clx_plan_options *p = &a->mode.plan;
    if (p->mode == CLX_MODE_ACCURATE && p->refine > 0 && p->refiner != CLX_REFINER_ICGN) {
        report_error("--reference %s refines by IC-GN (the default), not by --refine %s", scheme,
                     clx_refiner_name(p->refiner));
        return -1;
    }
    if (p->passes > 1) {
        report_error("--reference %s takes one correlation pass before IC-GN, not --passes %d", scheme, p->passes);
        return -1;
    }
    return 0;
}

/*
 * --reference pairs asking for PIV's deforming passes (a window per pass,
 * --passes or a validation option): their layout, said before the generic
 * window checks, whose "--window is only used with --grid or --grid-step"
 * or "--grid needs --window WxH" led to a layout the passes refuse.
 */
static int piv_layout_check(const struct offsets_args *a)
{
    const struct window_options *w = &a->win;
    char asked[96];
    if (w->npass_windows) {
        int n = snprintf(asked, sizeof asked, "--window %d", w->pass_windows[0]);
        for (int k = 1; k < w->npass_windows && n > 0 && (size_t)n < sizeof asked; k++)
            n += snprintf(asked + n, sizeof asked - (size_t)n, ",%d", w->pass_windows[k]);
    } else if (a->mode.plan.passes > 0) {
        snprintf(asked, sizeof asked, "--passes %d", a->mode.plan.passes);
    } else if (a->validation_option) {
        snprintf(asked, sizeof asked, "%s", a->validation_option);
    } else {
        return 0;
    }
    if ((w->regions_path != NULL) + w->have_grid + w->have_step > 1)
        return 0;   /* window_options_check: give one of them */
    if (w->regions_path)
        report_error("%s: PIV's deforming passes measure on a --grid-step grid, not on the windows of --regions %s: "
                     "give --grid-step S instead", asked, w->regions_path);
    else if (w->have_grid)
        report_error("%s: PIV's deforming passes measure on a --grid-step grid, not on --grid %dx%d: give "
                     "--grid-step S instead", asked, w->grid_nx, w->grid_ny);
    else if (!w->have_step)
        report_error("%s: PIV's deforming passes measure on a --grid-step grid: give --grid-step S", asked);
    else if (!w->have_window)
        report_error("%s: PIV's deforming passes need --window with --grid-step: one size (32) or one per pass, "
                     "largest first (64,32,32)", asked);
    else
        return 0;
    return -1;
}

/*
 * PIV's deforming passes: --reference pairs with --passes N, a window per
 * pass or a validation option, on a --grid-step grid of square windows
 * (piv_layout_check said why not otherwise).
 * Fills the multi-pass's options; the passes' plans then take one
 * correlation pass each (plan.passes back to the refiner's default).
 */
static int piv_check(struct offsets_args *a)
{
    const struct window_options *w = &a->win;
    clx_multipass_options *o = &a->multipass_options;
    int passes = a->pairing == PAIRING_PAIRS ? a->mode.plan.passes : 0;
    if (!w->npass_windows && !a->validation_option && passes == 0)
        return 0;
    if (a->pairing != PAIRING_PAIRS) {
        if (w->npass_windows)
            report_error("--window: a window per pass is for the deforming passes of --reference pairs");
        else if (strcmp(a->validation_option, "--keep-outliers") == 0)
            report_error("--keep-outliers keeps the outliers of the deforming passes of --reference pairs");
        else
            report_error("%s validates the deforming passes of --reference pairs", a->validation_option);
        return -1;
    }
    const char *other = a->mask ? "--mask" : a->skip_bad ? "--skip-bad" : NULL;
    if (other) {
        report_error("PIV's deforming passes do not combine with %s", other);
        return -1;
    }
    if (w->win_w != w->win_h) {
        report_error("PIV's deforming passes take square windows, not --window %dx%d", w->win_w, w->win_h);
        return -1;
    }
    o->passes = passes > w->npass_windows ? passes : w->npass_windows > 0 ? w->npass_windows : 1;
    if (passes > 0 && passes < w->npass_windows) {
        report_error("--passes %d with --window's %d windows: give one per pass at most", passes, w->npass_windows);
        return -1;
    }
    if (o->passes > WINDOW_PASSES_MAX) {
        report_error("--passes %d: PIV runs at most %d deforming passes", o->passes, WINDOW_PASSES_MAX);
        return -1;
    }
    for (int k = 0; k < o->passes; k++)
        o->window[k] = w->npass_windows ? w->pass_windows[k < w->npass_windows ? k : w->npass_windows - 1] : w->win_w;
    o->step = w->grid_step;
    o->margin = w->margin;
    a->mode.plan.passes = 0;
    a->piv = 1;
    return 0;
}

/* --format h5 writes a file, whole at the end of the run. */
static int h5_format_check(const struct offsets_args *a)
{
    if (!h5_output_available()) {
        report_error("--format h5: this clxcorr was built without HDF5 (configure found no libhdf5; install "
                     "libhdf5-dev and build again)");
        return -1;
    }
    if (!a->out.path || strcmp(a->out.path, "-") == 0) {
        report_error("--format h5 writes a file: give it with -o FILE.h5");
        return -1;
    }
    if (a->resume) {
        report_error("--resume continues text outputs (csv, tsv, jsonl); an interrupted --format h5 run starts "
                     "again");
        return -1;
    }
    return 0;
}

/* --format vtk and openpiv write a file per image. */
static int field_format_check(const struct offsets_args *a)
{
    const char *name = a->format.kind == ROW_FORMAT_VTK ? "vtk" : "openpiv";
    const char *wrong = NULL;
    if (a->strain)
        wrong = "writes offsets' windows; strain writes csv, tsv, jsonl or h5";
    else if (!a->out.path || strcmp(a->out.path, "-") == 0)
        wrong = "writes a file per image: name them with -o FILE (FILE, or FILE_0001 ... for several images)";
    else if (a->resume)
        wrong = "writes whole files per image; --resume continues text outputs (csv, tsv, jsonl)";
    else if (a->shard_count)
        wrong = "with --shard: shards number their files from 1 each; write csv and convert the merged file";
    else if (a->format.kind == ROW_FORMAT_OPENPIV && a->out.columns)
        wrong = "has fixed columns (x y u v flags mask): --columns is for the other formats";
    if (wrong) {
        report_error("--format %s %s", name, wrong);
        return -1;
    }
    return 0;
}

/* The rows' form, now that the mode (and so its columns) is known. */
static int format_resolve(struct offsets_args *a)
{
    clx_message msg;
    unsigned groups = row_groups_of(&a->mode.plan);
    if (a->pairing != PAIRING_FIRST)
        groups |= ROW_GROUP_PAIRS | (a->pairing == PAIRING_PREVIOUS ? ROW_GROUP_TOTALS : 0);
    if (a->strain)
        row_format_init_strain(&a->format);
    else
        row_format_init(&a->format, groups);
    if ((a->out.format && row_format_set_kind(&a->format, a->out.format, &msg) != CLX_OK) ||
        (a->out.columns && row_format_set_columns(&a->format, a->out.columns, groups, &msg) != CLX_OK)) {
        report_error("%s", msg.text);
        return -1;
    }
    if (a->shard_count && (a->format.kind == ROW_FORMAT_JSONL || a->format.kind == ROW_FORMAT_H5)) {
        report_error("--shard writes CSV or TSV (its first line describes the shard for merge); "
                     "convert the merged file if JSON lines or HDF5 are wanted");
        return -1;
    }
    if (a->format.kind == ROW_FORMAT_VTK || a->format.kind == ROW_FORMAT_OPENPIV)
        return field_format_check(a);
    return a->format.kind == ROW_FORMAT_H5 ? h5_format_check(a) : 0;
}

int offsets_parse_args(const struct command_options *command, int argc, char **argv, struct offsets_args *a)
{
    const struct option_values values = {
        .windows = &a->win, .images = &a->img, .mode = &a->mode, .device = &a->device, .output = &a->out, .own = a
    };
    int parsed = options_parse(command, &values, argc, argv);
    if (parsed != 0)
        return parsed;
    if (a->pairing == PAIRING_PAIRS) {
        /* Every image argument is a pair's; the first pair's first image
         * sizes the run (pairing_check). */
        a->mode.plan.pairs = 1;
        if (piv_layout_check(a) || window_options_check(&a->win, WINDOWS_REQUIRED | WINDOWS_PER_PASS) ||
            mode_options_check(&a->mode) ||
            piv_check(a) || pairing_check(a) || format_resolve(a))
            return -1;
        return image_options_add_args(&a->img, argc, argv, optind, ": name the pairs' images or use --list FILE");
    }
    /* strain --grains: each grain has its own reference, and every argument is a pattern. */
    int grains = a->strain && a->strain->grains;
    if (!grains && optind >= argc) {
        report_error("no reference image given (usage: clxcorr %s [OPTIONS] REFERENCE IMAGE...)", command->name);
        return -1;
    }
    a->reference = grains ? NULL : argv[optind++];
    a->mode.plan.pairs = a->pairing == PAIRING_PREVIOUS;
    if (a->resume && (!a->out.path || strcmp(a->out.path, "-") == 0)) {
        report_error("--resume continues the output FILE of an earlier run: give it with -o FILE");
        return -1;
    }
    if (a->mask_max_given && !a->mask) {
        report_error("--mask-max sets the threshold of --mask FILE");
        return -1;
    }
    if (window_options_check(&a->win, WINDOWS_REQUIRED | WINDOWS_PER_PASS) || mode_options_check(&a->mode) ||
        piv_check(a) || pairing_check(a) || format_resolve(a))
        return -1;
    return image_options_add_args(&a->img, argc, argv, optind,
                                  grains ? ": name the scan's pattern file" : ": name them after the reference or use --list FILE");
}

int offsets_main(int argc, char **argv, struct offsets_args *a, int (*parse)(int, char **, struct offsets_args *))
{
    struct offsets_run r;
    int status = EXIT_FAILURE_RUN;

    memset(&r, 0, sizeof r);
    run_meta_begin(&r.meta, argc, argv);
    mode_options_init(&a->mode);
    if (a->strain) {
        /* strain's own default (bench/strain-accuracy.sh): under Poisson
         * noise a Tukey window's wider plateau halves the strain error of
         * Hann's, at the same accuracy without noise. */
        a->mode.plan.window = CLX_WINDOW_TUKEY;
        a->mode.plan.window_alpha = 0.5;
    }
    clx_stream_options_init(&a->stream);
    a->mask_max = 0.5;
    clx_multipass_options_init(&a->multipass_options);
    int parsed = parse(argc, argv, a);
    if (parsed != 0) {
        image_options_free(&a->img);
        mode_options_free(&a->mode);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    r.mpi = mpi_active();
    offsets_interrupts_catch(!r.mpi);
    a->multipass_options.plan = a->mode.plan;
    if (offsets_setup(a, &r) == 0) {
        clx_message why = { "" };
        enum offsets_stream_end end =
            a->piv ? offsets_piv_stream(&r, &a->multipass_options, &why) : offsets_stream(&r, &a->mode.plan, &a->stream, &why);
        if (end != OFFSETS_NOT_SET_UP)
            status = offsets_report(&r, a, end == OFFSETS_FAILED, why.text);
    } else if (r.usage_error) {
        status = EXIT_USAGE;
    }
    offsets_setup_failed(&r);
    offsets_run_free(&r);
    free(a->first_page);
    image_options_free(&a->img);
    mode_options_free(&a->mode);
    /* Interrupted: the shell's convention, 128 + the signal. */
    int sig = offsets_interrupted();
    if (sig && status != EXIT_OK)
        status = 128 + sig;
    return status;
}

static int parse_args(int argc, char **argv, struct offsets_args *a)
{
    return offsets_parse_args(&offsets_options, argc, argv, a);
}

int cmd_offsets(int argc, char **argv)
{
    struct offsets_args a;
    memset(&a, 0, sizeof a);
    return offsets_main(argc, argv, &a, parse_args);
}
