/*
 * plan.c - Plan: one reference, one window list and one set of options
 * (clx_plan) on a Context, and the push / read cycle that feeds it images
 * from Python buffers and reads results into them.
 *
 * Pixels are never copied here. A stack of images that lie back to back
 * goes to clx_plan_push_pixels, which uploads from that memory: the
 * buffer is held until the push is read. Separate images go to
 * clx_plan_push as clx_image structs pointing at their buffers, which the
 * library stages itself before it returns.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A status of the binding's own: the context was closed under the plan. */
#define CONTEXT_CLOSED 1

typedef struct {
    PyObject_HEAD
    ContextObject *context;
    clx_plan *plan;              /* NULL once released (or released with its context) */
    PyObject *options;           /* the dict whose strings the plan's options point at */
    int width, height;           /* the reference's: every image's */
    size_t region_count;
    Py_buffer held;              /* push_stack's pixels, until the push is read */
    int holding;
} PlanObject;

/*
 * Runs `call` (an int status expression) on the plan with the GIL released
 * and the context's lock held, keeping the context's message on failure;
 * then hands the log to Python. A context closed under the plan gives
 * CONTEXT_CLOSED without making the call (its plans went with it).
 */
#define PLAN_CALL(p, status, message, call)                                             \
    do {                                                                                \
        Py_BEGIN_ALLOW_THREADS                                                          \
        context_lock((p)->context);                                                     \
        if (!(p)->context->ctx || !(p)->plan) {                                         \
            (status) = CONTEXT_CLOSED;                                                  \
        } else {                                                                        \
            (status) = (call);                                                          \
            if ((status) != CLX_OK)                                                     \
                snprintf((message), sizeof(message), "%s",                              \
                         clx_context_message((p)->context->ctx));                       \
        }                                                                               \
        context_unlock((p)->context);                                                   \
        Py_END_ALLOW_THREADS                                                            \
        context_log_flush((p)->context);                                                \
    } while (0)

static PyObject *plan_fail(PlanObject *p, int status, const char *message)
{
    if (status == CONTEXT_CLOSED) {
        p->plan = NULL;
        return core_raise(CLX_ERR_STATE, "the context was closed");
    }
    return core_raise(status, message);
}

static void held_release(PlanObject *p)
{
    if (p->holding)
        PyBuffer_Release(&p->held);
    p->holding = 0;
}

/* A C-contiguous buffer of exactly `bytes` bytes (0: any size); -1 with an exception. */
static int buffer_get(PyObject *obj, Py_buffer *view, int writable, size_t bytes, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (bytes && (size_t)view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zu", what, view->len, bytes);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static size_t image_bytes(const PlanObject *p, int type)
{
    return (size_t)p->width * (size_t)p->height * clx_pixel_size((clx_pixel_type)type);
}

static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = { "context", "reference", "width", "height", "pixel_type", "regions", "options",
                                NULL };
    ContextObject *context;
    PyObject *reference, *regions, *options;
    int width, height, pixel_type;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OiiiOO!:Plan", keywords, &Context_Type, &context, &reference,
                                     &width, &height, &pixel_type, &regions, &PyDict_Type, &options))
        return NULL;
    if (width < 1 || height < 1 || clx_pixel_size((clx_pixel_type)pixel_type) == 0) {
        PyErr_SetString(PyExc_ValueError, "Plan: a reference needs a size and a pixel type");
        return NULL;
    }
    clx_plan_options o;
    clx_plan_options_init(&o);
    if (plan_options_from_dict(options, &o) < 0)
        return NULL;

    PlanObject *p = (PlanObject *)type->tp_alloc(type, 0);
    if (!p)
        return NULL;
    Py_INCREF(context);
    p->context = context;
    Py_INCREF(options);
    p->options = options;
    p->width = width;
    p->height = height;

    Py_buffer ref_view, regions_view;
    if (buffer_get(reference, &ref_view, 0, (size_t)width * height * clx_pixel_size((clx_pixel_type)pixel_type),
                   "reference") < 0) {
        Py_DECREF(p);
        return NULL;
    }
    /* clx_region is four ints: an (N, 4) int32 array's rows. */
    _Static_assert(sizeof(clx_region) == 4 * sizeof(int), "clx_region is four ints");
    if (buffer_get(regions, &regions_view, 0, 0, "regions") < 0) {
        PyBuffer_Release(&ref_view);
        Py_DECREF(p);
        return NULL;
    }
    p->region_count = (size_t)regions_view.len / sizeof(clx_region);

    clx_image ref = { width, height, (clx_pixel_type)pixel_type, ref_view.buf };
    char message[1024];
    int status;
    Py_BEGIN_ALLOW_THREADS
    context_lock(context);
    if (!context->ctx) {
        status = CONTEXT_CLOSED;
    } else {
        /* Kernels, FFT plans and, with method "auto", a measurement: the slow part. */
        status = clx_plan_create(context->ctx, &ref, regions_view.buf, p->region_count, &o, &p->plan);
        if (status != CLX_OK)
            snprintf(message, sizeof message, "%s", clx_context_message(context->ctx));
    }
    context_unlock(context);
    Py_END_ALLOW_THREADS
    context_log_flush(context);
    PyBuffer_Release(&ref_view);
    PyBuffer_Release(&regions_view);
    if (status != CLX_OK) {
        p->plan = NULL;
        plan_fail(p, status, message);
        Py_DECREF(p);
        return NULL;
    }
    return (PyObject *)p;
}

