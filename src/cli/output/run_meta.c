/* run_meta.c - offsets --meta FILE.json; see run_meta.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/json_out.h"
#include "output/run_meta.h"
#include "report.h"

void run_meta_begin(struct run_meta *m, int argc, char **argv)
{
    memset(m, 0, sizeof *m);
    m->argc = argc;
    m->argv = argv;
    m->t_start = now_seconds();
    time_t now = time(NULL);
    strftime(m->started, sizeof m->started, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
}

void run_meta_device(struct run_meta *m, size_t d, const clx_context *ctx, const clx_plan *plan)
{
    if (d >= RUN_META_MAX_DEVICES)
        return;
    struct run_meta_device *md = &m->devices[d];
    md->info = *clx_context_device(ctx);
    snprintf(md->method, sizeof md->method, "%s", clx_method_name(clx_plan_method(plan)));
    snprintf(md->fft, sizeof md->fft, "%s", clx_plan_method(plan) == CLX_METHOD_FFT ? clx_plan_fft(plan) : "");
    snprintf(md->explanation, sizeof md->explanation, "%s", clx_plan_explanation(plan));
    snprintf(md->tuning, sizeof md->tuning, "%s", clx_plan_tuning(plan));
    md->batch = clx_plan_batch_size(plan);
    if (m->ndevices < d + 1)
        m->ndevices = d + 1;
}

static void text(struct json_object *o, const char *key, const char *s)
{
    if (s)
        json_text(o, key, s, strlen(s));
    else {
        json_key(o, key);
        fputs("null", o->f);
    }
}

static void write_options(FILE *f, const struct run_meta *m)
{
    /* The values in effect, where the options left them to the mode or the refiner. */
    clx_plan_options resolved = *m->plan;
    const clx_plan_options *p = &resolved;
    clx_plan_options_resolve(&resolved);
    struct json_object o = { f, "    ", 0 };
    fputc('{', f);
    text(&o, "mode", clx_mode_name(p->mode));
    text(&o, "method", clx_method_name(p->method));
    json_int(&o, "max_shift", p->max_shift);
    text(&o, "estimator", clx_estimator_name(p->estimator));
    json_int(&o, "fit_size", p->fit_size);
    json_int(&o, "batch", p->batch);
    json_int(&o, "double", p->use_double);
    text(&o, "params", p->params);
    if (p->mode == CLX_MODE_ACCURATE) {
        text(&o, "prefilter", p->prefilter ? p->prefilter : "none");
        text(&o, "window_fn", p->window == CLX_WINDOW_HANN ? "hann" : p->window == CLX_WINDOW_TUKEY ? "tukey" : "none");
        json_double(&o, "window_alpha", "%.6g", p->window_alpha);
        json_int(&o, "passes", p->passes);
        json_int(&o, "refine", p->refine);
        text(&o, "refiner", p->refine ? clx_refiner_name(p->refiner) : "none");
        json_int(&o, "shape", p->shape);
        json_double(&o, "tol", "%.6g", p->tolerance);
        json_int(&o, "fine_shift", p->fine_shift);
        text(&o, "interp", clx_interp_name(p->interp));
    }
    json_int(&o, "lanes", m->lanes);
    json_int(&o, "threads", m->loaders);
    text(&o, "shard", m->shard);
    json_int(&o, "mpi_ranks", m->mpi_ranks);
    fputs("\n  }", f);
}

static void write_device(FILE *f, const struct run_meta_device *d)
{
    struct json_object o = { f, "      ", 0 };
    fputs("\n    {", f);
    text(&o, "name", d->info.name);
    text(&o, "vendor", d->info.vendor);
    text(&o, "platform", d->info.platform_name);
    text(&o, "driver", d->info.driver_version);
    text(&o, "opencl_c", d->info.opencl_c_version);
    text(&o, "type", clx_device_type_name(d->info.type));
    json_int(&o, "compute_units", d->info.compute_units);
    text(&o, "method", d->method);
    text(&o, "fft", d->fft[0] ? d->fft : NULL);
    text(&o, "why", d->explanation);
    text(&o, "tuning", d->tuning);
    json_int(&o, "batch", d->batch);
    json_int(&o, "images", (long long)d->images);
    fputs("\n    }", f);
}

/* The scan's grid and geometry, as the file gives them (the pattern centre
 * in Bruker's convention; null for what the file does not say). */
