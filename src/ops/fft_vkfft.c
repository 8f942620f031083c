/*
 * fft_vkfft.c - the VkFFT backend of src/ops/fft_backend.h (VkFFT's OpenCL backend,
 * VKFFT_BACKEND=3). Built only when configure found vkFFT.h; the only file
 * that includes it (the header is the whole library and slow to compile).
 *
 * Out of place through VkFFT's "formatted input" buffer (isInputFormatted):
 *   R2C: inputBuffer (reals, rows of nx) -> buffer (rows of nx/2+1 complex);
 *   C2R: buffer -> inputBuffer (inverseReturnToInputBuffer), normalised;
 *   C2C forward and inverse: the same with complex values, rows of nx, on
 *   both sides.
 * The spectra are always VkFFT's `buffer`, which its inverse also uses as
 * work space: an inverse overwrites its input, as fft_plan.h allows.
 *
 * VkFFT quirks handled here: it generates and compiles its kernels when a
 * plan is made, so each plan builds only the direction it runs
 * (makeForwardPlanOnly / makeInversePlanOnly), and the compiles go through
 * clxcorr's kernel cache (below: VkFFT's own saveApplicationToString cannot
 * carry OpenCL binaries, which it copies with sprintf's "%s"); it keeps the pointers
 * it is given (device, context, sizes, queue, buffers) and reads them again
 * on every launch, so they point into the plan's state; the real buffer's
 * row stride defaults to nx + 2 (in-place padding) and is set to nx; plan
 * creation sets the process's locale to "C" and back, so plans are made
 * under a lock; VkFFT 1.2 has no status-to-string, so vkfft_errstr names
 * its codes.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

#include "ops/fft_backend.h"
#include "runtime/context.h"
#include "runtime/program_build.h"

/*
 * VkFFT's kernels through the kernel cache. initializeVkFFT writes each
 * kernel's OpenCL C text and builds it with clCreateProgramWithSource and
 * clBuildProgram, every run: 2 s for a plan PoCL has not seen, 6 ms from
 * the cache (NVIDIA's driver keeps a compile cache of its own, so on an
 * H200 the set-up did not change; issue 36). In this file only, those
 * two calls are redirected: the first builds the text through the context's
 * binary cache (program_build_source: a cached binary when the text, device
 * and driver match, else compiled and stored), the second then has nothing
 * left to do. Plans are made under plan_lock, which also guards the
 * plan being made (plan_ctx and its counts).
 */
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct clx_context *plan_ctx;
static char plan_name[96];
static int plan_cached, plan_compiled, plan_build_status;

static cl_program cached_create_program(cl_context context, cl_uint count, const char **strings,
                                        const size_t *lengths, cl_int *err)
{
    struct clx_context *ctx = plan_ctx;
    /* Only what initializeVkFFT asks for: one NUL-terminated text. */
    if (!ctx || context != ctx->cl || count != 1 || (lengths && lengths[0] != strlen(strings[0])))
        return clCreateProgramWithSource(context, count, strings, lengths, err);
    cl_program program;
    int from_cache;
    int status = program_build_source(ctx, plan_name, strings[0], "", &program, &from_cache);
    if (status != CLX_OK) {
        plan_build_status = status;
        if (err)
            *err = CL_INVALID_PROGRAM;
        return NULL;
    }
    if (from_cache)
        plan_cached++;
    else
        plan_compiled++;
    if (err)
        *err = CL_SUCCESS;
    return program;
}

