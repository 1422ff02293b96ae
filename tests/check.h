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

/* Global error of a run against a reference run (test_step.c, test_restart.c): the
 * largest |q - q_ref| over the records both have and over the nc coordinates, in units of
 * atol + rtol * (the reference's largest |q_i| over its records). t: the records' times,
 * q: n x nc (record-major); the paired records' times must agree to 1e-9 s (each mismatch
 * printed and counted in *fail). */
static inline double check_global_error(const double *t, const double *q, int n, const double *tref,
                                        const double *qref, int nref, int nc, double rtol,
                                        double atol, int *fail)
{
    double worst = 0.0;
    for (int i = 0; i < nc; i++) {
        double sc = 0.0;
        for (int k = 0; k < nref; k++)
            sc = fmax(sc, fabs(qref[(size_t)k * nc + i]));
        for (int k = 0; k < n && k < nref; k++) {
            if (!(fabs(t[k] - tref[k]) < 1e-9)) {
                printf("FAIL %s:%d: record %d at t = %.15g, reference %.15g\n", __FILE__, __LINE__,
                       k, t[k], tref[k]);
                (*fail)++;
            }
            const double e = fabs(q[(size_t)k * nc + i] - qref[(size_t)k * nc + i]);
            worst = fmax(worst, e / (atol + rtol * sc));
        }
    }
    return worst;
}

#endif
