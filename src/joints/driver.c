/*
 * Drivers: one coordinate prescribed by a function of time f(t) (an expression with
 * symbolic derivatives f', f'').
 *   angle:  Phi = theta0 - theta1 - f(t)     Phi_q = [e3^T, -e3^T]   (linear)
 *   x, y:   Phi = (r_P0)_c - f(t)            Phi_q = [ (J_P0)_c ]    H = H_P0(w e_c)
 *   Phi_t = -f'(t),  Phi_tt = -f''(t)
 * The multiplier of an angle driver is the drive torque with a minus sign on body 0:
 * the driver applies -lambda to body 0 and +lambda to body 1.
 * Blocks column-compressed (model.h) on the default columns: rigid columns plus the
 * shape columns of point[b] (the angle driver's entries off columns 2 are zero).
 */
#include "joints/joints.h"

static void driver_time(const fmb_joint_t *j, double t, double *phit, double *phitt)
{
    phit[0] = -fmb_expr_eval(j->fn, t, 1);
    phitt[0] = -fmb_expr_eval(j->fn, t, 2);
}

static void angle_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                       double *J0, double *J1)
{
    phi[0] = fmb_body_angle(&v[0]) - fmb_body_angle(&v[1]) - fmb_expr_eval(j->fn, t, 0);
    if (J0 && v[0].ndof) J0[0] = 0, J0[1] = 0, J0[2] = 1;
    if (J1 && v[1].ndof) J1[0] = 0, J1[1] = 0, J1[2] = -1;
}

static void angle_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                       double *H)
{
    (void)j, (void)v, (void)t, (void)w, (void)H;
}

static void coord_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, int c,
                       double *phi, double *J0)
{
    double r[2], Jp[2 * FMB_VIEW_COLS];
    fmb_point_posjac(&v[0], j->point[0], r, J0 ? Jp : NULL);
    phi[0] = r[c] - fmb_expr_eval(j->fn, t, 0);
    if (J0 && v[0].ndof) {
        for (int k = 0; k < v[0].nc; k++)
            J0[k] = Jp[c + 2 * k];
    }
}

static void x_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                   double *J0, double *J1)
{
    (void)J1;
    coord_eval(j, v, t, 0, phi, J0);
}

static void y_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                   double *J0, double *J1)
{
    (void)J1;
    coord_eval(j, v, t, 1, phi, J0);
}

static void x_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                   double *H)
{
    (void)t;
    double ww[2] = {w[0], 0.0};
    fmb_point_hess(&v[0], j->point[0], ww, H, v[0].nc + v[1].nc);
}

static void y_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                   double *H)
{
    (void)t;
    double ww[2] = {0.0, w[0]};
    fmb_point_hess(&v[0], j->point[0], ww, H, v[0].nc + v[1].nc);
}

/* Case keys: the driver function f(t); the coordinate is the variant key. */
static const fmb_param_t driver_params[] = {
    {.key = "function",
     .kind = FMB_PARAM_EXPR,
     .flags = FMB_PARAM_REQUIRED,
     .offset = offsetof(fmb_joint_desc_t, expr),
     .unit = "rad or m",
     .doc = "prescribed coordinate f(t), an expression of t and the parameters"},
    {0}};

static int angle_prepare(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    (void)d;
    if (env->body[0] == env->body[1])
        return fmb_item_fail(env, NULL, -1, "drives the angle of body '%s' relative to itself",
                             env->body_name[0]);
    return 0;
}

static int coord_prepare(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    (void)d;
    if (env->body[0] == FMB_GROUND)
        return fmb_item_fail(env, NULL, -1, "drives a point of the ground");
    return 0;
}

const fmb_joint_class_t fmb_driver_angle_class = {
    .name = "driver_angle",
    .drive_name = "drive_torque", /* Mz on body 1 */
    .drive_column = 2,
    .no_point = 1,
    .nrows = 1,
    .eval = angle_eval,
    .hess = angle_hess,
    .hess_kind = FMB_HESS_POINTS, /* none at all: a subset */
    .time = driver_time,
    .distinct = 1,
    .case_type = "driver",
    .variant_key = "coordinate",
    .variant = "angle",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_ONE_OR_TWO | FMB_ITEM_POINTS,
    .params = driver_params,
    .prepare = angle_prepare,
};

const fmb_joint_class_t fmb_driver_x_class = {
    .name = "driver_x",
    .drive_name = "drive_force", /* Fx on body 1 */
    .drive_column = 0,
    .nrows = 1,
    .eval = x_eval,
    .hess = x_hess,
    .hess_kind = FMB_HESS_POINTS,
    .time = driver_time,
    .bodies = {FMB_BODY_RIGID | FMB_BODY_BEAM, 0}, /* not a point of the ground */
    .case_type = "driver",
    .variant_key = "coordinate",
    .variant = "x",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_ONE_OR_TWO | FMB_ITEM_POINTS,
    .params = driver_params,
    .prepare = coord_prepare,
};

const fmb_joint_class_t fmb_driver_y_class = {
    .name = "driver_y",
    .drive_name = "drive_force", /* Fy on body 1 */
    .drive_column = 1,
    .nrows = 1,
    .eval = y_eval,
    .hess = y_hess,
    .hess_kind = FMB_HESS_POINTS,
    .time = driver_time,
    .bodies = {FMB_BODY_RIGID | FMB_BODY_BEAM, 0}, /* not a point of the ground */
    .case_type = "driver",
    .variant_key = "coordinate",
    .variant = "y",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_ONE_OR_TWO | FMB_ITEM_POINTS,
    .params = driver_params,
    .prepare = coord_prepare,
};
