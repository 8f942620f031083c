/* kernel_source.c - locating the kernel directory and reading kernel sources. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/kernel_source.h"
#include "runtime/message.h"

/* A directory holds clxcorr's kernels when it has this file. */
#define MARKER_FILE "common.h"
#define MAX_INCLUDE_DEPTH 8

static int has_kernels(const char *dir)
{
    char path[PATH_MAX];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, MARKER_FILE) >= (int)sizeof path)
        return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file this library's code was loaded from: the shared library, or the
 * program it is linked into. */
static int own_file(char *out)
{
    Dl_info info;
    return dladdr((void *)own_file, &info) && info.dli_fname && realpath(info.dli_fname, out);
}

/* Non-zero when this library's code was loaded from under the build tree. */
static int running_uninstalled(void)
{
    char self[PATH_MAX], build[PATH_MAX];
    if (!own_file(self) || !realpath(CLX_BUILD_DIR, build))
        return 0;
    size_t n = strlen(build);
    return strncmp(self, build, n) == 0 && self[n] == '/';
}

/* <prefix>/share/clxcorr for code installed in <prefix>/lib or <prefix>/bin,
 * so that an installed tree can be moved (or installed with make install
 * prefix=... into another place than configure's). */
static int relocated_dir(char *out, size_t len)
{
    char self[PATH_MAX];
    if (!own_file(self))
        return 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    return snprintf(out, len, "%s/../share/" PACKAGE, self) < (int)len;
}

int kernel_dir_find(const char *override, char *out, size_t len, clx_message *msg)
{
    const char *env = getenv("CLXCORR_KERNEL_DIR");
    const char *candidates[4];
    char relocated[PATH_MAX];
    int n = 0;

    if (override && *override) {
        candidates[n++] = override;
    } else if (env && *env) {
        candidates[n++] = env;
    } else {
        if (running_uninstalled())
            candidates[n++] = CLX_SOURCE_KERNEL_DIR;
        else if (relocated_dir(relocated, sizeof relocated))
            candidates[n++] = relocated;
        candidates[n++] = CLX_INSTALL_KERNEL_DIR;
        candidates[n++] = CLX_SOURCE_KERNEL_DIR;
    }
    for (int i = 0; i < n; i++) {
        if (has_kernels(candidates[i])) {
            if (snprintf(out, len, "%s", candidates[i]) >= (int)len)
                return msg_fail(msg, CLX_ERR_ARGUMENT, "kernel directory path too long");
            return CLX_OK;
        }
    }
    return msg_fail(msg, CLX_ERR_IO,
                    "clxcorr's OpenCL kernels not found in %s%s%s (set CLXCORR_KERNEL_DIR to the directory holding %s)",
                    candidates[0], n > 1 ? " or " : "", n > 1 ? candidates[n - 1] : "", MARKER_FILE);
}

static int read_file(const char *path, char **text, size_t *size, clx_message *msg)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 16384;
            char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory reading %s", path);
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return msg_fail(msg, CLX_ERR_IO, "%s: read error", path);
    }
    buf[n] = '\0';
    *text = buf;
    *size = n;
    return CLX_OK;
}

/* A growing output string. */
struct text {
    char *s;
    size_t n, cap;
};

static int text_append(struct text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 16384;
        while (t->n + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(t->s, cap);
        if (!grown)
            return -1;
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
    return 0;
}

/* If line is `#include "name"`, copies name and returns 1. */
static int include_name(const char *line, size_t len, char *name, size_t name_len)
{
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p++ != '#')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 8 || strncmp(p, "include", 7) != 0)
        return 0;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p++ != '"')
        return 0;
    const char *q = memchr(p, '"', (size_t)(end - p));
    if (!q || (size_t)(q - p) >= name_len)
        return 0;
    memcpy(name, p, (size_t)(q - p));
    name[q - p] = '\0';
    return 1;
}

static int expand(const char *dir, const char *file, int depth, struct text *out, clx_message *msg)
{
    char path[PATH_MAX], *src = NULL;
    size_t size;
    int status;

    if (depth > MAX_INCLUDE_DEPTH)
        return msg_fail(msg, CLX_ERR_FORMAT, "%s/%s: includes nested too deeply", dir, file);
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "kernel path too long");
    status = read_file(path, &src, &size, msg);
    if (status != CLX_OK)
        return status;

    char marker[PATH_MAX + 32];
    int line_no = 1;
    snprintf(marker, sizeof marker, "#line 1 \"%s\"\n", file);
    if (text_append(out, marker, strlen(marker)))
        goto oom;
    for (const char *line = src; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char name[256];
        if (include_name(line, len, name, sizeof name)) {
            status = expand(dir, name, depth + 1, out, msg);
            if (status != CLX_OK) {
                free(src);
                return status;
            }
            snprintf(marker, sizeof marker, "#line %d \"%s\"\n", line_no + 1, file);
            if (text_append(out, marker, strlen(marker)))
                goto oom;
        } else if (text_append(out, line, len) || text_append(out, "\n", 1)) {
            goto oom;
        }
        line_no++;
        line = nl ? nl + 1 : line + len;
    }
    free(src);
    return CLX_OK;
oom:
    free(src);
    return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory reading kernels");
}

int kernel_source_read(const char *dir, const char *file, char **text, clx_message *msg)
{
    struct text out = { 0 };
    int status = expand(dir, file, 0, &out, msg);
    if (status != CLX_OK) {
        free(out.s);
        return status;
    }
    *text = out.s;
    return CLX_OK;
}
