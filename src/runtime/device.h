/* device.h - finding, describing and choosing OpenCL devices (internal). */
#ifndef CLX_DEVICE_H
#define CLX_DEVICE_H

#include <stddef.h>
#include <CL/cl.h>
#include "clxcorr.h"

/* Vendors that kernels may specialise for (passed as -D CLX_VENDOR=...). */
enum device_vendor {
    VENDOR_OTHER = 0,
    VENDOR_NVIDIA = 1,
    VENDOR_AMD = 2,
    VENDOR_INTEL = 3,
    VENDOR_POCL = 4
};

struct device_entry {
    cl_platform_id platform;
    cl_device_id device;
    char platform_version[128];
    size_t max_work_group_size;
    int image_support;          /* images, and 1D images over buffers (OpenCL 1.2) */
    size_t image_max_buffer;    /* texels of the largest 1D image over a buffer */
    int opencl_c_major;         /* the device's highest OpenCL C version */
    int simd_width;             /* what work-groups are best made of whole units of: AMD's wavefront
                                   (64 on GCN and CDNA, 32 on RDNA), Intel's narrowest sub-group
                                   (8 on Xe-LP and Xe-HPG, 16 on Xe-HPC), NVIDIA's warp; 0 unknown */
    int has_subgroups;          /* sub-groups (sub_group_broadcast and friends) by either extension below */
    int subgroups;              /* which, as cl/vendor.h's CLX_SUBGROUPS: 0 none, 1 cl_khr_subgroups,
                                   2 cl_intel_subgroups (Intel's, on OpenCL C 1.2 too) */
    int has_int64_atomics;      /* cl_khr_int64_extended_atomics (atom_max on 64-bit words) */
    enum device_vendor vendor;
    clx_device_info info;
};

/* Every device of every platform; *entries is malloc'd. */
int devices_enumerate(struct device_entry **entries, size_t *count, clx_message *msg);

/*
 * Picks a device for `spec` (see clx_context_options.device). Devices that
 * match but cannot run the job are skipped and their reason is logged through
 * `log` (may be NULL). Returns the entry's index in *chosen.
 */
typedef void (*device_log_fn)(void *user, const char *line);
int device_select(const struct device_entry *entries, size_t count, const char *spec,
                  int need_fp64, device_log_fn log, void *log_user, size_t *chosen,
                  clx_message *msg);

/* Why the device cannot run clxcorr's kernels, or NULL if it can. */
const char *device_unsuitable_reason(const struct device_entry *entry, int need_fp64);

#endif
