/*
 * strain.c - strain(): an HR-EBSD job (clx_strain_job) run whole on one
 * context, its patterns from a buffer of pixels or a pattern file, its
 * rows handed back as one float64 row of STRAIN_COLUMNS values per
 * pattern (the package lays them on the scan: python/src/clxcorr/_strain.py).
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
};

static int load(void *user, size_t k, clx_image *staged, clx_message *msg)
{
    struct source *s = user;
    size_t i = s->order[k];
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
    return CLX_OK;
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
 *        reference_type, reference_name, file, scan, regions, plan, job):
 * patterns a buffer of count images (or None and file, a pattern file's
 * name whose pages are measured), reference its pixels; returns (rows as
 * bytes, grains, oriented, scan rows, scan columns).
 */
PyObject *strain_run(PyObject *self, PyObject *args)
{
    ContextObject *context;
    PyObject *patterns, *reference, *regions, *plan_dict, *job_dict, *file_obj, *file_bytes = NULL;
    Py_ssize_t count;
    int width, height, type, ref_type;
    const char *reference_name, *scan;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OniiiOizOzOO!O!:strain", &Context_Type, &context, &patterns, &count, &width,
                          &height, &type, &reference, &ref_type, &reference_name, &file_obj,
                          &scan, &regions, &PyDict_Type, &plan_dict, &PyDict_Type, &job_dict))
        return NULL;
    if (file_obj != Py_None && !PyUnicode_FSConverter(file_obj, &file_bytes))
        return NULL;
    clx_plan_options plan;
    clx_strain_job_options options;
    clx_strain_job_plan_options(&plan);
    clx_strain_job_options_init(&options);
    struct source s = { NULL, (clx_pixel_type)type, width, height, NULL, 0, NULL, NULL };
    Py_buffer pixels_view = { 0 }, ref_view = { 0 }, regions_view = { 0 };
    PyObject *result = NULL, *rows = NULL;
    clx_strain_job *job = NULL;
    if (plan_options_from_dict(plan_dict, &plan) < 0 || job_options_from_dict(job_dict, &options) < 0)
        goto done;
    if (PyObject_GetBuffer(reference, &ref_view, PyBUF_C_CONTIGUOUS) < 0 ||
        PyObject_GetBuffer(regions, &regions_view, PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if (patterns != Py_None) {
        if (PyObject_GetBuffer(patterns, &pixels_view, PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        s.pixels = pixels_view.buf;
    }
    int status, first = 0, last = -1, grains = 0, oriented = 0, scan_rows = 0, scan_cols = 0;
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
    s.order = clx_strain_job_order(job);
    size_t nrefs;
    const clx_strain_reference *refs = clx_strain_job_references(job, &nrefs);
    for (size_t g = 0; g < nrefs; g++)
        oriented |= isfinite(refs[g].euler[0]);
    grains = clx_strain_job_grains(job, NULL);
    if (s.file && clx_image_file_scan(s.file)) {
        scan_rows = clx_image_file_scan(s.file)->rows;
        scan_cols = clx_image_file_scan(s.file)->cols;
    }
    clx_image ref = { width, height, (clx_pixel_type)ref_type, ref_view.buf };
    clx_stream_options stream;
    clx_stream_options_init(&stream);
    if (s.file && !clx_image_file_shared(s.file))
        stream.loaders = 1;
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
    if (status != CLX_OK) {
        core_raise(status, msg.text);
        goto done;
    }
    result = Py_BuildValue("Oiiii", rows, grains, oriented, scan_rows, scan_cols);
done:
    Py_XDECREF(rows);
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
