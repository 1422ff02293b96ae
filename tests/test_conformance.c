/*
 * Shared conformance test for every body, joint and force class (in the spirit of
 * SUNDIALS' test_sunlinsol): each class is exercised through its function table only,
 * at random states and with every kind of body it accepts (rigid, beam, ground),
 * against central finite differences:
 *   joints: Phi_q against dPhi/dq; sum_k w_k d2Phi_k/dq2 against d(Phi_q^T w)/dq;
 *           Phi_t, Phi_tt against d/dt;
 *   forces: dQ/dq and dQ/dqd against differences of Q; Q = -dV/dq for the conservative
 *           part; the reported power against (Q - Q_conservative) . qd;
 *   bodies (beams with linear and nonlinear geometry): mass matrix independent of
 *           theta; dQ/dq, dQ/dqd, d(M qdd)/dq against
 *           differences; the quadratic velocity vector against Lagrange's equations
 *           built from finite differences of M (Q_v = -(Mdot qd - 1/2 d(qd^T M qd)/dq));
 *           gravity and strain forces against -dV/dq; the iteration-matrix list
 *           (tangent_add, when the class has one) term by term against the mass and the
 *           differences, combined against the analytic tangents (checked to fail with one
 *           sign of the rigid list's damping term flipped: 0.6).
 * The slider on an elastic guide is also checked across an element end: Phi and the
 * first Jacobian row are continuous there (Hermite C1 interpolation).
 * A class with a fast path is checked through its reference table too (the revolute
 * joint's fmb_revolute_reference_class, joints/revolute.c, the weld's
 * fmb_weld_reference_class, joints/weld.c, the slider_beam's table without its memo,
 * fmb_slider_beam_reference_class, and the beam's fmb_beam_reference_class, bodies/beam.c,
 * linear and nonlinear; none of them in the registry). Checked
 * to fail: revolute.c's body-1 Hessian at w instead of -w fails 24 of the reference's 32
 * Hessian checks (the 8 others have ground as body 1); revolute_fast.c's rigid J entry j5
 * with its second term's sign flipped fails the registered class on every pairing with a
 * rigid body (Phi_q and Hessian); weld.c's body-1 Hessian at w instead of -w fails 12 of
 * the weld reference's 16 Hessian checks (the 4 others have ground as body 1); the
 * slider_beam reference evaluated at one stale place (the first searched) fails its Phi_q
 * and Hessian checks (4 of 6); the reference beam's inertia force without its thd^2 pU
 * term (beam_inertia.c fmb_beam_inertia_q) fails its dQ/dq, dQ/dqd and Lagrange checks in
 * all 8 reference runs (24 failures; the registered class passes).
 * Joints, forces and switching elements return column-compressed blocks on their
 * element columns (model.h: v[b].cols); the test scatters them into the dense two-body
 * block and differentiates over EVERY body coordinate, so a nonzero outside the declared
 * columns fails, and checks that the columns are fewer than a beam's coordinates.
 * Usage: test_conformance joints|forces|bodies|slider
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "contact/friction.h"
#include "flexmb/flexmb.h"
#include "forces/forces.h"
#include "joints/revolute_fast.h"
#include "joints/slider_beam.h"
#include "joints/weld_fast.h"
#include "model/model.h"

#define EPS 1e-6
static int failures = 0;

static double urand(double a, double b)
{
    return a + (b - a) * (rand() / (double)RAND_MAX);
}

/* Normwise relative error max|a - b| / max(max|b|, floor) <= tol. The floor is the size
 * below which b cannot be trusted, derived by the caller from the problem's own scale (no
 * fixed absolute floor: an entry set of size 1e-3 is checked to tol relative, not to an
 * absolute tol): for a central difference with step h of a function of size fscale,
 * rounding alone leaves about eps * fscale / h in every quotient, so fd_floor() returns
 * 10 eps fscale / (h tol): below it the check becomes |a - b| <= 10 eps fscale / h, the
 * resolution of the difference itself. Identities computed two ways pass the size of the
 * terms they sum (cancellation) or 0. */
static double fd_floor(double fscale, double h, double tol)
{
    return 10.0 * DBL_EPSILON * fscale / (h * tol);
}

