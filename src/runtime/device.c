/* device.c - enumerating OpenCL platforms and devices and choosing one. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/cl_error.h"
#include "runtime/device.h"
#include "runtime/message.h"

/* The ICD loader's "no platform" code (cl_khr_icd), without cl_ext.h. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* The kernels need at least this much local memory per work-group. */
#define MIN_LOCAL_MEMORY (16u * 1024u)

static void info_string(cl_device_id dev, cl_device_info what, char *out, size_t len)
{
    out[0] = '\0';
    if (clGetDeviceInfo(dev, what, len, out, NULL) != CL_SUCCESS)
        snprintf(out, len, "?");
    out[len - 1] = '\0';
}

/* Does the device's extension string name `name`? */
static int has_extension(cl_device_id dev, const char *name)
{
    size_t len = 0;
    int found = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &len) == CL_SUCCESS && len > 0) {
        char *ext = malloc(len + 1);
        if (ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, len, ext, NULL) == CL_SUCCESS) {
            ext[len] = '\0';
            /* Word by word, without strtok's hidden state: contexts may be
             * opened from several threads at once. */
            size_t n = strlen(name);
            for (const char *w = ext; *w && !found; w += strcspn(w, " ")) {
                w += strspn(w, " ");
                found = strncmp(w, name, n) == 0 && (w[n] == ' ' || w[n] == '\0');
            }
        }
        free(ext);
    }
    return found;
}

/* Double precision: cl_khr_fp64 (OpenCL 1.x/2.x) or a non-zero fp config (3.0). */
static int device_has_fp64(cl_device_id dev)
{
    int found = has_extension(dev, "cl_khr_fp64");
    cl_device_fp_config cfg = 0;
    if (!found && clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, NULL) == CL_SUCCESS)
        found = cfg != 0;
    /* Lets the test suite exercise the "no double precision" path on a
     * device that has it. */
    const char *hide = getenv("CLXCORR_TEST_HIDE_FP64");
    if (hide && *hide && strcmp(hide, "0") != 0)
        found = 0;
    return found;
}

static int contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* The vendors' own queries (cl_amd_device_attribute_query,
 * cl_intel_required_subgroup_size, cl_nv_device_attribute_query), by their
 * numbers so that no vendor header is needed. */
#define CLX_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#define CLX_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#define CLX_DEVICE_WARP_SIZE_NV 0x4003

static int simd_width_of(const struct device_entry *e)
{
    cl_uint width = 0;
    size_t sizes[8], got = 0;
    switch (e->vendor) {
    case VENDOR_AMD:
        if (has_extension(e->device, "cl_amd_device_attribute_query"))
            clGetDeviceInfo(e->device, CLX_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof width, &width, NULL);
        return (int)width;
    case VENDOR_INTEL:
        if (has_extension(e->device, "cl_intel_required_subgroup_size") &&
            clGetDeviceInfo(e->device, CLX_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &got) == CL_SUCCESS) {
            size_t narrowest = 0;
            for (size_t i = 0; i < got / sizeof sizes[0]; i++)
                if (!narrowest || sizes[i] < narrowest)
                    narrowest = sizes[i];
            return (int)narrowest;
        }
        return 0;
    case VENDOR_NVIDIA:
        if (has_extension(e->device, "cl_nv_device_attribute_query"))
            clGetDeviceInfo(e->device, CLX_DEVICE_WARP_SIZE_NV, sizeof width, &width, NULL);
        return (int)width;
    default:
        return 0;
    }
}

static enum device_vendor vendor_of(const struct device_entry *e)
{
    if (contains_nocase(e->info.platform_name, "Portable Computing Language"))
        return VENDOR_POCL;
    if (contains_nocase(e->info.vendor, "NVIDIA"))
        return VENDOR_NVIDIA;
    if (contains_nocase(e->info.vendor, "Advanced Micro Devices") || contains_nocase(e->info.vendor, "AMD"))
        return VENDOR_AMD;
    if (contains_nocase(e->info.vendor, "Intel"))
        return VENDOR_INTEL;
    return VENDOR_OTHER;
}

