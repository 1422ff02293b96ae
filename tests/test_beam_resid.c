/*
 * The residual's body products in one call (model.h `mass_forces`; beam_fast.c
 * beam_mass_forces, rigid.c rigid_mass_forces; docs/performance.md "The residual's beam
 * pass") against the plain reference: the beam's reference class (bodies/beam.c,
 * fmb_beam_reference_class: every element from scratch, inertia pass then elastic pass) and
 * the residual's own product of `mass` and `forces` for the rigid body, to rounding
 * (tests/near.h).
 * 1. Beams: body A (the class of runs) answers mass_forces, an identical body B of the
 *    reference class answers mass_times and forces. Four beams: simply supported,
 *    non-uniform, rotary inertia, Rayleigh damping (removed dofs at both ends, the inner
 *    elements' dofs consecutive); a uniform undamped cantilever of 10 elements; a damped
 *    co-rotational (nonlinear) beam; the first beam with `decoupled` cleared (the dense
 *    loops, dec = 0). A runs through a sequence that changes q and qd IN PLACE and mixes
 *    in tangent evaluations (forces with Kq, Cq, Kmq: the cache then holds every part), so
 *    that mass_forces meets all the cache's plans: a new q, a new qd only, nothing
 *    missing. Q starts from the same nonzero values in both (mass_forces adds to Q as
 *    forces does); Mv from garbage in A (it is written).
 *    Tolerance: each entry within (k + 1) eps m, k = 64 and m the magnitude of its terms
 *    from the reference's own matrices at the state: m(Mv_i) = sum_j |M_ij| |v_j|;
 *    m(Q_i) = |Q0_i| + |Q_i - Q0_i| + sum_j (|Kq_ij| |q_j| + |Cq_ij| |qd_j|) (Q is a
 *    polynomial of degree <= 3 in q, qd: each term is bounded by its derivatives times
 *    the coordinates; the elastic forces k_e u, which cancel to the deformation's, by
 *    |k_e| |u|). An entry's longest path is below 64 roundings: per element the state
 *    (6-term sums of Mff U, Sbar Ud), the force's 4 terms and the elastic force's 3, summed
 *    over two elements and the damping's 12 products.
 * 2. The residual (solve/residual.c): cases/quick_return.yaml (10 rocker elements) and
 *    bench/cases/seven_body.yaml (rigid only), each loaded twice; in copy B every body's
 *    class is a copy without mass_forces, the beam's the reference class, and before each
 *    of its residuals the joints' memo views are cleared, so that every joint's views are
 *    built by fmb_joint_views (copy A re-points the views it built before, residual.c
 *    residual_views). A steps; every 7 steps both evaluate the residual (M qdd, F, Phi)
 *    at A's state, then twice at perturbed copies of q, qd, qdd in other arrays
 *    (alternating): each entry within (64 + 1) eps m_b, m_b the sum of |entry| over its
 *    body's rows of B's output (the constraint rows: |entry|, the same joint code in both).
 * Checked to fail: beam_fast.c's fused pass without the Rayleigh damping force fails the
 * three damped beams in all 14 steps each (42; the undamped cantilever passes); the fused
 * pass's inertia force with 2 thd hU as 3 thd hU (beam_state.h fmb_beam_inertia_q_d)
 * fails all 56 steps of part 1 and all 60 quick-return residuals; rigid.c's fused product
 * without its third column (M v's theta term) fails all 60 residuals of each case; with
 * residual_views leaving the kept views' state pointers as they were, the 40 residuals at
 * other arrays of each case. A reordering passes: Q_U summed as thd^2 pU - 2 thd hU +
 * S^T a in the fused pass (differences up to 0.41 eps m, where a bitwise comparison
 * fails).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "bodies/beam_internal.h"
#include "flexmb/flexmb.h"
#include "model/model.h"
#include "near.h"
#include "solve/sim_internal.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static int failures = 0;
#include "check.h"

#define MAXN 12
#define MAXD (3 + 3 * MAXN)

static double urand(double a, double b)
{
    return a + (b - a) * (rand() / (double)RAND_MAX);
}

#define K_ROUND 64 /* roundings on an entry's longest path (opening comment) */