static cl_int cached_build_program(cl_program program, cl_uint count, const cl_device_id *devices, const char *options,
                                   void(CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    cl_build_status built;
    if (count == 1 && clGetProgramBuildInfo(program, devices[0], CL_PROGRAM_BUILD_STATUS, sizeof built, &built,
                                            NULL) == CL_SUCCESS && built == CL_BUILD_SUCCESS)
        return CL_SUCCESS;
    return clBuildProgram(program, count, devices, options, notify, user);
}

#define clCreateProgramWithSource cached_create_program
#define clBuildProgram cached_build_program
#include <vkFFT.h>
#undef clCreateProgramWithSource
#undef clBuildProgram

struct vkfft_state {
    VkFFTApplication app;
    int app_initialized;
    enum fft_kind kind;
    int direction;               /* VkFFTAppend's: -1 forward (R2C, C2C forward), 1 inverse (C2R, C2C inverse) */
    /* What VkFFT holds pointers to, for the plan's lifetime. */
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    uint64_t spectrum_bytes, signal_bytes;
    cl_mem spectrum, signal;     /* the buffers of the transform being enqueued: `buffer`, `inputBuffer` */
};

static const char *vkfft_errstr(VkFFTResult r)
{
#define NAME(code) case code: return #code;
    switch (r) {
    NAME(VKFFT_SUCCESS) NAME(VKFFT_ERROR_MALLOC_FAILED) NAME(VKFFT_ERROR_INSUFFICIENT_CODE_BUFFER)
    NAME(VKFFT_ERROR_INSUFFICIENT_TEMP_BUFFER) NAME(VKFFT_ERROR_PLAN_NOT_INITIALIZED)
    NAME(VKFFT_ERROR_NULL_TEMP_PASSED) NAME(VKFFT_ERROR_INVALID_PHYSICAL_DEVICE) NAME(VKFFT_ERROR_INVALID_DEVICE)
    NAME(VKFFT_ERROR_INVALID_QUEUE) NAME(VKFFT_ERROR_INVALID_COMMAND_POOL) NAME(VKFFT_ERROR_INVALID_FENCE)
    NAME(VKFFT_ERROR_ONLY_FORWARD_FFT_INITIALIZED) NAME(VKFFT_ERROR_ONLY_INVERSE_FFT_INITIALIZED)
    NAME(VKFFT_ERROR_INVALID_CONTEXT) NAME(VKFFT_ERROR_INVALID_PLATFORM)
    NAME(VKFFT_ERROR_ENABLED_saveApplicationToString) NAME(VKFFT_ERROR_EMPTY_FILE) NAME(VKFFT_ERROR_EMPTY_FFTdim)
    NAME(VKFFT_ERROR_EMPTY_size) NAME(VKFFT_ERROR_EMPTY_bufferSize) NAME(VKFFT_ERROR_EMPTY_buffer)
    NAME(VKFFT_ERROR_EMPTY_tempBufferSize) NAME(VKFFT_ERROR_EMPTY_tempBuffer) NAME(VKFFT_ERROR_EMPTY_inputBufferSize)
    NAME(VKFFT_ERROR_EMPTY_inputBuffer) NAME(VKFFT_ERROR_EMPTY_outputBufferSize) NAME(VKFFT_ERROR_EMPTY_outputBuffer)
    NAME(VKFFT_ERROR_EMPTY_kernelSize) NAME(VKFFT_ERROR_EMPTY_kernel) NAME(VKFFT_ERROR_EMPTY_applicationString)
    NAME(VKFFT_ERROR_EMPRY_useCustomBluesteinPaddingPattern_arrays) NAME(VKFFT_ERROR_UNSUPPORTED_RADIX)
    NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH) NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C)
    NAME(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_DCT) NAME(VKFFT_ERROR_UNSUPPORTED_FFT_OMIT)
    NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE) NAME(VKFFT_ERROR_FAILED_TO_MAP_MEMORY)
    NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE_COMMAND_BUFFERS) NAME(VKFFT_ERROR_FAILED_TO_BEGIN_COMMAND_BUFFER)
    NAME(VKFFT_ERROR_FAILED_TO_END_COMMAND_BUFFER) NAME(VKFFT_ERROR_FAILED_TO_SUBMIT_QUEUE)
    NAME(VKFFT_ERROR_FAILED_TO_WAIT_FOR_FENCES) NAME(VKFFT_ERROR_FAILED_TO_RESET_FENCES)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_DESCRIPTOR_POOL) NAME(VKFFT_ERROR_FAILED_TO_CREATE_DESCRIPTOR_SET_LAYOUT)
    NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE_DESCRIPTOR_SETS) NAME(VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE_LAYOUT)
    NAME(VKFFT_ERROR_FAILED_SHADER_PREPROCESS) NAME(VKFFT_ERROR_FAILED_SHADER_PARSE)
    NAME(VKFFT_ERROR_FAILED_SHADER_LINK) NAME(VKFFT_ERROR_FAILED_SPIRV_GENERATE)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_SHADER_MODULE) NAME(VKFFT_ERROR_FAILED_TO_CREATE_INSTANCE)
    NAME(VKFFT_ERROR_FAILED_TO_SETUP_DEBUG_MESSENGER) NAME(VKFFT_ERROR_FAILED_TO_FIND_PHYSICAL_DEVICE)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_DEVICE) NAME(VKFFT_ERROR_FAILED_TO_CREATE_FENCE)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_POOL) NAME(VKFFT_ERROR_FAILED_TO_CREATE_BUFFER)
    NAME(VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY) NAME(VKFFT_ERROR_FAILED_TO_BIND_BUFFER_MEMORY)
    NAME(VKFFT_ERROR_FAILED_TO_FIND_MEMORY) NAME(VKFFT_ERROR_FAILED_TO_SYNCHRONIZE) NAME(VKFFT_ERROR_FAILED_TO_COPY)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM) NAME(VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM)
    NAME(VKFFT_ERROR_FAILED_TO_GET_CODE_SIZE) NAME(VKFFT_ERROR_FAILED_TO_GET_CODE)
    NAME(VKFFT_ERROR_FAILED_TO_DESTROY_PROGRAM) NAME(VKFFT_ERROR_FAILED_TO_LOAD_MODULE)
    NAME(VKFFT_ERROR_FAILED_TO_GET_FUNCTION) NAME(VKFFT_ERROR_FAILED_TO_SET_DYNAMIC_SHARED_MEMORY)
    NAME(VKFFT_ERROR_FAILED_TO_MODULE_GET_GLOBAL) NAME(VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL)
    NAME(VKFFT_ERROR_FAILED_TO_EVENT_RECORD) NAME(VKFFT_ERROR_FAILED_TO_ADD_NAME_EXPRESSION)
    NAME(VKFFT_ERROR_FAILED_TO_INITIALIZE) NAME(VKFFT_ERROR_FAILED_TO_SET_DEVICE_ID)
    NAME(VKFFT_ERROR_FAILED_TO_GET_DEVICE) NAME(VKFFT_ERROR_FAILED_TO_CREATE_CONTEXT)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE) NAME(VKFFT_ERROR_FAILED_TO_SET_KERNEL_ARG)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_QUEUE) NAME(VKFFT_ERROR_FAILED_TO_RELEASE_COMMAND_QUEUE)
    NAME(VKFFT_ERROR_FAILED_TO_ENUMERATE_DEVICES) NAME(VKFFT_ERROR_FAILED_TO_GET_ATTRIBUTE)
    NAME(VKFFT_ERROR_FAILED_TO_CREATE_EVENT) NAME(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_LIST)
    NAME(VKFFT_ERROR_FAILED_TO_DESTROY_COMMAND_LIST) NAME(VKFFT_ERROR_FAILED_TO_SUBMIT_BARRIER)
    }