/* Waits for the plan's work and releases it; a plan whose context was
 * closed was released with it. */
static void plan_release(PlanObject *p)
{
    if (p->plan) {
        Py_BEGIN_ALLOW_THREADS
        context_lock(p->context);
        if (p->context->ctx)
            clx_plan_release(p->plan);
        p->plan = NULL;
        context_unlock(p->context);
        Py_END_ALLOW_THREADS
        context_log_flush(p->context);
    }
    held_release(p);
}

static void plan_dealloc(PlanObject *p)
{
    if (p->context)
        plan_release(p);
    Py_XDECREF(p->options);
    Py_XDECREF(p->context);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyObject *plan_close(PlanObject *p, PyObject *unused)
{
    (void)unused;
    plan_release(p);
    Py_RETURN_NONE;
}

/* push_stack(pixels, pixel_type, count): `count` images back to back in one
 * C-contiguous buffer, uploaded from there (held until read()). */
static PyObject *plan_push_stack(PlanObject *p, PyObject *args)
{
    PyObject *pixels;
    int type;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "Oin:push_stack", &pixels, &type, &count))
        return NULL;
    if (count < 1 || clx_pixel_size((clx_pixel_type)type) == 0) {
        PyErr_SetString(PyExc_ValueError, "push_stack: at least one image, of a known pixel type");
        return NULL;
    }
    Py_buffer view;
    if (buffer_get(pixels, &view, 0, image_bytes(p, type) * (size_t)count, "push_stack") < 0)
        return NULL;
    char message[1024];
    int status;
    PLAN_CALL(p, status, message, clx_plan_push_pixels(p->plan, view.buf, (clx_pixel_type)type, (size_t)count));
    if (status != CLX_OK) {
        PyBuffer_Release(&view);
        return plan_fail(p, status, message);
    }
    held_release(p);
    p->held = view;
    p->holding = 1;
    Py_RETURN_NONE;
}

/* push_images(images): a sequence of (pixels, pixel_type), each one image
 * of the reference's size in its own buffer; staged by the library. */
static PyObject *plan_push_images(PlanObject *p, PyObject *images)
{
    PyObject *seq = PySequence_Fast(images, "push_images: expected a sequence of (pixels, pixel_type)");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), got = 0;
    Py_buffer *views = PyMem_Calloc(n ? (size_t)n : 1, sizeof *views);
    clx_image *list = PyMem_Calloc(n ? (size_t)n : 1, sizeof *list);
    PyObject *result = NULL;
    if (!views || !list) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++) {
        PyObject *pixels;
        int type;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, got), "Oi:push_images", &pixels, &type))
            goto done;
        if (clx_pixel_size((clx_pixel_type)type) == 0) {
            PyErr_SetString(PyExc_ValueError, "push_images: an unknown pixel type");
            goto done;
        }
        if (buffer_get(pixels, &views[got], 0, image_bytes(p, type), "push_images") < 0)
            goto done;
        list[got] = (clx_image){ p->width, p->height, (clx_pixel_type)type, views[got].buf };
    }
    char message[1024];
    int status;
    PLAN_CALL(p, status, message, clx_plan_push(p->plan, list, (size_t)n));
    if (status != CLX_OK) {
        plan_fail(p, status, message);
        goto done;
    }
    held_release(p);
    result = Py_None;
    Py_INCREF(result);
