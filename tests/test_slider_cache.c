/*
 * The slider on a beam takes its places from a memo (joints/slider_beam_memo.c: the last two
 * kept in the joint, keyed on the inputs: the rigid coordinates of both bodies, the slider
 * point and the guide coordinates that the centre line read, bodies/beam_curve.c). Whatever
 * the order of the calls, every function of the class of runs (fmb_slider_beam_class) must
 * give bitwise what the same function of the reference table gives, which searches every
 * place (fmb_slider_beam_reference_class, joints/slider_beam.c: the memo switched off).
 *
 * Independent reference: a copy of the joint under the reference table (every place
 * searched); its evalcache must stay untouched (zero): the reference path does not use the
 * memo. States: the quick-return (40 rocker elements, linear and nonlinear rocker:
 * argument "nonlinear=0|1"; the slider crossing several elements) after each of 1,200
 * steps, visited in the step loop's order (views, Phi, validity and Hessian of a
 * predictor-like state and of the candidate, the step control from the previous state, the
 * outputs), and out of it: the control from a state two steps back, the control of a state
 * perturbed in the slider's x, in the guide's angle, in the slider's point and in the
 * guide's axial coordinates at the element under the slider and at a node the element
 * search reads (the key's inputs), t_n's views after an unrelated state was placed.
 * Compared bit for bit: the views' columns, Phi and J, the Hessian, valid's status, the
 * step control's return value and h_max, the outputs (s, element, x); and J and H on guide
 * views with another column before the element's against the default view's, moved to
 * the new places.
 * Checked to fail (of 96,284 comparisons per rocker): a kept place taken without comparing
 * the guide coordinates read (slider_beam_memo.c hit) fails 6,535 (Phi, J, H(w) and the
 * outputs at the perturbed guide states), linear and nonlinear rocker alike; one taken on
 * the rigid coordinates alone (neither the reads nor the slider point compared) fails
 * 6,671; the reference table taking its places from the memo too fails the
 * untouched-evalcache check.
 * Compared exactly, not to rounding: the two tables run the same functions on a place that
 * the same search computed from the same inputs (a kept place is that search's result for
 * bitwise the same key), so a hit cannot change a bit, and the run's results must not
 * depend on whether a call hit the memo; a place kept for other inputs differs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "bodies/beam.h"
#include "joints/slider_beam.h"
#include "solve/sim_internal.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static int failures = 0, compared = 0;
#include "check.h"

static fmb_model_t *md;
static fmb_joint_t *jt;  /* the slider, the class of runs (its places kept) */
static fmb_joint_t jref; /* the same joint under the reference table (every place searched) */
static double tnow = 0.0;

static void same(const char *what, int k, const void *a, const void *b, size_t n)
{
    compared++;
    if (!memcmp(a, b, n)) return;
    printf("FAIL state %d: %s differs from its reference\n", k, what);
    failures++;
}

