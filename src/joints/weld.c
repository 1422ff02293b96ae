/*
 * Weld joint: point P0 on body 0 coincides with P1 on body 1 and the relative angle
 * is locked.
 *   Phi_{1,2} = r_P0 - r_P1        (inertial; as the revolute joint)
 *   Phi_3     = theta0 - theta1 - angle
 *   Phi_q = [ J_P0 , -J_P1 ; e3^T , -e3^T ]
 *   sum_k w_k d2Phi_k/dq2 = blockdiag( H_P0(w_12), -H_P1(w_12) )   (Phi_3 is linear)
 * Column-compressed on the rigid columns and the joint points' shape columns (model.h).
 */
#include "joints/revolute_fast.h" /* the pins' kept shape functions, fmb_joint_pin_hess */

static void weld_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                      double *J0, double *J1)
{
    (void)t;
    double r[2][2], Jp[2][2 * FMB_VIEW_COLS];
    for (int b = 0; b < 2; b++)
        fmb_point_posjac_n(&v[b], j->point[b], fmb_joint_pin_shape(j, &v[b], b), r[b],
                           (b ? J1 : J0) ? Jp[b] : NULL);
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

static const fmb_param_t weld_params[] = {FMB_JOINT_ANGLE_PARAM, {0}};

const fmb_joint_class_t fmb_weld_class = {
    .name = "weld",
    .nrows = 3,
    .eval = weld_eval,
    .hess = fmb_joint_pin_hess, /* Phi_3 is linear */
    .hess_kind = FMB_HESS_POINTS,
    .time = NULL,
    .distinct = 1,
    .case_type = "weld",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = weld_params,
    .prepare = fmb_joint_prepare_angle,
};
