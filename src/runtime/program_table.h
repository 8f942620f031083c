/*
 * program_table.h - the compiled programs of one OpenCL context, each built
 * or loaded once (internal).
 *
 * Every plan, and so every lane of a stream, asks for the same programs
 * (window sums, prepare, argmax, ...) with the same build options. Without a
 * table each of them read the source, hashed it and loaded the binary from
 * the disk cache (or compiled it) again. The table belongs to the OpenCL
 * context: a clx_context and its clones (the lanes) share it, and it lives
 * until the last of them is released (darktable's and UFO's programs are
 * owned the same way: one owner per device context, built once, shared).
 *
 * The table only keeps and finds programs; how one is made is the caller's
 * (runtime/program_build.c), passed in as a function. Thread-safe: lanes
 * build what they need lazily (a pixel type's kernels on its first image).
 */
#ifndef CLX_PROGRAM_TABLE_H
#define CLX_PROGRAM_TABLE_H

#include <CL/cl.h>

struct program_table;

/* A new, empty table with one reference; NULL when out of memory. */
struct program_table *program_table_create(void);

/* Another reference (a context clone's). */
void program_table_retain(struct program_table *t);

/* Drops a reference; the last one releases every program in the table. */
void program_table_release(struct program_table *t);

/* Makes the program for `file` built with `options`: CLX_OK with *program
 * set, or a clx_status (the maker reports its own failure). */
typedef int (*program_make_fn)(void *user, const char *file, const char *options, cl_program *program);

/*
 * The program for (file, options), with a reference of the caller's own
 * (clReleaseProgram it when done): the one in the table, or made by `make`
 * and kept. Makers run one at a time, so that two lanes asking for the same
 * program at once make it once. *made says whether this call made it.
 */
int program_table_get(struct program_table *t, const char *file, const char *options, program_make_fn make,
                      void *user, cl_program *program, int *made);

#endif
