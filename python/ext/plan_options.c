/*
 * plan_options.c - a dict of clx_plan_options field names into the struct.
 *
 * Enum fields are given by the names the library itself gives them
 * (clx_mode_name, clx_refiner_name, ...), found by asking the library for
 * each value's name, so a new estimator or refiner needs no change here.
 * Ranges are the library's to check (clx_plan_create says what is wrong);
 * this file only checks that a value has the field's type.
 */
#include "core.h"

#include <stddef.h>
#include <string.h>

/* A name function of an enum; its values run from 0 up to the first
 * value it calls "?". */
typedef const char *(*enum_name_fn)(int value);

static const char *mode_name(int v) { return clx_mode_name((clx_mode)v); }
static const char *method_name(int v) { return clx_method_name((clx_method)v); }
static const char *estimator_name(int v) { return clx_estimator_name((clx_estimator)v); }
static const char *interp_name(int v) { return clx_interp_name((clx_interp)v); }
static const char *refiner_name(int v) { return clx_refiner_name((clx_refiner)v); }

/* The library has no name function for window functions: its names are
 * the command's (--window-fn), kept here beside their values. */
static const char *window_name(int v)
{
    switch (v) {
    case CLX_WINDOW_NONE: return "none";
    case CLX_WINDOW_HANN: return "hann";
    case CLX_WINDOW_TUKEY: return "tukey";
    }
    return "?";
}

enum field_kind { FIELD_INT, FIELD_SIZE, FIELD_DOUBLE, FIELD_STRING, FIELD_ENUM };

struct field {
    const char *name;
    enum field_kind kind;
    size_t offset;
    enum_name_fn names;      /* FIELD_ENUM */
};

/* Enum fields are written as ints. */
_Static_assert(sizeof(clx_mode) == sizeof(int) && sizeof(clx_method) == sizeof(int) &&
                   sizeof(clx_estimator) == sizeof(int) && sizeof(clx_window_fn) == sizeof(int) &&
                   sizeof(clx_interp) == sizeof(int) && sizeof(clx_refiner) == sizeof(int),
               "clx_plan_options' enums are int-sized");

#define F(name, kind) { #name, kind, offsetof(clx_plan_options, name), NULL }
#define E(name, fn) { #name, FIELD_ENUM, offsetof(clx_plan_options, name), fn }
static const struct field fields[] = {
    E(mode, mode_name),         E(method, method_name),    F(max_shift, FIELD_INT),
    E(estimator, estimator_name), F(fit_size, FIELD_INT),  F(batch, FIELD_INT),
    F(use_double, FIELD_INT),   F(expected_images, FIELD_SIZE), F(plans_sharing_device, FIELD_INT),
    F(params, FIELD_STRING),    F(prefilter, FIELD_STRING), E(window, window_name),
    F(window_alpha, FIELD_DOUBLE), F(passes, FIELD_INT),   F(refine, FIELD_INT),
    F(tolerance, FIELD_DOUBLE), F(fine_shift, FIELD_INT),  E(interp, interp_name),
    E(refiner, refiner_name),   F(shape, FIELD_INT),
};
#undef F
#undef E

/* The value called `name`, or -1 with a ValueError listing the names. */
static int enum_value(const struct field *f, PyObject *value)
{
    const char *name = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
    char known[256] = "";
    size_t used = 0;
    if (!name && PyErr_Occurred())
        return -1;
    for (int v = 0; strcmp(f->names(v), "?") != 0; v++) {
        if (name && strcmp(name, f->names(v)) == 0)
            return v;
        used += (size_t)snprintf(known + used, used < sizeof known ? sizeof known - used : 0, "%s%s",
                                 v ? ", " : "", f->names(v));
    }
    PyObject *message = PyUnicode_FromFormat("%s: unknown value %R (%s)", f->name, value, known);
    const char *text = message ? PyUnicode_AsUTF8(message) : NULL;
    if (text)
        core_raise(CLX_ERR_ARGUMENT, text);
    Py_XDECREF(message);
    return -1;
}

static int field_set(const struct field *f, PyObject *value, clx_plan_options *o)
{
    char *at = (char *)o + f->offset;
    switch (f->kind) {
    case FIELD_INT: {
        long v = PyLong_AsLong(value);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < -2147483647L || v > 2147483647L) {
            PyErr_Format(PyExc_OverflowError, "%s: %ld does not fit an int", f->name, v);
            return -1;
        }
        *(int *)at = (int)v;
        return 0;
    }
    case FIELD_SIZE: {
        size_t v = PyLong_AsSize_t(value);
        if (v == (size_t)-1 && PyErr_Occurred())
            return -1;
        *(size_t *)at = v;
        return 0;
    }
    case FIELD_DOUBLE: {
        double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        *(double *)at = v;
        return 0;
    }
    case FIELD_STRING:
        if (value == Py_None) {
            *(const char **)at = NULL;
            return 0;
        }
        if (!PyUnicode_Check(value)) {
            PyErr_Format(PyExc_TypeError, "%s: expected a str or None", f->name);
            return -1;
        }
        return (*(const char **)at = PyUnicode_AsUTF8(value)) ? 0 : -1;
    case FIELD_ENUM: {
        int v = enum_value(f, value);
        if (v < 0)
            return -1;
        *(int *)at = v;
        return 0;
    }
    }
    return 0;
}

int plan_options_from_dict(PyObject *dict, clx_plan_options *o)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "plan options: expected a dict");
        return -1;
    }
    while (PyDict_Next(dict, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        const struct field *f = NULL;
        for (size_t i = 0; name && i < sizeof fields / sizeof fields[0]; i++)
            if (strcmp(name, fields[i].name) == 0)
                f = &fields[i];
        if (!f) {
            PyErr_Format(PyExc_KeyError, "no plan option %R", key);
            return -1;
        }
        if (field_set(f, value, o) < 0)
            return -1;
    }
    return 0;
}

/* One field of `o` as a Python value (enums by name). */
static PyObject *field_get(const struct field *f, const clx_plan_options *o)
{
    const char *at = (const char *)o + f->offset;
    switch (f->kind) {
    case FIELD_INT: return PyLong_FromLong(*(const int *)at);
    case FIELD_SIZE: return PyLong_FromSize_t(*(const size_t *)at);
    case FIELD_DOUBLE: return PyFloat_FromDouble(*(const double *)at);
    case FIELD_STRING:
        if (!*(const char *const *)at)
            Py_RETURN_NONE;
        return PyUnicode_FromString(*(const char *const *)at);
    case FIELD_ENUM: return PyUnicode_FromString(f->names(*(const int *)at));
    }
    Py_RETURN_NONE;
}

PyObject *plan_defaults(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    clx_plan_options o;
    clx_plan_options_init(&o);
    PyObject *dict = PyDict_New();
    for (size_t i = 0; dict && i < sizeof fields / sizeof fields[0]; i++) {
        PyObject *value = field_get(&fields[i], &o);
        if (!value || PyDict_SetItemString(dict, fields[i].name, value) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(value);
    }
    return dict;
}
