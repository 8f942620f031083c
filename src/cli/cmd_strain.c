/*
 * cmd_strain.c - `clxcorr strain`: HR-EBSD. The windows of every pattern
 * are correlated as `clxcorr offsets` does (the same run: lanes, devices,
 * shards, MPI, --resume), and each pattern's shifts are fitted by its
 * lane to the displacement gradient (strain_job.h, clx_strain_fit): one
 * row per pattern of strain and rotation in the sample frame. With --remap
 * the patterns are correlated again, remapped by their measured rotation,
 * until it settles (strain_remap.c).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "offsets_run.h"

static const char strain_help[] =
    "Usage: clxcorr strain [OPTIONS] REFERENCE PATTERN...\n"
    "       clxcorr strain [OPTIONS] REFERENCE SCAN.h5\n"
    "       clxcorr strain --grains auto|MAP [OPTIONS] SCAN.h5\n"
    "\n"
    "HR-EBSD: the elastic strain and lattice rotation of each PATTERN relative\n"
    "to REFERENCE, from the shifts of its windows (Wilkinson, Meaden and\n"
    "Dingley 2006). The windows are correlated as `clxcorr offsets` does; each\n"
    "pattern's shifts q = beta r - ((beta r).n / (r.n)) r are fitted to the\n"
    "displacement gradient beta by least squares. One row per pattern. The\n"
    "frames and signs: doc/hrebsd-conventions.md.\n"
    "\n"
    "Windows (at least 4; 20 or more spread over the pattern is usual):\n"
    "  -r, --regions FILE   windows file (as clxcorr offsets)\n"
    "  -g, --grid NXxNY     a grid of windows, with -w, --window WxH and\n"
    "  -m, --margin M       pixels kept free at the borders\n"
    "      --grid-step S    a window every S pixels instead of --grid (as offsets)\n"
    "\n"
    "Geometry (the pattern file's header gives what these do not):\n"
    "All in kikuchipy's conventions (doc/hrebsd-conventions.md), which the file\n"
    "readers convert each vendor's into:\n"
    "      --pc X,Y,Z       pattern centre of REFERENCE, Bruker's convention: X\n"
    "                       from the left over the width, Y from the top over\n"
    "                       the height (fractions, 0 to 1 on the screen), Z the\n"
    "                       detector distance over the height\n"
    "      --sample-tilt D  sample tilt in degrees (typically 70)\n"
    "      --detector-tilt D  kikuchipy's detector tilt in degrees (EDAX's camera\n"
    "                       elevation, Bruker's CameraTilt): the screen's top\n"
    "                       leans D degrees away from the sample\n"
    "      --pattern-centres M  each pattern's centre: file (the file's own, one\n"
    "                       per point), beam-shift (the reference's moved with\n"
    "                       the beam across the scan, as kikuchipy's\n"
    "                       extrapolate_pc: needs --pixel-size and the steps),\n"
    "                       fixed (the reference's), or auto (default: file\n"
    "                       where the file has them, else beam-shift where a\n"
    "                       real pixel size is known, else fixed)\n"
    "      --pixel-size UM  a pattern pixel on the detector in um (unbinned size x\n"
    "                       binning), for the beam shift (a file's header may\n"
    "                       give it; kikuchipy's placeholder of 1 um is ignored)\n"
    "      --step X,Y       the scan's step in um (a pattern file's header gives it)\n"
    "      --scan-cols C    PATTERNs given as files lie C to a scan row, in order\n"
    "      --ref-point R,C  REFERENCE's scan point, when it is not FILE#R,C\n"
    "\n"
    "A reference per grain (polycrystals):\n"
    "      --grains auto    the scan's grains from its orientations (the pattern\n"
    "                       file's, or --orientations FILE): neighbours less than\n"
    "                       --grain-angle DEG apart (default 5) join, grains of\n"
    "                       fewer than --min-grain N points (default 10) are left\n"
    "                       out (flag 32, no numbers); each grain's reference is\n"
    "                       its best pattern (the indexing's IQ or band contrast)\n"
    "                       within half its equivalent radius of its centre\n"
    "      --grains MAP     grains from an image of the scan's rows x columns,\n"
    "                       each pixel a grain number (0: none)\n"
    "      --grain-references FILE  'GRAIN ROW COL' lines: these references instead\n"
    "      --symmetry S     cubic or hexagonal (default: the orientation file's)\n"
    "                       Rows then come grain by grain, with columns grain,\n"
    "                       ref_row, ref_col; no REFERENCE argument.\n"
    "\n"
    "Strain:\n"
    "      --stiffness SPEC cubic:C11,C12,C44 or hexagonal:C11,C12,C13,C33,C44 in\n"
    "                       GPa (crystal frame): with each pattern's orientation\n"
    "                       (the pattern file's, --orientations or --euler) the\n"
    "                       surface's traction-free condition (sigma33 = 0) gives\n"
    "                       the full strain; without it the strain is deviatoric\n"
    "                       (trace 0, flag 4)\n"
    "      --orientations FILE  each pattern's orientation from an indexed scan:\n"
    "                       EDAX .ang or Oxford .ctf (Bunge angles as the file\n"
    "                       writes them); a pattern takes its scan point's (the\n"
    "                       pattern file's grid, or --scan-cols), else the point\n"
    "                       of its index; the file's grid must be the patterns'\n"
    "      --euler P1,P,P2  one crystal orientation for every pattern: Bunge Euler\n"
    "                       angles in degrees, sample frame to crystal frame\n"
    "      --min-zncc Z     windows whose zncc is below Z are not used (default 0.2)\n"
    "      --min-peak-ratio R  ... whose peak_ratio is below R (default 1.0)\n"
    "      --max-residual PX  robust fit: the worst window is dropped while its\n"
    "                       residual exceeds 3 x the RMS residual and PX (default\n"
    "                       0.1 px), as long as more than 4 windows remain\n"
    "      --remap          correlate each pattern again, remapped on the device by\n"
    "                       the inverse of its measured deformation, until its\n"
    "                       rotation changes by less than --remap-tol degrees\n"
    "                       (default 0.01) or --remap-passes N (default 4): for\n"
    "                       rotations of a degree and more, and the most accurate\n"
    "                       strain (the last pass measures shifts near zero, where\n"
    "                       sub-pixel estimates are least biased)\n"
    "      --remap-rotation --remap by the measured rotation alone (Britton and\n"
    "                       Wilkinson 2012)\n"
    "\n"
    "Mode: accurate with --window-fn tukey:0.5 (under noise, half the strain\n"
    "error of hann; bench/strain-accuracy.sh), unless told otherwise.\n"
    "Images, mode, batches and devices: as clxcorr offsets (--list, --scan,\n"
    "--shard, --skip-bad, --mode, --method, --max-shift, --explain, --estimator,\n"
    "--fit-size, --fft, --double, --prefilter, --window-fn, --passes, --refine,\n"
    "--tol, --fine-shift, --interp, -b, -j, --lanes, --param, -d, --no-cache;\n"
    "see clxcorr offsets --help).\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE    write the rows to FILE (default: standard output), as\n"
    "                       FILE.part until the run completes\n"
    "      --format F       csv (default), tsv, jsonl, or h5 (one dataset per\n"
    "                       column, (scan rows, scan columns) over a whole scan)\n"
    "      --columns LIST   the columns to write, in this order\n"
    "      --resume         continue the run that left FILE.part\n"
    "      --meta FILE      also write FILE (JSON): version, command, devices, timings,\n"
    "                       the fit's host time (seconds.strain_fit, summed over\n"
    "                       the lanes) and its share of the run (strain_fit_share)\n"
    "  Columns: image (over a pattern file's scan: scan_row,scan_col,scan_x,\n"
    "  scan_y), e11,e12,e13,e22,e23,e33 (strain, sample frame, tensor shears),\n"
    "  w1,w2,w3 (rotation in radians about the sample's x, y, z: W32, W13,\n"
    "  W21), with --grains grain,ref_row,ref_col, where the reference's\n"
    "  orientation is known phi1,Phi,phi2 (the pattern's refined orientation:\n"
    "  the reference's turned by w; Bunge, radians, orix's frame), residual\n"
    "  (RMS of the fitted shifts' misfit, px), windows (used),\n"
    "  flags: 0 a full fit, else the sum of\n"
    "            1  fewer than 4 usable windows: no numbers (nan)\n"
    "            2  the windows do not fix the fit (on a line, say): nan\n"
    "            4  the strain is deviatoric (no --stiffness or no orientation)\n"
    "            8  the robust fit dropped windows\n"
    "           16  --remap: the rotation had not settled after the last pass\n"
    "           32  --grains: the point is in no grain (nan)\n"
    "\n"
    "  -v, --verbose        say what is happening; at the end, the fit's host time\n"
    "                       and its share of the run's wall time (--explain too)\n"
    "  -q, --quiet          errors only\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: as clxcorr offsets (0 success, 1 the run failed, 2 wrong\n"
    "command line, 130/143 interrupted).\n";

enum {
    OPT_PC = OPT_RUN_OWN,
    OPT_SAMPLE_TILT,
    OPT_DETECTOR_TILT,
    OPT_PIXEL_SIZE,
    OPT_STEP,
    OPT_PATTERN_CENTRES,
    OPT_SCAN_COLS,
    OPT_REF_POINT,
    OPT_STIFFNESS,
    OPT_EULER,
    OPT_ORIENTATIONS,
    OPT_MIN_ZNCC,
    OPT_MIN_PEAK_RATIO,
    OPT_MAX_RESIDUAL,
    OPT_REMAP,
    OPT_REMAP_TOL,
    OPT_REMAP_PASSES,
    OPT_REMAP_ROTATION,
    OPT_GRAINS,
    OPT_GRAIN_ANGLE,
    OPT_MIN_GRAIN,
    OPT_SYMMETRY,
    OPT_GRAIN_REFERENCES
};

static const struct option strain_table[] = {
    OPTIONS_WINDOWS,
    OPTION_LIST,
    OPTION_SCAN,
    OPTIONS_RUN_IMAGES,
    { "pc", required_argument, NULL, OPT_PC },
    { "sample-tilt", required_argument, NULL, OPT_SAMPLE_TILT },
    { "detector-tilt", required_argument, NULL, OPT_DETECTOR_TILT },
    { "pixel-size", required_argument, NULL, OPT_PIXEL_SIZE },
    { "step", required_argument, NULL, OPT_STEP },
    { "pattern-centres", required_argument, NULL, OPT_PATTERN_CENTRES },
    { "scan-cols", required_argument, NULL, OPT_SCAN_COLS },
    { "ref-point", required_argument, NULL, OPT_REF_POINT },
    { "stiffness", required_argument, NULL, OPT_STIFFNESS },
    { "euler", required_argument, NULL, OPT_EULER },
    { "orientations", required_argument, NULL, OPT_ORIENTATIONS },
    { "min-zncc", required_argument, NULL, OPT_MIN_ZNCC },
    { "min-peak-ratio", required_argument, NULL, OPT_MIN_PEAK_RATIO },
    { "max-residual", required_argument, NULL, OPT_MAX_RESIDUAL },
    { "remap", no_argument, NULL, OPT_REMAP },
    { "remap-tol", required_argument, NULL, OPT_REMAP_TOL },
    { "remap-passes", required_argument, NULL, OPT_REMAP_PASSES },
    { "remap-rotation", no_argument, NULL, OPT_REMAP_ROTATION },
    { "grains", required_argument, NULL, OPT_GRAINS },
    { "grain-angle", required_argument, NULL, OPT_GRAIN_ANGLE },
    { "min-grain", required_argument, NULL, OPT_MIN_GRAIN },
    { "symmetry", required_argument, NULL, OPT_SYMMETRY },
    { "grain-references", required_argument, NULL, OPT_GRAIN_REFERENCES },
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
    OPTIONS_RUN_OUTPUT,
    OPTION_DEVICE,
    OPTION_NO_CACHE,
    OPTIONS_VERBOSITY,
    OPTIONS_END
};

/* "A,B,C": n finite reals. */
static int parse_reals(const char *text, const char *option, const char *form, int n, double *out)
{
    const char *p = text;
    for (int k = 0; k < n; k++) {
        char *end;
        out[k] = strtod(p, &end);
        if (end == p || !isfinite(out[k]) || (k + 1 < n ? *end != ',' : *end != '\0')) {
            report_error("%s: expected %s, got '%s'", option, form, text);
            return -1;
        }
        p = end + 1;
    }
    return 0;
}

