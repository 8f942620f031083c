/*
 * output_file.c - the one way libclxcorr and the clxcorr command write a
 * file (clx_output of clxcorr.h): what a path names is never destroyed.
 *
 * rename() replaces whatever the path names, so the atomic temporary-and-
 * rename is only for regular files (and names not there yet); a FIFO, a
 * device node or a socket is written as it is. PATH.part is locked with
 * flock() while a process writes it: a lock goes with the open file, so it
 * is released by the kernel when the process dies, even by SIGKILL, and a
 * second writer of the same output is refused instead of interleaving.
 *
 * A test hook, like CLXCORR_FAULT_ENQUEUE: CLXCORR_FAULT_KILL=N kills the
 * process (SIGKILL, as a crash or a power cut would stop it) at the N-th
 * step of writing, or =NAME at the first step of that name (=NAME@END: of
 * a file whose name ends with END): open, write, sync, truncate, rename
 * and renamed (before and after the temporary becomes PATH); the kill-point
 * test resumes after each.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/message.h"

struct clx_output {
    int fd;
    unsigned flags;
    int direct;          /* PATH itself: not a regular file */
    char *path;          /* the file replaced when complete (links resolved) */
    char *temp;          /* where the bytes go until then; NULL when direct */
};

/* CLXCORR_FAULT_KILL: see the head of this file. Per process, as the
 * environment is. */
static void fault_point(const struct clx_output *o, const char *name)
{
    static long count;
    const char *env = getenv("CLXCORR_FAULT_KILL");
    if (!env || !*env)
        return;
    long n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    char *end;
    long at = strtol(env, &end, 10);
    size_t nlen = strlen(name);
    const char *at_file = env + nlen;
    size_t plen = strlen(o->path), slen = strlen(at_file + (*at_file == '@'));
    if ((*end == '\0' && at == n) ||
        (end == env && strncmp(env, name, nlen) == 0 &&
         (*at_file == '\0' || (*at_file == '@' && plen >= slen && strcmp(o->path + plen - slen, at_file + 1) == 0))))
        raise(SIGKILL);
}

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a regular file";
}

static void output_free(struct clx_output *o)
{
    if (o->fd >= 0)
        close(o->fd);
    free(o->path);
    free(o->temp);
    free(o);
}

/* The directory part of path ("." when it has none), for syncing it. */
static void dir_sync(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        /* Some file systems cannot sync a directory (EINVAL): their rename
         * is as durable as they make it. */
        fsync(fd);
        close(fd);
    }
}

/* Why a temporary could not be created beside path, said plainly. */
static int create_failed(struct clx_output *o, const char *given, clx_message *msg)
{
    int e = errno;
    const char *slash = strrchr(given, '/');
    if (e == ENOENT && slash)
        return msg_fail(msg, CLX_ERR_IO, "cannot write %s: the directory %.*s does not exist", given,
                        (int)(slash - given), given);
    if (e == EACCES || e == EROFS || e == EPERM)
        return msg_fail(msg, CLX_ERR_IO, "cannot write %s: %s (creating %s)", given, strerror(e), o->temp);
    return msg_fail(msg, CLX_ERR_IO, "cannot create %s: %s", o->temp, strerror(e));
}

/* PATH.part: opened without emptying it, locked, then emptied unless
 * continuing, so that a second writer never cuts the first one's file. */
static int open_part(struct clx_output *o, const char *given, mode_t mode, clx_message *msg)
{
    size_t n = strlen(o->path) + sizeof ".part";
    if (!(o->temp = malloc(n)))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    snprintf(o->temp, n, "%s.part", o->path);
    struct stat st;
    if (lstat(o->temp, &st) == 0 && !S_ISREG(st.st_mode))
        return msg_fail(msg, CLX_ERR_ARGUMENT, "%s is %s, not a file clxcorr wrote: remove it or choose another "
                        "output name", o->temp, kind_of(st.st_mode));
    if (!(o->flags & CLX_OUTPUT_CONTINUE) || lstat(o->temp, &st) != 0) {
        o->fd = open(o->temp, O_WRONLY | O_CREAT | O_CLOEXEC, mode);
    } else {
        o->fd = open(o->temp, O_RDWR | O_CLOEXEC);
    }
    if (o->fd < 0)
        return create_failed(o, given, msg);
    if (flock(o->fd, LOCK_EX | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EINTR))
        return msg_fail(msg, CLX_ERR_STATE, "%s is being written by another process (another run with this "
                        "output that has not ended yet): wait for it to end, or stop it first", o->temp);
    /* Other errors (ENOLCK, EOPNOTSUPP: a file system without locks) leave
     * the file unlocked, as it was before locks were taken. */
    if (!(o->flags & CLX_OUTPUT_CONTINUE) && ftruncate(o->fd, 0) != 0)
        return msg_fail(msg, CLX_ERR_IO, "cannot empty %s: %s", o->temp, strerror(errno));
    if (lseek(o->fd, 0, SEEK_END) < 0)
        return msg_fail(msg, CLX_ERR_IO, "%s: %s", o->temp, strerror(errno));
    return CLX_OK;
}

