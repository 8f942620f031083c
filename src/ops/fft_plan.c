/* fft_plan.c - the backend-neutral FFT plan: a backend and its state. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ops/fft_plan.h"
#include "runtime/context.h"

struct fft_plan {
    struct clx_context *ctx;
    const struct fft_backend *backend;
    void *state;
};

const struct fft_backend *fft_default_backend(void)
{
    return &fft_backend_clfft;
}

const struct fft_backend *fft_backend_named(const char *name)
{
    static const struct fft_backend *const built_in[] = {
        &fft_backend_clfft,
        &fft_backend_cpu,
        &fft_backend_local,
#ifdef HAVE_VKFFT
        &fft_backend_vkfft,
#endif
    };
    for (size_t i = 0; name && i < sizeof built_in / sizeof built_in[0]; i++)
        if (strcmp(built_in[i]->name, name) == 0)
            return built_in[i];
    return NULL;
}

int fft_plan_create(struct clx_context *ctx, const struct fft_backend *backend, enum fft_kind kind,
                    int nx, int ny, int batch, int use_double, int data_w, int data_h, struct fft_plan **out)
{
    struct fft_plan *plan = calloc(1, sizeof *plan);
    *out = NULL;
    if (!plan)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    plan->ctx = ctx;
    plan->backend = backend;
    int status = backend->create(ctx, kind, nx, ny, batch, use_double, data_w, data_h, &plan->state);
    if (status != CLX_OK) {
        free(plan);
        return status;
    }
    *out = plan;
    return CLX_OK;
}

int fft_plan_execute(struct fft_plan *plan, cl_mem in, cl_mem out)
{
    return plan->backend->execute(plan->ctx, plan->state, in, out);
}

int fft_plan_fuses_correlation(const struct fft_plan *r2c)
{
    return r2c->backend->correlate != NULL;
}

int fft_plan_correlate(struct fft_plan *r2c, struct fft_plan *c2r, cl_mem in, cl_mem spectra, cl_mem ref_spectra,
                       int nwin, cl_mem out, const struct peak_parts *parts)
{
    return r2c->backend->correlate(r2c->ctx, r2c->state, c2r->state, in, spectra, ref_spectra, nwin, out, parts);
}

int fft_plan_peak_parts(const struct fft_plan *c2r)
{
    return c2r->backend->peak_parts_per_array ? c2r->backend->peak_parts_per_array(c2r->state) : 0;
}

void fft_plan_destroy(struct fft_plan *plan)
{
    if (!plan)
        return;
    plan->backend->destroy(plan->state);
    free(plan);
}