done:
    for (Py_ssize_t i = 0; views && i < got; i++)
        PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(list);
    Py_DECREF(seq);
    return result;
}

/* read(out): waits for the last push and writes its results, image by
 * image and windows in plan order, into `out` (a writable buffer of
 * clx_result records, at least images pushed x windows). */
static PyObject *plan_read(PlanObject *p, PyObject *out)
{
    Py_buffer view;
    if (buffer_get(out, &view, 1, 0, "read") < 0)
        return NULL;
    size_t capacity = (size_t)view.len / sizeof(clx_result);
    char message[1024];
    int status;
    PLAN_CALL(p, status, message, clx_plan_read(p->plan, view.buf, capacity));
    PyBuffer_Release(&view);
    /* The push is consumed whatever happened (clx_plan_read). */
    held_release(p);
    if (status != CLX_OK)
        return plan_fail(p, status, message);
    Py_RETURN_NONE;
}

/* One of the plan's descriptions, copied under the lock. */
static PyObject *plan_text(PlanObject *p, const char *(*get)(const clx_plan *))
{
    char *copy;
    Py_BEGIN_ALLOW_THREADS
    context_lock(p->context);
    copy = strdup(p->context->ctx && p->plan ? get(p->plan) : "");
    context_unlock(p->context);
    Py_END_ALLOW_THREADS
    if (!copy)
        return PyErr_NoMemory();
    PyObject *s = PyUnicode_FromString(copy);
    free(copy);
    return s;
}

static const char *method_text(const clx_plan *plan) { return clx_method_name(clx_plan_method(plan)); }

static PyObject *plan_method(PlanObject *p, void *c) { (void)c; return plan_text(p, method_text); }
static PyObject *plan_explanation(PlanObject *p, void *c) { (void)c; return plan_text(p, clx_plan_explanation); }
static PyObject *plan_fft(PlanObject *p, void *c) { (void)c; return plan_text(p, clx_plan_fft); }
static PyObject *plan_tuning(PlanObject *p, void *c) { (void)c; return plan_text(p, clx_plan_tuning); }
static PyObject *plan_parameters(PlanObject *p, void *c) { (void)c; return plan_text(p, clx_plan_parameters); }

static PyObject *plan_batch_size(PlanObject *p, void *c)
{
    (void)c;
    int n;
    Py_BEGIN_ALLOW_THREADS
    context_lock(p->context);
    n = p->context->ctx && p->plan ? clx_plan_batch_size(p->plan) : 0;
    context_unlock(p->context);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

static PyObject *plan_region_count(PlanObject *p, void *c)
{
    (void)c;
    return PyLong_FromSize_t(p->region_count);
}

static PyMethodDef plan_methods[] = {
    { "push_stack", (PyCFunction)plan_push_stack, METH_VARARGS,
      "push_stack(pixels, pixel_type, count): images back to back, uploaded in place (clx_plan_push_pixels)." },
    { "push_images", (PyCFunction)plan_push_images, METH_O,
      "push_images([(pixels, pixel_type), ...]): separate images (clx_plan_push)." },
    { "read", (PyCFunction)plan_read, METH_O, "read(out): the last push's results into out (clx_plan_read)." },
    { "close", (PyCFunction)plan_close, METH_NOARGS, "Releases the plan." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef plan_getset[] = {
    { "batch_size", (getter)plan_batch_size, NULL, "The most images one push takes.", NULL },
    { "region_count", (getter)plan_region_count, NULL, "Windows: results per image.", NULL },
    { "method", (getter)plan_method, NULL, "\"fft\" or \"direct\": the path in use.", NULL },
    { "explanation", (getter)plan_explanation, NULL, "How the path was chosen.", NULL },
    { "fft", (getter)plan_fft, NULL, "The FFT library in use, or \"\".", NULL },
    { "tuning", (getter)plan_tuning, NULL, "How the kernel parameters were chosen.", NULL },
    { "parameters", (getter)plan_parameters, NULL, "Every kernel parameter, its value and origin.", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject Plan_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "clxcorr._core.Plan",
    .tp_basicsize = sizeof(PlanObject),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Plan(context, reference, width, height, pixel_type, regions, options): clx_plan_create.",
    .tp_methods = plan_methods,
    .tp_getset = plan_getset,
    .tp_new = plan_new,
};
