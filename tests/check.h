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

#include <math.h>

/* |got - want| <= tol, printed either way with both values (the switching tests' report
 * line); counts a failure in the test's `failures` */
static inline int check_near_report(const char *what, double got, double want, double tol)
{
    const double err = fabs(got - want);
    const int ok = err <= tol;
    printf("%s %-58s got %.12g want %.12g (|err| %.3g, tol %.3g)\n", ok ? "ok  " : "FAIL", what,
           got, want, err, tol);
    return ok;
}

#define CHECK_NEAR(what, got, want, tol)                                                           \
    do {                                                                                           \
        if (!check_near_report((what), (got), (want), (tol))) failures++;                          \
    } while (0)

#endif
