/*
 * module.c - the extension module clxcorr._core: the devices, the library's
 * version, its status names, the layout of clx_result, and the exceptions
 * every call raises.
 */
#include "core.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Status name -> exception class, given by the package (clxcorr/_errors.py)
 * once it is imported, so that the classes and their docs live in Python. */
static PyObject *exception_classes;

PyObject *core_raise(int status, const char *message)
{
    PyObject *cls = exception_classes ? PyDict_GetItemString(exception_classes, clx_status_name(status)) : NULL;
    if (!cls)
        cls = PyExc_RuntimeError;
    const char *text = message && *message ? message : clx_status_name(status);
    /* A message may quote a file name that is not UTF-8: replaced, never a second error. */
    PyObject *words = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    PyObject *error = words ? PyObject_CallFunction(cls, "Os", words, clx_status_name(status)) : NULL;
    Py_XDECREF(words);
    if (error) {
        PyErr_SetObject(cls, error);
        Py_DECREF(error);
    }
    return NULL;
}

static PyObject *set_exceptions(PyObject *self, PyObject *mapping)
{
    (void)self;
    if (!PyDict_Check(mapping)) {
        PyErr_SetString(PyExc_TypeError, "_set_exceptions takes a dict of status name -> class");
        return NULL;
    }
    Py_INCREF(mapping);
    Py_XDECREF(exception_classes);
    exception_classes = mapping;
    Py_RETURN_NONE;
}

/* Every status the library returns, name -> value: the package maps names,
 * never numbers, to its exceptions. */
static PyObject *status_table(void)
{
    PyObject *table = PyDict_New();
    for (int status = CLX_OK; table && status >= CLX_ERR_CANCELLED; status--) {
        PyObject *value = PyLong_FromLong(status);
        if (!value || PyDict_SetItemString(table, clx_status_name(status), value) < 0)
            Py_CLEAR(table);
        Py_XDECREF(value);
    }
    return table;
}

/* One clx_device_info as a dict; the package makes it a clxcorr.Device. */
static PyObject *device_dict(const clx_device_info *d)
{
    return Py_BuildValue("{s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:K,s:K,s:K,s:O,s:O,s:O}",
                         "platform_index", d->platform_index, "device_index", d->device_index,
                         "platform", d->platform_name, "name", d->name, "vendor", d->vendor,
                         "driver", d->driver_version, "opencl_c", d->opencl_c_version,
                         "type", clx_device_type_name(d->type), "compute_units", d->compute_units,
                         "global_memory", d->global_memory, "local_memory", d->local_memory,
                         "max_allocation", d->max_allocation, "fp64", d->has_fp64 ? Py_True : Py_False,
                         "compiler_available", d->compiler_available ? Py_True : Py_False,
                         "available", d->available ? Py_True : Py_False);
}

static PyObject *devices(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    clx_device_info *list = NULL;
    size_t count = 0;
    clx_message msg;
    int status;
    /* Platforms may take a while to answer (drivers load here). */
    Py_BEGIN_ALLOW_THREADS
    status = clx_devices_list(&list, &count, &msg);
    Py_END_ALLOW_THREADS
    if (status != CLX_OK)
        return core_raise(status, msg.text);
    PyObject *result = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; result && i < count; i++) {
        PyObject *d = device_dict(&list[i]);
        if (!d)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, (Py_ssize_t)i, d);
    }
    free(list);
    return result;
}

/* (itemsize, ((field, offset, numpy format), ...)): clx_result as the
 * compiler laid it out, so that the package reads results in place. */
static PyObject *result_layout(void)
{
#define FIELD(name, format) #name, (Py_ssize_t)offsetof(clx_result, name), format
    return Py_BuildValue("(n((sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)(sns)))",
                         (Py_ssize_t)sizeof(clx_result),
                         FIELD(dx, "f8"), FIELD(dy, "f8"), FIELD(peak, "f8"), FIELD(ix, "i4"), FIELD(iy, "i4"),
                         FIELD(flags, "u4"), FIELD(zncc, "f8"), FIELD(peak_ratio, "f8"),
                         FIELD(iterations, "i4"), FIELD(znssd, "f8"), FIELD(sigma_dx, "f8"),
                         FIELD(sigma_dy, "f8"), FIELD(dudx, "f8"), FIELD(dudy, "f8"), FIELD(dvdx, "f8"),
                         FIELD(dvdy, "f8"));
#undef FIELD
}

static PyObject *version(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyUnicode_FromString(clx_version());
}

static PyObject *build_features(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyUnicode_FromString(clx_build_features());
}

static PyMethodDef module_methods[] = {
    { "devices", devices, METH_NOARGS, "Every OpenCL device of every platform, as dicts." },
    { "version", version, METH_NOARGS, "libclxcorr's version." },
    { "build_features", build_features, METH_NOARGS, "libclxcorr's build features (\"clfft vkfft hdf5\")." },
    { "regions_grid", (PyCFunction)(void (*)(void))windows_grid, METH_VARARGS | METH_KEYWORDS,
      "regions_grid(nx, ny, w, h, margin, width, height): a grid of windows (clx_regions_grid)." },
    { "regions_read", windows_read, METH_VARARGS, "regions_read(path): a windows file (clx_regions_read)." },
    { "plan_defaults", plan_defaults, METH_NOARGS, "clx_plan_options_init's values, by field name." },
    { "check_finite", pixels_check_finite, METH_VARARGS,
      "check_finite(pixels, width, height, first, what): float32 images refused for a NaN or infinity "
      "(clx_image_check_finite)." },
    { "strain", strain_run, METH_VARARGS,
      "strain(context, patterns, count, width, height, type, reference, ref_type, ref_name, file, scan, regions, "
      "plan, job, state): an HR-EBSD job run whole (clx_strain_job_run); (rows, grains, oriented, scan_rows, "
      "scan_cols, step_x, step_y, cancelled)." },
    { "gnd_map", gnd_map, METH_VARARGS,
      "gnd_map(rows, cols, w, grain, euler, step_x, step_y, lattice, burgers_um): Nye's components (and "
      "densities) over a map (clx_gnd_map); (alpha, rho or None) as bytes of float64." },
    { "gnd_steps", gnd_steps, METH_VARARGS,
      "gnd_steps(rows, cols, x, y): a map's steps from its points' positions (clx_gnd_steps)." },
    { "_set_exceptions", set_exceptions, METH_O, "The package's exception class for each status name." },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "clxcorr._core", "libclxcorr's public API, for the clxcorr package.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

static int add_type(PyObject *m, PyTypeObject *type, const char *name)
{
    if (PyType_Ready(type) < 0)
        return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (add_type(m, &Context_Type, "Context") < 0 || add_type(m, &Plan_Type, "Plan") < 0 ||
        add_type(m, &ImageFile_Type, "ImageFile") < 0 || add_type(m, &Pixels_Type, "Pixels") < 0 ||
        PyModule_AddObject(m, "STATUS", status_table()) < 0 ||
        PyModule_AddObject(m, "RESULT_LAYOUT", result_layout()) < 0 ||
        PyModule_AddIntConstant(m, "PIXEL_U8", CLX_PIXEL_U8) < 0 ||
        PyModule_AddIntConstant(m, "PIXEL_U16", CLX_PIXEL_U16) < 0 ||
        PyModule_AddIntConstant(m, "PIXEL_F32", CLX_PIXEL_F32) < 0 ||
        PyModule_AddIntConstant(m, "LATTICE_FCC", CLX_LATTICE_FCC) < 0 ||
        PyModule_AddIntConstant(m, "LATTICE_BCC", CLX_LATTICE_BCC) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
