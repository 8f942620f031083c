/* message.c - status names, version, and the clx_message helpers. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "runtime/message.h"

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
#ifdef HAVE_VKFFT
    return "clfft vkfft";
#else
    return "clfft";
#endif
}

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
