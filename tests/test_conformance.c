/*
 * Shared conformance test for every body, joint and force class (in the spirit of
 * SUNDIALS' test_sunlinsol): each class is exercised through its function table only,
 * at random states, against central finite differences:
 *   joints: Phi_q against dPhi/dq; sum_k w_k d2Phi_k/dq2 against d(Phi_q^T w)/dq;
 *           Phi_t, Phi_tt against d/dt;
 *   forces: dQ/dq and dQ/dqd against differences of Q; potential against -Q . dq
 *           for conservative forces (power == 0 at rest in a static field);
 *   bodies: mass matrix independent of theta; dQ/dq, dQ/dqd, d(M qdd)/dq against
 *           differences; the quadratic velocity vector against Lagrange's equations
 *           built from finite differences of M (Q_v = -(Mdot qd - 1/2 d(qd^T M qd)/dq)).
 * Usage: test_conformance joints|forces|bodies
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "model/model.h"

#define EPS 1e-6
static int failures = 0;

static double urand(double a, double b) { return a + (b - a) * (rand() / (double)RAND_MAX); }

static void check_close(const char *what, const char *cls, const double *a, const double *b,
                        int n, double tol)
{
    double err = 0.0, scale = 1.0;
    for (int i = 0; i < n; i++) {
        err = fmax(err, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    double rel = err / scale;
    if (!(rel <= tol)) {
        printf("FAIL %-14s %-28s rel. error %.3e > %.1e\n", cls, what, rel, tol);
        failures++;
    } else {
        printf("ok   %-14s %-28s rel. error %.3e\n", cls, what, rel);
    }
}

/* Two rigid bodies (or body + ground) in a model with parameters for drivers. */
typedef struct rig {
    fmb_model_t *m;
    double q[6], qd[6];
} rig_t;

static void rig_init(rig_t *r, int with_ground)
{
    r->m = fmb_model_create();
    fmb_model_set_param(r->m, "w", 3.0);
    fmb_model_set_gravity(r->m, 0.3, -9.81);
    for (int b = 0; b < (with_ground ? 1 : 2); b++) {
        fmb_body_desc_t d = {.name = b ? "b2" : "b1",
                             .mass = urand(0.5, 2),
                             .inertia = urand(0.01, 0.1),
                             .com = {urand(-0.3, 0.3), urand(-0.3, 0.3)}};
        fmb_model_add_body(r->m, &d);
    }
    for (int i = 0; i < 6; i++) r->q[i] = urand(-1, 1), r->qd[i] = urand(-2, 2);
}

static void views(const rig_t *r, const int body[2], const double *q, const double *qd,
                  fmb_bodyview_t v[2])
{
    v[0] = fmb_model_view(r->m, body[0], q, qd);
    v[1] = fmb_model_view(r->m, body[1], q, qd);
}

/* local dof k -> global index in q[6] (ground: -1) */
static int gl(const rig_t *r, const int body[2], int n0, int k)
{
    const fmb_body_t *b = &r->m->bodies[k < n0 ? body[0] : body[1]];
    return b->offset < 0 ? -1 : b->offset + (k < n0 ? k : k - n0);
}

