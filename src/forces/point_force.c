/*
 * Point force F(t) = (fx(t), fy(t)) in inertial axes at body point P, and a pure
 * torque tz(t).
 *   Q = J_P^T F,   dQ/dq = H_P(F) (the force turns with nothing: F is inertial)
 *   torque: Q_theta = tz, no tangent.
 *   Power: F . rdot_P, resp. tz thetadot (integrated into the work column).
 * Q and dQ/dq are column-compressed on the element's columns (model.h): body 0's rigid
 * columns and the point's shape columns.
 */
#include "forces/forces.h"

static void point_force_value(const fmb_force_t *f, double t, double F[2])
{
    F[0] = f->fn[0] ? fmb_expr_eval(f->fn[0], t, 0) : 0.0;
    F[1] = f->fn[1] ? fmb_expr_eval(f->fn[1], t, 0) : 0.0;
}

static void point_force_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                             double *Q1, double *K, double *C)
{
    (void)Q1, (void)C;
    double F[2], J[2 * FMB_VIEW_COLS];
    point_force_value(f, t, F);
    fmb_point_jac(&v[0], f->point[0], J);
    for (int k = 0; k < v[0].nc; k++)
        Q0[k] += J[2 * k] * F[0] + J[2 * k + 1] * F[1];
    if (K) fmb_point_hess(&v[0], f->point[0], F, K, v[0].nc + v[1].nc);
}

static double point_force_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    double F[2], rd[2];
    point_force_value(f, t, F);
    fmb_point_vel(&v[0], f->point[0], rd);
    return F[0] * rd[0] + F[1] * rd[1];
}

static int on_body_check(const fmb_force_t *f, char *msg, size_t len)
{
    if (f->body[0] == FMB_GROUND) {
        snprintf(msg, len, "force '%s' acts on the ground", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static const fmb_param_t point_params[] = {
    {.key = "point",
     .kind = FMB_PARAM_POINT,
     .offset = offsetof(fmb_force_desc_t, point),
     .unit = "m",
     .doc = "point of application (a point name or [x, y], body frame)"},
    {.key = "fx",
     .kind = FMB_PARAM_EXPR,
     .offset = offsetof(fmb_force_desc_t, expr[0]),
     .dflt_text = "0",
     .unit = "N",
     .doc = "inertial x component, an expression of t"},
    {.key = "fy",
     .kind = FMB_PARAM_EXPR,
     .offset = offsetof(fmb_force_desc_t, expr[1]),
     .dflt_text = "0",
     .unit = "N",
     .doc = "inertial y component, an expression of t"},
    {0}};

const fmb_force_class_t fmb_point_force_class = {
    .name = "point",
    .nbodies = 1,
    .eval = point_force_eval,
    .potential = NULL,
    .power = point_force_power,
    .check = on_body_check,
    .case_type = "point",
    .item_flags = FMB_ITEM_BODY,
    .params = point_params,
};

static void torque_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                        double *Q1, double *K, double *C)
{
    (void)Q1, (void)K, (void)C;
    if (v[0].ndof) Q0[2] += fmb_expr_eval(f->fn[0], t, 0);
}

static double torque_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    return v[0].ndof ? fmb_expr_eval(f->fn[0], t, 0) * v[0].qd[2] : 0.0;
}

static const fmb_param_t torque_params[] = {
    {.key = "tz",
     .kind = FMB_PARAM_EXPR,
     .flags = FMB_PARAM_REQUIRED,
     .offset = offsetof(fmb_force_desc_t, expr[0]),
     .unit = "N m",
     .doc = "torque (counter-clockwise), an expression of t"},
    {0}};

const fmb_force_class_t fmb_torque_class = {
    .name = "torque",
    .nbodies = 1,
    .eval = torque_eval,
    .potential = NULL,
    .power = torque_power,
    .check = on_body_check,
    .case_type = "torque",
    .item_flags = FMB_ITEM_BODY,
    .params = torque_params,
};