/* entries of a off b by more than (K_ROUND + 1) eps m (near.h); the largest ratio in *worst */
static double worst_seen = 0.0;
static int off(const double *a, const double *b, const double *m, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        bad += !near_tol(a[i], b[i], near_bound(K_ROUND, m[i]));
        if (m[i] > 0 && isfinite(a[i] - b[i]))
            worst_seen = fmax(worst_seen, fabs(a[i] - b[i]) / (NEAR_EPS * m[i]));
    }
    return bad;
}

/* part 1: one beam configuration; label, node count, mesh jitter, description */
static void beam_case(const char *label, fmb_beam_desc_t d, int dense)
{
    fmb_model_t *m = fmb_model_create();
    d.name = "a";
    const int ba = fmb_model_add_beam(m, &d);
    d.name = "b";
    const int bb = fmb_model_add_beam(m, &d);
    CHECK(ba > 0 && bb > 0, "%s: add_beam: %s", label, fmb_model_last_error(m));
    if (ba <= 0 || bb <= 0) return;
    m->bodies[bb].klass = &fmb_beam_reference_class;
    const fmb_body_t *A = &m->bodies[ba], *B = &m->bodies[bb];
    if (dense) ((fmb_beam_t *)A->data)->decoupled = 0;
    CHECK(A->klass->mass_forces != NULL, "%s: the beam class has no mass_forces", label);
    if (!A->klass->mass_forces) return;
    const int nd = A->ndof;
    static const double g[2] = {0.7, -9.81};
    double q[MAXD], qd[MAXD], qdd[MAXD], Q0[MAXD];
    double Mva[MAXD], Qa[MAXD], Mvb[MAXD], Qb[MAXD], mM[MAXD], mQ[MAXD];
    static double K[MAXD * MAXD], C[MAXD * MAXD], Km[MAXD * MAXD], M[MAXD * MAXD];
    srand(17);
    for (int i = 0; i < nd; i++) {
        q[i] = i < 3 ? urand(-1, 1) : urand(-2e-3, 2e-3);
        qd[i] = urand(-3, 3), qdd[i] = urand(-50, 50), Q0[i] = urand(-1, 1);
    }
    /* what changes in place before the step (0 nothing, 1 qd, 2 q), and 1: a tangent
     * evaluation of A (forces with Kq, Cq, Kmq) before its mass_forces */
    static const int seq[][2] = {{0, 0}, {0, 0}, {1, 0}, {0, 1}, {2, 0}, {2, 1}, {1, 1},
                                 {0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 0}, {2, 1}, {0, 0}};
    int bad = 0;
    const int ns = (int)(sizeof seq / sizeof seq[0]);
    for (int s = 0; s < ns; s++) {
        if (seq[s][0] == 1) qd[3 + s % (nd - 3)] += 0.25, qd[2] -= 0.1;
        if (seq[s][0] == 2) q[3 + (s * 5) % (nd - 3)] += 1e-4, q[2] += 0.01, q[0] -= 0.02;
        if (seq[s][1]) {
            memset(K, 0, sizeof K), memset(C, 0, sizeof C), memset(Km, 0, sizeof Km);
            memcpy(Qa, Q0, sizeof Qa);
            A->klass->forces(A, q, qd, qdd, g, Qa, K, C, Km);
        }
        for (int i = 0; i < nd; i++)
            Mva[i] = 1e300 * (i + 1); /* written, not added to */
        memcpy(Qa, Q0, sizeof Qa);
        A->klass->mass_forces(A, q, qd, qdd, g, Mva, Qa);
        /* the reference, and the magnitudes of the terms from its matrices */
        B->klass->mass_times(B, q, qdd, Mvb);
        memcpy(Qb, Q0, sizeof Qb);
        B->klass->forces(B, q, qd, qdd, g, Qb, NULL, NULL, NULL);
        B->klass->mass(B, q, M);
        memset(K, 0, sizeof K), memset(C, 0, sizeof C);
        double Qt[MAXD] = {0};
        B->klass->forces(B, q, qd, qdd, g, Qt, K, C, NULL);
        for (int i = 0; i < nd; i++) {
            mM[i] = 0.0, mQ[i] = fabs(Q0[i]) + fabs(Qb[i] - Q0[i]);
            for (int j = 0; j < nd; j++) {
                mM[i] += fabs(M[i + nd * j]) * fabs(qdd[j]);
                mQ[i] += fabs(K[i + nd * j]) * fabs(q[j]) + fabs(C[i + nd * j]) * fabs(qd[j]);
            }
        }
        const int ok = !off(Mva, Mvb, mM, nd) && !off(Qa, Qb, mQ, nd);
        CHECK(ok, "%s: step %d (%s%s): mass_forces differs from the reference", label, s,
              seq[s][0] == 0   ? "no change"
              : seq[s][0] == 1 ? "qd changed"
                               : "q changed",
              seq[s][1] ? ", after a tangent evaluation" : "");
        bad += !ok;
    }
    printf("%s: %d dofs, %d of %d steps within rounding\n", label, nd, ns - bad, ns);
    fmb_model_destroy(&m);
}