static int strain_take(void *own, int c, const char *value)
{
    struct offsets_args *a = own;
    clx_strain_job_options *o = a->strain;
    int ints[2];
    switch (c) {
    case OPT_PC: {
        clx_message msg;
        o->have_pc = 1;
        if (parse_reals(value, "--pc", "X,Y,Z (three numbers)", 3, o->pc) != 0)
            return -1;
        if (clx_detector_pc_check(o->pc, &msg) != CLX_OK) {
            report_error("--pc %s: %s", value, msg.text);
            return -1;
        }
        return 1;
    }
    case OPT_SAMPLE_TILT: return option_taken(parse_double(value, "--sample-tilt", -90, 90, &o->sample_tilt));
    case OPT_DETECTOR_TILT: return option_taken(parse_double(value, "--detector-tilt", -90, 90, &o->detector_tilt));
    case OPT_PIXEL_SIZE: return option_taken(parse_double(value, "--pixel-size", 1e-6, 1e6, &o->pixel_size));
    case OPT_STEP: {
        double step[2];
        if (parse_reals(value, "--step", "X,Y in um", 2, step) != 0)
            return -1;
        /* 0 along an axis: the beam does not move along it. */
        if (step[0] < 0 || step[1] < 0) {
            report_error("--step: steps must not be negative, got '%s'", value);
            return -1;
        }
        o->step_x = step[0];
        o->step_y = step[1];
        return 1;
    }
    case OPT_PATTERN_CENTRES: {
        static const char *const modes[] = { "auto", "file", "beam-shift", "fixed" };
        for (int k = 0; k < 4; k++)
            if (strcmp(value, modes[k]) == 0) {
                o->pattern_centres = (clx_pattern_centres)k;
                return 1;
            }
        report_error("--pattern-centres: expected auto, file, beam-shift or fixed, got '%s'", value);
        return -1;
    }
    case OPT_SCAN_COLS: return option_taken(parse_int(value, "--scan-cols", 1, 1 << 30, &o->scan_cols));
    case OPT_REF_POINT:
        if (parse_ints(value, "--ref-point", "ROW,COL", 2, ints) != 0)
            return -1;
        o->have_ref_point = 1;
        o->ref_row = ints[0];
        o->ref_col = ints[1];
        return 1;
    case OPT_STIFFNESS: o->stiffness = value; return 1;
    case OPT_EULER:
        if (parse_reals(value, "--euler", "PHI1,PHI,PHI2 in degrees", 3, o->euler) != 0)
            return -1;
        for (int k = 0; k < 3; k++)
            o->euler[k] *= M_PI / 180;
        o->have_euler = 1;
        return 1;
    case OPT_ORIENTATIONS: o->orientations = value; return 1;
    case OPT_MIN_ZNCC: return option_taken(parse_double(value, "--min-zncc", -1, 1, &o->fit.min_zncc));
    case OPT_MIN_PEAK_RATIO:
        return option_taken(parse_double(value, "--min-peak-ratio", 0, 1e6, &o->fit.min_peak_ratio));
    case OPT_MAX_RESIDUAL: return option_taken(parse_double(value, "--max-residual", 0, 1e6, &o->fit.max_residual));
    case OPT_REMAP: o->remap = 1; return 1;
    case OPT_REMAP_ROTATION: o->remap = o->remap_rotation = 1; return 1;
    case OPT_REMAP_TOL: return option_taken(parse_double(value, "--remap-tol", 1e-6, 10, &o->remap_tol));
    case OPT_REMAP_PASSES: return option_taken(parse_int(value, "--remap-passes", 1, 50, &o->remap_passes));
    case OPT_GRAINS: o->grains = value; return 1;
    case OPT_GRAIN_ANGLE: return option_taken(parse_double(value, "--grain-angle", 0.01, 60, &o->grain_angle));
    case OPT_MIN_GRAIN: return option_taken(parse_int(value, "--min-grain", 1, 1 << 30, &o->min_grain));
    case OPT_GRAIN_REFERENCES: o->grain_references = value; return 1;
    case OPT_SYMMETRY:
        if (strcmp(value, "cubic") == 0)
            o->symmetry = CLX_SYMMETRY_CUBIC;
        else if (strcmp(value, "hexagonal") == 0)
            o->symmetry = CLX_SYMMETRY_HEXAGONAL;
        else {
            report_error("--symmetry: expected cubic or hexagonal, got '%s'", value);
            return -1;
        }
        return 1;
    }
    return offsets_take(own, c, value);
}

