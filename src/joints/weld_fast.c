/*
 * The fast path of the weld joint (weld.c is the reference: its equations, its plain
 * evaluation through bodies/point.c). The class of runs, fmb_weld_class, is weld.c's class
 * with this file's eval and hess:
 *   - the shape functions of the joint points are kept in the joint (evalcache, the pins'
 *     fmb_pin_memo_t, revolute_fast.h) and given to point.c's fmb_point_posjac_n, which
 *     then neither searches the element nor evaluates its shape functions,
 *   - the Hessian contraction is the revolute fast path's fmb_joint_pin_hess on the first
 *     two weights (Phi_3 is linear).
 * Measured with callgrind on an elastic arm welded to a driven hub with a second arm and a
 * tip mass welded on (three welds on beams, 16 elements): the reference costs 2.0 % more
 * per step (450,700 against 441,700 instructions), the shape functions' evaluation.
 * The same values as weld.c's to rounding (tests/test_weld_fast.c compares the two class
 * tables); both pass the finite-difference checks of tests/test_conformance.c.
 */
#include "joints/revolute_fast.h"
#include "joints/weld_fast.h"

static void weld_fast_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
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

static const fmb_param_t weld_fast_params[] = {FMB_JOINT_ANGLE_PARAM, {0}};

const fmb_joint_class_t fmb_weld_class = {
    .name = "weld",
    .nrows = 3,
    .eval = weld_fast_eval,
    .hess = fmb_joint_pin_hess, /* Phi_3 is linear */
    .hess_kind = FMB_HESS_POINTS,
    .time = NULL,
    .distinct = 1,
    .case_type = "weld",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = weld_fast_params,
    .prepare = fmb_joint_prepare_angle,
};
