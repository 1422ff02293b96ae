/*
 * The revolute joint's fast path on a beam (joints/revolute_fast.c pin_side_beam,
 * pin_hess_beam) is point.c's fmb_point_posjac_n / fmb_point_hess_n with the shape
 * functions and the places of the shape columns kept in the joint (pin_places) and, for a
 * view whose elastic columns are the pin's shape columns once each, every J entry of a
 * shape column written once instead of zeroed and added to. This test compares it to
 * rounding with the reference evaluation (joints/revolute.c, through point.c), the
 * registered class table against fmb_revolute_reference_class:
 *   Phi = r_P0 - r_P1 (the fast path also without Jacobians), J0 = J_P0, J1 = -J_P1,
 *   every entry written (the blocks are filled with a NaN pattern before the evaluation),
 *   H(w) = H_P0(w) + H_P1(-w) added onto a nonzero block,
 * for beam-ground, ground-beam, beam-rigid, rigid-beam and beam-beam pins, both beam
 * references, points at the end nodes, an inner node and between nodes (also off the
 * axis), states with zero, negative-zero, tiny and large coordinates; each state on
 * the default columns (the kept places), on views with an extra column (the places found
 * again, not covering: point.c's path), on views of as many columns with one of the pin's
 * replaced by another (the kept places no longer hold their columns), then on the default
 * columns again (the places found once more).
 * Tolerance (tests/near.h): (k + 1) eps m with k = 16 (p = u + rbar + sum N q over at most
 * 6 shape columns, the rotation, the subtraction of the sides, H's a = A w and p . a, a few
 * ulps of cos and sin) and m bounding the magnitudes of the terms: per side m_b = 1 +
 * |u|_1 + the sum of |q| over the body's coordinates but the angle (|A_ij| <= 1, the shape
 * functions' values at most 1 on these elements of length <= 0.25), Phi and J: m_0 + m_1,
 * H(w): 0.35 (the block's largest entry) + |w|_1 (m_0 + m_1).
 * Checked to fail (of 17,600 comparisons): the first-write path without the negation of
 * body 1's side fails 1,150 (J); the places check reduced to the count of columns (not
 * each kept place holding its column) fails 504 (J 252, H(w) 252) on the swapped-column
 * views; the last shape column left out of p in pin_side_beam fails 2,438 (Phi, J);
 * pin_side_beam's J entry j5 with its second term's sign flipped fails 2,620 (J). The
 * reference is checked too: revolute.c with body 1's Jacobian not negated fails 2,880
 * (J), with body 1's H evaluated at w instead of -w 2,880 (H(w)).
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

/* One state: the joint (the fast path) against the reference on the views v (columns as given). */
static void check_views(fmb_joint_t *j, fmb_bodyview_t v[2], int is, const char *tag)
{
    const int ld = v[0].nc + v[1].nc;
    double phi[2], phin[2], J[2][2 * FMB_VIEW_COLS];
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 2 * FMB_VIEW_COLS; k++)
            J[b][k] = NAN; /* every entry must be written */
    j->klass->eval(j, v, 0.0, phi, J[0], J[1]);
    j->klass->eval(j, v, 0.0, phin, NULL, NULL);
    const fmb_joint_class_t *ref = &fmb_revolute_reference_class;
    double Jr[2][2 * FMB_VIEW_COLS], phr[2];
    ref->eval(j, v, 0.0, phr, Jr[0], Jr[1]);
    const double mb = side_mag(&v[0], j->point[0]) + side_mag(&v[1], j->point[1]);
    const double tol = near_bound(16, mb);
    near_vals("Phi", tag, phi, phr, 2, tol);
    near_vals("Phi (no J)", tag, phin, phr, 2, tol);
    near_vals("J body 0", tag, J[0], Jr[0], 2 * v[0].nc, tol);
    near_vals("J body 1 (-)", tag, J[1], Jr[1], 2 * v[1].nc, tol);
    const double w[2] = {0.7 - 0.1 * (is % 9), -1.3 + 0.2 * (is % 5)};
    double H[FMB_ELEM_COLS * FMB_ELEM_COLS], Hr[FMB_ELEM_COLS * FMB_ELEM_COLS];
    for (int k = 0; k < ld * ld; k++)
        H[k] = Hr[k] = 0.1 * (k % 7) - 0.25;
    j->klass->hess(j, v, 0.0, w, H);
    ref->hess(j, v, 0.0, w, Hr);
    near_vals("H(w)", tag, H, Hr, ld * ld, near_bound(16, 0.35 + (fabs(w[0]) + fabs(w[1])) * mb));
}

int main(void)
{
    const enum kind pairs[][2] = {
        {BEAM, GROUND}, {GROUND, BEAM}, {BEAM, RIGID}, {RIGID, BEAM}, {BEAM, BEAM}};
    const char *kname[] = {"ground", "rigid", "beam"};
    /* beam points: end nodes, an inner node, between nodes, off the axis */
    const double pts[][2] = {{0.0, 0.0}, {0.8, 0.0}, {0.35, 0.0}, {0.27, 0.0}, {0.5, -0.01}};
    const double vals[] = {0.0, -0.0, 1e-3, -2.5e-2, 1e-300, 0.3, -7.0, 1e6};
    const int npt = sizeof pts / sizeof *pts, nv = sizeof vals / sizeof *vals;
    int states = 0;
    for (int pr = 0; pr < 5; pr++)
        for (int ref = 0; ref < 2; ref++) {
            fmb_model_t *m = fmb_model_create();
            const int body[2] = {add_kind(m, pairs[pr][0], "b1", (fmb_beam_reference)ref),
                                 add_kind(m, pairs[pr][1], "b2", (fmb_beam_reference)ref)};
            fmb_joint_desc_t d = {.name = "pin",
                                  .type = "revolute",
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
                    for (int b = 0; b < 2; b++)
                        j->point[b][0] = pts[(ip + 2 * b) % npt][0],
                        j->point[b][1] = pts[(ip + 2 * b) % npt][1];
                    for (int k = 0; k < nq; k++)
                        q[k] = vals[(is + 3 * k) % nv] * (k % 3 == 2 ? 1.0 : 0.5);
                    char tag[96];
                    snprintf(tag, sizeof tag, "%s-%s ref %d point %d state %d", kname[pairs[pr][0]],
                             kname[pairs[pr][1]], ref, ip, is);
                    fmb_bodyview_t v[2];
                    fmb_joint_views(m, j, q, qd, v);
                    check_view_variants(check_views, j, v, is, tag);
                    states++;
                }
            free(q), free(qd);
            fmb_model_destroy(&m);
        }
    printf("%s revolute beam pins vs the reference: %d states, %d comparisons to rounding\n",
           failures ? "FAIL" : "ok  ", states, compared);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
