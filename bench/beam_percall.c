/*
 * bench/beam_percall: the cost of one residual and one assembly of the quick-return at a
 * given rocker mesh, as wall time AND process CPU time (user + system of all threads),
 * so that runs on a shared machine can be compared: the CPU time of a single-threaded
 * process hardly depends on other processes' load, its wall time does.
 *
 *   build/beam_percall [-r ROUNDS] ELEMENTS...
 *
 * Per mesh: cases/quick_return.yaml with n_el = ELEMENTS, 20 steps from the start, then
 * ROUNDS rounds (default 5) of (a) residuals (fmb_sim_eval_forces) alternating between the
 * state and a copy nudged by ~1e-12 relative, so that the beam's cached element states are
 * recomputed at every call as in a Newton iteration, and (b) the same residuals each
 * followed by an assembly of the iteration matrix at its iterate (as a step assembles at
 * the iterate of its last residual); the assembly's time is (b) - (a). Printed: the
 * minimum and median wall time and the median CPU time per call over the rounds, and a
 * checksum of the last residual (its 17 digits compare builds bitwise). Not a test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flexmb/flexmb.h"
#include "solve/sim_internal.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static double clk(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int percall(int nel, int rounds)
{
    char ov0[64], err[1024];
    snprintf(ov0, sizeof ov0, "n_el=%d", nel);
    const char *ov[] = {ov0};
    fmb_case_t *c =
        fmb_case_load(FMB_SOURCE_DIR "/cases/quick_return.yaml", ov, 1, err, sizeof err);
    if (!c) {
        fprintf(stderr, "beam_percall: %s\n", err);
        return 1;
    }
    fmb_sim_options_t o = *fmb_case_options(c);
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(c), &o);
    if (!s || fmb_sim_initialize(s)) {
        fprintf(stderr, "beam_percall: start failed: %s\n",
                s ? fmb_sim_last_error(s) : "no memory");
        fmb_sim_destroy(&s);
        fmb_case_destroy(&c);
        return 1;
    }
    for (int k = 0; k < 20; k++)
        if (fmb_sim_step(s)) break;
    /* the step's HHT coefficients, as bench/fmb_bench.c */
    const double h = o.h, al = o.alpha, beta = 0.25 * (1 - al) * (1 - al), gamma = 0.5 - al;
    const double r = 1 + al;
    const fmb_coeffs_t cf = {1.0, beta * r * h * h, beta * r * h * h, gamma * r * h, 1.0, 0.0, 0.0,
                             0};
    const int n = s->n, N = s->n + s->m;
    const int reps = nel >= 5000 ? 20 : nel >= 500 ? 200 : 2000;
    double *R = calloc((size_t)N, sizeof *R), *M = calloc((size_t)N, sizeof *M);
    double *q2 = malloc((size_t)n * sizeof *q2), *qd2 = malloc((size_t)n * sizeof *qd2);
    double *t = malloc(4 * (size_t)rounds * sizeof *t);
    if (!R || !M || !q2 || !qd2 || !t) {
        fprintf(stderr, "beam_percall: out of memory\n");
        return 1;
    }
    double *wr = t, *cr = t + rounds, *wa = t + 2 * rounds, *ca = t + 3 * rounds;
    for (int i = 0; i < n; i++)
        q2[i] = s->st.q[i] + 1e-12 * (1 + fabs(s->st.q[i])),
        qd2[i] = s->st.qd[i] * (1 + 1e-12) + 1e-12;
    for (int rd = 0; rd < rounds; rd++) {
        double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < reps; i++)
            fmb_sim_eval_forces(s, i & 1 ? q2 : s->st.q, i & 1 ? qd2 : s->st.qd, s->st.qdd,
                                s->st.lam, s->st.t, M, R);
        wr[rd] = (clk(CLOCK_MONOTONIC) - w0) / reps;
        cr[rd] = (clk(CLOCK_PROCESS_CPUTIME_ID) - c0) / reps;
        w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < reps; i++) {
            const double *qq = i & 1 ? q2 : s->st.q, *qqd = i & 1 ? qd2 : s->st.qd;
            fmb_sim_eval_forces(s, qq, qqd, s->st.qdd, s->st.lam, s->st.t, M, R);
            fmb_sim_assemble(s, qq, qqd, s->st.qdd, s->st.lam, s->st.t, &cf);
        }
        wa[rd] = (clk(CLOCK_MONOTONIC) - w0) / reps - wr[rd];
        ca[rd] = (clk(CLOCK_PROCESS_CPUTIME_ID) - c0) / reps - cr[rd];
    }
    double sum = 0.0; /* a checksum of the last residual (F at the state) */
    fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, M, R);
    for (int i = 0; i < n; i++)
        sum += (M[i] - R[i]) * (1 + i % 7);
    for (int k = 0; k < 4; k++)
        qsort(t + k * rounds, (size_t)rounds, sizeof *t, cmpd);
    const int md = rounds / 2;
    printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.17g |\n", nel, 1e6 * wr[0],
           1e6 * wr[md], 1e6 * cr[md], 1e6 * wa[0], 1e6 * wa[md], 1e6 * ca[md], sum);
    fflush(stdout);
    free(R), free(M), free(q2), free(qd2), free(t);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 5, opt;
    while ((opt = getopt(argc, argv, "r:h")) != -1) {
        if (opt == 'r' && atoi(optarg) > 0) {
            rounds = atoi(optarg);
        } else {
            fprintf(stderr, "usage: %s [-r ROUNDS] ELEMENTS...\n", argv[0]);
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "usage: %s [-r ROUNDS] ELEMENTS...\n", argv[0]);
        return 2;
    }
    printf(
        "| elements | residual wall min us | median | CPU median | assembly wall min us | median "
        "| CPU median | checksum |\n|---:|---:|---:|---:|---:|---:|---:|---|\n");
    int rc = 0;
    for (int i = optind; i < argc; i++)
        rc |= percall(atoi(argv[i]), rounds);
    return rc;
}
