/*
 * strain.c - strain(): an HR-EBSD job (clx_strain_job) run whole on one
 * context, its patterns from a buffer of pixels, a pattern file or a
 * Python callable (a lazy array read chunk by chunk: the loader threads
 * take the GIL to call it), its rows handed back as one float64 row of
 * STRAIN_COLUMNS values per pattern (the package lays them on the scan:
 * python/src/clxcorr/_strain.py). A shared int64 pair lets another Python
 * thread follow the run (rows delivered) and stop it (the stream's
 * cancelled callback): Ctrl-C and progress are the package's.
 */
#include "core.h"

#include <math.h>
#include <string.h>

/* Per pattern, in the job's order: e11 e12 e13 e22 e23 e33 w1 w2 w3
 * residual windows flags grain ref_row ref_col phi1 Phi phi2, and the
 * pattern's index in the input. */
#define STRAIN_COLUMNS 19

struct source {
    const unsigned char *pixels; /* count images back to back, or NULL: the file's */
    clx_pixel_type type;
    int width, height;
    clx_image_file *file;
    int first_page;
    const size_t *order;         /* the job's pattern k is the input's order[k] */
    double *rows;
    PyObject *loader;            /* loader(i) -> a C-contiguous (height, width) array of type, or NULL */
    PyObject *error;             /* the first exception the loader raised (a tuple of PyErr_Fetch's) */
    long long *state;            /* NULL, or [0]: non-zero stops the run, [1]: rows delivered */
};

static PyObject *newref(PyObject *o)
{
    Py_INCREF(o);
    return o;
}

/* Pattern i from the Python loader, with the GIL taken for it. */
static int load_python(struct source *s, size_t i, clx_image *staged, clx_message *msg)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int status = CLX_OK;
    Py_buffer view = { 0 };
    PyObject *array = s->error ? NULL : PyObject_CallFunction(s->loader, "n", (Py_ssize_t)i);
    size_t bytes = (size_t)s->width * s->height * clx_pixel_size(s->type);
    if (!array || PyObject_GetBuffer(array, &view, PyBUF_C_CONTIGUOUS) < 0 || (size_t)view.len != bytes) {
        if (!s->error && PyErr_Occurred()) {
            PyObject *t, *v, *tb;
            PyErr_Fetch(&t, &v, &tb);
            s->error = Py_BuildValue("(NNN)", t ? t : newref(Py_None), v ? v : newref(Py_None),
                                     tb ? tb : newref(Py_None));
        }
        PyErr_Clear();
        status = CLX_ERR_ARGUMENT;
        snprintf(msg->text, sizeof msg->text, "patterns: reading pattern %zu failed", i);
    } else {
        clx_image image = { s->width, s->height, s->type, view.buf };
        status = clx_image_copy_to(&image, staged, msg);
    }
    if (view.obj)
        PyBuffer_Release(&view);
    Py_XDECREF(array);
    PyGILState_Release(gil);
    return status;
}

static int load(void *user, size_t k, clx_image *staged, clx_message *msg)
{
    struct source *s = user;
    size_t i = s->order[k];
    if (s->loader)
        return load_python(s, i, staged, msg);
    if (!s->pixels)
        return clx_image_file_read_into(s->file, s->first_page + (int)i, staged, msg);
    size_t bytes = (size_t)s->width * s->height * clx_pixel_size(s->type);
    clx_image view = { s->width, s->height, s->type, (void *)(s->pixels + i * bytes) };
    return clx_image_copy_to(&view, staged, msg);
}

static int deliver(void *user, size_t k, const clx_strain_row *row, clx_message *msg)
{
    struct source *s = user;
    static const int tensor[6] = { 0, 1, 2, 4, 5, 8 };
    double *out = s->rows + k * STRAIN_COLUMNS;
    (void)msg;
    for (int c = 0; c < 6; c++)
        out[c] = row->fit.e[tensor[c]];
    for (int c = 0; c < 3; c++)
        out[6 + c] = row->fit.w[c];
    out[9] = row->fit.residual;
    out[10] = row->fit.windows;
    out[11] = row->fit.flags;
    out[12] = row->grain;
    out[13] = (double)row->ref_row;
    out[14] = (double)row->ref_col;
    for (int c = 0; c < 3; c++)
        out[15 + c] = row->euler[c];
    out[18] = (double)s->order[k];
    if (s->state)
        __atomic_add_fetch(&s->state[1], 1, __ATOMIC_RELEASE);
    return CLX_OK;
}

static int cancelled(void *user)
{
    struct source *s = user;
    return s->state && __atomic_load_n(&s->state[0], __ATOMIC_ACQUIRE) != 0;
}

