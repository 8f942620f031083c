/*
 * event_wait.h - waiting for an enqueued command to finish without keeping
 * a core busy (internal).
 *
 * NVIDIA's OpenCL driver answers clWaitForEvents by spinning: on an H100
 * host each lane thread of a seed-mode stream waiting for its batch held a
 * core at 100 % (top), three of the host's sixteen, which the loader
 * threads copying the next batches into pinned memory then lacked (bench
 * -j 8 ran faster than -j 16). event_wait asks for the command's status
 * and sleeps between the questions instead.
 *
 * On CPU devices, whose runtimes (PoCL) sleep in their own wait, it is
 * clWaitForEvents.
 *
 * Not an event callback and a condition variable: Oclgrind never calls a
 * command's callbacks (only a user event's), and a callback that comes
 * after the waiter gave up would write to a stack frame that is gone.
 */
#ifndef CLX_EVENT_WAIT_H
#define CLX_EVENT_WAIT_H

#include <CL/cl.h>

struct clx_context;

/* Waits until `event` completes; CLX_OK, or the device's error ("device
 * execution") when the command ended abnormally. The event is not released. */
int event_wait(struct clx_context *ctx, cl_event event);

#endif