static void test_joint(fmb_joint_type type, int with_ground)
{
    rig_t r;
    rig_init(&r, with_ground);
    fmb_joint_desc_t d = {.name = "j",
                          .type = type,
                          .body = {1, with_ground ? 0 : 2},
                          .point = {{urand(-0.5, 0.5), urand(-0.5, 0.5)},
                                    {urand(-0.5, 0.5), urand(-0.5, 0.5)}},
                          .axis = {urand(0.2, 1), urand(-1, 1)},
                          .angle = urand(-1, 1),
                          .expr = "0.3*sin(w*t) + 0.1*t^2"};
    int ij = fmb_model_add_joint(r.m, &d);
    if (ij < 0) {
        printf("FAIL cannot add joint type %d: %s\n", type, fmb_model_last_error(r.m));
        failures++;
        fmb_model_destroy(&r.m);
        return;
    }
    const fmb_joint_t *j = &r.m->joints[ij];
    const fmb_joint_class_t *k = j->klass;
    char cls[64];
    snprintf(cls, sizeof cls, "%s%s", k->name, with_ground ? "/gnd" : "");
    const double t = urand(0, 1);
    fmb_bodyview_t v[2];
    views(&r, j->body, r.q, r.qd, v);
    const int nr = k->nrows, n0 = v[0].ndof, nn = n0 + v[1].ndof;
    double phi[8], J[2][32] = {{0}};
    k->eval(j, v, t, phi, J[0], J[1]);
    /* Jacobian against differences (dense nr x nn) */
    double Ja[64] = {0}, Jf[64] = {0};
    for (int c = 0; c < nn; c++) {
        const double *Jb = c < n0 ? J[0] : J[1];
        int kc = c < n0 ? c : c - n0;
        for (int rr = 0; rr < nr; rr++) Ja[rr + nr * c] = Jb[rr + nr * kc];
        double qp[6], qm[6], pp[8], pm[8];
        memcpy(qp, r.q, sizeof qp), memcpy(qm, r.q, sizeof qm);
        int g = gl(&r, j->body, n0, c);
        qp[g] += EPS, qm[g] -= EPS;
        fmb_bodyview_t vp[2], vm[2];
        views(&r, j->body, qp, r.qd, vp);
        views(&r, j->body, qm, r.qd, vm);
        k->eval(j, vp, t, pp, NULL, NULL);
        k->eval(j, vm, t, pm, NULL, NULL);
        for (int rr = 0; rr < nr; rr++) Jf[rr + nr * c] = (pp[rr] - pm[rr]) / (2 * EPS);
    }
    check_close("Phi_q", cls, Ja, Jf, nr * nn, 1e-7);
    /* Hessian contraction against d(Phi_q^T w)/dq */
    double w[8], H[64] = {0}, Hf[64] = {0};
    for (int rr = 0; rr < nr; rr++) w[rr] = urand(-1, 1);
    k->hess(j, v, t, w, H);
    for (int c = 0; c < nn; c++) {
        double qp[6], qm[6];
        memcpy(qp, r.q, sizeof qp), memcpy(qm, r.q, sizeof qm);
        int g = gl(&r, j->body, n0, c);
        qp[g] += EPS, qm[g] -= EPS;
        double Jp[2][32] = {{0}}, Jm[2][32] = {{0}}, pp[8];
        fmb_bodyview_t vp[2], vm[2];
        views(&r, j->body, qp, r.qd, vp);
        views(&r, j->body, qm, r.qd, vm);
        k->eval(j, vp, t, pp, Jp[0], Jp[1]);
        k->eval(j, vm, t, pp, Jm[0], Jm[1]);
        for (int a = 0; a < nn; a++) {
            const int b = a < n0 ? 0 : 1, ka = a < n0 ? a : a - n0;
            double sp = 0, sm = 0;
            for (int rr = 0; rr < nr; rr++) {
                sp += Jp[b][rr + nr * ka] * w[rr];
                sm += Jm[b][rr + nr * ka] * w[rr];
            }
            Hf[a + nn * c] = (sp - sm) / (2 * EPS);
        }
    }
    check_close("d2Phi/dq2 . w", cls, H, Hf, nn * nn, 1e-7);
    if (k->time) {
        double pt[8], ptt[8], pp[8], pm[8], p0[8], ft[8], ftt[8];
        k->time(j, t, pt, ptt);
        const double et = 1e-4;
        k->eval(j, v, t + et, pp, NULL, NULL);
        k->eval(j, v, t - et, pm, NULL, NULL);
        k->eval(j, v, t, p0, NULL, NULL);
        for (int rr = 0; rr < nr; rr++) {
            ft[rr] = (pp[rr] - pm[rr]) / (2 * et);
            ftt[rr] = (pp[rr] - 2 * p0[rr] + pm[rr]) / (et * et);
        }
        check_close("Phi_t", cls, pt, ft, nr, 1e-7);
        check_close("Phi_tt", cls, ptt, ftt, nr, 1e-5);
    }
    fmb_model_destroy(&r.m);
}

static void force_Q(const rig_t *r, const fmb_force_t *f, const double *q, const double *qd,
                    double t, double *Q)
{
    fmb_bodyview_t v[2];
    views(r, f->body, q, qd, v);
    double Q0[8] = {0}, Q1[8] = {0};
    f->klass->eval(f, v, t, Q0, Q1, NULL, NULL);
    for (int k = 0; k < v[0].ndof; k++) Q[k] = Q0[k];
    for (int k = 0; k < v[1].ndof; k++) Q[v[0].ndof + k] = Q1[k];
}

