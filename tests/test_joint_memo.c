/*
 * The joints' evaluation handed from a residual to the assembly of the same Newton iterate
 * (sim.h fmb_joint_memo_t, assemble.c): the iteration matrix assembled with the memo must be
 * the matrix assembled from scratch, bitwise, and the memo must be refused whenever the
 * assembly's state is not the residual's.
 *
 * Independent reference: the same assembly from scratch (no handoff: every joint's views
 * and Jacobian evaluated by the assembly itself) at the same state; both matrices are
 * compared entry by entry in dense form. Cases: the quick-return with its 10-element
 * elastic rocker (pins on the beam, the slider on the beam whose columns follow the
 * state, a prismatic guide, the crank's driver) and the rigid seven-bar, each after 40
 * steps of the integrator (which itself must have taken the memo at every assembly).
 * Stale states checked: q changed in place after the residual (slider D's x, a rocker
 * rotation and the slider's place on the rocker), another array with the same values,
 * another time t, qd from another array, no handoff. Each must assemble the matrix of its
 * own state; the test also asserts that the changed state's matrix differs from the
 * residual's (so taking the memo there would fail the comparison).
 * Above FMB_JOINT_MEMO_MAXN coordinates (quick-return, 600 elements) the memo is off: no
 * assembly may take it.
 * Checked to fail: with the q comparison in assemble.c's joint_memo_valid removed, the
 * in-place change takes the memo and its matrix differs from the reference (quick-return:
 * the slider's and the pins' Jacobian entries; seven-bar: the joints on the rotated bar).
 * Compared exactly, not to rounding: the memo hands the assembly what the same class
 * functions computed for the residual at the same state, so a valid handoff cannot change
 * a bit, and a run's results must not depend on whether an assembly took the memo (a
 * sweep's datasets are bitwise those of the single run: docs/sweep.md). A stale memo
 * differs by a state's change.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "solve/sim_internal.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static int failures = 0;
#include "check.h"

/* the assembled matrix in dense form (column-major N x N) */
#include "kkt_dense.h"

/* entries that differ (bitwise) between A and B */
static long ndiff(const double *A, const double *B, int N)
{
    long d = 0;
    for (size_t e = 0; e < (size_t)N * N; e++)
        d += memcmp(&A[e], &B[e], sizeof *A) != 0;
    return d;
}

typedef struct state {
    double *q, *qd, *qdd, *lam, t;
} state_t;

/* assemble at st; handoff: after a residual at rq, rqd, rt (the arrays and time given) */
static void assemble(fmb_sim_t *s, const fmb_coeffs_t *c, const state_t *st, int handoff,
                     const double *rq, const double *rqd, double rt, double *A)
{
    if (handoff) {
        const int n = s->n, N = n + s->m;
        double *F = calloc((size_t)N, sizeof *F), *M = calloc((size_t)n, sizeof *M);
        fmb_sim_eval_residual(s, rq, rqd, st->qdd, st->lam, rt, M, F, F + n);
        free(F), free(M);
        s->as.jm->handoff = 1;
    }
    fmb_sim_assemble(s, st->q, st->qd, st->qdd, st->lam, st->t, c);
    s->as.jm->handoff = 0;
    dense(s, A);
}

