/*
 * windows.c - window lists from the library: a regular grid
 * (clx_regions_grid) and a windows file (clx_regions_read), as bytes of
 * (x, y, w, h) int rows that the package views as an (N, 4) int32 array.
 */
#include "core.h"

#include <stdlib.h>

static PyObject *regions_bytes(clx_region *regions, size_t count)
{
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)regions, (Py_ssize_t)(count * sizeof *regions));
    free(regions);
    return bytes;
}

PyObject *windows_grid(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *keywords[] = { "nx", "ny", "w", "h", "margin", "width", "height", NULL };
    int nx, ny, w, h, margin, width, height;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iiiiiii:regions_grid", keywords, &nx, &ny, &w, &h, &margin,
                                     &width, &height))
        return NULL;
    clx_region *regions = NULL;
    size_t count = 0;
    clx_message msg;
    int status = clx_regions_grid(nx, ny, w, h, margin, width, height, &regions, &count, &msg);
    if (status != CLX_OK)
        return core_raise(status, msg.text);
    return regions_bytes(regions, count);
}

PyObject *windows_read(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:regions_read", PyUnicode_FSConverter, &path))
        return NULL;
    clx_region *regions = NULL;
    size_t count = 0;
    clx_message msg;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = clx_regions_read(PyBytes_AS_STRING(path), &regions, &count, &msg);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (status != CLX_OK)
        return core_raise(status, msg.text);
    return regions_bytes(regions, count);
}
