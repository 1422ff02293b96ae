/*
 * The revolute joint's fast path on rigid bodies and ground (joints/revolute_fast.c
 * pin_side, pin_hess_side: inline forms of bodies/point.c's fmb_point_posjac_n /
 * fmb_point_hess_n) against the reference evaluation (joints/revolute.c, through
 * point.c). The conformance test checks both against finite differences (to 1e-7); this
 * test compares them with each other to rounding, through the two class tables (the
 * registered fmb_revolute_class and fmb_revolute_reference_class, which must otherwise be
 * the same table):
 *   Phi = r_P0 - r_P1 (the fast path also evaluated without Jacobians), J0 = J_P0,
 *   J1 = -J_P1, H(w) = H_P0(w) + H_P1(-w) added onto a nonzero block (the weld's fast
 *   path shares fmb_joint_pin_hess),
 * at rigid-rigid, rigid-ground and ground-rigid pairs, angles 0, -0, +-pi/2, pi, tiny and
 * large (up to 3e15 rad), points and body positions with zero, negative-zero, tiny and
 * large offsets: 12 x 6 x 4 states per pair, the two bodies at different states.
 * Independent reference: revolute.c, point.c's general functions combined as the
 * equations read.
 * Tolerance (tests/near.h): (k + 1) eps m with k = 16 (the body point p = u + rbar, the
 * rotation A p, the subtraction of the sides, H's a = A w and p . a, and a few ulps of
 * cos and sin) and m bounding the magnitudes of the terms: per side m_b = 1 + |u|_1 +
 * |rbar|_1 (|A_ij| <= 1; the 1 for J's rotation entries), Phi and J: m_0 + m_1, H(w):
 * 0.35 (the block's largest entry) + |w|_1 (m_0 + m_1). The order of the operations is
 * free.
 * Checked to fail (of 4,320 comparisons): pin_side without the point u in p fails 2,496
 * (Phi, J); j5's second term with the wrong sign fails 800 (J); hess_carrier's
 * (theta, theta) entry without p_y a_y fails 695 (H(w)). Reorderings pass: r computed
 * as A u + A rbar (distributed; a bitwise comparison failed it in 322 comparisons) and
 * p . a summed in the other order. The reference is checked too: revolute.c with body 1's
 * Jacobian not negated fails 576 (J), with body 1's H evaluated at w instead of -w 576
 * (H(w)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "joints/revolute_fast.h"
#include "model/model.h"

static int failures = 0, compared = 0;
#include "pin_check.h"

static int add_body(fmb_model_t *m, int rigid, const char *name)
{
    if (!rigid) return FMB_GROUND;
    fmb_body_desc_t d = {.name = name, .mass = 1.3, .inertia = 0.07, .com = {0.1, -0.2}};
    return fmb_model_add_body(m, &d);
}

int main(void)
{
    const double pi = 3.14159265358979323846;
    const double angles[] = {0.0,     -0.0,  pi / 2,    -pi / 2,     pi,        2.5,
                             -1e-300, 1e-12, 1234.5678, -98765.4321, 1e9 + 0.3, 3.0e15};
    const double pts[][2] = {{0.0, 0.0},   {-0.0, -0.0}, {0.3, -0.2},
                             {-1e-3, 5.0}, {1e6, -2e-9}, {0.1, 0.7}};
    const double rbar[][2] = {{0.0, 0.0}, {-0.0, 0.0}, {0.37, -1.25}, {-4e3, 2e-7}};
    const int na = sizeof angles / sizeof *angles, np = sizeof pts / sizeof *pts,
              nb = sizeof rbar / sizeof *rbar;
    const int pairs[3][2] = {{1, 1}, {1, 0}, {0, 1}}; /* 1 rigid, 0 ground */
    int checked = 0;
    const fmb_joint_class_t *fast = fmb_joint_class_named("revolute"),
                            *ref = &fmb_revolute_reference_class;
    /* the class of runs is the reference's table with the fast eval and hess */
    if (fast != &fmb_revolute_class || fast->eval == ref->eval || fast->hess == ref->hess ||
        strcmp(fast->name, ref->name) || fast->nrows != ref->nrows ||
        fast->hess_kind != ref->hess_kind || fast->distinct != ref->distinct ||
        fast->item_flags != ref->item_flags || strcmp(fast->case_type, ref->case_type) ||
        fast->time != ref->time) {
        printf("FAIL the registered revolute class is not the reference's table with the fast "
               "eval and hess\n");
        failures++;
    }
    for (int pr = 0; pr < 3; pr++) {
        char pair[32];
        snprintf(pair, sizeof pair, "%s-%s", pairs[pr][0] ? "rigid" : "ground",
                 pairs[pr][1] ? "rigid" : "ground");
        fmb_model_t *m = fmb_model_create();
        const int body[2] = {add_body(m, pairs[pr][0], "b1"), add_body(m, pairs[pr][1], "b2")};
        fmb_joint_desc_t d = {.name = "pin",
                              .type = "revolute",
                              .body = {body[0], body[1]},
                              .point = {{0.1, 0.2}, {0.3, 0.4}}};
        const int ij = fmb_model_add_joint(m, &d);
        if (ij < 0) {
            printf("FAIL %s: cannot add the joint: %s\n", pair, fmb_model_last_error(m));
            failures++;
            fmb_model_destroy(&m);
            continue;
        }
        const int nq = fmb_model_num_coords(m);
        double *q = calloc((size_t)nq + 1, sizeof *q), *qd = calloc((size_t)nq + 1, sizeof *qd);
        fmb_joint_t *j = &m->joints[ij];
        for (int ia = 0; ia < na; ia++)
            for (int ip = 0; ip < np; ip++)
                for (int ib = 0; ib < nb; ib++) {
                    for (int b = 0; b < 2; b++) { /* the two bodies at different states */
                        if (body[b] == FMB_GROUND) continue;
                        const int o = fmb_model_body_offset(m, body[b]);
                        q[o] = rbar[(ib + b) % nb][0], q[o + 1] = rbar[(ib + b) % nb][1];
                        q[o + 2] = angles[(ia + 5 * b) % na];
                    }
                    memcpy(j->point[0], pts[ip], sizeof pts[ip]);
                    memcpy(j->point[1], pts[(ip + 3) % np], sizeof pts[ip]);
                    fmb_bodyview_t v[2];
                    fmb_joint_views(m, j, q, qd, v);
                    const int ld = v[0].nc + v[1].nc;
                    /* the joint, through its class table */
                    double phi[2], phin[2], J[2][2 * FMB_VIEW_COLS];
                    j->klass->eval(j, v, 0.0, phi, J[0], J[1]);
                    j->klass->eval(j, v, 0.0, phin, NULL, NULL);
                    /* the reference, revolute.c */
                    double phr[2], Jr[2][2 * FMB_VIEW_COLS];
                    ref->eval(j, v, 0.0, phr, Jr[0], Jr[1]);
                    const double mb = side_mag(&v[0], j->point[0]) + side_mag(&v[1], j->point[1]);
                    const double tol = near_bound(16, mb);
                    near_vals("Phi", pair, phi, phr, 2, tol);
                    near_vals("Phi (no J)", pair, phin, phr, 2, tol);
                    near_vals("J body 0", pair, J[0], Jr[0], 2 * v[0].nc, tol);
                    near_vals("J body 1 (-)", pair, J[1], Jr[1], 2 * v[1].nc, tol);
                    /* H(w), added onto a nonzero block */
                    const double w[2] = {0.7 - 0.1 * ia, -1.3 + 0.2 * ip};
                    double H[FMB_ELEM_COLS * FMB_ELEM_COLS], Hr[FMB_ELEM_COLS * FMB_ELEM_COLS];
                    for (int k = 0; k < ld * ld; k++)
                        H[k] = Hr[k] = 0.1 * (k % 7) - 0.25;
                    j->klass->hess(j, v, 0.0, w, H);
                    ref->hess(j, v, 0.0, w, Hr);
                    near_vals("H(w)", pair, H, Hr, ld * ld,
                              near_bound(16, 0.35 + (fabs(w[0]) + fabs(w[1])) * mb));
                    checked++;
                }
        free(q), free(qd);
        fmb_model_destroy(&m);
    }
    printf(
        "%s revolute rigid/ground pins vs the reference: %d states, %d comparisons to rounding\n",
        failures ? "FAIL" : "ok  ", checked, compared);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
