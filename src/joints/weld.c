/*
 * Weld joint: point P0 on body 0 coincides with P1 on body 1 and the relative angle
 * is locked.
 *
 *   Phi_{1,2} = r_P0 - r_P1                 (2 rows, inertial; the revolute joint's rows)
 *   Phi_3     = theta0 - theta1 - angle
 *   Phi_q = [ J_P0 , -J_P1 ; e3^T , -e3^T ],  J_P = dr_P/dq = A [ I2 , Itil p , N ]
 *   sum_k w_k d2Phi_k/dq2 = blockdiag( H_P0(w_12), H_P1(-w_12) )   (Phi_3 is linear)
 * with p = rbar + u + N U the point in its body's carrier axes, A = A(theta), Itil the
 * rotation by +90 degrees, N the body's shape functions at the undeformed point u (none on
 * a rigid body; r = u on ground) and e3 the carrier angle's column (column 2 of a body's
 * coordinates, rigid or beam). bodies/point.c evaluates r_P, J_P and H_P (revolute.c).
 * The multipliers: lambda_{1,2} the inertial joint force (body 0 pushed with -lambda, body 1
 * with +lambda), lambda_3 the moment (-lambda_3 on body 0, +lambda_3 on body 1).
 * Blocks are column-compressed on each body's rigid columns and the shape columns of its
 * joint point (the default element columns, model.h): 3 x (3 + shape) per body.
 *
 * This is the reference evaluation. Runs use its fast path, weld_fast.c (the same class
 * with the joint points' shape functions kept and the revolute fast path's Hessian), which
 * tests compare with this one to rounding.
 */
#include "joints/weld_fast.h"

/* Phi, and J0 = Phi_q on body 0, J1 on body 1 when asked for (non-NULL). */
static void weld_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                      double *J0, double *J1)
{
    (void)t;
    double r[2][2], Jp[2][2 * FMB_VIEW_COLS];
    fmb_point_posjac(&v[0], j->point[0], r[0], J0 ? Jp[0] : NULL);
    fmb_point_posjac(&v[1], j->point[1], r[1], J1 ? Jp[1] : NULL);
    phi[0] = r[0][0] - r[1][0];
    phi[1] = r[0][1] - r[1][1];
    phi[2] = fmb_body_angle(&v[0]) - fmb_body_angle(&v[1]) - j->ref;
    for (int b = 0; b < 2; b++) {
        double *Jb = b ? J1 : J0;
        if (!Jb || !v[b].ndof) continue;
        const double sgn = b ? -1.0 : 1.0;
        for (int c = 0; c < v[b].nc; c++) {
            Jb[0 + 3 * c] = sgn * Jp[b][0 + 2 * c];
            Jb[1 + 3 * c] = sgn * Jp[b][1 + 2 * c];
            Jb[2 + 3 * c] = c == 2 ? sgn : 0.0;
        }
    }
}

/* sum_k w_k d2Phi_k/dq2 added into H (the two bodies' columns, leading dimension
 * n0 + n1): H_P0(w_12) on body 0's diagonal block, H_P1(-w_12) on body 1's. */
static void weld_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                      double *H)
{
    (void)t;
    const int n0 = v[0].nc, ld = n0 + v[1].nc;
    const double mw[2] = {-w[0], -w[1]};
    fmb_point_hess(&v[0], j->point[0], w, H, ld);
    fmb_point_hess(&v[1], j->point[1], mw, H + n0 + (size_t)n0 * ld, ld);
}

static const fmb_param_t weld_params[] = {FMB_JOINT_ANGLE_PARAM, {0}};

/* Not in the registry: the class of runs is fmb_weld_class (weld_fast.c), this table with
 * the fast eval and hess. */
const fmb_joint_class_t fmb_weld_reference_class = {
    .name = "weld",
    .nrows = 3,
    .eval = weld_eval,
    .hess = weld_hess,
    .hess_kind = FMB_HESS_POINTS,
    .time = NULL,
    .distinct = 1,
    .case_type = "weld",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = weld_params,
    .prepare = fmb_joint_prepare_angle,
};
