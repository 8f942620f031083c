/*
 * job_message.c - how a strain job speaks (job.h): its errors into the
 * caller's message, its INFO lines to the options' log. A file of its
 * own, which every other file of the job calls and which calls none.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "strain/job.h"

int job_fail(clx_message *msg, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (msg)
        vsnprintf(msg->text, sizeof msg->text, fmt, ap);
    va_end(ap);
    return status;
}

void job_info(const clx_strain_job *job, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    if (!job->options.log)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    job->options.log(job->options.log_user, CLX_LOG_INFO, line);
}
