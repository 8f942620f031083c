/*
 * fft_clfft.c - the clFFT backend of src/ops/fft_backend.h.
 *
 * clFFT quirks handled here: clfftSetup/clfftTeardown are process-wide, so
 * they are reference-counted under a mutex; clfftInitSetupData is an inline
 * the library does not export, so the setup data is filled by hand; lengths
 * must factor into clFFT's radices (we keep to 2, 3, 5 and 7, which every
 * clFFT transform type supports); clFFT has no status-to-string, so
 * clfft_errstr names its own codes and defers to cl_errstr for OpenCL's.
 *
 * clFFT is opened on first use with RTLD_LOCAL, not linked (issue #35):
 * Debian's libclFFT.so.2 exports MD5_Init, MD5_Update and MD5_Final of its
 * own. Linked, it came before libcrypto (reached through libhdf5 -> libcurl
 * -> libssl) in the search order of a process that loaded libclxcorr first,
 * as Python's `import clxcorr` does, and OpenSSL's md5 then ran clFFT's
 * functions, which write past OpenSSL's smaller context (dask, and so every
 * kikuchipy session, hashes arrays with md5). Opened locally, its symbols
 * bind none of another library's. (clFFT's own md5 calls may still bind to
 * libcrypto's where a program links OpenSSL, as they always did there:
 * the same digest, in a context larger than OpenSSL needs.) Not
 * RTLD_DEEPBIND, which AddressSanitizer refuses. clFFT.h is still read,
 * for the types.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clFFT.h>

#include "ops/fft_backend.h"
#include "runtime/cl_error.h"
#include "runtime/context.h"

struct clfft_state {
    clfftPlanHandle handle;
    clfftDirection direction;
    cl_command_queue queue;
};

/* Every clFFT function this file calls, resolved by name from the library:
 * the X-list gives each its member, typed by clFFT.h's own declaration. */
#define CLFFT_CALLS(X)                                                                                                \
    X(clfftSetup) X(clfftTeardown) X(clfftCreateDefaultPlan) X(clfftDestroyPlan) X(clfftSetPlanPrecision)          \
    X(clfftSetResultLocation) X(clfftSetPlanBatchSize) X(clfftSetLayout) X(clfftSetPlanInStride)                   \
    X(clfftSetPlanOutStride) X(clfftSetPlanDistance) X(clfftBakePlan) X(clfftEnqueueTransform)

static struct clfft_api {
#define CLFFT_MEMBER(name) __typeof__(name) *name;
    CLFFT_CALLS(CLFFT_MEMBER)
#undef CLFFT_MEMBER
} clfft;

/* setup_lock guards setup_users and the loading of the library: the first
 * plan loads it and fills `clfft`, which stays filled (the library is never
 * closed: clFFT's C++ statics and its kernels' binaries may outlive a
 * Teardown) and is read without the lock once a plan holds a setup. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static int setup_users;
static void *library;

/* The library to open: CLXCORR_CLFFT_LIBRARY, where set (a file name or
 * path; tests/cli_clfft.sh points it at a missing one), else
 * configure's soname, found through LD_LIBRARY_PATH and ldconfig like a
 * linked library (the GPU hosts' .gpu-host/setup.sh relies on it), else the
 * file configure found it in. Fills `clfft`; called under setup_lock. */
static int library_load(struct clx_context *ctx)
{
    const char *name = getenv("CLXCORR_CLFFT_LIBRARY");
    int overridden = name && *name;
    if (!overridden)
        name = CLX_CLFFT_SONAME;
    char why[512];
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        /* dlerror() of the soname: the fallback's would hide it. */
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : "dlopen failed");
        if (!overridden && CLX_CLFFT_PATH[0] && strcmp(CLX_CLFFT_PATH, name) != 0)
            lib = dlopen(CLX_CLFFT_PATH, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return ctx_fail(ctx, CLX_ERR_FFT, "fft=clfft: cannot load %s: %s", name, why);
    }
    struct clfft_api api;
    /* POSIX's way to store dlsym's void * into a function pointer. */
