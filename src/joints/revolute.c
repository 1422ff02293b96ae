/*
 * Revolute joint: point P0 on body 0 coincides with point P1 on body 1.
 *
 *   Phi = r_P0 - r_P1 = A0 (rbar0 + u0) - A1 (rbar1 + u1)          (2 rows, inertial)
 *   Phi_q = [ J_P0 , -J_P1 ],  J_P = A [ I2 , Itil p ]
 *   sum_k w_k d2Phi_k/dq2 = blockdiag( H_P0(w), -H_P1(w) )          (see bodies/point.c)
 * The multipliers are the inertial joint force: the joint pushes body 0 with -lambda
 * and body 1 with +lambda.
 * Blocks are column-compressed on each body's rigid columns and the shape columns of its
 * joint point (the default element columns, model.h): 2 x (3 + shape) per body.
 */
#include "joints/joints.h"

static void revolute_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                          double *J0, double *J1)
{
    (void)t;
    double r0[2], r1[2];
    fmb_point_posjac(&v[0], j->point[0], r0, J0);
    fmb_point_posjac(&v[1], j->point[1], r1, J1);
    phi[0] = r0[0] - r1[0];
    phi[1] = r0[1] - r1[1];
    if (J1 && v[1].ndof)
        for (int k = 0; k < 2 * v[1].nc; k++)
            J1[k] = -J1[k];
}

void fmb_joint_pin_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *H)
{
    (void)t;
    const int n0 = v[0].nc, ld = n0 + v[1].nc;
    double mw[2] = {-w[0], -w[1]};
    fmb_point_hess(&v[0], j->point[0], w, H, ld);
    fmb_point_hess(&v[1], j->point[1], mw, H + n0 + (size_t)n0 * ld, ld);
}

const fmb_joint_class_t fmb_revolute_class = {
    .name = "revolute",
    .nrows = 2,
    .eval = revolute_eval,
    .hess = fmb_joint_pin_hess,
    .hess_kind = FMB_HESS_POINTS,
    .time = NULL,
    .check = fmb_joint_check_distinct,
    .case_type = "revolute",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
};