/* A unique temporary beside PATH: several processes may write PATH at once
 * (a cache shared by a job array), and each renames its own whole file. */
static int open_unique(struct clx_output *o, const char *given, mode_t mode, clx_message *msg)
{
    static unsigned serial;
    size_t n = strlen(o->path) + 48;
    if (!(o->temp = malloc(n)))
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    for (int tries = 0; tries < 100; tries++) {
        snprintf(o->temp, n, "%s.%ld.%u.tmp", o->path, (long)getpid(),
                 __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
        o->fd = open(o->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (o->fd >= 0 || errno != EEXIST)
            break;
    }
    return o->fd < 0 ? create_failed(o, given, msg) : CLX_OK;
}

/* The file a path names through its links, so that the link is kept. */
static char *resolve(const char *path, clx_message *msg, int *status)
{
    struct stat st;
    *status = CLX_OK;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real)
            *status = msg_fail(msg, CLX_ERR_IO, "%s is a symbolic link to a missing file or directory", path);
        return real;
    }
    char *copy = strdup(path);
    if (!copy)
        *status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    return copy;
}

/* The descriptor a name for one of this process's own stands for
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N), else -1. Such a name is
 * written through a copy of that descriptor: opening it anew would start
 * at offset 0 of a file the shell opened for appending, and renaming over
 * what it names would replace the shell's file. */
static int own_descriptor(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *prefixes[] = { "/dev/fd/", "/proc/self/fd/" };
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(prefixes[k]);
        char *end;
        if (strncmp(path, prefixes[k], n) == 0 && path[n] >= '0' && path[n] <= '9') {
            long fd = strtol(path + n, &end, 10);
            if (*end == '\0' && fd <= INT_MAX)
                return (int)fd;
        }
    }
    return -1;
}