#define CLFFT_ENTRY(fn) { #fn, (void **)&api.fn },
    const struct { const char *name; void **slot; } entries[] = { CLFFT_CALLS(CLFFT_ENTRY) };
#undef CLFFT_ENTRY
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        dlerror();
        *entries[i].slot = dlsym(lib, entries[i].name);
        if (!*entries[i].slot) {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s", e ? e : "a NULL symbol");
            dlclose(lib);
            return ctx_fail(ctx, CLX_ERR_FFT, "fft=clfft: cannot load %s: %s", name, why);
        }
    }
    clfft = api;
    library = lib;
    return CLX_OK;
}

static const char *clfft_errstr(clfftStatus s)
{
    switch ((int)s) {
    case CLFFT_BUGCHECK: return "CLFFT_BUGCHECK";
    case CLFFT_NOTIMPLEMENTED: return "CLFFT_NOTIMPLEMENTED";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED: return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    case CLFFT_FILE_NOT_FOUND: return "CLFFT_FILE_NOT_FOUND";
    case CLFFT_FILE_CREATE_FAILURE: return "CLFFT_FILE_CREATE_FAILURE";
    case CLFFT_VERSION_MISMATCH: return "CLFFT_VERSION_MISMATCH";
    case CLFFT_INVALID_PLAN: return "CLFFT_INVALID_PLAN";
    case CLFFT_DEVICE_NO_DOUBLE: return "CLFFT_DEVICE_NO_DOUBLE";
    case CLFFT_DEVICE_MISMATCH: return "CLFFT_DEVICE_MISMATCH";
    }
    return cl_errstr((cl_int)s);
}

static int clfft_fail(struct clx_context *ctx, clfftStatus s, const char *call)
{
    int status = (int)s < CLFFT_BUGCHECK ? cl_status((cl_int)s) : CLX_ERR_FFT;
    if (status == CLX_ERR_DEVICE_MEMORY)
        return ctx_fail(ctx, status, "out of device memory on %s (%s: %s); try a smaller batch",
                        ctx->dev.info.name, call, clfft_errstr(s));
    if (status == CLX_ERR_OPENCL)
        status = CLX_ERR_FFT;
    return ctx_fail(ctx, status, "%s failed on %s: %s", call, ctx->dev.info.name, clfft_errstr(s));
}

/* Loads the library where no plan has yet, and calls clfftSetup where no
 * plan holds it: an error is reported on ctx. */
static int setup_acquire(struct clx_context *ctx)
{
    int status = CLX_OK;
    pthread_mutex_lock(&setup_lock);
    if (!library)
        status = library_load(ctx);
    if (status == CLX_OK && setup_users == 0) {
        clfftSetupData data = { 0 };
        data.major = clfftVersionMajor;
        data.minor = clfftVersionMinor;
        data.patch = clfftVersionPatch;
        clfftStatus s = clfft.clfftSetup(&data);
        if (s != CLFFT_SUCCESS)
            status = clfft_fail(ctx, s, "clfftSetup");
    }
    if (status == CLX_OK)
        setup_users++;
    pthread_mutex_unlock(&setup_lock);
    return status;
}

static void setup_release(void)
{
    pthread_mutex_lock(&setup_lock);
    if (--setup_users == 0)
        clfft.clfftTeardown();
    pthread_mutex_unlock(&setup_lock);
}

static int clfft_good_size(int n)
{
    for (int m = n + (n & 1);; m += 2) {
        int r = m;
        static const int radices[] = { 2, 3, 5, 7 };
        for (int i = 0; i < 4; i++)
            while (r % radices[i] == 0)
                r /= radices[i];
        if (r == 1)
            return m;
    }
}

static void clfft_destroy(void *p)
{
    struct clfft_state *st = p;
    if (!st)
        return;
    if (st->handle)
        clfft.clfftDestroyPlan(&st->handle);
    free(st);
    setup_release();
}