static void write_scan(FILE *f, const clx_scan_info *s)
{
    struct json_object o = { f, "    ", 0 };
    fputc('{', f);
    text(&o, "format", s->format);
    text(&o, "scan", s->scan);
    json_int(&o, "rows", s->rows);
    json_int(&o, "columns", s->cols);
    json_double(&o, "step_x_um", "%.9g", s->step_x > 0 ? s->step_x : NAN);
    json_double(&o, "step_y_um", "%.9g", s->step_y > 0 ? s->step_y : NAN);
    json_key(&o, "pattern_centre");
    if (s->has_pc) {
        struct json_object pc = { f, "      ", 0 };
        fputc('{', f);
        json_double(&pc, "pcx", "%.9g", s->pcx);
        json_double(&pc, "pcy", "%.9g", s->pcy);
        json_double(&pc, "pcz", "%.9g", s->pcz);
        text(&pc, "convention", "Bruker");
        text(&pc, "file_convention", s->pc_convention);
        json_int(&pc, "per_point", s->pc_per_point);
        fputs("\n    }", f);
    } else {
        fputs("null", f);
    }
    json_double(&o, "sample_tilt_deg", "%.9g", s->sample_tilt);
    json_double(&o, "detector_tilt_deg", "%.9g", s->detector_tilt);
    json_double(&o, "azimuthal_deg", "%.9g", s->azimuthal);
    json_double(&o, "twist_deg", "%.9g", s->twist);
    json_double(&o, "detector_pixel_um", "%.9g", s->pixel_size);
    json_int(&o, "binning", s->binning);
    json_int(&o, "orientations", s->has_euler);
    /* What the writer put in for values it did not know (kikuchipy's 1 um). */
    json_key(&o, "placeholders");
    static const struct { unsigned bit; const char *names; } placeholder_names[] = {
        { CLX_SCAN_PLACEHOLDER_PIXEL_SIZE, "\"detector_pixel_um\"" },
        { CLX_SCAN_PLACEHOLDER_STEP, "\"step_x_um\", \"step_y_um\"" },
        { CLX_SCAN_PLACEHOLDER_ORIENTATIONS, "\"orientations\"" },
    };
    fputc('[', f);
    for (size_t k = 0, first = 1; k < sizeof placeholder_names / sizeof placeholder_names[0]; k++)
        if (s->placeholders & placeholder_names[k].bit) {
            fprintf(f, "%s%s", first ? "" : ", ", placeholder_names[k].names);
            first = 0;
        }
    fputc(']', f);
    fputs("\n  }", f);
}

/* The JSON is made in memory and written whole through clx_output: a
 * --meta FILE is replaced only by a complete file, and a FIFO or device
 * is written as it is. */
int run_meta_write(const struct run_meta *m, const char *path, size_t images_done, const char *error)
{
    char *json = NULL;
    size_t json_len = 0;
    FILE *f = open_memstream(&json, &json_len);
    if (!f) {
        report_error("--meta %s: out of memory", path);
        return -1;
    }
    struct json_object o = { f, "  ", 0 };
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    fputc('{', f);
    text(&o, "clxcorr", clx_version());
    text(&o, "features", clx_build_features());
    json_key(&o, "command");
    fputs("[\"clxcorr\"", f);
    for (int i = 0; i < m->argc; i++) {
        fputs(", ", f);
        json_string(f, m->argv[i], strlen(m->argv[i]));
    }
    fputc(']', f);
    text(&o, "host", host);
    text(&o, "started", m->started);
    text(&o, "status", error ? "failed" : "complete");
    text(&o, "error", error);
    text(&o, "reference", m->reference);
    json_int(&o, "images", (long long)m->images);
    json_int(&o, "images_done", (long long)images_done);
    json_int(&o, "windows", (long long)m->windows);
    text(&o, "output", m->output ? m->output : "-");
    json_key(&o, "scan");
    if (m->scan)
        write_scan(f, m->scan);
    else
        fputs("null", f);
    json_key(&o, "options");
    write_options(f, m);
    json_key(&o, "devices");
    fputc('[', f);
    for (size_t d = 0; d < m->ndevices; d++) {
        fputs(d ? "," : "", f);
        write_device(f, &m->devices[d]);
    }
    fputs(m->ndevices ? "\n  ]" : "]", f);
    double ready = m->t_ready > 0 ? m->t_ready : m->t_end;
    json_key(&o, "seconds");
    struct json_object t = { f, "    ", 0 };
    fputc('{', f);
    json_double(&t, "total", "%.3f", m->t_end - m->t_start);
    json_double(&t, "set_up", "%.3f", ready - m->t_start);
    json_double(&t, "images", "%.3f", m->t_end - ready);
    if (m->strain)
        json_double(&t, "strain_fit", "%.6f", m->strain_fit_seconds);
    fputs("\n  }", f);
    json_double(&o, "images_per_second", "%.1f", m->t_end > ready ? images_done / (m->t_end - ready) : 0.0);
    if (m->strain)
        json_double(&o, "strain_fit_share", "%.4g",
                    m->t_end > m->t_start ? m->strain_fit_seconds / (m->t_end - m->t_start) : NAN);
    fputs("\n}\n", f);
    int bad = fflush(f) != 0 || ferror(f);
    fclose(f);
    clx_message msg = { "out of memory" };
    bad = bad || clx_output_write_file(path, json, json_len, &msg) != CLX_OK;
    free(json);
    if (bad) {
        report_error("--meta %s: %s", path, msg.text);
        return -1;
    }
    return 0;
}
