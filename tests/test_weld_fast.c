/*
 * The weld joint's fast path (joints/weld_fast.c: the joint points' shape functions kept in
 * the joint, the revolute fast path's Hessian fmb_joint_pin_hess) against the reference
 * evaluation (joints/weld.c, through bodies/point.c), to rounding, through the two class
 * tables (the registered fmb_weld_class and fmb_weld_reference_class, which must otherwise
 * be the same table):
 *   Phi = (r_P0 - r_P1, theta0 - theta1 - angle) (the fast path also without Jacobians),
 *   J0 = [J_P0; e3^T], J1 = -[J_P1; e3^T], every entry written (the blocks are filled with
 *   NaN before the evaluation), H(w) = H_P0(w_12) + H_P1(-w_12) added onto a nonzero block,
 * for every pairing the weld accepts (rigid, beam and ground, two distinct bodies), both
 * beam references, points on the beams at the end nodes, an inner node, between nodes
 * and off the axis (rigid bodies and ground: zero, negative-zero, tiny and large offsets),
 * states with zero, negative-zero, tiny and large coordinates and angles up to 1e6 rad,
 * the locked angle 0 and 0.4; the points change between states (the kept shape functions
 * must follow them); each state on the default columns, on views with an extra column
 * and on views of as many columns with one of a beam point's replaced by another (the
 * places of the shape columns found again), then on the default columns again.
 * Independent reference: weld.c, point.c's general functions combined as the equations
 * read.
 * Tolerance (tests/near.h): (k + 1) eps m with k = 16 (p = u + rbar + sum N q over at most
 * 6 shape columns, the rotation, the subtraction of the sides, H's a = A w and p . a, a few
 * ulps of cos and sin) and m bounding the magnitudes of the terms: per side m_b = 1 +
 * |u|_1 + the sum of |q| over the body's coordinates but the angle (|A_ij| <= 1, shape
 * function values at most 1 on these elements of length <= 0.25), Phi_{1,2} and J:
 * m_0 + m_1, Phi_3: |theta0| + |theta1| + |angle|, H(w): 0.35 (the block's largest entry)
 * + |w_12|_1 (m_0 + m_1).
 * Checked to fail (of 28,000 comparisons): weld_fast.c's angle row on body 1 with +1
 * (not -1) fails 3,200 (J body 1); its Phi_3 without the locked angle fails 4,000 (Phi_3,
 * with and without J); the pins' shape memo hit without comparing the point
 * (revolute_fast.h) fails 11,708 (Phi_12 5,376, J 3,540, H(w) 2,792) as the points
 * change; the reference weld.c with body 1's H at w instead of -w fails 3,200 (H(w)).
 * A reordering passes: Phi_3 as theta0 - (theta1 + angle) in weld.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "joints/weld_fast.h"
#include "model/model.h"

static int failures = 0, compared = 0;
#include "pin_check.h"

/* One state: the joint (the fast path) against the reference on the views v. */
static void check_views(fmb_joint_t *j, fmb_bodyview_t v[2], int is, const char *tag)
{
    const int ld = v[0].nc + v[1].nc;
    double phi[3], phin[3], J[2][3 * FMB_VIEW_COLS];
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3 * FMB_VIEW_COLS; k++)
            J[b][k] = NAN; /* every entry must be written */
    j->klass->eval(j, v, 0.0, phi, J[0], J[1]);
    j->klass->eval(j, v, 0.0, phin, NULL, NULL);
    const fmb_joint_class_t *ref = &fmb_weld_reference_class;
    double Jr[2][3 * FMB_VIEW_COLS], phr[3];
    ref->eval(j, v, 0.0, phr, Jr[0], Jr[1]);
    const double mb = side_mag(&v[0], j->point[0]) + side_mag(&v[1], j->point[1]);
    const double tol = near_bound(16, mb);
    const double ma = fabs(fmb_body_angle(&v[0])) + fabs(fmb_body_angle(&v[1])) + fabs(j->ref);
    near_vals("Phi_12", tag, phi, phr, 2, tol);
    near_vals("Phi_12 (no J)", tag, phin, phr, 2, tol);
    near_vals("Phi_3", tag, phi + 2, phr + 2, 1, near_bound(2, ma));
    near_vals("Phi_3 (no J)", tag, phin + 2, phr + 2, 1, near_bound(2, ma));
    near_vals("J body 0", tag, J[0], Jr[0], 3 * v[0].nc, tol);
    near_vals("J body 1 (-)", tag, J[1], Jr[1], 3 * v[1].nc, tol);
    const double w[3] = {0.7 - 0.1 * (is % 9), -1.3 + 0.2 * (is % 5), 2.1};
    double H[FMB_ELEM_COLS * FMB_ELEM_COLS], Hr[FMB_ELEM_COLS * FMB_ELEM_COLS];
    for (int k = 0; k < ld * ld; k++)
        H[k] = Hr[k] = 0.1 * (k % 7) - 0.25;
    j->klass->hess(j, v, 0.0, w, H);
    ref->hess(j, v, 0.0, w, Hr);
    near_vals("H(w)", tag, H, Hr, ld * ld, near_bound(16, 0.35 + (fabs(w[0]) + fabs(w[1])) * mb));
}

