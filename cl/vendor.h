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

/* The device's sub-groups, as its reported extensions say (the host passes
 * CLX_SUBGROUPS from CL_DEVICE_EXTENSIONS): AMD and NVIDIA report
 * cl_khr_subgroups (its built-ins need OpenCL C 2.0), Intel's OpenCL 1.2
 * drivers cl_intel_subgroups, which gives the same built-ins (get_sub_group_size,
 * get_sub_group_local_id, sub_group_broadcast) to OpenCL C 1.2. */
#ifndef CLX_SUBGROUPS
#define CLX_SUBGROUPS 0     /* 0 none, 1 cl_khr_subgroups, 2 cl_intel_subgroups */
#endif
#if CLX_SUBGROUPS != 0 || defined(__opencl_c_subgroups)
#define HAS_SUBGROUPS 1
#else
#define HAS_SUBGROUPS 0
#endif

#endif
