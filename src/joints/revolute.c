/*
 * Revolute joint: point P0 on body 0 coincides with point P1 on body 1.
 *
 *   Phi = r_P0 - r_P1 = A0 (rbar0 + u0 + N0 U0) - A1 (rbar1 + u1 + N1 U1)   (2 rows, inertial)
 *   Phi_q = [ J_P0 , -J_P1 ],  J_P = dr_P/dq = A [ I2 , Itil p , N ]
 *   sum_k w_k d2Phi_k/dq2 = blockdiag( H_P0(w), H_P1(-w) ),  H_P(w) = d(J_P^T w)/dq
 * with p = rbar + u + N U the point in its body's carrier axes, A = A(theta) the carrier's
 * rotation, Itil the rotation by +90 degrees and N the body's shape functions at the
 * undeformed point u (none on a rigid body; r = u on ground). bodies/point.c evaluates
 * r_P, J_P and H_P (its opening comment gives H_P entry by entry); this file only combines
 * the two sides.
 * The multipliers are the inertial joint force: the joint pushes body 0 with -lambda
 * and body 1 with +lambda.
 * Blocks are column-compressed on each body's rigid columns and the shape columns of its
 * joint point (the default element columns, model.h): 2 x (3 + shape) per body.
 *
 * This is the reference evaluation, the template of a joint class. Runs use its fast path,
 * revolute_fast.c (the same class with kept shape functions and inlined kinematics), which
 * tests compare with this one to rounding.
 */
#include "joints/revolute_fast.h"

/* Phi, and J0 = J_P0, J1 = -J_P1 when the Jacobians are asked for (non-NULL). */
static void revolute_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                          double *J0, double *J1)
{
    (void)t;
    double r0[2], r1[2];
    fmb_point_posjac(&v[0], j->point[0], r0, J0);
    fmb_point_posjac(&v[1], j->point[1], r1, J1);
    phi[0] = r0[0] - r1[0];
    phi[1] = r0[1] - r1[1];
    if (J1)
        for (int k = 0; k < 2 * v[1].nc; k++)
            J1[k] = -J1[k];
}

/* sum_k w_k d2Phi_k/dq2 added into H (the two bodies' columns, leading dimension
 * n0 + n1): H_P0(w) on body 0's diagonal block, H_P1(-w) on body 1's. */
static void revolute_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t,
                          const double *w, double *H)
{
    (void)t;
    const int n0 = v[0].nc, ld = n0 + v[1].nc;
    const double mw[2] = {-w[0], -w[1]};
    fmb_point_hess(&v[0], j->point[0], w, H, ld);
    fmb_point_hess(&v[1], j->point[1], mw, H + n0 + (size_t)n0 * ld, ld);
}

/* Not in the registry: the class of runs is fmb_revolute_class (revolute_fast.c), this
 * table with the fast eval and hess. A joint without a fast path names its table
 * fmb_NAME_class here and registers it (docs/extending.md). */
const fmb_joint_class_t fmb_revolute_reference_class = {
    .name = "revolute",
    .nrows = 2,
    .eval = revolute_eval,
    .hess = revolute_hess,
    .hess_kind = FMB_HESS_POINTS,
    .time = NULL,
    .distinct = 1,
    .case_type = "revolute",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
};