static int clfft_create(struct clx_context *ctx, enum fft_kind kind, int nx, int ny, int batch,
                        int use_double, int data_w, int data_h, void **out)
{
    (void)data_w, (void)data_h;  /* clFFT reads the whole input */
    /* The signal side (reals or complex values, rows of nx) and the
     * spectrum side (half-spectra, rows of nx / 2 + 1, or full spectra). */
    int real = fft_kind_real(kind);
    size_t spectrum_w = real ? (size_t)(nx / 2 + 1) : (size_t)nx;
    size_t lengths[2] = { (size_t)nx, (size_t)ny };
    size_t signal_strides[2] = { 1, (size_t)nx }, spectrum_strides[2] = { 1, spectrum_w };
    size_t signal_dist = (size_t)nx * ny, spectrum_dist = spectrum_w * ny;
    clfftLayout signal_layout = real ? CLFFT_REAL : CLFFT_COMPLEX_INTERLEAVED;
    clfftLayout spectrum_layout = real ? CLFFT_HERMITIAN_INTERLEAVED : CLFFT_COMPLEX_INTERLEAVED;
    const char *call;
    clfftStatus s;

    *out = NULL;
    int status = setup_acquire(ctx);
    if (status != CLX_OK)
        return status;
    struct clfft_state *st = calloc(1, sizeof *st);
    if (!st) {
        setup_release();
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    st->queue = ctx->queue;
    st->direction = fft_kind_forward(kind) ? CLFFT_FORWARD : CLFFT_BACKWARD;

#define TRY(fn, ...) do { call = #fn; s = clfft.fn(__VA_ARGS__); if (s != CLFFT_SUCCESS) goto error; } while (0)
    TRY(clfftCreateDefaultPlan, &st->handle, ctx->cl, CLFFT_2D, lengths);
    TRY(clfftSetPlanPrecision, st->handle, use_double ? CLFFT_DOUBLE : CLFFT_SINGLE);
    TRY(clfftSetResultLocation, st->handle, CLFFT_OUTOFPLACE);
    TRY(clfftSetPlanBatchSize, st->handle, (size_t)batch);
    if (fft_kind_forward(kind)) {
        TRY(clfftSetLayout, st->handle, signal_layout, spectrum_layout);
        TRY(clfftSetPlanInStride, st->handle, CLFFT_2D, signal_strides);
        TRY(clfftSetPlanOutStride, st->handle, CLFFT_2D, spectrum_strides);
        TRY(clfftSetPlanDistance, st->handle, signal_dist, spectrum_dist);
    } else {
        TRY(clfftSetLayout, st->handle, spectrum_layout, signal_layout);
        TRY(clfftSetPlanInStride, st->handle, CLFFT_2D, spectrum_strides);
        TRY(clfftSetPlanOutStride, st->handle, CLFFT_2D, signal_strides);
        TRY(clfftSetPlanDistance, st->handle, spectrum_dist, signal_dist);
        /* The backward scale stays clFFT's default, 1 / (nx ny): setting it
         * would pass it as a float, too coarse for double plans. */
    }
    TRY(clfftBakePlan, st->handle, 1, &st->queue, NULL, NULL);
#undef TRY
    ctx_log(ctx, CLX_LOG_DEBUG, "clFFT %s plan %dx%d x %d (%s) baked", fft_kind_name(kind), nx, ny, batch,
            use_double ? "double" : "float");
    *out = st;
    return CLX_OK;

error:
    clfft_destroy(st);
    return clfft_fail(ctx, s, call);
}

static int clfft_execute(struct clx_context *ctx, void *p, cl_mem in, cl_mem out)
{
    struct clfft_state *st = p;
    clfftStatus s = clfft.clfftEnqueueTransform(st->handle, st->direction, 1, &st->queue, 0, NULL, NULL,
                                          &in, &out, NULL);
    return s == CLFFT_SUCCESS ? CLX_OK : clfft_fail(ctx, s, "clfftEnqueueTransform");
}

const struct fft_backend fft_backend_clfft = {
    .name = "clfft",
    .good_size = clfft_good_size,
    .spectrum_elements = fft_library_spectrum_elements,
    .create = clfft_create,
    .execute = clfft_execute,
    .destroy = clfft_destroy,
};