static void run_case(const char *label, const char *path, const char **ov, int nov,
                     const int *perturb, int np)
{
    char err[1024];
    fmb_case_t *cs = fmb_case_load(path, ov, nov, err, sizeof err);
    if (!cs) {
        printf("FAIL %s: %s\n", label, err);
        failures++;
        return;
    }
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(cs), fmb_case_options(cs));
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL %s: start failed\n", label);
        failures++;
        fmb_sim_destroy(&s);
        fmb_case_destroy(&cs);
        return;
    }
    fmb_sim_stats_t st0, st1;
    fmb_sim_get_stats(s, &st0);
    const long used0 = s->as.jm->used;
    int rc = 0;
    for (int k = 0; k < 40 && !rc; k++)
        rc = fmb_sim_step(s);
    fmb_sim_get_stats(s, &st1);
    CHECK(rc == 0, "%s: 40 steps: %s", label, fmb_sim_last_error(s));
    /* every assembly of a step followed a residual at its iterate: all took the memo */
    const long fact = st1.factorizations - st0.factorizations, used = s->as.jm->used - used0;
    printf("%s: 40 steps, %ld factorizations, %ld assemblies took the memo\n", label, fact, used);
    if (!s->as.jm->on) { /* above FMB_JOINT_MEMO_MAXN coordinates: never taken */
        CHECK(s->n > FMB_JOINT_MEMO_MAXN && used == 0 && fact > 0,
              "%s: n = %d, memo off, yet %ld of %ld assemblies took it", label, s->n, used, fact);
        fmb_sim_destroy(&s);
        fmb_case_destroy(&cs);
        return;
    }
    CHECK(s->n <= FMB_JOINT_MEMO_MAXN, "%s: n = %d but the memo is on", label, s->n);
    CHECK(fact > 0 && used == fact, "%s: %ld of %ld step assemblies took the memo", label, used,
          fact);

    const int n = s->n, m = s->m, N = n + m;
    const double h = s->opts.h, al = s->opts.alpha;
    const double beta = 0.25 * (1 - al) * (1 - al), gamma = 0.5 - al, r = 1 + al;
    const fmb_coeffs_t c = {1.0, beta * r * h * h, beta * r * h * h, gamma * r * h, 1.0, 0.0, 0.0,
                            0};
    double *ref = malloc((size_t)N * N * sizeof *ref), *A = malloc((size_t)N * N * sizeof *A);
    double *ref2 = malloc((size_t)N * N * sizeof *ref2);
    double *qc = malloc((size_t)n * sizeof *qc), *qdc = malloc((size_t)n * sizeof *qdc);
    state_t S = {s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t};
    long u;

    /* 1. the memo at its own state: bitwise the matrix from scratch */
    assemble(s, &c, &S, 0, NULL, NULL, 0, ref);
    u = s->as.jm->used;
    assemble(s, &c, &S, 1, S.q, S.qd, S.t, A);
    CHECK(s->as.jm->used == u + 1, "%s: the memo was not taken at its own state", label);
    CHECK(ndiff(A, ref, N) == 0, "%s: memo vs scratch: %ld entries differ", label,
          ndiff(A, ref, N));

    /* 2. q changed in place after the residual: refused, the new state's matrix */
    memcpy(qc, S.q, (size_t)n * sizeof *qc);
    const fmb_model_t *md = fmb_case_model(cs);
    for (int k = 0; k < np; k++) {
        const int i = md->bodies[perturb[2 * k]].offset + perturb[2 * k + 1];
        S.q[i] += 1e-3 * (1 + fabs(S.q[i]));
    }
    assemble(s, &c, &S, 0, NULL, NULL, 0, ref2);
    CHECK(ndiff(ref2, ref, N) > 0, "%s: the changed q gives the same matrix (test cannot fail)",
          label);
    memcpy(S.q, qc, (size_t)n * sizeof *qc);
    u = s->as.jm->used;
    {
        const int nn = s->n, NN = nn + s->m;
        double *F = calloc((size_t)NN, sizeof *F), *M = calloc((size_t)nn, sizeof *M);
        fmb_sim_eval_residual(s, S.q, S.qd, S.qdd, S.lam, S.t, M, F, F + nn);
        free(F), free(M);
    }
    for (int k = 0; k < np; k++) { /* the same change, now after the residual */
        const int i = md->bodies[perturb[2 * k]].offset + perturb[2 * k + 1];
        S.q[i] += 1e-3 * (1 + fabs(S.q[i]));
    }
    s->as.jm->handoff = 1;
    fmb_sim_assemble(s, S.q, S.qd, S.qdd, S.lam, S.t, &c);
    s->as.jm->handoff = 0;
    dense(s, A);
    CHECK(s->as.jm->used == u, "%s: the memo was taken after q changed in place", label);
    CHECK(ndiff(A, ref2, N) == 0, "%s: q changed in place: %ld entries differ from scratch", label,
          ndiff(A, ref2, N));
    memcpy(S.q, qc, (size_t)n * sizeof *qc);

    /* 3. the residual at another array with the same values, or another qd array: refused
     * (the views point into the arrays), the same matrix */
    u = s->as.jm->used;
    assemble(s, &c, &S, 1, qc, S.qd, S.t, A);
    CHECK(s->as.jm->used == u, "%s: the memo was taken for another q array", label);
    CHECK(ndiff(A, ref, N) == 0, "%s: another q array: %ld entries differ", label,
          ndiff(A, ref, N));
    memcpy(qdc, S.qd, (size_t)n * sizeof *qdc);
    assemble(s, &c, &S, 1, S.q, qdc, S.t, A);
    CHECK(s->as.jm->used == u, "%s: the memo was taken for another qd array", label);
    CHECK(ndiff(A, ref, N) == 0, "%s: another qd array: %ld entries differ", label,
          ndiff(A, ref, N));

    /* 4. another time: refused (a driver's Phi and, in general, its Jacobian depend on t) */
    assemble(s, &c, &S, 1, S.q, S.qd, S.t - 1e-4, A);
    CHECK(s->as.jm->used == u, "%s: the memo was taken at another time", label);
    CHECK(ndiff(A, ref, N) == 0, "%s: another time: %ld entries differ", label, ndiff(A, ref, N));

    /* 5. no handoff: refused */
    {
        double *F = calloc((size_t)N, sizeof *F), *M = calloc((size_t)n, sizeof *M);
        fmb_sim_eval_residual(s, S.q, S.qd, S.qdd, S.lam, S.t, M, F, F + n);
        free(F), free(M);
    }
    fmb_sim_assemble(s, S.q, S.qd, S.qdd, S.lam, S.t, &c);
    CHECK(s->as.jm->used == u, "%s: the memo was taken without the handoff", label);

    free(ref), free(ref2), free(A), free(qc), free(qdc);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&cs);
}