/* views, Phi and J, validity, Hessian at state q (qd) against the reference joint */
static void check_state(int k, const double *q, const double *qd)
{
    fmb_bodyview_t v[2], vr[2];
    fmb_joint_views(md, jt, q, qd, v);
    fmb_joint_views(md, &jref, q, qd, vr);
    same("columns (nc)", k, &v[1].nc, &vr[1].nc, sizeof v[1].nc);
    same("columns", k, v[1].cols, vr[1].cols, (size_t)v[1].nc * sizeof *v[1].cols);
    const int nl = v[0].nc + v[1].nc;
    double phi[2], phir[2], J[2 * FMB_ELEM_COLS] = {0}, Jr[2 * FMB_ELEM_COLS] = {0};
    jt->klass->eval(jt, v, tnow, phi, J, J + 2 * v[0].nc);
    jref.klass->eval(&jref, vr, tnow, phir, Jr, Jr + 2 * vr[0].nc);
    same("Phi", k, phi, phir, sizeof phi);
    same("J", k, J, Jr, 2 * (size_t)nl * sizeof *J);
    char msg[256];
    const int ok = jt->klass->valid(jt, v, tnow, msg, sizeof msg),
              okr = jref.klass->valid(&jref, vr, tnow, msg, sizeof msg);
    same("valid", k, &ok, &okr, sizeof ok);
    const double w[2] = {0.3 + 0.01 * k, -1.7};
    double H[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0}, Hr[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0};
    jt->klass->hess(jt, v, tnow, w, H);
    jref.klass->hess(&jref, vr, tnow, w, Hr);
    same("H(w)", k, H, Hr, (size_t)nl * nl * sizeof *H);
    /* a guide view with another column before the element's (their places shifted):
     * J and H are those of the default view, moved to the columns' new places, and zero on
     * the extra column (reference: the default view's blocks above) */
    const int extra = 3 + k % 2;
    fmb_bodyview_t vx[2] = {v[0], v[1]};
    fmb_view_add_cols(&vx[1], 1, &extra);
    const int n0 = v[0].nc, nx = n0 + vx[1].nc;
    int map[FMB_ELEM_COLS]; /* default local column -> local column in the extra view */
    for (int c = 0; c < nl; c++)
        map[c] = c < n0 ? c : n0 + fmb_view_col(&vx[1], v[1].cols[c - n0]);
    double Jx[2 * FMB_ELEM_COLS] = {0}, Jm[2 * FMB_ELEM_COLS] = {0};
    jt->klass->eval(jt, vx, tnow, phi, Jx, Jx + 2 * n0);
    for (int c = 0; c < nl; c++)
        Jm[2 * map[c]] = J[2 * c], Jm[2 * map[c] + 1] = J[2 * c + 1];
    const int xc = n0 + fmb_view_col(&vx[1], extra); /* its entries: zeros of either sign */
    for (int r = 0; r < 2; r++)
        if (Jx[2 * xc + r] == 0.0) Jm[2 * xc + r] = Jx[2 * xc + r];
    same("J (extra column)", k, Jx, Jm, 2 * (size_t)nx * sizeof *Jx);
    double Hx[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0}, Hm[FMB_ELEM_COLS * FMB_ELEM_COLS] = {0};
    jt->klass->hess(jt, vx, tnow, w, Hx);
    for (int c = 0; c < nl; c++)
        for (int r = 0; r < nl; r++)
            Hm[map[r] + (size_t)nx * map[c]] = H[r + (size_t)nl * c];
    same("H(w) (extra column)", k, Hx, Hm, (size_t)nx * nx * sizeof *Hx);
}

/* the step control from q0 to q1 against the reference joint (its views built by
 * the reference table) */
static int check_control(int k, const char *what, const double *q0, const double *q1,
                         const double *qd, double h)
{
    fmb_bodyview_t v0[2], v1[2], r0[2], r1[2];
    fmb_joint_views(md, jt, q0, qd, v0);
    fmb_joint_views(md, jt, q1, qd, v1);
    fmb_joint_views(md, &jref, q0, qd, r0);
    fmb_joint_views(md, &jref, q1, qd, r1);
    same("t_n's columns (nc)", k, &v0[1].nc, &r0[1].nc, sizeof v0[1].nc);
    same("t_n's columns", k, v0[1].cols, r0[1].cols, (size_t)v0[1].nc * sizeof *v0[1].cols);
    double hm = INFINITY, hmr = INFINITY;
    const int rc = jt->klass->step_control(jt, v0, v1, tnow, h, &hm, NULL, 0);
    fmb_joint_t *f = &jref;
    const int rcr = f->klass->step_control(f, r0, r1, tnow, h, &hmr, NULL, 0);
    char lab[96];
    snprintf(lab, sizeof lab, "step control (%s): return", what);
    same(lab, k, &rc, &rcr, sizeof rc);
    snprintf(lab, sizeof lab, "step control (%s): h_max", what);
    same(lab, k, &hm, &hmr, sizeof hm);
    return rc;
}

static void check_outputs(int k, const double *q, const double *qd)
{
    fmb_bodyview_t v[2], vr[2];
    fmb_joint_views(md, jt, q, qd, v);
    fmb_joint_views(md, &jref, q, qd, vr);
    double o[3], orf[3];
    jt->klass->outputs(jt, v, tnow, o);
    jref.klass->outputs(&jref, vr, tnow, orf);
    same("outputs", k, o, orf, sizeof o);
}

