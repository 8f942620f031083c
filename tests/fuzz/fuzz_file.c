/* fuzz_file.c - the fuzz input as a file, and failing loudly (fuzz_file.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"

static int input_fd = -1;
static char input_path[4096];

static void input_remove(void)
{
    unlink(input_path);
}

static void input_open(void)
{
#ifdef MFD_CLOEXEC
    /* In memory: millions of inputs should not wear out a disk. */
    input_fd = memfd_create("clxcorr-fuzz-input", MFD_CLOEXEC);
    if (input_fd >= 0) {
        snprintf(input_path, sizeof input_path, "/proc/self/fd/%d", input_fd);
        if (access(input_path, R_OK) == 0)
            return;
        close(input_fd);
    }
#endif
    const char *tmp = getenv("TMPDIR");
    snprintf(input_path, sizeof input_path, "%s/clxcorr-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    input_fd = mkstemp(input_path);
    if (input_fd < 0)
        fuzz_fail("cannot create the input file %s: %s", input_path, strerror(errno));
    atexit(input_remove);
}

const char *fuzz_file_write(const uint8_t *data, size_t size)
{
    if (input_fd < 0)
        input_open();
    if (ftruncate(input_fd, 0) != 0)
        fuzz_fail("cannot empty %s: %s", input_path, strerror(errno));
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(input_fd, data + done, size - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fuzz_fail("cannot write %s: %s", input_path, strerror(errno));
        done += (size_t)n;
    }
    return input_path;
}

/* ---- named files, in a private directory ---------------------------------- */

static char named_dir[4096];

static void named_dir_remove(void)
{
    DIR *d = opendir(named_dir);
    struct dirent *e;
    char path[8192];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", named_dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(named_dir);
}

static void named_dir_make(void)
{
    /* In memory where there is a tmpfs for it: millions of inputs. */
    const char *tmp = getenv("TMPDIR");
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp";
    snprintf(named_dir, sizeof named_dir, "%s/clxcorr-fuzz.XXXXXX", base);
    if (!mkdtemp(named_dir))
        fuzz_fail("cannot create a directory %s: %s", named_dir, strerror(errno));
    atexit(named_dir_remove);
}

static const char *named_path(const char *name)
{
    static char path[8192];
    if (!named_dir[0])
        named_dir_make();
    snprintf(path, sizeof path, "%s/%s", named_dir, name);
    return path;
}

const char *fuzz_named_file_write(const char *name, const uint8_t *data, size_t size)
{
    const char *path = named_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_fail("cannot write %s: %s", path, strerror(errno));
    return path;
}

void fuzz_named_file_remove(const char *name)
{
    const char *path = named_path(name);
    if (unlink(path) != 0 && errno != ENOENT)
        fuzz_fail("cannot remove %s: %s", path, strerror(errno));
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FUZZ FAILURE: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

int fuzz_reporting(void)
{
    static int reporting = -1;
    if (reporting < 0)
        reporting = getenv("CLXCORR_FUZZ_REPORT") != NULL;
    return reporting;
}