int main(void)
{
    char qr[1024], sb[1024];
    snprintf(qr, sizeof qr, "%s/cases/quick_return.yaml", FMB_SOURCE_DIR);
    snprintf(sb, sizeof sb, "%s/bench/cases/seven_body.yaml", FMB_SOURCE_DIR);
    /* quick-return bodies: find them by name below; seven-bar: coupler (2) and d1a (4) */
    const char *ov[] = {"n_el=10"};
    {
        char err[1024];
        fmb_case_t *cs = fmb_case_load(qr, ov, 1, err, sizeof err);
        if (!cs) {
            printf("FAIL: %s\n", err);
            return 1;
        }
        const fmb_model_t *md = fmb_case_model(cs);
        int rocker = -1, slider = -1;
        for (int b = 1; b < md->nbodies; b++) {
            if (md->bodies[b].ndof > 3) rocker = b; /* the beam */
            if (!strcmp(md->bodies[b].name, "sliderD")) slider = b;
        }
        fmb_case_destroy(&cs);
        CHECK(rocker > 0, "quick-return: no beam body");
        if (rocker > 0) {
            /* the rocker's rotation and an elastic coordinate, slider D's x */
            CHECK(slider > 0, "quick-return: no body sliderD");
            const int p[] = {rocker, 2, rocker, 7, slider > 0 ? slider : rocker, 0};
            run_case("quick-return 10 el", qr, ov, 1, p, 3);
        }
    }
    const int p7[] = {2, 2, 4, 0};
    run_case("seven-bar", sb, NULL, 0, p7, 2);
    /* a large system: n = 1,803 > FMB_JOINT_MEMO_MAXN, the memo off */
    const char *ov600[] = {"n_el=600"};
    run_case("quick-return 600 el", qr, ov600, 1, NULL, 0);
    if (failures)
        printf("%d failures\n", failures);
    else
        printf("all passed\n");
    return failures ? 1 : 0;
}