int main(int argc, char **argv)
{
    const char *ov[] = {"n_el=40", "revolutions=1", argc > 1 ? argv[1] : "nonlinear=0"};
    char err[1024];
    fmb_case_t *cs =
        fmb_case_load(FMB_SOURCE_DIR "/cases/quick_return.yaml", ov, 3, err, sizeof err);
    if (!cs) {
        printf("FAIL: %s\n", err);
        return 1;
    }
    md = fmb_case_model(cs);
    fmb_sim_t *s = fmb_sim_create(md, fmb_case_options(cs));
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL: start failed\n");
        return 1;
    }
    const int ij = fmb_model_find_joint(md, "D_on_rocker");
    CHECK(ij >= 0, "no joint D_on_rocker");
    if (ij < 0) return 1;
    jt = &md->joints[ij];
    CHECK(jt->klass == &fmb_slider_beam_class, "the slider's class is not the class of runs");
    jref = *jt;
    jref.klass = &fmb_slider_beam_reference_class;
    memset(jref.evalcache, 0, sizeof jref.evalcache);
    const int n = s->n, K = 1200;
    const double h = s->opts.h;
    double *Q = malloc((size_t)(K + 1) * n * sizeof *Q), *qd = s->st.qd;
    double *qp = malloc((size_t)n * sizeof *qp);
    memcpy(Q, s->st.q, (size_t)n * sizeof *Q);
    int rc = 0, crossings = 0;
    for (int k = 1; k <= K && !rc; k++) {
        rc = fmb_sim_step(s);
        memcpy(Q + (size_t)k * n, s->st.q, (size_t)n * sizeof *Q);
    }
    CHECK(rc == 0, "%d steps: %s", K, fmb_sim_last_error(s));
    const int o1 = fmb_model_body_offset(md, jt->body[0]),
              o2 = fmb_model_body_offset(md, jt->body[1]);
    for (int k = 1; k <= K; k++) {
        const double *q0 = Q + (size_t)(k - 1) * n, *q1 = Q + (size_t)k * n;
        tnow = k * h;
        /* the step loop's order: two new states (a predictor, the candidate), then the
         * control from t_n (the last control's candidate, kept by it alone), the
         * candidate's outputs */
        memcpy(qp, q1, (size_t)n * sizeof *qp);
        qp[o1] -= 2e-4, qp[o2 + 2] += 1e-6;
        check_state(k, qp, qd);
        check_state(k, q1, qd);
        crossings += check_control(k, "t_n -> candidate", q0, q1, qd, h) == 2;
        check_outputs(k, q1, qd);
        /* out of the step loop's order */
        if (k >= 2) check_control(k, "two steps back", Q + (size_t)(k - 2) * n, q1, qd, 2 * h);
        memcpy(qp, q1, (size_t)n * sizeof *qp);
        qp[o1] += 1e-3; /* the slider's x */
        check_state(k, qp, qd);
        check_control(k, "perturbed slider", q1, qp, qd, h);
        check_state(k, q0, qd); /* t_n placed after an unrelated state */
        memcpy(qp, q1, (size_t)n * sizeof *qp);
        qp[o2 + 2] += 1e-9; /* the guide's angle */
        check_control(k, "perturbed guide", q1, qp, qd, h);
        if (k % 50 == 0) { /* the slider's point (a key input, not a state) */
            const double u = jt->point[0][0];
            jt->point[0][0] = jref.point[0][0] = u + 1e-4;
            check_control(k, "moved point", q0, q1, qd, h);
            check_state(k, q1, qd);
            jt->point[0][0] = jref.point[0][0] = u;
        }
        { /* the guide's axial coordinates: the slider's element's, and a node the element
           * search reads first (the middle node) */
            fmb_bodyview_t vv[2];
            fmb_joint_views(md, jt, q1, qd, vv);
            const fmb_beam_t *bm = vv[1].body->data;
            double so[3];
            jt->klass->outputs(jt, vv, tnow, so);
            const int e = (int)so[1], mid = (bm->nnodes - 1) / 2;
            const int cu[2] = {bm->dof[3 * e + 3], bm->dof[3 * mid]};
            for (int c = 0; c < 2; c++) {
                if (cu[c] < 0) continue;
                memcpy(qp, q1, (size_t)n * sizeof *qp);
                qp[o2 + cu[c]] += c ? 0.2 * (bm->x[mid + 1] - bm->x[mid]) : 1e-9;
                check_state(k, qp, qd);
                check_control(k, c ? "perturbed searched node" : "perturbed element", q1, qp, qd,
                              h);
                check_outputs(k, qp, qd);
            }
        }
        check_outputs(k, q0, qd);
        /* the control repeated: its candidate is kept for the next step's t_n */
        check_control(k, "repeated", q0, q1, qd, h);
    }
    CHECK(crossings >= 4, "only %d element crossings in %d steps", crossings, K);
    { /* the reference never used the memo */
        static const double zero[FMB_JOINT_CACHE];
        CHECK(!memcmp(jref.evalcache, zero, sizeof zero),
              "the reference table wrote the joint's evalcache (the memo)");
    }
    printf("%s slider_beam memo vs the reference table: %d steps, %d element crossings, %d "
           "comparisons, bit for bit\n",
           failures ? "FAIL" : "ok  ", K, crossings, compared);
    printf("%d failure(s)\n", failures);
    free(Q), free(qp);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&cs);
    return failures ? 1 : 0;
}
