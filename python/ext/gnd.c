/*
 * gnd.c - gnd_map(): Nye's components and GND densities over a map of
 * rotations (clx_gnd_map), and gnd_steps(): a map's steps from its points'
 * positions (clx_gnd_steps). The package lays the arrays on the scan and
 * names the columns (python/src/clxcorr/_gnd.py); here buffers in, bytes
 * of float64 out.
 */
#include "core.h"

#include <string.h>

/* A C-contiguous buffer of exactly `count` items of `size` bytes, or None
 * (view->obj stays NULL). -1 with an exception set otherwise. */
static int get_array(PyObject *o, Py_ssize_t count, Py_ssize_t size, const char *what, Py_buffer *view)
{
    memset(view, 0, sizeof *view);
    if (o == Py_None)
        return 0;
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->len != count * size) {
        PyErr_Format(PyExc_ValueError, "gnd: %s holds %zd bytes, expected %zd", what, view->len, count * size);
        PyBuffer_Release(view);
        memset(view, 0, sizeof *view);
        return -1;
    }
    return 0;
}

static void release(Py_buffer *view)
{
    if (view->obj)
        PyBuffer_Release(view);
}

/*
 * gnd_map(rows, cols, w, grain, euler, step_x, step_y, lattice, burgers_um):
 * w float64 (rows, cols, 3); grain None or int32 (rows, cols); euler None
 * or float64 (rows, cols, 3); lattice a clx_lattice; burgers_um 0 for no
 * density. Returns (alpha: bytes of rows * cols * 5 float64, rho: bytes of
 * rows * cols float64, or None without burgers_um).
 */
PyObject *gnd_map(PyObject *self, PyObject *args)
{
    Py_ssize_t rows, cols;
    PyObject *w_obj, *grain_obj, *euler_obj;
    double step_x, step_y, burgers_um;
    int lattice;
    (void)self;
    if (!PyArg_ParseTuple(args, "nnOOOddid:gnd_map", &rows, &cols, &w_obj, &grain_obj, &euler_obj, &step_x,
                          &step_y, &lattice, &burgers_um))
        return NULL;
    if (rows < 0 || cols < 0 || (cols > 0 && rows > PY_SSIZE_T_MAX / 40 / cols)) {
        PyErr_Format(PyExc_ValueError, "gnd: a map of %zd x %zd points", rows, cols);
        return NULL;
    }
    Py_ssize_t n = rows * cols;
    Py_buffer w = { 0 }, grain = { 0 }, euler = { 0 };
    PyObject *alpha = NULL, *rho = NULL, *result = NULL;
    if (w_obj == Py_None) {
        PyErr_SetString(PyExc_TypeError, "gnd: w is needed");
        return NULL;
    }
    if (get_array(w_obj, 3 * n, sizeof(double), "w", &w) < 0 ||
        get_array(grain_obj, n, sizeof(int), "grain", &grain) < 0 ||
        get_array(euler_obj, 3 * n, sizeof(double), "euler", &euler) < 0)
        goto done;
    if (!(alpha = PyBytes_FromStringAndSize(NULL, 5 * n * (Py_ssize_t)sizeof(double))))
        goto done;
    if (burgers_um != 0 && !(rho = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double))))
        goto done;
    clx_message msg = { "" };
    int status;
    double *alpha_out = (double *)PyBytes_AS_STRING(alpha), *rho_out = rho ? (double *)PyBytes_AS_STRING(rho) : NULL;
    Py_BEGIN_ALLOW_THREADS
    status = clx_gnd_map((long)rows, (long)cols, w.buf, grain.buf, euler.buf, step_x, step_y, (clx_lattice)lattice,
                         burgers_um, alpha_out, rho_out, &msg);
    Py_END_ALLOW_THREADS
    if (status != CLX_OK) {
        core_raise(status, msg.text);
        goto done;
    }
    result = Py_BuildValue("OO", alpha, rho ? rho : Py_None);
done:
    Py_XDECREF(alpha);
    Py_XDECREF(rho);
    release(&w);
    release(&grain);
    release(&euler);
    return result;
}

/* gnd_steps(rows, cols, x, y): x and y float64 (rows, cols), um; (step_x,
 * step_y), or the library's ArgumentError when the positions give none. */
PyObject *gnd_steps(PyObject *self, PyObject *args)
{
    Py_ssize_t rows, cols;
    PyObject *x_obj, *y_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "nnOO:gnd_steps", &rows, &cols, &x_obj, &y_obj))
        return NULL;
    if (rows < 0 || cols < 0 || (cols > 0 && rows > PY_SSIZE_T_MAX / 8 / cols) || x_obj == Py_None ||
        y_obj == Py_None) {
        PyErr_Format(PyExc_ValueError, "gnd: a map of %zd x %zd points and its positions", rows, cols);
        return NULL;
    }
    Py_buffer x, y = { 0 };
    if (get_array(x_obj, rows * cols, sizeof(double), "scan_x", &x) < 0 ||
        get_array(y_obj, rows * cols, sizeof(double), "scan_y", &y) < 0) {
        release(&x);
        return NULL;
    }
    double step_x, step_y;
    clx_message msg = { "" };
    int status = clx_gnd_steps((long)rows, (long)cols, x.buf, y.buf, &step_x, &step_y, &msg);
    release(&x);
    release(&y);
    if (status != CLX_OK)
        return core_raise(status, msg.text);
    return Py_BuildValue("dd", step_x, step_y);
}