int clx_output_open(const char *path, unsigned flags, clx_output **out, clx_message *msg)
{
    msg_clear(msg);
    if (!path || !*path || !out)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_output_open: no file name");
    *out = NULL;
    struct clx_output *o = calloc(1, sizeof *o);
    if (!o)
        return msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
    o->fd = -1;
    o->flags = flags;
    struct stat st;
    int status, exists = stat(path, &st) == 0, own = own_descriptor(path);
    if (own >= 0) {
        if (flags & (CLX_OUTPUT_SEEKABLE | CLX_OUTPUT_CONTINUE))
            status = msg_fail(msg, CLX_ERR_ARGUMENT, "%s is one of this process's open files: this output %s a file "
                              "name", path, flags & CLX_OUTPUT_CONTINUE ? "to continue needs" : "is seeked in, so it needs");
        else if (!(o->path = strdup(path)))
            status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        else if ((o->fd = fcntl(own, F_DUPFD_CLOEXEC, 3)) < 0)
            status = msg_fail(msg, CLX_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        else
            o->direct = 1, status = CLX_OK;
    } else if (!exists && errno != ENOENT) {
        status = msg_fail(msg, CLX_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    } else if (exists && S_ISDIR(st.st_mode)) {
        status = msg_fail(msg, CLX_ERR_ARGUMENT, "cannot write %s: it is a directory (give a file name)", path);
    } else if (exists && !S_ISREG(st.st_mode)) {
        if (flags & (CLX_OUTPUT_SEEKABLE | CLX_OUTPUT_CONTINUE))
            status = msg_fail(msg, CLX_ERR_ARGUMENT, "%s is %s: this output %s a regular file (give a file name)",
                              path, kind_of(st.st_mode), flags & CLX_OUTPUT_CONTINUE ? "to continue must be"
                                                                                     : "is seeked in, so it needs");
        else if (!(o->path = strdup(path)))
            status = msg_fail(msg, CLX_ERR_HOST_MEMORY, "out of host memory");
        else if ((o->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
            status = msg_fail(msg, CLX_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        else
            o->direct = 1, status = CLX_OK;
    } else if ((o->path = resolve(path, msg, &status))) {
        /* A new file gets the usual permissions (0666 less the umask), a
         * replaced one keeps its own. */
        mode_t mode = exists ? st.st_mode & 07777 : 0666;
        status = flags & CLX_OUTPUT_PART ? open_part(o, path, mode, msg) : open_unique(o, path, mode, msg);
        if (status == CLX_OK && exists)
            fchmod(o->fd, mode);
    }
    if (status != CLX_OK) {
        /* A unique temporary that was created is nobody's. */
        if (o->fd >= 0 && !(flags & CLX_OUTPUT_PART) && !o->direct && o->temp)
            unlink(o->temp);
        output_free(o);
        return status;
    }
    fault_point(o, "open");
    *out = o;
    return CLX_OK;
}

int clx_output_fd(const clx_output *o)
{
    return o ? o->fd : -1;
}

const char *clx_output_name(const clx_output *o)
{
    return !o ? "" : o->direct ? o->path : o->temp;
}

int clx_output_direct(const clx_output *o)
{
    return o && o->direct;
}

int clx_output_write(clx_output *o, const void *data, size_t len, clx_message *msg)
{
    const char *p = data;
    if (!o)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_output_write: no output");
    while (len > 0) {
        ssize_t n = write(o->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return msg_fail(msg, CLX_ERR_IO, "writing %s: %s", clx_output_name(o), strerror(n < 0 ? errno : EIO));
        p += n;
        len -= (size_t)n;
    }
    fault_point(o, "write");
    return CLX_OK;
}

int clx_output_sync(clx_output *o, clx_message *msg)
{
    if (!o)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_output_sync: no output");
    if (!o->direct && fsync(o->fd) != 0)
        return msg_fail(msg, CLX_ERR_IO, "writing %s: %s", o->temp, strerror(errno));
    fault_point(o, "sync");
    return CLX_OK;
}

int clx_output_truncate(clx_output *o, long long size, clx_message *msg)
{
    if (!o || o->direct || size < 0)
        return msg_fail(msg, CLX_ERR_ARGUMENT, "clx_output_truncate: not a file being written");
    if (ftruncate(o->fd, (off_t)size) != 0 || lseek(o->fd, (off_t)size, SEEK_SET) < 0)
        return msg_fail(msg, CLX_ERR_IO, "cutting %s to %lld bytes: %s", o->temp, size, strerror(errno));
    fault_point(o, "truncate");
    return CLX_OK;
}

int clx_output_close(clx_output *o, int complete, clx_message *msg)
{
    int status = CLX_OK;
    msg_clear(msg);
    if (!o)
        return CLX_OK;
    if (o->direct) {
        int fd = o->fd;
        o->fd = -1;
        if (close(fd) != 0 && errno != EINTR)
            status = msg_fail(msg, CLX_ERR_IO, "writing %s: %s", o->path, strerror(errno));
    } else if (complete) {
        if (fsync(o->fd) != 0)
            status = msg_fail(msg, CLX_ERR_IO, "writing %s: %s", o->temp, strerror(errno));
        fault_point(o, "rename");
        if (status == CLX_OK && rename(o->temp, o->path) != 0)
            status = msg_fail(msg, CLX_ERR_IO, "renaming %s to %s: %s", o->temp, o->path, strerror(errno));
        if (status == CLX_OK) {
            dir_sync(o->path);
            fault_point(o, "renamed");
        } else if (!(o->flags & CLX_OUTPUT_PART)) {
            unlink(o->temp);
        }
    } else if (!(o->flags & CLX_OUTPUT_PART)) {
        unlink(o->temp);
    }
    /* The lock goes with the descriptor, after the rename. */
    output_free(o);
    return status;
}

int clx_output_write_file(const char *path, const void *data, size_t len, clx_message *msg)
{
    clx_output *o;
    int status = clx_output_open(path, 0, &o, msg);
    if (status != CLX_OK)
        return status;
    status = clx_output_write(o, data, len, msg);
    int closed = clx_output_close(o, status == CLX_OK, status == CLX_OK ? msg : NULL);
    return status == CLX_OK ? closed : status;
}

int clx_output_overwrites(const char *output, const char *input)
{
    struct stat so, si;
    if (!output || !input)
        return 0;
    if (strcmp(output, input) == 0)
        return 1;
    size_t n = strlen(output);
    if (strncmp(input, output, n) == 0 && strcmp(input + n, ".part") == 0)
        return 1;
    if (stat(output, &so) != 0 || stat(input, &si) != 0)
        return 0;
    /* Not a device node: writing /dev/null "over" an input that is
     * /dev/null too destroys nothing. */
    return so.st_dev == si.st_dev && so.st_ino == si.st_ino && S_ISREG(so.st_mode);
}
