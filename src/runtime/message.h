/* message.h - filling clx_message and naming statuses (internal). */
#ifndef CLX_MESSAGE_H
#define CLX_MESSAGE_H

#include <stdarg.h>
#include "clxcorr.h"

#if defined(__GNUC__)
#define CLX_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLX_PRINTF(f, a)
#endif

/* Empties msg (NULL allowed). */
void msg_clear(clx_message *msg);

/*
 * Formats a one-line description into msg (NULL allowed) and returns status,
 * so that error paths read `return msg_fail(msg, CLX_ERR_IO, "%s: ...", path);`.
 */
int msg_fail(clx_message *msg, int status, const char *fmt, ...) CLX_PRINTF(3, 4);
int msg_vfail(clx_message *msg, int status, const char *fmt, va_list ap);

#endif