/* The job's options from a dict of clx_strain_job_options' field names. */
static int job_options_from_dict(PyObject *dict, clx_strain_job_options *o)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        if (!name)
            return -1;
        double *triple = strcmp(name, "pc") == 0 ? o->pc : strcmp(name, "euler") == 0 ? o->euler : NULL;
        double *real = strcmp(name, "sample_tilt") == 0     ? &o->sample_tilt
                       : strcmp(name, "detector_tilt") == 0 ? &o->detector_tilt
                       : strcmp(name, "pixel_size") == 0    ? &o->pixel_size
                       : strcmp(name, "step_x") == 0        ? &o->step_x
                       : strcmp(name, "step_y") == 0        ? &o->step_y
                       : strcmp(name, "min_zncc") == 0      ? &o->fit.min_zncc
                       : strcmp(name, "min_peak_ratio") == 0 ? &o->fit.min_peak_ratio
                       : strcmp(name, "max_residual") == 0  ? &o->fit.max_residual
                       : strcmp(name, "remap_tol") == 0     ? &o->remap_tol
                       : strcmp(name, "grain_angle") == 0   ? &o->grain_angle
                                                            : NULL;
        int *integer = strcmp(name, "pattern_centres") == 0 ? (int *)&o->pattern_centres
                       : strcmp(name, "scan_cols") == 0     ? &o->scan_cols
                       : strcmp(name, "remap") == 0         ? &o->remap
                       : strcmp(name, "remap_rotation") == 0 ? &o->remap_rotation
                       : strcmp(name, "remap_passes") == 0  ? &o->remap_passes
                       : strcmp(name, "min_grain") == 0     ? &o->min_grain
                       : strcmp(name, "symmetry") == 0      ? &o->symmetry
                                                            : NULL;
        const char **text = strcmp(name, "orientations") == 0       ? &o->orientations
                            : strcmp(name, "stiffness") == 0        ? &o->stiffness
                            : strcmp(name, "grains") == 0           ? &o->grains
                            : strcmp(name, "grain_references") == 0 ? &o->grain_references
                                                                    : NULL;
        if (triple) {
            if (!PyArg_ParseTuple(value, "ddd", &triple[0], &triple[1], &triple[2]))
                return -1;
            *(triple == o->pc ? &o->have_pc : &o->have_euler) = 1;
        } else if (strcmp(name, "ref_point") == 0) {
            if (!PyArg_ParseTuple(value, "ll", &o->ref_row, &o->ref_col))
                return -1;
            o->have_ref_point = 1;
        } else if (real) {
            if ((*real = PyFloat_AsDouble(value)) == -1 && PyErr_Occurred())
                return -1;
        } else if (integer) {
            long v = PyLong_AsLong(value);
            if (v == -1 && PyErr_Occurred())
                return -1;
            *integer = (int)v;
        } else if (text) {
            /* The strings stay the dict's, which outlives the job. */
            if (!(*text = PyUnicode_AsUTF8(value)))
                return -1;
        } else {
            PyErr_Format(PyExc_KeyError, "no strain option %R", key);
            return -1;
        }
    }
    return 0;
}

/*
 * strain(context, patterns, count, width, height, pixel_type, reference,
 *        reference_type, reference_name, file, scan, regions, plan, job,
 *        state):
 * patterns a buffer of count images, or a callable (loader(i): image i,
 * an array of pixel_type), or None and file, a pattern file's name whose
 * pages are measured; reference its pixels; state None or a writable
 * buffer of two int64 (see struct source). Returns (rows as bytes, grains,
 * oriented, scan rows, scan columns, the scan's step_x and step_y in um (0
 * where the file does not say), cancelled): stopped through state,
 * the rows delivered before are in, the others zero, and cancelled is 1.
 */
