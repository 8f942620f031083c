/*
 * core.h - what the files of the extension module clxcorr._core share.
 *
 * The module is a thin layer over libclxcorr's public API (clxcorr.h): it
 * holds the library's objects, moves pixels and results between the library
 * and Python buffers, releases the GIL around every call that waits for a
 * device or a file, and turns a status into the package's exception with
 * the library's message. Everything else (which arrays are accepted, the
 * result columns) is the Python package's (python/src/clxcorr/).
 *
 *   module.c       the module: devices, versions, status names, exceptions
 *   context.c      Context: one device, its lock, its log
 *   plan.c         Plan: one reference, window list and option set; push, read
 *   plan_options.c option dictionaries into clx_plan_options
 *   image_file.c   ImageFile: an image or pattern file by name; its pages
 *   pixels.c       Pixels: pixels the library decoded, as a Python buffer
 *   windows.c      window lists (a grid, a windows file) as bytes of int rows
 *   strain.c       strain(): an HR-EBSD job (clx_strain_job) run whole, rows as float64
 *   gnd.c          gnd_map(), gnd_steps(): Nye's components over a map (clx_gnd_map)
 */
#ifndef CLXCORR_PY_CORE_H
#define CLXCORR_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include "clxcorr.h"

/* ---- module.c ---- */

/* Raises the package's exception for `status` (a clxcorr.Error subclass,
 * chosen by status name) carrying `message`; returns NULL. */
PyObject *core_raise(int status, const char *message);

/* ---- context.c ---- */

/* Log lines the library produced during one call, kept until the GIL is
 * held again: the library calls its log function from inside a call made
 * with the GIL released, where no Python may run. */
struct log_lines {
    char *text;              /* per line: its level as a digit, the text, a NUL */
    size_t len, cap;
    /* Held only to add a line or take them all: a flush in one thread
     * while another thread's call logs. */
    PyThread_type_lock lock;
};

typedef struct {
    PyObject_HEAD
    clx_context *ctx;        /* NULL once closed */
    /* One thread at a time in the context and its plans (clxcorr.h,
     * "Threads"); taken with the GIL released, so that a thread waiting
     * for it never holds up the others. */
    PyThread_type_lock lock;
    struct log_lines log;
} ContextObject;

extern PyTypeObject Context_Type;

/* Takes the context's lock; call with the GIL released. */
void context_lock(ContextObject *c);
void context_unlock(ContextObject *c);
/* Hands the lines logged since the last flush to Python's logging
 * ("clxcorr" logger); call with the GIL held. */
void context_log_flush(ContextObject *c);
/* NULL with clxcorr.StateError raised when the context was closed. */
clx_context *context_open_handle(ContextObject *c);

/* ---- plan.c, plan_options.c ---- */

extern PyTypeObject Plan_Type;

/*
 * Fills `o` (already set to the defaults) from a dict of clx_plan_options
 * field names; enum fields take the library's names ("seed", "icgn").
 * Returns 0, or -1 with a Python exception set. The strings it points `o`
 * at belong to the dict's values: keep the dict alive while `o` is used.
 */
int plan_options_from_dict(PyObject *dict, clx_plan_options *o);
/* plan_defaults(): clx_plan_options_init's values, as such a dict. */
PyObject *plan_defaults(PyObject *self, PyObject *unused);

/* ---- pixels.c ---- */

extern PyTypeObject Pixels_Type;

/* A Pixels object owning `image`'s pixels (the struct is taken over and
 * cleared); NULL with an exception set. */
PyObject *pixels_take(clx_image *image);
/* check_finite(pixels, width, height, first, what): a buffer of float32
 * images (width x height each, back to back) through clx_image_check_finite,
 * each named `what` when given, else "image N" counting from `first`. */
PyObject *pixels_check_finite(PyObject *self, PyObject *args);

/* ---- image_file.c ---- */

extern PyTypeObject ImageFile_Type;

/* ---- windows.c ---- */

PyObject *windows_grid(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *windows_read(PyObject *self, PyObject *args);

/* ---- strain.c ---- */

PyObject *strain_run(PyObject *self, PyObject *args);

/* ---- gnd.c ---- */

PyObject *gnd_map(PyObject *self, PyObject *args);
PyObject *gnd_steps(PyObject *self, PyObject *args);

/* The numpy-style format character of a pixel type ("B", "H", "f"). */
const char *pixel_format(clx_pixel_type type);

#endif
