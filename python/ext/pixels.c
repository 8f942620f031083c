/*
 * pixels.c - Pixels: an image the library decoded (clx_image, its pixels
 * malloc'd by the library), lent to Python as a 2-D buffer (rows, columns)
 * so that numpy.asarray() views it without a copy; the pixels are freed
 * with the last view.
 */
#include "core.h"

#include <string.h>

typedef struct {
    PyObject_HEAD
    clx_image image;
    Py_ssize_t shape[2], strides[2];
} PixelsObject;

const char *pixel_format(clx_pixel_type type)
{
    switch (type) {
    case CLX_PIXEL_U8: return "B";
    case CLX_PIXEL_U16: return "H";
    case CLX_PIXEL_F32: return "f";
    }
    return NULL;
}

PyObject *pixels_take(clx_image *image)
{
    PixelsObject *p = PyObject_New(PixelsObject, &Pixels_Type);
    if (!p) {
        clx_image_free(image);
        return NULL;
    }
    p->image = *image;
    memset(image, 0, sizeof *image);
    size_t item = clx_pixel_size(p->image.type);
    p->shape[0] = p->image.height;
    p->shape[1] = p->image.width;
    p->strides[0] = (Py_ssize_t)(item * (size_t)p->image.width);
    p->strides[1] = (Py_ssize_t)item;
    return (PyObject *)p;
}

PyObject *pixels_check_finite(PyObject *self, PyObject *args)
{
    PyObject *pixels, *what;
    int width, height;
    Py_ssize_t first;
    Py_buffer view;
    (void)self;
    if (!PyArg_ParseTuple(args, "OiinO:check_finite", &pixels, &width, &height, &first, &what))
        return NULL;
    if (what != Py_None && !PyUnicode_Check(what))
        return PyErr_Format(PyExc_TypeError, "check_finite: what must be a str or None");
    const char *name = what == Py_None ? NULL : PyUnicode_AsUTF8(what);
    if (what != Py_None && !name)
        return NULL;
    if (PyObject_GetBuffer(pixels, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    size_t image_bytes = (size_t)(width > 0 ? width : 0) * (size_t)(height > 0 ? height : 0) * sizeof(float);
    if (image_bytes == 0 || (size_t)view.len % image_bytes != 0) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "check_finite: %zd bytes are no whole %dx%d float32 images", view.len,
                            width, height);
    }
    size_t count = (size_t)view.len / image_bytes;
    clx_message msg;
    int status = CLX_OK;
    /* A stack of images is a long pass: other threads run meanwhile. */
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < count && status == CLX_OK; k++) {
        clx_image image = { width, height, CLX_PIXEL_F32, (char *)view.buf + k * image_bytes };
        char where[64];
        if (!name)
            snprintf(where, sizeof where, "image %zu", (size_t)first + k);
        status = clx_image_check_finite(&image, name ? name : where, &msg);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (status != CLX_OK)
        return core_raise(status, msg.text);
    Py_RETURN_NONE;
}

static void pixels_dealloc(PixelsObject *p)
{
    clx_image_free(&p->image);
    PyObject_Free(p);
}

static int pixels_getbuffer(PixelsObject *p, Py_buffer *view, int flags)
{
    size_t item = clx_pixel_size(p->image.type);
    if (PyBuffer_FillInfo(view, (PyObject *)p, p->image.pixels,
                          (Py_ssize_t)(item * (size_t)p->image.width * (size_t)p->image.height), 0, flags) < 0)
        return -1;
    view->itemsize = (Py_ssize_t)item;
    view->format = (flags & PyBUF_FORMAT) ? (char *)pixel_format(p->image.type) : NULL;
    view->ndim = 2;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? p->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? p->strides : NULL;
    return 0;
}

static PyBufferProcs pixels_buffer = { (getbufferproc)pixels_getbuffer, NULL };

static PyObject *pixels_width(PixelsObject *p, void *c) { (void)c; return PyLong_FromLong(p->image.width); }
static PyObject *pixels_height(PixelsObject *p, void *c) { (void)c; return PyLong_FromLong(p->image.height); }
static PyObject *pixels_type(PixelsObject *p, void *c) { (void)c; return PyLong_FromLong(p->image.type); }

static PyGetSetDef pixels_getset[] = {
    { "width", (getter)pixels_width, NULL, "Columns.", NULL },
    { "height", (getter)pixels_height, NULL, "Rows.", NULL },
    { "pixel_type", (getter)pixels_type, NULL, "The clx_pixel_type.", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

PyTypeObject Pixels_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "clxcorr._core.Pixels",
    .tp_basicsize = sizeof(PixelsObject),
    .tp_dealloc = (destructor)pixels_dealloc,
    .tp_as_buffer = &pixels_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A decoded image's pixels (rows x columns), as a buffer.",
    .tp_getset = pixels_getset,
};
