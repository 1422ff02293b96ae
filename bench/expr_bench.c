/* bench/expr_bench.c: time of one evaluation (value and both time derivatives) of a
 * compiled expression, the work a driver or force does per Newton iteration.
 *
 *   build/bench_expr [EXPR] [N]     (default: a 30-instruction expression, N = 10^7)
 *
 * A measurement, not a test (bench/README.md); the numbers are in docs/performance.md. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/expr.h"
#include "model/expr_impl.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: robust on a shared machine */
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *text = argc > 1 ? argv[1]
                                : "A*sin(w*t + 0.3) + step5(t, 0, 0, T, 1)*(t^2 - 2*t) + "
                                  "atan2(sin(t), cos(t))/(1 + t^2) + max(t - 1, 0)^3";
    const long n = argc > 2 ? atol(argv[2]) : 10000000L;
    static const char *const names[] = {"A", "w", "T"};
    static const double values[] = {0.2, 6.0, 1.5};
    fmb_expr_env_t env = {names, values, 3, 1, NULL, NULL};
    fmb_expr_err_t err;
    fmb_expr_t *e = fmb_expr_compile(text, &env, &err);
    if (!e) {
        fprintf(stderr, "bench_expr: %s at column %zu\n", err.msg, err.at + 1);
        return 1;
    }
    double sink = 0, t = 0, dt = 2.0 / (double)n;
    const double t0 = now();
    for (long k = 0; k < n; k++, t += dt) {
        fmb_jet_t j = fmb_expr_jet(e, t);
        sink += j.v + j.d1 + j.d2;
    }
    const double el = now() - t0;
    printf("expression: %s\ninstructions: %d (stack %d)\nevaluations: %ld\n"
           "CPU time per evaluation (value + 2 derivatives): %.1f ns\n(checksum %g)\n",
           text, e->ncode, e->maxstack, n, 1e9 * el / (double)n, sink);
    fmb_expr_destroy(&e);
    return 0;
}
