/*
 * The beam's fast path (beam_fast.c, the class of runs) on two identical damped linear
 * beams with rotary inertia (`decoupled`, src/bodies/beam.h: the +-y0 mass-point pairs
 * cancel the u-v coupling exactly), and a third of the reference class (beam.c):
 * 1. the element-state cache (beam_fast.c fmb_beam_states): a beam keeps its elements'
 *    inertia states of the last (q, qd) and computes only missing parts. Beam A (cached)
 *    is driven through a sequence that changes q and qd IN PLACE (the same arrays, as the
 *    Newton loop does) and mixes mass, mass_times, forces (with and without tangents),
 *    blocks and potential. Beam B runs the same class, but before each of its calls its
 *    cache is flushed by an evaluation at an unrelated state, so it computes every part
 *    afresh. Every output of A must equal B's exactly (==, entry by entry): a cache hit
 *    returns what the same code computed from the same bits, so anything else is a stale
 *    part. Fails without the qd comparison of the key (5 of the 18 steps).
 * 2. the fast path (cache, decoupled kernels beam_kernels.h, inline states beam_state.h)
 *    against the reference class (beam C: every element from scratch, dense loops), the
 *    same sequence, to rounding (tests/near.h): each entry within (64 + 1) eps m; m for
 *    M v: sum_j |M_ij| |v_j|, for Q: |Q_i| + sum_j (|Kq_ij| |q_j| + |Cq_ij| |qd_j|) (as
 *    tests/test_beam_resid.c), for a matrix entry the largest |entry| of its row and
 *    column, for V: |V| + sum_i |Q_i| |q_i| + 1/2 sum_ij |Kq_ij| |q_i| |q_j|, with M, Q,
 *    Kq, Cq of the reference at the step's state. Fails with the slot-3 term dropped from
 *    the decoupled axial-class sums (beam_kernels.h fmb_beam_dot_class): 18 of 18 steps.
 * 3. fmb_beam_hermite_all equals four fmb_beam_hermite calls at 61 points to rounding
 *    (tests/near.h): within 9 eps m_d, k = 8 roundings (xi, its powers, a polynomial of
 *    three terms, the division by l^d) and m_d = 24 (1 + l) / l^d bounding the sum of the
 *    terms' magnitudes of the d-th derivatives for |xi| <= 1.2 (the points lie at most
 *    0.01 outside the mesh). Fails with H[1][0]'s divisor off by 1e-9 relative or H[2][1]'s
 *    constant -4 as -3 (all 61 points each); passes with H[1][0] written as
 *    6 (xi^2 - xi) / l (the same value, other roundings).
 * 4. the element matrices stored once per bitwise-distinct set (beam.h `nmat`): on a
 *    uniform 300-element mesh every element's shared Mff and Sbar equal (memcmp) the ones
 *    recomputed for that element alone (fmb_beam_element_inertia), its k_e the analytic
 *    EA/l and EI/l^3 [12 6l -12 6l; ...] entries to 1e-14 relative, and fewer sets than
 *    elements are stored (sharing happens); the 6-element non-uniform mesh above keeps
 *    one set per element. Compared exactly: sets are shared only when their bits are
 *    equal, and the recomputation runs the same code on the same element, so a shared set
 *    is the element's own data (fails if sets were matched by a tolerance, or by length
 *    alone: the Mff of elements whose lengths differ in the last bits differ).
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

static int failures = 0;
#include "check.h"

#define NN 7
#define MAXD (3 + 3 * NN)

typedef struct sum_ctx {
    int nd;
    double *A;
} sum_ctx_t;

static void sum_emit(void *vctx, int n, const int *cols, const double *B)
{
    sum_ctx_t *c = vctx;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            c->A[cols[i] + (size_t)c->nd * cols[j]] += B[i + n * j];
}

typedef struct out {
    double M[MAXD * MAXD], Mv[MAXD], Q[MAXD], K[MAXD * MAXD], C[MAXD * MAXD], Km[MAXD * MAXD];
    double B[MAXD * MAXD], V;
} out_t;

static double urand(double a, double b)
{
    return a + (b - a) * (rand() / (double)RAND_MAX);
}

/* One evaluation of kind k of body b into o (zeroed first). */
static void eval(const fmb_body_t *b, int k, const double *q, const double *qd, const double *qdd,
                 const double *v, out_t *o)
{
    static const double g[2] = {0.7, -9.81}, cf[4] = {1.3, 2e-9, 3e-9, 4e-5};
    memset(o, 0, sizeof *o);
    switch (k) {
    case 0:
        b->klass->mass(b, q, o->M);
        break;
    case 1:
        b->klass->mass_times(b, q, v, o->Mv);
        break;
    case 2:
        b->klass->forces(b, q, qd, qdd, g, o->Q, NULL, NULL, NULL);
        break;
    case 3:
        b->klass->forces(b, q, qd, qdd, g, o->Q, o->K, o->C, o->Km);
        break;
    case 4: {
        sum_ctx_t sc = {b->ndof, o->B};
        b->klass->blocks(b, q, qd, qdd, g, cf, sum_emit, &sc);
        break;
    }
    default:
        o->V = b->klass->potential(b, q, g);
        break;
    }
}