static void test_force(fmb_force_type type, int with_ground)
{
    rig_t r;
    rig_init(&r, with_ground);
    fmb_force_desc_t d = {.name = "f",
                          .type = type,
                          .body = {1, with_ground ? 0 : 2},
                          .point = {{urand(-0.5, 0.5), urand(-0.5, 0.5)},
                                    {urand(-0.5, 0.5), urand(-0.5, 0.5)}},
                          .expr = {"3*cos(w*t)", "-2+t"},
                          .stiffness = 1000,
                          .damping = 20,
                          .rest_length = 0.4};
    int i = fmb_model_add_force(r.m, &d);
    if (i < 0) {
        printf("FAIL cannot add force type %d: %s\n", type, fmb_model_last_error(r.m));
        failures++;
        fmb_model_destroy(&r.m);
        return;
    }
    const fmb_force_t *f = &r.m->forces[i];
    char cls[64];
    snprintf(cls, sizeof cls, "%s%s", f->klass->name, with_ground ? "/gnd" : "");
    const double t = urand(0, 1);
    fmb_bodyview_t v[2];
    views(&r, f->body, r.q, r.qd, v);
    const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
    double Q0[8] = {0}, Q1[8] = {0}, K[64] = {0}, C[64] = {0}, Kf[64] = {0}, Cf[64] = {0};
    f->klass->eval(f, v, t, Q0, Q1, K, C);
    for (int c = 0; c < nn; c++) {
        int g = gl(&r, f->body, n0, c);
        double qp[6], qm[6], Qp[8], Qm[8];
        memcpy(qp, r.q, sizeof qp), memcpy(qm, r.q, sizeof qm);
        qp[g] += EPS, qm[g] -= EPS;
        force_Q(&r, f, qp, r.qd, t, Qp);
        force_Q(&r, f, qm, r.qd, t, Qm);
        for (int a = 0; a < nn; a++) Kf[a + nn * c] = (Qp[a] - Qm[a]) / (2 * EPS);
        memcpy(qp, r.qd, sizeof qp), memcpy(qm, r.qd, sizeof qm);
        qp[g] += EPS, qm[g] -= EPS;
        force_Q(&r, f, r.q, qp, t, Qp);
        force_Q(&r, f, r.q, qm, t, Qm);
        for (int a = 0; a < nn; a++) Cf[a + nn * c] = (Qp[a] - Qm[a]) / (2 * EPS);
    }
    check_close("dQ/dq", cls, K, Kf, nn * nn, 1e-6);
    check_close("dQ/dqd", cls, C, Cf, nn * nn, 1e-6);
    if (f->klass->potential) {
        /* conservative part: Q at zero velocity equals -dV/dq */
        double zero[6] = {0}, Qs[8], gV[8];
        force_Q(&r, f, r.q, zero, t, Qs);
        for (int c = 0; c < nn; c++) {
            int g = gl(&r, f->body, n0, c);
            double qp[6], qm[6];
            memcpy(qp, r.q, sizeof qp), memcpy(qm, r.q, sizeof qm);
            qp[g] += EPS, qm[g] -= EPS;
            fmb_bodyview_t vp[2], vm[2];
            views(&r, f->body, qp, zero, vp);
            views(&r, f->body, qm, zero, vm);
            gV[c] = -(f->klass->potential(f, vp) - f->klass->potential(f, vm)) / (2 * EPS);
        }
        check_close("Q = -dV/dq at rest", cls, Qs, gV, nn, 1e-7);
    }
    if (f->klass->power) {
        /* power of the non-conservative part = (Q - Q_conservative) . qd */
        double Q[8], Qs[8] = {0}, zero[6] = {0}, P = 0;
        force_Q(&r, f, r.q, r.qd, t, Q);
        if (f->klass->potential) force_Q(&r, f, r.q, zero, t, Qs);
        for (int c = 0; c < nn; c++) P += (Q[c] - Qs[c]) * r.qd[gl(&r, f->body, n0, c)];
        double Pc = f->klass->power(f, v, t);
        check_close("power", cls, &Pc, &P, 1, 1e-12);
    }
    fmb_model_destroy(&r.m);
}

static void body_Q(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                   const double g[2], double *Q, double *Mqdd)
{
    double M[9];
    memset(Q, 0, 3 * sizeof *Q);
    b->klass->forces(b, q, qd, qdd, g, Q, NULL, NULL, NULL);
    b->klass->mass(b, q, M);
    for (int i = 0; i < 3; i++) {
        Mqdd[i] = 0;
        for (int j = 0; j < 3; j++) Mqdd[i] += M[i + 3 * j] * qdd[j];
    }
}

