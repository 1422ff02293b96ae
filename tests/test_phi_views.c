/*
 * fmb_sim_eval_phi (solve/residual.c) evaluates a joint with the default columns through
 * the residual's memo views (sim.h fmb_joint_memo_t), lent for the call: their state
 * pointers set to Phi's q and restored after it. Phi must be bitwise Phi from views built
 * afresh, and the memo must be left as the residual left it, so that the assembly of the
 * residual's iterate still takes it and still gives the matrix assembled from scratch.
 *
 * Independent reference: every joint's class eval on views built by fmb_sim_joint_views at
 * Phi's q (no qd), and the assembly without the memo. Cases: the quick-return (10 rocker
 * elements: pins on the beam, the slider, whose columns follow the state, a prismatic
 * guide, the driver) and the rigid seven-bar, each after 30 steps; Phi at the residual's
 * own array, at another array with perturbed values, and on a new sim before any residual
 * (no memo views yet).
 * Checked to fail: eval_phi without restoring the lent pointers fails the
 * memo views' comparison and the matrix after the handoff (the assembly takes views into
 * the perturbed array: 27 and 35 entries differ); lending the views without setting q
 * (Phi at the residual's state) fails Phi at the perturbed array in both cases.
 * Compared exactly, not to rounding: the lent views are read by the same class function
 * as fresh ones, so Phi cannot change a bit; a lent pointer left pointing at another state
 * differs by that state's change.
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

/* Phi at q from views built afresh */
static void phi_ref(const fmb_sim_t *s, const double *q, double t, double *phi)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, q, NULL, v);
        j->klass->eval(j, v, t, phi + j->row, NULL, NULL);
    }
}

static void check_phi(const char *label, const char *what, fmb_sim_t *s, const double *q, double t)
{
    const int m = s->m;
    double *phi = calloc((size_t)m + 1, sizeof *phi), *ref = calloc((size_t)m + 1, sizeof *ref);
    int row = -2;
    const double mx = fmb_sim_eval_phi(s, q, t, phi, &row);
    phi_ref(s, q, t, ref);
    double rmx = 0.0;
    for (int k = 0; k < m; k++)
        rmx = fabs(ref[k]) > rmx ? fabs(ref[k]) : rmx;
    CHECK(!memcmp(phi, ref, (size_t)m * sizeof *phi), "%s: Phi (%s) differs from fresh views",
          label, what);
    CHECK(mx == rmx && row >= 0, "%s: max |Phi| (%s) %.17g, fresh %.17g", label, what, mx, rmx);
    free(phi), free(ref);
}

static void run_case(const char *label, const char *path, const char **ov, int nov)
{
    char err[1024];
    fmb_case_t *cs = fmb_case_load(path, ov, nov, err, sizeof err);
    CHECK(cs != NULL, "%s: %s", label, err);
    if (!cs) return;
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(cs), fmb_case_options(cs));
    CHECK(s && !fmb_sim_initialize(s), "%s: start failed", label);
    if (!s) return;
    /* a new sim whose memo views are still empty */
    fmb_sim_t *s0 = fmb_sim_create(fmb_case_model(cs), fmb_case_options(cs));
    if (s0) {
        check_phi(label, "before any residual", s0, s->st.q, s->st.t);
        fmb_sim_destroy(&s0);
    }
    int rc = 0;
    for (int k = 0; k < 30 && !rc; k++)
        rc = fmb_sim_step(s);
    CHECK(rc == 0, "%s: 30 steps: %s", label, fmb_sim_last_error(s));
    const int n = s->n, m = s->m, N = n + m, nj = s->model->njoints;
    const double h = s->opts.h, al = s->opts.alpha;
    const double beta = 0.25 * (1 - al) * (1 - al), gamma = 0.5 - al, r = 1 + al;
    const fmb_coeffs_t c = {1.0, beta * r * h * h, beta * r * h * h, gamma * r * h, 1.0, 0.0, 0.0,
                            0};
    double *ref = malloc((size_t)N * N * sizeof *ref), *A = malloc((size_t)N * N * sizeof *A);
    double *F = calloc((size_t)N, sizeof *F), *M = calloc((size_t)n, sizeof *M);
    double *q2 = malloc((size_t)n * sizeof *q2);
    fmb_bodyview_t *keep = malloc(2 * (size_t)nj * sizeof *keep);
    /* the matrix from scratch at the state */
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &c);
    dense(s, ref);
    /* the residual at the state (fills the memo), then Phi at its own array and at another */
    fmb_sim_eval_residual(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, M, F, F + n);
    memcpy(keep, s->as.jm->v, 2 * (size_t)nj * sizeof *keep);
    check_phi(label, "the residual's array", s, s->st.q, s->st.t);
    for (int k = 0; k < n; k++)
        q2[k] = s->st.q[k] * (1.0 + 1e-3 * ((k % 5) - 2)) + 1e-4;
    check_phi(label, "a perturbed array", s, q2, s->st.t + h);
    CHECK(!memcmp(keep, s->as.jm->v, 2 * (size_t)nj * sizeof *keep),
          "%s: the memo views changed by Phi", label);
    /* the assembly of the residual's iterate still takes the memo: the same matrix */
    const long u = s->as.jm->used;
    s->as.jm->handoff = 1;
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &c);
    s->as.jm->handoff = 0;
    dense(s, A);
    CHECK(s->as.jm->used == u + 1, "%s: the assembly did not take the memo after Phi", label);
    long nd = 0;
    for (size_t e = 0; e < (size_t)N * N; e++)
        nd += memcmp(&A[e], &ref[e], sizeof *A) != 0;
    CHECK(nd == 0, "%s: memo after Phi vs scratch: %ld entries differ", label, nd);
    printf("%s: n = %d, m = %d, Phi through the lent memo views checked\n", label, n, m);
    free(ref), free(A), free(F), free(M), free(q2), free(keep);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&cs);
}

int main(void)
{
    const char *qr[] = {"n_el=10", "revolutions=1"};
    run_case("quick-return", FMB_SOURCE_DIR "/cases/quick_return.yaml", qr, 2);
    run_case("seven-bar", FMB_SOURCE_DIR "/bench/cases/seven_body.yaml", NULL, 0);
    printf("%s\n%d failure(s)\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
