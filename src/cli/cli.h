/* cli.h - the clxcorr command: its exit statuses and its subcommands. */
#ifndef CLX_CLI_H
#define CLX_CLI_H

/* Exit statuses of the command. */
#define EXIT_OK 0
#define EXIT_FAILURE_RUN 1     /* the job failed: bad input, device error, ... */
#define EXIT_USAGE 2           /* the command line is wrong */

/* Subcommands: each parses its own options and returns an exit status. */
int cmd_devices(int argc, char **argv);
int cmd_offsets(int argc, char **argv);
int cmd_strain(int argc, char **argv);
int cmd_correlate(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_gnd(int argc, char **argv);

#endif
