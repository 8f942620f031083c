/* message.c - the clx_message helpers: one line of text and a status. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "runtime/message.h"

void msg_clear(clx_message *msg)
{
    if (msg)
        msg->text[0] = '\0';
}

int msg_vfail(clx_message *msg, int status, const char *fmt, va_list ap)
{
    if (msg) {
        vsnprintf(msg->text, sizeof msg->text, fmt, ap);
        /* One line: the CLI prints the message as is. */
        for (char *p = msg->text; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    return status;
}

int msg_fail(clx_message *msg, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_vfail(msg, status, fmt, ap);
    va_end(ap);
    return status;
}