static void test_body(void)
{
    rig_t r;
    rig_init(&r, 1);
    const fmb_body_t *b = &r.m->bodies[1];
    const char *cls = b->klass->name;
    const double *g = r.m->g;
    double q[3], qd[3], qdd[3];
    for (int i = 0; i < 3; i++) q[i] = r.q[i], qd[i] = r.qd[i], qdd[i] = urand(-5, 5);
    /* mass matrix independent of theta */
    double M1[9], M2[9];
    b->klass->mass(b, q, M1);
    double q2[3] = {q[0], q[1], q[2] + 1.234};
    b->klass->mass(b, q2, M2);
    check_close("M(theta) = M(theta+1.234)", cls, M2, M1, 9, 1e-15);
    /* tangents */
    double Q[3] = {0}, Kq[9] = {0}, Cq[9] = {0}, Km[9] = {0}, Kf[9], Cf[9], Kmf[9];
    b->klass->forces(b, q, qd, qdd, g, Q, Kq, Cq, Km);
    for (int c = 0; c < 3; c++) {
        double qp[3], qm[3], Qp[3], Qm[3], Mp[3], Mm[3];
        memcpy(qp, q, sizeof qp), memcpy(qm, q, sizeof qm);
        qp[c] += EPS, qm[c] -= EPS;
        body_Q(b, qp, qd, qdd, g, Qp, Mp);
        body_Q(b, qm, qd, qdd, g, Qm, Mm);
        for (int a = 0; a < 3; a++) {
            Kf[a + 3 * c] = (Qp[a] - Qm[a]) / (2 * EPS);
            Kmf[a + 3 * c] = (Mp[a] - Mm[a]) / (2 * EPS);
        }
        memcpy(qp, qd, sizeof qp), memcpy(qm, qd, sizeof qm);
        qp[c] += EPS, qm[c] -= EPS;
        body_Q(b, q, qp, qdd, g, Qp, Mp);
        body_Q(b, q, qm, qdd, g, Qm, Mm);
        for (int a = 0; a < 3; a++) Cf[a + 3 * c] = (Qp[a] - Qm[a]) / (2 * EPS);
    }
    check_close("dQ/dq", cls, Kq, Kf, 9, 1e-7);
    check_close("dQ/dqd", cls, Cq, Cf, 9, 1e-7);
    check_close("d(M qdd)/dq", cls, Km, Kmf, 9, 1e-7);
    /* Quadratic velocity vector from Lagrange: Qv = -(Mdot qd - 1/2 d(qd^T M qd)/dq),
     * Mdot = sum_c dM/dq_c qd_c, with gravity switched off. */
    const double g0[2] = {0, 0};
    double Qv[3] = {0}, Ql[3] = {0};
    b->klass->forces(b, q, qd, qdd, g0, Qv, NULL, NULL, NULL);
    for (int c = 0; c < 3; c++) {
        double qp[3], qm[3], Mp[9], Mm[9];
        memcpy(qp, q, sizeof qp), memcpy(qm, q, sizeof qm);
        qp[c] += EPS, qm[c] -= EPS;
        b->klass->mass(b, qp, Mp);
        b->klass->mass(b, qm, Mm);
        double dT = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double dM = (Mp[i + 3 * j] - Mm[i + 3 * j]) / (2 * EPS);
                Ql[i] -= dM * qd[j] * qd[c]; /* Mdot qd */
                dT += 0.5 * qd[i] * dM * qd[j];
            }
        Ql[c] += dT;
    }
    check_close("Q_v vs Lagrange", cls, Qv, Ql, 3, 1e-7);
    /* gravity: Q_g = -dV/dq */
    double Qg[3] = {0}, zero[3] = {0}, gV[3], Qz[3] = {0};
    b->klass->forces(b, q, zero, qdd, g, Qg, NULL, NULL, NULL);
    b->klass->forces(b, q, zero, qdd, g0, Qz, NULL, NULL, NULL);
    for (int c = 0; c < 3; c++) {
        double qp[3], qm[3];
        memcpy(qp, q, sizeof qp), memcpy(qm, q, sizeof qm);
        qp[c] += EPS, qm[c] -= EPS;
        gV[c] = -(b->klass->potential(b, qp, g) - b->klass->potential(b, qm, g)) / (2 * EPS);
        Qg[c] -= Qz[c];
    }
    check_close("Q_g = -dV/dq", cls, Qg, gV, 3, 1e-7);
    fmb_model_destroy(&r.m);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    srand(12345);
    for (int trial = 0; trial < 5; trial++) {
        if (!strcmp(what, "joints") || !strcmp(what, "all"))
            for (int t = 0; t < FMB_JOINT_TYPE_COUNT; t++) {
                test_joint((fmb_joint_type)t, 0);
                test_joint((fmb_joint_type)t, 1);
            }
        if (!strcmp(what, "forces") || !strcmp(what, "all"))
            for (int t = 0; t < FMB_FORCE_TYPE_COUNT; t++) {
                test_force((fmb_force_type)t, 0);
                if (t != FMB_FORCE_SPRING) test_force((fmb_force_type)t, 1);
            }
        if (!strcmp(what, "bodies") || !strcmp(what, "all")) test_body();
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
