/*
 * fuzz_file.h - a fuzz input as a file, for the harnesses in tests/fuzz/.
 *
 * The loaders and parsers take paths, not buffers, so each input is written
 * to one file per process that is reused for every input: a memfd (named
 * through /proc/self/fd), or where there is none a temporary file; or,
 * where the file's name matters, to files of chosen names in a private
 * directory.
 */
#ifndef CLX_FUZZ_FILE_H
#define CLX_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Writes data as the whole content of the process's input file and returns its path. */
const char *fuzz_file_write(const uint8_t *data, size_t size);

/* Writes data as the whole content of NAME in a private directory of the
 * process (removed at exit), for the formats known by their file names:
 * its path, valid until the next call. */
const char *fuzz_named_file_write(const char *name, const uint8_t *data, size_t size);
/* Removes NAME from that directory, if it is there. */
void fuzz_named_file_remove(const char *name);

/* Stops the harness with a message: an input broke a promise of the code under test. */
void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* Non-zero when CLXCORR_FUZZ_REPORT is set: the harness prints what each input gave. */
int fuzz_reporting(void);

#endif