/* OpenCL 3.0's list of every OpenCL C version a device accepts, by number
 * so that the 1.2 headers suffice. */
#define CLX_DEVICE_OPENCL_C_ALL_VERSIONS 0x1066
struct clx_name_version {
    cl_uint version;            /* major << 22 | minor << 12 | patch */
    char name[64];
};

/*
 * The highest OpenCL C major version the device compiles. CL_DEVICE_OPENCL_C_VERSION
 * names only one (PoCL 5 says 1.2 and accepts 3.0 too), so OpenCL 3.0
 * drivers are asked for the full list.
 */
static int highest_opencl_c(cl_device_id dev, const char *version_string)
{
    int major = strncmp(version_string, "OpenCL C ", 9) == 0 ? atoi(version_string + 9) : 1;
    size_t size = 0;
    if (clGetDeviceInfo(dev, CLX_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return major;
    struct clx_name_version *all = malloc(size);
    if (all && clGetDeviceInfo(dev, CLX_DEVICE_OPENCL_C_ALL_VERSIONS, size, all, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < size / sizeof *all; i++)
            if ((int)(all[i].version >> 22) > major)
                major = (int)(all[i].version >> 22);
    free(all);
    return major;
}

static void describe(struct device_entry *e, int p, int d, const char *platform_name)
{
    clx_device_info *in = &e->info;
    cl_device_type type = 0;
    cl_uint cu = 0;
    cl_ulong gmem = 0, lmem = 0, maxalloc = 0;
    cl_bool avail = CL_FALSE, compiler = CL_FALSE;

    memset(in, 0, sizeof *in);
    in->platform_index = p;
    in->device_index = d;
    snprintf(in->platform_name, sizeof in->platform_name, "%s", platform_name);
    info_string(e->device, CL_DEVICE_NAME, in->name, sizeof in->name);
    info_string(e->device, CL_DEVICE_VENDOR, in->vendor, sizeof in->vendor);
    info_string(e->device, CL_DRIVER_VERSION, in->driver_version, sizeof in->driver_version);
    info_string(e->device, CL_DEVICE_OPENCL_C_VERSION, in->opencl_c_version, sizeof in->opencl_c_version);
    clGetDeviceInfo(e->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL);
    e->max_work_group_size = 1;
    clGetDeviceInfo(e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof e->max_work_group_size,
                    &e->max_work_group_size, NULL);

    if (type & CL_DEVICE_TYPE_GPU)
        in->type = CLX_DEVICE_GPU;
    else if (type & CL_DEVICE_TYPE_CPU)
        in->type = CLX_DEVICE_CPU;
    else if (type & CL_DEVICE_TYPE_ACCELERATOR)
        in->type = CLX_DEVICE_ACCELERATOR;
    else
        in->type = CLX_DEVICE_OTHER;
    in->compute_units = cu;
    in->global_memory = gmem;
    in->local_memory = lmem;
    in->max_allocation = maxalloc;
    in->available = avail == CL_TRUE;
    in->compiler_available = compiler == CL_TRUE;
    in->has_fp64 = device_has_fp64(e->device);
    e->vendor = vendor_of(e);

    cl_bool images = CL_FALSE;
    clGetDeviceInfo(e->device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    e->image_support = images == CL_TRUE;
    if (e->image_support &&
        clGetDeviceInfo(e->device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof e->image_max_buffer,
                        &e->image_max_buffer, NULL) != CL_SUCCESS)
        e->image_max_buffer = 0;
    e->opencl_c_major = highest_opencl_c(e->device, in->opencl_c_version);
    e->simd_width = simd_width_of(e);
    e->subgroups = has_extension(e->device, "cl_khr_subgroups")     ? 1
                   : has_extension(e->device, "cl_intel_subgroups") ? 2
                                                                    : 0;
    e->has_subgroups = e->subgroups != 0;
    e->has_int64_atomics = has_extension(e->device, "cl_khr_int64_extended_atomics");
}

int devices_enumerate(struct device_entry **entries, size_t *count, clx_message *msg)
{
    cl_uint nplat = 0;
    cl_platform_id *plats = NULL;
    struct device_entry *list = NULL;
    size_t n = 0;
    int status = CLX_OK;

    *entries = NULL;
    *count = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && nplat == 0))
        return msg_fail(msg, CLX_ERR_NO_DEVICE,
                        "no OpenCL platform found (is an OpenCL driver or PoCL installed and registered in /etc/OpenCL/vendors?)");
    if (err != CL_SUCCESS)
        return msg_fail(msg, CLX_ERR_OPENCL, "clGetPlatformIDs failed: %s", cl_errstr(err));
    plats = calloc(nplat, sizeof *plats);
    if (!plats)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    clGetPlatformIDs(nplat, plats, NULL);

    for (cl_uint p = 0; p < nplat; p++) {
        char pname[128], pversion[128];
        cl_uint ndev = 0;
        if (clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS)
            snprintf(pname, sizeof pname, "?");
        if (clGetPlatformInfo(plats[p], CL_PLATFORM_VERSION, sizeof pversion, pversion, NULL) != CL_SUCCESS)
            snprintf(pversion, sizeof pversion, "?");
        pname[sizeof pname - 1] = pversion[sizeof pversion - 1] = '\0';
        /* A platform without devices reports CL_DEVICE_NOT_FOUND: not an error. */
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS || ndev == 0)
            continue;
        cl_device_id *devs = calloc(ndev, sizeof *devs);
        struct device_entry *grown = realloc(list, (n + ndev) * sizeof *list);
        if (!devs || !grown) {
            free(devs);
            if (grown)
                list = grown;
            status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
            goto error;
        }
        list = grown;
        clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, devs, NULL);
        for (cl_uint d = 0; d < ndev; d++) {
            struct device_entry *e = &list[n++];
            memset(e, 0, sizeof *e);
            e->platform = plats[p];
            e->device = devs[d];
            snprintf(e->platform_version, sizeof e->platform_version, "%s", pversion);
            describe(e, (int)p, (int)d, pname);
        }
        free(devs);
    }
    free(plats);
    if (n == 0) {
        free(list);
        return msg_fail(msg, CLX_ERR_NO_DEVICE, "no OpenCL device found on any platform");
    }
    *entries = list;
    *count = n;
    return CLX_OK;
error:
    free(plats);
    free(list);
    return status;
}