static const struct command_options strain_command = { "strain", strain_help, strain_table, strain_take };

static int parse_args(int argc, char **argv, struct offsets_args *a)
{
    int parsed = offsets_parse_args(&strain_command, argc, argv, a);
    if (parsed != 0)
        return parsed;
    if (a->strain->stiffness) {
        clx_message msg;
        double c[36];
        if (clx_stiffness_parse(a->strain->stiffness, c, &msg) != CLX_OK) {
            report_error("--stiffness: %s", msg.text);
            return -1;
        }
    }
    if (a->strain->have_euler && a->strain->orientations) {
        report_error("--euler and --orientations both give the orientation: give one of them");
        return -1;
    }
    const clx_strain_job_options *o = a->strain;
    if (!o->grains && (o->grain_references || o->symmetry >= 0)) {
        report_error("%s chooses among grains: give --grains auto or --grains MAP",
                     o->grain_references ? "--grain-references" : "--symmetry");
        return -1;
    }
    if (a->strain->remap && (a->resume || a->shard_count)) {
        report_error("--remap keeps every pattern until its last pass: it does not run with %s",
                     a->resume ? "--resume" : "--shard");
        return -1;
    }
    return 0;
}

int cmd_strain(int argc, char **argv)
{
    struct offsets_args a;
    clx_strain_job_options o;
    memset(&a, 0, sizeof a);
    clx_strain_job_options_init(&o);
    a.strain = &o;
    return offsets_main(argc, argv, &a, parse_args);
}