/* part 2: the residual with and without the classes' mass_forces */
static fmb_body_class_t no_mf[8];
static int nno_mf = 0;

static const fmb_body_class_t *without_mf(const fmb_body_class_t *k)
{
    for (int i = 0; i < nno_mf; i++)
        if (!strcmp(no_mf[i].name, k->name)) return &no_mf[i];
    no_mf[nno_mf] = *k;
    no_mf[nno_mf].mass_forces = NULL;
    return &no_mf[nno_mf++];
}

static fmb_sim_t *start(const char *path, const char **ov, int nov, int strip, fmb_case_t **cs)
{
    char err[1024];
    *cs = fmb_case_load(path, ov, nov, err, sizeof err);
    if (!*cs) {
        printf("FAIL load %s: %s\n", path, err);
        failures++;
        return NULL;
    }
    fmb_model_t *m = fmb_case_model(*cs);
    for (int b = 1; b < m->nbodies; b++)
        if (strip)
            m->bodies[b].klass = m->bodies[b].klass == &fmb_beam_body_class
                                     ? &fmb_beam_reference_class
                                     : without_mf(m->bodies[b].klass);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(*cs));
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL start %s\n", path);
        failures++;
        return NULL;
    }
    return s;
}

static void residual_case(const char *label, const char *path, const char **ov, int nov)
{
    fmb_case_t *ca = NULL, *cb = NULL;
    fmb_sim_t *a = start(path, ov, nov, 0, &ca), *b = start(path, ov, nov, 1, &cb);
    if (!a || !b) return;
    int with = 0;
    for (int k = 1; k < a->model->nbodies; k++)
        with += a->model->bodies[k].klass->mass_forces != NULL;
    CHECK(with == a->model->nbodies - 1, "%s: %d of %d bodies have mass_forces", label, with,
          a->model->nbodies - 1);
    const int n = a->n, N = n + a->m, nj = a->model->njoints;
    double *Ma = calloc((size_t)n, sizeof *Ma), *Fa = calloc((size_t)N, sizeof *Fa);
    double *Mb = calloc((size_t)n, sizeof *Mb), *Fb = calloc((size_t)N, sizeof *Fb);
    double *mMq = calloc((size_t)n, sizeof *mMq), *mF = calloc((size_t)N, sizeof *mF);
    double *x[2][3]; /* two sets of perturbed copies of q, qd, qdd (other arrays) */
    for (int c = 0; c < 2; c++)
        for (int z = 0; z < 3; z++)
            x[c][z] = calloc((size_t)n, sizeof(double));
    int ncmp = 0, bad = 0, rc = 0;
    for (int k = 0; k < 140 && !rc; k++) {
        rc = fmb_sim_step(a);
        if (k % 7) continue;
        for (int pass = 0; pass < 3; pass++) {
            /* pass 0: A's own arrays; 1, 2: the copies (after a residual at other arrays,
             * the views of the memo must point into the new ones) */
            const double *q = a->st.q, *qd = a->st.qd, *qdd = a->st.qdd;
            if (pass) {
                double **c = x[(k / 7 + pass) % 2];
                for (int i = 0; i < n; i++) {
                    c[0][i] = a->st.q[i] + 1e-7 * (1 + i % 5) * pass;
                    c[1][i] = a->st.qd[i] - 1e-5 * (1 + i % 3) * pass;
                    c[2][i] = a->st.qdd[i] + 1e-3 * pass;
                }
                q = c[0], qd = c[1], qdd = c[2];
            }
            fmb_sim_eval_residual(a, q, qd, qdd, a->st.lam, a->st.t, Ma, Fa, Fa + n);
            /* B: every joint's views built afresh (fmb_joint_views) */
            memset(b->as.jm->v, 0, 2 * (size_t)nj * sizeof *b->as.jm->v);
            fmb_sim_eval_residual(b, q, qd, qdd, a->st.lam, a->st.t, Mb, Fb, Fb + n);
            /* m_b: the sum of |entry| over the entry's body in B's output */
            for (int k2 = 0; k2 < 2; k2++) {
                const double *y = k2 ? Fb : Mb;
                double *mm = k2 ? mF : mMq;
                for (int bd = 1; bd < b->model->nbodies; bd++) {
                    const fmb_body_t *body = &b->model->bodies[bd];
                    double sum = 0.0;
                    for (int i = 0; i < body->ndof; i++)
                        sum += fabs(y[body->offset + i]);
                    for (int i = 0; i < body->ndof; i++)
                        mm[body->offset + i] = sum;
                }
            }
            for (int i = n; i < N; i++)
                mF[i] = fabs(Fb[i]);
            const int ok = !off(Ma, Mb, mMq, n) && !off(Fa, Fb, mF, N);
            CHECK(ok, "%s: step %d, %s: the residual differs from the reference", label, k,
                  pass ? "other arrays" : "the sim's arrays");
            bad += !ok, ncmp++;
        }
    }
    for (int c = 0; c < 2; c++)
        for (int z = 0; z < 3; z++)
            free(x[c][z]);
    CHECK(rc == 0, "%s: stepping failed: %s", label, fmb_sim_last_error(a));
    printf("%s: n = %d, %d of %d residuals within rounding\n", label, n, ncmp - bad, ncmp);
    free(Ma), free(Fa), free(Mb), free(Fb), free(mMq), free(mF);
    fmb_sim_destroy(&a), fmb_sim_destroy(&b);
    fmb_case_destroy(&ca), fmb_case_destroy(&cb);
}

