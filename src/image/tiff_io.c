/* tiff_io.c - libtiff's errors, caught per file and kept for our messages. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "image/loaders.h"
#include "image/tiff_io.h"

#ifndef TIFF_OPEN_OPTIONS
#include <pthread.h>
#endif

void tiff_io_reset(struct tiff_handle *h)
{
    h->failed = 0;
    h->error[0] = '\0';
}

#ifdef TIFF_OPEN_OPTIONS
/* text without a leading "prefix: ", if it has one. */
static const char *prefix_skip(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 0 || strncmp(text, prefix, n) != 0 || text[n] != ':')
        return text;
    for (text += n + 1; *text == ' '; text++)
        ;
    return text;
}

static void error_keep(struct tiff_handle *h, const char *module, const char *fmt, va_list ap)
{
    /* The first error is the cause; what follows is usually its echo. */
    if (h->failed++)
        return;
    char text[sizeof h->error];
    vsnprintf(text, sizeof text, fmt, ap);
    /* libtiff often repeats the file or module name in the text; say each once. */
    const char *body = prefix_skip(text, h->path);
    if (module)
        body = prefix_skip(body, module);
    if (module && *module && strcmp(module, h->path) != 0)
        snprintf(h->error, sizeof h->error, "%s: %.400s", module, body);
    else
        snprintf(h->error, sizeof h->error, "%s", body);
}

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    error_keep(user, module, fmt, ap);
    return 1;   /* handled: keep libtiff's global handler (stderr) out of it */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    /*
     * Warnings are dropped, except libjpeg's: they mean corrupt data that it
     * papered over (a premature end is filled with grey), which must not pass
     * as an image.
     */
    if (module && strcmp(module, "JPEGLib") == 0)
        error_keep(user, module, fmt, ap);
    return 1;
}

TIFF *tiff_io_open(struct tiff_handle *h, const char *mode)
{
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options)
        return NULL;
    /*
     * libtiff's own buffers hold one stored strip or tile, or a tag's array:
     * none needs more than the largest page clxcorr reads, plus half for
     * LZW data that grew instead of shrinking. A larger request comes from
     * a corrupt file, and fails here rather than taking the memory.
     */
    uint64_t most = CLX_IMAGE_MAX_BYTES + CLX_IMAGE_MAX_BYTES / 2;
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, most < SIZE_MAX >> 1 ? (tmsize_t)most : (tmsize_t)(SIZE_MAX >> 1));
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, h);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, h);
    TIFF *tif = TIFFOpenExt(h->path, mode, options);
    TIFFOpenOptionsFree(options);
    return tif;
}
#else
/*
 * Before 4.5 the handlers are global. They are silenced once for the whole
 * process (the library must not print); the messages are then lost.
 */
static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

static void handlers_silence(void)
{
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

TIFF *tiff_io_open(struct tiff_handle *h, const char *mode)
{
    pthread_once(&handlers_once, handlers_silence);
    TIFF *tif = TIFFOpen(h->path, mode);
    if (!tif)
        h->failed = 1;
    return tif;
}
#endif