int main(void)
{
    const fmb_joint_class_t *fast = fmb_joint_class_named("weld"), *ref = &fmb_weld_reference_class;
    /* the class of runs is the reference's table with the fast eval and hess */
    if (fast != &fmb_weld_class || fast->eval == ref->eval || fast->hess == ref->hess ||
        strcmp(fast->name, ref->name) || fast->nrows != ref->nrows ||
        fast->hess_kind != ref->hess_kind || fast->distinct != ref->distinct ||
        fast->item_flags != ref->item_flags || strcmp(fast->case_type, ref->case_type) ||
        fast->time != ref->time || fast->prepare != ref->prepare ||
        fast->bodies[0] != ref->bodies[0] || fast->bodies[1] != ref->bodies[1] || !fast->params ||
        !ref->params || strcmp(fast->params[0].key, ref->params[0].key) || fast->params[1].key ||
        ref->params[1].key) {
        printf("FAIL the registered weld class is not the reference's table with the fast "
               "eval and hess\n");
        failures++;
    }
    const enum kind pairs[][2] = {{RIGID, RIGID}, {RIGID, GROUND}, {GROUND, RIGID}, {BEAM, GROUND},
                                  {GROUND, BEAM}, {BEAM, RIGID},   {RIGID, BEAM},   {BEAM, BEAM}};
    const char *kname[] = {"ground", "rigid", "beam"};
    /* beam points: end nodes, an inner node, between nodes, off the axis; rigid and ground
     * points: the same and zero, negative-zero, tiny and large offsets */
    const double bpts[][2] = {{0.0, 0.0}, {0.8, 0.0}, {0.35, 0.0}, {0.27, 0.0}, {0.5, -0.01}};
    const double rpts[][2] = {{0.0, 0.0}, {-0.0, -0.0}, {0.3, -0.2}, {-1e-3, 5.0}, {1e6, -2e-9}};
    const double vals[] = {0.0, -0.0, 1e-3, -2.5e-2, 1e-300, 0.3, -7.0, 1e6};
    const int npt = sizeof bpts / sizeof *bpts, nv = sizeof vals / sizeof *vals;
    const int npair = sizeof pairs / sizeof *pairs;
    int states = 0;
    for (int pr = 0; pr < npair; pr++)
        for (int bref = 0; bref < 2; bref++) {
            if (bref && pairs[pr][0] != BEAM && pairs[pr][1] != BEAM) continue;
            fmb_model_t *m = fmb_model_create();
            const int body[2] = {add_kind(m, pairs[pr][0], "b1", (fmb_beam_reference)bref),
                                 add_kind(m, pairs[pr][1], "b2", (fmb_beam_reference)bref)};
            fmb_joint_desc_t d = {.name = "weld",
                                  .type = "weld",
                                  .body = {body[0], body[1]},
                                  .point = {{0.0, 0.0}, {0.0, 0.0}}};
            const int ij = fmb_model_add_joint(m, &d);
            if (ij < 0) {
                printf("FAIL %s-%s: cannot add the joint: %s\n", kname[pairs[pr][0]],
                       kname[pairs[pr][1]], fmb_model_last_error(m));
                failures++;
                fmb_model_destroy(&m);
                continue;
            }
            const int nq = fmb_model_num_coords(m);
            double *q = calloc((size_t)nq + 1, sizeof *q), *qd = calloc((size_t)nq + 1, sizeof *qd);
            fmb_joint_t *j = &m->joints[ij];
            for (int ip = 0; ip < npt; ip++)
                for (int is = 0; is < 2 * nv; is++) {
                    for (int b = 0; b < 2; b++) {
                        const double *u = pairs[pr][b] == BEAM ? bpts[(ip + 2 * b + is) % npt]
                                                               : rpts[(ip + 2 * b + is) % npt];
                        j->point[b][0] = u[0], j->point[b][1] = u[1];
                    }
                    j->ref = is % 2 ? 0.4 : 0.0;
                    for (int k = 0; k < nq; k++)
                        q[k] = vals[(is + 3 * k) % nv] * (k % 3 == 2 ? 1.0 : 0.5);
                    char tag[96];
                    snprintf(tag, sizeof tag, "%s-%s ref %d point %d state %d", kname[pairs[pr][0]],
                             kname[pairs[pr][1]], bref, ip, is);
                    fmb_bodyview_t v[2];
                    fmb_joint_views(m, j, q, qd, v);
                    check_view_variants(check_views, j, v, is, tag);
                    states++;
                }
            free(q), free(qd);
            fmb_model_destroy(&m);
        }
    printf("%s weld fast path vs the reference: %d states, %d comparisons to rounding\n",
           failures ? "FAIL" : "ok  ", states, compared);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
