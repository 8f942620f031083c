/*
 * context.c - Context: one OpenCL device opened by the library
 * (clx_context), the lock that keeps it to one thread at a time, and the
 * lines the library logs, handed to Python's logging after each call.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* ---- the log ---- */

/* The library's log function: called inside library calls, with the GIL
 * released, so the line is only kept here (a byte for its level, the
 * text, a NUL) until context_log_flush. A line that does not fit in
 * memory is dropped: a log must never fail the call it describes. */
static void log_keep(void *user, clx_log_level level, const char *line)
{
    ContextObject *c = user;
    size_t n = strlen(line) + 2;
    PyThread_acquire_lock(c->log.lock, WAIT_LOCK);
    if (c->log.len + n > c->log.cap) {
        size_t cap = 2 * c->log.cap + n + 256;
        char *grown = realloc(c->log.text, cap);
        if (!grown) {
            PyThread_release_lock(c->log.lock);
            return;
        }
        c->log.text = grown;
        c->log.cap = cap;
    }
    c->log.text[c->log.len] = (char)('0' + level);
    memcpy(c->log.text + c->log.len + 1, line, n - 1);
    c->log.len += n;
    PyThread_release_lock(c->log.lock);
}

void context_log_flush(ContextObject *c)
{
    static PyObject *logger;
    /* Python's levels for CLX_LOG_WARNING, _INFO and _DEBUG. */
    static const int python_level[] = { 30, 20, 10 };
    PyThread_acquire_lock(c->log.lock, WAIT_LOCK);
    struct log_lines taken = c->log;
    c->log.text = NULL;
    c->log.len = c->log.cap = 0;
    PyThread_release_lock(c->log.lock);
    if (taken.len == 0) {
        free(taken.text);
        return;
    }
    /* The call may have failed: its exception must outlive the logging. */
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *raised = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
#endif
    if (!logger) {
        PyObject *logging = PyImport_ImportModule("logging");
        logger = logging ? PyObject_CallMethod(logging, "getLogger", "s", "clxcorr") : NULL;
        Py_XDECREF(logging);
    }
    for (size_t at = 0; logger && at < taken.len;) {
        const char *line = taken.text + at;
        int level = line[0] - '0';
        PyObject *r = PyObject_CallMethod(logger, "log", "iss", python_level[level >= 0 && level <= 2 ? level : 0],
                                          "%s", line + 1);
        Py_XDECREF(r);
        at += strlen(line) + 1;
    }
    if (PyErr_Occurred())
        PyErr_WriteUnraisable(NULL);
    free(taken.text);
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(raised);
#else
    PyErr_Restore(type, value, traceback);
#endif
}

/* ---- the lock ---- */

void context_lock(ContextObject *c)
{
    PyThread_acquire_lock(c->lock, WAIT_LOCK);
}

void context_unlock(ContextObject *c)
{
    PyThread_release_lock(c->lock);
}

clx_context *context_open_handle(ContextObject *c)
{
    if (!c->ctx)
        core_raise(CLX_ERR_STATE, "the context was closed");
    return c->ctx;
}

/* ---- the type ---- */

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = { "device", "need_fp64", "no_cache", "cache_dir", "kernel_dir", "log_level",
                                "no_tuning", NULL };
    const char *device = NULL, *cache_dir = NULL, *kernel_dir = NULL;
    int need_fp64 = 0, no_cache = 0, log_level = CLX_LOG_WARNING, no_tuning = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zppzzip:Context", keywords, &device, &need_fp64, &no_cache,
                                     &cache_dir, &kernel_dir, &log_level, &no_tuning))
        return NULL;
    if (log_level < CLX_LOG_WARNING || log_level > CLX_LOG_DEBUG) {
        PyErr_SetString(PyExc_ValueError, "log_level: 0 (warnings), 1 (info) or 2 (debug)");
        return NULL;
    }
    ContextObject *c = (ContextObject *)type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    c->lock = PyThread_allocate_lock();
    c->log.lock = PyThread_allocate_lock();
    if (!c->lock || !c->log.lock) {
        Py_DECREF(c);
        return PyErr_NoMemory();
    }

    clx_context_options o;
    clx_context_options_init(&o);
    o.device = device;
    o.need_fp64 = need_fp64;
    o.no_cache = no_cache;
    o.cache_dir = cache_dir;
    o.kernel_dir = kernel_dir;
    o.log = log_keep;
    o.log_user = c;
    o.log_level = (clx_log_level)log_level;
    o.no_tuning = no_tuning;
    clx_message msg;
    int status;
    /* Opening builds or loads every kernel program: seconds on a cold cache. */
    Py_BEGIN_ALLOW_THREADS
    status = clx_context_open(&o, &c->ctx, &msg);
    Py_END_ALLOW_THREADS
    context_log_flush(c);
    if (status != CLX_OK) {
        Py_DECREF(c);
        return core_raise(status, msg.text);
    }
    return (PyObject *)c;
}

/* Releases the context (and any plan still open on it, which the library
 * releases too); the Plan objects then find it closed. */
static void context_release(ContextObject *c)
{
    if (!c->ctx)
        return;
    Py_BEGIN_ALLOW_THREADS
    context_lock(c);
    clx_context_release(c->ctx);
    c->ctx = NULL;
    context_unlock(c);
    Py_END_ALLOW_THREADS
    context_log_flush(c);
}

static void context_dealloc(ContextObject *c)
{
    if (c->lock && c->log.lock)
        context_release(c);
    if (c->lock)
        PyThread_free_lock(c->lock);
    if (c->log.lock)
        PyThread_free_lock(c->log.lock);
    free(c->log.text);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *context_close(ContextObject *c, PyObject *unused)
{
    (void)unused;
    context_release(c);
    Py_RETURN_NONE;
}

static PyObject *context_device(ContextObject *c, void *closure)
{
    (void)closure;
    if (!context_open_handle(c))
        return NULL;
    const clx_device_info *d = clx_context_device(c->ctx);
    return Py_BuildValue("{s:i,s:i,s:s,s:s}", "platform_index", d->platform_index, "device_index", d->device_index,
                         "name", d->name, "platform", d->platform_name);
}

static PyObject *context_closed(ContextObject *c, void *closure)
{
    (void)closure;
    return PyBool_FromLong(c->ctx == NULL);
}

static PyMethodDef context_methods[] = {
    { "close", (PyCFunction)context_close, METH_NOARGS, "Releases the device (and plans still open on it)." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef context_getset[] = {
    { "device", (getter)context_device, NULL, "The device's indices and names.", NULL },
    { "closed", (getter)context_closed, NULL, "Whether close() was called.", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject Context_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "clxcorr._core.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(device=None, need_fp64=False, no_cache=False, cache_dir=None, kernel_dir=None, "
              "log_level=0, no_tuning=False): clx_context_open.",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_new = context_new,
};
