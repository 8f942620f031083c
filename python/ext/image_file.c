/*
 * image_file.c - ImageFile: an image or EBSD pattern file opened by its
 * name as clxcorr takes names ("PATH", "PATH#N", "PATH#ROW,COL":
 * clx_image_name_open), the pages the name stands for, the scan of a
 * pattern file, and its pages decoded into Pixels.
 */
#include "core.h"

#include <limits.h>
#include <math.h>

typedef struct {
    PyObject_HEAD
    clx_image_file *file;
    int first_page, last_page;
    /* One decode at a time: not every format may be read from several
     * threads at once (clx_image_file_shared). */
    PyThread_type_lock lock;
} ImageFileObject;

static PyObject *image_file_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = { "name", "scan", NULL };
    PyObject *name_bytes;
    const char *scan = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|z:ImageFile", keywords, PyUnicode_FSConverter, &name_bytes,
                                     &scan))
        return NULL;
    ImageFileObject *f = (ImageFileObject *)type->tp_alloc(type, 0);
    if (f)
        f->lock = PyThread_allocate_lock();
    if (!f || !f->lock) {
        Py_DECREF(name_bytes);
        Py_XDECREF(f);
        return f ? PyErr_NoMemory() : NULL;
    }
    const char *name = PyBytes_AS_STRING(name_bytes);
    clx_message msg;
    int status;
    /* A container's headers are read here: HDF5 files may take a while. */
    Py_BEGIN_ALLOW_THREADS
    status = clx_image_name_open(name, scan, &f->file, &f->first_page, &f->last_page, &msg);
    Py_END_ALLOW_THREADS
    Py_DECREF(name_bytes);
    if (status != CLX_OK) {
        Py_DECREF(f);
        return core_raise(status, msg.text);
    }
    return (PyObject *)f;
}

static void image_file_dealloc(ImageFileObject *f)
{
    clx_image_file_close(f->file);
    if (f->lock)
        PyThread_free_lock(f->lock);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

/* read(page): page `page` (0-based in the file) decoded, as Pixels. */
static PyObject *image_file_read(ImageFileObject *f, PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    /* Out of int's range is out of the file's: the library says so. */
    int page = v < INT_MIN || v > INT_MAX ? -1 : (int)v;
    clx_image image = { 0, 0, 0, NULL };
    clx_message msg;
    int status;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(f->lock, WAIT_LOCK);
    status = clx_image_file_read(f->file, page, &image, &msg);
    PyThread_release_lock(f->lock);
    Py_END_ALLOW_THREADS
    if (status != CLX_OK)
        return core_raise(status, msg.text);
    return pixels_take(&image);
}

/* A number of the scan that may be NaN ("the file does not say"): None then. */
static PyObject *maybe(double v)
{
    if (isnan(v))
        Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

static PyObject *image_file_scan(ImageFileObject *f, void *closure)
{
    (void)closure;
    const clx_scan_info *s = clx_image_file_scan(f->file);
    if (!s)
        Py_RETURN_NONE;
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:d,s:d,s:O,s:O,s:N,s:N,s:N,s:s,s:N,s:N,s:N,s:N,s:N,s:i,s:O}",
                         "format", s->format, "scan", s->scan, "rows", s->rows, "cols", s->cols,
                         "step_x", s->step_x, "step_y", s->step_y, "has_pc", s->has_pc ? Py_True : Py_False,
                         "pc_per_point", s->pc_per_point ? Py_True : Py_False,
                         "pcx", maybe(s->has_pc ? s->pcx : NAN),
                         "pcy", maybe(s->has_pc ? s->pcy : NAN),
                         "pcz", maybe(s->has_pc ? s->pcz : NAN),
                         "pc_convention", s->pc_convention, "sample_tilt", maybe(s->sample_tilt),
                         "detector_tilt", maybe(s->detector_tilt), "azimuthal", maybe(s->azimuthal),
                         "twist", maybe(s->twist), "pixel_size", maybe(s->pixel_size), "binning", s->binning,
                         "has_euler", s->has_euler ? Py_True : Py_False);
}

static PyObject *image_file_pages(ImageFileObject *f, void *c) { (void)c; return PyLong_FromLong(clx_image_file_pages(f->file)); }
static PyObject *image_file_first(ImageFileObject *f, void *c) { (void)c; return PyLong_FromLong(f->first_page); }
static PyObject *image_file_last(ImageFileObject *f, void *c) { (void)c; return PyLong_FromLong(f->last_page); }

static PyMethodDef image_file_methods[] = {
    { "read", (PyCFunction)image_file_read, METH_O, "read(page): the page decoded, as Pixels." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef image_file_getset[] = {
    { "pages", (getter)image_file_pages, NULL, "Pages (images) in the file.", NULL },
    { "first_page", (getter)image_file_first, NULL, "The first page the name stands for.", NULL },
    { "last_page", (getter)image_file_last, NULL, "The last page the name stands for.", NULL },
    { "scan", (getter)image_file_scan, NULL, "A pattern file's scan (clx_scan_info) as a dict, or None.", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject ImageFile_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "clxcorr._core.ImageFile",
    .tp_basicsize = sizeof(ImageFileObject),
    .tp_dealloc = (destructor)image_file_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ImageFile(name, scan=None): clx_image_name_open.",
    .tp_methods = image_file_methods,
    .tp_getset = image_file_getset,
    .tp_new = image_file_new,
};