#undef NAME
    return "an unknown VkFFT error";
}

static int vkfft_fail(struct clx_context *ctx, VkFFTResult r, const char *call, enum fft_kind kind, int nx, int ny,
                      int batch, int use_double)
{
    const char *what = fft_kind_name(kind), *precision = use_double ? "double" : "float";
    /* VkFFT reports every failed clCreateBuffer as FAILED_TO_ALLOCATE. */
    if (r == VKFFT_ERROR_FAILED_TO_ALLOCATE)
        return ctx_fail(ctx, CLX_ERR_DEVICE_MEMORY, "out of device memory on %s (%s for a %s %dx%d x %d %s plan: %s); "
                        "try a smaller batch", ctx->dev.info.name, call, what, nx, ny, batch, precision,
                        vkfft_errstr(r));
    return ctx_fail(ctx, r == VKFFT_ERROR_MALLOC_FAILED ? CLX_ERR_HOST_MEMORY : CLX_ERR_FFT,
                    "%s failed on %s for a %s %dx%d x %d %s plan: %s (%d)", call, ctx->dev.info.name, what, nx, ny,
                    batch, precision, vkfft_errstr(r), (int)r);
}

/* The same lengths as clFFT's: VkFFT's own radices (2 to 13) would allow
 * more, but then the correlation layout would depend on the backend; any
 * other prime makes VkFFT fall back to Bluestein's algorithm (slower, more
 * memory). */
static int vkfft_good_size(int n)
{
    return fft_backend_clfft.good_size(n);
}