int clx_devices_list(clx_device_info **devices, size_t *count, clx_message *msg)
{
    struct device_entry *entries;
    size_t n;
    if (!devices || !count)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_devices_list: NULL argument");
    int status = devices_enumerate(&entries, &n, msg);
    if (status != CLX_OK)
        return status;
    clx_device_info *out = calloc(n, sizeof *out);
    if (!out) {
        free(entries);
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    }
    for (size_t i = 0; i < n; i++)
        out[i] = entries[i].info;
    free(entries);
    *devices = out;
    *count = n;
    return CLX_OK;
}

const char *device_unsuitable_reason(const struct device_entry *e, int need_fp64)
{
    if (!e->info.available)
        return "the device is not available";
    if (!e->info.compiler_available)
        return "the driver has no OpenCL C compiler for it";
    if (e->info.local_memory < MIN_LOCAL_MEMORY)
        return "it has less than 16 KiB of local memory";
    if (e->max_work_group_size < 64)
        return "its work-groups are smaller than 64 work-items";
    if (need_fp64 && !e->info.has_fp64)
        return "it has no double precision (cl_khr_fp64), which --double needs";
    return NULL;
}

/* Parses "P:D"; returns 1 and fills p, d when spec has that form. */
static int parse_index_spec(const char *spec, int *p, int *d)
{
    char *end;
    if (!isdigit((unsigned char)spec[0]))
        return 0;
    long lp = strtol(spec, &end, 10);
    if (*end != ':' || !isdigit((unsigned char)end[1]))
        return 0;
    long ld = strtol(end + 1, &end, 10);
    if (*end != '\0' || lp > 1000 || ld > 1000)
        return 0;
    *p = (int)lp;
    *d = (int)ld;
    return 1;
}

