/*
 * vendor.h - predicates for vendor-specific kernel paths.
 *
 * The host passes -D CLX_VENDOR=<n> (src/runtime/device.h's enum device_vendor).
 * Kernels use only the portable OpenCL C 1.2 path unless a predicate below
 * says a faster one exists; the portable path is always built and tested.
 */
#ifndef CLX_VENDOR_H
#define CLX_VENDOR_H

#ifndef CLX_VENDOR
#define CLX_VENDOR 0    /* 0 other, 1 NVIDIA, 2 AMD, 3 Intel, 4 PoCL */
#endif

#define IS_NV (CLX_VENDOR == 1)
#define IS_AMD (CLX_VENDOR == 2)
#define IS_INTEL (CLX_VENDOR == 3)
#define IS_POCL (CLX_VENDOR == 4)

#if defined(cl_khr_subgroups) || defined(__opencl_c_subgroups)
#define HAS_SUBGROUPS 1
#else
#define HAS_SUBGROUPS 0
#endif

#endif