#define K_ROUND 64 /* roundings on an entry's longest path (tests/test_beam_resid.c) */

static int near_n(const double *a, const double *b, const double *mag, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += !near_tol(a[i], b[i], near_bound(K_ROUND, mag[i]));
    return bad;
}

/* a matrix (nd x nd, column-major): m_ij = the largest |R| of row i or column j */
static int near_mat(const double *A, const double *R, int nd)
{
    double rmax[MAXD] = {0}, cmax[MAXD] = {0};
    for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
            const double x = fabs(R[i + nd * j]);
            rmax[i] = fmax(rmax[i], x), cmax[j] = fmax(cmax[j], x);
        }
    int bad = 0;
    for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++)
            bad += !near_tol(A[i + nd * j], R[i + nd * j],
                             near_bound(K_ROUND, fmax(rmax[i], cmax[j])));
    return bad;
}

/* every output of the fast path (a) within rounding of the reference's (r); M (om) and Q,
 * Kq, Cq (ok) of the reference at the state give the magnitudes */
static int near_ref(const out_t *a, const out_t *r, const out_t *om, const out_t *ok, int nd,
                    const double *q, const double *qd, const double *v)
{
    double mMv[MAXD], mQ[MAXD], mV = fabs(r->V);
    for (int i = 0; i < nd; i++) {
        mMv[i] = 0.0, mQ[i] = fabs(ok->Q[i]);
        for (int j = 0; j < nd; j++) {
            mMv[i] += fabs(om->M[i + nd * j]) * fabs(v[j]);
            mQ[i] += fabs(ok->K[i + nd * j]) * fabs(q[j]) + fabs(ok->C[i + nd * j]) * fabs(qd[j]);
            mV += 0.5 * fabs(ok->K[i + nd * j]) * fabs(q[i]) * fabs(q[j]);
        }
        mV += fabs(ok->Q[i]) * fabs(q[i]);
    }
    int bad = near_n(a->Mv, r->Mv, mMv, nd) + near_n(a->Q, r->Q, mQ, nd);
    bad += near_mat(a->M, r->M, nd) + near_mat(a->K, r->K, nd) + near_mat(a->C, r->C, nd);
    bad += near_mat(a->Km, r->Km, nd) + near_mat(a->B, r->B, nd);
    bad += !near_tol(a->V, r->V, near_bound(K_ROUND, mV));
    return bad == 0;
}

static const char *const kname[6] = {"mass",   "mass_times", "forces", "forces+tangents",
                                     "blocks", "potential"};