static double vmax(const double *v, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

static void check_close(const char *what, const char *cls, const double *a, const double *b, int n,
                        double tol, double floor)
{
    double err = 0.0, scale = floor;
    for (int i = 0; i < n; i++) {
        err = fmax(err, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    double rel = err == 0.0 ? 0.0 : err / scale;
    if (!(rel <= tol)) {
        printf("FAIL %-22s %-28s rel. error %.3e > %.1e\n", cls, what, rel, tol);
        failures++;
    } else {
        printf("ok   %-22s %-28s rel. error %.3e\n", cls, what, rel);
    }
}

enum kind { RIGID, BEAM, GROUND };
static const char *kind_name[] = {"rigid", "beam", "ground"};

/* A model with up to two bodies of the given kinds and random states. */
typedef struct rig {
    fmb_model_t *m;
    int body[2];
    int nq;
    double *q, *qd;
} rig_t;

/* geometry of the beams add_kind builds (bodies are tested with both) */
static fmb_beam_geometry beam_geometry = FMB_BEAM_LINEAR;

static int add_kind(fmb_model_t *m, enum kind k, const char *name)
{
    if (k == GROUND) return FMB_GROUND;
    if (k == RIGID) {
        fmb_body_desc_t d = {.name = name,
                             .mass = urand(0.5, 2),
                             .inertia = urand(0.01, 0.1),
                             .com = {urand(-0.3, 0.3), urand(-0.3, 0.3)}};
        return fmb_model_add_body(m, &d);
    }
    double x[6] = {0, 0.2, 0.35, 0.6, 0.8, 1.0};
    fmb_beam_desc_t d = {.name = name,
                         .E = 2e5, /* inertia and strain terms of similar size */
                         .rho = 7800,
                         .area = 1e-4,
                         .inertia = 1e-9,
                         .nnodes = 6,
                         .x = x,
                         .reference = rand() % 2 ? FMB_BEAM_SIMPLY_SUPPORTED : FMB_BEAM_CANTILEVER,
                         .rotary_inertia = rand() % 2,
                         .damping_alpha = 0.3,
                         .damping_beta = 1e-3,
                         .geometry = beam_geometry};
    return fmb_model_add_beam(m, &d);
}

static void rig_init(rig_t *r, enum kind k0, enum kind k1)
{
    r->m = fmb_model_create();
    fmb_model_set_param(r->m, "w", 3.0);
    fmb_model_set_gravity(r->m, 0.3, -9.81);
    r->body[0] = add_kind(r->m, k0, "b1");
    r->body[1] = add_kind(r->m, k1, "b2");
    r->nq = fmb_model_num_coords(r->m);
    r->q = malloc((size_t)(r->nq + 1) * sizeof *r->q);
    r->qd = malloc((size_t)(r->nq + 1) * sizeof *r->qd);
    for (int i = 0; i < r->nq; i++) {
        r->q[i] = urand(-1, 1), r->qd[i] = urand(-2, 2);
    }
    /* elastic coordinates small, as in use */
    for (int b = 0; b < 2; b++)
        if (r->body[b] > 0 && fmb_model_body_is_beam(r->m, r->body[b])) {
            int o = fmb_model_body_offset(r->m, r->body[b]),
                n = fmb_model_body_ndof(r->m, r->body[b]);
            for (int k = 3; k < n; k++)
                r->q[o + k] *= 0.02, r->qd[o + k] *= 0.1;
        }
}

static void rig_free(rig_t *r)
{
    fmb_model_destroy(&r->m);
    free(r->q), free(r->qd);
}

static void views(const rig_t *r, const int body[2], const double *q, const double *qd,
                  fmb_bodyview_t v[2])
{
    v[0] = fmb_model_view(r->m, body[0], q, qd);
    v[1] = fmb_model_view(r->m, body[1], q, qd);
}

/* local dof k of a two-body block -> global index (ground: -1) */
static int gl(const rig_t *r, const int body[2], int n0, int k)
{
    const fmb_body_t *b = &r->m->bodies[k < n0 ? body[0] : body[1]];
    return b->offset < 0 ? -1 : b->offset + (k < n0 ? k : k - n0);
}

/* Dense index (two-body block, nn = ndof0 + ndof1) of local element column k. */
static int dense_index(const fmb_bodyview_t v[2], int k)
{
    const int b = k >= v[0].nc;
    return (b ? v[0].ndof : 0) + v[b].cols[b ? k - v[0].nc : k];
}

/* The element columns are valid (ascending, rigid first, inside the body) and, on a beam,
 * fewer than its coordinates (the point of the compressed form). */
static void check_columns(const fmb_bodyview_t v[2], const char *cls)
{
    double bad = 0.0;
    for (int b = 0; b < 2; b++) {
        if (!v[b].ndof) {
            bad += v[b].nc != 0;
            continue;
        }
        bad += v[b].nc < 3 || v[b].nc > FMB_VIEW_COLS || v[b].nc >= v[b].ndof + 1;
        for (int k = 0; k < v[b].nc; k++) {
            bad += k < 3 && v[b].cols[k] != k;
            bad += k > 0 && v[b].cols[k] <= v[b].cols[k - 1];
            bad += v[b].cols[k] >= v[b].ndof;
        }
        if (v[b].ndof > 3 && v[b].body->klass->shape) bad += v[b].nc >= v[b].ndof;
    }
    const double zero = 0.0;
    check_close("element columns", cls, &bad, &zero, 1, 0, 0.0);
}

/* Phi and the dense Jacobian (nr x nn) of a joint at q. */
static void joint_dense(const rig_t *r, const fmb_joint_t *j, const double *q, double t,
                        double *phi, double *Jd, int nn)
{
    fmb_bodyview_t v[2];
    fmb_joint_views(r->m, j, q, r->qd, v);
    const int nr = j->klass->nrows;
    double Jc[2][8 * FMB_VIEW_COLS];
    memset(Jc, 0, sizeof Jc);
    j->klass->eval(j, v, t, phi, Jc[0], Jc[1]);
    memset(Jd, 0, (size_t)nr * nn * sizeof *Jd);
    for (int k = 0; k < v[0].nc + v[1].nc; k++) {
        const int b = k >= v[0].nc, kk = b ? k - v[0].nc : k;
        for (int rr = 0; rr < nr; rr++)
            Jd[rr + nr * dense_index(v, k)] = Jc[b][rr + nr * kk];
    }
}

/* Jacobian and Hessian of a joint at the rig's state; returns the number of checks run. */
static void joint_checks(rig_t *r, const fmb_joint_t *j, const char *cls, double t)
{
    const fmb_joint_class_t *k = j->klass;
    fmb_bodyview_t v[2];
    fmb_joint_views(r->m, j, r->q, r->qd, v);
    check_columns(v, cls);
    const int nr = k->nrows, n0 = v[0].ndof, nn = n0 + v[1].ndof, nl = v[0].nc + v[1].nc;
    double *Ja = calloc((size_t)nr * nn + 1, sizeof(double));
    double *Jf = calloc((size_t)nr * nn + 1, sizeof(double));
    double *H = calloc((size_t)nn * nn + 1, sizeof(double));
    double *Hf = calloc((size_t)nn * nn + 1, sizeof(double));
    double *qp = malloc((size_t)r->nq * sizeof(double)),
           *qm = malloc((size_t)r->nq * sizeof(double));
    double *Jp = calloc((size_t)nr * nn + 1, sizeof(double));
    double *Jm = calloc((size_t)nr * nn + 1, sizeof(double));
    double phi[8], pp[8], pm[8], w[8], fs_phi = 0.0, fs_w = 0.0;
    double Hc[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0};
    joint_dense(r, j, r->q, t, phi, Ja, nn);
    fs_phi = vmax(phi, nr);
    for (int rr = 0; rr < nr; rr++)
        w[rr] = urand(-1, 1);
    k->hess(j, v, t, w, Hc);
    if (k->hess_kind == FMB_HESS_POINTS) /* the assembler keeps only the stated entries: */
        for (int c = 0; c < nl; c++)     /* the finite differences must have no others */
            for (int a = 0; a < nl; a++) {
                const int bc = c >= v[0].nc, ba = a >= v[0].nc;
                const int lc = bc ? c - v[0].nc : c, la = ba ? a - v[0].nc : a;
                if (ba != bc || (lc != 2 && la != 2)) Hc[a + nl * c] = 0.0;
            }
    for (int c = 0; c < nl; c++) /* compressed -> dense two-body block */
        for (int a = 0; a < nl; a++)
            H[dense_index(v, a) + nn * dense_index(v, c)] = Hc[a + nl * c];
    for (int c = 0; c < nn; c++) {
        memcpy(qp, r->q, (size_t)r->nq * sizeof(double));
        memcpy(qm, r->q, (size_t)r->nq * sizeof(double));
        int g = gl(r, j->body, n0, c);
        qp[g] += EPS, qm[g] -= EPS;
        joint_dense(r, j, qp, t, pp, Jp, nn);
        joint_dense(r, j, qm, t, pm, Jm, nn);
        for (int rr = 0; rr < nr; rr++)
            Jf[rr + nr * c] = (pp[rr] - pm[rr]) / (2 * EPS);
        fs_phi = fmax(fs_phi, fmax(vmax(pp, nr), vmax(pm, nr)));
        for (int a = 0; a < nn; a++) {
            double sp = 0, sm = 0;
            for (int rr = 0; rr < nr; rr++) {
                sp += Jp[rr + nr * a] * w[rr];
                sm += Jm[rr + nr * a] * w[rr];
            }
            Hf[a + nn * c] = (sp - sm) / (2 * EPS);
            fs_w = fmax(fs_w, fmax(fabs(sp), fabs(sm)));
        }
    }
    check_close("Phi_q", cls, Ja, Jf, nr * nn, 1e-7, fd_floor(fs_phi, EPS, 1e-7));
    check_close("d2Phi/dq2 . w", cls, H, Hf, nn * nn, 1e-7, fd_floor(fs_w, EPS, 1e-7));
    if (k->time) {
        double pt[8], ptt[8], p0[8], ft[8], ftt[8], pp2[8], pm2[8];
        k->time(j, t, pt, ptt);
        /* central differences with steps et and et/2 combined by Richardson extrapolation
         * (truncation O(et^4); with O(et^2) alone, et^2/6 times the third derivative, about
         * 1e-8, was 3e-7 of a small Phi_t, which the former absolute floor of 1 hid) */
        const double et = 1e-4;
        k->eval(j, v, t + et, pp, NULL, NULL);
        k->eval(j, v, t - et, pm, NULL, NULL);
        k->eval(j, v, t + et / 2, pp2, NULL, NULL);
        k->eval(j, v, t - et / 2, pm2, NULL, NULL);
        k->eval(j, v, t, p0, NULL, NULL);
        for (int rr = 0; rr < nr; rr++) {
            const double d1 = (pp[rr] - pm[rr]) / (2 * et), d1h = (pp2[rr] - pm2[rr]) / et;
            const double d2 = (pp[rr] - 2 * p0[rr] + pm[rr]) / (et * et),
                         d2h = (pp2[rr] - 2 * p0[rr] + pm2[rr]) / (et * et / 4);
            ft[rr] = (4 * d1h - d1) / 3;
            ftt[rr] = (4 * d2h - d2) / 3;
        }
        const double fs = fmax(vmax(p0, nr), fmax(vmax(pp, nr), vmax(pm, nr)));
        /* rounding: (4/3)(1/(et/2)) + (1/3)(1/et) < 3/et times eps fs for Phi_t, and
         * (4/3)(16/et^2) + (1/3)(4/et^2) < 24/et^2 for Phi_tt */
        check_close("Phi_t", cls, pt, ft, nr, 1e-7, fd_floor(3 * fs, et, 1e-7));
        check_close("Phi_tt", cls, ptt, ftt, nr, 1e-5, fd_floor(24 * fs / et, et, 1e-5));
    }
    free(Ja), free(Jf), free(Jp), free(Jm), free(H), free(Hf), free(qp), free(qm);
}

/* The body rules come from the class (fmb_joint_class_t.bodies, distinct), which
 * fmb_model_add_joint enforces: a combination they refuse must be refused by the model
 * (checked in test_joint); two grounds give nothing to differentiate. */
static int joint_accepts(const fmb_joint_class_t *k, enum kind k0, enum kind k1)
{
    static const unsigned bit[3] = {[RIGID] = FMB_BODY_RIGID,
                                    [BEAM] = FMB_BODY_BEAM,
                                    [GROUND] = FMB_BODY_GROUND};
    const int same = k0 == GROUND && k1 == GROUND;
    return (!k->bodies[0] || (k->bodies[0] & bit[k0])) &&
           (!k->bodies[1] || (k->bodies[1] & bit[k1])) && !(k->distinct && same);
}

/* The class's own keys, by its table: every required number or vector a random value within
 * its bounds (between lo and lo + 1, or -1 and 1 without a lower bound; below hi), every
 * enumeration stored as a double a random choice. A new class needs no entry here. */
static void random_params(const fmb_param_t *params, void *desc)
{
    for (const fmb_param_t *p = params; p && p->kind != FMB_PARAM_END; p++) {
        double *x = (double *)(void *)((char *)desc + p->offset);
        if (p->kind == FMB_PARAM_ENUM && (p->flags & FMB_PARAM_IN_DOUBLE)) {
            int n = 0;
            while (p->choices[n]) n++;
            const int c = rand() % n;
            *x = p->values ? p->values[c] : c;
            continue;
        }
        if (!(p->flags & FMB_PARAM_REQUIRED) ||
            (p->kind != FMB_PARAM_NUMBER && p->kind != FMB_PARAM_VECTOR))
            continue;
        const int bounded = (p->flags & (FMB_PARAM_MIN | FMB_PARAM_MIN_OPEN)) != 0;
        const double lo = bounded ? p->lo : -1.0;
        double hi = bounded ? p->lo + 1.0 : 1.0;
        if (p->flags & (FMB_PARAM_MAX | FMB_PARAM_MAX_OPEN)) hi = fmin(hi, p->hi);
        for (int i = 0; i < (p->kind == FMB_PARAM_VECTOR ? p->n : 1); i++)
            x[i] = urand(lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo));
    }
}

/* Put the slider's point at axial position x of the guide (s = B p0 - rbar1). */
static void place_slider(rig_t *r, const fmb_joint_t *j, double x, double y)
{
    double *q0 = r->q + fmb_model_body_offset(r->m, j->body[0]);
    const double *q1 = r->q + fmb_model_body_offset(r->m, j->body[1]);
    double B[4];
    fmb_rot(q0[2] - q1[2], B);
    double s[2] = {x + q1[0], y + q1[1]}; /* B p0 = s + rbar1 */
    double p0[2] = {B[0] * s[0] + B[1] * s[1], B[2] * s[0] + B[3] * s[1]};
    q0[0] = p0[0] - j->point[0][0];
    q0[1] = p0[1] - j->point[0][1];
}

/* The registered class of type; as non-NULL: the joint evaluated through the table as
 * instead (a reference class outside the registry, with the type's rules). */
static void test_joint(const char *type, enum kind k0, enum kind k1, const fmb_joint_class_t *as)
{
    const fmb_joint_class_t *k = fmb_joint_class_named(type);
    rig_t r;
    if (!joint_accepts(k, k0, k1)) {
        /* the model refuses what the class's rules refuse */
        rig_init(&r, k0, k1);
        fmb_joint_desc_t d = {.name = "j", .type = type, .body = {r.body[0], r.body[1]},
                              .expr = "t"};
        if (fmb_model_add_joint(r.m, &d) >= 0) {
            printf("FAIL %s/%s-%s: accepted against the class's body rules\n", type,
                   kind_name[k0], kind_name[k1]);
            failures++;
        }
        rig_free(&r);
        return;
    }
    if (k0 == GROUND && k1 == GROUND) return;
    rig_init(&r, k0, k1);
    fmb_joint_desc_t d = {
        .name = "j",
        .type = type,
        .body = {r.body[0], r.body[1]},
        .point = {{urand(-0.5, 0.5), urand(-0.5, 0.5)}, {urand(0.05, 0.95), urand(-0.05, 0.05)}},
        .axis = {urand(0.2, 1), urand(-1, 1)},
        .angle = urand(-1, 1),
        .expr = "0.3*sin(w*t) + 0.1*t^2"};
    random_params(k->params, &d);
    int ij = fmb_model_add_joint(r.m, &d);
    char cls[64];
    snprintf(cls, sizeof cls, "%s%s/%s-%s", type, as ? " (reference)" : "", kind_name[k0],
             kind_name[k1]);
    if (ij < 0) {
        printf("FAIL %s: cannot add: %s\n", cls, fmb_model_last_error(r.m));
        failures++;
        rig_free(&r);
        return;
    }
    if (as) r.m->joints[ij].klass = as;
    const fmb_joint_t *j = &r.m->joints[ij];
    if (!strcmp(type, "slider_beam")) {
        /* inside an element (x = 0.27 lies in [0.2, 0.35]) */
        place_slider(&r, j, urand(0.22, 0.33), 0.01);
    }
    joint_checks(&r, j, cls, urand(0, 1));
    rig_free(&r);
}

/* Slider across an element end: Phi and the first Jacobian row are continuous. */
static void test_slider_crossing(void)
{
    rig_t r;
    rig_init(&r, RIGID, BEAM);
    fmb_joint_desc_t d = {.name = "s", .type = "slider_beam", .body = {1, 2}};
    int ij = fmb_model_add_joint(r.m, &d);
    const fmb_joint_t *j = &r.m->joints[ij];
    const double xn = 0.35, dx = 1e-9;
    double phi[2][2];
    const int n0 = 3, n1 = fmb_model_body_ndof(r.m, 2), nn = n0 + n1;
    double *Jd[2], q0[2][3];
    const int off0 = fmb_model_body_offset(r.m, 1);
    for (int side = 0; side < 2; side++) {
        place_slider(&r, j, side ? xn + dx : xn - dx, 0.01);
        memcpy(q0[side], r.q + off0, sizeof q0[side]);
        Jd[side] = calloc(2 * (size_t)nn, sizeof(double)); /* dense: slider then guide */
        joint_dense(&r, j, r.q, 0.0, phi[side], Jd[side], nn);
    }
    /* continuous: the two sides differ by what the slider's move changes, J0 (q0+ - q0-)
     * to first order (with either side's Jacobian: Phi_2 = ... - v'(x) is only C0 in x,
     * v'' jumps), far below a jump; that change is the floor */
    double moved = 0.0;
    for (int side = 0; side < 2; side++)
        for (int rr = 0; rr < 2; rr++) {
            double dphi = 0.0;
            for (int k = 0; k < n0; k++)
                dphi += Jd[side][rr + 2 * k] * (q0[1][k] - q0[0][k]);
            moved = fmax(moved, fabs(dphi));
        }
    /* (twice the first-order change: the two agree to rounding, a jump is ~1e-3) */
    check_close("Phi across element end", "slider_beam", phi[1], phi[0], 2, 1e-8, 2 * moved / 1e-8);
    double r1[2][32];
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < nn && k < 32; k++)
            r1[side][k] = Jd[side][2 * k];
    int nc = nn < 32 ? nn : 32;
    check_close("dPhi_1/dq across end", "slider_beam", r1[1], r1[0], nc, 1e-7, 0.0);
    for (int side = 0; side < 2; side++)
        free(Jd[side]);
    rig_free(&r);
}

/* The guide bent into a circular arc of radius R (large rotations: up to L/R rad), exactly
 * through its reference conditions, plus a small random perturbation: nodal u, v, phi of the
 * arc's material point xi = x0 at arc length x0 (cantilever: clamped at the first node;
 * simply supported: both ends on the body x axis). */
static void bend_guide(rig_t *r, int body, double R, double noise)
{
    const fmb_beam_t *bm = r->m->bodies[body].data;
    double *q = r->q + fmb_model_body_offset(r->m, body);
    const double L = bm->x[bm->nnodes - 1] - bm->x[0];
    const int cant = bm->reference == FMB_BEAM_CANTILEVER;
    const double al = L / (2 * R), c = 2 * R * sin(al);
    for (int k = 0; k < bm->nnodes; k++) {
        const double xi = bm->x[k] - bm->x[0];
        double x, y, ph;
        if (cant)
            x = R * sin(xi / R), y = R * (1 - cos(xi / R)), ph = xi / R;
        else {
            const double th = al - xi / R;
            x = c / 2 - R * sin(th), y = R * cos(th) - R * cos(al), ph = th;
        }
        const double val[3] = {x - xi, y, ph};
        for (int d = 0; d < 3; d++)
            if (bm->dof[3 * k + d] >= 0) q[bm->dof[3 * k + d]] = val[d] + noise * urand(-1, 1);
    }
}

/* The guide's node k in its body frame (deformed). */
static void guide_node(const rig_t *r, int body, int k, double p[2])
{
    const fmb_beam_t *bm = r->m->bodies[body].data;
    const double *q = r->q + fmb_model_body_offset(r->m, body);
    const int *d = bm->dof + 3 * k;
    p[0] = bm->x[k] + (d[0] >= 0 ? q[d[0]] : 0.0);
    p[1] = d[1] >= 0 ? q[d[1]] : 0.0;
}

/* The slider on guides bent far beyond the linear range (linear and nonlinear geometry):
 * the Jacobian and the Hessian against finite differences with the slider inside an
 * element, and just on either side of an element end (1e-4 m from it: the differences stay
 * inside one element, whose Jacobian only is C0 at the end); Phi continuous across the end,
 * with the slider on the curve (at the deformed node) and 1 cm off it. */
static void test_slider_bent(fmb_beam_geometry geo)
{
    const char *gname = geo == FMB_BEAM_NONLINEAR ? "nonlinear" : "linear";
    for (int where = 0; where < 3; where++) {
        beam_geometry = geo;
        rig_t r;
        rig_init(&r, RIGID, BEAM);
        beam_geometry = FMB_BEAM_LINEAR;
        bend_guide(&r, r.body[1], 1.2, 1e-3);
        fmb_joint_desc_t d = {.name = "j",
                              .type = "slider_beam",
                              .body = {r.body[0], r.body[1]},
                              .point = {{urand(-0.5, 0.5), urand(-0.5, 0.5)}, {0, 0}},
                              .angle = urand(-1, 1)};
        const int ij = fmb_model_add_joint(r.m, &d);
        if (ij < 0) {
            printf("FAIL slider_beam/%s: cannot add: %s\n", gname, fmb_model_last_error(r.m));
            failures++;
            rig_free(&r);
            continue;
        }
        const fmb_joint_t *j = &r.m->joints[ij];
        double pn[2], pa[2], pb[2];
        guide_node(&r, r.body[1], 2, pn); /* the end between elements 1 and 2 (x0 = 0.35) */
        guide_node(&r, r.body[1], 1, pa);
        guide_node(&r, r.body[1], 3, pb);
        double tg[2] = {pb[0] - pa[0], pb[1] - pa[1]};
        const double tl = hypot(tg[0], tg[1]);
        tg[0] /= tl, tg[1] /= tl;
        const double along = where == 0 ? -0.07 : where == 1 ? -1e-4 : 1e-4;
        place_slider(&r, j, pn[0] + along * tg[0] - 0.01 * tg[1],
                     pn[1] + along * tg[1] + 0.01 * tg[0]);
        char cls[64];
        snprintf(cls, sizeof cls, "slider_beam/%s bent %s", gname,
                 where == 0   ? "inside"
                 : where == 1 ? "end-"
                              : "end+");
        joint_checks(&r, j, cls, 0.0);
        if (where == 2) {
            const int n0 = 3, nn = n0 + fmb_model_body_ndof(r.m, r.body[1]);
            double *Jd = calloc(2 * (size_t)nn, sizeof(double));
            for (int off = 0; off < 2; off++) {
                double phi[2][2];
                for (int side = 0; side < 2; side++) {
                    const double a = side ? 1e-9 : -1e-9, o = off ? 0.01 : 0.0;
                    place_slider(&r, j, pn[0] + a * tg[0] - o * tg[1],
                                 pn[1] + a * tg[1] + o * tg[0]);
                    joint_dense(&r, j, r.q, 0.0, phi[side], Jd, nn);
                }
                /* the slider moved 2e-9 m: Phi may change by that much times its slope (< 10):
                 * 2e-8 at most (a jump between the elements' curves would be > 1e-6) */
                char what[64];
                snprintf(what, sizeof what, "Phi across end, %s", off ? "1 cm off" : "on curve");
                const double dd[2] = {phi[1][0] - phi[0][0], phi[1][1] - phi[0][1]};
                const double zero[2] = {0, 0};
                check_close(what, cls, dd, zero, 2, 1e-7, 2e-8 / 1e-7);
            }
            free(Jd);
        }
        rig_free(&r);
    }
}

static void force_Q(const rig_t *r, const fmb_force_t *f, const double *q, const double *qd,
                    double t, double *Q, int nn)
{
    fmb_bodyview_t v[2];
    fmb_force_views(r->m, f, q, qd, v);
    double Qc[2][FMB_VIEW_COLS] = {{0}};
    f->klass->eval(f, v, t, Qc[0], Qc[1], NULL, NULL);
    memset(Q, 0, (size_t)nn * sizeof *Q);
    for (int k = 0; k < v[0].nc + v[1].nc; k++) {
        const int b = k >= v[0].nc;
        Q[dense_index(v, k)] = Qc[b][b ? k - v[0].nc : k];
    }
}

/* Switching elements (docs/switching.md): variant v selects the relative coordinate
 * (v / 4: rotation, direction) and, for a gap, the mode (v % 4: open, upper contact, lower
 * contact, Hunt-Crossley upper contact). Parameters before adding: */
static int is_switch(const fmb_force_class_t *k)
{
    return k->mode != NULL;
}

/* A class key by name (fmb_force_desc_set / _choose, as a program sets it). */
static void key(fmb_force_desc_t *d, const char *k, double x)
{
    if (fmb_force_desc_set(d, k, &x, 1)) {
        printf("FAIL %s: cannot set key '%s'\n", d->type, k);
        failures++;
    }
}

static void choose(fmb_force_desc_t *d, const char *k, const char *choice)
{
    if (fmb_force_desc_choose(d, k, choice)) {
        printf("FAIL %s: cannot set key '%s' to '%s'\n", d->type, k, choice);
        failures++;
    }
}

static void switch_desc(fmb_force_desc_t *d, int v)
{
    d->coordinate = !strcmp(d->type, "screw") || v / 4 ? FMB_REL_DIRECTION : FMB_REL_ROTATION;
    const double a = urand(-3, 3);
    d->axis[0] = cos(a), d->axis[1] = sin(a);
    d->damping = 2;
    if (!strcmp(d->type, "gap")) {
        const double limits[2] = {-1e3, 1e3};
        if (fmb_force_desc_set(d, "limits", limits, 2)) failures++;
        if (v % 4 == 3) choose(d, "law", "hunt_crossley"), key(d, "exponent", 1.5);
    }
    if (!strcmp(d->type, "dry_friction")) {
        key(d, "static", 3), key(d, "kinetic", 2);
        if (v % 4 >= 2) { /* LuGre (v % 4 == 3: sigma1(v)) */
            choose(d, "model", "lugre");
            key(d, "sigma0", 1e3), key(d, "sigma1", 5), key(d, "sigma2", 0.3);
            key(d, "vs", 0.7), key(d, "gamma", 2), key(d, "vd", v % 4 == 3 ? 0.9 : 0.0);
        }
    }
    if (!strcmp(d->type, "ratchet")) key(d, "sense", v % 2 ? -1 : 1);
    if (!strcmp(d->type, "screw")) key(d, "lead", 0.005), key(d, "radius", 0.01), key(d, "mu", 0.2);
}

/* After adding: gap limits placed around the current x for the variant's mode; the mode
 * reported must be that one. */
static void switch_place(rig_t *r, fmb_force_t *f, int v, const char *cls)
{
    if (strcmp(f->klass->name, "gap")) return;
    fmb_bodyview_t w[2];
    views(r, f->body, r->q, r->qd, w);
    double x, xd, F, vr;
    fmb_rel_coord(f, w, &x, &xd, NULL, NULL);
    const int want[4] = {0, 2, 1, 2};
    f->par[FMB_SW_GAP_LO] = v % 4 == 2 ? x + 0.2 : x - 0.5;
    f->par[FMB_SW_GAP_HI] = v % 4 == 0 || v % 4 == 2 ? x + 0.5 : x - 0.2;
    if (v % 4 == 2) f->par[FMB_SW_GAP_HI] = x + 0.7;
    if (v % 4 == 3) f->c = 0.05; /* s/m: Hunt-Crossley 1 + c dd stays positive */
    const int mode = f->klass->mode(f, w, 0.0, NULL, &F, &vr);
    double got = mode, exp = want[v % 4];
    check_close("gap mode", cls, &got, &exp, 1, 0, 1.0);
}

/* LCP elements: the velocity row D against central differences of the independently
 * computed relative coordinate along qd (friction, ratchet: x; screw: the helix sliding
 * velocity sin(lambda) sdot + r cos(lambda) thetadot with s = e . (r_P1 - r_P0),
 * theta = theta0 - theta1), and the force columns G against +-D. */
static double switch_coord(const rig_t *r, const fmb_force_t *f, const double *q, double *th)
{
    fmb_bodyview_t w[2];
    views(r, f->body, q, NULL, w);
    double r0[2], r1[2];
    fmb_point_pos(&w[0], f->point[0], r0);
    fmb_point_pos(&w[1], f->point[1], r1);
    *th = fmb_body_angle(&w[0]) - fmb_body_angle(&w[1]);
    return f->axis[0] * (r0[0] - r1[0]) + f->axis[1] * (r0[1] - r1[1]);
}

static void switch_lcp_check(const rig_t *r, const fmb_force_t *f, const char *cls)
{
    const fmb_force_class_t *k = f->klass;
    if (!k->nz) return;
    fmb_bodyview_t w[2];
    fmb_force_views(r->m, f, r->q, r->qd, w);
    const int nn = w[0].nc + w[1].nc; /* compressed: G and D on the element's columns */
    double G[4 * FMB_ELEM_COLS], D[FMB_ELEM_COLS], av[4], Az[16], b[4];
    k->lcp(f, w, 0.0, 0.0, G, D, av, Az, b);
    double vD = 0.0;
    for (int c = 0; c < nn; c++)
        vD += D[c] * r->qd[fmb_elem_gidx(w, c)];
    double *qp = malloc((size_t)r->nq * sizeof *qp), *qm = malloc((size_t)r->nq * sizeof *qm);
    for (int i = 0; i < r->nq; i++)
        qp[i] = r->q[i] + EPS * r->qd[i], qm[i] = r->q[i] - EPS * r->qd[i];
    double tp, tm;
    const double xp = switch_coord(r, f, qp, &tp), xm = switch_coord(r, f, qm, &tm);
    double vf;
    if (!strcmp(f->klass->name, "screw")) {
        const double L = f->par[FMB_SW_SCREW_LEAD] / (2 * 3.14159265358979323846);
        const double rr = f->par[FMB_SW_SCREW_RADIUS], lam = atan(L / rr);
        vf = sin(lam) * (-(xp - xm) / (2 * EPS)) + rr * cos(lam) * (tp - tm) / (2 * EPS);
    } else {
        vf = f->coord == FMB_REL_ROTATION ? (tp - tm) / (2 * EPS) : (xp - xm) / (2 * EPS);
    }
    const double fsx = fmax(fmax(fabs(xp), fabs(xm)), fmax(fabs(tp), fabs(tm)));
    check_close("D . qd = d(coordinate)/dt", cls, &vD, &vf, 1, 1e-7, fd_floor(fsx, EPS, 1e-7));
    /* G: dry friction and screw [D, -D, 0], ratchet -sense D */
    const double s = !strcmp(f->klass->name, "ratchet") ? -f->par[FMB_SW_RATCHET_SENSE] : 1.0;
    double err = 0.0;
    for (int c = 0; c < nn; c++) {
        err = fmax(err, fabs(G[c] - s * D[c]));
        if (k->nz == 3) err = fmax(err, fabs(G[nn + c] + D[c]) + fabs(G[2 * nn + c]));
    }
    const double zero = 0.0;
    check_close("force columns G vs D", cls, &err, &zero, 1, 1e-15, vmax(D, nn));
    free(qp), free(qm);
}

static void test_force(const char *type, enum kind k0, enum kind k1, int variant)
{
    if (k0 == GROUND) return;
    rig_t r;
    rig_init(&r, k0, k1);
    fmb_force_desc_t d = {
        .name = "f",
        .type = type,
        .body = {r.body[0], r.body[1]},
        .point = {{urand(0.05, 0.95), urand(-0.05, 0.05)}, {urand(0.05, 0.95), urand(-0.05, 0.05)}},
        .expr = {"3*cos(w*t)", "-2+t"},
        .stiffness = 1000,
        .damping = 20,
        .rest_length = 0.4};
    if (!strcmp(type, "clearance")) /* set to the rig's state below (in contact) */
        d.clearance = (fmb_clearance_desc_t){.law = variant / 4 == 2   ? FMB_CLEARANCE_LINEAR
                                                    : variant / 4 ? FMB_CLEARANCE_LANKARANI
                                                                  : FMB_CLEARANCE_WANG2016,
                                             /* variant: law x damping (own, step, LN, Flores);
                                              * linear: clamped or not (its own damping) */
                                             .damping = variant / 4 == 2
                                                            ? FMB_CLEARANCE_DAMPING_DEFAULT
                                                            : (fmb_clearance_damping)(variant % 4),
                                             .unclamped = variant / 4 == 2 && variant % 2,
                                             .stiffness = variant / 4 == 2 ? 1000 : 0,
                                             .viscous = 300,
                                             .clearance = 0.01,
                                             .bearing_radius = 0.05,
                                             .length = 0.8,
                                             .modulus = 1000,
                                             .eta = 0.3,
                                             .d_max = 0.05,
                                             .exponent = 1.5,
                                             .restitution = 0.5,
                                             .v_min = 0.01,
                                             .mu_s = 0.3,
                                             .mu_d = 0.2,
                                             .v_s = 0.1,
                                             .v_d = 0.2};
    const int sw = is_switch(fmb_force_class_named(type));
    if (sw) switch_desc(&d, variant);
    int i = fmb_model_add_force(r.m, &d);
    char cls[64];
    snprintf(cls, sizeof cls, "%s/%s-%s%s%d", type, kind_name[k0], kind_name[k1], sw ? "/v" : "",
             sw ? variant : 0);
    if (i < 0) {
        printf("FAIL %s: cannot add: %s\n", cls, fmb_model_last_error(r.m));
        failures++;
        rig_free(&r);
        return;
    }
    fmb_force_t *f = &r.m->forces[i];
    if (sw) {
        switch_place(&r, &r.m->forces[i], variant, cls);
        switch_lcp_check(&r, f, cls);
    }
    const double t = urand(0, 1);
    fmb_bodyview_t v[2];
    views(&r, f->body, r.q, r.qd, v);
    if (!strcmp(type, "clearance")) {
        /* penetration inside the damping ramp or beyond it (d_max 0.05), slip velocity in
         * each friction regime (|v_T| < v_s, v_s..v_d, > v_d), impact velocity set: every
         * branch of the laws in contact; the geometry is scale-free, so a large penetration
         * keeps the difference quotients clean */
        double r0[2], r1[2], p0[2], p1[2];
        fmb_point_pos(&v[0], f->point[0], r0);
        fmb_point_pos(&v[1], f->point[1], r1);
        const double eps = hypot(r0[0] - r1[0], r0[1] - r1[1]);
        const double delta = fmin(rand() % 2 ? 0.02 : 0.09, eps / 3);
        const double nx = (r0[0] - r1[0]) / eps, ny = (r0[1] - r1[1]) / eps;
        f->clr.clearance = eps - delta;
        f->clr.bearing_radius = f->clr.clearance + 0.05;
        const double RJ = 0.05, RB = f->clr.bearing_radius;
        /* slip v_T with the material rotation rates at the centres (frame rate + a beam's
         * section rate): only picks the friction regime, the checks below are differences
         * of Q. The regimes' widths scale with max(|v_T|, 0.2 m/s): a cubic blend narrower
         * than that lets the central differences' truncation error (~EPS^2 / width^2 of
         * mu''') reach the tolerance (seen at |v_T| = 2.5e-3 m/s with a 2e-3 wide blend);
         * a slower slip then falls in the stick cubic, which is smooth */
        fmb_point_vel(&v[0], f->point[0], p0);
        fmb_point_vel(&v[1], f->point[1], p1);
        double w[2] = {0, 0};
        for (int b = 0; b < 2; b++)
            if (v[b].ndof >= 3) w[b] = fmb_point_rotrate(&v[b], f->point[b]);
        const double vt =
            fmax(fabs(-ny * (p0[0] - p1[0]) + nx * (p0[1] - p1[1]) + RJ * w[0] - RB * w[1]), 0.2);
        const double band[3][2] = {{2, 4}, {0.5, 2}, {0.1, 0.5}};
        const int reg = rand() % 3;
        f->clr.v_s = band[reg][0] * vt;
        f->clr.v_d = band[reg][1] * vt;
        f->state[1] = 1.7;
        static const char *const dn[] = {"own", "step", "LN", "flores"};
        static const char *const ln[] = {"wang", "LN", "linear"};
        snprintf(cls, sizeof cls, "clearance/%s-%s/%s-%s/f%d", ln[f->clr.law],
                 f->clr.law == FMB_CLEARANCE_LINEAR ? (f->clr.unclamped ? "unclamped" : "clamped")
                                                    : dn[f->clr.damping],
                 kind_name[k0], kind_name[k1], reg);
    }
    if (!strcmp(type, "dry_friction") && f->state) {
        /* LuGre: inside a step of 1 ms from a bristle state z_n (the Stribeck levels 2..3
         * over vs 0.7 with the rig's velocities of order 1 cover sliding and Stribeck) */
        f->state[0] = urand(-3e-3, 3e-3), f->state[1] = t - 1e-3, f->state[2] = urand(-1, 1);
        snprintf(cls + strlen(cls), sizeof cls - strlen(cls), "/lugre");
    }
    fmb_force_views(r.m, f, r.q, r.qd, v);
    check_columns(v, cls);
    const int n0 = v[0].ndof, nn = n0 + v[1].ndof, nl = v[0].nc + v[1].nc;
    const size_t nn2 = (size_t)nn * nn + 1;
    double Q0[FMB_VIEW_COLS] = {0}, Q1[FMB_VIEW_COLS] = {0};
    double Kc[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0}, Cc[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0};
    double *K = calloc(nn2, sizeof(double)), *C = calloc(nn2, sizeof(double));
    double *Kf = calloc(nn2, sizeof(double)), *Cf = calloc(nn2, sizeof(double));
    double *Qp = calloc((size_t)nn + 1, sizeof(double)),
           *Qm = calloc((size_t)nn + 1, sizeof(double));
    double *qp = malloc((size_t)r.nq * sizeof(double)), *qm = malloc((size_t)r.nq * sizeof(double));
    f->klass->eval(f, v, t, Q0, Q1, Kc, Cc);
    for (int c = 0; c < nl; c++) /* compressed -> dense two-body block */
        for (int a = 0; a < nl; a++) {
            K[dense_index(v, a) + nn * dense_index(v, c)] = Kc[a + nl * c];
            C[dense_index(v, a) + nn * dense_index(v, c)] = Cc[a + nl * c];
        }
    double fs_k = 0.0, fs_c = 0.0; /* size of the differenced Q (floors of the checks) */
    for (int c = 0; c < nn; c++) {
        int g = gl(&r, f->body, n0, c);
        memcpy(qp, r.q, (size_t)r.nq * sizeof(double)),
            memcpy(qm, r.q, (size_t)r.nq * sizeof(double));
        qp[g] += EPS, qm[g] -= EPS;
        force_Q(&r, f, qp, r.qd, t, Qp, nn);
        force_Q(&r, f, qm, r.qd, t, Qm, nn);
        for (int a = 0; a < nn; a++)
            Kf[a + nn * c] = (Qp[a] - Qm[a]) / (2 * EPS);
        fs_k = fmax(fs_k, fmax(vmax(Qp, nn), vmax(Qm, nn)));
        memcpy(qp, r.qd, (size_t)r.nq * sizeof(double)),
            memcpy(qm, r.qd, (size_t)r.nq * sizeof(double));
        qp[g] += EPS, qm[g] -= EPS;
        force_Q(&r, f, r.q, qp, t, Qp, nn);
        force_Q(&r, f, r.q, qm, t, Qm, nn);
        for (int a = 0; a < nn; a++)
            Cf[a + nn * c] = (Qp[a] - Qm[a]) / (2 * EPS);
        fs_c = fmax(fs_c, fmax(vmax(Qp, nn), vmax(Qm, nn)));
    }
    check_close("dQ/dq", cls, K, Kf, nn * nn, 1e-6, fd_floor(fs_k, EPS, 1e-6));
    check_close("dQ/dqd", cls, C, Cf, nn * nn, 1e-6, fd_floor(fs_c, EPS, 1e-6));
    double *zero = calloc((size_t)r.nq, sizeof(double)),
           *Qs = calloc((size_t)nn + 1, sizeof(double));
    double *Q = calloc((size_t)nn + 1, sizeof(double)),
           *gV = calloc((size_t)nn + 1, sizeof(double));
    if (f->klass->potential) {
        double fs_v = 0.0;
        force_Q(&r, f, r.q, zero, t, Qs, nn);
        for (int c = 0; c < nn; c++) {
            int g = gl(&r, f->body, n0, c);
            memcpy(qp, r.q, (size_t)r.nq * sizeof(double)),
                memcpy(qm, r.q, (size_t)r.nq * sizeof(double));
            qp[g] += EPS, qm[g] -= EPS;
            fmb_bodyview_t vp[2], vm[2];
            views(&r, f->body, qp, zero, vp);
            views(&r, f->body, qm, zero, vm);
            const double Vp = f->klass->potential(f, vp), Vm = f->klass->potential(f, vm);
            gV[c] = -(Vp - Vm) / (2 * EPS);
            fs_v = fmax(fs_v, fmax(fabs(Vp), fabs(Vm)));
        }
        check_close("Q = -dV/dq at rest", cls, Qs, gV, nn, 1e-7, fd_floor(fs_v, EPS, 1e-7));
    }
    if (f->klass->power) {
        double P = 0, Pabs = 0;
        force_Q(&r, f, r.q, r.qd, t, Q, nn);
        for (int c = 0; c < nn; c++) {
            const double term = (Q[c] - Qs[c]) * r.qd[gl(&r, f->body, n0, c)];
            P += term, Pabs += fabs(term) + fabs(Qs[c] * r.qd[gl(&r, f->body, n0, c)]);
        }
        double Pc = f->klass->power(f, v, t);
        /* an identity up to the rounding of the sum's terms */
        check_close("power", cls, &Pc, &P, 1, 1e-12, Pabs);
    }
    free(K), free(C), free(Kf), free(Cf), free(Qp), free(Qm), free(qp);
    free(qm), free(zero), free(Qs), free(Q), free(gV);
    rig_free(&r);
}

static void body_Q(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                   const double g[2], double *Q, double *Mqdd, double *M)
{
    const int n = b->ndof;
    memset(Q, 0, (size_t)n * sizeof *Q);
    b->klass->forces(b, q, qd, qdd, g, Q, NULL, NULL, NULL);
    b->klass->mass(b, q, M);
    for (int i = 0; i < n; i++) {
        Mqdd[i] = 0;
        for (int j = 0; j < n; j++)
            Mqdd[i] += M[i + n * j] * qdd[j];
    }
}

static void test_body(enum kind kind, const fmb_body_class_t *as)
{
    rig_t r;
    rig_init(&r, kind, GROUND);
    if (as) r.m->bodies[r.body[0]].klass = as; /* a reference table (not used by runs) */
    const fmb_body_t *b = &r.m->bodies[r.body[0]];
    const char *cls = b->klass->name;
    const double *g = r.m->g;
    const int n = b->ndof;
    const size_t n2 = (size_t)n * n;
    double *q = r.q, *qd = r.qd, *qdd = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        qdd[i] = urand(-5, 5);
    double *M1 = malloc(n2 * sizeof(double)), *M2 = malloc(n2 * sizeof(double));
    double *Mp = malloc(n2 * sizeof(double)), *Mm = malloc(n2 * sizeof(double));
    double *qq = malloc((size_t)n * sizeof(double)), *qm = malloc((size_t)n * sizeof(double));
    /* mass matrix independent of theta */
    b->klass->mass(b, q, M1);
    memcpy(qq, q, (size_t)n * sizeof(double));
    qq[2] += 1.234;
    b->klass->mass(b, qq, M2);
    check_close("M(theta) = M(theta+1.234)", cls, M2, M1, (int)n2, 1e-15, 0.0);
    if (b->klass->mass_times) { /* M v without forming M equals the formed M times v */
        double *mv = malloc((size_t)n * sizeof(double)), *Mv = calloc((size_t)n, sizeof(double));
        b->klass->mass_times(b, q, qdd, mv);
        double sabs = 0.0; /* size of the terms summed */
        for (int i = 0; i < n; i++) {
            double si = 0.0;
            for (int j = 0; j < n; j++)
                Mv[i] += M1[i + n * j] * qdd[j], si += fabs(M1[i + n * j] * qdd[j]);
            sabs = fmax(sabs, si);
        }
        check_close("mass_times = M v", cls, mv, Mv, n, 1e-13, sabs);
        free(mv), free(Mv);
    }
    /* tangents */
    double *Q = calloc((size_t)n, sizeof(double)), *Kq = calloc(n2, sizeof(double));
    double *Cq = calloc(n2, sizeof(double)), *Km = calloc(n2, sizeof(double));
    double *Kf = calloc(n2, sizeof(double)), *Cf = calloc(n2, sizeof(double));
    double *Kmf = calloc(n2, sizeof(double));
    double *Qp = malloc((size_t)n * sizeof(double)), *Qm = malloc((size_t)n * sizeof(double));
    double *Ap = malloc((size_t)n * sizeof(double)), *Am = malloc((size_t)n * sizeof(double));
    b->klass->forces(b, q, qd, qdd, g, Q, Kq, Cq, Km);
    double fs_q = 0.0, fs_qd = 0.0, fs_m = 0.0;
    for (int c = 0; c < n; c++) {
        memcpy(qq, q, (size_t)n * sizeof(double)), memcpy(qm, q, (size_t)n * sizeof(double));
        qq[c] += EPS, qm[c] -= EPS;
        body_Q(b, qq, qd, qdd, g, Qp, Ap, Mp);
        body_Q(b, qm, qd, qdd, g, Qm, Am, Mm);
        for (int a = 0; a < n; a++) {
            Kf[a + n * c] = (Qp[a] - Qm[a]) / (2 * EPS);
            Kmf[a + n * c] = (Ap[a] - Am[a]) / (2 * EPS);
        }
        fs_q = fmax(fs_q, fmax(vmax(Qp, n), vmax(Qm, n)));
        fs_m = fmax(fs_m, fmax(vmax(Ap, n), vmax(Am, n)));
        memcpy(qq, qd, (size_t)n * sizeof(double)), memcpy(qm, qd, (size_t)n * sizeof(double));
        qq[c] += EPS, qm[c] -= EPS;
        body_Q(b, q, qq, qdd, g, Qp, Ap, Mp);
        body_Q(b, q, qm, qdd, g, Qm, Am, Mm);
        for (int a = 0; a < n; a++)
            Cf[a + n * c] = (Qp[a] - Qm[a]) / (2 * EPS);
        fs_qd = fmax(fs_qd, fmax(vmax(Qp, n), vmax(Qm, n)));
    }
    check_close("dQ/dq", cls, Kq, Kf, (int)n2, 1e-7, fd_floor(fs_q, EPS, 1e-7));
    check_close("dQ/dqd", cls, Cq, Cf, (int)n2, 1e-7, fd_floor(fs_qd, EPS, 1e-7));
    check_close("d(M qdd)/dq", cls, Km, Kmf, (int)n2, 1e-7, fd_floor(fs_m, EPS, 1e-7));
    /* the class's iteration-matrix list (model.h tangent_pattern / tangent_add), scattered
     * here through its own pattern: each term alone against the finite differences above
     * (M against the class's mass), and a combination an integrator uses against the
     * class's analytic tangents to rounding */
    const int *Jp, *Ii;
    const int nz = b->klass->tangent_add ? b->klass->tangent_pattern(b, &Jp, &Ii) : 0;
    if (nz > 0) {
        double *X = malloc((size_t)nz * sizeof(double)), *L = malloc(n2 * sizeof(double));
        double *R = malloc(n2 * sizeof(double));
        int *pos = malloc((size_t)nz * sizeof(int));
        for (int e = 0; e < nz; e++)
            pos[e] = e;
        for (int t = 0; t < 5; t++) {
            static const double cfs[5][4] = {
                {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0.9, 2e-9, 3e-9, 5e-5}};
            const double *cf = cfs[t];
            memset(X, 0, (size_t)nz * sizeof(double)), memset(L, 0, n2 * sizeof(double));
            b->klass->tangent_add(b, q, qd, qdd, g, cf, pos, X);
            for (int j = 0; j < n; j++)
                for (int e = Jp[j]; e < Jp[j + 1]; e++)
                    L[Ii[e] + (size_t)n * j] += X[e];
            for (size_t z = 0; z < n2; z++) {
                const double ref[4] = {M1[z], Kmf[z], -Kf[z], -Cf[z]};
                R[z] =
                    t < 4 ? ref[t] : cf[0] * M1[z] + cf[1] * Km[z] - cf[2] * Kq[z] - cf[3] * Cq[z];
            }
            static const char *nm[5] = {"list M", "list d(M qdd)/dq vs FD", "list -dQ/dq vs FD",
                                        "list -dQ/dqd vs FD", "list combined"};
            const double fl[5] = {0.0, fd_floor(fs_m, EPS, 1e-7), fd_floor(fs_q, EPS, 1e-7),
                                  fd_floor(fs_qd, EPS, 1e-7), 0.0};
            check_close(nm[t], cls, L, R, (int)n2, t == 0 || t == 4 ? 1e-13 : 1e-7, fl[t]);
        }
        free(X), free(L), free(R), free(pos);
    }
    /* Quadratic velocity vector from Lagrange with gravity, strain and damping off:
     * Q_v = -(Mdot qd - 1/2 d(qd^T M qd)/dq), Mdot = sum_c dM/dq_c qd_c. The beam's
     * elastic and damping forces are removed by subtracting Q at q with U = 0... they
     * are linear in U, Ud, so evaluate Q(q, qd) - Q_elastic via a zero-gravity body and
     * the stiffness/damping matrices read from the tangents at zero velocity. */
    const double g0[2] = {0, 0};
    double *Qv = calloc((size_t)n, sizeof(double)), *Ql = calloc((size_t)n, sizeof(double));
    double *Kz = calloc(n2, sizeof(double)), *Cz = calloc(n2, sizeof(double));
    double *zero = calloc((size_t)n, sizeof(double)), *Qz = calloc((size_t)n, sizeof(double));
    b->klass->forces(b, q, qd, qdd, g0, Qv, NULL, NULL, NULL);
    /* strain + damping part: Q_e(q) - D Ud, with Q_e = Q(q, 0) at g = 0 (the strain
     * force, linear or not) and D read from dQ/dqd at zero velocity */
    {
        double *qdz = calloc((size_t)n, sizeof(double));
        b->klass->forces(b, q, qdz, qdd, g0, Qz, Kz, Cz, NULL);
        free(qdz);
        /* at qd = 0 and g = 0 the only force is the strain force, and dQ/dqd on the
         * elastic block is -D (the Coriolis part vanishes with thetadot) */
        for (int i = 0; i < n; i++) {
            Qv[i] -= Qz[i];
            for (int k = 3; k < n; k++)
                Qv[i] -= Cz[i + n * k] * qd[k];
        }
    }
    for (int c = 0; c < n; c++) {
        memcpy(qq, q, (size_t)n * sizeof(double)), memcpy(qm, q, (size_t)n * sizeof(double));
        qq[c] += EPS, qm[c] -= EPS;
        b->klass->mass(b, qq, Mp);
        b->klass->mass(b, qm, Mm);
        double dT = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double dM = (Mp[i + n * j] - Mm[i + n * j]) / (2 * EPS);
                Ql[i] -= dM * qd[j] * qd[c]; /* Mdot qd */
                dT += 0.5 * qd[i] * dM * qd[j];
            }
        Ql[c] += dT;
    }
    /* Ql sums n^2 difference quotients of M times qd^2; Qv is Q minus the strain and damping
     * parts (cancellation at the size of those) */
    const double fs_l = (double)n * vmax(M1, (int)n2) * vmax(qd, n) * vmax(qd, n),
                 fs_c = fmax(vmax(Qz, n), vmax(Cz, (int)n2) * vmax(qd, n));
    check_close("Q_v vs Lagrange", cls, Qv, Ql, n, 1e-7,
                fmax(fd_floor(fs_l, EPS, 1e-7), 10 * DBL_EPSILON * fs_c / 1e-7));
    /* conservative forces at rest: Q(q, 0) = -dV/dq (gravity and strain) */
    double *Qg = calloc((size_t)n, sizeof(double)), *gV = calloc((size_t)n, sizeof(double));
    b->klass->forces(b, q, zero, qdd, g, Qg, NULL, NULL, NULL);
    double fs_g = 0.0;
    for (int c = 0; c < n; c++) {
        memcpy(qq, q, (size_t)n * sizeof(double)), memcpy(qm, q, (size_t)n * sizeof(double));
        qq[c] += EPS, qm[c] -= EPS;
        const double Vp = b->klass->potential(b, qq, g), Vm = b->klass->potential(b, qm, g);
        gV[c] = -(Vp - Vm) / (2 * EPS);
        fs_g = fmax(fs_g, fmax(fabs(Vp), fabs(Vm)));
    }
    check_close("Q(q,0) = -dV/dq", cls, Qg, gV, n, 1e-7, fd_floor(fs_g, EPS, 1e-7));
    free(qdd), free(M1), free(M2), free(Mp), free(Mm), free(qq), free(qm), free(Q), free(Kq);
    free(Cq), free(Km), free(Kf), free(Cf), free(Kmf), free(Qp), free(Qm), free(Ap), free(Am);
    free(Qv), free(Ql), free(Kz), free(Cz), free(zero), free(Qz), free(Qg), free(gV);
    rig_free(&r);
}

