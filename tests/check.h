/* Shared check macro of the C tests. Builds use -DNDEBUG, so assert() would check
 * nothing: CHECK prints the failing condition's message and counts it in the test's
 * `failures` (a static int each test defines). */
#ifndef FMB_TESTS_CHECK_H
#define FMB_TESTS_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
