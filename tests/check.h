/*
 * check.h - the failure-counting CHECK of the C tests: a failed check prints
 * where and why, and the test goes on, so one run reports every failure.
 */
#ifndef CLX_TEST_CHECK_H
#define CLX_TEST_CHECK_H

#include <stdio.h>

static int test_failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            test_failures++;                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#endif