int main(void)
{
    double x1[7], x2[11], x3[6];
    for (int i = 0; i < 7; i++)
        x1[i] = 0.1 * i + 0.013 * sin(3.0 * i); /* non-uniform */
    for (int i = 0; i < 11; i++)
        x2[i] = 0.06 * i;
    for (int i = 0; i < 6; i++)
        x3[i] = 0.12 * i + 0.004 * cos(2.0 * i);
    const fmb_beam_desc_t ss = {.E = 2e11,
                                .rho = 7800,
                                .area = 1.1e-4,
                                .inertia = 1.0e-9,
                                .nnodes = 7,
                                .x = x1,
                                .reference = FMB_BEAM_SIMPLY_SUPPORTED,
                                .rotary_inertia = 1,
                                .damping_alpha = 0.3,
                                .damping_beta = 2e-4,
                                .geometry = FMB_BEAM_LINEAR};
    fmb_beam_desc_t cant = ss, nl = ss;
    cant.nnodes = 11, cant.x = x2, cant.reference = FMB_BEAM_CANTILEVER, cant.rotary_inertia = 0;
    cant.damping_alpha = cant.damping_beta = 0;
    nl.nnodes = 6, nl.x = x3, nl.geometry = FMB_BEAM_NONLINEAR, nl.damping_beta = 1e-3;
    beam_case("simply supported, rotary, damped", ss, 0);
    beam_case("cantilever, 10 uniform elements", cant, 0);
    beam_case("co-rotational, damped", nl, 0);
    beam_case("simply supported, dense loops", ss, 1);

    char qr[1024], sb[1024];
    snprintf(qr, sizeof qr, "%s/cases/quick_return.yaml", FMB_SOURCE_DIR);
    snprintf(sb, sizeof sb, "%s/bench/cases/seven_body.yaml", FMB_SOURCE_DIR);
    const char *ov[] = {"n_el=10"};
    residual_case("quick-return 10 el", qr, ov, 1);
    residual_case("seven-bar", sb, NULL, 0);
    printf("largest difference %.3g eps m (tolerance %d)\n", worst_seen, K_ROUND + 1);
    if (failures)
        printf("%d failures\n", failures);
    else
        printf("all passed\n");
    return failures ? 1 : 0;
}
