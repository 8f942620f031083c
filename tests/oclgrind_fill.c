/*
 * oclgrind_fill.c - preloaded before Oclgrind's runtime by `make
 * check-oclgrind` (tests/oclgrind.sh), around two faults of Oclgrind
 * 21.10's --uninitialized checker that would drown real reports in false
 * ones:
 * - it does not see what clEnqueueFillBuffer writes, so every buffer
 *   clxcorr zeroes that way (the prepared windows' padding, the packed
 *   argmax words) reads as uninitialised: a fill is done here as a blocking
 *   clEnqueueWriteBuffer of the repeated pattern, which it sees;
 * - a buffer created after another was released takes its slot, whose
 *   record of initialised bytes keeps the released buffer's size: reads
 *   past it (a plan's correlations after a smaller plan's) are reported
 *   although the kernel wrote them (found in test_stages: every report
 *   vanished with the first plan kept alive). Buffers are therefore not
 *   released until the process ends; the tests are small.
 * - it does not see a clEnqueueWriteBuffer of part of a buffer (IC-GN's
 *   noise model: the kernel writes its first part, the host the rest, and
 *   every IC-GN reference read that rest as uninitialised): such a write is
 *   made here as one of the whole buffer, read back and patched;
 * - it does not see what clEnqueueWriteBufferRect writes either (the seed
 *   mode's cropped upload, src/pipeline/upload_crop.c), nor, it seems,
 *   writes of parts of a buffer: a rectangle is copied here into the whole
 *   buffer read back, which one blocking clEnqueueWriteBuffer writes again
 *   (marking the bytes outside the rectangle as written too: they hold
 *   what they held).
 * The bytes the kernels read and write are the same either way.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef cl_int (*write_buffer_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
                                  const cl_event *, cl_event *);

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                                                    size_t pattern_size, size_t offset, size_t size,
                                                    cl_uint nwait, const cl_event *wait, cl_event *event)
{
    write_buffer_fn write_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
    if (!write_buffer || !pattern || pattern_size == 0 || size % pattern_size != 0)
        return CL_INVALID_VALUE;
    char *host = malloc(size ? size : 1);
    if (!host)
        return CL_OUT_OF_HOST_MEMORY;
    for (size_t at = 0; at < size; at += pattern_size)
        memcpy(host + at, pattern, pattern_size);
    cl_int err = write_buffer(queue, buffer, CL_TRUE, offset, size, host, nwait, wait, event);
    free(host);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                     size_t offset, size_t size, const void *ptr, cl_uint nwait,
                                                     const cl_event *wait, cl_event *event)
{
    write_buffer_fn write_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
    write_buffer_fn read_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueReadBuffer");
    size_t whole_size = 0;
    if (!write_buffer || !read_buffer)
        return CL_INVALID_OPERATION;
    if (clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof whole_size, &whole_size, NULL) != CL_SUCCESS ||
        (offset == 0 && size == whole_size) || !ptr || offset + size > whole_size)
        return write_buffer(queue, buffer, blocking, offset, size, ptr, nwait, wait, event);
    char *whole = malloc(whole_size);
    if (!whole)
        return CL_OUT_OF_HOST_MEMORY;
    /* The whole buffer out, the part into it, the whole buffer back. */
    cl_int err = read_buffer(queue, buffer, CL_TRUE, 0, whole_size, whole, nwait, wait, NULL);
    if (err == CL_SUCCESS) {
        memcpy(whole + offset, ptr, size);
        err = write_buffer(queue, buffer, CL_TRUE, 0, whole_size, whole, 0, NULL, event);
    }
    free(whole);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                         const size_t *buffer_origin, const size_t *host_origin,
                                                         const size_t *region, size_t buffer_row_pitch,
                                                         size_t buffer_slice_pitch, size_t host_row_pitch,
                                                         size_t host_slice_pitch, const void *ptr, cl_uint nwait,
                                                         const cl_event *wait, cl_event *event)
{
    write_buffer_fn write_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
    write_buffer_fn read_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueReadBuffer");
    size_t size = 0;
    if (!write_buffer || !read_buffer || !buffer_origin || !host_origin || !region || !ptr ||
        clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS)
        return CL_INVALID_VALUE;
    (void)blocking;   /* blocks */
    buffer_row_pitch = buffer_row_pitch ? buffer_row_pitch : region[0];
    buffer_slice_pitch = buffer_slice_pitch ? buffer_slice_pitch : region[1] * buffer_row_pitch;
    host_row_pitch = host_row_pitch ? host_row_pitch : region[0];
    host_slice_pitch = host_slice_pitch ? host_slice_pitch : region[1] * host_row_pitch;
    char *whole = malloc(size ? size : 1);
    if (!whole)
        return CL_OUT_OF_HOST_MEMORY;
    /* The whole buffer out, the rectangle into it, the whole buffer back. */
    cl_int err = read_buffer(queue, buffer, CL_TRUE, 0, size, whole, nwait, wait, NULL);
    for (size_t z = 0; z < region[2] && err == CL_SUCCESS; z++)
        for (size_t y = 0; y < region[1]; y++)
            memcpy(whole + (buffer_origin[2] + z) * buffer_slice_pitch + (buffer_origin[1] + y) * buffer_row_pitch +
                       buffer_origin[0],
                   (const char *)ptr + (host_origin[2] + z) * host_slice_pitch + (host_origin[1] + y) * host_row_pitch +
                       host_origin[0],
                   region[0]);
    if (err == CL_SUCCESS)
        err = write_buffer(queue, buffer, CL_TRUE, 0, size, whole, 0, NULL, event);
    free(whole);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem buffer)
{
    return buffer ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
}