int main(void)
{
    double x[NN];
    for (int i = 0; i < NN; i++)
        x[i] = 0.1 * i + 0.013 * sin(3.0 * i); /* non-uniform mesh */
    fmb_beam_desc_t d = {.E = 2e11,
                         .rho = 7800,
                         .area = 1.1e-4,
                         .inertia = 1.0e-9,
                         .nnodes = NN,
                         .x = x,
                         .reference = FMB_BEAM_SIMPLY_SUPPORTED,
                         .rotary_inertia = 1,
                         .damping_alpha = 0.3,
                         .damping_beta = 2e-4,
                         .geometry = FMB_BEAM_LINEAR};
    fmb_model_t *m = fmb_model_create();
    d.name = "a";
    const int ba = fmb_model_add_beam(m, &d);
    d.name = "b";
    const int bb = fmb_model_add_beam(m, &d);
    d.name = "c";
    const int bc = fmb_model_add_beam(m, &d);
    CHECK(ba > 0 && bb > 0 && bc > 0, "add_beam: %s", fmb_model_last_error(m));
    if (ba <= 0 || bb <= 0 || bc <= 0) return 1;
    m->bodies[bc].klass = &fmb_beam_reference_class;
    const fmb_body_t *A = &m->bodies[ba], *B = &m->bodies[bb], *C = &m->bodies[bc];
    CHECK(((const fmb_beam_t *)A->data)->decoupled == 1, "linear beam not decoupled");
    const int nd = A->ndof;
    double q[MAXD], qd[MAXD], qdd[MAXD], v[MAXD], qf[MAXD], qdf[MAXD];
    srand(11);
    for (int i = 0; i < nd; i++) {
        q[i] = i < 3 ? urand(-1, 1) : urand(-2e-3, 2e-3);
        qd[i] = urand(-3, 3), qdd[i] = urand(-50, 50), v[i] = urand(-1, 1);
        qf[i] = q[i] + 0.5, qdf[i] = qd[i] - 1.0; /* the flush state of B */
    }
    /* the sequence: (what changes in place before the call: 0 nothing, 1 qd, 2 q), call */
    static const int seq[][2] = {{0, 1}, {0, 2}, {0, 4}, {1, 2}, {0, 4}, {1, 4},
                                 {2, 1}, {0, 3}, {0, 4}, {1, 0}, {0, 5}, {2, 5},
                                 {0, 2}, {1, 3}, {2, 4}, {0, 1}, {1, 1}, {0, 2}};
    static out_t oa, ob, oc, om, ok3;
    int ncmp = 0, nnear = 0;
    for (size_t s = 0; s < sizeof seq / sizeof seq[0]; s++) {
        if (seq[s][0] == 1) qd[3 + (int)s % (nd - 3)] += 0.25;
        if (seq[s][0] == 2) q[3 + (int)(s * 5) % (nd - 3)] += 1e-4, q[2] += 0.01;
        const int k = seq[s][1];
        eval(A, k, q, qd, qdd, v, &oa);
        eval(B, 3, qf, qdf, qdd, v, &ob); /* flush B's cache (all parts, other state) */
        eval(B, k, q, qd, qdd, v, &ob);
        const double *a = (const double *)&oa, *b = (const double *)&ob;
        int same = 1;
        for (size_t z = 0; z < sizeof oa / sizeof *a; z++)
            same &= a[z] == b[z];
        CHECK(same, "step %zu (%s after %s): cached result differs from a cold one", s, kname[k],
              seq[s][0] == 0   ? "no change"
              : seq[s][0] == 1 ? "a qd change"
                               : "a q change");
        ncmp++;
        /* 2. against the reference, with the magnitudes of the terms from its matrices */
        eval(C, k, q, qd, qdd, v, &oc);
        eval(C, 0, q, qd, qdd, v, &om);
        eval(C, 3, q, qd, qdd, v, &ok3);
        nnear += !near_ref(&oa, &oc, &om, &ok3, nd, q, qd, v);
    }
    CHECK(nnear == 0, "the fast path differs from the reference in %d of %d steps", nnear, ncmp);
    /* 3. fmb_beam_hermite_all (the slider's four derivative orders at once) equals the four
     * fmb_beam_hermite calls to rounding, inside and just outside the mesh */
    const fmb_beam_t *bm = A->data;
    int nh = 0;
    for (int k = 0; k <= 60; k++) {
        const double xs = -0.01 + (x[NN - 1] + 0.02) * k / 60.0;
        const int e = fmb_beam_element_at(bm, xs);
        double H[4][4], Hd[4][4];
        fmb_beam_hermite_all(bm, e, xs, H);
        const double l = bm->x[e + 1] - bm->x[e];
        int off = 0;
        for (int dd = 0; dd < 4; dd++) {
            fmb_beam_hermite(bm, e, xs, dd, Hd[dd]);
            const double md = 24.0 * (1.0 + l) / pow(l, dd);
            for (int i = 0; i < 4; i++)
                off |= !near_tol(H[dd][i], Hd[dd][i], near_bound(8, md));
        }
        nh += off;
    }
    CHECK(nh == 0, "fmb_beam_hermite_all differs from fmb_beam_hermite at %d of 61 points", nh);
    /* 4. shared element matrices */
    enum { NU = 301 };
    static double xu[NU];
    for (int i = 0; i < NU; i++)
        xu[i] = 0.6 * i / (NU - 1);
    d.name = "u", d.nnodes = NU, d.x = xu;
    const int bu = fmb_model_add_beam(m, &d);
    CHECK(bu > 0, "add_beam (uniform): %s", fmb_model_last_error(m));
    if (bu <= 0) return 1;
    const fmb_beam_t *bmu = m->bodies[bu].data;
    CHECK(bm->nmat == NN - 1, "non-uniform mesh: %d sets for %d elements", bm->nmat, NN - 1);
    CHECK(bmu->nmat > 1 && bmu->nmat < NU - 1, "uniform mesh: %d sets for %d elements", bmu->nmat,
          NU - 1);
    int nbad = 0;
    double kerr = 0.0;
    for (int e = 0; e + 1 < NU; e++) {
        fmb_beam_elem_t el;
        double me[36], sb[36];
        fmb_beam_element_inertia(bmu, e, &el, me, sb);
        nbad += memcmp(me, fmb_beam_me(bmu, e), sizeof me) != 0;
        nbad += memcmp(sb, fmb_beam_sb(bmu, e), sizeof sb) != 0;
        const double l = xu[e + 1] - xu[e], ea = d.E * d.area / l,
                     ei = d.E * d.inertia / (l * l * l);
        const double *k = fmb_beam_ke(bmu, e);
        const double ref[5] = {ea, 12 * ei, 6 * l * ei, 4 * l * l * ei, 2 * l * l * ei};
        const double got[5] = {k[0], k[1 + 6], k[1 + 12], k[2 + 12], k[2 + 30]};
        for (int i = 0; i < 5; i++)
            kerr = fmax(kerr, fabs(got[i] - ref[i]) / ref[i]);
    }
    CHECK(nbad == 0, "%d shared Mff/Sbar differ from the element's own", nbad);
    CHECK(kerr < 1e-14, "shared k_e off the analytic one by %.3g relative", kerr);
    printf("uniform mesh: %d element matrix sets for %d elements, k_e within %.2g\n", bmu->nmat,
           NU - 1, kerr);
    printf("%d cached evaluations compared with cold ones and with the reference: %s\n", ncmp,
           failures ? "FAILED" : "passed");
    fmb_model_destroy(&m);
    return failures ? 1 : 0;
}
