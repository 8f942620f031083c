/*
 * names.c - the library's version and the names of its statuses and enums.
 *
 * They sit at the bottom of the layers so that any layer can name what it
 * reports (the tuning database names the mode of a workload class, a stage
 * its estimator) without reaching up to the layer that owns the thing named.
 */
#include "config.h"

#include "clxcorr.h"

const char *clx_status_name(int status)
{
    switch (status) {
    case CLX_OK: return "CLX_OK";
    case CLX_ERR_ARGUMENT: return "CLX_ERR_ARGUMENT";
    case CLX_ERR_HOST_MEMORY: return "CLX_ERR_HOST_MEMORY";
    case CLX_ERR_IO: return "CLX_ERR_IO";
    case CLX_ERR_FORMAT: return "CLX_ERR_FORMAT";
    case CLX_ERR_NO_DEVICE: return "CLX_ERR_NO_DEVICE";
    case CLX_ERR_UNSUPPORTED: return "CLX_ERR_UNSUPPORTED";
    case CLX_ERR_OPENCL: return "CLX_ERR_OPENCL";
    case CLX_ERR_DEVICE_MEMORY: return "CLX_ERR_DEVICE_MEMORY";
    case CLX_ERR_BUILD: return "CLX_ERR_BUILD";
    case CLX_ERR_FFT: return "CLX_ERR_FFT";
    case CLX_ERR_SIZE: return "CLX_ERR_SIZE";
    case CLX_ERR_REGION: return "CLX_ERR_REGION";
    case CLX_ERR_STATE: return "CLX_ERR_STATE";
    case CLX_ERR_CANCELLED: return "CLX_ERR_CANCELLED";
    }
    return "CLX_ERR_UNKNOWN";
}

const char *clx_version(void)
{
    return PACKAGE_VERSION;
}

const char *clx_build_features(void)
{
    return "clfft"
#ifdef HAVE_VKFFT
           " vkfft"
#endif
#ifdef HAVE_HDF5
           " hdf5"
#endif
        ;
}

const char *clx_pixel_type_name(clx_pixel_type type)
{
    switch (type) {
    case CLX_PIXEL_U8: return "8-bit";
    case CLX_PIXEL_U16: return "16-bit";
    case CLX_PIXEL_F32: return "32-bit float";
    }
    return "unknown";
}

const char *clx_device_type_name(clx_device_type type)
{
    switch (type) {
    case CLX_DEVICE_GPU: return "GPU";
    case CLX_DEVICE_CPU: return "CPU";
    case CLX_DEVICE_ACCELERATOR: return "accelerator";
    case CLX_DEVICE_OTHER: break;
    }
    return "other";
}

const char *clx_mode_name(clx_mode mode)
{
    return mode == CLX_MODE_SEED ? "seed" : mode == CLX_MODE_ACCURATE ? "accurate" : "?";
}

const char *clx_method_name(clx_method method)
{
    switch (method) {
    case CLX_METHOD_AUTO: return "auto";
    case CLX_METHOD_FFT: return "fft";
    case CLX_METHOD_DIRECT: return "direct";
    }
    return "?";
}

const char *clx_estimator_name(clx_estimator estimator)
{
    switch (estimator) {
    case CLX_ESTIMATOR_DEFAULT: return "default";
    case CLX_ESTIMATOR_LSQ: return "lsq";
    case CLX_ESTIMATOR_GAUSS3: return "gauss3";
    case CLX_ESTIMATOR_PARABOLA3: return "parabola3";
    case CLX_ESTIMATOR_CENTROID: return "centroid";
    }
    return "?";
}

const char *clx_refiner_name(clx_refiner refiner)
{
    switch (refiner) {
    case CLX_REFINER_ICGN: return "icgn";
    case CLX_REFINER_CORRELATION: return "correlation";
    }
    return "?";
}

const char *clx_interp_name(clx_interp interp)
{
    switch (interp) {
    case CLX_INTERP_DEFAULT: return "default";
    case CLX_INTERP_LANCZOS3: return "lanczos3";
    case CLX_INTERP_KEYS: return "keys";
    case CLX_INTERP_BSPLINE3: return "bspline3";
    case CLX_INTERP_BSPLINE5: return "bspline5";
    }
    return "?";
}