/* LuGre with implicit bristles: d mu / dv (used in the Newton matrix) against central
 * differences of mu(v), over stick, Stribeck and slip speeds, with and without the
 * velocity-dependent bristle damping; and the steady state mu = g(v) sgn(v). */
static void test_lugre(void)
{
    fmb_friction_desc_t d = {.model = "lugre",
                             .a = 0.3,
                             .b = 0.1,
                             .mu = 0.56,
                             .mu0 = 0.75,
                             .sigma0 = 1.3e6,
                             .sigma1 = 350,
                             .sigma2 = 0.4,
                             .vs = 0.0009,
                             .gamma = 2};
    const double vs_[] = {-0.3, -2e-3, -4e-4, 3e-5, 7e-4, 1.5e-3, 0.05, 1.2};
    for (int variant = 0; variant < 2; variant++) {
        d.vd = variant ? 1e-3 : 0.0;
        double worst = 0.0;
        for (size_t i = 0; i < sizeof vs_ / sizeof vs_[0]; i++) {
            fmb_contact_t c = {.d = d, .z_n = urand(-5e-7, 5e-7)};
            const double h = urand(1e-5, 1e-3), v = vs_[i], dv = 1e-6 * fmax(fabs(v), 1e-4);
            fmb_lugre_update(&c, v + dv, h);
            const double mp = c.mu;
            fmb_lugre_update(&c, v - dv, h);
            const double mm = c.mu;
            fmb_lugre_update(&c, v, h);
            const double fd = (mp - mm) / (2 * dv);
            /* relative to fd, floored at what the difference resolves (rounding of mu) */
            const double fl = fd_floor(fmax(fabs(mp), fabs(mm)), dv, 1e-6);
            worst = fmax(worst, fabs(c.dmu - fd) / fmax(fabs(fd), fl));
        }
        const double zero = 0.0;
        /* worst is already a relative error: floor 1 makes this err <= 1e-6 */
        check_close(variant ? "d mu/dv (sigma1(v))" : "d mu/dv", "lugre", &worst, &zero, 1, 1e-6,
                    1.0);
    }
    /* steady sliding: z = g sgn(v) / sigma0 and mu = g(v) sgn(v) + sigma2 v */
    fmb_contact_t c = {.d = d};
    const double v = 0.2;
    c.z_n = fmb_lugre_g(&d, v) / d.sigma0;
    fmb_lugre_update(&c, v, 1e-3);
    const double expect = fmb_lugre_g(&d, v) + d.sigma2 * v;
    check_close("steady mu = g(v) + sigma2 v", "lugre", &c.mu, &expect, 1, 1e-12, 0.0);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(what, "all");
    srand(12345);
    const enum kind kinds[3] = {RIGID, BEAM, GROUND};
    for (int trial = 0; trial < 4; trial++) {
        if (all || !strcmp(what, "joints"))
            for (int t = 0; fmb_joint_class_at(t); t++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        test_joint(fmb_joint_class_at(t)->name, kinds[a], kinds[b], NULL);
        if (all || !strcmp(what, "forces"))
            for (int t = 0; fmb_force_class_at(t); t++) {
                const fmb_force_class_t *k = fmb_force_class_at(t);
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        for (int v = 0;
                             v < (!strcmp(k->name, "clearance") ? 12 : is_switch(k) ? 8 : 1); v++)
                            test_force(k->name, kinds[a], kinds[b], v);
            }
        if (all || !strcmp(what, "bodies")) {
            test_body(RIGID, NULL);
            test_body(BEAM, NULL);
            beam_geometry = FMB_BEAM_NONLINEAR;
            test_body(BEAM, NULL);
            beam_geometry = FMB_BEAM_LINEAR;
        }
        if (all || !strcmp(what, "slider")) {
            test_slider_crossing();
            test_slider_bent(FMB_BEAM_LINEAR);
            test_slider_bent(FMB_BEAM_NONLINEAR);
        }
        if (all || !strcmp(what, "friction")) test_lugre();
    }
    /* the reference evaluations beside fast paths (not registered), on the same checks */
    if (all || !strcmp(what, "joints"))
        for (int trial = 0; trial < 4; trial++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    test_joint("revolute", kinds[a], kinds[b], &fmb_revolute_reference_class);
    if (all || !strcmp(what, "joints"))
        for (int trial = 0; trial < 2; trial++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    test_joint("weld", kinds[a], kinds[b], &fmb_weld_reference_class);
    if (all || !strcmp(what, "joints"))
        for (int trial = 0; trial < 2; trial++)
            test_joint("slider_beam", RIGID, BEAM, &fmb_slider_beam_reference_class);
    if (all || !strcmp(what, "bodies"))
        for (int trial = 0; trial < 4; trial++) {
            test_body(BEAM, &fmb_beam_reference_class);
            beam_geometry = FMB_BEAM_NONLINEAR;
            test_body(BEAM, &fmb_beam_reference_class);
            beam_geometry = FMB_BEAM_LINEAR;
        }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