static void vkfft_destroy(void *p)
{
    struct vkfft_state *st = p;
    if (!st)
        return;
    if (st->app_initialized)
        deleteVkFFT(&st->app);
    free(st);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int vkfft_create(struct clx_context *ctx, enum fft_kind kind, int nx, int ny, int batch, int use_double,
                        int data_w, int data_h, void **out)
{
    size_t real_size = use_double ? sizeof(double) : sizeof(float);
    int real = fft_kind_real(kind);
    VkFFTConfiguration c = { 0 };
    VkFFTResult r;

    *out = NULL;
    struct vkfft_state *st = calloc(1, sizeof *st);
    if (!st)
        return ctx_fail(ctx, CLX_ERR_HOST_MEMORY, "out of host memory");
    st->kind = kind;
    st->direction = fft_kind_forward(kind) ? -1 : 1;
    st->device = ctx->dev.device;
    st->context = ctx->cl;
    st->queue = ctx->queue;
    st->spectrum_bytes = (uint64_t)(real ? nx / 2 + 1 : nx) * ny * batch * 2 * real_size;
    st->signal_bytes = (uint64_t)nx * ny * batch * (real ? 1 : 2) * real_size;

    c.FFTdim = 2;
    c.size[0] = (uint64_t)nx;
    c.size[1] = (uint64_t)ny;
    c.numberBatches = (uint64_t)batch;
    c.device = &st->device;
    c.context = &st->context;
    c.doublePrecision = use_double ? 1 : 0;
    c.performR2C = (uint64_t)real;
    /* The spectra, complex elements apart: the default strides (nx/2+1 for
     * half-spectra, nx for C2C; its product with ny, and that again between
     * batches). */
    c.bufferSize = &st->spectrum_bytes;
    /* The signal, rows of nx elements, reals or complex values (for R2C not
     * nx + 2 reals, VkFFT's default). */
    c.isInputFormatted = 1;
    c.inputBufferSize = &st->signal_bytes;
    c.inputBufferStride[0] = (uint64_t)nx;
    c.inputBufferStride[1] = (uint64_t)nx * ny;
    c.inputBufferStride[2] = (uint64_t)nx * ny;
    if (st->direction < 0) {
        c.makeForwardPlanOnly = 1;
        /* The correlation's zero padding: VkFFT neither reads it nor
         * transforms the lines that are all zeros. */
        if (kind == FFT_R2C && (data_w < nx || data_h < ny)) {
            c.performZeropadding[0] = c.performZeropadding[1] = 1;
            c.fft_zeropad_left[0] = (uint64_t)data_w;
            c.fft_zeropad_right[0] = (uint64_t)nx;
            c.fft_zeropad_left[1] = (uint64_t)data_h;
            c.fft_zeropad_right[1] = (uint64_t)ny;
        }
    } else {
        c.makeInversePlanOnly = 1;
        c.inverseReturnToInputBuffer = 1;
        c.normalize = 1;
    }

    /* Under the lock: initializeVkFFT switches the process's locale while
     * it writes kernels, and the cache redirection above serves one plan. */
    double t0 = now_ms();
    pthread_mutex_lock(&plan_lock);
    plan_ctx = ctx;
    snprintf(plan_name, sizeof plan_name, "VkFFT's %s %dx%d %s kernel", fft_kind_name(kind), nx, ny,
             use_double ? "double" : "float");
    plan_cached = plan_compiled = 0;
    plan_build_status = CLX_OK;
    r = initializeVkFFT(&st->app, c);
    int cached = plan_cached, compiled = plan_compiled, build_status = plan_build_status;
    plan_ctx = NULL;
    pthread_mutex_unlock(&plan_lock);
    if (r != VKFFT_SUCCESS) {
        /* initializeVkFFT has released what it made. */
        free(st);
        if (build_status != CLX_OK)
            return build_status; /* the build's own message */
        return vkfft_fail(ctx, r, "initializeVkFFT", kind, nx, ny, batch, use_double);
    }
    st->app_initialized = 1;
    int version = VkFFTGetVersion();
    ctx_log(ctx, CLX_LOG_DEBUG, "VkFFT %d.%d.%d %s plan %dx%d x %d (%s) ready in %.0f ms (%d kernels from the "
            "kernel cache, %d compiled)", version / 10000, version / 100 % 100, version % 100, fft_kind_name(kind),
            nx, ny, batch, use_double ? "double" : "float", now_ms() - t0, cached, compiled);
    *out = st;
    return CLX_OK;
}

static int vkfft_execute(struct clx_context *ctx, void *p, cl_mem in, cl_mem out)
{
    struct vkfft_state *st = p;
    VkFFTLaunchParams launch = { 0 };
    st->spectrum = st->direction < 0 ? out : in;
    st->signal = st->direction < 0 ? in : out;
    launch.commandQueue = &st->queue;
    launch.buffer = &st->spectrum;
    launch.inputBuffer = &st->signal;
    VkFFTResult r = VkFFTAppend(&st->app, st->direction, &launch);
    if (r == VKFFT_SUCCESS)
        return CLX_OK;
    return ctx_fail(ctx, CLX_ERR_FFT, "VkFFTAppend (%s) failed on %s: %s (%d)", fft_kind_name(st->kind),
                    ctx->dev.info.name, vkfft_errstr(r), (int)r);
}

const struct fft_backend fft_backend_vkfft = {
    .name = "vkfft",
    .good_size = vkfft_good_size,
    .spectrum_elements = fft_library_spectrum_elements,
    .create = vkfft_create,
    .execute = vkfft_execute,
    .destroy = vkfft_destroy,
};