PyObject *strain_run(PyObject *self, PyObject *args)
{
    ContextObject *context;
    PyObject *patterns, *reference, *regions, *plan_dict, *job_dict, *file_obj, *file_bytes = NULL, *state_obj;
    Py_ssize_t count;
    int width, height, type, ref_type;
    const char *reference_name, *scan;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OniiiOizOzOO!O!O:strain", &Context_Type, &context, &patterns, &count, &width,
                          &height, &type, &reference, &ref_type, &reference_name, &file_obj,
                          &scan, &regions, &PyDict_Type, &plan_dict, &PyDict_Type, &job_dict, &state_obj))
        return NULL;
    if (file_obj != Py_None && !PyUnicode_FSConverter(file_obj, &file_bytes))
        return NULL;
    clx_plan_options plan;
    clx_strain_job_options options;
    clx_strain_job_plan_options(&plan);
    clx_strain_job_options_init(&options);
    struct source s = { NULL, (clx_pixel_type)type, width, height, NULL, 0, NULL, NULL, NULL, NULL, NULL };
    Py_buffer pixels_view = { 0 }, ref_view = { 0 }, regions_view = { 0 }, state_view = { 0 };
    PyObject *result = NULL, *rows = NULL;
    clx_strain_job *job = NULL;
    if (plan_options_from_dict(plan_dict, &plan) < 0 || job_options_from_dict(job_dict, &options) < 0)
        goto done;
    if (PyObject_GetBuffer(reference, &ref_view, PyBUF_C_CONTIGUOUS) < 0 ||
        PyObject_GetBuffer(regions, &regions_view, PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if (state_obj != Py_None) {
        if (PyObject_GetBuffer(state_obj, &state_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
            goto done;
        if (state_view.len < 2 * (Py_ssize_t)sizeof(long long)) {
            PyErr_SetString(PyExc_ValueError, "strain: state holds two int64");
            goto done;
        }
        s.state = state_view.buf;
    }
    if (PyCallable_Check(patterns))
        s.loader = patterns;
    else if (patterns != Py_None) {
        if (PyObject_GetBuffer(patterns, &pixels_view, PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        s.pixels = pixels_view.buf;
    }
    int status, first = 0, last = -1, grains = 0, oriented = 0, scan_rows = 0, scan_cols = 0;
    double step_x = 0, step_y = 0;
    clx_message msg = { "" };
    char *file_name = file_bytes ? PyBytes_AS_STRING(file_bytes) : NULL;
    Py_BEGIN_ALLOW_THREADS
    status = file_name ? clx_image_name_open(file_name, scan, &s.file, &first, &last, &msg) : CLX_OK;
    if (status == CLX_OK && s.file) {
        count = last - first + 1;
        s.first_page = first;
    }
    int *pages = status == CLX_OK ? malloc((count ? (size_t)count : 1) * sizeof *pages) : NULL;
    if (status == CLX_OK && !pages) {
        status = CLX_ERR_HOST_MEMORY;
        snprintf(msg.text, sizeof msg.text, "out of memory");
    }
    for (Py_ssize_t i = 0; pages && i < count; i++)
        pages[i] = first + (int)i;
    clx_strain_patterns p = { (size_t)count, width, height, s.file, pages, reference_name, scan };
    if (status == CLX_OK)
        status = clx_strain_job_create(&options, &p, regions_view.buf, (size_t)regions_view.len / sizeof(clx_region),
                                       &job, &msg);
    free(pages);
    Py_END_ALLOW_THREADS
    if (status != CLX_OK) {
        core_raise(status, msg.text);
        goto done;
    }
    if (!(rows = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((size_t)count * STRAIN_COLUMNS * sizeof(double)))))
        goto done;
    s.rows = (double *)PyBytes_AS_STRING(rows);
    memset(s.rows, 0, (size_t)count * STRAIN_COLUMNS * sizeof(double));
    s.order = clx_strain_job_order(job);
    size_t nrefs;
    const clx_strain_reference *refs = clx_strain_job_references(job, &nrefs);
    for (size_t g = 0; g < nrefs; g++)
        oriented |= isfinite(refs[g].euler[0]);
    grains = clx_strain_job_grains(job, NULL);
    if (s.file && clx_image_file_scan(s.file)) {
        scan_rows = clx_image_file_scan(s.file)->rows;
        scan_cols = clx_image_file_scan(s.file)->cols;
        step_x = clx_image_file_scan(s.file)->step_x;
        step_y = clx_image_file_scan(s.file)->step_y;
    }
    clx_image ref = { width, height, (clx_pixel_type)ref_type, ref_view.buf };
    clx_stream_options stream;
    clx_stream_options_init(&stream);
    if (s.file && !clx_image_file_shared(s.file))
        stream.loaders = 1;
    if (s.loader)               /* one at a time in Python anyway */
        stream.loaders = 2;
    stream.cancelled = cancelled;
    Py_BEGIN_ALLOW_THREADS
    context_lock(context);
    if (!context->ctx) {
        status = CLX_ERR_STATE;
        snprintf(msg.text, sizeof msg.text, "the context was closed");
    } else
        status = clx_strain_job_run(job, &context->ctx, 1, &ref, &plan, &stream, load, deliver, &s, &msg);
    context_unlock(context);
    Py_END_ALLOW_THREADS
    context_log_flush(context);
    if (s.error) {
        PyObject *t, *v, *tb;
        if (!PyArg_ParseTuple(s.error, "OOO", &t, &v, &tb))
            goto done;
        PyErr_Restore(newref(t), v == Py_None ? NULL : newref(v), tb == Py_None ? NULL : newref(tb));
        goto done;
    }
    int stopped = status == CLX_ERR_CANCELLED && s.state && s.state[0];
    if (status != CLX_OK && !stopped) {
        core_raise(status, msg.text);
        goto done;
    }
    result = Py_BuildValue("Oiiiiddi", rows, grains, oriented, scan_rows, scan_cols, step_x, step_y, stopped);
done:
    Py_XDECREF(rows);
    Py_XDECREF(s.error);
    if (state_view.obj)
        PyBuffer_Release(&state_view);
    clx_strain_job_release(job);
    clx_image_file_close(s.file);
    if (pixels_view.obj)
        PyBuffer_Release(&pixels_view);
    if (ref_view.obj)
        PyBuffer_Release(&ref_view);
    if (regions_view.obj)
        PyBuffer_Release(&regions_view);
    Py_XDECREF(file_bytes);
    return result;
}