static int matches(const struct device_entry *e, const char *spec, int by_index, int p, int d)
{
    if (by_index)
        return e->info.platform_index == p && e->info.device_index == d;
    if (strcasecmp(spec, "gpu") == 0)
        return e->info.type == CLX_DEVICE_GPU;
    if (strcasecmp(spec, "cpu") == 0)
        return e->info.type == CLX_DEVICE_CPU;
    if (strcasecmp(spec, "accelerator") == 0)
        return e->info.type == CLX_DEVICE_ACCELERATOR;
    return contains_nocase(e->info.name, spec) || contains_nocase(e->info.vendor, spec) ||
           contains_nocase(e->info.platform_name, spec);
}

static void log_skip(device_log_fn log, void *user, const struct device_entry *e, const char *why)
{
    char line[512];
    if (!log)
        return;
    snprintf(line, sizeof line, "skipping device %d:%d (%s): %s", e->info.platform_index,
             e->info.device_index, e->info.name, why);
    log(user, line);
}

int device_select(const struct device_entry *entries, size_t count, const char *spec,
                  int need_fp64, device_log_fn log, void *log_user, size_t *chosen,
                  clx_message *msg)
{
    int by_index = 0, p = -1, d = -1;
    const char *why_first = NULL;
    size_t first_unsuitable = count;

    if (spec && *spec) {
        by_index = parse_index_spec(spec, &p, &d);
        for (size_t i = 0; i < count; i++) {
            if (!matches(&entries[i], spec, by_index, p, d))
                continue;
            const char *why = device_unsuitable_reason(&entries[i], need_fp64);
            if (!why) {
                *chosen = i;
                return CLX_OK;
            }
            log_skip(log, log_user, &entries[i], why);
            if (first_unsuitable == count) {
                first_unsuitable = i;
                why_first = why;
            }
        }
        if (first_unsuitable < count) {
            const struct device_entry *e = &entries[first_unsuitable];
            int fp64 = need_fp64 && !e->info.has_fp64;
            return msg_fail(msg, fp64 ? CLX_ERR_UNSUPPORTED : CLX_ERR_NO_DEVICE,
                            "device %d:%d (%s) cannot run the job: %s", e->info.platform_index,
                            e->info.device_index, e->info.name, why_first);
        }
        return msg_fail(msg, CLX_ERR_NO_DEVICE,
                        "no OpenCL device matches '%s' (see `clxcorr devices`)", spec);
    }

    /* Default: the first suitable GPU, else the first suitable device. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < count; i++) {
            if (pass == 0 && entries[i].info.type != CLX_DEVICE_GPU)
                continue;
            const char *why = device_unsuitable_reason(&entries[i], need_fp64);
            if (!why) {
                *chosen = i;
                return CLX_OK;
            }
            if (pass == 0 || entries[i].info.type != CLX_DEVICE_GPU)
                log_skip(log, log_user, &entries[i], why);
            if (first_unsuitable == count) {
                first_unsuitable = i;
                why_first = why;
            }
        }
    }
    const struct device_entry *e = &entries[first_unsuitable];
    int fp64 = need_fp64 && !e->info.has_fp64;
    return msg_fail(msg, fp64 ? CLX_ERR_UNSUPPORTED : CLX_ERR_NO_DEVICE,
                    "no OpenCL device can run the job; device %d:%d (%s): %s",
                    e->info.platform_index, e->info.device_index, e->info.name, why_first);
}
