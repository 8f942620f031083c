/* main.c - the clxcorr command: global options and subcommand dispatch. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mpi_ranks.h"
#include "output/h5_output.h"
#include "report.h"

static const char main_help[] =
    "Usage: clxcorr COMMAND [OPTIONS] [ARGUMENTS]\n"
    "\n"
    "Measure how subregions (windows) of images move relative to a reference\n"
    "image, by cross-correlation on an OpenCL device (GPU or CPU).\n"
    "\n"
    "Commands:\n"
    "  offsets    one sub-pixel offset per image and window, as CSV, TSV or JSON\n"
    "             lines (on several devices, MPI ranks or --shard K/N too)\n"
    "  strain     HR-EBSD: elastic strain and lattice rotation of each pattern,\n"
    "             from its windows' offsets\n"
    "  correlate  the correlation surfaces themselves, as float TIFF pages\n"
    "  filter     filter images (Gaussian, highpass, background, any separable\n"
    "             kernel) on the device, into float or 16-bit TIFF\n"
    "  tune       find the fastest kernel parameters for this device and store\n"
    "             them; offsets then uses them (tune --show lists them)\n"
    "  bench      standard workloads on one or every device: images/s, stage\n"
    "             times, bandwidth; JSON, CSV and an SVG chart\n"
    "  plot       draw a results file as PNG: arrows over the reference, or dx\n"
    "             and dy of each window against the image index\n"
    "  merge      join the outputs of offsets --shard K/N into one, in input order\n"
    "  gnd        geometrically necessary dislocations from strain's rows\n"
    "  devices    list the OpenCL platforms and devices\n"
    "  help CMD   the options of a command (same as: clxcorr CMD --help)\n"
    "\n"
    "Options:\n"
    "  -h, --help     this help\n"
    "  -V, --version  version and build features\n"
    "\n"
    "Example:\n"
    "  clxcorr offsets --grid 10x5 --window 100x100 --margin 20 ref.tif img_*.tif\n";

static int dispatch(const char *command, int argc, char **argv)
{
    if (strcmp(command, "offsets") == 0)
        return cmd_offsets(argc, argv);
    if (strcmp(command, "strain") == 0)
        return cmd_strain(argc, argv);
    if (strcmp(command, "correlate") == 0)
        return cmd_correlate(argc, argv);
    if (strcmp(command, "filter") == 0)
        return cmd_filter(argc, argv);
    if (strcmp(command, "tune") == 0)
        return cmd_tune(argc, argv);
    if (strcmp(command, "bench") == 0)
        return cmd_bench(argc, argv);
    if (strcmp(command, "plot") == 0)
        return cmd_plot(argc, argv);
    if (strcmp(command, "devices") == 0)
        return cmd_devices(argc, argv);
    if (strcmp(command, "merge") == 0)
        return cmd_merge(argc, argv);
    if (strcmp(command, "gnd") == 0)
        return cmd_gnd(argc, argv);
    report_error("unknown command '%s' (see clxcorr --help)", command);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* A closed pipe is a write error with a message, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    h5_output_init();
    if (argc < 2) {
        report_error("no command given (see clxcorr --help)");
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(main_help, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("clxcorr %s\nfeatures: %s", clx_version(), clx_build_features());
#ifdef HAVE_MPI
        printf(" mpi (%s)", mpi_library_version());
#endif
        putchar('\n');
        /* A line of its own, so that a script's grep for " hdf5" on the features line stays a yes/no test. */
        if (!strstr(clx_build_features(), "hdf5"))
            puts("without: hdf5 (EBSD HDF5 containers and --format h5 unavailable; install libhdf5-dev and build "
                 "again)");
        return EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            fputs(main_help, stdout);
            return EXIT_OK;
        }
        char *help_argv[] = { argv[2], "--help", NULL };
        return dispatch(argv[2], 2, help_argv);
    }
    if (cmd[0] == '-') {
        report_error("options go after the command, e.g. clxcorr offsets %s ... (see clxcorr --help)", cmd);
        return EXIT_USAGE;
    }
    /* Under mpirun, offsets and strain run as one of several ranks. */
    if (strcmp(cmd, "offsets") == 0 || strcmp(cmd, "strain") == 0)
        mpi_start(&argc, &argv);
    /* The subcommand sees itself as argv[0]. */
    int status = dispatch(argv[1], argc - 1, argv + 1);
    mpi_stop();
    return status;
}
